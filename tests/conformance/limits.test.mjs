// Conformance: every limit and validation rule of the create request
// (CLAIMS.md C21-C28).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import {
	server, api, create, created, retrieve, meta, assertError, assertRateHeaders, encrypt, decrypt,
	fragmentKey, b64, rawRequest,
} from './helpers.mjs';

let srv;
before(async () => { srv = await server(); });
after(async () => { await srv?.stop(); });

const MiB2 = 2 * 1024 * 1024;
const MiB4 = 4 * 1024 * 1024;
const dataUrl = (mime, buf) => `data:${mime};base64,${b64(buf)}`;

// expiresAt is ttl seconds after the moment the server took the request: between
// the request's start and its answer (a second either side for rounding), however
// long the answer took on a busy machine.
async function expiresWithin(send, ttl, what) {
	const t0 = Date.now();
	const r = await send();
	const t1 = Date.now();
	const at = Date.parse((r.json || r).metadata.expiresAt);
	assert.ok(at >= t0 + ttl * 1000 - 1000 && at <= t1 + ttl * 1000 + 1000,
		`${what}: expiresAt ${new Date(at).toISOString()} not within ${ttl} s of ${new Date(t0).toISOString()}..${new Date(t1).toISOString()}`);
	return r;
}

test('C21 ttl bounds and types', async () => {
	for (const ttl of [1800, 7776000, 3600, 86400]) {
		await expiresWithin(() => created(srv, { text: 'x', ttl }), ttl, `ttl ${ttl}`);
	}
	for (const ttl of [1799, 7776001, 0, -1, -1800, 86400000, 1e300]) {
		assertError(await create(srv, { text: 'x', ttl }), 400, 'INVALID_TTL', `ttl ${ttl}`);
	}
	for (const ttl of ['3600', 3600.5, 1800.0001, true, [3600], { s: 3600 }, '']) {
		assertError(await create(srv, { text: 'x', ttl }), 400, 'INVALID_TTL', `ttl ${JSON.stringify(ttl)}`);
	}
});

test('C21 ttl as integral JSON numbers written otherwise: 3600.0, 3.6e3, 36E2', async () => {
	for (const lit of ['3600.0', '3.6e3', '36E2', '3600e0', '360000e-2']) {
		const send = async () => {
			const r = await api(srv, 'POST', '/api/secrets', { body: `{"text":"x","ttl":${lit}}`, headers: { 'Content-Type': 'application/json' } });
			assert.equal(r.status, 200, `ttl ${lit}: ${r.text}`);
			return r;
		};
		await expiresWithin(send, 3600, `ttl ${lit}`);
	}
});

test('C21 ttl null: default or INVALID_TTL (OPEN)', async () => {
	const t0 = Date.now();
	const r = await create(srv, { text: 'x', ttl: null });
	const t1 = Date.now();
	if (r.status === 200) {
		const at = Date.parse(r.json.metadata.expiresAt);
		assert.ok(at >= t0 + 86400000 - 1000 && at <= t1 + 86400000 + 1000, r.json.metadata.expiresAt);
	} else assertError(r, 400, 'INVALID_TTL');
});

test('C22 maxViews bounds, types, null, default', async () => {
	for (const mv of [1, 2, 999]) {
		const j = await created(srv, { text: 'x', maxViews: mv });
		assert.equal(j.metadata.maxViews, mv);
		const m = await meta(srv, j.metadata.secretKey);
		assert.equal(m.json.maxViews, mv);
		assert.equal(m.json.viewsRemaining, mv);
	}
	const j = await created(srv, { text: 'x', maxViews: null });
	assert.equal(j.metadata.maxViews, null);
	const m = await meta(srv, j.metadata.secretKey);
	assert.equal(m.json.maxViews, null);
	assert.equal(m.json.viewsRemaining, null);
	for (const mv of [0, 1000, -1, 1.5, '5', true, [1], {}, '', 1e10]) {
		assertError(await create(srv, { text: 'x', maxViews: mv }), 400, 'INVALID_MAX_VIEWS', `maxViews ${JSON.stringify(mv)}`);
	}
	for (const lit of ['1e2', '100.0', '1E2']) {
		const r = await api(srv, 'POST', '/api/secrets', { body: `{"text":"x","maxViews":${lit}}`, headers: { 'Content-Type': 'application/json' } });
		assert.equal(r.status, 200, `maxViews ${lit}: ${r.text}`);
		assert.equal(r.json.metadata.maxViews, 100);
	}
	const d = await created(srv, { text: 'x' });
	assert.equal(d.metadata.maxViews, 1, 'default 1');
});

test('C23 passphrase 4..256 characters (code points)', async () => {
	const ok = ['abcd', 'a'.repeat(256), 'äöüß', '🔐🔐🔐🔐', '🔐'.repeat(256), '    ', 'pass word with spaces', '密码密码'];
	for (const p of ok) {
		const r = await create(srv, { text: 'x', passphrase: p });
		assert.equal(r.status, 200, `passphrase of ${[...p].length} code points / ${Buffer.byteLength(p)} bytes: ${r.text}`);
		// and it opens the secret (a few: each check costs an scrypt)
		if (['🔐🔐🔐🔐', '    ', '🔐'.repeat(256)].includes(p)) {
			const g = await retrieve(srv, r.json.metadata.secretKey, { passphrase: p });
			assert.equal(g.status, 200, `retrieve with passphrase ${JSON.stringify(p).slice(0, 40)}: ${g.text}`);
		}
	}
	const bad = ['abc', 'a'.repeat(257), '', '🔐🔐🔐', 'äöü', '🔐'.repeat(257)];
	for (const p of bad) {
		assertError(await create(srv, { text: 'x', passphrase: p }), 400, 'INVALID_PASSPHRASE_FORMAT', `passphrase of ${[...p].length} code points`);
	}
	for (const p of [1234, true, ['abcd'], { p: 'abcd' }]) {
		assertError(await create(srv, { text: 'x', passphrase: p }), 400, 'INVALID_PASSPHRASE_FORMAT', `passphrase ${JSON.stringify(p)}`);
	}
});

test('C23 passphrase null: none or INVALID_PASSPHRASE_FORMAT (OPEN)', async () => {
	const r = await create(srv, { text: 'x', passphrase: null });
	if (r.status === 200) assert.equal((await meta(srv, r.json.metadata.secretKey)).json.hasPassphrase, false);
	else assertError(r, 400, 'INVALID_PASSPHRASE_FORMAT');
});

test('C24 at most 20 files', async () => {
	const f = (i) => ({ filename: `f${i}.txt`, mimeType: 'text/plain', data: dataUrl('text/plain', Buffer.from(String(i))) });
	const twenty = Array.from({ length: 20 }, (_, i) => f(i));
	const j = await created(srv, { text: 'x', files: twenty });
	const g = await retrieve(srv, j.metadata.secretKey);
	assert.equal(g.json.files.length, 20);
	const { key } = fragmentKey(j.secretUrl);
	for (let i = 0; i < 20; i++) {
		assert.equal(decrypt(key, g.json.files[i].data).toString(), String(i), 'files keep their order');
	}
	assertError(await create(srv, { text: 'x', files: [...twenty, f(20)] }), 400, 'INVALID_FILES', '21 files');
	const k = crypto.randomBytes(32);
	const cf = Array.from({ length: 21 }, () => ({ filename: 'a', mimeType: 'b', data: encrypt(k, 'x') }));
	assertError(await create(srv, { text: encrypt(k, 'x'), files: cf }), 400, 'INVALID_FILES', '21 client-side files');
	assert.equal((await create(srv, { text: encrypt(k, 'x'), files: cf.slice(0, 20) })).status, 200);
});

test('C25 server-side text: 2 MiB of UTF-8 bytes', async () => {
	let r = await create(srv, { text: 'a'.repeat(MiB2) });
	assert.equal(r.status, 200, `exactly 2097152 bytes: ${r.text.slice(0, 200)}`);
	const { key } = fragmentKey(r.json.secretUrl);
	const g = await retrieve(srv, r.json.metadata.secretKey);
	assert.equal(decrypt(key, g.json.text).length, MiB2);
	assertError(await create(srv, { text: 'a'.repeat(MiB2 + 1) }), 400, 'INVALID_CONTENT_SIZE', '2097153 bytes');
	// multibyte: 699051 × "€" (3 bytes) = 2097153 bytes, 699051 characters
	assertError(await create(srv, { text: '€'.repeat(699051) }), 400, 'INVALID_CONTENT_SIZE', 'counted in UTF-8 bytes');
	r = await create(srv, { text: '€'.repeat(699050) + 'aa' });
	assert.equal(r.status, 200, `2097152 bytes of multibyte text: ${r.text.slice(0, 200)}`);
	// legacy secret counts the same
	assertError(await create(srv, { secret: 'a'.repeat(MiB2 + 1) }), 400, 'INVALID_CONTENT_SIZE', 'secret 2097153 bytes');
});

test('C25 server-side text + files combined', async () => {
	const half = MiB2 / 2;
	let r = await create(srv, { text: 'a'.repeat(half), files: [{ filename: 'f', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', Buffer.alloc(half)) }] });
	assert.equal(r.status, 200, `text + file = 2 MiB: ${r.text.slice(0, 200)}`);
	r = await create(srv, { text: 'a'.repeat(half + 1), files: [{ filename: 'f', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', Buffer.alloc(half)) }] });
	assertError(r, 400, 'INVALID_CONTENT_SIZE', 'text + file = 2 MiB + 1');
	r = await create(srv, { files: [
		{ filename: 'a', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', Buffer.alloc(half)) },
		{ filename: 'b', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', Buffer.alloc(half + 1)) },
	] });
	assertError(r, 400, 'INVALID_CONTENT_SIZE', 'two files = 2 MiB + 1');
});

test('C25 client-side: decoded ciphertext − 16 per item', async () => {
	const key = crypto.randomBytes(32);
	let r = await create(srv, { text: encrypt(key, Buffer.alloc(MiB2)) });
	assert.equal(r.status, 200, `client-side 2 MiB: ${r.text.slice(0, 200)}`);
	assertError(await create(srv, { text: encrypt(key, Buffer.alloc(MiB2 + 1)) }), 400, 'INVALID_CONTENT_SIZE', 'client-side 2 MiB + 1');
	const half = MiB2 / 2;
	r = await create(srv, { text: encrypt(key, Buffer.alloc(half)), files: [{ filename: encrypt(key, 'name'), mimeType: encrypt(key, 'x/y'), data: encrypt(key, Buffer.alloc(half)) }] });
	assert.equal(r.status, 200, `client-side text + file = 2 MiB (names not counted, or counted: OPEN): ${r.text.slice(0, 200)}`);
	r = await create(srv, { text: encrypt(key, Buffer.alloc(half + 1)), files: [{ filename: 'n', mimeType: 'm', data: encrypt(key, Buffer.alloc(half)) }] });
	assertError(r, 400, 'INVALID_CONTENT_SIZE', 'client-side text + file = 2 MiB + 1');
});

test('C26 body over 4 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
	// a valid JSON body of 4 MiB + 1 bytes (padding in an unknown field)
	const head = '{"text":"x","pad":"';
	const tail = '"}';
	const big = head + 'p'.repeat(MiB4 + 1 - head.length - tail.length) + tail;
	assert.equal(big.length, MiB4 + 1);
	const r = await api(srv, 'POST', '/api/secrets', { body: big, headers: { 'Content-Type': 'application/json' } });
	assertError(r, 413, 'PAYLOAD_TOO_LARGE', '4 MiB + 1');
	assertRateHeaders(r, '413');
	// exactly 4 MiB is not 413 (the unknown field is ignored; the text is small)
	const exact = head + 'p'.repeat(MiB4 - head.length - tail.length) + tail;
	const r2 = await api(srv, 'POST', '/api/secrets', { body: exact, headers: { 'Content-Type': 'application/json' } });
	assert.equal(r2.status, 200, `exactly 4 MiB: ${r2.text.slice(0, 200)}`);
});

test('C26 bodies well over 4 MiB (4200 KiB, 5 MiB, 10 MiB) → 413 with the JSON error body', async () => {
	const bad = [];
	for (const n of [4200 * 1024, 5 * 1024 * 1024, 10 * 1024 * 1024]) {
		const r = await create(srv, { text: 'a'.repeat(n) });
		try {
			assertError(r, 413, 'PAYLOAD_TOO_LARGE', `body of ${n} bytes`);
			assertRateHeaders(r, `413 ${n}`);
		} catch (e) {
			bad.push(`${n} bytes → ${r.status} ${r.headers.get('content-type')} ${r.json?.code ?? r.text.slice(0, 40).replace(/\s+/g, ' ')}`);
		}
	}
	assert.deepEqual(bad, [], 'every too-large body is answered by the API (JSON, X-Request-Id, rate-limit headers)');
});

test('C26 a 2 MiB server-side file (base64 ≈ 2.7 MiB) fits under the body limit', async () => {
	const r = await create(srv, { files: [{ filename: 'big.bin', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', crypto.randomBytes(MiB2)) }] });
	assert.equal(r.status, 200, r.text.slice(0, 200));
});

test('C27 body not a JSON object → 400 INVALID_JSON', async () => {
	for (const body of ['[]', '"text"', '42', 'null', 'true', '{', '{"text":', 'text=hello', '{\'text\':\'x\'}', '{"text":"x"', '\u0000']) {
		const r = await api(srv, 'POST', '/api/secrets', { body, headers: { 'Content-Type': 'application/json' } });
		assertError(r, 400, 'INVALID_JSON', `body ${JSON.stringify(body)}`);
		assertRateHeaders(r, 'INVALID_JSON');
	}
	const r = await api(srv, 'POST', '/api/secrets', { body: '', headers: { 'Content-Type': 'application/json' } });
	assertError(r, 400, 'INVALID_JSON', 'empty body');
	// invalid UTF-8 inside a string
	const raw = await rawRequest(srv.base, {
		method: 'POST', path: '/api/secrets', headers: { 'Content-Type': 'application/json' },
		body: Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
	});
	assert.equal(raw.status, 400, `invalid UTF-8: ${raw.text}`);
	assert.match(JSON.parse(raw.text).code, /^INVALID_(JSON|TEXT)$/);
});

test('C28 without Content-Type: application/json → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
	// fetch with a string body sends text/plain;charset=UTF-8
	let r = await api(srv, 'POST', '/api/secrets', { body: JSON.stringify({ text: 'x' }) });
	assertError(r, 415, 'UNSUPPORTED_MEDIA_TYPE', 'fetch default text/plain');
	assertRateHeaders(r, '415');
	r = await api(srv, 'POST', '/api/secrets', { body: JSON.stringify({ text: 'x' }), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
	assertError(r, 415, 'UNSUPPORTED_MEDIA_TYPE', 'form');
	r = await api(srv, 'POST', '/api/secrets', { body: JSON.stringify({ text: 'x' }), headers: { 'Content-Type': 'application/jsonx' } });
	assertError(r, 415, 'UNSUPPORTED_MEDIA_TYPE', 'application/jsonx');
	const raw = await rawRequest(srv.base, { method: 'POST', path: '/api/secrets', headers: { 'Content-Length': '12' }, body: '{"text":"x"}' });
	assert.equal(raw.status, 415, `no Content-Type at all: ${raw.text}`);
	assert.equal(JSON.parse(raw.text).code, 'UNSUPPORTED_MEDIA_TYPE');
});
