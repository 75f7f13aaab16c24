// Fail closed: when the counters store cannot be opened, read or written, every
// limited request is 503 RATE_LIMIT_UNAVAILABLE with Retry-After: 60 and
// nothing is created, consumed or burned.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newCtx, cgi, sql, createSecret, secretsCount } from './helpers.mjs';

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

// The counters file and the -wal and -shm files SQLite keeps beside it.
function limitsFiles(ctx) {
	return fs.readdirSync(ctx.dir).filter((n) => n.startsWith(path.basename(ctx.limits)))
		.map((n) => path.join(ctx.dir, n));
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
	fs.symlinkSync(path.join(p.ctx.dir, 'missing', 'limits.db'), p.ctx.limits);
	await assertRefused(p);
});

test('counters store that is not a database → 503', async () => {
	const p = await prepared();
	for (const f of limitsFiles(p.ctx))
		fs.rmSync(f);
	fs.writeFileSync(p.ctx.limits, Buffer.alloc(8192, 0x41));
	await assertRefused(p);
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
	// Another process holds the write lock until told to let go.
	const holder = spawn('sqlite3', ['-batch', p.ctx.limits], { stdio: ['pipe', 'pipe', 'inherit'] });
	await new Promise((resolve, reject) => {
		let out = '';
		holder.stdout.on('data', (c) => {
			out += c;
			if (out.includes('locked')) resolve();
		});
		holder.on('error', reject);
		holder.on('exit', () => reject(new Error('sqlite3 exited before locking')));
		holder.stdin.write("BEGIN IMMEDIATE;\nINSERT INTO counters VALUES (x'00', 0, 0, 0);\n.print locked\n");
	});
	const started = Date.now();
	try {
		await assertRefused(p);
		assert.ok(Date.now() - started >= 4500, 'the programs waited for the lock first');
	} finally {
		holder.stdin.end('ROLLBACK;\n.quit\n');
		await new Promise((resolve) => holder.on('close', resolve));
	}
	const ok = await cgi(p.ctx, 'metadata', { key: p.plain.secretKey });
	assert.equal(ok.status, 200, 'works again once the lock is gone');
});
