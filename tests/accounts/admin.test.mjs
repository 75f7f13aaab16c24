// The operator's API under /api/admin/ (docs/API.md, "The operator's API"),
// through the real CGI programs: who may use it (every admin endpoint,
// enumerated from the route table, so that a new one cannot be forgotten),
// and what each does. No answer carries a key, token, webhook URL or content.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { checkError, ROOT } from '../lib/cgi.mjs';
import { accountsContext, Browser, admin, createWithKey, signedUp, PASSWORD } from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

// Every (program, method, pathInfo) the route table serves under /api/admin/.
function adminEndpoints() {
	const { routes } = JSON.parse(fs.readFileSync(path.join(ROOT, 'build', 'routes', 'routes.json'), 'utf8'));
	const out = [];
	for (const r of routes.filter((x) => x.url.startsWith('/api/admin/'))) {
		for (const m of r.allow.split(', ')) out.push({ program: r.name, method: m, pathInfo: undefined });
		for (const m of (r.allowItem || '').split(', ').filter(Boolean)) out.push({ program: r.name, method: m, pathInfo: '/1' });
	}
	return out;
}

// An instance with an administrator (signed in, b) and a person (signed in, p, with an API key).
async function instance() {
	const ctx = accountsContext();
	const op = await signedUp(ctx, 'ops@example.org');
	assert.equal(admin(ctx, ['account', 'admin', 'ops@example.org', 'on']).code, 0);
	const p = await signedUp(ctx, 'pat@example.org');
	const key = (await p.req('keys', { method: 'POST', body: { name: 'deploys' } })).json.key;
	return { ctx, op, p, key };
}

function call(b, program, method, opts = {}) {
	const body = method === 'POST' || method === 'DELETE' ? (opts.body || {}) : undefined;
	return b.req(program, { method, pathInfo: opts.pathInfo, body, env: { QUERY_STRING: opts.query, ...(opts.env || {}) }, ...opts.more });
}

test('the route table has the admin endpoints this test enumerates', () => {
	const eps = adminEndpoints();
	assert.ok(eps.length >= 12, JSON.stringify(eps));
	for (const p of ['admin_overview', 'admin_accounts', 'admin_keys', 'admin_webhooks', 'admin_clients'])
		assert.ok(eps.some((e) => e.program === p), p);
});

test('every admin endpoint refuses anonymous (401), a normal account (403 NOT_ADMIN), any API key (401), and a cross-site request (403 CSRF_REJECTED); nothing changes', async () => {
	const { ctx, op, p, key } = await instance();
	const opKey = (await op.req('keys', { method: 'POST', body: { name: 'ops' } })).json.key;
	const before = ctx.sql('SELECT id, admin, disabled_at, deleted_at FROM accounts ORDER BY id; SELECT revoked_at FROM api_keys ORDER BY id');
	for (const ep of adminEndpoints()) {
		const what = `${ep.method} ${ep.program}${ep.pathInfo || ''}`;
		const opts = { pathInfo: ep.pathInfo, query: 'ip=192.0.2.99&account=1', body: { action: 'disable', ip: '192.0.2.99', name: 'x@example.org', currentPassword: PASSWORD } };
		// HEAD has no body to read the code from: its status says it
		const code = (res) => (ep.method === 'HEAD' ? undefined : res.json.code);
		let res = await call(new Browser(ctx), ep.program, ep.method, opts);
		assert.equal(res.status, 401, `${what}: ${res.body}`);
		assert.equal(code(res), ep.method === 'HEAD' ? undefined : 'NOT_SIGNED_IN', what);
		res = await call(p, ep.program, ep.method, opts);
		assert.equal(res.status, 403, `${what}: ${res.body}`);
		assert.equal(code(res), ep.method === 'HEAD' ? undefined : 'NOT_ADMIN', what);
		for (const k of [key, opKey]) {
			res = await ctx.run(ep.program, { method: ep.method, pathInfo: ep.pathInfo, body: opts.body && ep.method !== 'GET' && ep.method !== 'HEAD' ? opts.body : undefined,
				env: { HTTP_AUTHORIZATION: `Bearer ${k}`, QUERY_STRING: opts.query } });
			assert.equal(res.status, 401, `${what} with an API key: ${res.body}`);
		}
		for (const env of [{ HTTP_SEC_FETCH_SITE: 'cross-site' }, { HTTP_ORIGIN: 'https://evil.example' }]) {
			res = await call(op, ep.program, ep.method, { ...opts, env });
			assert.equal(res.status, 403, `${what} cross-site: ${res.body}`);
			assert.equal(code(res), ep.method === 'HEAD' ? undefined : 'CSRF_REJECTED', what);
		}
		// and the administrator's own session is let through (the refusals above are the role's)
		res = await call(op, ep.program, ep.method, { ...opts, more: {} });
		assert.ok(![401, 403].includes(res.status) || res.json?.code === 'INVALID_CREDENTIALS', `${what} as the administrator: ${res.status} ${res.body}`);
		assert.ok(!res.body.toString().includes('bl_') || !/bl_[A-Za-z0-9_-]{43}/.test(res.body.toString()), 'no key');
		// undo what the administrator's request did, for the next endpoint
		admin(ctx, ['account', 'enable', 'pat@example.org']);
		admin(ctx, ['account', 'admin', 'ops@example.org', 'on']);
		admin(ctx, ['limits', 'reset', '--ip', '192.0.2.99']);
	}
	assert.ok(before.length > 0);
});

test('an administrator finds an account, disables it (its sign-in and API key then fail: 401 ACCOUNT_DISABLED) with the password asked again, enables it', async () => {
	const { ctx, op, p, key } = await instance();
	for (let i = 0; i < 3; i++) admin(ctx, ['account', 'create', `other${i}@example.org`]);
	let res = await op.req('admin_accounts', { env: { QUERY_STRING: 'q=PAT' } });
	assert.equal(res.status, 200, res.body.toString());
	assert.deepEqual(res.json.accounts.map((a) => a.name), ['pat@example.org']);
	const pat = res.json.accounts[0];
	assert.equal(pat.admin, false);
	// paging
	res = await op.req('admin_accounts', { env: { QUERY_STRING: 'limit=2' } });
	assert.equal(res.json.accounts.length, 2);
	assert.ok(res.json.next);
	const page2 = await op.req('admin_accounts', { env: { QUERY_STRING: `limit=2&after=${res.json.next}` } });
	assert.equal(page2.json.accounts[0].id > res.json.next, true);
	checkError(assert, await op.req('admin_accounts', { env: { QUERY_STRING: 'limit=0' } }), 400, 'INVALID_ADMIN_ACTION');
	checkError(assert, await op.req('admin_accounts', { env: { QUERY_STRING: 'q=%zz' } }), 400, 'INVALID_ADMIN_ACTION');
	// the detail: keys by prefix only
	const d = await op.req('admin_accounts', { pathInfo: `/${pat.id}` });
	assert.equal(d.status, 200);
	assert.equal(d.json.keys.length, 1);
	assert.equal(d.json.keys[0].prefix, key.slice(0, 11));
	assert.ok(!d.body.toString().includes(key));
	// disable: the password again
	const act = (body) => op.req('admin_accounts', { method: 'POST', pathInfo: `/${pat.id}`, body });
	checkError(assert, await act({ action: 'disable' }), 401, 'REAUTH_REQUIRED');
	checkError(assert, await act({ action: 'disable', currentPassword: 'wrong password' }), 401, 'INVALID_CREDENTIALS');
	checkError(assert, await act({ action: 'explode', currentPassword: PASSWORD }), 400, 'INVALID_ADMIN_ACTION');
	assert.equal(ctx.sql(`SELECT disabled_at IS NULL FROM accounts WHERE id = ${pat.id}`).trim(), '1', 'nothing changed yet');
	res = await act({ action: 'disable', currentPassword: PASSWORD });
	assert.equal(res.status, 200, res.body.toString());
	assert.ok(res.json.account.disabledAt);
	checkError(assert, await new Browser(ctx).signin('pat@example.org'), 401, 'ACCOUNT_DISABLED');
	checkError(assert, await createWithKey(ctx, key), 401, 'ACCOUNT_DISABLED');
	checkError(assert, await p.req('keys'), 401, 'ACCOUNT_DISABLED');
	res = await act({ action: 'enable' });
	assert.equal(res.json.account.disabledAt, null);
	assert.equal((await createWithKey(ctx, key)).status, 200);
	// not oneself
	const self = op.account.id;
	checkError(assert, await op.req('admin_accounts', { method: 'POST', pathInfo: `/${self}`, body: { action: 'disable', currentPassword: PASSWORD } }), 400, 'INVALID_ADMIN_ACTION');
	checkError(assert, await op.req('admin_accounts', { pathInfo: '/999' }), 404, 'NOT_FOUND');
});

test('an administrator revokes a key and deletes a webhook (the password again); the lists show a key\'s prefix and a webhook\'s host, never the key or the URL', async () => {
	const { ctx, op, p, key } = await instance();
	const hook = await p.req('webhooks', { method: 'POST', body: { url: 'https://hooks.example.net/services/T0/B0/tokenpart' } });
	assert.equal(hook.status, 200, hook.body.toString());
	const id = p.account.id;
	const hooks = await op.req('admin_webhooks', { env: { QUERY_STRING: `account=${id}` } });
	assert.equal(hooks.status, 200, hooks.body.toString());
	assert.equal(hooks.json.webhooks[0].host, 'hooks.example.net');
	assert.ok(!hooks.body.toString().includes('tokenpart'));
	const keys = await op.req('admin_keys', { env: { QUERY_STRING: `account=${id}` } });
	const kid = keys.json.keys[0].id;
	checkError(assert, await op.req('admin_keys', { method: 'DELETE', pathInfo: `/${kid}`, body: {} }), 401, 'REAUTH_REQUIRED');
	const rev = await op.req('admin_keys', { method: 'DELETE', pathInfo: `/${kid}`, body: { currentPassword: PASSWORD } });
	assert.equal(rev.status, 200, rev.body.toString());
	assert.ok(rev.json.key.revokedAt);
	checkError(assert, await createWithKey(ctx, key), 401, 'INVALID_API_KEY');
	const del = await op.req('admin_webhooks', { method: 'DELETE', pathInfo: `/${hooks.json.webhooks[0].id}`, body: { currentPassword: PASSWORD } });
	assert.equal(del.status, 200, del.body.toString());
	assert.equal((await p.req('webhooks')).json.webhooks.length, 0);
	checkError(assert, await op.req('admin_webhooks', { method: 'DELETE', pathInfo: `/${hooks.json.webhooks[0].id}`, body: { currentPassword: PASSWORD } }), 404, 'NOT_FOUND');
	checkError(assert, await op.req('admin_keys', { env: { QUERY_STRING: 'account=x' } }), 400, 'INVALID_ADMIN_ACTION');
});

test('delete: the account\'s secrets are burned, its sessions ended, its keys revoked; its name is free again', async () => {
	const { ctx, op, p, key } = await instance();
	assert.equal((await createWithKey(ctx, key)).status, 200);
	assert.equal((await p.create()).status, 200);
	const id = p.account.id;
	checkError(assert, await op.req('admin_accounts', { method: 'DELETE', pathInfo: `/${id}`, body: {} }), 401, 'REAUTH_REQUIRED');
	const res = await op.req('admin_accounts', { method: 'DELETE', pathInfo: `/${id}`, body: { currentPassword: PASSWORD } });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(ctx.sql(`SELECT count(*) FROM secrets WHERE account_id = ${id} AND state = 0`).trim(), '0');
	assert.equal(ctx.sql(`SELECT count(*) FROM secrets WHERE account_id = ${id} AND text_ct IS NOT NULL`).trim(), '0', 'no content left');
	assert.equal(ctx.sql(`SELECT count(*) FROM sessions WHERE account_id = ${id}`).trim(), '0');
	assert.equal(ctx.sql(`SELECT count(*) FROM api_keys WHERE account_id = ${id} AND revoked_at IS NULL`).trim(), '0');
	checkError(assert, await createWithKey(ctx, key), 401, 'INVALID_API_KEY');
	checkError(assert, await p.req('keys'), 401, 'NOT_SIGNED_IN');
	checkError(assert, await op.req('admin_accounts', { pathInfo: `/${id}` }), 404, 'NOT_FOUND');
	assert.equal((await op.req('admin_accounts', { env: { QUERY_STRING: 'q=pat' } })).json.accounts.length, 0);
	assert.equal((await new Browser(ctx).signup('pat@example.org')).status, 200, 'the name is free');
});

test('admin role, password reset mail and second-factor reset from the API; a new account', async () => {
	const { ctx, op, p } = await instance();
	const id = p.account.id;
	const act = (body) => op.req('admin_accounts', { method: 'POST', pathInfo: `/${id}`, body });
	let res = await act({ action: 'admin-on', currentPassword: PASSWORD });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.json.account.adminFrom, 'operator');
	assert.equal((await p.req('admin_overview')).status, 200, 'the new administrator is let in');
	res = await act({ action: 'admin-off', currentPassword: PASSWORD });
	assert.equal(res.json.account.admin, false);
	checkError(assert, await p.req('admin_overview'), 403, 'NOT_ADMIN');
	// a reset mail needs a verified address
	checkError(assert, await act({ action: 'reset-password' }), 400, 'INVALID_ADMIN_ACTION');
	admin(ctx, ['account', 'email', 'pat@example.org', 'pat@example.org']);
	const before = Number(ctx.sql("SELECT count(*) FROM outbox WHERE kind = 'account.reset'"));
	assert.equal((await act({ action: 'reset-password' })).status, 200);
	assert.equal(Number(ctx.sql("SELECT count(*) FROM outbox WHERE kind = 'account.reset'")), before + 1, 'the reset mail of POST /api/token is queued');
	ctx.sql(`INSERT INTO account_totp (account_id, secret_ct, secret_iv, created_at, confirmed_at) VALUES (${id}, randomblob(36), randomblob(12), 1, 1)`);
	const withTotp = await op.req('admin_accounts', { pathInfo: `/${id}` });
	assert.equal(withTotp.json.secondFactor, true, withTotp.body.toString() + withTotp.stderr);
	assert.equal((await act({ action: 'reset-2fa', currentPassword: PASSWORD })).status, 200);
	assert.equal((await op.req('admin_accounts', { pathInfo: `/${id}` })).json.secondFactor, false);
	res = await op.req('admin_accounts', { method: 'POST', body: { name: 'new@example.org' } });
	assert.equal(res.status, 200, res.body.toString());
	checkError(assert, await op.req('admin_accounts', { method: 'POST', body: { name: 'new@example.org' } }), 409, 'ACCOUNT_EXISTS');
});

test('clients: an address\'s counts, unblocked and blocked (the password for a block), as burnlink-admin limits does', () => inOneWindow(86400, async () => {
	// the count is per UTC day: a run that straddles midnight runs again, once
	const { ctx, op } = await instance();
	const victim = new Browser(ctx, { ip: '198.51.100.7' });
	for (let i = 0; i < 3; i++) await victim.req('create', { method: 'POST', body: { text: 'x' }, env: { REQUEST_URI: '/api/secrets' } });
	let res = await op.req('admin_clients', { env: { QUERY_STRING: 'ip=198.51.100.7' } });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.json.windows.find((w) => w.op === 'create').count, 3);
	res = await op.req('admin_clients', { method: 'POST', body: { ip: '198.51.100.7', action: 'unblock' } });
	assert.equal(res.json.windows.find((w) => w.op === 'create').count, 0);
	assert.match(admin(ctx, ['limits', 'show', '--ip', '198.51.100.7']).stdout, /create\s+0\b/);
	checkError(assert, await op.req('admin_clients', { method: 'POST', body: { ip: '198.51.100.7', action: 'block', op: 'create' } }), 401, 'REAUTH_REQUIRED');
	res = await op.req('admin_clients', { method: 'POST', body: { ip: '198.51.100.7', action: 'block', op: 'create', currentPassword: PASSWORD } });
	assert.equal(res.status, 200, res.body.toString());
	checkError(assert, await victim.req('create', { method: 'POST', body: { text: 'x' }, env: { REQUEST_URI: '/api/secrets' } }), 429, 'RATE_LIMIT_EXCEEDED');
	checkError(assert, await op.req('admin_clients', { env: { QUERY_STRING: 'ip=not-an-address' } }), 400, 'INVALID_ADMIN_ACTION');
}));

test('overview: health, settings in force, version, counts, outbox, cleanup, limiter', async () => {
	const { ctx, op, key } = await instance();
	await createWithKey(ctx, key);
	const res = await op.req('admin_overview');
	assert.equal(res.status, 200, res.body.toString());
	const o = res.json;
	assert.equal(o.secrets.active, 1);
	assert.equal(o.accounts, 2);
	assert.equal(o.apiKeys.valid, 1);
	assert.equal(o.settings.limits.maxViews.max > 0, true, 'the settings in force, as GET /api/config');
	assert.equal(typeof o.health.status, 'string');
	assert.ok(o.limiter.entries > 0);
	assert.equal(o.schemaVersion, Number(ctx.sql('PRAGMA user_version')));
});

test('activity: the events of one secret by its receipt id, filters, pages, CSV; every admin action is itself an event', async () => {
	const { ctx, op, p } = await instance();
	admin(ctx, ['account', 'email', 'pat@example.org', 'pat@example.org']);
	const made = await p.create({ text: 'the launch codes', notify: ['email'] });
	assert.equal(made.status, 200, made.body.toString());
	const receipt = made.json.metadata.receiptId;
	assert.match(receipt, /^rcp_/);
	const key = made.json.metadata.secretKey;
	assert.equal((await ctx.run('retrieve', { method: 'POST', pathInfo: `/${key}` })).status, 200);
	let res = await op.req('admin_activity', { env: { QUERY_STRING: `receipt=${receipt}` } });
	assert.equal(res.status, 200, res.body.toString());
	const kinds = res.json.events.map((e) => e.kind);
	assert.deepEqual(kinds, ['secret.exhausted', 'secret.created'], 'its one view was its last');
	assert.ok(!res.body.toString().includes('launch codes') && !res.body.toString().includes(key));
	// an admin action is an event, with the administrator as its actor
	const id = p.account.id;
	await op.req('admin_accounts', { method: 'POST', pathInfo: `/${id}`, body: { action: 'disable', currentPassword: 'wrong password' } });
	await op.req('admin_accounts', { method: 'POST', pathInfo: `/${id}`, body: { action: 'disable', currentPassword: PASSWORD } });
	res = await op.req('admin_activity', { env: { QUERY_STRING: `kind=admin.command&account=${id}` } });
	const acts = res.json.events.map((e) => `${e.detail}:${e.outcome}:${e.accountId}`);
	assert.deepEqual(acts, [`/admin disable:ok:${op.account.id}`, `/admin disable:refused:${op.account.id}`]);
	res = await op.req('admin_activity', { env: { QUERY_STRING: `kind=account.disabled&account=${id}` } });
	assert.equal(res.json.events.length, 1);
	// pages
	const page1 = await op.req('admin_activity', { env: { QUERY_STRING: 'limit=2' } });
	assert.equal(page1.json.events.length, 2);
	const page2 = await op.req('admin_activity', { env: { QUERY_STRING: `limit=2&before=${page1.json.next}` } });
	assert.ok(page2.json.events[0].id < page1.json.events[1].id);
	// CSV
	// not JSON: the common headers' JSON check does not apply (the others are checked below)
	const csv = await op.req('admin_activity', { env: { QUERY_STRING: `receipt=${receipt}&format=csv` }, noHeaderCheck: true });
	assert.equal(csv.headers['x-content-type-options'], 'nosniff');
	assert.equal(csv.headers['cache-control'], 'no-store');
	assert.equal(csv.status, 200);
	assert.match(csv.headers['content-type'], /^text\/csv/);
	const lines = csv.body.toString().trim().split('\r\n');
	assert.equal(lines[0], 'id,at,kind,accountId,apiKeyId,operator,client,ownerId,objectId,receiptId,outcome,detail');
	assert.equal(lines.length - 1, kinds.length);
	for (const q of ['kind=no.such', 'since=yesterday', 'receipt=rcp_short', 'format=xml'])
		checkError(assert, await op.req('admin_activity', { env: { QUERY_STRING: q } }), 400, 'INVALID_ADMIN_ACTION');
});
