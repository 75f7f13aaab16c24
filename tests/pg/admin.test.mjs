// admin.test.mjs: the admin role, disabled accounts and the operator's API
// (docs/API.md, "The operator's API") on PostgreSQL: a version-6 database
// gains version 7's columns in place; the name search (LIKE with its escapes),
// disable, delete and the activity of the audit trail through the programs
// of `make pg` (build/pg), on the cluster of BURNLINK_TEST_PG (tests/run.sh
// pg) or on one of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cluster from './cluster.mjs';
import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';

process.env.BURNLINK_BIN ||= 'build/pg';
const shared = process.env.BURNLINK_TEST_PG ? null : cluster.newCluster();
process.env.BURNLINK_TEST_PG ||= shared.dir;
const { accountsContext, signedUp, Browser, admin, createWithKey, PASSWORD } = await import('../accounts/helpers.mjs');
const { checkError } = await import('../lib/cgi.mjs');

test('a version-6 database gets version 7 (accounts.admin, disabled_at, deleted_at) on first use; its accounts sign in', async () => {
	const ctx = accountsContext();
	// schema-pg.sql of ad17c37, the last version 6, as the programs' role
	cluster.sql(process.env.BURNLINK_TEST_PG, ctx.pgDatabase, oldSchema('pg', 6), { user: 'burnlink' });
	cluster.sql(process.env.BURNLINK_TEST_PG, ctx.pgDatabase, 'INSERT INTO burnlink_schema (id, version) VALUES (1, 6)', { user: 'burnlink' });
	assert.equal(ctx.sql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'disabled_at'").trim(), '0');
	assert.equal(admin(ctx, ['account', 'create', 'six@example.org']).code, 0);
	assert.equal(ctx.sql('SELECT version FROM burnlink_schema').trim(), String(SCHEMA_VERSION));
	assert.equal(ctx.sql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'accounts' AND column_name IN ('admin', 'disabled_at', 'deleted_at')").trim(), '3');
	admin(ctx, ['account', 'password', 'six@example.org'], PASSWORD + '\n');
	assert.equal((await new Browser(ctx).signin('six@example.org')).status, 200);
});

test('the operator\'s API on PostgreSQL: search (with LIKE\'s own characters), disable, delete, activity', async () => {
	const ctx = accountsContext();
	const op = await signedUp(ctx, 'ops@example.org');
	assert.equal(admin(ctx, ['account', 'admin', 'ops@example.org', 'on']).code, 0);
	const p = await signedUp(ctx, 'pat_100%@example.org');
	await signedUp(ctx, 'patx1000@example.org');
	const key = (await p.req('keys', { method: 'POST', body: { name: 'ci' } })).json.key;
	let res = await op.req('admin_accounts', { env: { QUERY_STRING: 'q=PAT_100%25' } });
	assert.equal(res.status, 200, res.body.toString());
	assert.deepEqual(res.json.accounts.map((a) => a.name), ['pat_100%@example.org'], '_ and % are literal');
	const id = res.json.accounts[0].id;
	res = await op.req('admin_accounts', { method: 'POST', pathInfo: `/${id}`, body: { action: 'disable', currentPassword: PASSWORD } });
	assert.equal(res.status, 200, res.body.toString());
	checkError(assert, await createWithKey(ctx, key), 401, 'ACCOUNT_DISABLED');
	checkError(assert, await p.req('keys'), 401, 'ACCOUNT_DISABLED');
	assert.equal((await createWithKey(ctx, key)).status, 401);
	await op.req('admin_accounts', { method: 'POST', pathInfo: `/${id}`, body: { action: 'enable' } });
	assert.equal((await createWithKey(ctx, key)).status, 200);
	res = await op.req('admin_accounts', { method: 'DELETE', pathInfo: `/${id}`, body: { currentPassword: PASSWORD } });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(ctx.sql(`SELECT count(*) FROM secrets WHERE account_id = ${id} AND state = 0`).trim(), '0');
	checkError(assert, await createWithKey(ctx, key), 401, 'INVALID_API_KEY');
	res = await op.req('admin_activity', { env: { QUERY_STRING: `account=${id}&kind=admin.command` } });
	assert.deepEqual(res.json.events.map((e) => e.detail), ['/admin delete', '/admin enable', '/admin disable']);
});
