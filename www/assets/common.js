// common.js: what the create, reveal and receipt pages share: addresses, the
// limits, API calls, error wording and formatting. The encryption and base64
// of the wire format are wire.js's.

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

// One API call. Resolves to {ok, status, data, headers}; a network failure
// gives status 0 and code NETWORK_ERROR. The page address (and so the key in
// its fragment) is never part of the request, and no referrer is sent.
export async function api(method, key, body) {
	const init = {
		method,
		headers: { Accept: 'application/json' },
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
		res = await fetch(apiUrl(key), init);
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

// {title, detail} in plain words for an API error answer.
export function describeError(res) {
	const d = res.data || {};
	const wait = res.headers ? retryAfterSeconds(res.headers) : null;
	const ref = d.requestId ? ` Reference: ${d.requestId}.` : '';
	switch (d.code) {
	case 'NETWORK_ERROR':
		return { title: 'The server could not be reached.', detail: 'Check your connection and try again.' };
	case 'INVALID_PASSPHRASE':
		return { title: 'That passphrase is not right.', detail: 'No view was used. Check it with the sender and try again.' };
	case 'TOO_MANY_ATTEMPTS':
		return {
			title: 'Too many passphrase attempts.',
			detail: `To protect the secret, tries are paused${wait ? ' for ' + formatSeconds(wait) : ' for a minute'}. No view was used.`,
		};
	case 'RATE_LIMIT_EXCEEDED':
		return {
			title: 'Too many requests from your network.',
			detail: wait ? `Try again in ${formatSeconds(wait)}.` : 'Try again later.',
		};
	case 'RATE_LIMIT_UNAVAILABLE':
	case 'STORE_BUSY':
	case 'STORE_UNAVAILABLE':
		return { title: 'The service is busy right now.', detail: 'Nothing was changed. Try again in a minute.' + ref };
	case 'INVALID_CONTENT':
		return { title: 'There is nothing to share yet.', detail: 'Type a secret or add at least one file.' };
	case 'INVALID_CONTENT_SIZE':
	case 'PAYLOAD_TOO_LARGE':
		return { title: 'The secret is too large.', detail: 'Text and files together may hold at most 2 MiB.' };
	case 'INVALID_PASSPHRASE_FORMAT':
		return { title: 'The passphrase must be 4 to 256 characters long.', detail: d.hint || '' };
	case 'INVALID_FILES':
		return { title: 'The files could not be accepted.', detail: d.hint || 'A secret may carry at most 20 files.' };
	case 'DELETION_NOT_ALLOWED':
		return {
			title: 'The sender does not allow recipients to burn this secret.',
			detail: 'It disappears on its own when its views are used up or it expires.',
		};
	case 'SECRET_EXPIRED':
		return { title: 'This secret has expired.', detail: 'Its content is gone.' };
	case 'SECRET_BURNED':
		return { title: 'This secret was burned.', detail: 'Its content is gone.' };
	case 'MAX_VIEWS_REACHED':
		return { title: 'This secret has been viewed as often as allowed.', detail: 'Its content is gone.' };
	case 'NOT_FOUND':
		return { title: 'This secret does not exist (any more).', detail: 'Secrets are removed after they expire.' };
	case 'INTERNAL_ERROR':
		return { title: 'Something went wrong on the server.', detail: 'Try again. If it keeps happening, tell the site\'s operator.' + ref };
	default:
		return {
			title: d.error || `The server answered with an error (${res.status}).`,
			detail: (d.hint || '') + ref,
		};
	}
}

/* Formatting */

export function formatBytes(n) {
	if (n < 1024)
		return `${n} B`;
	if (n < 1024 * 1024)
		return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
	return `${(n / 1048576).toFixed(2).replace(/\.?0+$/, '')} MiB`;
}

export function formatSeconds(s) {
	if (s < 60)
		return `${s} second${s === 1 ? '' : 's'}`;
	const m = Math.ceil(s / 60);
	if (m < 60)
		return `${m} minute${m === 1 ? '' : 's'}`;
	const h = Math.round(s / 3600);
	return `${h} hour${h === 1 ? '' : 's'}`;
}

// "Sat, 23 Nov 2024, 14:05" in the reader's locale and time zone.
export function formatDate(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return 'unknown';
	return new Intl.DateTimeFormat(undefined, {
		weekday: 'short', day: 'numeric', month: 'short', year: 'numeric',
		hour: '2-digit', minute: '2-digit',
	}).format(d);
}

// "in 23 hours", "5 minutes ago".
export function formatRelative(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return '';
	const diff = (d.getTime() - Date.now()) / 1000;
	const abs = Math.abs(diff);
	const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'always' });
	if (abs < 60)
		return diff >= 0 ? 'in less than a minute' : 'just now';
	if (abs < 3600)
		return rtf.format(Math.round(diff / 60), 'minute');
	if (abs < 86400 - 1800)
		return rtf.format(Math.round(diff / 3600), 'hour');
	return rtf.format(Math.round(diff / 86400), 'day');
}

export function plural(n, one, many) {
	return `${n} ${n === 1 ? one : many}`;
}

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
			e.textContent = v;
		else
			e.setAttribute(k, v === true ? '' : v);
	}
	for (const c of children)
		if (c !== null && c !== undefined)
			e.append(c);
	return e;
}

// Show a section, hide its siblings marked data-view.
export function showView(id) {
	for (const v of document.querySelectorAll('[data-view]'))
		v.hidden = v.id !== id;
}

// Say something to screen readers through the polite live region.
export function announce(text) {
	const s = $('status');
	if (!s)
		return;
	s.textContent = '';
	// A separate task so that repeating the same words is announced again.
	setTimeout(() => { s.textContent = text; }, 50);
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
	if (detail)
		box.append(el('p', { class: 'detail', text: detail }));
	box.hidden = false;
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
	const label = button.dataset.label || button.textContent;
	button.dataset.label = label;
	button.textContent = done ? 'Copied' : 'Press Ctrl+C to copy';
	announce(done ? 'Copied to the clipboard.' : 'Could not copy automatically: the text is selected, press Ctrl+C.');
	clearTimeout(button.copyTimer);
	button.copyTimer = setTimeout(() => { button.textContent = label; }, 2000);
	return done;
}
