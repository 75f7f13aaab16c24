// request.js: the secret request pages (docs/PAGE.md, "Secret requests"):
// /ask makes a request (a P-256 key pair made here; the server gets only the
// public key and the sealed note), /request/<key>#key=<noteKey> shows the note
// and sends one sealed answer, /inbox/<key>#key=<inboxSecret> shows the state
// and reveals the answer once. The wire format is www/assets/wire.js.

import * as wire from './wire.js';
import {
	$, el, showView, announce, setMessage, copyText, describeError, formatDate,
	formatRelative, MAX_PLAINTEXT, MAX_FILES,
} from './common.js';
import { call as accountCall } from './account.js';

// Every string of these pages, in one place (for translation).
const T = {
	noteTooLong: 'The note is too long.',
	noteTooLongDetail: `A note may hold at most ${wire.LIMITS.note.max} bytes.`,
	asking: 'Making the key pair…',
	asked: 'Your request is ready.',
	linkBroken: 'This link is incomplete.',
	linkBrokenDetail: 'The part after # is missing or damaged: copy the whole link from the message you received.',
	mismatch: 'This request cannot be answered safely.',
	mismatchDetail: 'It does not match its link: the link is damaged, or the server changed the requester\'s key. Nothing was sent.',
	empty: 'There is nothing to send yet.',
	emptyDetail: 'Type the secret or add a file.',
	tooLarge: 'The secret is too large.',
	tooLargeDetail: 'Text and files together may hold at most 2 MiB.',
	tooManyFiles: `At most ${MAX_FILES} files can be sent.`,
	sending: 'Encrypting and sending…',
	sentTitle: 'Your secret was sent',
	sentText: 'It was encrypted in this browser. The requester can read it once, with their inbox link.',
	declineConfirm: 'Burn this request? Nobody can answer it afterwards.',
	burnConfirm: 'Burn this request? Its answer, if any, is deleted and nobody can read it.',
	burnedTitle: 'The request was burned',
	burnedText: 'Nothing can be sent or read with it any more.',
	answeredTitle: 'This request has been answered already',
	answeredText: 'A request is answered once. Ask the requester for a new request link if needed.',
	expiredTitle: 'This request has expired',
	expiredText: 'Ask the requester for a new request link.',
	goneTitle: 'This request does not exist (any more)',
	goneText: 'Requests are removed after they expire.',
	states: {
		waiting: ['Waiting', 'No answer yet. This page does not use anything: come back later or refresh.'],
		answered: ['Answered', 'The answer has arrived. Reveal it once: it is deleted from the server as it is read.'],
		read: ['Read', 'The answer was read and deleted from the server.'],
		expired: ['Expired', 'The request expired; any answer is deleted.'],
		burned: ['Burned', 'The request was burned; any answer is deleted.'],
	},
	notYet: 'Not yet',
	revealing: 'Decrypting…',
	revealed: 'The answer is shown below.',
	wrongKey: 'The answer cannot be decrypted with this inbox link.',
	wrongKeyDetail: 'Was the whole link copied? The answer is deleted from the server.',
	download: (name, size) => `Download ${name} (${size} bytes)`,
	checked: 'Checked.',
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

// One call of /api/requests[/<key>]: {ok, status, data, headers}.
async function call(method, key, body) {
	const init = { method, headers: { Accept: 'application/json' }, cache: 'no-store',
		credentials: 'same-origin', referrerPolicy: 'no-referrer' };
	if (body !== undefined) {
		init.headers['Content-Type'] = 'application/json';
		init.body = JSON.stringify(body);
	}
	let res;
	try {
		res = await fetch(here.root + 'api/requests' + (key ? '/' + key : ''), init);
	} catch {
		return { ok: false, status: 0, data: { code: 'NETWORK_ERROR' }, headers: new Headers() };
	}
	let data = null;
	try {
		data = await res.json();
	} catch {
		data = null;
	}
	return { ok: res.ok, status: res.status, data: data || {}, headers: res.headers };
}

// The final view for a request that refuses (or a done action).
function done(title, text) {
	$('done-title').textContent = title;
	$('done-text').textContent = text;
	document.title = `${title} · burnlink`;
	showView('done-view');
	$('done-title').focus();
	announce(title + '.');
}

// done() for an API error of a request that is no longer usable; false for any other error.
function ended(res) {
	switch (res.data.code) {
	case 'REQUEST_ANSWERED': done(T.answeredTitle, T.answeredText); return true;
	case 'REQUEST_BURNED': done(T.burnedTitle, T.burnedText); return true;
	case 'REQUEST_EXPIRED': done(T.expiredTitle, T.expiredText); return true;
	case 'NOT_FOUND': done(T.goneTitle, T.goneText); return true;
	default: return false;
	}
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
		setMessage(box, 'error', T.noteTooLong, T.noteTooLongDetail);
		box.focus();
		return;
	}
	const button = $('ask-button');
	button.disabled = true;
	announce(T.asking);
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
		$('asked-expiry').textContent = formatDate(res.data.expiresAt);
		showView('asked-view');
		$('asked-title').focus();
		announce(T.asked);
	} finally {
		button.disabled = false;
	}
}

function initAsk() {
	$('ask-form').addEventListener('submit', ask);
	$('copy-request').addEventListener('click', (e) => copyText($('request-link').value, e.target, $('request-link')));
	$('copy-inbox').addEventListener('click', (e) => copyText($('inbox-link').value, e.target, $('inbox-link')));
}

/* /request/<key>: the sender */

async function initSender() {
	const noteKey = wire.decodeKey(fragment() || '');
	if (!here.key || !noteKey)
		return done(T.linkBroken, T.linkBrokenDetail);
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
		return done(T.mismatch, T.mismatchDetail);
	}
	if (note.length > 0) {
		$('note-text').textContent = note;
		$('note-box').hidden = false;
	}
	$('answer-files-field').hidden = !q.allowFiles;
	showView('answer-view');
	$('answer-form').addEventListener('submit', (ev) => send(ev, q, noteKey));
	$('sender-burn').addEventListener('click', () => burn(T.declineConfirm));
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
		problem = [T.empty, T.emptyDetail];
	else if (picked.length > MAX_FILES)
		problem = [T.tooManyFiles, ''];
	else if (total > MAX_PLAINTEXT)
		problem = [T.tooLarge, T.tooLargeDetail];
	if (problem) {
		setMessage(box, 'error', problem[0], problem[1]);
		box.focus();
		return;
	}
	const button = $('answer-button');
	button.disabled = true;
	announce(T.sending);
	try {
		const body = await wire.sealAnswer(q.publicKey, noteKey, {
			text,
			files: picked.map((f) => ({ name: f.name, type: f.type,
				data: async () => new Uint8Array(await f.arrayBuffer()) })),
		});
		const res = await call('POST', here.key, body);
		if (res.ok)
			return done(T.sentTitle, T.sentText);
		if (!ended(res))
			fail(box, res);
	} finally {
		button.disabled = false;
	}
}

/* /inbox/<key>: the requester */

function when(iso) {
	return iso ? [formatRelative(iso), ' ', el('span', { class: 'sub', text: formatDate(iso) })] : [T.notYet];
}

function renderInbox(s) {
	const [label, text] = T.states[s.state] || [s.state, ''];
	$('inbox-badge').textContent = label;
	$('inbox-badge').className = 'badge ' + s.state;
	$('inbox-text').textContent = text;
	$('i-state').textContent = label;
	$('i-created').replaceChildren(...when(s.createdAt));
	$('i-expires').replaceChildren(...when(s.expiresAt));
	$('i-answered').replaceChildren(...when(s.answeredAt));
	$('i-read').replaceChildren(...when(s.readAt));
	$('reveal').hidden = s.state !== 'answered';
	$('inbox-burn').hidden = s.state !== 'waiting' && s.state !== 'answered';
	document.body.dataset.state = s.state;
	document.title = `Inbox: ${label} · burnlink`;
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
	announce(`${T.states[res.data.state]?.[0] || res.data.state}. ${T.checked}`);
}

async function reveal(secret) {
	const box = $('inbox-message');
	setMessage(box);
	$('reveal').disabled = true;
	announce(T.revealing);
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
		setMessage(box, 'error', T.wrongKey, T.wrongKeyDetail);
		box.focus();
		return;
	}
	if (out.text !== null) {
		$('revealed-text').value = new TextDecoder().decode(out.text);
		$('revealed-text-field').hidden = false;
	}
	const list = $('revealed-files');
	list.replaceChildren(...out.files.map((f) => {
		const url = URL.createObjectURL(new Blob([f.data], { type: f.type || 'application/octet-stream' }));
		return el('li', {}, el('a', { href: url, download: f.name, text: T.download(f.name, f.data.length) }));
	}));
	list.hidden = out.files.length === 0;
	showView('revealed-view');
	$('revealed-title').focus();
	announce(T.revealed);
}

async function burn(question) {
	if (!window.confirm(question))
		return;
	const res = await call('DELETE', here.key);
	if (res.ok)
		done(T.burnedTitle, T.burnedText);
	else if (!ended(res))
		done(describeError(res).title, describeError(res).detail);
}

function initInbox() {
	const secret = fragment();
	if (!here.key || !secret || wire.fromB64u(secret, wire.INBOX_BYTES) === null)
		return done(T.linkBroken, T.linkBrokenDetail);
	$('reveal').addEventListener('click', () => reveal(secret));
	$('refresh').addEventListener('click', loadInbox);
	$('inbox-burn').addEventListener('click', () => burn(T.burnConfirm));
	$('copy-answer').addEventListener('click', (e) => copyText($('revealed-text').value, e.target, $('revealed-text')));
	return loadInbox();
}

if (here.kind === 'ask')
	initAsk();
else if (here.kind === 'request')
	initSender();
else
	initInbox();
