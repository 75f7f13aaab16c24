// API keys from the dashboard (/api/keys): create (shown once), list, use with
// POST /secrets, revoke → 401; one account cannot see or revoke another's keys.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError, checkCommonHeaders } from '../lib/cgi.mjs';
import { accountsContext, Browser, signedUp, createWithKey } from './helpers.mjs';

test('create a named key: shown once, only its SHA-256 stored', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const res = await b.req('keys', { method: 'POST', body: { name: 'CI deploys' } });
	assert.equal(res.status, 200, res.body.toString());
	checkCommonHeaders(assert, res);
	assert.match(res.headers['x-ratelimit-limit'], /^\d+$/);
	assert.equal(res.json.success, true);
	assert.match(res.json.key, /^bl_[A-Za-z0-9_-]{43}$/);
	const k = res.json.apiKey;
	assert.equal(k.name, 'CI deploys');
	assert.equal(k.prefix, res.json.key.slice(0, 11));
	assert.equal(k.active, true);
	assert.equal(k.lastUsedAt, null);
	assert.equal(k.revokedAt, null);
	assert.match(k.createdAt, /Z$/);
	const { createHash } = await import('node:crypto');
	assert.equal(ctx.sql('SELECT hex(key_hash) FROM api_keys').trim(),
		createHash('sha256').update(res.json.key).digest('hex').toUpperCase());
	// The list never shows the key again.
	const list = await b.req('keys');
	assert.equal(list.status, 200);
	assert.deepEqual(list.json.keys, [k]);
	assert.ok(!list.body.toString().includes(res.json.key));
});

test('key → POST /secrets works and is attributed → revoke → 401 INVALID_API_KEY', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const { key, apiKey } = (await b.req('keys', { method: 'POST', body: { name: 'cli' } })).json;
	const made = await createWithKey(ctx, key);
	assert.equal(made.status, 200, made.body.toString());
	assert.equal(ctx.sql(`SELECT account_id FROM secrets`).trim(), String(b.account.id));
	const listed = (await b.req('keys')).json.keys[0];
	assert.match(listed.lastUsedAt, /Z$/, 'last used is recorded');

	const rev = await b.req('keys', { method: 'DELETE', pathInfo: `/${apiKey.id}` });
	assert.equal(rev.status, 200, rev.body.toString());
	assert.equal(rev.json.success, true);
	assert.equal(rev.json.apiKey.active, false);
	assert.match(rev.json.apiKey.revokedAt, /Z$/);
	checkError(assert, await createWithKey(ctx, key), 401, 'INVALID_API_KEY');
	// Revoked keys stay listed, marked; revoking again is 404.
	assert.equal((await b.req('keys')).json.keys[0].active, false);
	checkError(assert, await b.req('keys', { method: 'DELETE', pathInfo: `/${apiKey.id}` }), 404, 'NOT_FOUND');
});

test('another account cannot list or revoke the keys', async () => {
	const ctx = accountsContext();
	const alice = await signedUp(ctx, 'alice@example.org');
	const bob = await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.30' });
	const { key, apiKey } = (await alice.req('keys', { method: 'POST', body: { name: 'mine' } })).json;
	assert.deepEqual((await bob.req('keys')).json.keys, []);
	const res = await bob.req('keys', { method: 'DELETE', pathInfo: `/${apiKey.id}` });
	checkError(assert, res, 404, 'NOT_FOUND');
	assert.equal((await createWithKey(ctx, key)).status, 200, 'the key still works');
	checkError(assert, await bob.req('keys', { method: 'DELETE', pathInfo: '/999999' }), 404, 'NOT_FOUND');
});

test('keys need a session: 401 NOT_SIGNED_IN; names are checked; methods', async () => {
	const ctx = accountsContext();
	const anon = new Browser(ctx);
	checkError(assert, await anon.req('keys'), 401, 'NOT_SIGNED_IN');
	checkError(assert, await anon.req('keys', { method: 'POST', body: { name: 'x' } }), 401, 'NOT_SIGNED_IN');
	checkError(assert, await anon.req('keys', { method: 'DELETE', pathInfo: '/1' }), 401, 'NOT_SIGNED_IN');
	const b = await signedUp(ctx, 'alice@example.org');
	for (const name of ['', 'x'.repeat(129), 'tab\there', 'nel\u0085', 'csi\u009b', 'del\u007f', 42, null])
		checkError(assert, await b.req('keys', { method: 'POST', body: { name } }), 400, 'INVALID_NAME');
	checkError(assert, await b.req('keys', { method: 'POST', body: {} }), 400, 'INVALID_NAME');
	assert.equal((await b.req('keys', { method: 'POST', body: { name: 'x'.repeat(128) } })).status, 200);
	assert.equal((await b.req('keys', { method: 'POST', body: { name: 'ключ 🔑' } })).json.apiKey.name, 'ключ 🔑');
	assert.equal((await b.req('keys', { method: 'POST', body: { name: 'ä\u00a0é' } })).status, 200, 'U+00A0 and Latin-1 letters are no controls');
	let r = await b.req('keys', { method: 'PUT' });
	checkError(assert, r, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(r.headers.allow, 'GET, HEAD, POST');
	r = await b.req('keys', { method: 'GET', pathInfo: '/1' });
	checkError(assert, r, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(r.headers.allow, 'DELETE');
	for (const p of ['/0', '/01', '/abc', '/1/2', '/-1', '/99999999999999999999'])
		checkError(assert, await b.req('keys', { method: 'DELETE', pathInfo: p }), 404, 'NOT_FOUND');
});

test('at most 100 valid keys per account: 409 KEY_LIMIT_REACHED', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const id = b.account.id;
	ctx.sql(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
		INSERT INTO api_keys (account_id, key_hash, prefix, label, created_at)
		SELECT ${id}, randomblob(32), 'bl_xxxxxxxx', 'seeded ' || i, 0 FROM n`);
	checkError(assert, await b.req('keys', { method: 'POST', body: { name: 'one more' } }), 409, 'KEY_LIMIT_REACHED');
	const first = (await b.req('keys')).json.keys[0];
	assert.equal((await b.req('keys', { method: 'DELETE', pathInfo: `/${first.id}` })).status, 200);
	assert.equal((await b.req('keys', { method: 'POST', body: { name: 'one more' } })).status, 200);
});
