// reveal.js: the reveal page. Loading it only asks for the metadata (no view is
// used); the view is consumed when the person presses Reveal. The secret is
// decrypted here with the key from the address fragment, which is then removed
// from the address bar.

import {
	$, el, api, pathKey, fragmentKey,
	describeError, retryAfterSeconds, formatBytes, formatDate, formatRelative, formatSeconds,
	plural, showView, announce, setMessage, copyText,
} from './common.js';
import { decodeKey, openAnswer, checkKey } from './wire.js';

const GONE = {
	nokey: {
		title: 'This link is incomplete',
		text: 'The end of the link, after “#key=”, holds the key that decrypts the secret, and it is missing here.',
		extra: 'Nothing was requested from the server and no view was used. Copy the whole link from the message you received, or ask the sender to send it again.',
	},
	badkey: {
		title: 'This link is damaged',
		text: 'The decryption key at the end of the link is not valid: it was probably cut off or changed when the link was copied.',
		extra: 'Nothing was requested from the server and no view was used. Copy the whole link again, or ask the sender to send it again.',
	},
	wrongkey: {
		title: 'This link’s key does not fit',
		text: 'The decryption key at the end of the link is not the key of this secret: the link was probably changed when it was copied.',
		extra: 'No view was used: the secret is still there for the right link. Copy the whole link again, or ask the sender to send it again.',
	},
	badpath: {
		title: 'This link is not valid',
		text: 'The address does not name a secret: it was probably cut off or changed when the link was copied.',
		extra: 'Nothing was requested from the server. Copy the whole link again, or ask the sender to send it again.',
	},
	SECRET_EXPIRED: {
		title: 'This secret has expired',
		text: 'It was available for a limited time only, and that time is over. Its content has been deleted.',
		extra: 'If you still need it, ask the sender to share it again.',
	},
	SECRET_BURNED: {
		title: 'This secret was burned',
		text: 'It was deleted on purpose by the sender or by someone with the link. Its content is gone for good.',
		extra: 'If you still need it, ask the sender to share it again.',
	},
	MAX_VIEWS_REACHED: {
		title: 'This secret has already been viewed',
		text: 'It could be opened a limited number of times, those views are used up, and its content has been deleted.',
		extra: 'If you did not open it yourself, someone else may have: tell the sender.',
	},
	NOT_FOUND: {
		title: 'Secret not found',
		text: 'There is no secret at this address. It may have expired and been cleaned up, or the link is wrong.',
		extra: 'Check that you copied the whole link, or ask the sender for a new one.',
	},
};

const secretKey = pathKey();
let rawKey = null;
let meta = null;
let lockTimer = null;
const blobUrls = [];

function gone(kind, focus) {
	const g = GONE[kind] || GONE.NOT_FOUND;
	$('gone-title').textContent = g.title;
	$('gone-text').textContent = g.text;
	$('gone-extra').textContent = g.extra;
	document.title = `${g.title} · burnlink`;
	document.body.dataset.state = kind;
	showView('gone-view');
	if (focus)
		$('gone-title').focus();
	announce(g.title + '.');
}

function failed(res) {
	const { title, detail } = describeError(res);
	setMessage($('error-message'), 'error', title, detail);
	document.body.dataset.state = 'error';
	showView('error-view');
}

// Check the link without consuming anything: a GET of the metadata.
async function check() {
	showView('loading-view');
	const res = await api('GET', secretKey);
	if (res.ok && res.data.exists && res.data.type === 'secret') {
		// A key that does not fit is refused here, before a view is spent
		// (docs/API.md "Key commitment"); a secret without a commitment
		// can only be checked by decrypting it.
		if (await checkKey(rawKey, res.data.keyCommitment) === 'mismatch')
			return gone('wrongkey');
		meta = res.data;
		showReady();
		return;
	}
	if (res.ok || res.status === 404)
		return gone('NOT_FOUND');
	if (res.status === 410 && GONE[res.data.code])
		return gone(res.data.code);
	failed(res);
}

function showReady() {
	const left = meta.viewsRemaining;
	$('ready-views').textContent = left === null || left === undefined
		? 'Unlimited until it expires'
		: left === 1 ? '1 (this is the last one)' : String(left);
	$('ready-expiry').replaceChildren(formatRelative(meta.expiresAt),
		el('span', { class: 'sub', text: formatDate(meta.expiresAt) }));
	$('ready-passphrase').textContent = meta.hasPassphrase ? 'Needed' : 'Not needed';
	$('ready-note').textContent = left === 1
		? 'Revealing uses the last view: after that the link stops working, so keep this page open until you have copied what you need.'
		: 'Revealing uses one view.';
	$('passphrase-field').hidden = !meta.hasPassphrase;
	document.body.dataset.state = 'ready';
	showView('ready-view');
	announce('A secret is waiting. Press Reveal to open it.');
}

function lockOut(seconds) {
	const button = $('reveal-button');
	let left = seconds;
	button.disabled = true;
	const tick = () => {
		button.textContent = `Try again in ${formatSeconds(left)}`;
		if (left <= 0) {
			clearInterval(lockTimer);
			lockTimer = null;
			button.disabled = false;
			button.textContent = 'Reveal secret';
			setMessage($('reveal-error'), 'warn', 'You can try the passphrase again now.', '');
			announce('You can try the passphrase again now.');
		}
		left--;
	};
	clearInterval(lockTimer);
	tick();
	lockTimer = setInterval(tick, 1000);
}

// Reveal: the only place a view is consumed. Only a person's own press counts:
// a trusted click on the button (mouse, touch, Enter or Space on it) or Enter
// typed in the passphrase field. A script's button.click() or form submission
// (a link scanner running the page) produces an untrusted click or keydown and
// is ignored; the form's own submit event is never used, since the browser
// fires it as trusted even when a script started the submission.
async function reveal(e) {
	if (!e.isTrusted || lockTimer || $('reveal-button').disabled)
		return;
	const pass = $('passphrase');
	const box = $('reveal-error');
	pass.removeAttribute('aria-invalid');
	if (meta.hasPassphrase && pass.value === '') {
		pass.setAttribute('aria-invalid', 'true');
		setMessage(box, 'error', 'Type the passphrase first.', 'The sender should have given it to you separately.');
		pass.focus();
		return;
	}
	setMessage(box, '', '');
	const button = $('reveal-button');
	button.disabled = true;
	button.textContent = 'Revealing…';
	const res = await api('POST', secretKey, meta.hasPassphrase ? { passphrase: pass.value } : {});
	button.disabled = false;
	button.textContent = 'Reveal secret';
	if (res.ok && res.data.success) {
		await showSecret(res.data);
		return;
	}
	if (res.status === 410 && GONE[res.data.code])
		return gone(res.data.code, true);
	if (res.status === 404)
		return gone('NOT_FOUND', true);
	const { title, detail } = describeError(res);
	if (res.data.code === 'INVALID_PASSPHRASE') {
		pass.setAttribute('aria-invalid', 'true');
		setMessage(box, 'error', title, detail);
		pass.focus();
		pass.select();
		return;
	}
	if (res.data.code === 'TOO_MANY_ATTEMPTS') {
		const wait = retryAfterSeconds(res.headers) || 60;
		setMessage(box, 'error', title, detail);
		box.focus();
		lockOut(wait);
		return;
	}
	setMessage(box, 'error', title, detail);
	box.focus();
}

// A download name that cannot point elsewhere or pass for another: no path,
// and control (C0, DEL, C1) and bidirectional-control characters become "_",
// as in the CLI's safeFileName (docs/CLI.md), so "invoice\u202Efdp.exe"
// cannot read as "invoiceexe.pdf".
function safeName(name) {
	const n = String(name || '').normalize('NFC')
		.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\]/g, '_').trim();
	return n === '' || n === '.' || n === '..' ? 'file' : n;
}

async function showSecret(data) {
	let text = null;
	const files = [];
	try {
		const opened = await openAnswer(rawKey, data);
		if (opened.text)
			text = new TextDecoder('utf-8').decode(opened.text);
		for (const f of opened.files)
			files.push({ name: safeName(f.name), type: f.type, bytes: f.data });
	} catch {
		$('views-message').hidden = true;
		setMessage($('views-message'), 'error', 'The key in this link does not open the secret.',
			'The link was probably changed when it was copied. The view was used; ask the sender for a new link.');
		showView('secret-view');
		$('secret-title').textContent = 'The secret could not be decrypted';
		$('secret-title').focus();
		return;
	} finally {
		rawKey.fill(0);
	}
	// The key has done its work: take it out of the address bar and history entry.
	history.replaceState(null, '', location.pathname + location.search);

	if (text !== null) {
		$('secret-text').textContent = text;
		$('text-block').hidden = false;
		$('copy-text').addEventListener('click', (ev) => copyText(text, ev.currentTarget, $('secret-text')));
	}
	if (files.length) {
		$('files-title').textContent = files.length === 1 ? 'File' : `Files (${files.length})`;
		const list = $('files');
		for (const f of files) {
			// The blob is always octet-stream: a file is saved, never rendered here.
			const url = URL.createObjectURL(new Blob([f.bytes], { type: 'application/octet-stream' }));
			blobUrls.push(url);
			list.append(el('li', {},
				el('span', { class: 'file-name', text: f.name }),
				el('span', { class: 'file-size', text: formatBytes(f.bytes.length) }),
				el('a', {
					class: 'button small', href: url, download: f.name,
					text: 'Download', 'aria-label': `Download ${f.name}`,
				})));
		}
		$('files-block').hidden = false;
	}

	const left = data.viewsRemaining;
	const vm = $('views-message');
	if (left === 0) {
		setMessage(vm, 'warn', 'This was the last view.',
			'The secret is now deleted from the server and the link no longer works. This page holds the only copy: save what you need before you leave.');
	} else if (left === null || left === undefined) {
		setMessage(vm, 'ok', 'The link keeps working until it expires.',
			`It expires ${formatRelative(meta.expiresAt)} (${formatDate(meta.expiresAt)}).`);
	} else {
		setMessage(vm, 'ok', `${plural(left, 'view', 'views')} left.`,
			`The link works ${plural(left, 'more time', 'more times')}, until ${formatDate(meta.expiresAt)}.`);
	}
	$('burn-block').hidden = !(meta.deletable && left !== 0);
	document.body.dataset.state = 'revealed';
	document.title = 'The secret · burnlink';
	showView('secret-view');
	$('secret-title').focus();
	announce('The secret is shown.' + (left === 0 ? ' This was the last view.' : ''));
}

/* Burn */

$('burn-button').addEventListener('click', () => {
	$('burn-confirm').hidden = false;
	$('burn-yes').focus();
});
$('burn-no').addEventListener('click', () => {
	$('burn-confirm').hidden = true;
	$('burn-button').focus();
});
$('burn-confirm').addEventListener('keydown', (e) => {
	if (e.key === 'Escape') {
		$('burn-confirm').hidden = true;
		$('burn-button').focus();
	}
});
$('burn-yes').addEventListener('click', async (e) => {
	if (!e.isTrusted)
		return;
	const msg = $('burn-message');
	$('burn-yes').disabled = true;
	const res = await api('DELETE', secretKey, meta.hasPassphrase ? { passphrase: $('passphrase').value } : undefined);
	$('burn-yes').disabled = false;
	if (res.ok || (res.status === 410 && res.data.code === 'SECRET_BURNED')) {
		$('burn-block').hidden = true;
		$('views-message').hidden = true;
		setMessage(msg, 'ok', 'Burned.', 'The secret is deleted from the server and the link no longer works for anyone.');
		msg.tabIndex = -1;
		msg.focus();
		return;
	}
	const { title, detail } = describeError(res);
	$('burn-confirm').hidden = true;
	setMessage(msg, 'error', title, detail);
	$('burn-button').focus();
});

/* Start */

$('toggle-passphrase').addEventListener('click', (e) => {
	const pass = $('passphrase');
	const show = pass.type === 'password';
	pass.type = show ? 'text' : 'password';
	e.currentTarget.textContent = show ? 'Hide' : 'Show';
	e.currentTarget.setAttribute('aria-pressed', String(show));
	e.currentTarget.setAttribute('aria-label', show ? 'Hide passphrase' : 'Show passphrase');
});
$('reveal-form').addEventListener('submit', (e) => e.preventDefault());
$('reveal-button').addEventListener('click', reveal);
$('passphrase').addEventListener('keydown', (e) => {
	if (e.key === 'Enter' && !e.isComposing) {
		e.preventDefault();
		reveal(e);
	}
});
$('retry').addEventListener('click', () => check());
window.addEventListener('pagehide', () => {
	for (const u of blobUrls)
		URL.revokeObjectURL(u);
});

(function start() {
	if (!secretKey)
		return gone('badpath');
	const fk = fragmentKey();
	if (fk === undefined || fk === '')
		return gone('nokey');
	rawKey = decodeKey(fk);
	if (!rawKey)
		return gone('badkey');
	check();
})();
