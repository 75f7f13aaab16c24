// create.js: the create page. Encrypts the text, the file bytes, names and types
// in the browser (AES-256-GCM, one key), sends only ciphertext, and shows the
// link with the key in its fragment, its QR code and the receipt link.

import {
	MAX_PLAINTEXT, MAX_FILES, PASS_MIN, PASS_MAX, VIEWS_MIN, VIEWS_MAX,
	$, el, apiUrl,
	describeError, showView, announce, setMessage, copyText, msg, localize, localizeAttr, drawQR as drawQRCanvas,
} from './common.js';
import { t, value, bytes, date, rel, currentLocale } from './i18n.js';
import { csrfToken, session, showAccount } from './account.js';
import { notifyField, notifyChoice } from './notify.js';
import { newKey, encodeKey, sealCreate } from './wire.js';
import { policy } from './policy.js';

/*
 * The exact text. A textarea reports every line break as LF, so a pasted CRLF
 * or CR would be lost. ExactText keeps, for each LF in the textarea, the break
 * it stands for ("\n", "\r\n" or "\r"), updating that list from each edit, and
 * gives back the text with the original breaks.
 */
class ExactText {
	constructor(ta) {
		this.ta = ta;
		this.breaks = [];
		this.prev = ta.value;
		this.pending = null;
		this.breaks = new Array(countLF(this.prev, 0, this.prev.length)).fill('\n');
		ta.addEventListener('input', () => this.sync());
		ta.addEventListener('paste', (e) => this.onPaste(e));
	}

	onPaste(e) {
		const raw = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
		if (!raw || raw.indexOf('\r') < 0)
			return; // the browser inserts it exactly as it is
		e.preventDefault();
		this.insertRaw(raw);
	}

	// Insert text with any line breaks at the caret, keeping them exactly.
	insertRaw(raw) {
		const norm = raw.replace(/\r\n?/g, '\n');
		this.pending = raw.match(/\r\n|\r|\n/g) || [];
		this.ta.focus();
		let ok = false;
		try {
			ok = document.execCommand('insertText', false, norm);
		} catch {
			ok = false;
		}
		if (!ok || this.pending !== null) {
			if (!ok)
				this.ta.setRangeText(norm, this.ta.selectionStart, this.ta.selectionEnd, 'end');
			this.sync();
		}
		this.pending = null;
	}

	// Bring the list of breaks in line with the textarea after an edit.
	sync() {
		const old = this.prev;
		const now = this.ta.value;
		const max = Math.min(old.length, now.length);
		let p = 0;
		while (p < max && old.charCodeAt(p) === now.charCodeAt(p))
			p++;
		let s = 0;
		while (s < max - p && old.charCodeAt(old.length - 1 - s) === now.charCodeAt(now.length - 1 - s))
			s++;
		const at = countLF(old, 0, p);
		const removed = countLF(old, p, old.length - s);
		const inserted = countLF(now, p, now.length - s);
		const fresh = this.pending && this.pending.length === inserted
			? this.pending : new Array(inserted).fill('\n');
		this.pending = null;
		this.breaks.splice(at, removed, ...fresh);
		this.prev = now;
	}

	value() {
		const v = this.ta.value;
		if (v !== this.prev)
			this.sync();
		if (this.breaks.every((b) => b === '\n'))
			return v;
		const lines = v.split('\n');
		if (lines.length !== this.breaks.length + 1)
			return v;
		let out = lines[0];
		for (let i = 1; i < lines.length; i++)
			out += this.breaks[i - 1] + lines[i];
		return out;
	}

	clear() {
		this.ta.value = '';
		this.prev = '';
		this.breaks = [];
		this.pending = null;
	}
}

function countLF(s, from, to) {
	let n = 0;
	for (let i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1))
		n++;
	return n;
}

function utf8Length(s) {
	let n = 0;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		if (c < 0x80)
			n += 1;
		else if (c < 0x800)
			n += 2;
		else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
			const d = s.charCodeAt(i + 1);
			if (d >= 0xdc00 && d <= 0xdfff) {
				n += 4;
				i++;
			} else
				n += 3;
		} else
			n += 3;
	}
	return n;
}

const form = $('create-form');
const textArea = $('text');
const exact = new ExactText(textArea);
const fileInput = $('file-input');
const fileList = $('file-list');
const dropzone = $('dropzone');
const meter = $('size-meter');
const formError = $('form-error');
const views = $('views');
const unlimited = $('unlimited');
const passphrase = $('passphrase');
const togglePass = $('toggle-passphrase');
const createButton = $('create-button');
const progress = $('progress');
const progressBar = $('progress-bar');
const progressText = $('progress-text');

let files = []; // File objects, in the order added
let busy = false;

// The limits checked here: docs/API.md's (limits.js), then this server's
// once GET api/config answers (policy.js; the operator may tighten them).
const limits = {
	content: MAX_PLAINTEXT, files: MAX_FILES, passMin: PASS_MIN, passMax: PASS_MAX,
	viewsMin: VIEWS_MIN, viewsMax: VIEWS_MAX, passRequired: false,
};
views.min = String(VIEWS_MIN);
views.max = String(VIEWS_MAX);
policy.then((p) => {
	if (!p || !p.limits)
		return;
	const l = p.limits;
	Object.assign(limits, {
		content: l.content.max, files: l.files.max, passMin: l.passphrase.min,
		passMax: l.passphrase.max, viewsMin: l.maxViews.min, viewsMax: l.maxViews.max,
		passRequired: l.passphrase.required,
	});
	const hint = $('files-hint');
	if (hint)
		localize(hint, msg('create.filesHint', { count: limits.files, size: bytes(limits.content) }));
	updateMeter();
	// Only signed-in users and API keys may create here: say so before the form is filled.
	if (p.create === 'accounts')
		session().then((s) => {
			if (!s.signedIn)
				setMessage(formError, 'warn', msg('create.accountsOnly'), msg('create.accountsOnlyDetail'));
		});
});

/* Size meter and files */

function textBytes() {
	return utf8Length(exact.value());
}

function filesBytes() {
	return files.reduce((n, f) => n + f.size, 0);
}

// The meter's message, for the announcement of added files.
let meterMsg = null;

function updateMeter() {
	const used = textBytes() + filesBytes();
	meterMsg = files.length
		? msg('create.meterFiles', { used: bytes(used), max: bytes(limits.content), count: files.length, maxFiles: limits.files })
		: msg('create.meter', { used: bytes(used), max: bytes(limits.content) });
	localize(meter, meterMsg);
	meter.classList.toggle('over', used > limits.content);
	return used;
}

let meterQueued = false;
textArea.addEventListener('input', () => {
	if (meterQueued)
		return;
	meterQueued = true;
	requestAnimationFrame(() => {
		meterQueued = false;
		updateMeter();
	});
});

function renderFiles() {
	fileList.replaceChildren();
	files.forEach((f, i) => {
		const remove = el('button', {
			type: 'button', class: 'button small', text: msg('create.remove'),
			'aria-label': f.name ? msg('create.removeName', { name: f.name }) : msg('create.removeFile'),
		});
		remove.addEventListener('click', () => {
			files.splice(i, 1);
			renderFiles();
			announce(f.name ? msg('create.removedName', { name: f.name }) : msg('create.removedFile'));
			const next = fileList.querySelectorAll('button')[Math.min(i, files.length - 1)];
			(next || $('add-files')).focus();
		});
		fileList.append(el('li', {},
			el('span', { class: 'file-name', text: f.name || msg('create.noName'), dir: 'auto' }),
			el('span', { class: 'file-size', text: value(bytes(f.size)) }),
			remove));
	});
	fileList.hidden = files.length === 0;
	updateMeter();
}

// Add files as long as they fit the limits; say what did not fit and why.
function addFiles(list) {
	const added = [];
	const refused = [];
	let reason = '';
	for (const f of list) {
		if (files.length >= limits.files) {
			refused.push(f);
			reason = msg('create.tooManyFiles', { count: limits.files });
			continue;
		}
		const room = limits.content - textBytes() - filesBytes();
		if (f.size > room) {
			refused.push(f);
			reason = msg('create.noRoom', { max: bytes(limits.content), left: bytes(Math.max(0, room)) });
			continue;
		}
		files.push(f);
		added.push(f);
	}
	renderFiles();
	if (refused.length) {
		const names = new Intl.ListFormat(currentLocale(), { type: 'unit' }).format(refused.map((f) =>
			t('create.fileAndSize', { name: f.name, size: bytes(f.size) })));
		setMessage(formError, 'error', msg('create.notAdded', { count: refused.length, names }), reason);
	} else {
		setMessage(formError, '', '');
	}
	if (added.length)
		announce(msg('create.added', { count: added.length }), meterMsg);
}

$('add-files').addEventListener('click', () => fileInput.click());
fileInput.addEventListener('change', () => {
	addFiles(Array.from(fileInput.files || []));
	fileInput.value = '';
});

function hasFiles(e) {
	return e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
}

// Files dropped anywhere on the page are attached (never opened by the browser).
let dragDepth = 0;
document.addEventListener('dragenter', (e) => {
	if (!hasFiles(e) || busy || $('create-view').hidden)
		return;
	dragDepth++;
	dropzone.classList.add('dragging');
});
document.addEventListener('dragleave', (e) => {
	if (!hasFiles(e))
		return;
	dragDepth = Math.max(0, dragDepth - 1);
	if (dragDepth === 0)
		dropzone.classList.remove('dragging');
});
document.addEventListener('dragover', (e) => {
	if (!hasFiles(e))
		return;
	e.preventDefault();
	e.dataTransfer.dropEffect = busy || $('create-view').hidden ? 'none' : 'copy';
});
document.addEventListener('drop', (e) => {
	if (!hasFiles(e))
		return;
	e.preventDefault();
	dragDepth = 0;
	dropzone.classList.remove('dragging');
	if (busy || $('create-view').hidden)
		return;
	addFiles(Array.from(e.dataTransfer.files || []));
});

/* Options */

unlimited.addEventListener('change', () => {
	views.disabled = unlimited.checked;
});

togglePass.addEventListener('click', () => {
	const show = passphrase.type === 'password';
	passphrase.type = show ? 'text' : 'password';
	localize(togglePass, msg(show ? 'common.hide' : 'common.show'));
	togglePass.setAttribute('aria-pressed', String(show));
	localizeAttr(togglePass, 'aria-label', msg(show ? 'common.hidePassphrase' : 'common.showPassphrase'));
});

/* Submit */

function invalid(field, title, detail) {
	field.setAttribute('aria-invalid', 'true');
	setMessage(formError, 'error', title, detail);
	field.focus();
	return null;
}

// The validated request options, or null after telling what is wrong.
function readOptions(text) {
	for (const f of [textArea, views, passphrase])
		f.removeAttribute('aria-invalid');
	if (text === '' && files.length === 0)
		return invalid(textArea, msg('error.empty.title'), msg('error.empty.detail'));
	if (utf8Length(text) + filesBytes() > limits.content)
		return invalid(textArea, msg('error.tooLarge.title'), msg('error.tooLarge.detail', { size: bytes(limits.content) }));
	let maxViews = null;
	if (!unlimited.checked) {
		const v = views.value.trim();
		if (!/^\d+$/.test(v) || +v < limits.viewsMin || +v > limits.viewsMax)
			return invalid(views, msg('create.badViews', { min: limits.viewsMin, max: limits.viewsMax }),
				unlimited.closest('.check').hidden ? '' : msg('create.badViewsDetail'));
		maxViews = parseInt(v, 10);
	}
	const pass = passphrase.value;
	const plen = Array.from(pass).length;
	if (pass === '' && limits.passRequired)
		return invalid(passphrase, msg('create.passRequired'),
			msg('create.passRequiredDetail', { min: limits.passMin, max: limits.passMax }));
	if (pass !== '' && (plen < limits.passMin || plen > limits.passMax))
		return invalid(passphrase, msg('error.passphraseLength.title', { min: limits.passMin, max: limits.passMax }),
			msg('create.passphraseLengthDetail', { count: plen }));
	return {
		ttl: parseInt($('ttl').value, 10),
		maxViews,
		passphrase: pass === '' ? undefined : pass,
		deletable: $('deletable').checked,
		notify: notifyChoice($('notify-field')),
	};
}

function setProgress(fraction, text) {
	progress.hidden = false;
	progressBar.value = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
	localize(progressText, text);
}

function setBusy(on) {
	busy = on;
	form.setAttribute('aria-busy', String(on));
	for (const c of form.querySelectorAll('input, textarea, select, button'))
		if (c !== views || !unlimited.checked)
			c.disabled = on;
	if (!on) {
		views.disabled = unlimited.checked;
		progress.hidden = true;
	}
}

// Post the body with upload progress (fetch cannot report it).
// Signed in, the secret is the account's: the session's CSRF token goes with it
// (asked again once if the session changed in another tab meanwhile).
async function upload(body, onProgress) {
	const res = await send(body, onProgress, await csrfToken());
	if (res.status === 403 && res.data && res.data.code === 'CSRF_REJECTED')
		return send(body, onProgress, await csrfToken(true));
	return res;
}

function send(body, onProgress, token) {
	return new Promise((resolve) => {
		const xhr = new XMLHttpRequest();
		xhr.open('POST', apiUrl());
		xhr.setRequestHeader('Content-Type', 'application/json');
		if (token)
			xhr.setRequestHeader('X-CSRF-Token', token);
		xhr.setRequestHeader('Accept', 'application/json');
		xhr.responseType = 'text';
		xhr.upload.onprogress = (e) => {
			if (e.lengthComputable)
				onProgress(e.loaded / e.total);
		};
		xhr.onload = () => {
			let data = null;
			try {
				data = JSON.parse(xhr.responseText);
			} catch {
				data = null;
			}
			const headers = new Headers();
			for (const h of ['Retry-After', 'X-RateLimit-Reset']) {
				const v = xhr.getResponseHeader(h);
				if (v)
					headers.set(h, v);
			}
			const ok = xhr.status >= 200 && xhr.status < 300 && data && data.success;
			resolve({ ok, status: xhr.status, data: data || { code: xhr.status >= 500 ? 'INTERNAL_ERROR' : 'UNEXPECTED' }, headers });
		};
		xhr.onerror = () => resolve({ ok: false, status: 0, data: { code: 'NETWORK_ERROR' }, headers: new Headers() });
		xhr.send(body);
	});
}

form.addEventListener('submit', async (e) => {
	e.preventDefault();
	if (busy)
		return;
	const text = exact.value();
	const opts = readOptions(text);
	if (!opts)
		return;
	setMessage(formError, '', '');
	setBusy(true);
	announce(msg('create.encryptingAnnounce'));
	const raw = newKey();
	try {
		const total = utf8Length(text) + filesBytes() || 1;
		setProgress(0, msg('create.encrypting'));
		// Each file is read when its turn comes, and its bytes wiped once sealed.
		const body = await sealCreate(raw, {
			text,
			files: files.map((f) => ({
				name: f.name || 'file', type: f.type, data: async () => new Uint8Array(await f.arrayBuffer()),
			})),
		}, {
			onFile: (i) => {
				const done = utf8Length(text) + files.slice(0, i).reduce((n, f) => n + f.size, 0);
				setProgress(0.5 * done / total, msg('create.encryptingFile', { n: i + 1, count: files.length }));
			},
		});
		body.ttl = opts.ttl;
		body.maxViews = opts.maxViews;
		if (opts.passphrase !== undefined)
			body.passphrase = opts.passphrase;
		body.deletable = opts.deletable;
		if (opts.notify)
			body.notify = opts.notify;
		setProgress(0.5, msg('create.uploading'));
		announce(msg('create.uploadingAnnounce'));
		const res = await upload(JSON.stringify(body), (f) => {
			setProgress(0.5 + 0.5 * f, f < 1
				? msg('create.uploadingPercent', { percent: new Intl.NumberFormat(currentLocale(), { style: 'percent' }).format(Math.round(f * 100) / 100) })
				: msg('create.saving'));
		});
		if (!res.ok) {
			const { title, detail } = describeError(res);
			setBusy(false);
			setMessage(formError, 'error', title, detail);
			formError.focus();
			return;
		}
		const link = res.data.secretUrl.split('#')[0] + '#key=' + encodeKey(raw);
		setBusy(false);
		showResult(link, res.data, opts);
	} catch (err) {
		setBusy(false);
		// the browser's own words, as a detail for whoever helps
		setMessage(formError, 'error', msg('create.encryptFailed'),
			String(err && err.message ? err.message : err));
	} finally {
		raw.fill(0);
	}
});

/* Result */

function drawQR(link) {
	$('qr-figure').hidden = !drawQRCanvas($('qr-canvas'), link, 400);
}

function viewsInWords(maxViews) {
	if (maxViews === null)
		return msg('common.unlimited');
	return msg('result.views', { count: maxViews });
}

function showResult(link, data, opts) {
	const meta = data.metadata || {};
	$('secret-link').value = link;
	$('receipt-link').value = data.metadataUrl;
	$('open-receipt').href = data.metadataUrl;
	const expiry = $('result-expiry');
	expiry.replaceChildren(el('span', { text: value(rel(meta.expiresAt)) }),
		el('span', { class: 'sub', text: value(date(meta.expiresAt)) }));
	localize($('result-views'), viewsInWords(meta.maxViews === undefined ? opts.maxViews : meta.maxViews));
	localize($('result-passphrase'), msg(opts.passphrase !== undefined ? 'result.passphraseRequired' : 'result.passphraseNone'));
	drawQR(link);
	showView('result-view');
	$('result-title').focus();
	announce(msg('result.title'));
}

$('copy-secret').addEventListener('click', (e) => copyText($('secret-link').value, e.currentTarget, $('secret-link')));
$('copy-receipt').addEventListener('click', (e) => copyText($('receipt-link').value, e.currentTarget, $('receipt-link')));
for (const id of ['secret-link', 'receipt-link'])
	$(id).addEventListener('focus', (e) => e.currentTarget.select());

$('create-another').addEventListener('click', () => {
	form.reset();
	exact.clear();
	files = [];
	renderFiles();
	views.disabled = false;
	passphrase.type = 'password';
	localize(togglePass, msg('common.show'));
	togglePass.setAttribute('aria-pressed', 'false');
	localizeAttr(togglePass, 'aria-label', msg('common.showPassphrase'));
	$('secret-link').value = '';
	$('receipt-link').value = '';
	$('open-receipt').href = './';
	const canvas = $('qr-canvas');
	canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
	setMessage(formError, '', '');
	showView('create-view');
	textArea.focus();
	announce(msg('create.readyAgain'));
});

updateMeter();

showAccount($('account-nav'));
// Signed in: "Notify me" (docs/NOTIFY.md); anonymous senders have the receipt.
session().then((s) => {
	if (s.signedIn)
		notifyField($('notify-field'));
});
