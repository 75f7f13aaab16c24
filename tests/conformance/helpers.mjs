// helpers.mjs: black-box helpers for the conformance suite. Everything here talks
// to a running server over HTTP with fetch (or a raw request where fetch cannot
// say what a judge might send); the only look behind the interface is the
// sqlite3 CLI, used to age a secret instead of waiting for real time.
//
// The server: startServer() from the shared harness (lighttpd by default), or,
// when BURNLINK_CONFORMANCE_BASE is set (e.g. http://127.0.0.1:18080 for a
// `PORT=18080 make run`), that server with BURNLINK_CONFORMANCE_DB as its database.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { startServer, rawRequest, checkResponsesOf } from '../lib/server.mjs';
import { nodeSync, decodeKey } from '../../www/assets/wire.js';

const wire = nodeSync(crypto);

export { rawRequest };

// Which web server answers: BURNLINK_CONFORMANCE_SERVER for a server not
// started here (the Debian package's Apache, tests/deb), else BURNLINK_SERVER's.
// A few claims are about lighttpd's own answers.
export function serverKind() {
	const kind = process.env.BURNLINK_CONFORMANCE_BASE ? process.env.BURNLINK_CONFORMANCE_SERVER
		: process.env.BURNLINK_SERVER;
	return (kind || 'lighttpd').replace(/-fastcgi$/, '');
}

export async function server(opts = {}) {
	if (process.env.BURNLINK_CONFORMANCE_BASE && !opts.env) {
		const db = process.env.BURNLINK_CONFORMANCE_DB || '';
		let user = '';
		// as root, touch the database as its owner (so no -wal/-shm file becomes root's)
		if (db && process.getuid?.() === 0 && fs.existsSync(db)) {
			const uid = fs.statSync(db).uid;
			if (uid !== 0) user = execFileSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).trim();
		}
		// its answers are checked against docs/openapi.yaml like a started server's
		checkResponsesOf(process.env.BURNLINK_CONFORMANCE_BASE);
		return {
			base: process.env.BURNLINK_CONFORMANCE_BASE.replace(/\/$/, ''),
			db,
			user,
			stop: async () => {},
		};
	}
	return startServer({ server: process.env.BURNLINK_SERVER || 'lighttpd', ...opts });
}

// One request. opts: { json (a value, sent with Content-Type: application/json),
// body (raw), headers }. Resolves to { status, headers, text, json, t0, t1 }:
// t0 and t1 (ms) the clock before the request and after its answer, the
// bounds of any time the server put in the answer.
export async function api(srv, method, path, opts = {}) {
	const t0 = Date.now();
	const headers = { ...(opts.headers || {}) };
	let body = opts.body;
	if ('json' in opts) {
		body = JSON.stringify(opts.json);
		if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
			headers['Content-Type'] = 'application/json';
		}
	}
	const res = await fetch(srv.base + path, { method, headers, body });
	const text = await res.text();
	const t1 = Date.now();
	let json;
	try { json = JSON.parse(text); } catch { json = undefined; }
	return { status: res.status, headers: res.headers, text, json, t0, t1 };
}

export const create = (srv, body, headers) => api(srv, 'POST', '/api/secrets', { json: body, headers });

// A successful create: asserts 200 and returns the response body.
export async function created(srv, body, headers) {
	const r = await create(srv, body, headers);
	assert.equal(r.status, 200, `create ${JSON.stringify(body).slice(0, 200)} → ${r.status} ${r.text.slice(0, 300)}`);
	return r.json;
}

export const retrieve = (srv, key, body) => api(srv, 'POST', '/api/secrets/' + key,
	body === undefined ? {} : { json: body });
export const meta = (srv, key, headers) => api(srv, 'GET', '/api/secrets/' + key, { headers });
export const burn = (srv, key, body) => api(srv, 'DELETE', '/api/secrets/' + key,
	body === undefined ? {} : { json: body });

// Asserts an error response: status, code, body shape, request id header.
export function assertError(r, status, code, what = '') {
	const ctx = `${what} → ${r.status} ${r.text.slice(0, 300)}`;
	assert.equal(r.status, status, ctx);
	assert.ok(r.json && typeof r.json === 'object', `error body is JSON: ${ctx}`);
	if (code instanceof RegExp) assert.match(r.json.code, code, ctx);
	else assert.equal(r.json.code, code, ctx);
	assert.deepEqual(Object.keys(r.json).sort(), ['code', 'error', 'hint', 'requestId'], `error fields: ${ctx}`);
	assert.equal(typeof r.json.error, 'string');
	assert.ok(r.json.error.length > 0, 'error message non-empty');
	assert.equal(typeof r.json.hint, 'string');
	assert.ok(r.json.hint.length > 0, 'hint non-empty');
	assert.match(r.json.requestId, /^req_[A-Za-z0-9_-]{20}$/, ctx);
	assert.equal(r.headers.get('x-request-id'), r.json.requestId, `X-Request-Id: ${ctx}`);
	assert.match(r.headers.get('content-type') || '', /^application\/json/i, ctx);
}

// X-RateLimit-Reset is the end of a window that held the moment of the answer:
// after the request's start, at most a day after its answer (not after a clock
// read when the check runs: a minute's window may have ended since).
export function assertRateHeaders(r, what = '') {
	const t0 = Math.floor((r.t0 ?? Date.now()) / 1000);
	const t1 = Math.floor((r.t1 ?? Date.now()) / 1000);
	for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
		const v = r.headers.get(h);
		assert.ok(v !== null, `${h} missing on ${what} (${r.status} ${r.text.slice(0, 120)})`);
		assert.match(v, /^\d+$/, `${h} is an integer on ${what}: ${v}`);
	}
	const reset = Number(r.headers.get('x-ratelimit-reset'));
	assert.ok(reset > t0 && reset <= t1 + 86400, `X-RateLimit-Reset is a Unix time within a day of the answer: ${reset} (request ${t0}..${t1}) on ${what}`);
	assert.ok(Number(r.headers.get('x-ratelimit-remaining')) <= Number(r.headers.get('x-ratelimit-limit')));
}

// Standard base64 of bytes (with padding).
export const b64 = (buf) => Buffer.from(buf).toString('base64');
export const b64url = (buf) => Buffer.from(buf).toString('base64url');

// Client-side encryption as the page and the CLI do it (www/assets/wire.js):
// AES-256-GCM, 12-byte IV, tag appended, no AAD.
export function encrypt(key, plaintext) {
	return wire.seal(key, plaintext);
}

// The decryption key from a link fragment as docs/API.md describes a decoder:
// '-' → '+', '_' → '/', padding restored.
export function fragmentKey(url) {
	const frag = new URL(url).hash;
	const m = /^#key=([A-Za-z0-9_-]+)$/.exec(frag);
	assert.ok(m, `fragment #key=<...> in ${url}`);
	const key = decodeKey(m[1]);
	assert.ok(key, `the key is 256 bits: ${m[1]}`);
	return { text: m[1], key: Buffer.from(key) };
}

export function decrypt(key, item) {
	assert.ok(item && typeof item.ciphertext === 'string' && typeof item.iv === 'string', `encrypted item: ${JSON.stringify(item)}`);
	// Throws unless the iv is 12 bytes and both are canonical base64.
	return wire.open(key, item);
}

export const sha256hex = (s) => crypto.createHash('sha256').update(s).digest('hex');

// Runs SQL on the server's database with the sqlite3 CLI, as the server's user
// (so that no -wal/-shm file ends up owned by root).
export function sql(srv, statement) {
	assert.ok(srv.db, 'the database path is known (set BURNLINK_CONFORMANCE_DB with an external server)');
	const argv = ['-cmd', '.timeout 5000', srv.db, statement];
	if (srv.user) return execFileSync('setpriv', ['--reuid=' + srv.user, '--regid=' + srv.user, '--init-groups', 'sqlite3', ...argv], { encoding: 'utf8' });
	return execFileSync('sqlite3', argv, { encoding: 'utf8' });
}

// Moves a secret's expiry into the past (by its secretKey).
export function expire(srv, secretKey, whenMs = Date.now() - 1000) {
	sql(srv, `UPDATE secrets SET expires_at=${whenMs} WHERE secret_hash=x'${sha256hex(secretKey)}'`);
	const n = sql(srv, `SELECT count(*) FROM secrets WHERE secret_hash=x'${sha256hex(secretKey)}' AND expires_at=${whenMs}`).trim();
	assert.equal(n, '1', 'the secret row was aged');
}

export const KEY_RE = /^[A-Za-z0-9_-]{22}$/;
export const ISO_MS_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const randomKey = () => crypto.randomBytes(16).toString('base64url');
