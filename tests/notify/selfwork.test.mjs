// selfwork.test.mjs: no cron at all (INSTALL section 9, lib/work.c). When no
// cron job has done the cleanup or the deliveries lately, a request's program
// does them itself once it has answered and exited: expired secrets removed,
// a verification mail and a read receipt delivered, by the programs alone.
// When the cron jobs' records are recent, the programs leave the work to them.
// "Time passes" here by moving the records back (the install secret's time,
// the runs' stamps), never by waiting; the tests wait only for the helper's
// record of its run to appear (polled, with a deadline).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { newContext, setExpiresAt } from '../lib/cgi.mjs';
import { accountsContext, signedUp, createWithKey } from '../accounts/helpers.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-selfwork-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const mailer = path.join(dir, 'capture-mail');
fs.writeFileSync(mailer, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\n', { mode: 0o755 });

const stem = (ctx) => ctx.db.replace(/\.db$/, '');
const stamp = (ctx, which) => `${stem(ctx)}-${which}`;

// The installation made an hour and a half ago, no run recorded since.
function age(ctx) {
	const then = new Date(Date.now() - 90 * 60e3);
	fs.utimesSync(path.join(ctx.dir, 'secret.key'), then, then);
	for (const w of ['cleanup', 'notify']) fs.rmSync(stamp(ctx, w), { force: true });
}

// A recorded run of which (cleanup, notify) agoMs ago, as cron/cleanup writes it.
function recordRun(ctx, which, agoMs) {
	fs.writeFileSync(stamp(ctx, which), `${Date.now() - agoMs}\n`);
}

// Waits until cond() holds: the helper runs after the request's process has exited.
async function until(cond, what, ms = 60000) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

const ON = { BURNLINK_SELF_WORK: 'on' };

describe('no cron: the programs do the work themselves', () => {
	test('expired secrets are removed after a request, and the cleanup is recorded (health ok)', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'expires' });
		const live = await ctx.createOk({ text: 'lives' });
		setExpiresAt(ctx.db, s.secretKey, Date.now() - 1000);
		age(ctx);
		const res = await ctx.metadata(live.receiptKey, { env: ON });
		assert.equal(res.status, 200, 'the request is answered as always');
		await until(() => fs.existsSync(stamp(ctx, 'cleanup')), 'the cleanup record');
		await until(() => fs.existsSync(stamp(ctx, 'notify')), 'the notify record');
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1', 'the expired row is gone');
		assert.equal((await ctx.metadata(live.receiptKey)).status, 200);
		const h = await ctx.run('health', { method: 'GET', env: { ...ON, REQUEST_URI: '/api/health' } });
		assert.equal(h.json.checks.cleanup.ok, true, JSON.stringify(h.json.checks.cleanup));
		assert.match(fs.readFileSync(`${stem(ctx)}-work.log`, 'utf8'), /cleanup: .*removed 1 expired secrets/);
		ctx.remove();
	});

	test('cron ran lately: the programs leave the work to it', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'expires' });
		setExpiresAt(ctx.db, s.secretKey, Date.now() - 1000);
		age(ctx);
		recordRun(ctx, 'cleanup', 50 * 60e3);	// cron's hourly run, 50 minutes ago
		recordRun(ctx, 'notify', 40e3);		// cron's run of every minute
		assert.equal((await ctx.metadata(s.receiptKey, { env: ON })).status, 200);
		assert.ok(!fs.existsSync(`${stem(ctx)}-work`), 'no work was started (its lock file is made only then)');
		ctx.remove();
	});

	test('BURNLINK_SELF_WORK=off: nothing is started', async () => {
		const ctx = newContext();
		await ctx.createOk({ text: 'x' });
		age(ctx);
		assert.equal((await ctx.create({ text: 'y' }, { env: { BURNLINK_SELF_WORK: 'off' } })).status, 200);
		assert.ok(!fs.existsSync(`${stem(ctx)}-work`));
		ctx.remove();
	});

	test('a sign-up\'s verification mail and a read receipt are delivered by the programs alone', async () => {
		const mails = fs.mkdtempSync(path.join(dir, 'mails-'));
		const ctx = accountsContext({ ...ON, BURNLINK_SENDMAIL: `${mailer} ${mails}`, BURNLINK_SITE_URL: 'https://burnlink.test' });
		const list = () => fs.readdirSync(mails).sort().map((f) => fs.readFileSync(path.join(mails, f), 'utf8'));
		const b = await signedUp(ctx, 'alice@example.org');
		age(ctx);
		await b.me();				// any request: the deliveries are due
		// The capture mailer makes its file, then writes it: wait for the whole mail.
		await until(() => list().some((m) => /#verify=[A-Za-z0-9_-]{43}$/m.test(m)), 'the verification mail');
		const token = /#verify=([A-Za-z0-9_-]{43})$/m.exec(list().join('\n'))[1];
		assert.equal((await b.req('token', { method: 'POST', body: { token } })).status, 200);
		const key = (await b.req('keys', { method: 'POST', body: { name: 'ci' } })).json.key;
		const s = (await createWithKey(ctx, key, { text: 'read me', notify: ['email'] })).json;
		assert.equal((await ctx.retrieve(s.metadata.secretKey)).status, 200, 'viewed: a receipt is due');
		recordRun(ctx, 'notify', 80e3);		// the last delivery run, 80 s ago,
		const then = new Date(Date.now() - 80e3);	// and the last attempt too
		fs.utimesSync(`${stem(ctx)}-work`, then, then);
		const t0 = Date.now();
		await b.me();
		await until(() => list().some((m) => /^Subject: Your secret was viewed for the last time$/m.test(m)), 'the read receipt');
		assert.equal(list().length, 2, 'the verification mail and the receipt, each once');
		// The helper's last file: the run's record (then it exits).
		await until(() => Number(fs.readFileSync(stamp(ctx, 'notify'), 'utf8').split('\n')[0]) >= t0, 'the notify record');
		ctx.remove();
	});
});
