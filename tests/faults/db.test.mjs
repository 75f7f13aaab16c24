// db.test.mjs: database faults: a lock held past the busy timeout, a full
// disk, a read-only database, a data directory that is missing or not
// writable, a corrupt database. Each answer is a complete JSON response with
// the right code and a hint, nothing is half-written, nothing hangs.
// Runs the production (static) programs; the read-only cases run them as
// nobody, since root ignores file modes.

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newContext, programPath, sqlite, sha256hex } from '../lib/cgi.mjs';
import { runDyn, outcomeProblems, integrity } from './helpers.mjs';
import { countersPath, holdLock as holdCountersLock } from '../lib/counters.mjs';

const NOBODY = 65534;
const isRoot = process.getuid && process.getuid() === 0;

// Runs a production program (static build) as a CGI request, optionally as another user.
function run(program, opts = {}) {
	return runDyn(program, { ...opts, program: programPath(program), timeoutMs: opts.timeoutMs || 30000 });
}

function rowState(db, secretKey) {
	return sqlite(db, `SELECT state || '|' || view_count || '|' || (text_ct IS NOT NULL) FROM secrets WHERE secret_hash = x'${sha256hex(secretKey)}'`).trim();
}

function count(db) {
	return Number(sqlite(db, 'SELECT count(*) FROM secrets').trim());
}

// Asserts a 5xx JSON error with code and a hint that names the fix.
function assertServerError(r, status, code, where) {
	assert.deepEqual(outcomeProblems(r, -1), [], `${where}: ${r.raw}`);
	assert.equal(r.res.status, status, `${where}: ${r.raw}`);
	assert.equal(r.res.json.code, code, where);
	assert.ok(r.res.json.hint.length > 10, `${where}: a hint`);
	if (status === 503) assert.match(r.res.headers['retry-after'] || '', /^\d+$/, `${where}: Retry-After`);
}

// Holds a lock on db from a separate sqlite3 process until release() is called.
async function holdLock(db, sql) {
	const p = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'inherit'] });
	p.stdin.write(`${sql}\nSELECT 'locked';\n`);
	await new Promise((resolve, reject) => {
		let out = '';
		p.stdout.on('data', (c) => { out += c; if (out.includes('locked')) resolve(); });
		p.on('exit', () => reject(new Error('sqlite3 exited before locking')));
	});
	return () => new Promise((resolve) => { p.on('close', resolve); p.stdin.end('ROLLBACK;\n'); });
}

describe('a lock held by another process past the busy timeout', () => {
	const ctx = newContext();
	let s;

	test('burn while another process holds the write lock: 503 STORE_BUSY, nothing burned', async () => {
		s = await ctx.createOk({ text: 'locked out', maxViews: 3 });
		const release = await holdLock(ctx.db, 'BEGIN IMMEDIATE;');
		try {
			const t0 = Date.now();
			const r = await run('delete', { method: 'DELETE', pathInfo: `/${s.receiptKey}`, env: { BURNLINK_DB: ctx.db } });
			assertServerError(r, 503, 'STORE_BUSY', 'burn');
			assert.ok(Date.now() - t0 < 20000, 'answered within the busy timeout and some');
		} finally { await release(); }
		assert.equal(rowState(ctx.db, s.secretKey), '0|0|1');
	});

	test('metadata while another process holds the database exclusively: 503 STORE_BUSY, no hang', async () => {
		const release = await holdLock(ctx.db, 'PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; SELECT count(*) FROM secrets;');
		try {
			const r = await run('metadata', { pathInfo: `/${s.secretKey}`, env: { BURNLINK_DB: ctx.db } });
			assertServerError(r, 503, 'STORE_BUSY', 'metadata');
		} finally { await release(); }
	});

	test('retrieve while the counters store is locked: 503 RATE_LIMIT_UNAVAILABLE, no view used', async () => {
		const limits = countersPath(ctx.db);
		assert.ok(fs.existsSync(limits), 'the counters file exists');
		const release = await holdCountersLock(limits);
		try {
			const r = await run('retrieve', { method: 'POST', pathInfo: `/${s.secretKey}`, env: { BURNLINK_DB: ctx.db } });
			assertServerError(r, 503, 'RATE_LIMIT_UNAVAILABLE', 'retrieve');
		} finally { await release(); }
		assert.equal(rowState(ctx.db, s.secretKey), '0|0|1');
	});

	test('afterwards everything works again', async () => {
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(r.status, 200);
		assert.equal(integrity(ctx.db), 'ok');
	});
});

describe('a full disk', { skip: !isRoot && 'needs root to mount a small tmpfs' }, () => {
	const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-full-'));
	let mounted = false;
	after(() => {
		if (mounted) execFileSync('umount', ['-l', mnt]);
		fs.rmSync(mnt, { recursive: true, force: true });
	});

	test('a create larger than the free space: 503 STORE_UNAVAILABLE naming disk space, no row, the database intact', async (t) => {
		try {
			execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1536k', 'tmpfs', mnt]);
			mounted = true;
		} catch (e) { return t.skip(`cannot mount a tmpfs: ${e.message}`); }
		const db = path.join(mnt, 'full.db');
		const env = { BURNLINK_DB: db };
		const small = await run('create', { body: { text: 'fits' }, env });
		assert.equal(small.res?.status, 200, small.raw.toString());
		// About 1.9 MB of ciphertext into what is left of 1.5 MB.
		const big = 'x'.repeat(1900 * 1024);
		const r = await run('create', { body: { text: big }, env, ip: '192.0.2.77' });
		assertServerError(r, 503, 'STORE_UNAVAILABLE', 'create on a full disk');
		assert.match(r.res.json.hint, /disk/i);
		assert.equal(count(db), 1, 'nothing of the big secret was stored');
		assert.equal(integrity(db), 'ok');
		// A retrieve still works and uses its view.
		const got = await run('retrieve', { method: 'POST', pathInfo: `/${small.res.json.metadata.secretKey}`, env });
		assert.ok([200, 503].includes(got.res?.status), got.raw.toString());
		if (got.res.status === 503) assert.equal(rowState(db, small.res.json.metadata.secretKey).split('|')[1], '0');
	});

	test('filling the disk with small creates: each one either 200 and stored, or 503 and not', async (t) => {
		if (!mounted) return t.skip('no tmpfs');
		for (const f of fs.readdirSync(mnt)) fs.rmSync(path.join(mnt, f));
		const db = path.join(mnt, 'fill.db');
		const env = { BURNLINK_DB: db };
		assert.equal((await run('create', { body: { text: 'first' }, env })).res?.status, 200);
		let ok = 0, full = 0;
		for (let i = 0; i < 60 && full < 3; i++) {
			const before = count(db);
			const r = await run('create', { body: { text: 'y'.repeat(40 * 1024) }, env, ip: `192.0.2.${100 + i}` });
			assert.deepEqual(outcomeProblems(r), [], r.raw.toString());
			if (r.res.status === 200) {
				ok++;
				assert.equal(count(db), before + 1);
				assert.equal(rowState(db, r.res.json.metadata.secretKey), '0|0|1');
			} else {
				full++;
				assert.equal(r.res.json.code, r.res.json.code === 'RATE_LIMIT_UNAVAILABLE' ? 'RATE_LIMIT_UNAVAILABLE' : 'STORE_UNAVAILABLE');
				assert.equal(count(db), before);
			}
		}
		t.diagnostic(`${ok} creates fitted, then ${full} refused`);
		assert.ok(full > 0, 'the disk filled up');
		assert.equal(integrity(db), 'ok');
	});
});

describe('permissions (run as nobody)', { skip: !isRoot && 'needs root to switch users' }, () => {
	test('a read-only database file: creates are 503 STORE_UNAVAILABLE, reads still answer, nothing changes', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({ text: 'read only', maxViews: 2 });
		// The directory and the counters file belong to nobody; the secrets database does not.
		fs.chmodSync(ctx.dir, 0o755);
		for (const f of fs.readdirSync(ctx.dir))
			if (!f.startsWith('burnlink.db')) fs.chownSync(path.join(ctx.dir, f), NOBODY, NOBODY);
		fs.chownSync(ctx.dir, NOBODY, NOBODY);
		for (const f of fs.readdirSync(ctx.dir).filter((x) => x.startsWith('burnlink.db')))
			fs.chmodSync(path.join(ctx.dir, f), 0o444);
		const env = { BURNLINK_DB: ctx.db };
		const before = count(ctx.db);
		const c = await run('create', { body: { text: 'x' }, env, uid: NOBODY, gid: NOBODY });
		assertServerError(c, 503, 'STORE_UNAVAILABLE', 'create on a read-only database');
		const r = await run('retrieve', { method: 'POST', pathInfo: `/${s.secretKey}`, env, uid: NOBODY, gid: NOBODY });
		assert.deepEqual(outcomeProblems(r, -1), [], r.raw.toString());
		assert.equal(r.res.status, 503, 'a retrieve cannot use a view, so it must not hand out the content');
		const m = await run('metadata', { pathInfo: `/${s.secretKey}`, env, uid: NOBODY, gid: NOBODY });
		assert.ok([200, 503].includes(m.res?.status), m.raw.toString());
		assert.equal(count(ctx.db), before);
		assert.equal(rowState(ctx.db, s.secretKey), '0|0|1');
	});

	test('a data directory that is not writable: 503 STORE_UNAVAILABLE (or RATE_LIMIT_UNAVAILABLE), no file created', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-ro-'));
		fs.chmodSync(dir, 0o755);	/* root's, so nobody cannot write */
		try {
			for (const [program, opts] of [['create', { body: { text: 'x' } }],
				['metadata', { pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
				['retrieve', { method: 'POST', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
				['delete', { method: 'DELETE', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }]]) {
				const r = await run(program, { ...opts, env: { BURNLINK_DB: path.join(dir, 'b.db') }, uid: NOBODY, gid: NOBODY });
				assert.deepEqual(outcomeProblems(r, -1), [], `${program}: ${r.raw}`);
				assert.equal(r.res.status, 503, `${program}: ${r.raw}`);
				assert.ok(['STORE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE'].includes(r.res.json.code), program);
				assert.match(r.res.json.hint, /./);
			}
			assert.deepEqual(fs.readdirSync(dir), []);
		} finally { fs.rmSync(dir, { recursive: true, force: true }); }
	});
});

describe('a missing data directory', () => {
	test('every program answers 503 with a hint and creates nothing', async () => {
		const dir = path.join(os.tmpdir(), `burnlink-missing-${process.pid}`, 'deeper');
		for (const [program, opts] of [['create', { body: { text: 'x' } }],
			['metadata', { pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
			['retrieve', { method: 'POST', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
			['delete', { method: 'DELETE', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }]]) {
			const r = await run(program, { ...opts, env: { BURNLINK_DB: path.join(dir, 'b.db') } });
			assert.deepEqual(outcomeProblems(r, -1), [], `${program}: ${r.raw}`);
			assert.equal(r.res.status, 503, `${program}: ${r.raw}`);
			assert.ok(['STORE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE'].includes(r.res.json.code), program);
		}
		assert.equal(fs.existsSync(path.dirname(dir)), false);
	});
});

describe('a corrupt database', () => {
	async function corrupted(how) {
		const ctx = newContext();
		const secrets = [];
		for (let i = 0; i < 30; i++)
			secrets.push(await ctx.createOk({ text: `secret ${i} `.repeat(200), maxViews: 3 }));
		sqlite(ctx.db, 'PRAGMA wal_checkpoint(TRUNCATE);');
		const buf = fs.readFileSync(ctx.db);
		how(buf, ctx.db);
		return { ctx, secrets };
	}

	const cases = {
		'garbage over the middle pages': (buf, db) => {
			const page = 4096;
			for (let o = 2 * page; o < Math.min(buf.length, 8 * page); o++) buf[o] = (o * 131) & 255;
			fs.writeFileSync(db, buf);
		},
		'truncated to half': (buf, db) => fs.writeFileSync(db, buf.subarray(0, Math.floor(buf.length / 2 / 4096) * 4096 || 4096)),
		'a bad header': (buf, db) => { buf.write('not a database!!', 0); fs.writeFileSync(db, buf); },
	};

	for (const [name, how] of Object.entries(cases)) {
		test(`${name}: every program answers (200, 404, 410 or 503 STORE_UNAVAILABLE), never crashes or hangs`, async () => {
			const { ctx, secrets } = await corrupted(how);
			const env = { BURNLINK_DB: ctx.db };
			const seen = {};
			for (const s of secrets.slice(0, 10)) {
				for (const [program, opts] of [['metadata', { pathInfo: `/${s.secretKey}` }],
					['retrieve', { method: 'POST', pathInfo: `/${s.secretKey}` }],
					['delete', { method: 'DELETE', pathInfo: `/${s.receiptKey}` }],
					['create', { body: { text: 'after corruption' } }]]) {
					const r = await run(program, { ...opts, env });
					assert.deepEqual(outcomeProblems(r, -1), [], `${program}: ${r.raw}`);
					const st = r.res.status;
					assert.ok([200, 404, 410, 503].includes(st), `${program}: ${st} ${r.raw}`);
					if (st === 503) assert.equal(r.res.json.code, 'STORE_UNAVAILABLE', `${program}: ${r.raw}`);
					if (st === 503) assert.match(r.stderr, /database/, 'the reason is logged');
					seen[`${program} ${st}`] = (seen[`${program} ${st}`] || 0) + 1;
				}
			}
			// A corrupt page may hide a row, but never shows wrong content as a 200.
			assert.ok(Object.keys(seen).some((k) => k.endsWith('503')), `the corruption was noticed: ${JSON.stringify(seen)}`);
		});
	}
});
