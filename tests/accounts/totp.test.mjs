// The second factor of password accounts (docs/ACCOUNTS.md, "A second
// factor"): TOTP (RFC 6238: SHA-1, 30 s, 6 digits) enrolled with the current
// password and confirmed by a code; then asked at every password sign-in; a
// code used once is refused when replayed; 10 recovery codes, each good once;
// attempts limited as sign-ins; the secret sealed under the install secret;
// burnlink-admin account 2fa-reset.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { checkError } from '../lib/cgi.mjs';
import { accountsContext, Browser, signedUp, admin, PASSWORD } from './helpers.mjs';
import { base32Decode, totpCode as code, nowStep } from '../lib/totp.mjs';
import { inOneWindow } from '../lib/counters.mjs';

// alice, signed up, with the second factor on; {ctx, b, secret, codes, step0}.
async function enrolled(ctx = accountsContext(), email = 'alice@example.org', ip) {
	const b = await signedUp(ctx, email, ip ? { ip } : {});
	const begin = await b.req('totp', { method: 'POST', body: { password: PASSWORD } });
	assert.equal(begin.status, 200, begin.body.toString());
	const step0 = nowStep();
	const ok = await b.req('totp', { method: 'POST', body: { code: code(begin.json.secret, step0) } });
	assert.equal(ok.status, 200, ok.body.toString());
	return { ctx, b, secret: begin.json.secret, codes: ok.json.recoveryCodes, step0 };
}

test('enrolment: the current password, then a code; the secret is shown once and stored sealed', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	checkError(assert, await b.req('totp', { method: 'POST', body: {} }), 400, 'INVALID_JSON');
	checkError(assert, await b.req('totp', { method: 'POST', body: { password: 'not the password' } }), 401, 'INVALID_CREDENTIALS');
	checkError(assert, await b.req('totp', { method: 'POST', body: { code: '123456' } }), 409, 'TOTP_NOT_ENABLED');
	const begin = await b.req('totp', { method: 'POST', body: { password: PASSWORD } });
	assert.equal(begin.status, 200, begin.body.toString());
	const { secret, otpauthUrl } = begin.json;
	assert.match(secret, /^[A-Z2-7]{32}$/);
	assert.equal(otpauthUrl, `otpauth://totp/burnlink%3Aalice%40example.org?secret=${secret}&algorithm=SHA1&digits=6&period=30&issuer=burnlink`);
	assert.deepEqual((await b.req('totp')).json, { enabled: false, pending: true, recoveryCodesLeft: 0 });
	// not yet asked at sign-in: the enrolment is not confirmed
	assert.equal((await new Browser(ctx).signin('alice@example.org')).status, 200);

	// sealed under the install secret: HMAC-SHA-256(secret.key, "totp\0") opens it; the raw bytes are not in the file
	const raw = base32Decode(secret);
	const row = ctx.sql('SELECT hex(secret_ct), hex(secret_iv) FROM account_totp').trim().split('|');
	assert.equal(row[0].length, 72, '20 bytes and the tag');
	assert.ok(!fs.readFileSync(ctx.db).includes(raw), 'the raw secret is not in the database file');
	const k = crypto.createHmac('sha256', fs.readFileSync(path.join(ctx.dir, 'secret.key'))).update('totp\0').digest();
	const ct = Buffer.from(row[0], 'hex');
	const d = crypto.createDecipheriv('aes-256-gcm', k, Buffer.from(row[1], 'hex'));
	d.setAuthTag(ct.subarray(20));
	assert.deepEqual(Buffer.concat([d.update(ct.subarray(0, 20)), d.final()]), raw);

	const wrong = ['000000', '111111'].find((x) => ![-1, 0, 1].some((d) => code(secret, nowStep() + d) === x));
	checkError(assert, await b.req('totp', { method: 'POST', body: { code: wrong } }), 401, 'INVALID_CODE');
	checkError(assert, await b.req('totp', { method: 'POST', body: { code: code(secret, nowStep() + 5) } }), 401, 'INVALID_CODE');
	checkError(assert, await b.req('totp', { method: 'POST', body: { code: '12345' } }), 401, 'INVALID_CODE');
	const ok = await b.req('totp', { method: 'POST', body: { code: code(secret, nowStep()) } });
	assert.equal(ok.status, 200, ok.body.toString());
	assert.equal(ok.json.recoveryCodes.length, 10);
	assert.equal(new Set(ok.json.recoveryCodes).size, 10);
	for (const c of ok.json.recoveryCodes) assert.match(c, /^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
	const stored = ctx.sql('SELECT hex(code_hash) FROM account_recovery').trim().split('\n');
	assert.equal(stored.length, 10);
	for (const c of ok.json.recoveryCodes) assert.ok(!fs.readFileSync(ctx.db).includes(Buffer.from(c.replace('-', ''))));
	assert.deepEqual((await b.req('totp')).json, { enabled: true, pending: false, recoveryCodesLeft: 10 });
	checkError(assert, await b.req('totp', { method: 'POST', body: { password: PASSWORD } }), 409, 'TOTP_ENABLED');
	// the CSRF rules of every signed-in change
	checkError(assert, await b.req('totp', { method: 'DELETE', body: { code: '123456' }, csrf: false }), 403, 'CSRF_REJECTED');
});

test('sign-in asks for the code; a wrong code and a replayed one are refused; the next one works', async () => {
	const { ctx, secret, step0 } = await enrolled();
	const c = new Browser(ctx);
	const j = checkError(assert, await c.signin('alice@example.org'), 401, 'TOTP_REQUIRED');
	assert.match(j.hint, /code/);
	checkError(assert, await c.signin('wrong@example.org'), 401, 'INVALID_CREDENTIALS');
	const req = (code) => c.req('session', { method: 'POST', body: { email: 'alice@example.org', password: PASSWORD, code } });
	checkError(assert, await req('not a code'), 401, 'INVALID_CODE');
	// the enrolment's code was used: a replay within its window is refused
	let r = checkError(assert, await req(code(secret, step0)), 401, 'INVALID_CODE');
	assert.match(r.hint, /used already/);
	assert.equal(c.cookies.size, 0, 'no session');
	// the next code: a step after the one used, and not yet out of the window
	// (step0 + 1 is accepted only until step0 + 2 ends: a slow run is past it)
	const next = code(secret, Math.max(step0 + 1, nowStep()));
	r = await req(next.slice(0, 3) + ' ' + next.slice(3));
	assert.equal(r.status, 200, r.body.toString());
	assert.equal(r.json.via, 'password');
	r = checkError(assert, await new Browser(ctx).req('session', { method: 'POST', body: { email: 'alice@example.org', password: PASSWORD, code: next } }), 401, 'INVALID_CODE');
	assert.match(r.hint, /used already/);
	// and a wrong password with a right code is the one answer for wrong credentials
	checkError(assert, await new Browser(ctx).req('session', { method: 'POST', body: { email: 'alice@example.org', password: 'wrong password', code: code(secret, step0 + 2) } }), 401, 'INVALID_CREDENTIALS');
});

test('a recovery code signs in once; it can also turn the second factor off', async () => {
	const { ctx, b, codes } = await enrolled();
	const signin = (code) => new Browser(ctx).req('session', { method: 'POST', body: { email: 'alice@example.org', password: PASSWORD, code } });
	assert.equal((await signin(codes[0].toLowerCase())).status, 200, 'any case, with its dash');
	checkError(assert, await signin(codes[0]), 401, 'INVALID_CODE');
	assert.equal((await signin(codes[1].replace('-', ''))).status, 200);
	assert.equal((await b.req('totp')).json.recoveryCodesLeft, 8);
	const off = await b.req('totp', { method: 'DELETE', body: { code: codes[2] } });
	assert.equal(off.status, 200, off.body.toString());
	assert.deepEqual(off.json, { success: true, enabled: false });
	assert.equal((await new Browser(ctx).signin('alice@example.org')).status, 200, 'no code asked');
	assert.equal(ctx.sql('SELECT count(*) FROM account_recovery').trim(), '0');
	checkError(assert, await b.req('totp', { method: 'DELETE', body: { code: codes[3] } }), 409, 'TOTP_NOT_ENABLED');
});

test('burnlink-admin account 2fa-reset removes the second factor of a person who lost it', async () => {
	const { ctx } = await enrolled();
	checkError(assert, await new Browser(ctx).signin('alice@example.org'), 401, 'TOTP_REQUIRED');
	const r = admin(ctx, ['account', '2fa-reset', 'alice@example.org']);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, /second factor removed for account 1: alice@example\.org/);
	assert.equal((await new Browser(ctx).signin('alice@example.org')).status, 200);
	assert.equal(admin(ctx, ['account', '2fa-reset', 'nobody@example.org']).code, 3);
});

test('code attempts are limited as sign-ins: the 11th an hour per account and address is 429, a right code too', () => inOneWindow(3600, async () => {
	// the counts are per clock hour: a run that straddles its end runs again
	const { ctx, secret, step0 } = await enrolled(accountsContext(), 'carol@example.org', '192.0.2.77');
	const c = new Browser(ctx, { ip: '192.0.2.77' });
	const wrong = () => ['999999', '888888'].find((x) => ![-1, 0, 1].some((d) => code(secret, nowStep() + d) === x));
	const req = (code) => c.req('session', { method: 'POST', body: { email: 'carol@example.org', password: PASSWORD, code } });
	// the enrolment's two requests counted (password, then code); eight wrong codes more
	for (let n = 0; n < 8; n++)
		checkError(assert, await req(wrong()), 401, 'INVALID_CODE');
	const r = await req(code(secret, step0 + 1));
	checkError(assert, r, 429, 'RATE_LIMIT_EXCEEDED');
	assert.match(r.headers['retry-after'], /^\d+$/);
	// from another address the right code works (the limit is per account and address)
	// (a code after the enrolment's that is still in the window however long the attempts took)
	const other = await new Browser(ctx, { ip: '192.0.2.78' }).req('session', { method: 'POST', body: { email: 'carol@example.org', password: PASSWORD, code: code(secret, Math.max(step0 + 1, nowStep())) } });
	assert.equal(other.status, 200, other.body.toString());
}));

test('a session the web server signed in has its second factor at the identity provider: 403 SIGNIN_METHOD_OFF', async () => {
	const ctx = accountsContext({ BURNLINK_SIGNUP: '' });
	fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), 'signin_webserver = yes\nwebserver_create = yes\n');
	const b = new Browser(ctx);
	assert.equal((await b.req('session', { method: 'POST', body: { webServer: true }, env: { REMOTE_USER: 'dan@example.org' } })).status, 200);
	checkError(assert, await b.req('totp', { method: 'POST', body: { password: 'whatever it is' }, env: { REMOTE_USER: 'dan@example.org' } }), 403, 'SIGNIN_METHOD_OFF');
});
