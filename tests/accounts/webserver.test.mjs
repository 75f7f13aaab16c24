// Sign-in through the web server (docs/ACCOUNTS.md, "Sign-in through the web
// server"): only the CGI variable REMOTE_USER, which the web server's
// authentication module sets, signs a person in, through POST /api/session
// {webServer: true}, and what follows is a session of burnlink's own with
// the password sessions' CSRF rules. A client's headers, query parameters
// and cookies that claim a user stay anonymous on every configuration.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { checkError } from '../lib/cgi.mjs';
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
