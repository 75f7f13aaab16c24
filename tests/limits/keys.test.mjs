// API keys and accounts through burnlink-admin, attribution of secrets, 401s,
// the per-account key limit, and the upgrade of a version-1 database.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { newCtx, cgi, admin, sql, rl, windowOf, secretsCount, seed, slow, inOneWindow, assertRetryAfter } from './helpers.mjs';

const HOUR = 3600;

function newAccount(ctx, name) {
	const r = admin(ctx, '--json', 'account', 'create', name);
	assert.equal(r.code, 0, r.stderr);
	return r.json;
}

function issue(ctx, account, label) {
	const args = ['--json', 'key', 'issue', String(account)];
	if (label) args.push('--label', label);
	const r = admin(ctx, ...args);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.json.key, /^bl_[A-Za-z0-9_-]{43}$/);
	return r.json;
}

test('admin: --help, accounts, exit codes', () => {
	const ctx = newCtx();
	const h = admin(ctx, '--help');
	assert.equal(h.code, 0);
	assert.match(h.stdout, /account create NAME/);
	assert.match(h.stdout, /key revoke KEY/);
	assert.match(h.stdout, /Exit status/);
	assert.equal(admin(ctx).code, 2);
	assert.equal(admin(ctx, 'frobnicate').code, 2);
	assert.equal(admin(ctx, 'account', 'create').code, 2);
	assert.equal(admin(ctx, 'account', 'create', 'bad\tname').code, 2);
	assert.equal(admin(ctx, 'account', 'create', 'x'.repeat(129)).code, 2);

	const a = newAccount(ctx, 'alice@example.com');
	assert.equal(a.id, 1);
	assert.equal(a.name, 'alice@example.com');
	const dup = admin(ctx, 'account', 'create', 'alice@example.com');
	assert.equal(dup.code, 4);
	assert.match(dup.stderr, /exists/);
	newAccount(ctx, 'bob');
	const list = admin(ctx, '--json', 'account', 'list');
	assert.deepEqual(list.json.map((x) => x.name), ['alice@example.com', 'bob']);
	const text = admin(ctx, 'account', 'list');
	assert.match(text.stdout, /alice@example\.com/);
	const missing = admin(ctx, 'account', 'show', 'nobody');
	assert.equal(missing.code, 3);
	assert.match(missing.stderr, /not found/);
	assert.equal(admin(ctx, 'key', 'issue', 'nobody').code, 3);
	assert.equal(admin(ctx, 'key', 'revoke', '999').code, 3);
	assert.equal(admin(ctx, 'usage', 'bob').code, 0);
	assert.equal(admin(ctx, 'limits', 'show', '--ip', 'not-an-ip').code, 2);
	assert.equal(admin(ctx, 'limits', 'set', '--ip', '192.0.2.1', '--op', 'create').code, 2);
});

test('a key is shown once, stored only as SHA-256, listed by prefix', () => {
	const ctx = newCtx();
	const a = newAccount(ctx, 'carol');
	const plain = admin(ctx, 'key', 'issue', 'carol', '--label', 'ci');
	assert.equal(plain.code, 0, plain.stderr);
	const key = plain.stdout.trim();
	assert.match(key, /^bl_[A-Za-z0-9_-]{43}$/, 'stdout is the key alone');
	assert.match(plain.stderr, /shown only this once/);
	const row = sql(ctx.db, 'SELECT hex(key_hash), prefix, label, account_id FROM api_keys');
	assert.equal(row, `${crypto.createHash('sha256').update(key).digest('hex').toUpperCase()}|${key.slice(0, 11)}|ci|${a.id}`);
	for (const f of fs.readdirSync(ctx.dir))
		assert.ok(!fs.readFileSync(path.join(ctx.dir, f)).includes(key.slice(3)), `${f} holds the key`);
	const list = admin(ctx, '--json', 'key', 'list', 'carol');
	assert.equal(list.json.length, 1);
	assert.equal(list.json[0].prefix, key.slice(0, 11));
	assert.equal(list.json[0].lastUsedAt, null);
	assert.equal(list.json[0].revokedAt, null);
	assert.ok(!JSON.stringify(list.json).includes(key));
});

test('create with a key is attributed to its account; last use is recorded', () => inOneWindow(HOUR, async () => {
	const ctx = newCtx();
	const a = newAccount(ctx, 'dave');
	const k = issue(ctx, 'dave');
	const t0 = Date.now();
	const r = await cgi(ctx, 'create', { auth: `Bearer ${k.key}`, body: { text: 'attributed' } });
	const t1 = Date.now();
	assert.equal(r.status, 200, r.body.toString());
	assert.equal(sql(ctx.db, 'SELECT account_id FROM secrets'), String(a.id));
	// anonymous: no header, and another scheme (a server's own Basic auth) is ignored
	const anon = await cgi(ctx, 'create', { body: { text: 'anon' } });
	const basic = await cgi(ctx, 'create', { auth: 'Basic dXNlcjpwYXNz', body: { text: 'anon' } });
	assert.equal(anon.status, 200);
	assert.equal(basic.status, 200);
	assert.equal(sql(ctx.db, 'SELECT count(*) FROM secrets WHERE account_id IS NULL'), '2');
	const used = admin(ctx, '--json', 'key', 'list');
	// the keyed create's moment (whole seconds or ms: a second either side), not "within a minute of now"
	const usedAt = Date.parse(used.json[0].lastUsedAt);
	assert.ok(usedAt >= t0 - 1000 && usedAt <= t1 + 1000, `last use recorded: ${used.json[0].lastUsedAt}`);
	const u = admin(ctx, '--json', 'usage', 'dave');
	assert.equal(u.json.secrets, 1);
	assert.equal(u.json.activeSecrets, 1);
	assert.equal(u.json.activeKeys, 1);
	assert.equal(u.json.windows.find((w) => w.window === 'key-hour').count, 1);
	// lower-case scheme and surrounding blanks are accepted
	const lc = await cgi(ctx, 'create', { auth: `  bearer   ${k.key}  `, body: { text: 'x' } });
	assert.equal(lc.status, 200);
}));

test('malformed, unknown and revoked keys are 401 INVALID_API_KEY, counted, nothing created', () => inOneWindow(HOUR, async () => {
	const ctx = newCtx();
	newAccount(ctx, 'erin');
	const k = issue(ctx, 'erin');
	const unknown = 'bl_' + crypto.randomBytes(32).toString('base64url');
	const cases = ['Bearer', 'Bearer abc', `Bearer ${k.key}x`, `Bearer ${unknown}`, k.key.slice(0, 20)];
	let expect = 999;
	for (const auth of cases) {
		const r = await cgi(ctx, 'create', { auth, body: { text: 'x' } });
		assert.equal(r.status, 401, auth);
		assert.equal(r.json.code, 'INVALID_API_KEY');
		assert.equal(rl(r).remaining, expect--, 'the IP limit was counted first');
	}
	const rev = admin(ctx, 'key', 'revoke', String(k.id));
	assert.equal(rev.code, 0, rev.stderr);
	assert.match(rev.stdout, /revoked key/);
	const r = await cgi(ctx, 'create', { auth: `Bearer ${k.key}`, body: { text: 'x' } });
	assert.equal(r.status, 401);
	assert.equal(r.json.code, 'INVALID_API_KEY');
	assert.match(r.json.hint, /revoked/);
	assert.equal(secretsCount(ctx), 0);
	// revoked keys stay listed; revoking again is harmless; revoke by the whole key works
	const again = admin(ctx, 'key', 'revoke', k.key);
	assert.equal(again.code, 0);
	assert.match(again.stdout, /already revoked/);
	const list = admin(ctx, '--json', 'key', 'list');
	assert.ok(list.json[0].revokedAt);
	// the header is ignored on metadata, retrieve and burn
	const m = await cgi(ctx, 'metadata', { key: 'A'.repeat(22), auth: 'Bearer nonsense' });
	assert.equal(m.status, 404);
}));

test('the API-key limit: 1000 per hour shared by all keys of an account', () => inOneWindow(HOUR, async () => {
	const ctx = newCtx();
	const a = newAccount(ctx, 'frank');
	const k1 = issue(ctx, 'frank', 'one');
	const k2 = issue(ctx, 'frank', 'two');
	newAccount(ctx, 'grace');
	const k3 = issue(ctx, 'grace');
	const set = admin(ctx, 'limits', 'set', '--account', 'frank', '--window', 'key-hour', '--count', '998');
	assert.equal(set.code, 0, set.stderr);
	const [, hourEnd] = windowOf(HOUR);

	const r999 = await cgi(ctx, 'create', { auth: `Bearer ${k1.key}`, body: { text: '999' } });
	assert.equal(r999.status, 200);
	assert.deepEqual([rl(r999).limit, rl(r999).remaining, rl(r999).reset], [1000, 1, hourEnd],
		'the key window is the tightest');
	const r1000 = await cgi(ctx, 'create', { auth: `Bearer ${k2.key}`, body: { text: '1000' } });
	assert.equal(r1000.status, 200);
	assert.deepEqual([rl(r1000).limit, rl(r1000).remaining, rl(r1000).reset], [1000, 0, hourEnd]);
	const t0 = Date.now();
	const r1001 = await cgi(ctx, 'create', { auth: `Bearer ${k1.key}`, body: { text: '1001' } });
	assert.equal(r1001.status, 429);
	assert.equal(r1001.json.code, 'RATE_LIMIT_EXCEEDED');
	assert.deepEqual([rl(r1001).limit, rl(r1001).remaining, rl(r1001).reset], [1000, 0, hourEnd]);
	assertRetryAfter(assert, r1001.headers['retry-after'], hourEnd, t0);
	assert.equal(secretsCount(ctx), 2);
	assert.equal(sql(ctx.db, `SELECT count(*) FROM secrets WHERE account_id = ${a.id}`), '2');

	// another account, and anonymous creation from the same address, go on
	assert.equal((await cgi(ctx, 'create', { auth: `Bearer ${k3.key}`, body: { text: 'g' } })).status, 200);
	assert.equal((await cgi(ctx, 'create', { body: { text: 'anon' } })).status, 200);

	// the window that ended does not count: last hour full, this hour reset by the operator
	const aid = String(a.id);
	seed(ctx, 'apikey:hour', aid, hourEnd - 2 * HOUR, HOUR, 5000);
	assert.equal(admin(ctx, 'limits', 'reset', '--account', 'frank').code, 0);
	const fresh = await cgi(ctx, 'create', { ip: '192.0.2.200', auth: `Bearer ${k2.key}`, body: { text: 'next hour' } });
	assert.equal(fresh.status, 200);
	assert.equal(rl(fresh).limit, 1000);
	assert.equal(rl(fresh).remaining, 999, 'the IP day and the key hour both have 999 left');
	const show = admin(ctx, '--json', 'limits', 'show', '--account', 'frank');
	assert.equal(show.json.windows.find((w) => w.window === 'key-hour').count, 1);
}));

const PAR = slow ? 10 : 30;	// fewer under valgrind (the 5 s busy timeout)

test(`concurrency at the key limit: ${PAR} parallel creates at ${1000 - PAR / 2} → exactly ${PAR / 2} created`, () => inOneWindow(HOUR, async () => {
	const ctx = newCtx();
	newAccount(ctx, 'heidi');
	const k = issue(ctx, 'heidi');
	admin(ctx, 'limits', 'set', '--account', 'heidi', '--window', 'key-hour', '--count', String(1000 - PAR / 2));
	const res = await Promise.all(Array.from({ length: PAR }, (_, i) =>
		cgi(ctx, 'create', { ip: `192.0.2.${i}`, auth: `Bearer ${k.key}`, body: { text: `p${i}` } })));
	assert.equal(res.filter((r) => r.status === 200).length, PAR / 2);
	assert.equal(res.filter((r) => r.status === 429).length, PAR / 2);
	assert.equal(secretsCount(ctx), PAR / 2);
}));

test('a version-1 database is upgraded in place (accounts, api_keys), its secrets kept', () => inOneWindow(HOUR, async () => {
	const ctx = newCtx();
	sql(ctx.db, fs.readFileSync(new URL('./schema-v1.sql', import.meta.url), 'utf8'));
	sql(ctx.db, `PRAGMA journal_mode=WAL; INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv)
		VALUES (x'${'11'.repeat(32)}', x'${'22'.repeat(32)}', 1, ${Date.now() + 3600e3}, x'00', NULL)`);
	assert.equal(sql(ctx.db, 'PRAGMA user_version'), '1');
	const r = await cgi(ctx, 'create', { body: { text: 'after upgrade' } });
	assert.equal(r.status, 200, r.body.toString());
	assert.ok(Number(sql(ctx.db, 'PRAGMA user_version')) >= 2, 'upgraded');
	assert.equal(secretsCount(ctx), 2);
	assert.match(sql(ctx.db, '.tables'), /api_keys/);
	newAccount(ctx, 'ivan');
	const k = issue(ctx, 'ivan');
	assert.equal((await cgi(ctx, 'create', { auth: `Bearer ${k.key}`, body: { text: 'k' } })).status, 200);
}));
