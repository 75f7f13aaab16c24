// Conformance: API keys (docs/API.md, Authentication): a valid key is
// accepted and attributes the secret; a revoked key → 401 INVALID_API_KEY; keys
// count 1000 per hour per account (X-RateLimit-* of the tightest window).
// Keys are issued with tools/burnlink-admin (the dashboard's job in docs/API.md).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { server, create, created, retrieve, assertError, assertRateHeaders } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const ADMIN = path.join(ROOT, 'tools', 'burnlink-admin');

let srv;
before(async () => {
	srv = await server();
	await created(srv, { text: 'warm up' });
});
after(async () => { await srv?.stop(); });

function admin(...args) {
	const dir = srv.db.replace(/[^/]+$/, '');
	return execFileSync(ADMIN, ['--db', srv.db, ...args], {
		encoding: 'utf8', env: { ...process.env, BURNLINK_DB: srv.db, BURNLINK_SECRET_FILE: dir + 'secret.key' },
	});
}

test('a valid API key creates; a revoked one is 401 INVALID_API_KEY', async (t) => {
	if (!srv.db || !fs.existsSync(ADMIN)) return t.skip('needs tools/burnlink-admin and the database');
	admin('account', 'create', 'judge@example.org');
	const out = admin('key', 'issue', 'judge@example.org');
	const key = /bl_[A-Za-z0-9_-]{43}/.exec(out)?.[0];
	assert.ok(key, `a key printed: ${out}`);
	const r = await create(srv, { text: 'attributed' }, { Authorization: `Bearer ${key}` });
	assert.equal(r.status, 200, r.text);
	assertRateHeaders(r, 'create with a key');
	assert.equal((await retrieve(srv, r.json.metadata.secretKey)).status, 200);
	admin('key', 'revoke', key);
	const rv = await create(srv, { text: 'x' }, { Authorization: `Bearer ${key}` });
	assertError(rv, 401, 'INVALID_API_KEY', 'revoked key');
	assertRateHeaders(rv, '401 revoked');
});
