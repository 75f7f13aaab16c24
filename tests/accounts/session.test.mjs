// Sessions (/api/session, /api/password): sign-in right and wrong, one message
// for every wrong credential, attempt limits, idle and absolute expiry,
// sign-out, password changes ending sessions, burnlink-admin passwords.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError, checkCommonHeaders } from '../lib/cgi.mjs';
import { inOneWindow } from '../lib/counters.mjs';
import {
	accountsContext, Browser, signedUp, admin, ageSessions, parseSetCookie, seedCounter, PASSWORD,
} from './helpers.mjs';

const IDLE_MS = 2 * 3600 * 1000;
const MAX_MS = 12 * 3600 * 1000;

test('sign-in with the right e-mail and password (any case of the address)', async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	for (const email of ['alice@example.org', 'Alice@Example.org']) {
		const b = new Browser(ctx);
		const res = await b.signin(email);
		assert.equal(res.status, 200, res.body.toString());
		checkCommonHeaders(assert, res);
		assert.equal(res.json.success, true);
		assert.equal(res.json.signedIn, true);
		assert.equal(res.json.account.email, 'alice@example.org');
		assert.match(res.json.csrfToken, /^[A-Za-z0-9_-]{43}$/);
		assert.match(res.headers['set-cookie'], /^__Host-burnlink_session=[A-Za-z0-9_-]{43}; /);
		assert.match(res.headers['x-ratelimit-limit'], /^\d+$/);
		const me = await b.me();
		assert.equal(me.json.signedIn, true);
		assert.equal(me.json.csrfToken, res.json.csrfToken, 'the token is the session\'s');
	}
	assert.equal(ctx.sql('SELECT count(*) FROM sessions').trim(), '3');
});

test('wrong credentials get one answer: wrong password, unknown address, account without a password', async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	assert.equal(admin(ctx, ['account', 'create', 'nopass@example.org']).code, 0);
	const bodies = [];
	for (const [email, pw] of [['alice@example.org', 'wrong password'], ['nobody@example.org', PASSWORD],
		['nopass@example.org', PASSWORD], ['alice@example.org', ''], ['', '']]) {
		const b = new Browser(ctx);
		const res = await b.signin(email, pw);
		const j = checkError(assert, res, 401, 'INVALID_CREDENTIALS');
		assert.equal(res.headers['set-cookie'], undefined);
		bodies.push({ error: j.error, hint: j.hint });
	}
	for (const b of bodies)
		assert.deepEqual(b, bodies[0]);
	assert.equal(ctx.sql('SELECT count(*) FROM sessions').trim(), '1');
});

test('sign-in needs strings: 400 INVALID_JSON otherwise; other methods 405', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	checkError(assert, await b.req('session', { method: 'POST', body: { email: 'a@b.c' } }), 400, 'INVALID_JSON');
	checkError(assert, await b.req('session', { method: 'POST', body: { email: 1, password: 'x'.repeat(9) } }), 400, 'INVALID_JSON');
	checkError(assert, await b.req('session', { method: 'POST' }), 400, 'INVALID_JSON');
	const res = await b.req('session', { method: 'PUT' });
	checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(res.headers.allow, 'GET, HEAD, POST, DELETE');
});

test('sign-in attempts are limited per account and address (10 an hour), right ones included', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	const ip = '203.0.113.5';
	for (let i = 0; i < 10; i++)
		checkError(assert, await new Browser(ctx, { ip }).signin('alice@example.org', `guess ${i}xx`), 401, 'INVALID_CREDENTIALS');
	// The 11th, even with the right password, is refused; the case of the address does not matter.
	const res = await new Browser(ctx, { ip }).signin('ALICE@example.org');
	checkError(assert, res, 429, 'RATE_LIMIT_EXCEEDED');
	assert.match(res.json.hint, /sign-in attempts/);
	assert.match(res.headers['retry-after'], /^\d+$/);
	assert.equal(res.headers['x-ratelimit-remaining'], '0');
	assert.equal(res.headers['x-ratelimit-limit'], '10');
	// Another address, or another account from this address, is not affected.
	assert.equal((await new Browser(ctx, { ip: '203.0.113.6' }).signin('alice@example.org')).status, 200);
	checkError(assert, await new Browser(ctx, { ip }).signin('bob@example.org'), 401, 'INVALID_CREDENTIALS');
}));

// docs/API.md, POST /session: guessing spread over many addresses is bounded
// per account too (30 an hour from all addresses together); unknown names
// are counted the same way, so the 429 tells nothing about the account.
test('sign-in attempts per account from all addresses: the 31st in an hour is 429, right ones included', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	for (let i = 0; i < 30; i++)
		checkError(assert, await new Browser(ctx, { ip: `198.51.100.${i + 1}` }).signin(i % 2 ? 'alice@example.org' : 'ALICE@example.org', `guess ${i}xx`),
			401, 'INVALID_CREDENTIALS');
	const res = await new Browser(ctx, { ip: '198.51.100.200' }).signin('alice@example.org');
	checkError(assert, res, 429, 'RATE_LIMIT_EXCEEDED');
	assert.match(res.json.hint, /from all addresses together/);
	assert.match(res.json.hint, /reset the password by e-mail/);
	assert.match(res.headers['retry-after'], /^\d+$/);
	assert.equal(res.headers['x-ratelimit-limit'], '30');
	// another account is not affected; an unknown name is limited alike
	checkError(assert, await new Browser(ctx, { ip: '198.51.100.200' }).signin('bob@example.org'), 401, 'INVALID_CREDENTIALS');
	for (let i = 0; i < 30; i++)
		await new Browser(ctx, { ip: `198.51.100.${i + 1}` }).signin('nobody@example.org', `guess ${i}xx`);
	checkError(assert, await new Browser(ctx, { ip: '198.51.100.201' }).signin('nobody@example.org', 'whatever!'), 429, 'RATE_LIMIT_EXCEEDED');
}));

test('sign-in attempts per address across accounts: the 101st in an hour is 429', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	const ip = '203.0.113.9';
	checkError(assert, await new Browser(ctx, { ip }).signin('nobody@example.org', 'whatever!'), 401, 'INVALID_CREDENTIALS');
	seedCounter(ctx, 'signin:ip', ip, 3600, 100);
	const res = await new Browser(ctx, { ip }).signin('nobody-else@example.org', 'whatever!');
	checkError(assert, res, 429, 'RATE_LIMIT_EXCEEDED');
	assert.equal(res.headers['x-ratelimit-limit'], '100');
	assert.equal((await new Browser(ctx, { ip: '203.0.113.10' }).signin('nobody-else@example.org', 'whatever!')).status, 401);
}));

test('GET /api/session without a cookie, with an unknown or malformed one: signed out, 200', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	const res = await b.me();
	assert.equal(res.status, 200);
	checkCommonHeaders(assert, res);
	assert.deepEqual(res.json, { signedIn: false, signup: 'open', webServerUser: false,
		signIn: { password: true, webServer: false, logoutUrl: null } });
	assert.match(res.headers['x-ratelimit-limit'], /^\d+$/);
	b.cookies.set('__Host-burnlink_session', 'A'.repeat(43));
	const unknown = await b.me();
	assert.equal(unknown.json.signedIn, false);
	// The stale cookie is removed.
	const sc = parseSetCookie(unknown.headers['set-cookie']);
	assert.equal(sc.value, '');
	assert.equal(sc.attrs['max-age'], '0');
	for (const bad of ['short', 'A'.repeat(44), 'A'.repeat(42) + '!'])
		assert.equal((await b.req('session', { env: { HTTP_COOKIE: `__Host-burnlink_session=${bad}` } })).json.signedIn, false);
	const head = await b.req('session', { method: 'HEAD' });
	assert.equal(head.status, 200);
	assert.equal(head.body.length, 0);
});

test('a session ends after 2 hours without a request', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	ageSessions(ctx, { idleMs: IDLE_MS - 5 * 60 * 1000 });
	// Still alive; using it moves its last-seen time forward (to the request's
	// moment: from its start on, not within a minute of a clock read after it).
	const t0 = Date.now();
	const me = await b.me();
	assert.equal(me.json.signedIn, true);
	assert.ok(Date.parse(me.json.expiresAt) >= t0 + IDLE_MS - 1000, me.json.expiresAt);
	ageSessions(ctx, { idleMs: IDLE_MS - 5 * 60 * 1000 });
	assert.equal((await b.me()).json.signedIn, true, 'a request renewed it');
	ageSessions(ctx, { idleMs: IDLE_MS + 1000 });
	const gone = await b.me();
	assert.equal(gone.json.signedIn, false);
	assert.equal(parseSetCookie(gone.headers['set-cookie']).attrs['max-age'], '0');
	assert.equal(ctx.sql('SELECT count(*) FROM sessions').trim(), '0', 'the expired session is deleted');
	checkError(assert, await b.req('keys'), 401, 'NOT_SIGNED_IN');
});

test('a session ends 12 hours after sign-in however busy', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	// 10 minutes left (not one: a loaded machine may take that between two requests)
	ageSessions(ctx, { createdMs: MAX_MS - 600000 });
	const me = await b.me();
	assert.equal(me.json.signedIn, true);
	assert.ok(Date.parse(me.json.expiresAt) <= Date.now() + 600000, 'expiresAt is the absolute end');
	ageSessions(ctx, { createdMs: 601000 });
	assert.equal((await b.me()).json.signedIn, false);
	checkError(assert, await b.req('mysecrets'), 401, 'NOT_SIGNED_IN');
});

test('sign-in prunes ended sessions and replaces the browser\'s old one', async () => {
	const ctx = accountsContext();
	const a = await signedUp(ctx, 'alice@example.org');
	const other = await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.77' });
	ageSessions(ctx, { idleMs: IDLE_MS + 1000 });
	const oldCookie = a.cookieHeader();
	assert.equal((await a.signin('alice@example.org')).status, 200);
	assert.equal(ctx.sql('SELECT count(*) FROM sessions').trim(), '1', 'ended sessions are pruned');
	assert.notEqual(a.cookieHeader(), oldCookie);
	// Signing in again with a live session replaces it: the old id is dead.
	const live = a.cookieHeader();
	assert.equal((await a.signin('alice@example.org')).status, 200);
	const stale = new Browser(ctx);
	stale.cookies.set(...live.split('='));
	assert.equal((await stale.me()).json.signedIn, false);
	assert.equal((await other.me()).json.signedIn, false);
});

test('sign-out ends the session and removes the cookie; it needs the CSRF token', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const cookie = b.cookieHeader();
	checkError(assert, await b.signout({ csrf: false }), 403, 'CSRF_REJECTED');
	assert.equal((await b.me()).json.signedIn, true);
	const res = await b.signout();
	assert.equal(res.status, 200);
	assert.deepEqual(res.json, { success: true, signedIn: false });
	const sc = parseSetCookie(res.headers['set-cookie']);
	assert.equal(sc.name, '__Host-burnlink_session');
	assert.equal(sc.value, '');
	assert.equal(sc.attrs['max-age'], '0');
	assert.equal(ctx.sql('SELECT count(*) FROM sessions').trim(), '0');
	// A copy of the old cookie is worthless.
	const copy = new Browser(ctx);
	copy.cookies.set(...cookie.split('='));
	assert.equal((await copy.me()).json.signedIn, false);
	// Signing out when signed out is fine.
	assert.equal((await new Browser(ctx).signout()).status, 200);
});

test('change password: wrong current one 401, then every session ends and this browser gets a new one', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const phone = new Browser(ctx, { ip: '192.0.2.50' });
	assert.equal((await phone.signin('alice@example.org')).status, 200);
	const pw = (cur, next) => b.req('password', { method: 'POST', body: { currentPassword: cur, newPassword: next } });

	checkError(assert, await pw('not my password', 'a new password'), 401, 'INVALID_CREDENTIALS');
	checkError(assert, await pw(PASSWORD, 'short'), 400, 'INVALID_PASSWORD');
	checkError(assert, await b.req('password', { method: 'POST', body: { newPassword: 'a new password' } }), 400, 'INVALID_JSON');
	checkError(assert, await b.req('password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: 'a new password' }, csrf: false }), 403, 'CSRF_REJECTED');
	checkError(assert, await new Browser(ctx).req('password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: 'a new password' } }), 401, 'NOT_SIGNED_IN');
	const get = await b.req('password');
	checkError(assert, get, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(get.headers.allow, 'POST');
	assert.equal((await phone.me()).json.signedIn, true, 'nothing changed yet');

	const oldCookie = b.cookieHeader();
	const res = await pw(PASSWORD, 'a new password');
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.json.success, true);
	assert.equal(res.json.signedIn, true);
	assert.notEqual(b.cookieHeader(), oldCookie, 'a new session id');
	assert.equal((await b.me()).json.signedIn, true);
	assert.equal((await phone.me()).json.signedIn, false, 'the other browser is signed out');
	checkError(assert, await new Browser(ctx).signin('alice@example.org'), 401, 'INVALID_CREDENTIALS');
	assert.equal((await new Browser(ctx).signin('alice@example.org', 'a new password')).status, 200);
});

test('burnlink-admin account password: the operator gives an account its password', async () => {
	const ctx = accountsContext({ BURNLINK_SIGNUP: 'closed' });
	assert.equal(admin(ctx, ['account', 'create', 'Ops@Example.org']).code, 0);
	checkError(assert, await new Browser(ctx).signin('ops@example.org'), 401, 'INVALID_CREDENTIALS');
	const short = admin(ctx, ['account', 'password', 'Ops@Example.org'], 'short\n');
	assert.equal(short.code, 2, short.stderr);
	assert.equal(admin(ctx, ['account', 'password', 'nobody'], PASSWORD + '\n').code, 3);
	const r = admin(ctx, ['account', 'password', 'Ops@Example.org'], PASSWORD + '\n');
	assert.equal(r.code, 0, r.stderr);
	assert.ok(!r.stdout.includes(PASSWORD));
	// The name as the operator typed it, or lower-cased.
	const b = new Browser(ctx);
	assert.equal((await b.signin('Ops@Example.org')).status, 200);
	assert.equal((await new Browser(ctx).signin('ops@example.org')).status, 200);
	// A new password from the operator ends the account's sessions.
	assert.equal(admin(ctx, ['account', 'password', '1'], 'another password\n').code, 0);
	assert.equal((await b.me()).json.signedIn, false);
});
