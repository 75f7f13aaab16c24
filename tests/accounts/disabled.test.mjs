// The admin role and disabled accounts (docs/ADMIN.md, schema version 7):
// burnlink-admin account admin NAME on|off and account disable|enable NAME;
// a disabled account's sign-in, sessions and API keys are refused with 401
// ACCOUNT_DISABLED; admin_groups gives the role at web-server sign-in.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { checkError } from '../lib/cgi.mjs';
import { accountsContext, Browser, admin, createWithKey, signedUp, PASSWORD } from './helpers.mjs';

test('account admin NAME on|off gives and takes the role; show and --json say so', () => {
	const ctx = accountsContext();
	assert.equal(admin(ctx, ['account', 'create', 'ops@example.org']).code, 0);
	let r = admin(ctx, ['--json', 'account', 'admin', 'ops@example.org', 'on']);
	assert.equal(r.code, 0, r.stderr);
	assert.equal(r.json.admin, true);
	assert.equal(ctx.sql("SELECT admin FROM accounts WHERE name = 'ops@example.org'").trim(), '1');
	assert.match(admin(ctx, ['account', 'show', 'ops@example.org']).stdout, /admin role\s+yes/);
	r = admin(ctx, ['--json', 'account', 'admin', 'ops@example.org', 'off']);
	assert.equal(r.json.admin, false);
	assert.equal(admin(ctx, ['account', 'admin', 'ops@example.org', 'maybe']).code, 2);
	assert.equal(admin(ctx, ['account', 'admin', 'nobody@example.org', 'on']).code, 3);
});

test('a disabled account: its sign-in, its session, its browser creations and its API key are refused (401 ACCOUNT_DISABLED); enabled, all work again', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'dee@example.org');
	const { key } = (await b.req('keys', { method: 'POST', body: { name: 'ci' } })).json;
	assert.equal((await createWithKey(ctx, key)).status, 200);
	let r = admin(ctx, ['--json', 'account', 'disable', 'dee@example.org']);
	assert.equal(r.code, 0, r.stderr);
	assert.ok(r.json.disabledAt, 'disabledAt is set');
	// the live session
	const sess = await b.req('keys');
	checkError(assert, sess, 401, 'ACCOUNT_DISABLED');
	assert.equal(b.cookies.size, 0, 'the cookie is removed');
	assert.equal(ctx.sql("SELECT count(*) FROM sessions").trim(), '0', 'the session ended');
	// the API key
	const k = await createWithKey(ctx, key);
	const j = checkError(assert, k, 401, 'ACCOUNT_DISABLED');
	assert.match(j.hint, /disabled/);
	// sign-in: the right password says disabled, a wrong one says nothing more
	const b2 = new Browser(ctx);
	checkError(assert, await b2.signin('dee@example.org'), 401, 'ACCOUNT_DISABLED');
	checkError(assert, await b2.signin('dee@example.org', 'not the password'), 401, 'INVALID_CREDENTIALS');
	assert.equal(b2.cookies.size, 0);
	// enabled again
	r = admin(ctx, ['--json', 'account', 'enable', 'dee@example.org']);
	assert.equal(r.json.disabledAt, null);
	assert.equal((await b2.signin('dee@example.org')).status, 200);
	assert.equal((await createWithKey(ctx, key)).status, 200);
});

test('a browser of a disabled account cannot create a secret as anyone (its session is refused, not dropped)', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'eve@example.org');
	admin(ctx, ['account', 'disable', 'eve@example.org']);
	checkError(assert, await b.create(), 401, 'ACCOUNT_DISABLED');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '0');
});

test('web-server sign-in: a disabled account is refused; admin_groups gives the role and takes it when the group is gone, an operator\'s grant stays', async () => {
	const ctx = accountsContext({ BURNLINK_SIGNUP: '' });
	fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), ['create = accounts', 'signin_webserver = yes',
		'webserver_create = yes', 'webserver_groups_var = OIDC_CLAIM_groups', 'admin_groups = burnlink-admins, ops'].join('\n') + '\n');
	const sso = (user, groups) => ({ REMOTE_USER: user, AUTH_TYPE: 'openid-connect', OIDC_CLAIM_groups: groups });
	const signIn = (b, env) => b.req('session', { method: 'POST', body: { webServer: true }, env });
	const b = new Browser(ctx);
	assert.equal((await signIn(b, sso('kim@example.org', 'staff,ops'))).status, 200);
	assert.equal(ctx.sql("SELECT admin FROM accounts WHERE name = 'kim@example.org'").trim(), '2');
	assert.equal((await signIn(b, sso('kim@example.org', 'staff'))).status, 200);
	assert.equal(ctx.sql("SELECT admin FROM accounts WHERE name = 'kim@example.org'").trim(), '0', 'out of the group: no role');
	admin(ctx, ['account', 'admin', 'kim@example.org', 'on']);
	assert.equal((await signIn(b, sso('kim@example.org', 'staff'))).status, 200);
	assert.equal(ctx.sql("SELECT admin FROM accounts WHERE name = 'kim@example.org'").trim(), '1', 'the operator\'s grant stays');
	admin(ctx, ['account', 'disable', 'kim@example.org']);
	checkError(assert, await signIn(new Browser(ctx), sso('kim@example.org', 'ops')), 401, 'ACCOUNT_DISABLED');
	assert.equal(PASSWORD.length > 0, true);
});

test('admin_groups without webserver_groups_var is a settings error naming the line', () => {
	const ctx = accountsContext({ BURNLINK_SIGNUP: '' });
	fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), 'signin_webserver = yes\nadmin_groups = ops\n');
	const r = admin(ctx, ['config', 'check']);
	assert.notEqual(r.code, 0);
	assert.match(r.stdout + r.stderr, /admin_groups/);
});
