// common.js: what the create, reveal and receipt pages share: addresses, the
// limits, API calls, error messages (the catalogues of i18n.js) and the DOM
// helpers. The encryption and base64 of the wire format are wire.js's.

import {
	Msg, msg, localize, localizeAttr, bytes, seconds,
	formatBytes, formatSeconds, formatDate, formatRelative,
} from './i18n.js';

export { msg, localize, localizeAttr };

import { LIMITS } from './limits.js';

// The limits of docs/API.md (limits.js, generated from lib/fields.c).
export const MAX_PLAINTEXT = LIMITS.content.max; // text and file bytes together
export const MAX_FILES = LIMITS.files.max;
export const PASS_MIN = LIMITS.passphrase.min;
export const PASS_MAX = LIMITS.passphrase.max;
export const VIEWS_MIN = LIMITS.maxViews.min;
export const VIEWS_MAX = LIMITS.maxViews.max;
const KEY_RE = /^[A-Za-z0-9_-]{22}$/;

// The site root path, ending in "/": the part of the address before
// "/secret/<key>" or "/receipt/<key>", else the directory of the page. Every
// address the pages use is built from it, so an install under a path prefix works.
export function siteRoot() {
	const path = location.pathname;
	const m = /^(.*\/)(?:secret|receipt)\/[^/]*$/.exec(path);
	if (m)
		return m[1];
	return path.replace(/[^/]*$/, '');
}

// The API address of a secret or receipt key (or of the collection).
export function apiUrl(key) {
	return siteRoot() + 'api/secrets' + (key ? '/' + encodeURIComponent(key) : '');
}

// The key in the page address (/secret/<key> or /receipt/<key>), or null when it
// is not 22 url-safe base64 characters.
export function pathKey() {
	const m = /\/(?:secret|receipt)\/([^/]*)$/.exec(location.pathname);
	if (!m)
		return null;
	let key;
	try {
		key = decodeURIComponent(m[1]);
	} catch {
		return null;
	}
	return KEY_RE.test(key) ? key : null;
}

// The key value of the address fragment: undefined when the fragment has no
// key at all, else the raw string (which may still be malformed).
export function fragmentKey() {
	const hash = location.hash.replace(/^#/, '');
	if (!hash)
		return undefined;
	for (const part of hash.split('&')) {
		const eq = part.indexOf('=');
		const name = eq < 0 ? part : part.slice(0, eq);
		if (name !== 'key')
			continue;
		let value = eq < 0 ? '' : part.slice(eq + 1);
		try {
			value = decodeURIComponent(value);
		} catch {
			return value;
		}
		return value;
	}
	return undefined;
}

/* API */

// One JSON call of url (headers: more request headers). Resolves to {ok,
// status, data, headers}; a network failure gives status 0 and code
// NETWORK_ERROR, an answer that is not a JSON object a code from its status.
// The page address (and so the key in its fragment) is never part of the
// request, and no referrer is sent.
export async function fetchJson(url, method, body, headers = {}) {
	const init = {
		method,
		headers: { Accept: 'application/json', ...headers },
		cache: 'no-store',
		credentials: 'same-origin',
		referrerPolicy: 'no-referrer',
	};
	if (body !== undefined) {
		init.headers['Content-Type'] = 'application/json';
		init.body = JSON.stringify(body);
	}
	let res;
	try {
		res = await fetch(url, init);
	} catch {
		return { ok: false, status: 0, data: { code: 'NETWORK_ERROR' }, headers: new Headers() };
	}
	let data = null;
	try {
		data = await res.json();
	} catch {
		data = null;
	}
	if (!data || typeof data !== 'object')
		data = res.ok ? {} : { code: res.status >= 500 ? 'INTERNAL_ERROR' : 'UNEXPECTED' };
	return { ok: res.ok, status: res.status, data, headers: res.headers };
}

// One call of /api/secrets[/<key>] (fetchJson()).
export function api(method, key, body) {
	return fetchJson(apiUrl(key), method, body);
}

// Seconds to wait from a 429 answer (Retry-After, else X-RateLimit-Reset), or null.
export function retryAfterSeconds(headers) {
	const ra = headers.get('Retry-After');
	if (ra && /^\d+$/.test(ra.trim()))
		return Math.max(1, parseInt(ra, 10));
	const reset = headers.get('X-RateLimit-Reset');
	if (reset && /^\d+$/.test(reset.trim()))
		return Math.max(1, parseInt(reset, 10) - Math.floor(Date.now() / 1000));
	return null;
}

// {title, detail} in the reader's language for an API error answer: each
// error code has its own message in the catalogues (the API's own error and
// hint stay English, docs/API.md); a code the page does not know shows the
// server's hint as it is.
export function describeError(res) {
	const d = res.data || {};
	const wait = res.headers ? retryAfterSeconds(res.headers) : null;
	const ref = d.requestId ? msg('error.reference', { id: d.requestId }) : '';
	switch (d.code) {
	case 'NETWORK_ERROR':
		return { title: msg('error.network.title'), detail: msg('error.network.detail') };
	case 'INVALID_PASSPHRASE':
		return { title: msg('error.passphrase.title'), detail: msg('error.passphrase.detail') };
	case 'TOO_MANY_ATTEMPTS':
		return {
			title: msg('error.attempts.title'),
			detail: wait ? msg('error.attempts.detailWait', { wait: seconds(wait) }) : msg('error.attempts.detail'),
		};
	case 'RATE_LIMIT_EXCEEDED':
		return {
			title: msg('error.rate.title'),
			detail: wait ? msg('error.rate.detailWait', { wait: seconds(wait) }) : msg('error.rate.detail'),
		};
	case 'RATE_LIMIT_UNAVAILABLE':
	case 'STORE_BUSY':
	case 'STORE_UNAVAILABLE':
		return { title: msg('error.busy.title'), detail: msg('error.busy.detail', { reference: ref }) };
	case 'CONFIG_INVALID':
		return { title: msg('error.config.title'), detail: msg('error.config.detail', { reference: ref }) };
	case 'INVALID_CONTENT':
		return { title: msg('error.empty.title'), detail: msg('error.empty.detail') };
	case 'INVALID_CONTENT_SIZE':
	case 'PAYLOAD_TOO_LARGE':
		return { title: msg('error.tooLarge.title'), detail: msg('error.tooLarge.detail', { size: bytes(MAX_PLAINTEXT) }) };
	case 'INVALID_PASSPHRASE_FORMAT':
		return { title: msg('error.passphraseLength.title', { min: PASS_MIN, max: PASS_MAX }), detail: '' };
	case 'INVALID_FILES':
		return { title: msg('error.files.title'), detail: msg('error.files.detail', { count: MAX_FILES }) };
	case 'DELETION_NOT_ALLOWED':
		return { title: msg('error.noBurn.title'), detail: msg('error.noBurn.detail') };
	case 'SECRET_EXPIRED':
		return { title: msg('error.expired.title'), detail: msg('error.gone.detail') };
	case 'SECRET_BURNED':
		return { title: msg('error.burned.title'), detail: msg('error.gone.detail') };
	case 'MAX_VIEWS_REACHED':
		return { title: msg('error.viewed.title'), detail: msg('error.gone.detail') };
	case 'NOT_FOUND':
		return { title: msg('error.notFound.title'), detail: msg('error.notFound.detail') };
	case 'INTERNAL_ERROR':
		return { title: msg('error.internal.title'), detail: msg('error.internal.detail', { reference: ref }) };
	default:
		return {
			title: msg('error.other.title', { status: res.status }),
			detail: d.hint ? serverWords(d.hint, d.requestId) : msg('error.other.detail', { reference: ref }),
		};
	}
}

// The API's own (English) hint, with the request's reference.
function serverWords(hint, id) {
	return id ? `${hint} (${id})` : hint;
}

/* Formatting (in the page's language: i18n.js) */

export { formatBytes, formatSeconds, formatDate, formatRelative };

/* DOM */

export function $(id) {
	return document.getElementById(id);
}

// An element with text content and attributes (no HTML is ever parsed).
export function el(tag, attrs, ...children) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === false || v === null || v === undefined)
			continue;
		if (k === 'class')
			e.className = v;
		else if (k === 'text')
			localize(e, v);
		else if (v instanceof Msg)
			localizeAttr(e, k, v);
		else
			e.setAttribute(k, v === true ? '' : v);
	}
	for (const c of children)
		if (c instanceof Msg)
			e.append(localize(document.createElement('span'), c));
		else if (c !== null && c !== undefined)
			e.append(c);
	return e;
}

// A download name that cannot point elsewhere or pass for another: no path,
// and control (C0, DEL, C1) and bidirectional-control characters become "_",
// as in the CLI's safeFileName (docs/CLI.md), so "invoice\u202Efdp.exe"
// cannot read as "invoiceexe.pdf".
export function safeName(name) {
	const n = String(name || '').normalize('NFC')
		.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\]/g, '_').trim();
	return n === '' || n === '.' || n === '..' ? 'file' : n;
}

// Show a section, hide its siblings marked data-view.
export function showView(id) {
	for (const v of document.querySelectorAll('[data-view]'))
		v.hidden = v.id !== id;
}

// Say something to screen readers through the polite live region (a Msg, or
// several joined by spaces). Each Msg goes in as its own element linked to its
// key, so a change of language re-renders the region too.
export function announce(...parts) {
	const s = $('status');
	if (!s)
		return;
	s.replaceChildren();
	clearTimeout(s.announceTimer);
	// A separate task so that repeating the same words is announced again.
	s.announceTimer = setTimeout(() => {
		const nodes = [];
		for (const p of parts) {
			if (p === '' || p === null || p === undefined)
				continue;
			if (nodes.length)
				nodes.push(' ');
			nodes.push(p instanceof Msg ? localize(document.createElement('span'), p) : String(p));
		}
		s.replaceChildren(...nodes);
	}, 50);
}

// Fill a message box (role=alert) with a title and detail, or empty it.
export function setMessage(box, kind, title, detail) {
	box.replaceChildren();
	box.className = 'message ' + (kind || '');
	if (!title) {
		box.hidden = true;
		return;
	}
	box.append(el('p', {}, el('strong', { text: title })));
	// A plain string is the server's own English hint.
	if (detail)
		box.append(el('p', { class: 'detail', text: detail, lang: detail instanceof Msg ? null : 'en', dir: detail instanceof Msg ? null : 'auto' }));
	box.hidden = false;
}

// Draws text as a QR code (error correction M, a 4-module quiet zone) on
// canvas, about px pixels wide, black on white in either colour scheme, with
// the vendored qrcode-generator (assets/vendor/qrcode.js). false when it is
// not loaded or the text does not fit.
export function drawQR(canvas, text, px) {
	if (typeof window.qrcode !== 'function')
		return false;
	try {
		const qr = window.qrcode(0, 'M');
		qr.addData(text, 'Byte');
		qr.make();
		const n = qr.getModuleCount();
		const quiet = 4;
		const scale = Math.max(2, Math.floor(px / (n + 2 * quiet)));
		const size = (n + 2 * quiet) * scale;
		canvas.width = size;
		canvas.height = size;
		const ctx = canvas.getContext('2d');
		ctx.fillStyle = '#ffffff';
		ctx.fillRect(0, 0, size, size);
		ctx.fillStyle = '#000000';
		for (let r = 0; r < n; r++)
			for (let c = 0; c < n; c++)
				if (qr.isDark(r, c))
					ctx.fillRect((c + quiet) * scale, (r + quiet) * scale, scale, scale);
		return true;
	} catch {
		return false;
	}
}

// Select the text of a field or an element, for a manual copy.
function selectAll(node) {
	if (!node)
		return;
	node.focus();
	if (typeof node.select === 'function') {
		node.select();
		return;
	}
	const range = document.createRange();
	range.selectNodeContents(node);
	const sel = window.getSelection();
	sel.removeAllRanges();
	sel.addRange(range);
}

// Copy text to the clipboard; the button says so for a moment. When the
// clipboard cannot be written, the text in `shown` is selected instead.
export async function copyText(text, button, shown) {
	let done = false;
	try {
		await navigator.clipboard.writeText(text);
		done = true;
	} catch {
		selectAll(shown);
		try {
			done = !!shown && document.execCommand('copy');
		} catch {
			done = false;
		}
	}
	const label = button.dataset.label || button.getAttribute('data-i18n');
	button.dataset.label = label;
	localize(button, msg(done ? 'common.copied' : 'common.pressCtrlC'));
	announce(msg(done ? 'common.copiedAnnounce' : 'common.copyFailedAnnounce'));
	clearTimeout(button.copyTimer);
	button.copyTimer = setTimeout(() => { localize(button, msg(label)); }, 2000);
	return done;
}
