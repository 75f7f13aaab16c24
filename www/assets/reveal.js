// reveal.js: the reveal page. Loading it only asks for the metadata (no view is
// used); the view is consumed when the person presses Reveal. The secret is
// decrypted here with the key from the address fragment, which is then removed
// from the address bar.

import {
	$, el, api, pathKey, fragmentKey,
	describeError, retryAfterSeconds, showView, announce, setMessage, copyText, msg, localize,
	localizeAttr, safeName,
} from './common.js';
import { decodeKey, openAnswer, checkKey } from './wire.js';

const message = msg; // the burn handler has its own "msg", the message box
import { value, bytes, date, rel, seconds as duration, setTitle } from './i18n.js';

// The pages for a link that opens nothing, by kind or API error code.
const GONE = {
	nokey: { title: 'gone.nokey.title', text: 'gone.nokey.text', extra: 'gone.nokey.extra' },
	badkey: { title: 'gone.badkey.title', text: 'gone.badkey.text', extra: 'gone.badkey.extra' },
	wrongkey: { title: 'gone.wrongkey.title', text: 'gone.wrongkey.text', extra: 'gone.wrongkey.extra' },
	badpath: { title: 'gone.badpath.title', text: 'gone.badpath.text', extra: 'gone.badpath.extra' },
	SECRET_EXPIRED: { title: 'gone.expired.title', text: 'gone.expired.text', extra: 'gone.askAgain' },
	SECRET_BURNED: { title: 'gone.burned.title', text: 'gone.burned.text', extra: 'gone.askAgain' },
	MAX_VIEWS_REACHED: { title: 'gone.viewed.title', text: 'gone.viewed.text', extra: 'gone.viewed.extra' },
	NOT_FOUND: { title: 'gone.notFound.title', text: 'gone.notFound.text', extra: 'gone.notFound.extra' },
};

const secretKey = pathKey();
let rawKey = null;
let meta = null;
let lockTimer = null;
const blobUrls = [];

function gone(kind, focus) {
	const g = GONE[kind] || GONE.NOT_FOUND;
	localize($('gone-title'), msg(g.title));
	localize($('gone-text'), msg(g.text));
	localize($('gone-extra'), msg(g.extra));
	setTitle(msg('common.titleOf', { title: msg(g.title) }));
	document.body.dataset.state = kind;
	showView('gone-view');
	if (focus)
		$('gone-title').focus();
	announce(msg(g.title));
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
	localize($('ready-views'), left === null || left === undefined
		? msg('common.unlimited')
		: left === 1 ? msg('reveal.lastOne', { count: 1 }) : value(left));
	$('ready-expiry').replaceChildren(el('span', { text: value(rel(meta.expiresAt)) }),
		el('span', { class: 'sub', text: value(date(meta.expiresAt)) }));
	localize($('ready-passphrase'), msg(meta.hasPassphrase ? 'reveal.needed' : 'reveal.notNeeded'));
	localize($('ready-note'), msg(left === 1 ? 'reveal.usesLastView' : 'reveal.usesOneView'));
	$('passphrase-field').hidden = !meta.hasPassphrase;
	document.body.dataset.state = 'ready';
	showView('ready-view');
	announce(msg('reveal.waitingAnnounce'));
}

function lockOut(seconds) {
	const button = $('reveal-button');
	let left = seconds;
	button.disabled = true;
	const tick = () => {
		localize(button, msg('reveal.tryAgainIn', { wait: duration(left) }));
		if (left <= 0) {
			clearInterval(lockTimer);
			lockTimer = null;
			button.disabled = false;
			localize(button, msg('reveal.reveal'));
			setMessage($('reveal-error'), 'warn', msg('reveal.tryAgainNow'), '');
			announce(msg('reveal.tryAgainNow'));
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
		setMessage(box, 'error', msg('reveal.passphraseFirst'), msg('reveal.passphraseFirstDetail'));
		pass.focus();
		return;
	}
	setMessage(box, '', '');
	const button = $('reveal-button');
	button.disabled = true;
	localize(button, msg('reveal.revealing'));
	const res = await api('POST', secretKey, meta.hasPassphrase ? { passphrase: pass.value } : {});
	button.disabled = false;
	localize(button, msg('reveal.reveal'));
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
		setMessage($('views-message'), 'error', msg('reveal.wrongKey'), msg('reveal.wrongKeyDetail'));
		showView('secret-view');
		localize($('secret-title'), msg('reveal.decryptFailed'));
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
		localize($('files-title'), msg('reveal.files', { count: files.length }));
		const list = $('files');
		for (const f of files) {
			// The blob is always octet-stream: a file is saved, never rendered here.
			const url = URL.createObjectURL(new Blob([f.bytes], { type: 'application/octet-stream' }));
			blobUrls.push(url);
			list.append(el('li', {},
				el('span', { class: 'file-name', text: f.name, dir: 'auto' }),
				el('span', { class: 'file-size', text: value(bytes(f.bytes.length)) }),
				el('a', {
					class: 'button small', href: url, download: f.name,
					text: msg('reveal.download'), 'aria-label': msg('reveal.downloadName', { name: f.name }),
				})));
		}
		$('files-block').hidden = false;
	}

	const left = data.viewsRemaining;
	const vm = $('views-message');
	if (left === 0) {
		setMessage(vm, 'warn', msg('reveal.lastView'), msg('reveal.lastViewDetail'));
	} else if (left === null || left === undefined) {
		setMessage(vm, 'ok', msg('reveal.untilExpiry'),
			msg('reveal.untilExpiryDetail', { when: rel(meta.expiresAt), date: date(meta.expiresAt) }));
	} else {
		setMessage(vm, 'ok', msg('reveal.viewsLeft', { count: left }),
			msg('reveal.viewsLeftDetail', { count: left, date: date(meta.expiresAt) }));
	}
	$('burn-block').hidden = !(meta.deletable && left !== 0);
	document.body.dataset.state = 'revealed';
	setTitle(msg('common.titleOf', { title: msg('reveal.secretTitle') }));
	showView('secret-view');
	$('secret-title').focus();
	announce(msg('reveal.shownAnnounce'), left === 0 ? msg('reveal.lastView') : '');
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
		setMessage(msg, 'ok', message('common.burned'), message('reveal.burnedDetail'));
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
	localize(e.currentTarget, msg(show ? 'common.hide' : 'common.show'));
	e.currentTarget.setAttribute('aria-pressed', String(show));
	localizeAttr(e.currentTarget, 'aria-label', msg(show ? 'common.hidePassphrase' : 'common.showPassphrase'));
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
