// Conformance: creation in both modes, the create response, links, defaults,
// round trips (CLAIMS.md C1-C6, C10-C20, C29, C30).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import {
	server, api, create, created, retrieve, meta, assertError, encrypt, decrypt, rawRequest,
	fragmentKey, b64, KEY_RE, ISO_MS_RE,
} from './helpers.mjs';

let srv;
before(async () => { srv = await server(); });
after(async () => { await srv?.stop(); });

const dataUrl = (mime, buf) => `data:${mime};base64,${b64(buf)}`;

test('C1-C6 server-side create: response shape, links, keys, defaults', async () => {
	const t0 = Date.now();
	const r = await create(srv, { text: 'hello' });
	assert.equal(r.status, 200, r.text);
	const j = r.json;
	assert.deepEqual(Object.keys(j).sort(), ['metadata', 'metadataUrl', 'secretUrl', 'success']);
	assert.equal(j.success, true);
	const m = j.metadata;
	for (const k of ['expiresAt', 'key', 'maxViews', 'secretKey']) assert.ok(k in m, `metadata.${k}`);
	assert.match(m.key, KEY_RE);
	assert.match(m.secretKey, KEY_RE);
	assert.notEqual(m.key, m.secretKey);
	assert.equal(m.maxViews, 1, 'maxViews default 1');
	assert.match(m.expiresAt, ISO_MS_RE);
	const exp = Date.parse(m.expiresAt);
	assert.ok(exp >= t0 + 86400e3 - 2000 && exp <= Date.now() + 86400e3 + 2000, `default ttl 86400: ${m.expiresAt}`);
	// {site_url} is http:// + Host (the harness sets no BURNLINK_SITE_URL)
	const site = srv.base;
	const { text: keyText } = fragmentKey(j.secretUrl);
	assert.match(keyText, /^[A-Za-z0-9_-]{43}$/);
	assert.equal(j.secretUrl, `${site}/secret/${m.secretKey}#key=${keyText}`);
	assert.equal(j.metadataUrl, `${site}/receipt/${m.key}`);
	assert.equal(r.headers.get('x-request-id')?.startsWith('req_'), true, 'X-Request-Id on success');
	assert.match(r.headers.get('content-type') || '', /^application\/json/);
});

test('C5 keys differ between secrets; decryption keys differ', async () => {
	const a = await created(srv, { text: 'a' });
	const b = await created(srv, { text: 'a' });
	assert.notEqual(a.metadata.secretKey, b.metadata.secretKey);
	assert.notEqual(a.metadata.key, b.metadata.key);
	assert.notEqual(fragmentKey(a.secretUrl).text, fragmentKey(b.secretUrl).text);
});

test('C10 server-side text round trip keeps exact bytes', async () => {
	const samples = [
		'  leading and trailing spaces  \n\n',
		'line1\r\nline2\r\n\ttab',
		'unicode: héllo wörld — 日本語 — 🔐🗝️',
		'   ',
		'\n',
		'"quotes" and \\backslashes\\ and </script>',
		'\u2028\u2029 separators',
	];
	for (const text of samples) {
		const j = await created(srv, { text });
		const { key } = fragmentKey(j.secretUrl);
		const r = await retrieve(srv, j.metadata.secretKey);
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.success, true);
		assert.equal(r.json.viewsRemaining, 0);
		assert.equal(decrypt(key, r.json.text).toString('utf8'), text, `round trip of ${JSON.stringify(text)}`);
	}
});

test('C10 text with NUL (\\u0000) is exact text too: stored and returned', async () => {
	// The text comes back exactly as sent (docs/API.md); a JSON string may hold U+0000.
	const text = 'nul\u0000inside\u0000';
	const j = await created(srv, { text });
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(decrypt(fragmentKey(j.secretUrl).key, r.json.text).toString('utf8'), text);
});

test('C10 retrieval response fields', async () => {
	const j = await created(srv, { text: 'x', maxViews: 2 });
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200);
	assert.equal(r.json.success, true);
	assert.deepEqual(Object.keys(r.json.text).sort(), ['ciphertext', 'iv']);
	assert.equal(r.json.viewsRemaining, 1);
	assert.ok(Array.isArray(r.json.files), 'files is an array (empty when none)');
	assert.equal(r.json.files.length, 0);
	assert.equal(Buffer.from(r.json.text.iv, 'base64').length, 12);
	// a ciphertext of 1 byte + 16-byte tag
	assert.equal(Buffer.from(r.json.text.ciphertext, 'base64').length, 17);
});

test('C11 client-side text: stored and returned byte for byte, no fragment in secretUrl', async () => {
	const key = crypto.randomBytes(32);
	const item = encrypt(key, 'zero knowledge ✓');
	const j = await created(srv, { text: item });
	assert.equal(j.secretUrl, `${srv.base}/secret/${j.metadata.secretKey}`, 'no #key in client-side mode');
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.text, item);
	assert.equal(decrypt(key, r.json.text).toString(), 'zero knowledge ✓');
});

test('C12 legacy secret field', async () => {
	const j = await created(srv, { secret: 'legacy\n' });
	const { key } = fragmentKey(j.secretUrl);
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200);
	assert.equal(decrypt(key, r.json.text).toString(), 'legacy\n');
});

test('C13 text and secret together → 400 INVALID_TEXT', async () => {
	assertError(await create(srv, { text: 'a', secret: 'b' }), 400, 'INVALID_TEXT');
	assertError(await create(srv, { text: encrypt(crypto.randomBytes(32), 'a'), secret: 'b' }), 400, /^INVALID_(TEXT|ENCRYPTION_MODE)$/);
});

test('C14 mixed modes → 400 INVALID_ENCRYPTION_MODE', async () => {
	const key = crypto.randomBytes(32);
	const cFile = { filename: 'a.txt', mimeType: 'text/plain', data: encrypt(key, 'x') };
	const sFile = { filename: 'a.txt', mimeType: 'text/plain', data: dataUrl('text/plain', Buffer.from('x')) };
	assertError(await create(srv, { text: 'plain', files: [cFile] }), 400, 'INVALID_ENCRYPTION_MODE', 'text string + client file');
	assertError(await create(srv, { text: encrypt(key, 'c'), files: [sFile] }), 400, 'INVALID_ENCRYPTION_MODE', 'text object + data-URL file');
	assertError(await create(srv, { secret: 'plain', files: [cFile] }), 400, 'INVALID_ENCRYPTION_MODE', 'secret + client file');
	assertError(await create(srv, { files: [sFile, cFile] }), 400, 'INVALID_ENCRYPTION_MODE', 'files of both kinds');
	assertError(await create(srv, { files: [cFile, sFile] }), 400, 'INVALID_ENCRYPTION_MODE', 'files of both kinds');
});

test('C15 content required: INVALID_CONTENT', async () => {
	assertError(await create(srv, {}), 400, 'INVALID_CONTENT', '{}');
	assertError(await create(srv, { text: '' }), 400, 'INVALID_CONTENT', 'text ""');
	assertError(await create(srv, { secret: '' }), 400, 'INVALID_CONTENT', 'secret ""');
	assertError(await create(srv, { files: [] }), 400, 'INVALID_CONTENT', 'files []');
	assertError(await create(srv, { text: '', files: [] }), 400, 'INVALID_CONTENT', 'text "" files []');
	assertError(await create(srv, { ttl: 3600, maxViews: 2 }), 400, 'INVALID_CONTENT', 'options only');
});

test('C15 whitespace-only text is content (exact text preserved)', async () => {
	const j = await created(srv, { text: ' ' });
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(decrypt(fragmentKey(j.secretUrl).key, r.json.text).toString(), ' ');
});

test('C16 ciphertext must be canonical base64, iv 12 bytes', async () => {
	const key = crypto.randomBytes(32);
	const good = encrypt(key, 'some text of a few bytes'); // 24 + 16 = 40 bytes → 56 chars, one "=" pad? 40 % 3 = 1 → "=="
	assert.ok(good.ciphertext.endsWith('=='));
	const noPad = good.ciphertext.replace(/=+$/, '');
	assertError(await create(srv, { text: { ...good, ciphertext: noPad } }), 400, 'INVALID_CIPHERTEXT', 'no padding');
	// non-zero pad bits: last char before "==" changed so that decoding ignores bits
	const chars = good.ciphertext.split('');
	const i = chars.length - 3;
	const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
	const v = alpha.indexOf(chars[i]);
	chars[i] = alpha[(v & ~15) | ((v & 15) ^ 1)];
	const noncanon = chars.join('');
	assert.equal(Buffer.from(noncanon, 'base64').toString('base64'), good.ciphertext, 'same bytes, other string');
	assertError(await create(srv, { text: { ...good, ciphertext: noncanon } }), 400, 'INVALID_CIPHERTEXT', 'non-zero pad bits');
	// url-safe alphabet
	let urlsafe;
	for (;;) {
		const g = encrypt(key, crypto.randomBytes(30));
		if (/[+/]/.test(g.ciphertext)) { urlsafe = { ...g, ciphertext: g.ciphertext.replace(/\+/g, '-').replace(/\//g, '_') }; break; }
	}
	assertError(await create(srv, { text: urlsafe }), 400, 'INVALID_CIPHERTEXT', 'url-safe alphabet');
	assertError(await create(srv, { text: { ...good, ciphertext: good.ciphertext.slice(0, 8) + '\n' + good.ciphertext.slice(8) } }), 400, 'INVALID_CIPHERTEXT', 'newline inside');
	assertError(await create(srv, { text: { ...good, ciphertext: good.ciphertext + '=' } }), 400, 'INVALID_CIPHERTEXT', 'extra =');
	assertError(await create(srv, { text: { ...good, ciphertext: '!!!!' } }), 400, 'INVALID_CIPHERTEXT', 'garbage');
	assertError(await create(srv, { text: { ...good, ciphertext: 5 } }), 400, 'INVALID_CIPHERTEXT', 'number');
	assertError(await create(srv, { text: { iv: good.iv } }), 400, 'INVALID_CIPHERTEXT', 'missing ciphertext');
	// iv
	assertError(await create(srv, { text: { ...good, iv: b64(crypto.randomBytes(16)) } }), 400, 'INVALID_IV', 'iv 16 bytes');
	assertError(await create(srv, { text: { ...good, iv: b64(crypto.randomBytes(11)) } }), 400, 'INVALID_IV', 'iv 11 bytes');
	assertError(await create(srv, { text: { ...good, iv: b64(crypto.randomBytes(13)) } }), 400, 'INVALID_IV', 'iv 13 bytes');
	assertError(await create(srv, { text: { ...good, iv: '' } }), 400, 'INVALID_IV', 'iv empty');
	assertError(await create(srv, { text: { ciphertext: good.ciphertext } }), 400, 'INVALID_IV', 'iv missing');
	assertError(await create(srv, { text: { ...good, iv: good.iv.replace(/\+/g, '-').replace(/\//g, '_') + '!' } }), 400, 'INVALID_IV', 'iv garbage');
	const ivUrl = (() => { for (;;) { const x = b64(crypto.randomBytes(12)); if (/[+/]/.test(x)) return x.replace(/\+/g, '-').replace(/\//g, '_'); } })();
	assertError(await create(srv, { text: { ...good, iv: ivUrl } }), 400, 'INVALID_IV', 'iv url-safe');
	// the good one is accepted
	await created(srv, { text: good });
});

test('C16 ciphertext shorter than a GCM tag is rejected', async () => {
	const iv = b64(crypto.randomBytes(12));
	assertError(await create(srv, { text: { ciphertext: b64(crypto.randomBytes(15)), iv } }), 400, /^INVALID_(CIPHERTEXT|CONTENT)$/, '15 bytes');
	assertError(await create(srv, { text: { ciphertext: '', iv } }), 400, /^INVALID_(CIPHERTEXT|CONTENT)$/, 'empty');
});

test('C17 server-side files: filename, mimeType and bytes encrypted by the server, round trip', async () => {
	const bin = crypto.randomBytes(3000);
	const files = [
		{ filename: 'report.pdf', mimeType: 'application/pdf', data: dataUrl('application/pdf', bin) },
		{ filename: 'ünïcødé 名前.txt', mimeType: 'text/plain', data: dataUrl('text/plain', Buffer.from('hi\n')) },
	];
	const j = await created(srv, { text: 'with files', files });
	assert.match(j.secretUrl, /#key=/);
	const { key } = fragmentKey(j.secretUrl);
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.equal(decrypt(key, r.json.text).toString(), 'with files');
	assert.equal(r.json.files.length, 2);
	const ivs = new Set();
	for (let i = 0; i < 2; i++) {
		const f = r.json.files[i];
		assert.deepEqual(Object.keys(f).sort(), ['data', 'filename', 'mimeType']);
		for (const k of ['filename', 'mimeType', 'data']) {
			assert.equal(typeof f[k], 'object', `${k} is encrypted by the server`);
			ivs.add(f[k].iv);
		}
		assert.equal(decrypt(key, f.filename).toString(), files[i].filename);
		assert.equal(decrypt(key, f.mimeType).toString(), files[i].mimeType);
	}
	assert.deepEqual(decrypt(key, r.json.files[0].data), bin);
	assert.equal(decrypt(key, r.json.files[1].data).toString(), 'hi\n');
	assert.equal(ivs.size, 6, 'each item has its own IV');
	// the plaintext never shows in the stored ciphertext
	assert.ok(!r.text.includes('report.pdf'));
});

test('C17 server-side files only (no text) → text null', async () => {
	const j = await created(srv, { files: [{ filename: 'a.bin', mimeType: 'application/octet-stream', data: dataUrl('application/octet-stream', Buffer.from([0, 1, 2])) }] });
	const { key } = fragmentKey(j.secretUrl);
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.text, null, 'C19 text null for a files-only secret');
	assert.deepEqual([...decrypt(key, r.json.files[0].data)], [0, 1, 2]);
});

test('C17 server-side file with empty data is accepted (empty file) when there is text', async () => {
	const r = await create(srv, { text: 't', files: [{ filename: 'empty.txt', mimeType: 'text/plain', data: 'data:text/plain;base64,' }] });
	assert.equal(r.status, 200, `an empty file is a valid file: ${r.text}`);
	const { key } = fragmentKey(r.json.secretUrl);
	const g = await retrieve(srv, r.json.metadata.secretKey);
	assert.equal(decrypt(key, g.json.files[0].data).length, 0);
});

test('C17 server-side file data must be a base64 data URL', async () => {
	const bad = [
		'aGVsbG8=',
		'data:text/plain,hello',
		'data:text/plain;base64,@@@@',
		'http://example.com/x',
	];
	for (const data of bad) {
		const r = await create(srv, { text: 't', files: [{ filename: 'a', mimeType: 'text/plain', data }] });
		assertError(r, 400, /^INVALID_/, `data ${data}`);
	}
});

test('C18 client-side files: plain or encrypted names, returned exactly as stored', async () => {
	const key = crypto.randomBytes(32);
	const f1 = { filename: encrypt(key, 'secret-name.txt'), mimeType: encrypt(key, 'text/plain'), data: encrypt(key, 'file body') };
	const f2 = { filename: 'visible.bin', mimeType: 'application/octet-stream', data: encrypt(key, crypto.randomBytes(100)) };
	const text = encrypt(key, 'client text');
	const j = await created(srv, { text, files: [f1, f2] });
	assert.ok(!j.secretUrl.includes('#'));
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.text, text);
	assert.deepEqual(r.json.files, [f1, f2]);
	// files only, client-side
	const j2 = await created(srv, { files: [f1] });
	const r2 = await retrieve(srv, j2.metadata.secretKey);
	assert.equal(r2.json.text, null);
	assert.deepEqual(r2.json.files, [f1]);
});

test('C18 client-side file item errors', async () => {
	const key = crypto.randomBytes(32);
	const text = encrypt(key, 't');
	assertError(await create(srv, { text, files: [{ filename: 'a', mimeType: 'text/plain' }] }), 400, /^INVALID_/, 'missing data');
	assertError(await create(srv, { text, files: [{ filename: 'a', mimeType: 'text/plain', data: { ciphertext: encrypt(key, 'x').ciphertext, iv: 'AAAA' } }] }), 400, 'INVALID_IV', 'file iv');
	assertError(await create(srv, { text, files: [{ filename: 'a', mimeType: 'text/plain', data: { ciphertext: 'AAA', iv: b64(crypto.randomBytes(12)) } }] }), 400, 'INVALID_CIPHERTEXT', 'file ciphertext');
	assertError(await create(srv, { text, files: [{ filename: { ciphertext: 'AAA=', iv: b64(crypto.randomBytes(12)) }, mimeType: 'text/plain', data: encrypt(key, 'x') }] }), 400, /^INVALID_/, 'filename with bad ciphertext');
	assertError(await create(srv, { text, files: [{ filename: 5, mimeType: 'text/plain', data: encrypt(key, 'x') }] }), 400, /^INVALID_/, 'filename number');
	assertError(await create(srv, { text, files: {} }), 400, 'INVALID_FILES', 'files object');
	assertError(await create(srv, { text, files: 'x' }), 400, 'INVALID_FILES', 'files string');
	assertError(await create(srv, { text, files: [null] }), 400, /^INVALID_/, 'file null');
});

test('C17 very long file name (1000 chars) round trips or is refused with INVALID_*', async () => {
	const name = 'n'.repeat(1000) + '.txt';
	const r = await create(srv, { text: 't', files: [{ filename: name, mimeType: 'text/plain', data: dataUrl('text/plain', Buffer.from('x')) }] });
	if (r.status === 200) {
		const g = await retrieve(srv, r.json.metadata.secretKey);
		assert.equal(decrypt(fragmentKey(r.json.secretUrl).key, g.json.files[0].filename).toString(), name);
	} else {
		assertError(r, 400, /^INVALID_/);
	}
});

test('C20 wrong types for text', async () => {
	assertError(await create(srv, { text: 5 }), 400, /^INVALID_(TEXT|CONTENT)$/, 'number');
	assertError(await create(srv, { text: ['a'] }), 400, /^INVALID_/, 'array');
	assertError(await create(srv, { text: true }), 400, /^INVALID_/, 'boolean');
	assertError(await create(srv, { secret: 5 }), 400, /^INVALID_/, 'secret number');
	assertError(await create(srv, { secret: { ciphertext: 'AAAA', iv: 'AAAA' } }), 400, /^INVALID_/, 'secret object');
});

test('C29 unknown fields are ignored', async () => {
	const j = await created(srv, { text: 'x', color: 'blue', nested: { a: [1, 2, { b: null }] }, expiresAt: '2000-01-01T00:00:00.000Z' });
	assert.ok(Date.parse(j.metadata.expiresAt) > Date.now());
});

test('C30 deletable: boolean, default true', async () => {
	const j = await created(srv, { text: 'x', deletable: false });
	const m = await meta(srv, j.metadata.secretKey);
	assert.equal(m.json.deletable, false);
	const j2 = await created(srv, { text: 'x' });
	assert.equal((await meta(srv, j2.metadata.secretKey)).json.deletable, true);
	assertError(await create(srv, { text: 'x', deletable: 'false' }), 400, /^INVALID_/, 'deletable string');
	assertError(await create(srv, { text: 'x', deletable: 0 }), 400, /^INVALID_/, 'deletable 0');
});

test('C4 BURNLINK_SITE_URL sets {site_url}; a path prefix is kept', async () => {
	if (process.env.BURNLINK_CONFORMANCE_BASE) return;
	const s = await server({ env: { BURNLINK_SITE_URL: 'https://secrets.example.org/share' } });
	try {
		const j = await created(s, { text: 'x' });
		assert.match(j.secretUrl, new RegExp(`^https://secrets\\.example\\.org/share/secret/${j.metadata.secretKey}#key=[A-Za-z0-9_-]{43}$`));
		assert.equal(j.metadataUrl, `https://secrets.example.org/share/receipt/${j.metadata.key}`);
	} finally { await s.stop(); }
	const s2 = await server({ env: { BURNLINK_SITE_URL: 'https://secrets.example.org/' } });
	try {
		const j = await created(s2, { text: 'x' });
		assert.equal(j.metadataUrl, `https://secrets.example.org/receipt/${j.metadata.key}`, 'trailing slash of BURNLINK_SITE_URL does not double');
	} finally { await s2.stop(); }
});

test('C4 Host header decides {site_url}', async () => {
	const u = new URL(srv.base);
	const r = await rawRequest(srv.base, {
		method: 'POST', path: '/api/secrets',
		headers: { Host: `localhost:${u.port}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ text: 'x' }),
	});
	assert.equal(r.status, 200, r.text);
	const j = JSON.parse(r.text);
	// under a sub-path (the Debian package's /burnlink/) the links keep it
	assert.ok(j.secretUrl.startsWith(`http://localhost:${u.port}${u.pathname.replace(/\/+$/, '')}/secret/`), j.secretUrl);
});

test('create tolerates a query string and Content-Type with charset / odd case', async () => {
	let r = await api(srv, 'POST', '/api/secrets?x=1', { json: { text: 'q' } });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'POST', '/api/secrets', { json: { text: 'q' }, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
	assert.equal(r.status, 200, r.text);
	r = await api(srv, 'POST', '/api/secrets', { json: { text: 'q' }, headers: { 'Content-Type': 'Application/JSON' } });
	assert.equal(r.status, 200, `media types are case-insensitive: ${r.text}`);
	r = await api(srv, 'POST', '/api/secrets', { json: { text: 'q' }, headers: { 'Content-Type': 'application/json;charset=UTF-8' } });
	assert.equal(r.status, 200, r.text);
});

test('duplicate JSON keys: accepted (one of the values) or INVALID_JSON', async () => {
	const t0 = Date.now();
	const r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"a","ttl":1800,"ttl":3600}', headers: { 'Content-Type': 'application/json' } });
	const t1 = Date.now();
	if (r.status === 200) {
		// expiresAt is ttl after a moment between the request's start and its answer
		const at = Date.parse(r.json.metadata.expiresAt);
		const one = (ttl) => at >= t0 + ttl - 1000 && at <= t1 + ttl + 1000;
		assert.ok(one(1800e3) || one(3600e3), r.json.metadata.expiresAt);
	} else assertError(r, 400, 'INVALID_JSON');
});

test('JSON with a BOM, whitespace, nested depth', async () => {
	let r = await api(srv, 'POST', '/api/secrets', { body: '  \n {"text":"a"}  \n', headers: { 'Content-Type': 'application/json' } });
	assert.equal(r.status, 200, `surrounding whitespace is valid JSON: ${r.text}`);
	r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"a","x":' + '['.repeat(10000) + ']'.repeat(10000) + '}', headers: { 'Content-Type': 'application/json' } });
	assert.ok(r.status === 200 || r.status === 400, `deep nesting answered: ${r.status}`);
	if (r.status === 400) assert.equal(r.json.code, 'INVALID_JSON');
	r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"\\ud83d\\udd10 escaped"}', headers: { 'Content-Type': 'application/json' } });
	assert.equal(r.status, 200, r.text);
	const g = await retrieve(srv, r.json.metadata.secretKey);
	assert.equal(decrypt(fragmentKey(r.json.secretUrl).key, g.json.text).toString(), '🔐 escaped');
	r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"\\ud83d lone"}', headers: { 'Content-Type': 'application/json' } });
	assert.ok(r.status === 200 || r.status === 400, `lone surrogate answered: ${r.status}`);
	r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"a",}', headers: { 'Content-Type': 'application/json' } });
	assertError(r, 400, 'INVALID_JSON', 'trailing comma');
	r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"a"} x', headers: { 'Content-Type': 'application/json' } });
	assertError(r, 400, 'INVALID_JSON', 'trailing garbage');
});
