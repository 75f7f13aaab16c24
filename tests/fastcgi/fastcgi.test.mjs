// fastcgi.test.mjs: the programs as FastCGI responders behind lighttpd's
// mod_fastcgi (each process serves many requests with its database kept open):
// the same answers as under CGI, nothing carried from one request to the next,
// and secure deletion with a kept connection. One process per program, so
// every request after the first reuses a process and its connections.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFastcgi } from './server.mjs';
import { startServer, ROOT } from '../lib/server.mjs';
import { capture, opens, slotKey, problems } from '../lib/shred.mjs';
import { inOneWindow } from '../lib/counters.mjs';

let srv, dataDir, api;

before(async () => {
	srv = await startFastcgi();
	dataDir = srv.dataDir;
	api = srv.api;
});

after(async () => {
	if (srv) await srv.stop();
});

async function encrypt(text, raw) {
	const key = await webcrypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
	const iv = webcrypto.getRandomValues(new Uint8Array(12));
	const ct = await webcrypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text));
	return { ciphertext: Buffer.from(ct).toString('base64'), iv: Buffer.from(iv).toString('base64') };
}

async function decrypt(item, b64urlKey) {
	const raw = Buffer.from(b64urlKey.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
	const key = await webcrypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
	const pt = await webcrypto.subtle.decrypt({ name: 'AES-GCM', iv: Buffer.from(item.iv, 'base64') },
		key, Buffer.from(item.ciphertext, 'base64'));
	return new TextDecoder().decode(pt);
}

test('client-side: create, metadata, one view, then 410 MAX_VIEWS_REACHED', async () => {
	const item = await encrypt('fastcgi one-time', webcrypto.getRandomValues(new Uint8Array(32)));
	const c = await api('POST', '/api/secrets', { text: item });
	assert.equal(c.status, 200, c.text);
	assert.match(c.body.secretUrl, /^https:\/\/burnlink\.test\/secret\/[A-Za-z0-9_-]{22}$/);
	const k = c.body.metadata.secretKey;
	const m = await api('GET', `/api/secrets/${k}`);
	assert.equal(m.status, 200, m.text);
	assert.equal(m.body.viewsRemaining, 1);
	const r = await api('POST', `/api/secrets/${k}`);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.body.text, item);
	const again = await api('POST', `/api/secrets/${k}`);
	assert.equal(again.status, 410);
	assert.equal(again.body.code, 'MAX_VIEWS_REACHED');
	const receipt = await api('GET', `/api/secrets/${c.body.metadata.key}`);
	assert.equal(receipt.body.state, 'exhausted');
});

test('server-side with a passphrase: wrong and missing refused, right one decrypts', async () => {
	const c = await api('POST', '/api/secrets', { text: 'server side via fastcgi', passphrase: 'open sesame', maxViews: 2 });
	assert.equal(c.status, 200, c.text);
	const [, k, dkey] = c.body.secretUrl.match(/\/secret\/([A-Za-z0-9_-]{22})#key=([A-Za-z0-9_-]{43})$/);
	const none = await api('POST', `/api/secrets/${k}`);
	assert.equal(none.status, 403);
	assert.equal(none.body.code, 'INVALID_PASSPHRASE');
	const wrong = await api('POST', `/api/secrets/${k}`, { passphrase: 'wrong one' });
	assert.equal(wrong.status, 403);
	const ok = await api('POST', `/api/secrets/${k}`, { passphrase: 'open sesame' });
	assert.equal(ok.status, 200, ok.text);
	assert.equal(await decrypt(ok.body.text, dkey), 'server side via fastcgi');
	assert.equal(ok.body.viewsRemaining, 1);
});

test('nothing carries over: each answer has its own request id, limits and no earlier content', () => inOneWindow(86400, async () => {
	// the count is per UTC day: a run that straddles midnight runs again, once
	const c = await api('POST', '/api/secrets', { text: 'first request plaintext' });
	assert.equal(c.status, 200);
	const bad = await api('POST', '/api/secrets', '{"text": ');
	assert.equal(bad.status, 400);
	assert.equal(bad.body.code, 'INVALID_JSON');
	assert.ok(!bad.text.includes('first request'), bad.text);
	assert.ok(!bad.text.includes(c.body.metadata.secretKey));
	assert.notEqual(bad.body.requestId, c.headers.get('x-request-id'));
	const unknown = await api('GET', '/api/secrets/AAAAAAAAAAAAAAAAAAAAAA');
	assert.equal(unknown.status, 404);
	assert.equal(unknown.body.code, 'NOT_FOUND');
	for (const r of [c, bad, unknown]) {
		assert.match(r.headers.get('x-ratelimit-limit') || '', /^\d+$/);
		assert.equal(r.headers.get('cache-control'), 'no-store');
	}
	// A counter that only grows: the same process counted both creates.
	assert.ok(Number(bad.headers.get('x-ratelimit-remaining')) < Number(c.headers.get('x-ratelimit-remaining')));
}));

test('burn by receipt, then 410 SECRET_BURNED; 405 with Allow on another method', async () => {
	const c = await api('POST', '/api/secrets', { text: 'burn me' });
	const b = await api('DELETE', `/api/secrets/${c.body.metadata.key}`);
	assert.equal(b.status, 200, b.text);
	assert.deepEqual(b.body, { success: true, state: 'burned' });
	const m = await api('GET', `/api/secrets/${c.body.metadata.secretKey}`);
	assert.equal(m.status, 410);
	assert.equal(m.body.code, 'SECRET_BURNED');
	const put = await api('PUT', `/api/secrets/${c.body.metadata.secretKey}`);
	assert.equal(put.status, 405);
	assert.match(put.headers.get('allow') || '', /GET/);
});

// Gone for good (docs/SECURITY.md; the scan: tests/lib/shred.mjs): the content
// is sealed under a key of its own, which the deletion wipes before its batch
// commits.
test('secure deletion with kept connections: nothing in the data directory opens the content after the last view', async () => {
	const marker = Buffer.from(webcrypto.getRandomValues(new Uint8Array(48)));
	const item = { ciphertext: marker.toString('base64'), iv: Buffer.alloc(12, 7).toString('base64') };
	const c = await api('POST', '/api/secrets', { text: item });
	assert.equal(c.status, 200, c.text);
	const db = path.join(dataDir, 'burnlink.db');
	const cap = capture(db, c.body.metadata.secretKey);
	assert.ok(opens(slotKey(db, cap), cap.probe), 'control: the content is stored, sealed, and its key opens it');
	const r = await api('POST', `/api/secrets/${c.body.metadata.secretKey}`);
	assert.equal(r.status, 200);
	assert.deepEqual(problems(dataDir, [cap], [['sent', marker]]), []);
});

test('many requests in a row on the same processes', async () => {
	for (let i = 0; i < 30; i++) {
		const c = await api('POST', '/api/secrets', { text: `n${i}` });
		assert.equal(c.status, 200, c.text);
		const [, k, dkey] = c.body.secretUrl.match(/\/secret\/([A-Za-z0-9_-]{22})#key=([A-Za-z0-9_-]{43})$/);
		const r = await api('POST', `/api/secrets/${k}`);
		assert.equal(await decrypt(r.body.text, dkey), `n${i}`);
	}
});

// Group commit: one process per program here, so concurrent requests wait on
// its socket and are answered in batches sharing one commit (lib/fcgi.c).
// Each answer must still be what that request alone would have got.
test('concurrent creates, answered in batches: every secret stored once, with its own content', async () => {
	const n = 48;
	const made = await Promise.all(Array.from({ length: n }, (_, i) =>
		api('POST', '/api/secrets', { text: `batch secret ${i}`, maxViews: 1 })));
	const keys = new Set();
	for (const c of made) {
		assert.equal(c.status, 200, c.text);
		keys.add(c.body.metadata.secretKey);
	}
	assert.equal(keys.size, n, 'distinct keys');
	const got = await Promise.all(made.map(async (c) => {
		const [, k, dkey] = c.body.secretUrl.match(/\/secret\/([A-Za-z0-9_-]{22})#key=([A-Za-z0-9_-]{43})$/);
		const r = await api('POST', `/api/secrets/${k}`);
		assert.equal(r.status, 200, r.text);
		return decrypt(r.body.text, dkey);
	}));
	assert.deepEqual(got, Array.from({ length: n }, (_, i) => `batch secret ${i}`));
	const again = await Promise.all(made.map((c) => api('POST', `/api/secrets/${c.body.metadata.secretKey}`)));
	for (const r of again) assert.equal(r.status, 410, r.text);
});

test('50 concurrent retrieves of a maxViews:5 secret, batched: exactly 5 get it', async () => {
	const c = await api('POST', '/api/secrets', { text: 'five views only', maxViews: 5 });
	assert.equal(c.status, 200, c.text);
	const k = c.body.metadata.secretKey;
	const res = await Promise.all(Array.from({ length: 50 }, () => api('POST', `/api/secrets/${k}`)));
	const ok = res.filter((r) => r.status === 200);
	assert.equal(ok.length, 5, res.map((r) => r.status).join(' '));
	assert.deepEqual(ok.map((r) => r.body.viewsRemaining).sort(), [0, 1, 2, 3, 4]);
	for (const r of res.filter((x) => x.status !== 200)) assert.equal(r.body.code, 'MAX_VIEWS_REACHED');
	const m = await api('GET', `/api/secrets/${c.body.metadata.key}`);
	assert.equal(m.body.state, 'exhausted');
});

test('concurrent last views and burns, batched: nothing in the data directory opens their content', async () => {
	const markers = [];
	const made = [];
	const caps = [];
	const db = path.join(dataDir, 'burnlink.db');
	for (let i = 0; i < 16; i++) {
		const marker = Buffer.from(webcrypto.getRandomValues(new Uint8Array(48)));
		markers.push(['sent', marker]);
		const item = { ciphertext: marker.toString('base64'), iv: Buffer.alloc(12, 9).toString('base64') };
		const c = await api('POST', '/api/secrets', { text: item });
		assert.equal(c.status, 200, c.text);
		made.push(c);
		caps.push(capture(db, c.body.metadata.secretKey));
	}
	for (const cap of caps) assert.ok(opens(slotKey(db, cap), cap.probe), 'control');
	const res = await Promise.all(made.map((c, i) => (i % 2
		? api('POST', `/api/secrets/${c.body.metadata.secretKey}`)
		: api('DELETE', `/api/secrets/${c.body.metadata.key}`))));
	for (const r of res) assert.equal(r.status, 200, r.text);
	assert.deepEqual(problems(dataDir, caps, markers), []);
});

test('a large answer in a batch (over 1 MiB, sent as it is written) arrives whole, and the small ones around it too', async () => {
	const raw = webcrypto.getRandomValues(new Uint8Array(32));
	const big = await encrypt('x'.repeat(1536 * 1024), raw);
	const c = await api('POST', '/api/secrets', { text: big, maxViews: 3 });
	assert.equal(c.status, 200, c.text);
	const small = await Promise.all(Array.from({ length: 6 }, (_, i) => api('POST', '/api/secrets', { text: `around ${i}` })));
	for (const s of small) assert.equal(s.status, 200, s.text);
	const res = await Promise.all([
		...small.slice(0, 3).map((s) => api('POST', `/api/secrets/${s.body.metadata.secretKey}`)),
		api('POST', `/api/secrets/${c.body.metadata.secretKey}`),
		...small.slice(3).map((s) => api('POST', `/api/secrets/${s.body.metadata.secretKey}`)),
	]);
	for (const r of res) assert.equal(r.status, 200, r.text.slice(0, 200));
	assert.deepEqual(res[3].body.text, big);
	assert.equal(res[3].body.viewsRemaining, 2);
	const m = await api('GET', `/api/secrets/${c.body.metadata.secretKey}`);
	assert.equal(m.body.viewsRemaining, 2, 'the view was counted once');
});

test('deleting the counters file resets the counts, also for responders that had it open', () => inOneWindow(86400, async () => {
	// the count is per UTC day: a run that straddles midnight runs again, once
	const first = await api('POST', '/api/secrets', { text: 'count me' });
	const second = await api('POST', '/api/secrets', { text: 'count me too' });
	const left = Number(second.headers.get('x-ratelimit-remaining'));
	assert.equal(left, Number(first.headers.get('x-ratelimit-remaining')) - 1);
	fs.rmSync(path.join(dataDir, 'burnlink-counters'));
	const after = await api('POST', '/api/secrets', { text: 'counted afresh' });
	assert.equal(after.status, 200, after.text);
	assert.equal(Number(after.headers.get('x-ratelimit-remaining')), Number(after.headers.get('x-ratelimit-limit')) - 1);
	assert.ok(fs.existsSync(path.join(dataDir, 'burnlink-counters')), 'a new counters file');
}));

// Issue 29, item 12: a FastCGI responder reads DOCUMENT_ROOT from each
// request's parameters, as a CGI program does from its environment: a
// database under the document root is refused (503 CONFIG_INVALID).
test('a database under the document root: every request refused, the log names the file', async () => {
	const docroot = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-docroot-'));
	fs.chmodSync(docroot, 0o755);
	fs.copyFileSync(path.join(ROOT, 'www', 'robots.txt'), path.join(docroot, 'robots.txt'));
	fs.chmodSync(path.join(docroot, 'robots.txt'), 0o644);
	const s = await startServer({ server: 'lighttpd-fastcgi', wwwDir: docroot, db: path.join(docroot, 'x.sqlite') });
	try {
		for (let i = 0; i < 3; i++) {	// the kept responder too
			const r = await fetch(s.base + '/api/secrets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
			const j = await r.json();
			assert.equal(r.status, 503);
			assert.equal(j.code, 'CONFIG_INVALID');
		}
		assert.match(s.errorLog(), /files: the database \(.*x\.sqlite\) lies under the document root/);
	} finally {
		await s.stop();
		fs.rmSync(docroot, { recursive: true, force: true });
	}
});
