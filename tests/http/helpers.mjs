// helpers.mjs: shared bits of the HTTP-level suite. The server under test is
// $BURNLINK_SERVER (lighttpd, apache or htaccess; default lighttpd); every test
// file starts its own server on a free loopback port and stops it afterwards.

import assert from 'node:assert/strict';
import { startServer, rawRequest } from '../lib/server.mjs';
import { seal, open } from '../../www/assets/wire.js';

export { rawRequest };
export const KIND = process.env.BURNLINK_SERVER || 'lighttpd';

export function start(opts = {}) {
	return startServer({ server: KIND, ...opts });
}

export const KEY_RE = /^[A-Za-z0-9_-]{22}$/;
export const REQ_ID_RE = /^req_[A-Za-z0-9_-]{20}$/;
// A well-formed key that names nothing.
export const UNKNOWN_KEY = 'AAAAAAAAAAAAAAAAAAAAAA';

// A JSON API call through fetch; resolves to { res, status, body (parsed or null), text }.
export async function api(srv, method, path, { json, body, headers = {} } = {}) {
	const h = { ...headers };
	let b = body;
	if (json !== undefined) {
		b = JSON.stringify(json);
		if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
	}
	const t0 = Date.now();
	const res = await fetch(srv.base + path, { method, headers: h, body: b });
	const text = await res.text();
	const t1 = Date.now();
	let parsed = null;
	if ((res.headers.get('content-type') || '').startsWith('application/json') && text) parsed = JSON.parse(text);
	// t0, t1: the clock before the request and after its answer (the bounds of a time in it)
	return { res, status: res.status, body: parsed, text, t0, t1 };
}

// Asserts a JSON error response with the given status and code.
export function assertError(r, status, code) {
	assert.equal(r.status, status, `expected ${status} ${code}, got ${r.status}: ${r.text.slice(0, 300)}`);
	assert.match(r.res.headers.get('content-type') || '', /^application\/json/);
	assert.ok(r.body, `no JSON body: ${r.text.slice(0, 200)}`);
	if (code instanceof RegExp) assert.match(r.body.code, code);
	else if (code) assert.equal(r.body.code, code);
	assert.equal(typeof r.body.error, 'string');
	assert.equal(typeof r.body.hint, 'string');
	assert.match(r.body.requestId, REQ_ID_RE);
	assert.equal(r.res.headers.get('x-request-id'), r.body.requestId);
}

// Client-side encryption as the page and the CLI do it (AES-256-GCM, tag appended).
// (www/assets/wire.js).
export function encrypt(plaintext, rawKey) {
	return seal(rawKey, plaintext);
}

export async function decrypt(item, rawKey) {
	return new TextDecoder().decode(await open(rawKey, item));
}

export function b64urlDecode(s) {
	return Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

// Creates a secret (server-side mode unless text is an object); returns the create body.
export async function create(srv, fields = {}, headers = {}) {
	const r = await api(srv, 'POST', '/api/secrets', { json: { text: 'hello', ...fields }, headers });
	assert.equal(r.status, 200, r.text);
	return r.body;
}

// Header names that occur more than once in a response.
export function duplicateHeaders(rawHeaders) {
	const seen = new Map();
	for (let i = 0; i < rawHeaders.length; i += 2) {
		const k = rawHeaders[i].toLowerCase();
		seen.set(k, (seen.get(k) || 0) + 1);
	}
	return [...seen].filter(([k, n]) => n > 1 && k !== 'set-cookie').map(([k]) => k);
}
