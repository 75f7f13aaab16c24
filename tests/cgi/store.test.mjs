// store.test.mjs: a busy database (another process holds the write lock) and a
// database that cannot be opened: 503 with Retry-After, nothing changed, no hang.
// The busy case waits out the programs' 5 s busy timeout (create and retrieve
// wait in parallel, so it costs about 5 s once).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { newContext, checkError, sha256hex } from '../lib/cgi.mjs';
import { countersPath, SIZE as COUNTERS_SIZE } from '../lib/counters.mjs';

// Holds a write transaction open in a sqlite3 process until release().
async function holdWriteLock(db) {
	const p = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
	let out = '', err = '';
	p.stderr.on('data', (c) => { err += c; });
	const ready = new Promise((resolve, reject) => {
		p.stdout.on('data', (c) => { out += c; if (out.includes('lock-held')) resolve(); });
		p.on('close', () => reject(new Error(`sqlite3 ended before taking the lock: ${err}`)));
	});
	p.stdin.write("BEGIN IMMEDIATE; UPDATE secrets SET view_count = view_count WHERE 0; SELECT 'lock-held';\n");
	await ready;
	return {
		release() {
			const closed = new Promise((resolve) => p.on('close', resolve));
			p.stdin.end('ROLLBACK;\n.quit\n');
			return closed;
		},
	};
}

describe('busy database', () => {
	const ctx = newContext();
	let s, lock, busyCreate, busyRetrieve, readWhileLocked, elapsed;
	before(async () => {
		s = await ctx.createOk({ text: 'busy', maxViews: 3 });
		lock = await holdWriteLock(ctx.db);
		try {
			const t0 = Date.now();
			[busyCreate, busyRetrieve, readWhileLocked] = await Promise.all([
				ctx.create({ text: 'while locked' }, { timeoutMs: 30000 }),
				ctx.retrieve(s.secretKey, undefined, { timeoutMs: 30000 }),
				ctx.metadata(s.receiptKey, { timeoutMs: 30000 }),
			]);
			elapsed = Date.now() - t0;
		} finally {
			await lock.release();
		}
	});
	after(() => ctx.remove());

	test('a create while another process holds the write lock is 503 STORE_BUSY', () => {
		checkError(assert, busyCreate, 503, 'STORE_BUSY');
	});
	test('the 503 carries Retry-After', () => {
		const ra = Number(busyCreate.headers['retry-after']);
		assert.ok(Number.isInteger(ra) && ra > 0, `Retry-After ${busyCreate.headers['retry-after']}`);
	});
	test('the busy answer comes after the busy timeout, without hanging', () => {
		assert.ok(busyCreate.ms >= 4000, `answered after ${busyCreate.ms} ms: the busy timeout is 5 s`);
		assert.ok(elapsed < 20000, `took ${elapsed} ms`);
	});
	test('a retrieve while the write lock is held is 503 STORE_BUSY and uses no view', async () => {
		checkError(assert, busyRetrieve, 503, 'STORE_BUSY');
		assert.ok(busyRetrieve.headers['retry-after']);
		const m = await ctx.metadata(s.receiptKey);
		assert.equal(m.json.viewCount, 0);
	});
	test('metadata (a read) still answers while the write lock is held', () => {
		assert.equal(readWhileLocked.status, 200, readWhileLocked.body.toString());
		assert.equal(readWhileLocked.json.state, 'active');
	});
	test('nothing was stored by the busy create', () => {
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
	});
	test('after the lock is released, create and retrieve work again', async () => {
		assert.equal((await ctx.create({ text: 'after' })).status, 200);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
	});
});

describe('database that cannot be opened', () => {
	test('create with BURNLINK_DB in a missing directory is 503 (store or rate limiter unavailable) with Retry-After', async () => {
		// The counters file sits beside the database, so whichever is opened
		// first fails; both refuse the request.
		const ctx = newContext({ BURNLINK_DB: '/nonexistent/dir/x.db' });
		const res = await ctx.create({ text: 'x' });
		assert.equal(res.status, 503, res.body.toString());
		assert.ok(['STORE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE'].includes(res.json.code), res.json.code);
		checkError(assert, res, 503, res.json.code);
		assert.ok(Number(res.headers['retry-after']) > 0);
		ctx.remove();
	});
	test('metadata on a file that is not a database is 503 STORE_UNAVAILABLE', async () => {
		const ctx = newContext();
		fs.writeFileSync(ctx.db, crypto.randomBytes(8192));
		checkError(assert, await ctx.metadata('AAAAAAAAAAAAAAAAAAAAAA'), 503, 'STORE_UNAVAILABLE');
		ctx.remove();
	});
	test('a create that cannot be stored does not hand out a link', async () => {
		const ctx = newContext({ BURNLINK_DB: '/nonexistent/dir/x.db' });
		const res = await ctx.create({ text: 'x' });
		assert.ok(!res.body.toString().includes('secretUrl'));
		ctx.remove();
	});
	test('a retrieve whose counters store is unreadable is 503 RATE_LIMIT_UNAVAILABLE (Retry-After: 60) and uses no view', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'x', passphrase: 'abcd' });
		// A file of the right size whose header is not a counters file's.
		const limits = countersPath(ctx.db);
		assert.ok(fs.existsSync(limits), 'the counters file sits beside the database');
		fs.writeFileSync(limits, crypto.randomBytes(COUNTERS_SIZE));
		const res = await ctx.retrieve(s.secretKey, { passphrase: 'abcd' });
		checkError(assert, res, 503, 'RATE_LIMIT_UNAVAILABLE');
		assert.equal(res.headers['retry-after'], '60');
		assert.equal(ctx.sql(`SELECT view_count FROM secrets WHERE secret_hash = x'${sha256hex(s.secretKey)}'`).trim(), '0');
		ctx.remove();
	});
	test('a create whose counters store is unreadable is 503 RATE_LIMIT_UNAVAILABLE and stores nothing', async () => {
		const ctx = newContext();
		await ctx.createOk({ text: 'first' });
		// A file of another size than a counters file's.
		const limits = countersPath(ctx.db);
		assert.ok(fs.existsSync(limits), 'the counters file sits beside the database');
		fs.writeFileSync(limits, crypto.randomBytes(8192));
		checkError(assert, await ctx.create({ text: 'second' }), 503, 'RATE_LIMIT_UNAVAILABLE');
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
		ctx.remove();
	});
});
