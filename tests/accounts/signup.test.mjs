// Sign-up (POST /api/signup): open or closed, validation, the session cookie it
// sets, and the common headers of every answer.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError, checkCommonHeaders, newContext } from '../lib/cgi.mjs';
import { inOneWindow } from '../lib/counters.mjs';
import { accountsContext, Browser, parseSetCookie, admin, rows, PASSWORD } from './helpers.mjs';

test('sign-up is closed by default: 403 SIGNUP_CLOSED, nothing created', async () => {
	const ctx = newContext();
	const b = new Browser(ctx);
	const res = await b.signup('alice@example.org');
	checkError(assert, res, 403, 'SIGNUP_CLOSED');
	assert.equal(res.headers['set-cookie'], undefined);
	assert.match(res.headers['x-ratelimit-limit'], /^\d+$/);
	assert.equal(rows(ctx, 'accounts'), 0);
	// Anything but "open" keeps it closed.
	for (const v of ['OPEN', 'yes', '1', ''])
		checkError(assert, await b.signup('alice@example.org', PASSWORD, { env: { BURNLINK_SIGNUP: v } }), 403, 'SIGNUP_CLOSED');
	const me = await b.me();
	assert.equal(me.status, 200);
	assert.deepEqual(me.json, { signedIn: false, signup: 'closed', webServerUser: false,
		signIn: { password: true, webServer: false, logoutUrl: null } });
});

test('open sign-up creates the account (e-mail lower-cased) and signs it in', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	const res = await b.signup('Alice@Example.ORG');
	assert.equal(res.status, 200, res.body.toString());
	checkCommonHeaders(assert, res);
	assert.equal(res.json.success, true);
	assert.equal(res.json.signedIn, true);
	assert.equal(res.json.signup, 'open');
	assert.equal(res.json.account.email, 'alice@example.org');
	assert.equal(typeof res.json.account.id, 'number');
	assert.match(res.json.account.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	assert.match(res.json.csrfToken, /^[A-Za-z0-9_-]{43}$/);
	assert.ok(Date.parse(res.json.expiresAt) > Date.now());
	// The password is stored only as salt || scrypt (48 bytes).
	assert.equal(ctx.sql('SELECT length(pass_hash) FROM account_passwords').trim(), '48');
	assert.equal(ctx.sql(`SELECT count(*) FROM account_passwords WHERE pass_hash LIKE '%${PASSWORD}%'`).trim(), '0');
	const me = await b.me();
	assert.equal(me.json.signedIn, true);
	assert.equal(me.json.account.email, 'alice@example.org');
});

test('the session cookie: __Host- prefix, HttpOnly, Secure, SameSite=Strict, Path=/; stored hashed', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	const res = await b.signup('carol@example.org');
	const c = parseSetCookie(res.headers['set-cookie']);
	assert.equal(c.name, '__Host-burnlink_session');
	assert.match(c.value, /^[A-Za-z0-9_-]{43}$/);
	assert.equal(c.attrs.httponly, true);
	assert.equal(c.attrs.secure, true);
	assert.equal(c.attrs.samesite, 'Strict');
	assert.equal(c.attrs.path, '/');
	assert.equal(c.attrs.domain, undefined);
	assert.equal(c.attrs['max-age'], '43200');
	// Only SHA-256 of the id is in the database.
	const stored = ctx.sql('SELECT hex(session_hash) FROM sessions').trim();
	const { createHash } = await import('node:crypto');
	assert.equal(stored, createHash('sha256').update(c.value).digest('hex').toUpperCase());
	assert.deepEqual(ctx.sql(`SELECT count(*) FROM sessions WHERE session_hash = '${c.value}'`).trim(), '0');
});

test('Secure is dropped only for plain-http loopback hosts', async () => {
	const ctx = accountsContext();
	const cases = [
		{ host: '127.0.0.1:8081', https: false, secure: false },
		{ host: 'localhost', https: false, secure: false },
		{ host: '[::1]:9000', https: false, secure: false },
		{ host: '127.0.0.1:8081', https: true, secure: true },
		{ host: 'burnlink.test', https: false, secure: true },
		{ host: '127.0.0.1.example.org', https: false, secure: true },
		{ host: 'localhost:80:80', https: false, secure: true },
	];
	let n = 0;
	for (const c of cases) {
		const b = new Browser(ctx, { host: c.host, https: c.https, ip: `192.0.2.${100 + n}` });
		const res = await b.signup(`user${n++}@example.org`);
		assert.equal(res.status, 200, `${c.host}: ${res.body}`);
		const sc = parseSetCookie(res.headers['set-cookie']);
		assert.equal(!!sc.attrs.secure, c.secure, `${c.host} https=${c.https}: ${res.headers['set-cookie']}`);
		assert.equal(sc.name, c.secure ? '__Host-burnlink_session' : 'burnlink_session');
		assert.equal(sc.attrs.httponly, true);
		assert.equal(sc.attrs.samesite, 'Strict');
		// The browser's cookie works for the next request on that host.
		assert.equal((await b.me()).json.signedIn, true, c.host);
	}
	// A plain-named cookie is not accepted on a real host (only the __Host- one is).
	const b = new Browser(ctx, { host: 'burnlink.test' });
	await b.signup('dave@example.org');
	const v = [...b.cookies.values()][0];
	b.cookies.clear();
	b.cookies.set('burnlink_session', v);
	assert.equal((await b.me()).json.signedIn, false);
});

test('an https:// site URL always gets the Secure __Host- cookie, whatever Host a proxy forwards', async () => {
	// A TLS-terminating proxy forwarding plain http with Host: 127.0.0.1:8080.
	const ctx = accountsContext({ BURNLINK_SITE_URL: 'https://burnlink.test' });
	let n = 0;
	for (const host of ['127.0.0.1:8080', 'localhost', '[::1]:8080']) {
		const b = new Browser(ctx, { host, https: false, ip: `192.0.2.${120 + n}` });
		const res = await b.signup(`proxied${n++}@example.org`, undefined, { origin: 'https://burnlink.test' });
		assert.equal(res.status, 200, `${host}: ${res.body}`);
		const sc = parseSetCookie(res.headers['set-cookie']);
		assert.equal(sc.name, '__Host-burnlink_session', `${host}: ${res.headers['set-cookie']}`);
		assert.equal(sc.attrs.secure, true, `${host}: ${res.headers['set-cookie']}`);
	}
	// An http:// site URL on a loopback host is development: no Secure.
	const dev = accountsContext({ BURNLINK_SITE_URL: 'http://127.0.0.1:8080' });
	const b = new Browser(dev, { host: '127.0.0.1:8080', https: false });
	const res = await b.signup('dev@example.org');
	assert.equal(res.status, 200, String(res.body));
	assert.equal(parseSetCookie(res.headers['set-cookie']).name, 'burnlink_session');
});

test('invalid e-mail addresses: 400 INVALID_EMAIL', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	for (const email of ['', 'no-at-sign', '@example.org', 'alice@', 'a@b@c', 'with space@example.org',
		'tab\t@example.org', 'nel\u0085@example.org', 'x'.repeat(250) + '@e.org', 'nul\u0000@example.org', 42, null, ['a@b']]) {
		const res = await b.signup(email);
		checkError(assert, res, 400, 'INVALID_EMAIL');
	}
	assert.equal(rows(ctx, 'accounts'), 0);
});

test('invalid passwords: 400 INVALID_PASSWORD (8 to 256 characters)', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	for (const password of ['', 'short', '1234567', 'x'.repeat(257), 12345678, null])
		checkError(assert, await b.signup('alice@example.org', password), 400, 'INVALID_PASSWORD');
	// 8 characters (not bytes) is enough; 256 emoji are not too many.
	assert.equal((await new Browser(ctx, { ip: '192.0.2.11' }).signup('bob@example.org', '🔑🔑🔑🔑🔑🔑🔑🔑')).status, 200);
	assert.equal((await new Browser(ctx, { ip: '192.0.2.12' }).signup('eve@example.org', '😀'.repeat(256))).status, 200);
});

test('an existing address: 409 ACCOUNT_EXISTS, whatever its case', async () => {
	const ctx = accountsContext();
	assert.equal((await new Browser(ctx).signup('alice@example.org')).status, 200);
	const b = new Browser(ctx, { ip: '192.0.2.20' });
	const res = await b.signup('ALICE@example.org', 'another password');
	checkError(assert, res, 409, 'ACCOUNT_EXISTS');
	assert.equal(res.headers['set-cookie'], undefined);
	assert.equal(ctx.sql('SELECT count(*) FROM accounts').trim(), '1');
	// Also against a name burnlink-admin created with capitals.
	assert.equal(admin(ctx, ['account', 'create', 'Ops@Example.org']).code, 0);
	checkError(assert, await new Browser(ctx, { ip: '192.0.2.21' }).signup('ops@example.org'), 409, 'ACCOUNT_EXISTS');
});

test('sign-up needs a JSON body and POST', async () => {
	const ctx = accountsContext();
	const b = new Browser(ctx);
	checkError(assert, await b.req('signup', { method: 'POST' }), 400, 'INVALID_JSON');
	checkError(assert, await b.req('signup', { method: 'POST', body: '[1]' }), 400, 'INVALID_JSON');
	const ct = await b.req('signup', { method: 'POST', body: '{"email":"a@b.c"}', env: { CONTENT_TYPE: 'text/plain' } });
	checkError(assert, ct, 415, 'UNSUPPORTED_MEDIA_TYPE');
	for (const method of ['GET', 'PUT', 'DELETE']) {
		const res = await b.req('signup', { method });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(res.headers.allow, 'POST');
	}
});

test('sign-ups are limited per address: the 11th in an hour is 429', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	for (let i = 0; i < 10; i++)
		assert.equal((await new Browser(ctx, { ip: '198.51.100.7' }).signup(`u${i}@example.org`)).status, 200);
	const res = await new Browser(ctx, { ip: '198.51.100.7' }).signup('u10@example.org');
	checkError(assert, res, 429, 'RATE_LIMIT_EXCEEDED');
	assert.match(res.headers['retry-after'], /^\d+$/);
	assert.equal(res.headers['x-ratelimit-remaining'], '0');
	assert.equal((await new Browser(ctx, { ip: '198.51.100.8' }).signup('u10@example.org')).status, 200);
}));
