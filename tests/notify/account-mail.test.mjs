// account-mail.test.mjs: the mail accounts need (docs/NOTIFY.md), through the
// outbox and cron/notify with a capture script as BURNLINK_SENDMAIL: the
// address verified by the link of the sign-up mail (and of a new address),
// the password reset by e-mail (one-time, short-lived, stored hashed; the
// same answer whether the address exists; every session ended).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runProgram } from '../lib/cgi.mjs';
import { accountsContext, signedUp, Browser, PASSWORD, admin } from '../accounts/helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-accmail-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const mailer = path.join(dir, 'capture-mail');
fs.writeFileSync(mailer, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\n', { mode: 0o755 });
const SITE = 'https://burnlink.test';

async function deliver(ctx) {
	const mails = fs.mkdtempSync(path.join(dir, 'mails-'));
	const run = await runProgram('notify', { env: { ...ctx.env, BURNLINK_SENDMAIL: `${mailer} ${mails}`,
		BURNLINK_SITE_URL: SITE, BURNLINK_MAIL_FROM: 'no-reply@burnlink.test' } });
	assert.equal(run.code, 0, run.stderr);
	return { run, mails: fs.readdirSync(mails).map((f) => fs.readFileSync(path.join(mails, f), 'utf8')) };
}

// The files of the test's data directory (the database, its -wal and -shm)
// that hold text: none may keep a token once its mail is sent.
function filesHolding(ctx, text) {
	return fs.readdirSync(ctx.dir).filter((f) => {
		const p = path.join(ctx.dir, f);
		return fs.statSync(p).isFile() && fs.readFileSync(p).includes(Buffer.from(text));
	});
}

function tokenOf(mail, kind) {
	const m = new RegExp(`^${SITE.replace(/\./g, '\\.')}/dashboard#${kind}=([A-Za-z0-9_-]{43})$`, 'm').exec(mail);
	assert.ok(m, `a ${kind} link in: ${mail}`);
	return m[1];
}

test('sign-up mails a verification link; the address is verified once, by it', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'Alice@Example.org');
	assert.deepEqual((await b.req('email')).json, { email: 'alice@example.org', verified: false });
	const { run, mails } = await deliver(ctx);
	assert.equal(mails.length, 1);
	assert.match(mails[0], /^To: alice@example\.org$/m);
	assert.match(mails[0], /^From: no-reply@burnlink\.test$/m);
	assert.match(mails[0], /^Subject: Confirm your e-mail address$/m);
	const token = tokenOf(mails[0], 'verify');
	assert.ok(!run.stderr.includes(token), 'the token is not logged');
	// before any other connection (the sqlite3 shell's closing checkpoints the WAL)
	assert.deepEqual(filesHolding(ctx, token), [], 'no file of the database (the WAL) holds the token');
	assert.equal(ctx.sql(`SELECT count(*) FROM outbox WHERE detail IS NOT NULL`).trim(), '0',
		'the sent mail no longer holds the token');

	const anon = new Browser(ctx, { ip: '192.0.2.99' });
	assert.equal((await anon.req('token', { method: 'POST', body: { token: token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') } })).json.code, 'INVALID_TOKEN');
	const ok = await anon.req('token', { method: 'POST', body: { token } });
	assert.equal(ok.status, 200);
	assert.deepEqual(ok.json, { success: true });
	assert.deepEqual((await b.req('email')).json, { email: 'alice@example.org', verified: true });
	const again = await anon.req('token', { method: 'POST', body: { token } });
	assert.equal(again.status, 400);
	assert.equal(again.json.code, 'INVALID_TOKEN');

	// A new address: not verified until its own link comes back.
	const set = await b.req('email', { method: 'POST', body: { email: 'alice@new.example', currentPassword: PASSWORD } });
	assert.equal(set.status, 200);
	assert.deepEqual(set.json, { success: true, email: 'alice@new.example', verified: false });
	const second = await deliver(ctx);
	const toNew = second.mails.filter((m) => /^To: alice@new\.example$/m.test(m));
	assert.equal(toNew.length, 1);
	assert.equal((await anon.req('token', { method: 'POST', body: { token: tokenOf(toNew[0], 'verify') } })).status, 200);
	assert.equal((await b.req('email')).json.verified, true);
});

// docs/API.md, POST /email: a stolen session (its cookie and CSRF token) is
// not enough to move the account's mail, and so its password resets, to
// another address; the verified address replaced is told by mail.
test('changing the address needs the password, and the verified address replaced is told', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const verify = await deliver(ctx);
	assert.equal((await b.req('token', { method: 'POST', body: { token: tokenOf(verify.mails[0], 'verify') } })).status, 200);

	const bare = await b.req('email', { method: 'POST', body: { email: 'thief@evil.example' } });
	assert.equal(bare.status, 400);
	assert.equal(bare.json.code, 'INVALID_JSON');
	assert.match(bare.json.hint, /currentPassword/);
	const wrong = await b.req('email', { method: 'POST', body: { email: 'thief@evil.example', currentPassword: 'a guess of the thief' } });
	assert.equal(wrong.status, 401);
	assert.equal(wrong.json.code, 'INVALID_CREDENTIALS');
	assert.deepEqual((await b.req('email')).json, { email: 'alice@example.org', verified: true }, 'unchanged');
	assert.equal((await deliver(ctx)).mails.length, 0, 'nothing mailed');

	// with the password: the new address gets its link, the old one a notice
	const ok = await b.req('email', { method: 'POST', body: { email: 'alice@new.example', currentPassword: PASSWORD } });
	assert.equal(ok.status, 200);
	const { run, mails } = await deliver(ctx);
	assert.equal(mails.length, 2, mails.join('\n----\n'));
	const notice = mails.find((m) => /^To: alice@example\.org$/m.test(m));
	assert.ok(notice, 'the old address is told');
	assert.match(notice, /^Subject: The e-mail address of your account was changed$/m);
	assert.ok(!notice.includes('alice@new.example'), 'the notice does not name the new address');
	assert.ok(!/#(verify|reset)=/.test(notice), 'the notice holds no link');
	assert.ok(mails.some((m) => /^To: alice@new\.example$/m.test(m) && /#verify=/.test(m)));
	assert.ok(!run.stderr.includes('alice@example.org'), 'the address is not logged');
	assert.equal(ctx.sql(`SELECT count(*) FROM outbox WHERE detail IS NOT NULL`).trim(), '0',
		'the sent notice no longer holds the old address');

	// the same address again (a resend) and an unverified one replaced: no notice
	for (const email of ['alice@new.example', 'alice@other.example']) {
		assert.equal((await b.req('email', { method: 'POST', body: { email, currentPassword: PASSWORD } })).status, 200);
		const later = await deliver(ctx);
		assert.equal(later.mails.length, 1);
		assert.match(later.mails[0], new RegExp(`^To: ${email.replace(/\./g, '\\.')}$`, 'm'));
		assert.match(later.mails[0], /#verify=/);
	}
});

test('password reset by e-mail: same answer for any address, one-time, short-lived, ends every session', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const verify = await deliver(ctx);
	assert.equal((await b.req('token', { method: 'POST', body: { token: tokenOf(verify.mails[0], 'verify') } })).status, 200);
	// an account whose address is not verified gets no reset mail
	await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.20' });
	await deliver(ctx);

	const anon = new Browser(ctx, { ip: '192.0.2.99' });
	const answers = [];
	for (const email of ['alice@example.org', 'nobody@example.org', 'bob@example.org']) {
		const r = await anon.req('token', { method: 'POST', body: { email } });
		assert.equal(r.status, 200);
		answers.push(JSON.stringify(r.json));
	}
	assert.equal(new Set(answers).size, 1, 'the same answer whether the address exists');
	const { mails } = await deliver(ctx);
	assert.equal(mails.length, 1, 'only the verified address gets a mail');
	assert.match(mails[0], /^To: alice@example\.org$/m);
	assert.match(mails[0], /^Subject: Reset your password$/m);
	const token = tokenOf(mails[0], 'reset');
	assert.deepEqual(filesHolding(ctx, token), [], 'a sent reset token is in no file of the database');
	assert.equal(ctx.sql(`SELECT count(*) FROM account_emails WHERE token_kind = 2 AND token_hash IS NOT NULL`).trim(), '1');

	const verifyWithReset = await anon.req('token', { method: 'POST', body: { token } });
	assert.equal(verifyWithReset.json.code, 'INVALID_TOKEN', 'a reset token does not verify');
	const weak = await anon.req('token', { method: 'POST', body: { token, password: 'short' } });
	assert.equal(weak.json.code, 'INVALID_PASSWORD');
	const reset = await anon.req('token', { method: 'POST', body: { token, password: 'a brand new password' } });
	assert.equal(reset.status, 200);
	assert.equal((await b.me()).json.signedIn, false, 'the old session ended');
	assert.equal((await new Browser(ctx).signin('alice@example.org', PASSWORD)).status, 401);
	assert.equal((await new Browser(ctx).signin('alice@example.org', 'a brand new password')).status, 200);
	assert.equal((await anon.req('token', { method: 'POST', body: { token, password: 'another new password' } })).json.code,
		'INVALID_TOKEN', 'used once');

	// A token past its hour is refused (its stored expiry moved back).
	assert.equal((await anon.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	const late = tokenOf((await deliver(ctx)).mails[0], 'reset');
	ctx.sql('UPDATE account_emails SET token_expires = token_expires - 3600001');
	assert.equal((await anon.req('token', { method: 'POST', body: { token: late, password: 'yet another password' } })).json.code,
		'INVALID_TOKEN');

	// A password changed after a reset was mailed voids that reset: its link
	// would otherwise undo the change for the rest of its hour.
	assert.equal((await anon.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	const pending = tokenOf((await deliver(ctx)).mails[0], 'reset');
	const owner = new Browser(ctx);
	assert.equal((await owner.signin('alice@example.org', 'a brand new password')).status, 200);
	assert.equal((await owner.req('password', { method: 'POST',
		body: { currentPassword: 'a brand new password', newPassword: 'changed by the owner' } })).status, 200);
	assert.equal((await anon.req('token', { method: 'POST', body: { token: pending, password: 'taken over' } })).json.code,
		'INVALID_TOKEN', 'the reset mailed before the change is void');
	assert.equal((await new Browser(ctx).signin('alice@example.org', 'changed by the owner')).status, 200);
});

// docs/ACCOUNTS.md, "Password reset": POST /token {email} does the same work
// (one outbox row) and answers with the same headers (the client's window)
// whatever the address; cron/notify looks the address up. No per-address
// count shows in the headers, and none turns into a 429.
test('a reset request: the same work and the same headers whatever the address', () => inOneWindow(86400, async () => {
	// the client's count is per UTC day: a run that straddles midnight runs again, once
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	assert.equal((await b.req('token', { method: 'POST', body: { token: tokenOf((await deliver(ctx)).mails[0], 'verify') } })).status, 200);
	await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.20' });
	await deliver(ctx);

	const emails = () => ctx.sql('SELECT account_id, email, verified_at, hex(token_hash), token_kind, token_expires FROM account_emails ORDER BY 1');
	const outbox = () => Number(ctx.sql('SELECT count(*) FROM outbox').trim());
	const before = emails();
	const rows = outbox();
	const anon = new Browser(ctx, { ip: '192.0.2.99' });
	const seen = [];
	for (const email of ['alice@example.org', 'nobody@example.org', 'bob@example.org', 'alice@example.org',
		'alice@example.org', 'alice@example.org', 'alice@example.org', 'alice@example.org']) {
		const r = await anon.req('token', { method: 'POST', body: { email } });
		assert.equal(r.status, 200, `${email}: ${JSON.stringify(r.json)}`);
		assert.deepEqual(r.json, { success: true });
		seen.push([r.headers['x-ratelimit-limit'], r.headers['x-ratelimit-remaining'], r.headers['x-ratelimit-reset']]);
	}
	// the client's window only: the same limit, one less left per request, whatever the address
	assert.ok(seen.every((h) => h[0] === seen[0][0] && h[2] === seen[0][2]), JSON.stringify(seen));
	for (let i = 1; i < seen.length; i++)
		assert.equal(Number(seen[i][1]), Number(seen[i - 1][1]) - 1, JSON.stringify(seen));
	assert.equal(emails(), before, 'no request wrote to an account: the lookup is cron/notify\'s');
	assert.equal(outbox(), rows + 8, 'one outbox row per request, whatever the address');

	const { run, mails } = await deliver(ctx);
	assert.equal(mails.length, 1, 'one mail: to the verified address, once while its link is valid');
	assert.match(mails[0], /^To: alice@example\.org$/m);
	for (const a of ['alice@example.org', 'nobody@example.org', 'bob@example.org'])
		assert.ok(!run.stderr.includes(a), `${a} is not logged`);
	assert.equal(ctx.sql(`SELECT count(*) FROM outbox WHERE detail IS NOT NULL`).trim(), '0', 'the requests forget the addresses');
}));

// A stranger can ask for resets of someone's address as often as the
// client limit allows; none of them voids the link the owner already has,
// and the owner gets at most one mail while it is valid.
test("a stranger's reset requests never void the owner's link", async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	assert.equal((await b.req('token', { method: 'POST', body: { token: tokenOf((await deliver(ctx)).mails[0], 'verify') } })).status, 200);
	const owner = new Browser(ctx, { ip: '192.0.2.50' });
	assert.equal((await owner.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	const link = tokenOf((await deliver(ctx)).mails[0], 'reset');
	const stranger = new Browser(ctx, { ip: '203.0.113.66' });
	for (let i = 0; i < 6; i++) {
		assert.equal((await stranger.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
		assert.equal((await deliver(ctx)).mails.length, 0, 'no new mail while the link is valid');
	}
	assert.equal((await owner.req('token', { method: 'POST', body: { token: link, password: 'the owner chose this' } })).status, 200);
	assert.equal((await new Browser(ctx).signin('alice@example.org', 'the owner chose this')).status, 200);
	// once it is used (or an hour old), the next request mails a new link
	assert.equal((await stranger.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	assert.equal((await deliver(ctx)).mails.length, 1);
});

// docs/API.md, POST /session: strangers who spend an account's sign-in
// attempts (30 an hour from all addresses) do not lock its owner out: a
// completed reset by mail clears that counter.
test('a password reset by mail clears the account-wide sign-in limit', () => inOneWindow(3600, async () => {
	// sign-in attempts count per clock hour: a run that straddles its end runs again, once
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	assert.equal((await b.req('token', { method: 'POST', body: { token: tokenOf((await deliver(ctx)).mails[0], 'verify') } })).status, 200);
	for (let i = 0; i < 30; i++)
		assert.equal((await new Browser(ctx, { ip: `198.51.100.${i + 1}` }).signin('alice@example.org', `guess ${i}xx`)).status, 401);
	const locked = await new Browser(ctx, { ip: '192.0.2.77' }).signin('alice@example.org');
	assert.equal(locked.status, 429);
	assert.equal(locked.json.code, 'RATE_LIMIT_EXCEEDED');
	const anon = new Browser(ctx, { ip: '192.0.2.78' });
	assert.equal((await anon.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
	const token = tokenOf((await deliver(ctx)).mails[0], 'reset');
	assert.equal((await anon.req('token', { method: 'POST', body: { token, password: 'the owner is back' } })).status, 200);
	assert.equal((await new Browser(ctx, { ip: '192.0.2.79' }).signin('alice@example.org', 'the owner is back')).status, 200);
}));

// docs/ADMIN.md: an account made by burnlink-admin has no address until the
// operator gives it one (account email), verified at once, so that mail
// receipts and password resets reach it.
test('burnlink-admin account email: an operator-made account gets a verified address', async () => {
	const ctx = accountsContext();
	assert.equal(admin(ctx, ['account', 'create', 'Carol@Example.org']).code, 0);
	assert.equal(admin(ctx, ['account', 'password', 'Carol@Example.org'], `${PASSWORD}\n`).code, 0);
	const b = new Browser(ctx);
	assert.equal((await b.signin('carol@example.org')).status, 200);
	assert.deepEqual((await b.req('email')).json, { email: null, verified: false });

	assert.equal(admin(ctx, ['account', 'email', 'Carol@Example.org', 'not an address']).code, 2);
	assert.equal(admin(ctx, ['account', 'email', 'nobody@example.org', 'x@example.org']).code, 3);
	const set = admin(ctx, ['account', 'email', 'Carol@Example.org', 'Carol@Example.org']);
	assert.equal(set.code, 0, set.stderr);
	assert.match(set.stdout, /verified/);
	assert.deepEqual((await b.req('email')).json, { email: 'carol@example.org', verified: true });
	assert.equal((await deliver(ctx)).mails.length, 0, 'no verification mail: the operator vouches');

	// a reset by mail now reaches it
	assert.equal((await new Browser(ctx, { ip: '192.0.2.88' }).req('token', { method: 'POST', body: { email: 'carol@example.org' } })).status, 200);
	const reset = await deliver(ctx);
	assert.equal(reset.mails.length, 1);
	assert.match(reset.mails[0], /^To: carol@example\.org$/m);
	tokenOf(reset.mails[0], 'reset');

	// another address: the one replaced is told, and the pending reset link is void
	assert.equal(admin(ctx, ['account', 'email', 'Carol@Example.org', 'carol@new.example']).code, 0);
	const told = await deliver(ctx);
	assert.equal(told.mails.length, 1);
	assert.match(told.mails[0], /^To: carol@example\.org$/m);
	assert.match(told.mails[0], /^Subject: The e-mail address of your account was changed$/m);
	assert.equal(ctx.sql('SELECT count(*) FROM account_emails WHERE token_hash IS NOT NULL').trim(), '0');
});

test('sign-up stays closed by default', async () => {
	const ctx = accountsContext({ BURNLINK_SIGNUP: undefined });
	const r = await new Browser(ctx).signup('carol@example.org');
	assert.equal(r.status, 403);
	assert.equal(r.json.code, 'SIGNUP_CLOSED');
});

// Run by root (as root's crontab does), cron/notify becomes the owner of the
// data directory before it opens anything, as cron/cleanup and burnlink-admin
// do: the mailer it starts runs as that user, not as root (docs/NOTIFY.md).
test('run by root, cron/notify works as the data directory\'s owner (the mailer too)', { skip: process.getuid() !== 0 && 'needs root' }, async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	const NOBODY = 65534;
	// a directory the mailer may write whoever it runs as
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-owner-'));
	process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
	fs.chmodSync(out, 0o777);
	const who = path.join(out, 'who-mail');
	fs.writeFileSync(who, '#!/bin/sh\nid -u > "$1/uid"\nid -G > "$1/groups"\ncat > "$1/mail"\n', { mode: 0o755 });
	const data = path.dirname(ctx.env.BURNLINK_SECRET_FILE || ctx.db);
	for (const p of new Set([ctx.dir, data]))
		for (const f of [p, ...fs.readdirSync(p).map((n) => path.join(p, n))])
			fs.chownSync(f, NOBODY, NOBODY);
	const run = await runProgram('notify', { env: { ...ctx.env, BURNLINK_SENDMAIL: `${who} ${out}`,
		BURNLINK_SITE_URL: SITE } });
	assert.equal(run.code, 0, run.stderr);
	assert.equal(fs.readFileSync(path.join(out, 'uid'), 'utf8').trim(), String(NOBODY), 'the mailer ran as the owner');
	assert.equal(fs.readFileSync(path.join(out, 'groups'), 'utf8').trim(), String(NOBODY), 'with its group only');
	assert.match(fs.readFileSync(path.join(out, 'mail'), 'utf8'), /^To: alice@example\.org$/m);
	// and what it wrote belongs to the owner
	for (const f of fs.readdirSync(ctx.dir))
		assert.equal(fs.statSync(path.join(ctx.dir, f)).uid, NOBODY, `${f} is the owner's`);
});
