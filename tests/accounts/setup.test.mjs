// Setup without a shell (POST /api/setup, docs/API.md; docs/ADMIN.md "Setting
// up without a shell"): the file burnlink-setup in the data directory opens it
// while no account has the admin role; its code shows the settings file's
// check and creates the first operator's account.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { checkError, newContext } from '../lib/cgi.mjs';
import { Browser, admin, rows, PASSWORD } from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

const CODE = 'Zq3v8Kx1Lw9Tb6Hn2Yd5Rf0Ms7Pc4Ja';

function setupFile(ctx, code = CODE) {
	const f = path.join(ctx.dir, 'burnlink-setup');
	fs.writeFileSync(f, `${code}\n`);
	return f;
}

function setup(b, body) {
	return b.req('setup', { method: 'POST', body });
}

function isOpen(b) {
	return b.req('setup').then((r) => { assert.equal(r.status, 200, r.body.toString()); return r.json.open; });
}

test('no setup file: closed (GET says so, POST 404 SETUP_CLOSED with a hint)', async () => {
	const ctx = newContext();
	const b = new Browser(ctx);
	assert.equal(await isOpen(b), false);
	const res = await setup(b, { code: CODE, name: 'op', password: PASSWORD });
	checkError(assert, res, 404, 'SETUP_CLOSED');
	assert.match(res.json.hint, /burnlink-setup/);
	assert.equal(rows(ctx, 'accounts'), 0);
});

test('a code shorter than 24 characters in the file does not open setup', async () => {
	const ctx = newContext();
	setupFile(ctx, 'short-code');
	const b = new Browser(ctx);
	assert.equal(await isOpen(b), false);
	checkError(assert, await setup(b, { code: 'short-code' }), 404, 'SETUP_CLOSED');
});

test('the right code: the admin account is created and signed in, the file deleted, a second use refused', async () => {
	const ctx = newContext();
	const f = setupFile(ctx);
	const b = new Browser(ctx);
	assert.equal(await isOpen(b), true);
	const res = await setup(b, { code: CODE, name: 'operator@example.org', password: PASSWORD });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.json.signedIn, true);
	assert.equal(res.json.account.email, 'operator@example.org');
	assert.equal(fs.existsSync(f), false);
	assert.ok(!res.stderr.includes(CODE) && !res.stderr.includes(PASSWORD), res.stderr);
	const list = admin(ctx, ['--json', 'account', 'list']);
	assert.equal(list.code, 0, list.stderr);
	assert.equal(list.json.length, 1);
	assert.equal(ctx.sql('SELECT admin FROM accounts').trim(), '1');
	// the session is an administrator's: the operator's API answers
	const ov = await b.req('admin_overview');
	assert.equal(ov.status, 200, ov.body.toString());
	// the password works for a sign-in
	const b2 = new Browser(ctx);
	assert.equal((await b2.signin('operator@example.org')).status, 200);
	// recorded in the audit trail, without the code
	assert.equal(ctx.sql("SELECT count(*) FROM audit_events WHERE kind = 'admin.command' AND detail = '/setup'").trim(), '1');
	// a second attempt, even with a new file: an administrator exists
	setupFile(ctx);
	assert.equal(await isOpen(b2), false);
	checkError(assert, await setup(b2, { code: CODE, name: 'second', password: PASSWORD }), 404, 'SETUP_CLOSED');
	assert.equal(rows(ctx, 'accounts'), 1);
});

test('an account with the admin role closes setup even with a file', async () => {
	const ctx = newContext();
	assert.equal(admin(ctx, ['account', 'create', 'boss']).code, 0);
	assert.equal(admin(ctx, ['account', 'admin', 'boss', 'on']).code, 0);
	setupFile(ctx);
	const b = new Browser(ctx);
	assert.equal(await isOpen(b), false);
	checkError(assert, await setup(b, { code: CODE }), 404, 'SETUP_CLOSED');
	checkError(assert, await setup(b, { code: CODE, name: 'other', password: PASSWORD }), 404, 'SETUP_CLOSED');
	assert.equal(rows(ctx, 'accounts'), 1);
});

test('a file older than 24 hours is refused', async () => {
	const ctx = newContext();
	const f = setupFile(ctx);
	const old = new Date(Date.now() - 25 * 3600 * 1000);
	fs.utimesSync(f, old, old);
	const b = new Browser(ctx);
	assert.equal(await isOpen(b), false);
	checkError(assert, await setup(b, { code: CODE, name: 'op', password: PASSWORD }), 404, 'SETUP_CLOSED');
	assert.equal(rows(ctx, 'accounts'), 0);
});

test('5 wrong codes delete the file; the right code then finds setup closed', () => inOneWindow(86400, async () => {
	// wrong codes count per UTC day: a run that straddles midnight runs again, once
	const ctx = newContext();
	const f = setupFile(ctx);
	const b = new Browser(ctx);
	for (let i = 1; i <= 5; i++) {
		assert.equal(fs.existsSync(f), true, `the file is there before wrong code ${i}`);
		const res = await setup(b, { code: `wrong-code-${i}-xxxxxxxxxxxxxxxxxxx`, name: 'op', password: PASSWORD });
		checkError(assert, res, 403, 'INVALID_SETUP_CODE');
		assert.match(res.json.hint, i < 5 ? new RegExp(`${5 - i} more wrong code`) : /deleted/);
	}
	assert.equal(fs.existsSync(f), false);
	checkError(assert, await setup(b, { code: CODE, name: 'op', password: PASSWORD }), 404, 'SETUP_CLOSED');
	assert.equal(rows(ctx, 'accounts'), 0);
	// a new file (a new code) starts its own count
	const code2 = `${CODE}-2`;
	setupFile(ctx, code2);
	checkError(assert, await setup(b, { code: 'wrong-code-again-xxxxxxxxxxxxxx' }), 403, 'INVALID_SETUP_CODE');
	const ok = await setup(b, { code: code2, name: 'op', password: PASSWORD });
	assert.equal(ok.status, 200, ok.body.toString());
}));

test('a missing or non-string code: 403 INVALID_SETUP_CODE with a hint', async () => {
	const ctx = newContext();
	setupFile(ctx);
	const b = new Browser(ctx);
	for (const body of [{}, { code: 5 }, { name: 'op', password: PASSWORD }]) {
		const res = await setup(b, body);
		checkError(assert, res, 403, 'INVALID_SETUP_CODE');
		assert.match(res.json.hint, /"code"/);
	}
});

test('two concurrent requests with the right code: exactly one account', async () => {
	const ctx = newContext();
	setupFile(ctx);
	// the database exists first, so that both requests race on the file alone
	assert.equal(await isOpen(new Browser(ctx)), true);
	const [r1, r2] = await Promise.all([
		setup(new Browser(ctx), { code: CODE, name: 'first', password: PASSWORD }),
		setup(new Browser(ctx), { code: CODE, name: 'second', password: PASSWORD }),
	]);
	const st = [r1.status, r2.status].sort();
	assert.deepEqual(st, [200, 404], `${r1.body} ${r2.body}`);
	assert.equal(rows(ctx, 'accounts'), 1);
	assert.equal(ctx.sql('SELECT count(*) FROM accounts WHERE admin = 1').trim(), '1');
});

test('the settings check: with the code, file and line; without it, nothing', async () => {
	const ctx = newContext();
	const conf = path.join(ctx.dir, 'burnlink.conf');
	fs.writeFileSync(conf, 'views_max = 5\nviews_max = 6\n');
	setupFile(ctx);
	const b = new Browser(ctx);
	// the site is down, the health check names the line only
	const h = await b.req('health');
	assert.ok(!h.body.toString().includes('set twice'), h.body.toString());
	assert.equal(await isOpen(b), true);
	const wrong = await setup(b, { code: 'not-the-code-xxxxxxxxxxxxxxxxxx' });
	checkError(assert, wrong, 403, 'INVALID_SETUP_CODE');
	assert.ok(!wrong.body.toString().includes('set twice') && !wrong.body.toString().includes(conf));
	const res = await setup(b, { code: CODE });
	assert.equal(res.status, 200, res.body.toString());
	const { error, ...rest } = res.json.settings;
	assert.deepEqual(rest, { file: conf, loaded: false, ok: false, line: 2 });
	assert.ok(error.startsWith(`${conf}:2: views_max is set twice`), error);
	// the code alone uses nothing up; an account waits for valid settings
	assert.equal(fs.existsSync(path.join(ctx.dir, 'burnlink-setup')), true);
	checkError(assert, await setup(b, { code: CODE, name: 'op', password: PASSWORD }), 503, 'CONFIG_INVALID');
	fs.writeFileSync(conf, 'views_max = 5\n');
	const fixed = await setup(b, { code: CODE });
	assert.deepEqual(fixed.json.settings, { file: conf, loaded: true, ok: true, line: null, error: null });
	assert.equal((await setup(b, { code: CODE, name: 'op', password: PASSWORD })).status, 200);
});

test('a data directory under the document root: the check answers, no account until it is moved', async () => {
	const ctx = newContext();
	const f = setupFile(ctx);
	const b = new Browser(ctx);
	const env = { DOCUMENT_ROOT: ctx.dir };
	const check = await b.req('setup', { method: 'POST', body: { code: CODE }, env });
	assert.equal(check.status, 200, check.body.toString());
	const res = await b.req('setup', { method: 'POST', body: { code: CODE, name: 'op', password: PASSWORD }, env });
	checkError(assert, res, 503, 'CONFIG_INVALID');
	assert.match(res.json.hint, /document root/);
	assert.equal(fs.existsSync(f), true);
	assert.equal(rows(ctx, 'accounts'), 0);
	assert.equal((await setup(b, { code: CODE, name: 'op', password: PASSWORD })).status, 200);
});
