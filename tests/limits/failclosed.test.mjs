// Fail closed: when the counters store cannot be opened, read or written, every
// limited request is 503 RATE_LIMIT_UNAVAILABLE with Retry-After: 60 and
// nothing is created, consumed or burned.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newCtx, cgi, sql, createSecret, secretsCount } from './helpers.mjs';
import { SIZE, header, countLive, holdLock } from '../lib/counters.mjs';

// As root, file modes do not stop the programs: run them as nobody instead.
const asRoot = process.getuid && process.getuid() === 0;
const NOBODY = { uid: 65534, gid: 65534 };

// A context with one secret (5 views, one with a passphrase) made while the limiter worked.
async function prepared(env = {}, user = {}) {
	const ctx = newCtx(env);
	if (user.uid !== undefined) fs.chownSync(ctx.dir, user.uid, user.gid);
	const plain = await createSecret(ctx, { text: 'kept', maxViews: 5 }, user);
	const locked = await createSecret(ctx, { text: 'kept', passphrase: 'open sesame' }, user);
	return { ctx, plain, locked };
}

// The counters file: one file, no -wal, -shm or -journal beside it.
function limitsFiles(ctx) {
	const files = fs.readdirSync(ctx.dir).filter((n) => n.startsWith(path.basename(ctx.limits)))
		.map((n) => path.join(ctx.dir, n));
	assert.deepEqual(files, [ctx.limits], 'the counters file alone');
	return files;
}

function snapshot(ctx) {
	return sql(ctx.db, 'SELECT count(*), group_concat(view_count), group_concat(state) FROM secrets');
}

// Every operation is refused and nothing changes.
async function assertRefused({ ctx, plain, locked }, user = {}) {
	const before = snapshot(ctx);
	const n = secretsCount(ctx);
	const res = await Promise.all([
		cgi(ctx, 'create', { body: { text: 'must not be stored' }, ...user }),
		cgi(ctx, 'metadata', { key: plain.secretKey, ...user }),
		cgi(ctx, 'retrieve', { key: plain.secretKey, ...user }),
		cgi(ctx, 'retrieve', { key: locked.secretKey, body: { passphrase: 'open sesame' }, ...user }),
		cgi(ctx, 'delete', { key: plain.receiptKey, ...user }),
	]);
	for (const r of res) {
		assert.equal(r.status, 503, r.body.toString());
		assert.equal(r.json.code, 'RATE_LIMIT_UNAVAILABLE');
		assert.equal(r.headers['retry-after'], '60');
		assert.match(r.stderr, /rate limiter|install secret/, 'the reason is logged');
	}
	assert.equal(secretsCount(ctx), n, 'nothing created');
	assert.equal(snapshot(ctx), before, 'nothing consumed or burned');
}

test('read-only counters store → 503, nothing changes', async () => {
	const user = asRoot ? NOBODY : {};
	const p = await prepared({}, user);
	assert.equal(fs.statSync(p.ctx.limits).mode & 0o777, 0o600, 'created with mode 0600');
	assert.equal(fs.statSync(p.ctx.limits).size, SIZE);
	for (const f of limitsFiles(p.ctx))
		fs.chmodSync(f, 0o444);
	await assertRefused(p, user);
	for (const f of limitsFiles(p.ctx))
		fs.chmodSync(f, 0o600);
	const ok = await cgi(p.ctx, 'metadata', { key: p.plain.secretKey, ...user });
	assert.equal(ok.status, 200, 'works again once writable');
});

test('counters store in a missing directory → 503', async () => {
	const p = await prepared();
	for (const f of limitsFiles(p.ctx))
		fs.rmSync(f);
	fs.symlinkSync(path.join(p.ctx.dir, 'missing', 'burnlink-counters'), p.ctx.limits);
	await assertRefused(p);
	assert.ok(!fs.existsSync(path.join(p.ctx.dir, 'missing')), 'nothing created');
});

test('counters store that is a directory → 503', async () => {
	const p = await prepared();
	for (const f of limitsFiles(p.ctx))
		fs.rmSync(f);
	fs.mkdirSync(p.ctx.limits);
	await assertRefused(p);
});

// Anything but a counters file of the right size and header is refused, and left as it is.
test('counters store that is not a counters file → 503, the file is left alone', async (t) => {
	const p = await prepared();
	const wrongSlots = Buffer.alloc(SIZE);
	header().copy(wrongSlots);
	wrongSlots.writeUInt32LE(65536, 8);
	const truncated = Buffer.alloc(SIZE - 32);
	header().copy(truncated);
	const longer = Buffer.alloc(SIZE + 4096);
	header().copy(longer);
	const cases = {
		'random bytes of the right size': crypto.randomBytes(SIZE),
		'a small file of text': Buffer.alloc(8192, 0x41),
		'a SQLite database (the old counters store)': fs.readFileSync(p.ctx.db),
		'the right header, another slot count': wrongSlots,
		'the right header, a slot short': truncated,
		'the right header, a page too long': longer,
		'one byte': Buffer.from([0]),
	};
	for (const [what, bytes] of Object.entries(cases)) {
		await t.test(what, async () => {
			for (const f of limitsFiles(p.ctx))
				fs.rmSync(f);
			fs.writeFileSync(p.ctx.limits, bytes);
			await assertRefused(p);
			assert.ok(fs.readFileSync(p.ctx.limits).equals(bytes), 'the file is unchanged');
		});
	}
});

test('an empty or all-zero counters file is initialised and used', async (t) => {
	const p = await prepared();
	for (const [what, bytes] of Object.entries({ empty: Buffer.alloc(0), 'all zero': Buffer.alloc(SIZE) })) {
		await t.test(what, async () => {
			fs.rmSync(p.ctx.limits);
			fs.writeFileSync(p.ctx.limits, bytes, { mode: 0o600 });
			const ok = await cgi(p.ctx, 'metadata', { key: p.plain.secretKey });
			assert.equal(ok.status, 200, ok.body.toString());
			const data = fs.readFileSync(p.ctx.limits);
			assert.equal(data.length, SIZE);
			// The header proper; from byte 1024 the page holds the metrics' totals
			// (docs/ADMIN.md, "Where the counters live"), which this request added to.
			assert.ok(data.subarray(0, 1024).equals(header().subarray(0, 1024)), 'the header is written');
			assert.ok(countLive(p.ctx.limits) >= 1, 'the request is counted');
		});
	}
});

test('install secret unreadable → 503 (no digest, no count)', async () => {
	const p = await prepared();
	const dir = path.join(p.ctx.dir, 'secret-dir');
	fs.mkdirSync(dir);
	p.ctx.env.BURNLINK_SECRET_FILE = dir;
	await assertRefused(p);
});

test('counters store locked past the busy timeout → 503 after it, nothing changes', async () => {
	const p = await prepared();
	limitsFiles(p.ctx);
	// Another process holds flock(LOCK_EX) on the file until released.
	const release = await holdLock(p.ctx.limits);
	const started = Date.now();
	try {
		await assertRefused(p);
		assert.ok(Date.now() - started >= 4500, 'the programs waited for the lock first');
	} finally {
		await release();
	}
	const ok = await cgi(p.ctx, 'metadata', { key: p.plain.secretKey });
	assert.equal(ok.status, 200, 'works again once the lock is gone');
});
