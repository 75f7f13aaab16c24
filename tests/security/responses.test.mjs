// responses.test.mjs: what a client can learn from the answers: unknown,
// malformed, truncated and over-long keys answer 404 the same way; wrong
// passphrases answer the same way whatever they are; keys are looked up by
// hash and passphrases compared in constant time; every response of every
// program carries the security headers.

import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, ROOT, encryptItem, newKey, b64urlEncode, filesContaining } from '../lib/cgi.mjs';

const ctx = newContext();

// The parts of an answer that may differ between two requests that must look
// the same: the request id, and the rate-limit counters.
const VARYING = new Set(['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']);

function shape(res) {
	const headers = Object.keys(res.headers).filter((h) => !VARYING.has(h)).sort()
		.map((h) => `${h}: ${res.headers[h]}`);
	const body = res.json ? { ...res.json } : res.body.toString();
	if (body && typeof body === 'object') delete body.requestId;
	return { status: res.status, headers, body, varying: Object.keys(res.headers).filter((h) => VARYING.has(h)).sort() };
}

const SECURITY_HEADERS = {
	'cache-control': /^no-store$/,
	'x-content-type-options': /^nosniff$/,
	'referrer-policy': /^no-referrer$/,
	'content-security-policy': /default-src 'none'.*frame-ancestors 'none'/,
	'x-frame-options': /^DENY$/,
	'content-type': /^application\/json; charset=utf-8$/,
	'x-request-id': /^req_[A-Za-z0-9_-]{20}$/,
};

function assertSecurityHeaders(res, where) {
	for (const [h, re] of Object.entries(SECURITY_HEADERS))
		assert.match(res.headers[h] || '', re, `${where}: ${h}`);
}

let secret;
before(async () => {
	secret = await ctx.createOk({ text: 'enumeration target', maxViews: 5 });
});

describe('enumeration: every key that finds nothing is the same 404', () => {
	function candidates() {
		const real = secret.secretKey;
		return {
			'unknown (well-formed, random)': b64urlEncode(crypto.randomBytes(16)),
			'one character changed': real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A'),
			'truncated (21 characters)': real.slice(0, 21),
			'truncated (1 character)': real.slice(0, 1),
			'over-long (23 characters)': real + 'A',
			'over-long (200 characters)': real.repeat(10).slice(0, 200),
			'malformed (+ and /)': '++++++++++++++++++++++',
			'malformed (percent-encoded)': '%41AAAAAAAAAAAAAAAAAAAAA',
			'malformed (dot segments)': '..%2F..%2Fetc%2Fpasswd',
			'malformed (non-ASCII)': 'ééééééééééé',
			'lower-cased real key': real.toLowerCase() === real ? real.toUpperCase() : real.toLowerCase(),
			'empty': '',
			'a real key with a trailing slash': real + '/',
		};
	}

	for (const [program, method] of [['metadata', 'GET'], ['retrieve', 'POST'], ['delete', 'DELETE']]) {
		test(`${program} (${method}): identical status, headers and body`, async () => {
			const shapes = {};
			for (const [name, key] of Object.entries(candidates())) {
				const res = await ctx.run(program, { method, pathInfo: `/${key}`, noHeaderCheck: true });
				assertSecurityHeaders(res, `${program} ${name}`);
				assert.equal(res.status, 404, `${name}: ${res.body}`);
				assert.equal(res.json.code, 'NOT_FOUND', name);
				shapes[name] = shape(res);
			}
			const ref = shapes['unknown (well-formed, random)'];
			for (const [name, s] of Object.entries(shapes))
				assert.deepEqual(s, ref, `${program}: "${name}" answers differently from an unknown key`);
		});
	}

	test('the secret was not touched by any of it', async () => {
		const m = await ctx.metadata(secret.receiptKey);
		assert.equal(m.json.viewCount, 0);
		assert.equal(m.json.state, 'active');
	});
});

describe('lookups by hash', () => {
	test('the database holds no key, only hashes', async () => {
		const s = await ctx.createOk({ text: 'hash only', passphrase: 'a passphrase here' });
		for (const k of [s.secretKey, s.receiptKey])
			assert.deepEqual(filesContaining(ctx.db, k), [], `key ${k} stored in the clear`);
		assert.deepEqual(filesContaining(ctx.db, 'a passphrase here'), []);
		const hash = crypto.createHash('sha256').update(s.secretKey).digest();
		assert.notDeepEqual(filesContaining(ctx.db, hash), [], 'the SHA-256 of the key is what is stored');
	});

	test('secrets are compared with CRYPTO_memcmp, keys only through their hash (source check)', () => {
		const crypto_c = fs.readFileSync(path.join(ROOT, 'lib', 'crypto.c'), 'utf8');
		const verify = crypto_c.slice(crypto_c.indexOf('bl_pass_verify('));
		assert.match(verify.slice(0, 800), /CRYPTO_memcmp\(/);
		// No plain memcmp/strcmp/strncmp on a passphrase hash, a key or a digest anywhere.
		for (const f of fs.readdirSync(path.join(ROOT, 'lib')).filter((x) => x.endsWith('.c'))) {
			const src = fs.readFileSync(path.join(ROOT, 'lib', f), 'utf8');
			for (const line of src.split('\n'))
				if (/\b(memcmp|strcmp|strncmp|bcmp)\s*\(/.test(line))
					assert.doesNotMatch(line, /pass_hash|stored|install_key|secret_hash|receipt_hash|\bhash\b|digest|dkey|r->key/,
						`${f}: a short-circuit comparison on secret material: ${line.trim()}`);
		}
	});
});

describe('wrong passphrases reveal nothing beyond INVALID_PASSPHRASE', () => {
	let s;
	before(async () => {
		s = await ctx.createOk({ text: 'guarded', passphrase: 'correct horse battery', maxViews: 3 });
	});

	// Each attempt from its own address, so the per-minute attempt limit stays out of it.
	let ipn = 1;
	const attempt = (pass) => ctx.retrieve(s.secretKey, pass === undefined ? undefined : { passphrase: pass },
		{ env: { REMOTE_ADDR: `198.51.100.${ipn++}` } });

	test('status, headers and body are the same for every wrong passphrase', async () => {
		const wrong = {
			'missing': undefined,
			'empty': '',
			'short': 'abc',
			'a prefix of the right one': 'correct horse',
			'right one with one character changed': 'correct horse batterz',
			'right one plus a character': 'correct horse battery!',
			'different case': 'Correct Horse Battery',
			'very long': 'x'.repeat(256),
			'non-ASCII': 'κωδικός πρόσβασης',
		};
		const shapes = {};
		for (const [name, pass] of Object.entries(wrong)) {
			const res = await attempt(pass);
			assert.equal(res.status, 403, `${name}: ${res.body}`);
			assert.equal(res.json.code, 'INVALID_PASSPHRASE', name);
			assertSecurityHeaders(res, name);
			const sh = shape(res);
			// The hint may count the attempts left; nothing else may vary.
			if (typeof sh.body === 'object') sh.body.hint = sh.body.hint.replace(/\d+ attempts? left/, 'N attempts left');
			shapes[name] = sh;
		}
		const ref = shapes['right one with one character changed'];
		for (const [name, sh] of Object.entries(shapes)) {
			if (name === 'missing' || name === 'empty') {
				// No passphrase at all may be told apart (the client knows it sent none) but
				// must otherwise look the same.
				assert.equal(sh.status, ref.status);
				const names = (h) => h.map((x) => x.split(':')[0]);
				assert.deepEqual(names(sh.headers), names(ref.headers), name);
				assert.equal(sh.body.code, ref.body.code, name);
				continue;
			}
			assert.deepEqual(sh, ref, `"${name}" is distinguishable from another wrong passphrase`);
		}
		const m = await ctx.metadata(s.receiptKey);
		assert.equal(m.json.viewCount, 0, 'no wrong attempt used a view');
	});

	test('a wrong passphrase costs the same work as an almost-right one (scrypt first, constant-time compare)', async () => {
		// Timing on a shared machine is noisy: only an order-of-magnitude difference
		// (an early exit before the key derivation) would show here.
		const time = async (pass) => {
			const ms = [];
			for (let i = 0; i < 5; i++) ms.push((await attempt(pass)).ms);
			return ms.sort((a, b) => a - b)[2];
		};
		const far = await time('zzzz');
		const near = await time('correct horse batterz');
		const ratio = far / near;
		assert.ok(ratio > 0.33 && ratio < 3, `median ${far} ms vs ${near} ms`);
	});
});

describe('security headers on every response of every program', () => {
	test('success, client errors and server errors alike, GET and HEAD', async () => {
		const key = newKey();
		const s = await ctx.createOk({ text: encryptItem('x', key), maxViews: 2 });
		const cases = [
			['create 200', 'create', { method: 'POST', body: { text: 'ok' } }],
			['create 400', 'create', { method: 'POST', body: { ttl: 'x' } }],
			['create 405', 'create', { method: 'GET' }],
			['create 413', 'create', { method: 'POST', body: '{}', contentLength: 5 * 1024 * 1024 }],
			['create 415', 'create', { method: 'POST', body: '{}', contentType: 'text/plain' }],
			['metadata 200', 'metadata', { method: 'GET', pathInfo: `/${s.secretKey}` }],
			['metadata HEAD', 'metadata', { method: 'HEAD', pathInfo: `/${s.receiptKey}` }],
			['metadata 405', 'metadata', { method: 'PUT', pathInfo: `/${s.secretKey}` }],
			['retrieve 200', 'retrieve', { method: 'POST', pathInfo: `/${s.secretKey}` }],
			['retrieve 404', 'retrieve', { method: 'POST', pathInfo: '/nope' }],
			['delete 200', 'delete', { method: 'DELETE', pathInfo: `/${s.receiptKey}` }],
			['retrieve 410', 'retrieve', { method: 'POST', pathInfo: `/${s.secretKey}` }],
			['create 503', 'create', { method: 'POST', body: { text: 'x' }, env: { BURNLINK_DB: '/nonexistent/dir/x.db' } }],
		];
		for (const [name, program, opts] of cases) {
			const res = await ctx.run(program, { ...opts, noHeaderCheck: true, stdinOpen: false });
			assertSecurityHeaders(res, name);
			if (opts.method === 'HEAD') assert.equal(res.body.length, 0, 'HEAD has no body');
		}
	});
});
