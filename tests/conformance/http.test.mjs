// Conformance: pages, methods, headers, request ids, rate-limit headers and
// authentication (CLAIMS.md C7-C9, C31, C49, C51, C52).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import {
	server, api, create, created, retrieve, meta, burn, assertError, assertRateHeaders, encrypt,
	randomKey, rawRequest, sql, serverKind,
} from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

let srv;
before(async () => { srv = await server(); });
after(async () => { await srv?.stop(); });

function assertSecurityHeaders(r, what) {
	assert.equal(r.headers.get('cache-control'), 'no-store', `Cache-Control on ${what}`);
	assert.equal(r.headers.get('x-content-type-options'), 'nosniff', `nosniff on ${what}`);
	assert.equal(r.headers.get('referrer-policy'), 'no-referrer', `Referrer-Policy on ${what}`);
}

test('C7 pages answer 200 HTML', async () => {
	const j = await created(srv, { text: 'x' });
	for (const p of ['/', `/secret/${j.metadata.secretKey}`, `/receipt/${j.metadata.key}`, `/secret/${randomKey()}`, `/receipt/${randomKey()}`, '/secret/anything']) {
		const r = await api(srv, 'GET', p);
		assert.equal(r.status, 200, `${p} → ${r.status}`);
		assert.match(r.headers.get('content-type') || '', /^text\/html/i, p);
		assert.match(r.text, /<html/i, p);
		assertSecurityHeaders(r, p);
	}
	// the links as returned (the fragment is never sent)
	const s = await fetch(j.secretUrl);
	assert.equal(s.status, 200);
	const m = await fetch(j.metadataUrl);
	assert.equal(m.status, 200);
	// viewing the pages consumed nothing
	assert.equal((await meta(srv, j.metadata.secretKey)).json.viewsRemaining, 1);
});

test('C7 page with a query string still served', async () => {
	const r = await api(srv, 'GET', `/secret/${randomKey()}?utm=1`);
	assert.equal(r.status, 200);
});

test('C8 other methods → 405 METHOD_NOT_ALLOWED with Allow', async () => {
	const k = randomKey();
	for (const m of ['PUT', 'PATCH', 'OPTIONS']) {
		const r = await api(srv, m, '/api/secrets/' + k, m === 'OPTIONS' ? {} : { json: { text: 'x' } });
		assertError(r, 405, 'METHOD_NOT_ALLOWED', `${m} /api/secrets/<key>`);
		const allow = (r.headers.get('allow') || '').split(/\s*,\s*/).sort();
		for (const need of ['DELETE', 'GET', 'POST']) assert.ok(allow.includes(need), `Allow lists ${need}: ${r.headers.get('allow')}`);
		assert.ok(!allow.includes(m));
	}
	for (const m of ['GET', 'PUT', 'DELETE', 'PATCH']) {
		const r = await api(srv, m, '/api/secrets', m === 'GET' || m === 'DELETE' ? {} : { json: { text: 'x' } });
		assertError(r, 405, 'METHOD_NOT_ALLOWED', `${m} /api/secrets`);
		assert.equal((r.headers.get('allow') || '').replace(/\s/g, ''), 'POST', `Allow on /api/secrets: ${r.headers.get('allow')}`);
	}
	const h = await api(srv, 'HEAD', '/api/secrets');
	assert.equal(h.status, 405);
	assert.equal(h.text, '');
});

test('C8 405 responses carry the security headers', async () => {
	const r = await api(srv, 'PUT', '/api/secrets/' + randomKey());
	assertSecurityHeaders(r, '405');
});

test('C52 security headers on every API response (success and error)', async () => {
	const j = await created(srv, { text: 'x', maxViews: 2 });
	const rs = {
		'create 200': await create(srv, { text: 'x' }),
		'create 400': await create(srv, { text: 'x', ttl: 1 }),
		'create 415': await api(srv, 'POST', '/api/secrets', { body: '{}' }),
		'meta 200': await meta(srv, j.metadata.secretKey),
		'receipt 200': await meta(srv, j.metadata.key),
		'meta 404': await meta(srv, randomKey()),
		'retrieve 200': await retrieve(srv, j.metadata.secretKey),
		'retrieve 404': await retrieve(srv, randomKey()),
		'burn 200': await burn(srv, j.metadata.key),
		'retrieve 410': await retrieve(srv, j.metadata.secretKey),
	};
	for (const [what, r] of Object.entries(rs)) {
		assertSecurityHeaders(r, what);
		assert.match(r.headers.get('content-type') || '', /^application\/json/, what);
		assert.match(r.headers.get('x-request-id') || '', /^req_[A-Za-z0-9_-]{20}$/, `X-Request-Id on ${what}`);
	}
});

test('C31 request ids are unique per request', async () => {
	const ids = new Set();
	for (let i = 0; i < 10; i++) ids.add((await meta(srv, randomKey())).json.requestId);
	assert.equal(ids.size, 10);
});

test('C49 rate-limit headers on every create/metadata/retrieve/burn response', async () => {
	const j = await created(srv, { text: 'x', maxViews: 2, passphrase: 'abcd' });
	const k = await created(srv, { text: 'x', deletable: false });
	const rs = {
		'create 200': await create(srv, { text: 'x' }),
		'create 400 INVALID_TTL': await create(srv, { text: 'x', ttl: 5 }),
		'create 400 INVALID_JSON': await api(srv, 'POST', '/api/secrets', { body: '{', headers: { 'Content-Type': 'application/json' } }),
		'create 415': await api(srv, 'POST', '/api/secrets', { body: '{}' }),
		'create 401': await create(srv, { text: 'x' }, { Authorization: 'Bearer nope' }),
		'meta 200': await meta(srv, j.metadata.secretKey),
		'receipt 200': await meta(srv, j.metadata.key),
		'meta 404': await meta(srv, randomKey()),
		'meta 404 malformed': await meta(srv, 'short'),
		'retrieve 403': await retrieve(srv, j.metadata.secretKey, { passphrase: 'wrong' }),
		'retrieve 400 INVALID_JSON': await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, { body: '{', headers: { 'Content-Type': 'application/json' } }),
		'retrieve 200': await retrieve(srv, j.metadata.secretKey, { passphrase: 'abcd' }),
		'retrieve 404': await retrieve(srv, randomKey()),
		'burn 403 DELETION_NOT_ALLOWED': await burn(srv, k.metadata.secretKey),
		'burn 200': await burn(srv, j.metadata.key),
		'burn 410': await burn(srv, j.metadata.key),
		'burn 404': await burn(srv, randomKey()),
		'meta 410': await meta(srv, j.metadata.secretKey),
		'retrieve 410': await retrieve(srv, j.metadata.secretKey),
	};
	const missing = [];
	for (const [what, r] of Object.entries(rs)) {
		try { assertRateHeaders(r, what); } catch (e) { missing.push(`${what} (${r.status}): ${e.message.split('\n')[0]}`); }
	}
	assert.deepEqual(missing, []);
});

test('C49 X-RateLimit-Remaining counts down per operation; Reset is the next UTC midnight for the daily window', () => inOneWindow(86400, async () => {
	// the count is per UTC day: a run that straddles midnight runs again, once
	const a = await create(srv, { text: 'x' });
	const b = await create(srv, { text: 'x' });
	const ra = Number(a.headers.get('x-ratelimit-remaining'));
	const rb = Number(b.headers.get('x-ratelimit-remaining'));
	assert.equal(rb, ra - 1, `Remaining ${ra} then ${rb}`);
	assert.equal(a.headers.get('x-ratelimit-limit'), '1000', 'anonymous create: 1000 per day per IP');
	const midnight = Math.floor(Date.now() / 86400000 + 1) * 86400;
	assert.equal(Number(a.headers.get('x-ratelimit-reset')), midnight, 'Reset = next UTC midnight (fixed UTC-day window)');
	// another operation has its own counter
	const m1 = await meta(srv, randomKey());
	const m2 = await meta(srv, randomKey());
	assert.equal(Number(m2.headers.get('x-ratelimit-remaining')), Number(m1.headers.get('x-ratelimit-remaining')) - 1);
}));

test('C51 create with an invalid Bearer key → 401 INVALID_API_KEY, nothing created', async () => {
	const before = srv.db ? Number(sql(srv, 'SELECT count(*) FROM secrets').trim()) : 0;
	const headers = [
		'Bearer nope',
		'Bearer bl_' + crypto.randomBytes(32).toString('base64url'), // well-formed, unknown
		'Bearer ' + crypto.randomBytes(32).toString('base64url'),
		'Bearer bl_short',
		'Bearer ',
		'bearer bl_' + crypto.randomBytes(32).toString('base64url'),
		'Bearer  bl_' + crypto.randomBytes(32).toString('base64url') + ' ',
	];
	for (const h of headers) {
		const r = await create(srv, { text: 'x' }, { Authorization: h });
		assertError(r, 401, 'INVALID_API_KEY', `Authorization: ${h}`);
		assertRateHeaders(r, '401');
		assertSecurityHeaders(r, '401');
	}
	if (srv.db) assert.equal(Number(sql(srv, 'SELECT count(*) FROM secrets').trim()), before, 'nothing created');
});

test('C51 a non-Bearer Authorization header on create (OPEN: ignored or 401)', async () => {
	for (const h of ['Basic dXNlcjpwYXNz', 'Token abc']) {
		const r = await create(srv, { text: 'x' }, { Authorization: h });
		if (r.status !== 200) assertError(r, 401, 'INVALID_API_KEY', h);
	}
});

test('C51 the Authorization header is ignored on metadata, retrieve and burn', async () => {
	const bad = { Authorization: 'Bearer bl_' + crypto.randomBytes(32).toString('base64url') };
	const j = await created(srv, { text: 'x', maxViews: 3 });
	let r = await api(srv, 'GET', '/api/secrets/' + j.metadata.secretKey, { headers: bad });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'GET', '/api/secrets/' + j.metadata.key, { headers: bad });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, { headers: bad });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, { headers: bad, json: {} });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'DELETE', '/api/secrets/' + j.metadata.key, { headers: { Authorization: 'Bearer garbage' } });
	assert.equal(r.status, 200, r.text);
	const k = await created(srv, { text: 'x' });
	r = await api(srv, 'DELETE', '/api/secrets/' + k.metadata.secretKey, { headers: { Authorization: 'Basic Zm9vOmJhcg==' } });
	assert.equal(r.status, 200, r.text);
});

test('burn with a body and a Content-Type other than JSON', async () => {
	const j = await created(srv, { text: 'x' });
	// fetch DELETE without a body: no Content-Type
	const r = await api(srv, 'DELETE', '/api/secrets/' + j.metadata.key);
	assert.equal(r.status, 200);
});

test('C53 a GET or HEAD with a body is lighttpd\'s own 400; Content-Length: 0 is an ordinary GET', async (t) => {
	if (serverKind() !== 'lighttpd') return t.skip('lighttpd\'s own answer');
	const j = await created(srv, { text: 'x' });
	const p = '/api/secrets/' + j.metadata.secretKey;
	for (const method of ['GET', 'HEAD']) {
		const r = await rawRequest(srv.base, { method, path: p, headers: { 'Content-Type': 'application/json', 'Content-Length': '2' }, body: '{}', noSpecCheck: true });
		assert.equal(r.status, 400, method);
		assert.match(r.headers['content-type'] || '', /^text\/html/, method);
		assert.equal(r.headers['x-ratelimit-remaining'], undefined, `${method}: not counted`);
	}
	const ok = await rawRequest(srv.base, { method: 'GET', path: p, headers: { 'Content-Length': '0' } });
	assert.equal(ok.status, 200);
	assert.equal(JSON.parse(ok.text).viewsRemaining, 1);
});

test('raw HTTP/1.0 request and a Host-less request do not break the API', async () => {
	const r = await rawRequest(srv.base, { method: 'GET', path: '/api/secrets/' + randomKey() });
	assert.equal(r.status, 404);
	assert.equal(JSON.parse(r.text).code, 'NOT_FOUND');
});

test('client-side create with the CLI-like minimal request (only text object, Content-Type json)', async () => {
	const key = crypto.randomBytes(32);
	const r = await fetch(srv.base + '/api/secrets', {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ text: encrypt(key, 'cli'), ttl: 3600, maxViews: 1 }),
	});
	assert.equal(r.status, 200);
	const j = await r.json();
	assert.equal(j.secretUrl, `${srv.base}/secret/${j.metadata.secretKey}`);
});
