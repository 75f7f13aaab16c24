// cleanup.test.mjs: cron/cleanup: one summary line and exit 0; what it removes
// and what it keeps; a non-zero exit when the database cannot be opened.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, runProgram } from '../lib/cgi.mjs';
import { countersPath, seedCounter, readCounter, countLive, countUsed, expireAll } from '../lib/counters.mjs';

const SUMMARY = /^cleanup: .+: removed (\d+) expired secrets and (\d+) expired secret requests, pruned (\d+) counter windows\n$/;

function summary(res) {
	assert.equal(res.code, 0, `exit ${res.code}: ${res.stderr}`);
	const m = SUMMARY.exec(res.stdout);
	assert.ok(m, `one summary line expected, got ${JSON.stringify(res.stdout)}`);
	return { removed: Number(m[1]), counters: Number(m[3]), requests: Number(m[2]) };
}

describe('cron/cleanup', () => {
	test('prints one summary line and exits 0 on a new database', async () => {
		const ctx = newContext();
		const res = await ctx.cleanup();
		assert.deepEqual(summary(res), { removed: 0, counters: 0, requests: 0 });
		assert.equal(res.stdout.split('\n').length, 2, 'exactly one line');
		ctx.remove();
	});
	test('removes exactly the rows whose expiry has passed, with their attachments', async () => {
		const ctx = newContext();
		const file = [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }];
		const a = await ctx.createOk({ text: 'a', files: file });
		const b = await ctx.createOk({ text: 'b', files: file });
		const keep = await ctx.createOk({ text: 'keep', files: file });
		ctx.age(a.secretKey);
		ctx.age(b.secretKey, 3600e3);
		assert.equal(summary(await ctx.cleanup()).removed, 2);
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
		assert.equal(ctx.sql('SELECT count(*) FROM attachments').trim(), '1');
		assert.equal(ctx.sql('SELECT count(*) FROM attachments WHERE secret_id NOT IN (SELECT id FROM secrets)').trim(), '0');
		assert.equal((await ctx.retrieve(keep.secretKey)).status, 200);
		ctx.remove();
	});
	test('a second run removes nothing', async () => {
		const ctx = newContext();
		const a = await ctx.createOk({ text: 'a' });
		ctx.age(a.secretKey);
		assert.equal(summary(await ctx.cleanup()).removed, 1);
		assert.equal(summary(await ctx.cleanup()).removed, 0);
		ctx.remove();
	});
	test('removes tombstones (exhausted, burned, expired) past their expiry', async () => {
		const ctx = newContext();
		const ex = await ctx.createOk({ text: 'x' });
		await ctx.retrieve(ex.secretKey);
		const bu = await ctx.createOk({ text: 'x' });
		await ctx.burn(bu.receiptKey);
		const ep = await ctx.createOk({ text: 'x' });
		ctx.age(ep.secretKey);
		await ctx.retrieve(ep.secretKey);	// recorded as expired
		assert.equal(ctx.sql('SELECT group_concat(state) FROM (SELECT state FROM secrets ORDER BY state)').trim(), '1,2,3');
		assert.equal(summary(await ctx.cleanup()).removed, 1, 'only the expired one is past its expiry');
		ctx.age(ex.secretKey);
		ctx.age(bu.secretKey);
		assert.equal(summary(await ctx.cleanup()).removed, 2);
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '0');
		ctx.remove();
	});
	test('prunes ended passphrase-attempt windows', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'p', passphrase: 'abcd' });
		await ctx.retrieve(s.secretKey);		// one attempt counted
		const limits = path.join(ctx.dir, 'burnlink-counters');
		assert.equal(limits, countersPath(ctx.db));
		assert.ok(fs.existsSync(limits), 'the counters file sits beside the database as <name>-counters');
		const n = countLive(limits);
		assert.ok(n >= 1, 'the attempt (and the per-address counts) are recorded');
		assert.equal(countUsed(limits), n, 'every entry is live');
		assert.equal(summary(await ctx.cleanup()).counters, 0, 'live windows are kept');
		assert.equal(countLive(limits), n);
		// Windows that have ended: a minute, an hour and a day ago.
		const now = Math.floor(Date.now() / 1000);
		const ended = [60, 3600, 86400].map((len) => [crypto.randomBytes(32).toString('hex'), now - (now % len) - len, len]);
		for (const [b, start, len] of ended) seedCounter(limits, b, start, len, 7);
		for (const [b, start] of ended) assert.equal(readCounter(limits, b, start), 7, 'seeded');
		assert.equal(countUsed(limits), n + ended.length);
		assert.equal(summary(await ctx.cleanup()).counters, ended.length, 'the ended windows are removed');
		for (const [b, start] of ended) assert.equal(readCounter(limits, b, start), 0, 'gone');
		assert.equal(countLive(limits), n, 'live windows are kept');
		assert.equal(countUsed(limits), n);
		// Once every window has ended, every entry goes.
		assert.equal(expireAll(limits), n);
		assert.equal(countLive(limits), 0);
		assert.equal(summary(await ctx.cleanup()).counters, n);
		assert.equal(countUsed(limits), 0, 'nothing is left');
		assert.equal(summary(await ctx.cleanup()).counters, 0);
		ctx.remove();
	});
	test('leaves no WAL content behind (checkpointed and truncated)', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'w ' + crypto.randomBytes(20).toString('hex') });
		ctx.age(s.secretKey);
		summary(await ctx.cleanup());
		const wal = `${ctx.db}-wal`;
		assert.ok(!fs.existsSync(wal) || fs.statSync(wal).size === 0, 'the WAL is empty');
		ctx.remove();
	});
	test('exits non-zero when the database cannot be opened', async () => {
		const res = await runProgram('cleanup', { env: { BURNLINK_DB: '/nonexistent/dir/x.db' } });
		assert.notEqual(res.code, 0);
		assert.equal(res.signal, null, 'no crash');
		assert.equal(res.stdout, '', 'no summary line on failure');
		assert.match(res.stderr, /\/nonexistent\/dir\/x\.db/);
	});
	test('exits non-zero when the database is not a database', async () => {
		const ctx = newContext();
		fs.writeFileSync(ctx.db, crypto.randomBytes(8192));
		const res = await ctx.cleanup();
		assert.notEqual(res.code, 0);
		assert.equal(res.signal, null);
		assert.equal(res.stdout, '');
		ctx.remove();
	});
	test('exits non-zero when BURNLINK_DB is a directory', async () => {
		const ctx = newContext();
		const res = await ctx.cleanup({ BURNLINK_DB: ctx.dir });
		assert.notEqual(res.code, 0);
		assert.equal(res.signal, null);
		ctx.remove();
	});
	test('an argument is a usage error (exit 2)', async () => {
		const ctx = newContext();
		const res = await runProgram('cleanup', { env: ctx.env, args: ['--now'] });
		assert.equal(res.code, 2);
		assert.match(res.stderr, /usage/);
		ctx.remove();
	});
});
