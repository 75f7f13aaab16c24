// Sign-in through the web server (docs/ACCOUNTS.md, "Sign-in through the web
// server"): only the CGI variable REMOTE_USER, which the web server's
// authentication module sets, signs a person in, through POST /api/session
// {webServer: true}, and what follows is a session of burnlink's own with
// the password sessions' CSRF rules. A client's headers, query parameters
// and cookies that claim a user stay anonymous on every configuration.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkError, runProgram } from '../lib/cgi.mjs';
import { accountsContext, Browser, admin, rows, PASSWORD } from './helpers.mjs';

// A fresh database whose settings file has these lines.
function withSettings(lines, env = {}) {
	const ctx = accountsContext({ BURNLINK_SIGNUP: '', ...env });
	fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), lines.join('\n') + '\n');
	return ctx;
}

const SSO = ['create = accounts', 'signin_webserver = yes', 'webserver_create = yes'];

// What the web server adds for a person it signed in (mod_auth_openidc's names).
function module(user, extra = {}) {
	return { REMOTE_USER: user, AUTH_TYPE: 'openid-connect', ...extra };
}

function webSignIn(b, env = {}, opts = {}) {
	return b.req('session', { method: 'POST', body: { webServer: true }, env, ...opts });
}

// Every way a client could claim to be alice without the web server.
const SPOOFS = {
	'a Remote-User header': { HTTP_REMOTE_USER: 'alice@example.org' },
	'an X-Remote-User header': { HTTP_X_REMOTE_USER: 'alice@example.org' },
	'an X-Forwarded-User header': { HTTP_X_FORWARDED_USER: 'alice@example.org' },
	'claim headers': { HTTP_OIDC_CLAIM_EMAIL: 'alice@example.org', HTTP_OIDC_CLAIM_GROUPS: 'staff' },
	'a query parameter': { QUERY_STRING: 'REMOTE_USER=alice%40example.org&user=alice%40example.org' },
	'a cookie': { HTTP_COOKIE: 'REMOTE_USER=alice@example.org; remote_user=alice@example.org' },
	'an empty REMOTE_USER': { REMOTE_USER: '' },
};

const CONFIGS = {
	'web-server sign-in off': ['create = accounts'],
	'web-server sign-in on': SSO,
	'on, with groups and domains': [...SSO, 'webserver_email_var = OIDC_CLAIM_email',
		'webserver_groups_var = OIDC_CLAIM_groups', 'allowed_groups = staff', 'allowed_domains = example.org'],
	'on, password sign-in off': [...SSO, 'signin_password = no'],
};

for (const [cname, lines] of Object.entries(CONFIGS)) {
	test(`spoofing (${cname}): headers, parameters and cookies stay anonymous`, async () => {
		const ctx = withSettings(lines);
		admin(ctx, ['account', 'create', 'alice@example.org']);
		for (const [sname, env] of Object.entries(SPOOFS)) {
			const b = new Browser(ctx);
			const res = await webSignIn(b, env);
			const code = cname === 'web-server sign-in off' ? 'SIGNIN_METHOD_OFF' : 'NOT_SIGNED_IN';
			checkError(assert, res, code === 'NOT_SIGNED_IN' ? 401 : 403, code);
			assert.equal(res.headers['set-cookie'], undefined, `${sname}: no cookie`);
			const me = await b.req('session', { env });
			assert.equal(me.json.signedIn, false, sname);
			assert.equal(me.json.webServerUser, false, sname);
			checkError(assert, await b.create({ text: 'x' }, { env }), 401, 'NOT_SIGNED_IN');
			checkError(assert, await b.req('keys', { env }), 401, 'NOT_SIGNED_IN');
			checkError(assert, await b.req('mysecrets', { env }), 401, 'NOT_SIGNED_IN');
		}
		assert.equal(rows(ctx, 'sessions'), 0);
		assert.equal(rows(ctx, 'secrets'), 0);
	});
}

test('REMOTE_USER alone, without the sign-in, is no session: 401 NOT_SIGNED_IN, and creation needs the session', async () => {
	const ctx = withSettings(SSO);
	const b = new Browser(ctx);
	checkError(assert, await b.req('keys', { env: module('alice@example.org') }), 401, 'NOT_SIGNED_IN');
	// a cross-site form cannot create in the account: the module's credentials are no session here
	checkError(assert, await b.create({ text: 'x' }, { env: module('alice@example.org') }), 401, 'NOT_SIGNED_IN');
	assert.equal(rows(ctx, 'secrets'), 0);
});

test('the web server\'s user signs in: a session of its own, the account\'s secrets, keys and webhooks', async () => {
	const ctx = withSettings(SSO);
	const b = new Browser(ctx);
	const me0 = await b.req('session', { env: module('Alice@Example.org') });
	assert.equal(me0.json.signedIn, false);
	assert.equal(me0.json.webServerUser, true);
	assert.deepEqual(me0.json.signIn, { password: true, webServer: true, logoutUrl: null });
	const res = await webSignIn(b, module('Alice@Example.org'));
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.json.via, 'webServer');
	assert.equal(res.json.account.email, 'alice@example.org', 'created lower-cased');
	assert.match(res.headers['set-cookie'], /^__Host-burnlink_session=.{43}; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
	const env = module('alice@example.org');
	const made = await b.create({ text: 'mine' }, { env });
	assert.equal(made.status, 200, made.body.toString());
	const mine = await b.req('mysecrets', { env });
	assert.equal(mine.json.secrets.length, 1);
	const key = await b.req('keys', { method: 'POST', body: { name: 'ci' }, env });
	assert.equal(key.status, 200);
	const withKey = await ctx.run('create', { method: 'POST', body: { text: 'k' }, env: { HTTP_AUTHORIZATION: `Bearer ${key.json.key}` } });
	assert.equal(withKey.status, 200);
	assert.equal((await b.req('mysecrets', { env })).json.secrets.length, 2);
	assert.equal((await b.req('webhooks', { env })).status, 200);
	// the CSRF rules of password sessions
	checkError(assert, await b.req('keys', { method: 'POST', body: { name: 'x' }, env, csrf: false }), 403, 'CSRF_REJECTED');
	checkError(assert, await b.create({ text: 'x' }, { env, csrf: false }), 403, 'CSRF_REJECTED');
	checkError(assert, await b.req('keys', { method: 'POST', body: { name: 'x' }, env, origin: 'https://evil.example' }), 403, 'CSRF_REJECTED');
	// anyone reads the link without signing in
	const url = new URL(made.json.secretUrl);
	const anon = await ctx.run('retrieve', { method: 'POST', pathInfo: `/${url.pathname.split('/').pop()}`, body: { key: url.hash.slice(1) } });
	assert.equal(anon.status, 200, anon.body.toString());
});

test('sign-in from another site is refused (login CSRF): 403 CSRF_REJECTED, no session', async () => {
	const ctx = withSettings(SSO);
	const b = new Browser(ctx);
	checkError(assert, await webSignIn(b, module('alice@example.org'), { origin: 'https://evil.example' }), 403, 'CSRF_REJECTED');
	checkError(assert, await webSignIn(b, { ...module('alice@example.org'), HTTP_SEC_FETCH_SITE: 'cross-site' }), 403, 'CSRF_REJECTED');
	assert.equal(rows(ctx, 'sessions'), 0);
	assert.equal(rows(ctx, 'accounts'), 0);
});

test('the session ends when the web server no longer says that person', async () => {
	const ctx = withSettings(SSO);
	const b = new Browser(ctx);
	assert.equal((await webSignIn(b, module('alice@example.org'))).status, 200);
	// another person at the module: the session is not theirs, on any endpoint
	checkError(assert, await b.req('keys', { env: module('bob@example.org') }), 401, 'NOT_SIGNED_IN');
	assert.equal(rows(ctx, 'sessions'), 0);
	// signed out at the module: the page's session check ends it
	assert.equal((await webSignIn(b, module('alice@example.org'))).status, 200);
	assert.equal((await b.req('keys', { env: {} })).status, 200, 'an API path the module does not cover');
	const me = await b.req('session');
	assert.equal(me.json.signedIn, false);
	assert.match(me.headers['set-cookie'], /Max-Age=0/);
	assert.equal(rows(ctx, 'sessions'), 0);
});

test('groups and e-mail domains: outside them, 403 SIGNIN_REFUSED with the reason', async () => {
	const ctx = withSettings([...SSO, 'webserver_email_var = OIDC_CLAIM_email', 'webserver_groups_var = OIDC_CLAIM_groups',
		'allowed_groups = staff, secrets-admins', 'allowed_domains = example.org']);
	const ok = await webSignIn(new Browser(ctx), module('alice', { OIDC_CLAIM_email: 'alice@EXAMPLE.org', OIDC_CLAIM_groups: 'users,staff' }));
	assert.equal(ok.status, 200, ok.body.toString());
	assert.equal(ok.json.account.email, 'alice');
	let j = checkError(assert, await webSignIn(new Browser(ctx), module('bob', { OIDC_CLAIM_email: 'bob@example.org', OIDC_CLAIM_groups: 'users' })), 403, 'SIGNIN_REFUSED');
	assert.match(j.hint, /none of the groups/);
	j = checkError(assert, await webSignIn(new Browser(ctx), module('bob', { OIDC_CLAIM_email: 'bob@example.org' })), 403, 'SIGNIN_REFUSED');
	// a groups header is not the module's variable
	j = checkError(assert, await webSignIn(new Browser(ctx), module('bob', { OIDC_CLAIM_email: 'bob@example.org', HTTP_OIDC_CLAIM_GROUPS: 'staff' })), 403, 'SIGNIN_REFUSED');
	j = checkError(assert, await webSignIn(new Browser(ctx), module('carol', { OIDC_CLAIM_email: 'carol@evil.test', OIDC_CLAIM_groups: 'staff' })), 403, 'SIGNIN_REFUSED');
	assert.match(j.hint, /evil\.test/);
	j = checkError(assert, await webSignIn(new Browser(ctx), module('dave', { OIDC_CLAIM_groups: 'staff' })), 403, 'SIGNIN_REFUSED');
	assert.match(j.hint, /no e-mail address \(OIDC_CLAIM_email\)/);
	assert.equal(ctx.sql('SELECT name FROM accounts').trim(), 'alice', 'only alice got an account');
});

test('without webserver_create, only accounts the operator made sign in', async () => {
	const ctx = withSettings(['signin_webserver = yes']);
	const j = checkError(assert, await webSignIn(new Browser(ctx), module('erin@example.org')), 403, 'SIGNIN_REFUSED');
	assert.match(j.hint, /burnlink-admin account create/);
	assert.equal(admin(ctx, ['account', 'create', 'erin@example.org']).code, 0);
	assert.equal((await webSignIn(new Browser(ctx), module('ERIN@example.org'))).status, 200);
});

test('a password account of the same name: the same person while sign-up is closed, refused while it is open', async () => {
	const open = withSettings([...SSO, 'signup = open']);
	const b = new Browser(open);
	assert.equal((await b.signup('frank@example.org')).status, 200);
	checkError(assert, await webSignIn(new Browser(open), module('frank@example.org')), 403, 'SIGNIN_REFUSED');
	const closed = withSettings(SSO);
	admin(closed, ['account', 'create', 'frank@example.org']);
	admin(closed, ['account', 'password', 'frank@example.org'], 'a long password\n');
	const res = await webSignIn(new Browser(closed), module('frank@example.org'));
	assert.equal(res.status, 200);
	assert.equal((await new Browser(closed).signin('frank@example.org', 'a long password')).json.via, 'password');
});

test('password sign-in off: 403 SIGNIN_METHOD_OFF, and sign-up closed whatever BURNLINK_SIGNUP says', async () => {
	const ctx = withSettings([...SSO, 'signin_password = no', 'webserver_logout = /oidc?logout=https%3A%2F%2Fburnlink.test%2F'], { BURNLINK_SIGNUP: 'open' });
	admin(ctx, ['account', 'create', 'gina@example.org']);
	admin(ctx, ['account', 'password', 'gina@example.org'], `${PASSWORD}\n`);
	checkError(assert, await new Browser(ctx).signin('gina@example.org'), 403, 'SIGNIN_METHOD_OFF');
	checkError(assert, await new Browser(ctx).signup('hal@example.org'), 403, 'SIGNUP_CLOSED');
	const cfg = await ctx.run('config', { noHeaderCheck: true });
	assert.deepEqual(cfg.json.signIn, { password: false, webServer: true, logoutUrl: '/oidc?logout=https%3A%2F%2Fburnlink.test%2F' });
	assert.equal(cfg.json.features.signup, false);
});

test('the settings refuse a variable the client controls, and combinations that make no sense', async () => {
	const bad = [
		['signin_webserver = yes', 'webserver_email_var = HTTP_X_EMAIL'],
		['signin_webserver = yes', 'webserver_groups_var = QUERY_STRING'],
		['signin_webserver = yes', 'webserver_email_var = http_oidc_claim_email'],
		['signin_password = no'],
		['webserver_create = yes'],
		['signin_webserver = yes', 'allowed_groups = staff'],
		['signin_webserver = yes', 'allowed_domains = exa mple.org'],
		['signin_webserver = yes', 'webserver_logout = javascript:alert(1)'],
		['signin_webserver = yes', 'signin_password = no', 'signup = open'],
	];
	for (const lines of bad) {
		const ctx = withSettings(lines);
		checkError(assert, await ctx.run('session'), 503, 'CONFIG_INVALID');
	}
	const cfg = await withSettings([]).run('config', { noHeaderCheck: true });
	assert.deepEqual(cfg.json.signIn, { password: true, webServer: false, logoutUrl: null });
});

// The identity provider's address (webserver_email_var) is the account's,
// verified (docs/ACCOUNTS.md, "The identity provider's e-mail address"): mail
// receipts reach a person signed in by the web server without a step of
// theirs, an address another account verified is never taken, a changed claim
// replaces the address and tells the old one, and a reset by mail gives no
// password to an account of the web server's sign-in.
const MAILS = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-wsmail-'));
process.on('exit', () => fs.rmSync(MAILS, { recursive: true, force: true }));
const MAILER = path.join(MAILS, 'capture-mail');
fs.writeFileSync(MAILER, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\n', { mode: 0o755 });

// Runs cron/notify with a mailer that keeps each mail; the mails sent.
async function deliver(ctx) {
	const out = fs.mkdtempSync(path.join(MAILS, 'run-'));
	const run = await runProgram('notify', { env: { ...ctx.env, BURNLINK_SENDMAIL: `${MAILER} ${out}`,
		BURNLINK_SITE_URL: 'https://burnlink.test', BURNLINK_MAIL_FROM: 'no-reply@burnlink.test' } });
	assert.equal(run.code, 0, run.stderr);
	return fs.readdirSync(out).map((f) => fs.readFileSync(path.join(out, f), 'utf8'));
}

const WITH_EMAIL = [...SSO, 'webserver_email_var = OIDC_CLAIM_email'];

// The account's events of account.email_changed: [outcome, detail] each, oldest first.
function addressEvents(ctx, name) {
	const out = ctx.sql(`SELECT e.outcome || ' ' || coalesce(e.detail, '') FROM audit_events e JOIN accounts a ON a.id = e.owner_id WHERE e.kind = 'account.email_changed' AND a.name = '${name}' ORDER BY e.id`).trim();
	return out === '' ? [] : out.split('\n');
}

test('the identity provider\'s address becomes the account\'s, verified: GET /api/email, and a mail receipt reaches it', async () => {
	const ctx = withSettings(WITH_EMAIL);
	const b = new Browser(ctx);
	const res = await webSignIn(b, module('alice', { OIDC_CLAIM_email: 'Alice@Example.org' }));
	assert.equal(res.status, 200, res.body.toString());
	const env = module('alice');
	assert.deepEqual((await b.req('email', { env })).json, { email: 'alice@example.org', verified: true });
	assert.deepEqual(addressEvents(ctx, 'alice'), ['ok provider']);
	assert.equal(ctx.sql("SELECT count(*) FROM outbox WHERE kind = 'account.verify'").trim(), '0', 'no verification mail: the provider vouches');
	assert.match(res.stderr, /address in OIDC_CLAIM_email recorded/);
	assert.ok(!res.stderr.includes('alice@example.org'), 'the address is not logged');

	// a receipt by mail, with nothing set on the dashboard
	const made = await b.create({ text: 'for alice', notify: ['email'] }, { env });
	assert.equal(made.status, 200, made.body.toString());
	assert.equal((await ctx.run('retrieve', { method: 'POST', pathInfo: `/${made.json.metadata.secretKey}` })).status, 200);
	const mails = await deliver(ctx);
	assert.equal(mails.length, 1);
	assert.match(mails[0], /^To: alice@example\.org$/m);

	// the same address again changes nothing; no address, or one that is not, keeps it
	for (const extra of [{ OIDC_CLAIM_email: 'alice@example.org' }, {}, { OIDC_CLAIM_email: '' }, { OIDC_CLAIM_email: 'not an address' }]) {
		const again = await webSignIn(new Browser(ctx), module('alice', extra));
		assert.equal(again.status, 200, again.body.toString());
	}
	assert.deepEqual(addressEvents(ctx, 'alice'), ['ok provider']);
	assert.equal(ctx.sql('SELECT email FROM account_emails WHERE verified_at IS NOT NULL').trim(), 'alice@example.org');
});

test('the provider\'s address changes: it replaces the account\'s, the one replaced is told, a pending reset link is void', async () => {
	const ctx = withSettings(WITH_EMAIL);
	assert.equal((await webSignIn(new Browser(ctx), module('alice', { OIDC_CLAIM_email: 'alice@example.org' }))).status, 200);
	ctx.sql("UPDATE account_emails SET token_hash = randomblob(32), token_kind = 2, token_expires = 99999999999999");
	const b = new Browser(ctx);
	assert.equal((await webSignIn(b, module('alice', { OIDC_CLAIM_email: 'alice@new.example' }))).status, 200);
	assert.deepEqual((await b.req('email', { env: module('alice') })).json, { email: 'alice@new.example', verified: true });
	assert.deepEqual(addressEvents(ctx, 'alice'), ['ok provider', 'ok provider']);
	assert.equal(ctx.sql('SELECT count(*) FROM account_emails WHERE token_hash IS NOT NULL').trim(), '0');
	const mails = await deliver(ctx);
	assert.equal(mails.length, 1);
	assert.match(mails[0], /^To: alice@example\.org$/m);
	assert.match(mails[0], /^Subject: The e-mail address of your account was changed$/m);
	assert.ok(!mails[0].includes('alice@new.example'), 'the notice does not give the new address');
});

test('an address another account has verified is never taken by a claim: the sign-in goes on, the address stays, the refusal is logged and an event', async () => {
	const ctx = withSettings(WITH_EMAIL);
	assert.equal(admin(ctx, ['account', 'create', 'bob']).code, 0);
	assert.equal(admin(ctx, ['account', 'email', 'bob', 'bob@example.org']).code, 0);
	// mallory's provider claims bob's address (in another case)
	const m = new Browser(ctx);
	const res = await webSignIn(m, module('mallory', { OIDC_CLAIM_email: 'BOB@example.org' }));
	assert.equal(res.status, 200, res.body.toString());
	assert.match(res.stderr, /another account's verified address; not recorded/);
	assert.deepEqual((await m.req('email', { env: module('mallory') })).json, { email: null, verified: false });
	assert.deepEqual(addressEvents(ctx, 'mallory'), ['refused provider']);
	// an address of mallory's own stays when the claim is someone else's
	assert.equal(admin(ctx, ['account', 'email', 'mallory', 'mallory@example.org']).code, 0);
	assert.equal((await webSignIn(new Browser(ctx), module('mallory', { OIDC_CLAIM_email: 'bob@example.org' }))).status, 200);
	assert.deepEqual((await m.req('email', { env: module('mallory') })).json, { email: 'mallory@example.org', verified: true });
	assert.equal(ctx.sql("SELECT a.name FROM account_emails e JOIN accounts a ON a.id = e.account_id WHERE e.email = 'bob@example.org'").trim(), 'bob');
	// a reset asked for bob's address still goes to bob alone
	assert.equal((await new Browser(ctx, { ip: '192.0.2.90' }).req('token', { method: 'POST', body: { email: 'bob@example.org' } })).status, 200);
	assert.equal(ctx.sql("SELECT count(*) FROM account_emails e JOIN accounts a ON a.id = e.account_id WHERE a.name = 'mallory' AND e.email = 'bob@example.org'").trim(), '0');
});

test('a reset by mail gives no password to an account of the web server\'s sign-in; an account with one still gets its link', async () => {
	const ctx = withSettings(WITH_EMAIL);
	assert.equal((await webSignIn(new Browser(ctx), module('alice', { OIDC_CLAIM_email: 'alice@example.org' }))).status, 200);
	assert.equal(ctx.sql("SELECT count(*) FROM account_emails WHERE verified_at IS NOT NULL").trim(), '1');
	const anon = new Browser(ctx, { ip: '192.0.2.91' });
	assert.equal((await anon.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	assert.deepEqual(await deliver(ctx), [], 'no reset link: alice signs in at the identity provider');
	assert.equal(rows(ctx, 'account_passwords'), 0);
	// the operator's page refuses to send one, and says why
	assert.equal(admin(ctx, ['account', 'create', 'ops@example.org']).code, 0);
	assert.equal(admin(ctx, ['account', 'password', 'ops@example.org'], `${PASSWORD}\n`).code, 0);
	assert.equal(admin(ctx, ['account', 'admin', 'ops@example.org', 'on']).code, 0);
	const op = new Browser(ctx);
	assert.equal((await op.signin('ops@example.org')).status, 200);
	const alice = ctx.sql("SELECT id FROM accounts WHERE name = 'alice'").trim();
	const j = checkError(assert, await op.req('admin_accounts', { method: 'POST', pathInfo: `/${alice}`, body: { action: 'reset-password' } }), 400, 'INVALID_ADMIN_ACTION');
	assert.match(j.hint, /no password/);
	// an account with a password (the operator's, sign-up closed) and the provider's address
	assert.equal(admin(ctx, ['account', 'create', 'frank']).code, 0);
	assert.equal(admin(ctx, ['account', 'password', 'frank'], `${PASSWORD}\n`).code, 0);
	assert.equal((await webSignIn(new Browser(ctx), module('frank', { OIDC_CLAIM_email: 'frank@example.org' }))).status, 200);
	assert.equal((await anon.req('token', { method: 'POST', body: { email: 'frank@example.org' } })).status, 200);
	const mails = await deliver(ctx);
	assert.equal(mails.length, 1);
	assert.match(mails[0], /^To: frank@example\.org$/m);
	assert.match(mails[0], /#reset=[A-Za-z0-9_-]{43}$/m);
});
