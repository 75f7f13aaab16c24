// cleanup.test.mjs: cron/cleanup: one summary line and exit 0; what it removes
// and what it keeps; a non-zero exit when the database cannot be opened.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, runProgram } from '../lib/cgi.mjs';
import { countersPath, seedCounter, readCounter, countLive, countUsed, expireAll, holdLock, inOneWindow } from '../lib/counters.mjs';
import { dbFiles } from '../lib/cgi.mjs';

const SUMMARY = /^cleanup: .+: removed (\d+) expired secrets and (\d+) expired secret requests, pruned (\d+) counter windows and \d+ audit events, in (\d+) steps\n$/;

function summary(res, withSteps = false) {
	assert.equal(res.code, 0, `exit ${res.code}: ${res.stderr}`);
	const m = SUMMARY.exec(res.stdout);
	assert.ok(m, `one summary line expected, got ${JSON.stringify(res.stdout)}`);
	const out = { removed: Number(m[1]), counters: Number(m[3]), requests: Number(m[2]) };
	if (withSteps) out.steps = Number(m[4]);
	return out;
}

// n copies of the first secret, each with its own keys' hashes and its text:
// the marker followed by random bytes (its attachments are not copied).
function cloneSecrets(ctx, n, marker) {
	const id = ctx.sql('SELECT min(id) FROM secrets').trim();
	ctx.sql(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
		INSERT INTO secrets (secret_hash, receipt_hash, state, created_at, expires_at, max_views,
			view_count, deletable, server_side, text_ct, text_iv)
		SELECT randomblob(32), randomblob(32), state, created_at, expires_at, max_views, view_count,
			deletable, server_side, X'${marker.toString('hex')}' || randomblob(48), text_iv
		FROM secrets, k WHERE id = ${id};`);
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
	test('prunes ended passphrase-attempt windows', () => inOneWindow(60, async () => {
		// the attempt's minute window must live until the cleanups ran: a run that straddles a minute's end runs again, once
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
	}));
	test('leaves no WAL content behind (checkpointed and truncated)', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'w ' + crypto.randomBytes(20).toString('hex') });
		ctx.age(s.secretKey);
		summary(await ctx.cleanup());
		const wal = `${ctx.db}-wal`;
		assert.ok(!fs.existsSync(wal) || fs.statSync(wal).size === 0, 'the WAL is empty');
		ctx.remove();
	});
	test('works in steps (the first of 500 rows): 1,234 expired secrets all go, with attachments, and no byte of their text is left', async () => {
		const ctx = newContext();
		const file = [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }];
		const a = await ctx.createOk({ text: 'a', files: file });
		const keep = await ctx.createOk({ text: 'keep' });
		ctx.age(a.secretKey);
		const marker = crypto.randomBytes(24);
		cloneSecrets(ctx, 1233, marker);
		const found = () => dbFiles(ctx.db).filter((f) => fs.readFileSync(f).includes(marker));
		assert.ok(found().length > 0, 'the marker is found while the rows exist');
		const r = summary(await ctx.cleanup(), true);
		assert.equal(r.removed, 1234);
		// one step of requests, then 500 rows, then the 734 left in one step
		// or more (a step takes 250 to 20,000 rows, by how long the last took)
		assert.ok(r.steps >= 3 && r.steps <= 6, `a transaction per step (${r.steps})`);
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
		assert.equal(ctx.sql('SELECT count(*) FROM attachments').trim(), '0');
		assert.deepEqual(found(), [], 'secure delete: the text of every removed row is overwritten');
		assert.equal((await ctx.retrieve(keep.secretKey)).status, 200);
		ctx.remove();
	});
	test('a second cleanup while one runs (holds the lock) stands down: exit 0, nothing removed', async () => {
		const ctx = newContext();
		const a = await ctx.createOk({ text: 'a' });
		ctx.age(a.secretKey);
		const lock = path.join(ctx.dir, 'burnlink-cleanup.lock');
		fs.writeFileSync(lock, '', { mode: 0o600 });
		const release = await holdLock(lock);
		let res;
		try {
			res = await ctx.cleanup();
		} finally {
			await release();
		}
		assert.equal(res.code, 0, res.stderr);
		assert.match(res.stdout, /^cleanup: .+: another cleanup is still running \(it holds the lock of .+burnlink-cleanup\.lock\); standing down\n$/);
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1', 'nothing removed');
		assert.ok(!fs.existsSync(path.join(ctx.dir, 'burnlink-cleanup')), 'no run recorded for GET /api/health');
		// once the lock is free, the next run does the work
		assert.equal(summary(await ctx.cleanup()).removed, 1);
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
