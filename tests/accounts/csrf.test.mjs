// CSRF: every state-changing request made with the session cookie needs the
// session's X-CSRF-Token and, when the browser names one, this site's Origin
// (and no cross-site Sec-Fetch-Site). Sign-in and sign-up check the origin.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError } from '../lib/cgi.mjs';
import { accountsContext, Browser, signedUp, PASSWORD } from './helpers.mjs';

// Each state-changing request of a signed-in browser, as a function of the browser.
function changes(ids) {
	return {
		'create a key': (b, o) => b.req('keys', { method: 'POST', body: { name: 'k' }, ...o }),
		'revoke a key': (b, o) => b.req('keys', { method: 'DELETE', pathInfo: `/${ids.key}`, ...o }),
		'burn a secret': (b, o) => b.req('mysecrets', { method: 'DELETE', pathInfo: `/${ids.secret}`, ...o }),
		'change the password': (b, o) => b.req('password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: 'a new password' }, ...o }),
		'sign out': (b, o) => b.req('session', { method: 'DELETE', ...o }),
		'create a secret as the account': (b, o) => b.create({ text: 'x' }, o),
	};
}

async function setup() {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const key = (await b.req('keys', { method: 'POST', body: { name: 'victim' } })).json.apiKey.id;
	assert.equal((await b.create({ text: 'victim' })).status, 200);
	const secret = (await b.req('mysecrets')).json.secrets[0].id;
	return { ctx, b, ids: { key, secret } };
}

// Nothing changed: the key is valid, the secret active, one session, one key, one secret.
async function unchanged(ctx, b) {
	assert.equal((await b.me()).json.signedIn, true);
	assert.equal(ctx.sql('SELECT count(*) FROM api_keys WHERE revoked_at IS NULL').trim(), '1');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets WHERE state = 0').trim(), '1');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
}

test('without the token, with a wrong one, or another session\'s: 403 CSRF_REJECTED, nothing changed', async () => {
	const { ctx, b, ids } = await setup();
	const other = await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.40' });
	for (const [what, fn] of Object.entries(changes(ids))) {
		for (const csrf of [false, 'A'.repeat(43), other.csrf, b.csrf.slice(1), b.csrf + 'A']) {
			const res = await fn(b, { csrf });
			checkError(assert, res, 403, 'CSRF_REJECTED');
			assert.match(res.json.hint, /X-CSRF-Token/, what);
		}
	}
	await unchanged(ctx, b);
});

test('with the token but a foreign Origin or a cross-site fetch: 403 CSRF_REJECTED', async () => {
	const { ctx, b, ids } = await setup();
	for (const [what, fn] of Object.entries(changes(ids))) {
		for (const origin of ['https://evil.example', 'http://burnlink.test', 'https://burnlink.test.evil.example',
			'https://sub.burnlink.test', 'null'])
			checkError(assert, await fn(b, { origin }), 403, 'CSRF_REJECTED');
		for (const site of ['cross-site', 'same-site'])
			checkError(assert, await fn(b, { env: { HTTP_SEC_FETCH_SITE: site } }), 403, 'CSRF_REJECTED', what);
	}
	await unchanged(ctx, b);
});

test('the right token works with this Origin, without an Origin, and with BURNLINK_SITE_URL\'s', async () => {
	const { ctx, b, ids } = await setup();
	const c = changes(ids);
	assert.equal((await c['create a key'](b, {})).status, 200);
	assert.equal((await c['create a key'](b, { origin: false })).status, 200);
	assert.equal((await c['create a key'](b, { origin: 'HTTPS://Burnlink.Test' })).status, 200);
	assert.equal((await c['create a key'](b, { env: { HTTP_SEC_FETCH_SITE: 'same-origin' } })).status, 200);
	// Behind a proxy that rewrites Host, the configured site URL is this site.
	const site = { BURNLINK_SITE_URL: 'https://secrets.example.org/burnlink', HTTP_HOST: '10.0.0.5:8080' };
	assert.equal((await c['create a key'](b, { origin: 'https://secrets.example.org', env: site })).status, 200);
	checkError(assert, await c['create a key'](b, { origin: 'https://secrets.example.org.evil', env: site }), 403, 'CSRF_REJECTED');
	assert.equal((await c['revoke a key'](b, {})).status, 200);
	assert.equal((await c['burn a secret'](b, {})).status, 200);
	assert.equal((await c['create a secret as the account'](b, {})).status, 200);
	assert.equal((await c['change the password'](b, {})).status, 200);
	assert.equal((await c['sign out'](b, {})).status, 200);
});

test('sign-in and sign-up from another site are refused (login CSRF)', async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	const b = new Browser(ctx, { ip: '192.0.2.41' });
	checkError(assert, await b.signin('alice@example.org', PASSWORD, { origin: 'https://evil.example' }), 403, 'CSRF_REJECTED');
	checkError(assert, await b.signin('alice@example.org', PASSWORD, { env: { HTTP_SEC_FETCH_SITE: 'cross-site' } }), 403, 'CSRF_REJECTED');
	checkError(assert, await b.signup('eve@example.org', PASSWORD, { origin: 'https://evil.example' }), 403, 'CSRF_REJECTED');
	assert.equal(b.cookies.size, 0);
	assert.equal(ctx.sql('SELECT count(*) FROM accounts').trim(), '1');
	assert.equal((await b.signin('alice@example.org', PASSWORD, { env: { HTTP_SEC_FETCH_SITE: 'none' } })).status, 200);
});

test('a creation with the cookie but no token is refused, not made anonymous; without a cookie it is anonymous', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	checkError(assert, await b.create({ text: 'x' }, { csrf: false }), 403, 'CSRF_REJECTED');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '0');
	// curl or the CLI: no cookie, no token.
	assert.equal((await ctx.create({ text: 'anonymous' })).status, 200);
	assert.equal(ctx.sql('SELECT account_id IS NULL FROM secrets').trim(), '1');
	// A stale cookie (session ended) is ignored: anonymous, and the cookie is removed.
	assert.equal((await b.signout()).status, 200);
	b.cookies.set('__Host-burnlink_session', 'B'.repeat(43));
	const res = await b.create({ text: 'after sign-out' }, { csrf: false });
	assert.equal(res.status, 200);
	assert.match(res.headers['set-cookie'], /Max-Age=0/);
	// An API key wins over the session.
	const c = await signedUp(ctx, 'carol@example.org', { ip: '192.0.2.42' });
	const key = (await c.req('keys', { method: 'POST', body: { name: 'k' } })).json.key;
	const both = await b.create({ text: 'key and cookie' }, { env: { REQUEST_URI: '/api/secrets', HTTP_AUTHORIZATION: `Bearer ${key}` } });
	assert.equal(both.status, 200);
	assert.equal(ctx.sql('SELECT account_id FROM secrets ORDER BY id DESC LIMIT 1').trim(), String(c.account.id));
});
