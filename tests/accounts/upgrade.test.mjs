// Schema version 3 (passwords, sessions) over a version-2 database: upgraded in
// place on first use, accounts, keys and secrets kept.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';
import { accountsContext, Browser, admin, createWithKey, PASSWORD } from './helpers.mjs';

test('a version-2 database is upgraded to the current version in place; accounts, keys and secrets are kept', async () => {
	const ctx = accountsContext();
	const v2 = oldSchema('sqlite', 2);
	const key = 'bl_' + crypto.randomBytes(32).toString('base64url');
	const hash = crypto.createHash('sha256').update(key).digest('hex');
	ctx.sql(`PRAGMA journal_mode=WAL; ${v2}
		INSERT INTO accounts (name, created_at) VALUES ('old@example.org', 1);
		INSERT INTO api_keys (account_id, key_hash, prefix, label, created_at) VALUES (1, x'${hash}', '${key.slice(0, 11)}', 'old', 1);
		INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, account_id, text_ct) VALUES
			(x'${'11'.repeat(32)}', x'${'22'.repeat(32)}', 1, ${Date.now() + 3600e3}, 1, x'00');`);
	assert.equal(ctx.sql('PRAGMA user_version').trim(), '2');
	assert.equal((await createWithKey(ctx, key)).status, 200, 'the old key works');
	assert.equal(ctx.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
	assert.match(ctx.sql('.tables'), /account_passwords/);
	assert.match(ctx.sql('.tables'), /sessions/);
	assert.equal(admin(ctx, ['account', 'password', 'old@example.org'], PASSWORD + '\n').code, 0);
	const b = new Browser(ctx);
	assert.equal((await b.signin('old@example.org')).status, 200);
	const mine = (await b.req('mysecrets')).json.secrets;
	assert.equal(mine.length, 2, 'the old secret and the new one');
});

test('a version-5 database gets version 6 (sessions.via, the second factor\'s tables); a live session stays signed in', async () => {
	const ctx = accountsContext();
	const v5 = oldSchema('sqlite', 5);	// schema.sql of 5dd8e7a, the last version 5
	assert.ok(!/\bvia\b/.test(v5), 'the version-5 sessions table');
	const sid = crypto.randomBytes(32).toString('base64url');
	const hash = crypto.createHash('sha256').update(sid).digest('hex');
	ctx.sql(`PRAGMA journal_mode=WAL; ${v5}
		INSERT INTO accounts (name, created_at) VALUES ('five@example.org', 1);
		INSERT INTO sessions (session_hash, account_id, created_at, seen_at) VALUES (x'${hash}', 1, ${Date.now()}, ${Date.now()});`);
	const b = new Browser(ctx);
	b.cookies.set('__Host-burnlink_session', sid);
	const me = await b.me();
	assert.equal(me.json.signedIn, true, me.body.toString());
	assert.equal(me.json.via, 'password');
	assert.equal(ctx.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
	assert.match(ctx.sql('SELECT group_concat(name) FROM pragma_table_info(\'sessions\')'), /\bvia\b/);
	assert.match(ctx.sql('.tables'), /account_totp/);
	assert.match(ctx.sql('.tables'), /account_recovery/);
});

test('a version-6 database gets version 7 (the audit trail\'s table); its account signs in, and the event is recorded', async () => {
	const ctx = accountsContext();
	const v6 = oldSchema('sqlite', 6);	// schema.sql of ad17c37, the last version 6
	assert.ok(!/audit_events/.test(v6), 'the version-6 schema has no audit trail');
	// a fresh version-6 database: its CREATE TABLEs have every column, so the
	// ALTER TABLE lines for older ones are left out (the programs skip them there too)
	ctx.sql(`PRAGMA journal_mode=WAL; ${v6.replace(/^ALTER TABLE .*$/gm, '')} PRAGMA user_version = 6;`);
	let r = admin(ctx, ['account', 'create', 'six@example.org']);
	assert.equal(r.code, 0, r.stderr);
	assert.equal(ctx.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
	r = admin(ctx, ['account', 'password', 'six@example.org'], `${PASSWORD}\n`);
	assert.equal(r.code, 0, r.stderr);
	const b = new Browser(ctx);
	assert.equal((await b.signin('six@example.org')).status, 200);
	assert.match(ctx.sql('SELECT group_concat(kind) FROM audit_events'), /account\.created.*account\.password_changed.*account\.signed_in/);
});

test('a version-6 database gets version 7 (accounts.admin, disabled_at, deleted_at); a live session and an API key keep working', async () => {
	const ctx = accountsContext();
	// schema.sql of ad17c37, the last version 6; its ALTER TABLE lines are the
	// programs' to run where a column is missing (the CREATE TABLEs have them)
	const v6 = oldSchema('sqlite', 6).replace(/^ALTER TABLE .*$/gm, '');
	assert.ok(!/\bdisabled_at\b/.test(v6), 'the version-6 accounts table');
	const sid = crypto.randomBytes(32).toString('base64url');
	const hash = crypto.createHash('sha256').update(sid).digest('hex');
	const key = 'bl_' + crypto.randomBytes(32).toString('base64url');
	const khash = crypto.createHash('sha256').update(key).digest('hex');
	ctx.sql(`PRAGMA journal_mode=WAL; ${v6}
		INSERT INTO accounts (name, created_at) VALUES ('six@example.org', 1);
		INSERT INTO api_keys (account_id, key_hash, prefix, label, created_at) VALUES (1, x'${khash}', '${key.slice(0, 11)}', 'old', 1);
		INSERT INTO sessions (session_hash, account_id, created_at, seen_at) VALUES (x'${hash}', 1, ${Date.now()}, ${Date.now()});
		PRAGMA user_version = 6;`);
	const b = new Browser(ctx);
	b.cookies.set('__Host-burnlink_session', sid);
	const me = await b.me();
	assert.equal(me.json.signedIn, true, me.body.toString());
	assert.equal(ctx.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
	const cols = ctx.sql('SELECT group_concat(name) FROM pragma_table_info(\'accounts\')');
	for (const c of ['admin', 'disabled_at', 'deleted_at']) assert.match(cols, new RegExp(`\\b${c}\\b`));
	assert.equal(ctx.sql('SELECT admin, disabled_at IS NULL FROM accounts').trim(), '0|1');
	assert.equal((await createWithKey(ctx, key)).status, 200, 'the old key works');
	assert.equal(admin(ctx, ['account', 'disable', 'six@example.org']).code, 0);
	assert.equal((await createWithKey(ctx, key)).status, 401);
});
