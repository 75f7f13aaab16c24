// selfwork.test.mjs: no cron at all, the programs as FastCGI responders
// (lib/work.c, INSTALL section 9). A responder cannot fork once its sandbox
// is on, so it forks a worker before; after answering, it tells the worker
// the request's settings, and the worker does the due cleanup and
// deliveries under the work lock. "Time passes" by moving the records back
// (the install secret's time, the runs' stamps), never by waiting; the test
// waits only for the worker's records to appear (polled, with a deadline).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { newContext, setExpiresAt } from '../lib/cgi.mjs';
import { startFastcgi } from './server.mjs';

async function until(cond, what, ms = 60000) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

test('FastCGI, no cron: after an answer the responder\'s worker removes expired secrets and records both runs', async () => {
	const ctx = newContext();
	const gone = await ctx.createOk({ text: 'expires' });
	const live = await ctx.createOk({ text: 'lives' });
	setExpiresAt(ctx.db, gone.secretKey, Date.now() - 1000);
	// The installation made an hour and a half ago, no run recorded since.
	const then = new Date(Date.now() - 90 * 60e3);
	fs.utimesSync(path.join(ctx.dir, 'secret.key'), then, then);
	const stem = ctx.db.replace(/\.db$/, '');
	const srv = await startFastcgi({ dataDir: ctx.dir, selfWork: true });
	after(() => srv.stop());
	const res = await srv.api('GET', `/api/secrets/${live.receiptKey}`);
	assert.equal(res.status, 200, 'the request is answered as always');
	await until(() => fs.existsSync(`${stem}-cleanup`), 'the cleanup record');
	await until(() => fs.existsSync(`${stem}-notify`), 'the notify record');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1', 'the expired row is gone');
	assert.match(fs.readFileSync(`${stem}-work.log`, 'utf8'), /cleanup: .*removed 1 expired secrets/);
	assert.equal((await srv.api('GET', `/api/secrets/${live.receiptKey}`)).status, 200, 'the responder still answers');
	// The metadata responder and its worker: the worker keeps none of the
	// responder's signal state (caught and blocked stop signals, an ignored
	// SIGPIPE), which exec would pass on to the cron programs.
	const procs = [];
	for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
		let exe;
		try { exe = fs.readlinkSync(`/proc/${pid}/exe`); } catch { continue; }
		if (exe !== path.join(srv.dir, 'bin', 'metadata')) continue;
		const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const mask = (k) => BigInt(`0x${new RegExp(`^${k}:\\s*([0-9a-f]+)$`, 'm').exec(st)[1]}`);
		procs.push({ blk: mask('SigBlk'), ign: mask('SigIgn'), cgt: mask('SigCgt') });
	}
	assert.equal(procs.length, 2, 'a responder and its worker');
	const SIGTERM = 1n << 14n, SIGPIPE = 1n << 12n;
	const worker = procs.filter((p) => (p.cgt & SIGTERM) === 0n);
	assert.equal(worker.length, 1, 'the responder catches SIGTERM, the worker does not');
	assert.equal(worker[0].blk, 0n, 'the worker blocks no signal');
	assert.equal(worker[0].ign & SIGPIPE, 0n, 'nor ignores SIGPIPE');
});

test('FastCGI with BURNLINK_SELF_WORK=off: the responders leave the work to cron', async () => {
	const ctx = newContext();
	const gone = await ctx.createOk({ text: 'expires' });
	setExpiresAt(ctx.db, gone.secretKey, Date.now() - 1000);
	const then = new Date(Date.now() - 90 * 60e3);
	fs.utimesSync(path.join(ctx.dir, 'secret.key'), then, then);
	const stem = ctx.db.replace(/\.db$/, '');
	const srv = await startFastcgi({ dataDir: ctx.dir, selfWork: false });
	// Two responders' worth of requests: a worker would have been told after the first.
	assert.equal((await srv.api('GET', `/api/secrets/${gone.receiptKey}`)).status, 200);
	assert.equal((await srv.api('POST', '/api/secrets', { text: 'x' })).status, 200);
	await srv.stop();
	assert.ok(!fs.existsSync(`${stem}-work`), 'no work was started (its lock file is made only then)');
});
