// request.js: the secret request pages (docs/PAGE.md, "Secret requests"):
// /ask makes a request (a P-256 key pair made here; the server gets only the
// public key and the sealed note), /request/<key>#key=<noteKey> shows the note
// and sends one sealed answer, /inbox/<key>#key=<inboxSecret> shows the state
// and reveals the answer once. The wire format is www/assets/wire.js.

import * as wire from './wire.js';
import {
	$, el, showView, announce, setMessage, copyText, describeError, msg, localize,
	MAX_PLAINTEXT, MAX_FILES, fetchJson, safeName,
} from './common.js';
import { Msg, value, bytes, date, rel, setTitle } from './i18n.js';
import { call as accountCall } from './account.js';

// Every word of these pages is in the catalogues (www/assets/i18n/, the ask.
// and request. keys; docs/PAGE.md, "Languages"); the limits are docs/API.md's
// (limits.js).

// The final views of a request that can no longer be used, by API error code.
const ENDED = {
	REQUEST_ANSWERED: ['request.answeredTitle', 'request.answeredText'],
	REQUEST_BURNED: ['request.burnedTitle', 'request.burnedText'],
	REQUEST_EXPIRED: ['request.expiredTitle', 'request.expiredText'],
	NOT_FOUND: ['request.goneTitle', 'request.goneText'],
};

// The inbox's states: the label and what it means.
const STATES = {
	waiting: ['request.state.waiting', 'request.stateText.waiting'],
	answered: ['request.state.answered', 'request.stateText.answered'],
	read: ['request.state.read', 'request.stateText.read'],
	expired: ['request.state.expired', 'request.stateText.expired'],
	burned: ['request.state.burned', 'request.stateText.burned'],
};

const KEY_RE = /^[A-Za-z0-9_-]{22}$/;

// The site root ("/" or "/prefix/") and the page's kind and key.
function where() {
	const m = /^(.*\/)(request|inbox)\/([^/]*)$/.exec(location.pathname);
	if (!m)
		return { root: location.pathname.replace(/[^/]*$/, ''), kind: 'ask', key: null };
	let key = null;
	try {
		key = decodeURIComponent(m[3]);
	} catch {
		key = null;
	}
	return { root: m[1], kind: m[2], key: KEY_RE.test(key || '') ? key : null };
}

// The #key= value of the address, or null.
function fragment() {
	for (const part of location.hash.replace(/^#/, '').split('&'))
		if (part.startsWith('key='))
			return part.slice(4);
	return null;
}

const here = where();

// One call of /api/requests[/<key>] (fetchJson()).
function call(method, key, body) {
	return fetchJson(here.root + 'api/requests' + (key ? '/' + key : ''), method, body);
}

// The final view for a request that refuses (or a done action): title and
// text are messages (a plain string is the server's own English hint).
function done(title, text) {
	localize($('done-title'), title);
	const p = localize($('done-text'), text);
	if (text instanceof Msg || !text) {
		p.removeAttribute('lang');
		p.removeAttribute('dir');
	} else {
		p.lang = 'en';
		p.dir = 'auto';
	}
	setTitle(msg('common.titleOf', { title }));
	showView('done-view');
	$('done-title').focus();
	announce(title);
}

// done() with two catalogue keys.
function doneWith([title, text]) {
	done(msg(title), msg(text));
}

// done() for an API error of a request that is no longer usable; false for any other error.
function ended(res) {
	const keys = Object.hasOwn(ENDED, res.data.code) ? ENDED[res.data.code] : null;
	if (!keys)
		return false;
	doneWith(keys);
	return true;
}

function fail(box, res) {
	const d = describeError(res);
	setMessage(box, 'error', d.title, d.detail);
	box.focus();
}

/* /ask */

async function ask(ev) {
	ev.preventDefault();
	const box = $('ask-error');
	setMessage(box);
	const note = $('note').value;
	if (new TextEncoder().encode(note).length > wire.LIMITS.note.max) {
		setMessage(box, 'error', msg('ask.noteTooLong'), msg('ask.noteTooLongDetail', { size: bytes(wire.LIMITS.note.max) }));
		box.focus();
		return;
	}
	const button = $('ask-button');
	button.disabled = true;
	announce(msg('ask.asking'));
	try {
		const keys = await wire.newRequestKeys();
		const body = { publicKey: keys.publicKey, ttl: Number($('ttl').value),
			allowFiles: $('allow-files').checked,
			note: await wire.sealNote(keys.noteKey, keys.publicKey, note) };
		// signed in, the request counts as the account's: with the session's CSRF token
		const res = await accountCall('POST', 'requests', body);
		if (!res.ok)
			return fail(box, res);
		const requestLink = `${res.data.requestUrl}#key=${keys.noteKey}`;
		const inboxLink = `${res.data.inboxUrl}#key=${keys.inboxSecret}`;
		$('request-link').value = requestLink;
		$('inbox-link').value = inboxLink;
		$('open-inbox').href = inboxLink;
		localize($('asked-expiry'), value(date(res.data.expiresAt)));
		showView('asked-view');
		$('asked-title').focus();
		announce(msg('ask.readyTitle'));
	} finally {
		button.disabled = false;
	}
}

function initAsk() {
	localize($('note-hint'), msg('ask.noteHint', { size: bytes(wire.LIMITS.note.max) }));
	$('ask-form').addEventListener('submit', ask);
	$('copy-request').addEventListener('click', (e) => copyText($('request-link').value, e.target, $('request-link')));
	$('copy-inbox').addEventListener('click', (e) => copyText($('inbox-link').value, e.target, $('inbox-link')));
}

/* /request/<key>: the sender */

async function initSender() {
	const noteKey = wire.decodeKey(fragment() || '');
	if (!here.key || !noteKey)
		return doneWith(['request.linkBroken', 'request.linkBrokenDetail']);
	const res = await call('GET', here.key);
	if (!res.ok) {
		if (!ended(res))
			done(describeError(res).title, describeError(res).detail);
		return;
	}
	const q = res.data;
	// The note vouches for the public key: it opens only with the requester's own.
	let note;
	try {
		note = await wire.openNote(noteKey, q.publicKey, q.note);
	} catch {
		return doneWith(['request.mismatch', 'request.mismatchDetail']);
	}
	if (note.length > 0) {
		$('note-text').textContent = note;
		$('note-box').hidden = false;
	}
	localize($('answer-files-hint'), msg('create.filesHint', { count: MAX_FILES, size: bytes(MAX_PLAINTEXT) }));
	$('answer-files-field').hidden = !q.allowFiles;
	showView('answer-view');
	$('answer-form').addEventListener('submit', (ev) => send(ev, q, noteKey));
	$('sender-burn').addEventListener('click', () => burn(msg('request.declineConfirm')));
}

async function send(ev, q, noteKey) {
	ev.preventDefault();
	const box = $('answer-error');
	setMessage(box);
	const text = $('answer-text').value;
	const picked = q.allowFiles ? [...$('answer-files').files] : [];
	const total = new TextEncoder().encode(text).length + picked.reduce((n, f) => n + f.size, 0);
	let problem = null;
	if (text.length === 0 && picked.length === 0)
		problem = [msg('request.empty'), msg('request.emptyDetail')];
	else if (picked.length > MAX_FILES)
		problem = [msg('request.tooManyFiles', { count: MAX_FILES }), ''];
	else if (total > MAX_PLAINTEXT)
		problem = [msg('request.tooLarge'), msg('request.tooLargeDetail', { size: bytes(MAX_PLAINTEXT) })];
	if (problem) {
		setMessage(box, 'error', problem[0], problem[1]);
		box.focus();
		return;
	}
	const button = $('answer-button');
	button.disabled = true;
	announce(msg('request.sending'));
	try {
		const body = await wire.sealAnswer(q.publicKey, noteKey, {
			text,
			files: picked.map((f) => ({ name: f.name, type: f.type,
				data: async () => new Uint8Array(await f.arrayBuffer()) })),
		});
		const res = await call('POST', here.key, body);
		if (res.ok)
			return doneWith(['request.sentTitle', 'request.sentText']);
		if (!ended(res))
			fail(box, res);
	} finally {
		button.disabled = false;
	}
}

/* /inbox/<key>: the requester */

function when(iso) {
	return iso
		? [el('span', { text: value(rel(iso)) }), ' ', el('span', { class: 'sub', text: value(date(iso)) })]
		: [el('span', { text: msg('request.notYet') })];
}

// The label of a state (a state this page does not know: its name as it is).
function stateLabel(state) {
	return Object.hasOwn(STATES, state) ? msg(STATES[state][0]) : state;
}

function renderInbox(s) {
	const label = stateLabel(s.state);
	localize($('inbox-badge'), label);
	$('inbox-badge').className = 'badge ' + s.state;
	localize($('inbox-text'), Object.hasOwn(STATES, s.state) ? msg(STATES[s.state][1]) : '');
	localize($('i-state'), label);
	$('i-created').replaceChildren(...when(s.createdAt));
	$('i-expires').replaceChildren(...when(s.expiresAt));
	$('i-answered').replaceChildren(...when(s.answeredAt));
	$('i-read').replaceChildren(...when(s.readAt));
	$('reveal').hidden = s.state !== 'answered';
	// the hint is about the Reveal button: not shown without it (read, waiting ...)
	$('reveal-hint').hidden = $('reveal').hidden;
	$('inbox-burn').hidden = s.state !== 'waiting' && s.state !== 'answered';
	document.body.dataset.state = s.state;
	setTitle(msg('request.inboxPageTitle', { state: label }));
	showView('inbox-view');
}

async function loadInbox() {
	const res = await call('GET', here.key);
	if (!res.ok) {
		if (!ended(res))
			done(describeError(res).title, describeError(res).detail);
		return;
	}
	renderInbox(res.data);
	announce(msg('request.checked', { state: stateLabel(res.data.state) }));
}

async function reveal(secret) {
	const box = $('inbox-message');
	setMessage(box);
	$('reveal').disabled = true;
	announce(msg('request.revealing'));
	const res = await call('POST', here.key, {});
	$('reveal').disabled = false;
	if (!res.ok) {
		fail(box, res);
		return;
	}
	let out;
	try {
		out = await wire.openRequestAnswer(secret, res.data);
	} catch {
		setMessage(box, 'error', msg('request.wrongKey'), msg('request.wrongKeyDetail'));
		box.focus();
		return;
	}
	// The key has done its work, as on the secret page: take it out of the
	// address bar and history entry.
	history.replaceState(null, '', location.pathname + location.search);
	if (out.text !== null) {
		$('revealed-text').value = new TextDecoder().decode(out.text);
		$('revealed-text-field').hidden = false;
	}
	const list = $('revealed-files');
	list.replaceChildren(...out.files.map((f) => {
		// As on the reveal page: saved, never rendered here, under a clean name.
		const name = safeName(f.name);
		const url = URL.createObjectURL(new Blob([f.data], { type: 'application/octet-stream' }));
		return el('li', {}, el('a', { href: url, download: name, text: msg('request.download', { name, size: bytes(f.data.length) }) }));
	}));
	list.hidden = out.files.length === 0;
	showView('revealed-view');
	$('revealed-title').focus();
	announce(msg('request.revealed'));
}

async function burn(question) {
	if (!window.confirm(String(question)))
		return;
	const res = await call('DELETE', here.key);
	if (res.ok)
		doneWith(ENDED.REQUEST_BURNED);
	else if (!ended(res))
		done(describeError(res).title, describeError(res).detail);
}

async function initInbox() {
	const secret = fragment();
	// A key pair that does not fit together (a character changed in transit)
	// is a damaged link: Reveal would read the answer, deleting it, in vain.
	const me = !here.key || !secret ? null : await wire.importInboxSecret(secret);
	if (me === null)
		return doneWith(['request.linkBroken', 'request.linkBrokenDetail']);
	me.noteKey.fill(0);
	$('reveal').addEventListener('click', () => reveal(secret));
	$('refresh').addEventListener('click', loadInbox);
	$('inbox-burn').addEventListener('click', () => burn(msg('request.burnConfirm')));
	$('copy-answer').addEventListener('click', (e) => copyText($('revealed-text').value, e.target, $('revealed-text')));
	return loadInbox();
}

if (here.kind === 'ask')
	initAsk();
else if (here.kind === 'request')
	initSender();
else
	initInbox();
