// api.test.mjs: every endpoint and every error class, through the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { webcrypto, createHash } from 'node:crypto';
import {
	KIND, start, api, assertError, create, encrypt, decrypt, b64urlDecode,
	KEY_RE, UNKNOWN_KEY,
} from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

let srv;
before(async () => {
	srv = await start();
});
after(async () => {
	await srv?.stop();
});

test(`${KIND}: create (server-side) returns links under the address it was asked on`, async () => {
	const r = await api(srv, 'POST', '/api/secrets', { json: { text: 'hello  world\n', ttl: 3600, maxViews: 2 } });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.success, true);
	const { key, secretKey, expiresAt, maxViews } = r.body.metadata;
	assert.match(key, KEY_RE);
	assert.match(secretKey, KEY_RE);
	assert.notEqual(key, secretKey);
	assert.equal(maxViews, 2);
	// between the request's start and its answer, an hour on (whole seconds: a second either side)
	const exp = Date.parse(expiresAt);
	assert.ok(exp >= r.t0 + 3600e3 - 1000 && exp <= r.t1 + 3600e3 + 1000, `${expiresAt} not an hour after ${new Date(r.t0).toISOString()}..${new Date(r.t1).toISOString()}`);
	assert.match(r.body.secretUrl, new RegExp(`^${srv.base}/secret/${secretKey}#key=[A-Za-z0-9_-]{43}$`));
	assert.equal(r.body.metadataUrl, `${srv.base}/receipt/${key}`);
	assert.match(r.res.headers.get('x-ratelimit-limit') || '', /^\d+$/);
});

test(`${KIND}: the whole life of a client-side secret: metadata, retrieve, exhausted`, async () => {
	const raw = webcrypto.getRandomValues(new Uint8Array(32));
	const text = await encrypt('  exact\ttext  \n', raw);
	const c = await create(srv, { text, maxViews: 1 });
	assert.ok(!c.secretUrl.includes('#'));
	const sk = c.metadata.secretKey;

	let r = await api(srv, 'GET', `/api/secrets/${sk}`);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.exists, true);
	assert.equal(r.body.type, 'secret');
	assert.equal(r.body.viewsRemaining, 1);

	r = await api(srv, 'GET', `/api/secrets/${c.metadata.key}`);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.type, 'receipt');
	assert.equal(r.body.state, 'active');
	assert.equal(r.body.viewCount, 0);
	assert.ok(!JSON.stringify(r.body).includes(sk), 'the receipt never shows the secretKey');

	r = await api(srv, 'POST', `/api/secrets/${sk}`, { json: {} });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.success, true);
	assert.equal(r.body.viewsRemaining, 0);
	assert.equal(await decrypt(r.body.text, raw), '  exact\ttext  \n');

	r = await api(srv, 'POST', `/api/secrets/${sk}`, { json: {} });
	assertError(r, 410, 'MAX_VIEWS_REACHED');
	r = await api(srv, 'GET', `/api/secrets/${c.metadata.key}`);
	assert.equal(r.body.state, 'exhausted');
});

test(`${KIND}: server-side text decrypts with the key from the link fragment`, async () => {
	const c = await create(srv, { text: 'über secret', maxViews: null });
	const k = b64urlDecode(new URL(c.secretUrl).hash.slice('#key='.length));
	const r = await api(srv, 'POST', `/api/secrets/${c.metadata.secretKey}`, { body: '', headers: { 'Content-Type': 'application/json' } });
	assert.equal(r.status, 200, r.text);
	assert.equal(await decrypt(r.body.text, k), 'über secret');
	assert.equal(r.body.viewsRemaining, null);
});

test(`${KIND}: burn with the receipt key, then 410 SECRET_BURNED`, async () => {
	const c = await create(srv);
	let r = await api(srv, 'DELETE', `/api/secrets/${c.metadata.key}`);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.body, { success: true, state: 'burned' });
	r = await api(srv, 'POST', `/api/secrets/${c.metadata.secretKey}`, { json: {} });
	assertError(r, 410, 'SECRET_BURNED');
	r = await api(srv, 'GET', `/api/secrets/${c.metadata.secretKey}`);
	assertError(r, 410, 'SECRET_BURNED');
	r = await api(srv, 'DELETE', `/api/secrets/${c.metadata.key}`);
	assertError(r, 410, 'SECRET_BURNED');
});

test(`${KIND}: burning by secretKey when the sender forbade it: 403 DELETION_NOT_ALLOWED`, async () => {
	const c = await create(srv, { deletable: false });
	const r = await api(srv, 'DELETE', `/api/secrets/${c.metadata.secretKey}`);
	assertError(r, 403, 'DELETION_NOT_ALLOWED');
	const m = await api(srv, 'GET', `/api/secrets/${c.metadata.secretKey}`);
	assert.equal(m.body.exists, true);
});

test(`${KIND}: passphrase: 403 INVALID_PASSPHRASE, then 429 TOO_MANY_ATTEMPTS with Retry-After`, () => inOneWindow(60, async () => {
	// Attempts count per clock minute (docs/API.md, "Passphrases"): a run that
	// straddles a minute's end runs again, once; within one minute the 6th
	// attempt is refused even with the right passphrase.
	const c = await create(srv, { passphrase: 'correct horse' });
	const sk = c.metadata.secretKey;
	for (let i = 0; i < 5; i++) {
		const r = await api(srv, 'POST', `/api/secrets/${sk}`, { json: { passphrase: 'wrong' } });
		assertError(r, 403, 'INVALID_PASSPHRASE');
	}
	const r = await api(srv, 'POST', `/api/secrets/${sk}`, { json: { passphrase: 'correct horse' } });
	assertError(r, 429, 'TOO_MANY_ATTEMPTS');
	assert.match(r.res.headers.get('retry-after') || '', /^\d+$/);
}));

test(`${KIND}: the right passphrase opens a protected secret`, async () => {
	const c = await create(srv, { passphrase: 'open sesame' });
	const r = await api(srv, 'POST', `/api/secrets/${c.metadata.secretKey}`, { json: { passphrase: 'open sesame' } });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.success, true);
});

test(`${KIND}: 400 INVALID_* for bad fields`, async () => {
	for (const [json, code] of [
		[{ text: 'x', ttl: 60 }, 'INVALID_TTL'],
		[{ text: 'x', maxViews: 0 }, 'INVALID_MAX_VIEWS'],
		[{ text: 'x', passphrase: 'abc' }, 'INVALID_PASSPHRASE_FORMAT'],
		[{ text: '' }, 'INVALID_CONTENT'],
		[{ text: { ciphertext: 'AAAA', iv: 'short' } }, /^INVALID_(IV|CIPHERTEXT)$/],
		[[1, 2], 'INVALID_JSON'],
	]) {
		const r = await api(srv, 'POST', '/api/secrets', { json });
		assertError(r, 400, code);
	}
	const r = await api(srv, 'POST', '/api/secrets', { body: '{"text":', headers: { 'Content-Type': 'application/json' } });
	assertError(r, 400, 'INVALID_JSON');
});

test(`${KIND}: 401 INVALID_API_KEY: the Authorization header reaches the program`, async () => {
	const r = await api(srv, 'POST', '/api/secrets', {
		json: { text: 'x' }, headers: { Authorization: 'Bearer bl_notAKeyThatExistsAnywhere0000000000000000000' },
	});
	assertError(r, 401, 'INVALID_API_KEY');
	const ok = await api(srv, 'POST', '/api/secrets', { json: { text: 'x' } });
	assert.equal(ok.status, 200);
});

test(`${KIND}: 404 NOT_FOUND for unknown keys, for every method`, async () => {
	for (const m of ['GET', 'POST', 'DELETE']) {
		const r = await api(srv, m, `/api/secrets/${UNKNOWN_KEY}`, m === 'POST' ? { json: {} } : {});
		assertError(r, 404, 'NOT_FOUND');
	}
});

test(`${KIND}: 410 SECRET_EXPIRED once expiresAt has passed`, async () => {
	const c = await create(srv, { ttl: 1800 });
	// Move this secret's expiry into the past (the database knows keys by their SHA-256).
	const hash = createHash('sha256').update(c.metadata.secretKey).digest('hex');
	execFileSync('sqlite3', [srv.db, `PRAGMA busy_timeout=5000; UPDATE secrets SET expires_at = ${Date.now() - 1000} WHERE secret_hash = x'${hash}';`]);
	const r = await api(srv, 'POST', `/api/secrets/${c.metadata.secretKey}`, { json: {} });
	// Expired content is deleted by the first request after expiry (410) or by cleanup (404).
	assert.ok(r.status === 410 || r.status === 404, r.text);
	if (r.status === 410) assertError(r, 410, 'SECRET_EXPIRED');
});

test(`${KIND}: 415 UNSUPPORTED_MEDIA_TYPE for a body that is not declared JSON`, async () => {
	let r = await api(srv, 'POST', '/api/secrets', { body: '{"text":"x"}', headers: { 'Content-Type': 'text/plain' } });
	assertError(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
	r = await api(srv, 'POST', '/api/secrets', { body: 'text=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
	assertError(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
});

test(`${KIND}: 503 when the data directory cannot be written`, async (t) => {
	const s = await start();
	try {
		if (s.user === 'root') {
			t.skip('the programs run as root, which can write anything');
			return;
		}
		fs.chmodSync(path.dirname(s.db), 0o500);
		const r = await api(s, 'POST', '/api/secrets', { json: { text: 'x' } });
		assertError(r, 503, /^(STORE_UNAVAILABLE|RATE_LIMIT_UNAVAILABLE)$/);
		assert.match(r.res.headers.get('retry-after') || '', /^\d+$/);
	} finally {
		await s.stop();
	}
});
