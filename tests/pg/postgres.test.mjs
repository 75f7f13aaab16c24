// postgres.test.mjs: what only a shared PostgreSQL database can show. Two web
// servers on one database (views and rate limits exact across both), the
// database restarted in the middle of a run, a lock held by another session,
// an unreachable database, the least-privilege role of INSTALL, TCP with a
// host name under the seccomp filter, and what the database keeps after the
// last view. Runs the programs of `make pg` (build/pg), on the cluster of
// BURNLINK_TEST_PG (tests/run.sh pg) or on one of its own.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';
import { inOneWindow } from '../lib/counters.mjs';

process.env.BURNLINK_BIN ||= 'build/pg';
const { startServer } = await import('../lib/server.mjs');
const { runCgi, runProgram, checkError, sha256hex } = await import('../lib/cgi.mjs');

const shared = process.env.BURNLINK_TEST_PG ? null : cluster.newCluster();
const pgDir = process.env.BURNLINK_TEST_PG || shared.dir;
const pgSql = (db, q, opts) => cluster.sql(pgDir, db, q, opts).trim();

const asRoot = process.getuid() === 0;
const tmpDirs = [];
process.on('exit', () => { for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true }); });

// A directory for an install secret that the web servers' user can create and read.
function secretDir() {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-pgsecret-'));
	tmpDirs.push(d);
	if (asRoot) {
		const uid = Number(execFileSync('id', ['-u', 'www-data'], { encoding: 'utf8' }));
		const gid = Number(execFileSync('id', ['-g', 'www-data'], { encoding: 'utf8' }));
		fs.chownSync(d, uid, gid);
	}
	return d;
}

// A fresh database and the environment the programs need for it.
function freshEnv(dir = pgDir) {
	const db = cluster.createDatabase(dir);
	return { db, env: { BURNLINK_DB: cluster.conninfo(dir, db), BURNLINK_SECRET_FILE: path.join(secretDir(), 'secret.key') } };
}

async function api(base, method, p, json) {
	const res = await fetch(base + p, {
		method,
		headers: json === undefined ? {} : { 'Content-Type': 'application/json' },
		body: json === undefined ? undefined : JSON.stringify(json),
	});
	const text = await res.text();
	let body = null;
	try { body = JSON.parse(text); } catch { body = null; }
	return { status: res.status, headers: res.headers, body, text };
}

function assertJsonError(r, status, codes) {
	assert.equal(r.status, status, r.text.slice(0, 300));
	assert.ok(r.body && typeof r.body === 'object', `JSON error body: ${r.text.slice(0, 200)}`);
	assert.ok(codes.includes(r.body.code), `code ${r.body.code}`);
	assert.deepEqual(Object.keys(r.body).sort(), ['code', 'error', 'hint', 'requestId']);
	assert.match(r.body.requestId, /^req_[A-Za-z0-9_-]{20}$/);
}

// The bucket of a counter: HMAC-SHA-256(install secret, name NUL subject), as lib/limit.c.
function bucket(secretFile, name, subject) {
	return crypto.createHmac('sha256', fs.readFileSync(secretFile))
		.update(Buffer.concat([Buffer.from(name + '\0'), Buffer.from(subject)])).digest('hex');
}

describe('two web servers, one database', () => {
	let a, b, env, db;
	before(async () => {
		({ db, env } = freshEnv());
		// The one install secret both hosts must share (INSTALL): created once, copied.
		fs.writeFileSync(env.BURNLINK_SECRET_FILE, crypto.randomBytes(32), { mode: 0o600 });
		if (asRoot) {
			const uid = Number(execFileSync('id', ['-u', 'www-data'], { encoding: 'utf8' }));
			fs.chownSync(env.BURNLINK_SECRET_FILE, uid, uid === 0 ? 0 : Number(execFileSync('id', ['-g', 'www-data'], { encoding: 'utf8' })));
		}
		[a, b] = await Promise.all([
			startServer({ server: 'lighttpd', env }),
			startServer({ server: 'lighttpd', env }),
		]);
		assert.notEqual(a.port, b.port);
	});
	after(async () => { await Promise.all([a?.stop(), b?.stop()]); });

	test('50 concurrent retrievals of a maxViews: 5 secret over both servers: exactly 5 succeed', async () => {
		const c = await api(a.base, 'POST', '/api/secrets', { text: 'five views', maxViews: 5 });
		assert.equal(c.status, 200, c.text);
		const key = c.body.metadata.secretKey;
		const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
			api((i % 2 ? a : b).base, 'POST', `/api/secrets/${key}`, {})));
		const ok = results.filter((r) => r.status === 200);
		const gone = results.filter((r) => r.status === 410);
		assert.equal(ok.length, 5, results.map((r) => r.status).join(' '));
		assert.equal(gone.length, 45);
		for (const r of gone) assert.equal(r.body.code, 'MAX_VIEWS_REACHED');
		assert.deepEqual(ok.map((r) => r.body.viewsRemaining).sort(), [0, 1, 2, 3, 4]);
		for (const r of ok) assert.ok(r.body.text && r.body.text.ciphertext);
		const m = await api(b.base, 'GET', `/api/secrets/${c.body.metadata.key}`);
		assert.equal(m.body.viewCount, 5);
		assert.equal(m.body.state, 'exhausted');
		assert.equal(pgSql(db, `SELECT view_count, state, text_ct IS NULL FROM secrets WHERE secret_hash = '\\x${sha256hex(key)}'`), '5|3|t');
	});

	test('passphrase attempts are counted across both servers: exactly 5 a minute', async () => {
		// Counted per clock minute (docs/API.md, "Passphrases"): a round whose
		// requests straddle a minute's end runs again, once, on a new secret.
		const minute = () => Math.floor(Date.now() / 60000);
		let results, right;
		for (let run = 0; run < 2; run++) {
			const c = await api(b.base, 'POST', '/api/secrets', { text: 'guarded', passphrase: 'right horse' });
			const key = c.body.metadata.secretKey;
			const start = minute();
			results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
				api((i % 2 ? a : b).base, 'POST', `/api/secrets/${key}`, { passphrase: 'wrong guess' })));
			right = await api(a.base, 'POST', `/api/secrets/${key}`, { passphrase: 'right horse' });
			if (minute() === start)
				break;
		}
		const counts = {};
		for (const r of results) counts[r.status] = (counts[r.status] || 0) + 1;
		assert.deepEqual(counts, { 403: 5, 429: 11 }, JSON.stringify(counts));
		const remaining = results.filter((r) => r.status === 403).map((r) => Number(r.headers.get('x-ratelimit-remaining')));
		assert.deepEqual(remaining.sort(), [0, 1, 2, 3, 4], 'each server saw its own place in the one count');
		assert.equal(right.status, 429, 'the right passphrase waits for the window too');
	});

	test('the per-address daily limit is exact across both servers (990 seeded, 20 at once: 10 pass)', () => inOneWindow(86400, async () => {
		// the count is per UTC day: a run that straddles midnight runs again, once
		const [start, end] = (() => { const s = Math.floor(Date.now() / 1000); return [s - (s % 86400), s - (s % 86400) + 86400]; })();
		const bk = bucket(env.BURNLINK_SECRET_FILE, 'ip:create', '127.0.0.1');
		pgSql(db, `INSERT INTO counters (bucket, window_start, expires, count) VALUES ('\\x${bk}', ${start}, ${end}, 990) ` +
			'ON CONFLICT (bucket, window_start) DO UPDATE SET count = 990');
		const before = Number(pgSql(db, 'SELECT count(*) FROM secrets'));
		const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
			api((i % 2 ? a : b).base, 'POST', '/api/secrets', { text: `n${i}` })));
		const ok = results.filter((r) => r.status === 200);
		const limited = results.filter((r) => r.status === 429);
		assert.equal(ok.length, 10, results.map((r) => r.status).join(' '));
		assert.equal(limited.length, 10);
		for (const r of limited) assert.equal(r.body.code, 'RATE_LIMIT_EXCEEDED');
		assert.deepEqual(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y),
			[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
		assert.equal(Number(pgSql(db, 'SELECT count(*) FROM secrets')), before + 10);
		assert.equal(pgSql(db, `SELECT count FROM counters WHERE bucket = '\\x${bk}' AND window_start = ${start}`), '1010');
	}));
});

describe('the database restarted in the middle of a run', () => {
	let pg, srv, db, env;
	before(async () => {
		pg = cluster.newCluster();
		db = pg.createDatabase();
		env = { BURNLINK_DB: pg.conninfo(db), BURNLINK_SECRET_FILE: path.join(secretDir(), 'secret.key') };
		srv = await startServer({ server: 'lighttpd', env });
	});
	after(async () => { await srv?.stop(); pg?.remove(); });

	test('requests fail with the JSON error while it is down, succeed after, nothing lost or counted twice', async () => {
		const made = [];
		for (let i = 0; i < 6; i++) {
			const r = await api(srv.base, 'POST', '/api/secrets', { text: `before ${i}`, maxViews: 10 });
			assert.equal(r.status, 200, r.text);
			made.push({ key: r.body.metadata.secretKey, receipt: r.body.metadata.key, views: 0 });
		}
		const seen = { before: [], during: [], after: [] };
		let phase = 'before';
		let created = [];
		// Four clients retrieving and creating without pause until told to stop.
		let stop = false;
		const client = async (n) => {
			for (let i = 0; !stop; i++) {
				const p = phase;
				const s = made[(n + i) % made.length];
				const r = i % 3 === 2 ?
					await api(srv.base, 'POST', '/api/secrets', { text: `during ${n}.${i}` }) :
					await api(srv.base, 'POST', `/api/secrets/${s.key}`, {});
				const q = phase === p ? p : 'during';
				seen[q].push(r);
				if (r.status === 200 && r.body.metadata) created.push(r.body.metadata.key);
				if (r.status === 200 && r.body.text) s.views++;
			}
		};
		const clients = [0, 1, 2, 3].map(client);
		while (seen.before.length < 8) await new Promise((r) => setImmediate(r));
		phase = 'during';
		pg.stop('fast');		// every connection is ended; new ones are refused
		const downFrom = seen.during.length;
		while (seen.during.length < downFrom + 8) await new Promise((r) => setImmediate(r));
		pg.start();
		phase = 'after';
		while (seen.after.length < 12) await new Promise((r) => setImmediate(r));
		stop = true;
		await Promise.all(clients);

		const all = [...seen.before, ...seen.during, ...seen.after];
		for (const r of all) {
			if (r.status === 200) continue;
			// Down: 503 from the store or the limiter; racing the last views: 410.
			if (r.status === 410) { assert.equal(r.body.code, 'MAX_VIEWS_REACHED'); continue; }
			assertJsonError(r, 503, ['STORE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE', 'STORE_BUSY']);
			assert.match(r.headers.get('retry-after') || '', /^\d+$/);
		}
		assert.ok(seen.during.some((r) => r.status === 503), 'some requests met the stopped database');
		assert.ok(seen.after.slice(-6).every((r) => r.status === 200 || r.status === 410),
			seen.after.slice(-6).map((r) => r.status).join(' '));
		// Nothing lost: every secret whose creation answered 200 is there;
		// nothing counted twice: the views stored are the views handed out.
		for (const k of created) {
			const m = await api(srv.base, 'GET', `/api/secrets/${k}`);
			assert.equal(m.status, 200, `created secret ${k}: ${m.text}`);
		}
		for (const s of made) {
			const m = await api(srv.base, 'GET', `/api/secrets/${s.receipt}`);
			assert.equal(m.body.viewCount, s.views, `secret ${s.key}: views stored vs handed out`);
			assert.equal(m.body.state, s.views >= 10 ? 'exhausted' : 'active');
		}
	});

	test('counters survive a clean restart (UNLOGGED) and cleanup runs after it', async () => {
		const before = Number(pg.sql(db, 'SELECT coalesce(sum(count), 0) FROM counters').trim());
		assert.ok(before > 0);
		pg.restart('fast');
		assert.equal(Number(pg.sql(db, 'SELECT coalesce(sum(count), 0) FROM counters').trim()), before);
		const res = await runProgram('cleanup', { env });
		assert.equal(res.code, 0, res.stderr);
	});

	test('after a crash the counters start again from nothing, and the limiter works', async () => {
		pg.restart('immediate');
		assert.equal(pg.sql(db, 'SELECT count(*) FROM counters').trim(), '0');
		const r = await api(srv.base, 'POST', '/api/secrets', { text: 'after the crash' });
		assert.equal(r.status, 200, r.text);
		assert.equal(r.headers.get('x-ratelimit-remaining'), '999');
	});
});

describe('one database through CGI', () => {
	const cgi = (env, program, opts = {}) => runCgi(program, { ...opts, env: { REMOTE_ADDR: '192.0.2.7', ...env, ...(opts.env || {}) } });
	const create = (env, body) => cgi(env, 'create', { method: 'POST', body });
	const retrieve = (env, key, body) => cgi(env, 'retrieve', { method: 'POST', pathInfo: `/${key}`, body });
	const metadata = (env, key) => cgi(env, 'metadata', { method: 'GET', pathInfo: `/${key}` });

	test('the first request on a new database applies the schema and writes nothing to the error log', async () => {
		// schema-pg.sql's IF NOT EXISTS steps raise NOTICEs ("already exists,
		// skipping"), which libpq printed to stderr: the web server's error log.
		const { db, env } = freshEnv();
		const c = await create(env, { text: 'first' });
		assert.equal(c.status, 200, c.body);
		assert.equal(c.stderr, '');
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), String(SCHEMA_VERSION));
	});

	test('a view whose count cannot be written is not served: 503, the view not spent, the text not sent', async () => {
		// The view count goes to the server with the COMMIT (lib/store_pg.c,
		// deferrable()); a failure of it must fail the retrieval.
		const { db, env } = freshEnv();
		const c = await create(env, { text: 'counted or not at all', maxViews: 2 });
		assert.equal(c.status, 200, c.body);
		pgSql(db, `CREATE FUNCTION no_views() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no views'; END $$;
			CREATE TRIGGER no_views BEFORE UPDATE OF view_count ON secrets FOR EACH ROW EXECUTE FUNCTION no_views();`);
		const r = await retrieve(env, c.json.metadata.secretKey);
		checkError(assert, r, 503, 'STORE_UNAVAILABLE');
		assert.ok(!r.body.includes('ciphertext'), 'no content in the answer');
		assert.match(r.stderr, /no views/);
		pgSql(db, 'DROP TRIGGER no_views ON secrets');
		assert.equal((await metadata(env, c.json.metadata.key)).json.viewCount, 0);
		const ok = await retrieve(env, c.json.metadata.secretKey);
		assert.equal(ok.status, 200);
		assert.ok(ok.json.text.ciphertext, 'the content, once the count is written');
		assert.equal(ok.json.viewsRemaining, 1);
	});

	test('a retrieval waiting on a row another session holds is 503 STORE_BUSY after the lock timeout; metadata and creates go on', async () => {
		const { db, env } = freshEnv();
		const c = await create(env, { text: 'held', maxViews: 2 });
		const key = c.json.metadata.secretKey;
		// A psql session holds the row lock until its stdin ends.
		const { spawn } = await import('node:child_process');
		const holder = spawn('psql', ['-X', '-q', '-h', cluster.socketDir(pgDir), '-p', String(cluster.portOf(pgDir)), '-U', 'postgres', '-d', db], { stdio: ['pipe', 'pipe', 'pipe'] });
		let out = '';
		const locked = new Promise((resolve, reject) => {
			holder.stdout.on('data', (d) => { out += d; if (out.includes('lock-held')) resolve(); });
			holder.on('close', () => reject(new Error('psql ended')));
		});
		holder.stdin.write(`BEGIN; SELECT id FROM secrets WHERE secret_hash = '\\x${sha256hex(key)}' FOR UPDATE; SELECT 'lock-held';\n`);
		await locked;
		try {
			const t0 = Date.now();
			const [busy, meta, other] = await Promise.all([
				retrieve(env, key), metadata(env, c.json.metadata.key), create(env, { text: 'not blocked' })]);
			checkError(assert, busy, 503, 'STORE_BUSY');
			assert.ok(Number(busy.headers['retry-after']) > 0);
			assert.ok(busy.ms >= 4000 && Date.now() - t0 < 20000, `answered after ${busy.ms} ms`);
			assert.equal(meta.status, 200);
			assert.equal(other.status, 200, 'a create does not wait for another secret\'s lock');
		} finally {
			const closed = new Promise((r) => holder.on('close', r));
			holder.stdin.end('ROLLBACK;\n');
			await closed;
		}
		assert.equal((await metadata(env, c.json.metadata.key)).json.viewCount, 0, 'the busy retrieval used no view');
		assert.equal((await retrieve(env, key)).status, 200);
	});

	test('an unreachable database is 503 STORE_UNAVAILABLE with Retry-After: 5 for every operation, quickly', async () => {
		const env = { BURNLINK_DB: 'postgres:host=/nonexistent/socket/dir dbname=burnlink user=burnlink',
			BURNLINK_SECRET_FILE: path.join(secretDir(), 'secret.key') };
		for (const [program, opts] of [['create', { method: 'POST', body: { text: 'x' } }],
			['metadata', { method: 'GET', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
			['retrieve', { method: 'POST', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }],
			['delete', { method: 'DELETE', pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' }]]) {
			const res = await cgi(env, program, opts);
			assert.equal(res.status, 503, `${program}: ${res.body}`);
			// The database's failure, not the limiter's, though the limiter meets it first.
			checkError(assert, res, 503, 'STORE_UNAVAILABLE');
			assert.equal(res.headers['retry-after'], '5');
			assert.ok(res.ms < 5000, `${program} took ${res.ms} ms`);
		}
		const c = await runProgram('cleanup', { env });
		assert.equal(c.code, 1);
		assert.match(c.stderr, /cleanup: .*failed/);
	});

	test('a counters table that cannot be used is 503 RATE_LIMIT_UNAVAILABLE and nothing is stored or consumed', async () => {
		const { db, env } = freshEnv();
		const c = await create(env, { text: 'x', passphrase: 'abcd' });
		pgSql(db, 'ALTER TABLE counters RENAME TO counters_away');
		try {
			const r = await retrieve(env, c.json.metadata.secretKey, { passphrase: 'abcd' });
			checkError(assert, r, 503, 'RATE_LIMIT_UNAVAILABLE');
			assert.equal(r.headers['retry-after'], '60');
			checkError(assert, await create(env, { text: 'y' }), 503, 'RATE_LIMIT_UNAVAILABLE');
			assert.equal(pgSql(db, 'SELECT count(*), sum(view_count) FROM secrets'), '1|0');
		} finally {
			pgSql(db, 'ALTER TABLE counters_away RENAME TO counters');
		}
	});

	test('cleanup prunes ended counter windows and removes expired rows with their attachments', async () => {
		const { db, env } = freshEnv();
		const s = await create(env, { text: 'p', passphrase: 'abcd', files: [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }] });
		await retrieve(env, s.json.metadata.secretKey);
		// The rate-limit windows; window 0 holds the metrics' totals (docs/ADMIN.md, "Metrics").
		const n = Number(pgSql(db, 'SELECT count(*) FROM counters WHERE window_start > 0'));
		assert.ok(n >= 2);
		let r = await runProgram('cleanup', { env });
		assert.match(r.stdout, /removed 0 expired secrets and 0 expired secret requests, pruned 0 counter windows/);
		pgSql(db, `UPDATE counters SET expires = 0 WHERE window_start > 0; UPDATE secrets SET expires_at = ${Date.now() - 1000}`);
		const totals = pgSql(db, 'SELECT count(*) FROM counters WHERE window_start = 0');
		assert.ok(Number(totals) >= 2);
		r = await runProgram('cleanup', { env });
		assert.match(r.stdout, new RegExp(`removed 1 expired secrets and 0 expired secret requests, pruned ${n} counter windows`));
		assert.equal(pgSql(db, 'SELECT (SELECT count(*) FROM secrets) + (SELECT count(*) FROM attachments) + (SELECT count(*) FROM counters WHERE window_start > 0)'), '0');
		// The totals stay (and grow: the cleanup runs are counted).
		assert.ok(Number(pgSql(db, 'SELECT count(*) FROM counters WHERE window_start = 0')) >= Number(totals));
	});

	test('cleanup from several hosts at once removes each row once', async () => {
		const { db, env } = freshEnv();
		for (let i = 0; i < 30; i++) await create(env, { text: `c${i}` });
		pgSql(db, `UPDATE secrets SET expires_at = ${Date.now() - 1000}`);
		const runs = await Promise.all([0, 1, 2, 3].map(() => runProgram('cleanup', { env })));
		let removed = 0;
		for (const r of runs) {
			assert.equal(r.code, 0, r.stderr);
			// one that finds another running stands down (next test)
			if (/standing down/.test(r.stdout)) continue;
			removed += Number(/removed (\d+) expired/.exec(r.stdout)[1]);
		}
		assert.equal(removed, 30);
		assert.equal(pgSql(db, 'SELECT count(*) FROM secrets'), '0');
	});

	test("a cleanup stands down while another host's holds the database's cleanup lock", async () => {
		const { db, env } = freshEnv();
		await create(env, { text: 'a' });
		pgSql(db, `UPDATE secrets SET expires_at = ${Date.now() - 1000}`);
		// another session holds the advisory lock (lib/store_pg.c, ST_CLEAN_LOCK)
		const holder = spawn('psql', ['-X', '-q', '-A', '-t', '-h', cluster.socketDir(pgDir), '-p',
			String(cluster.portOf(pgDir)), '-U', 'postgres', '-d', db], { stdio: ['pipe', 'pipe', 'inherit'] });
		const closed = new Promise((resolve) => holder.on('close', resolve));
		await new Promise((resolve, reject) => {
			let out = '';
			holder.stdout.on('data', (c) => { out += c; if (out.includes('locked')) resolve(); });
			holder.on('exit', (code) => reject(new Error(`psql exited (${code})`)));
			holder.stdin.write("SELECT pg_advisory_lock(1651270252);\n\\echo locked\n");
		});
		let r;
		try {
			r = await runProgram('cleanup', { env });
		} finally {
			holder.stdin.end();
			await closed;
		}
		assert.equal(r.code, 0, r.stderr);
		assert.match(r.stdout, /another cleanup is still running \(it holds the database's cleanup lock\); standing down/);
		assert.equal(pgSql(db, 'SELECT count(*) FROM secrets'), '1', 'nothing removed');
		r = await runProgram('cleanup', { env });
		assert.match(r.stdout, /removed 1 expired secrets/);
	});

	test('cleanup in steps: 1,234 expired secrets with attachments all go, a live one stays', async () => {
		const { db, env } = freshEnv();
		await create(env, { text: 'a', files: [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }] });
		const keep = await create(env, { text: 'keep' });
		pgSql(db, `UPDATE secrets SET expires_at = ${Date.now() - 1000} WHERE id = (SELECT min(id) FROM secrets);
			INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv)
			SELECT sha256(i::text::bytea), sha256(('r' || i)::text::bytea), created_at, expires_at, text_ct, text_iv
			FROM secrets, generate_series(1, 1233) i WHERE id = (SELECT min(id) FROM secrets);
			INSERT INTO attachments (secret_id, idx, name, name_iv, mime, mime_iv, data, data_iv)
			SELECT s.id, 0, a.name, a.name_iv, a.mime, a.mime_iv, a.data, a.data_iv FROM secrets s, attachments a
			WHERE s.expires_at < ${Date.now()} AND s.id <> a.secret_id`);
		assert.equal(pgSql(db, 'SELECT count(*) FROM attachments'), '1234');
		const r = await runProgram('cleanup', { env });
		assert.equal(r.code, 0, r.stderr);
		const m = /removed (\d+) expired secrets .* in (\d+) steps/.exec(r.stdout);
		assert.ok(m, r.stdout);
		assert.equal(Number(m[1]), 1234);
		assert.ok(Number(m[2]) >= 3, `a transaction per step (${m[2]})`);
		assert.equal(pgSql(db, 'SELECT count(*) FROM secrets'), '1');
		assert.equal(pgSql(db, 'SELECT count(*) FROM attachments'), '0');
		assert.equal((await retrieve(env, keep.json.metadata.secretKey)).status, 200);
	});

	test('a counters table of 1,000,000 live clients: a fresh client gets 200 and the boundary stays exact', () => inOneWindow(86400, async () => {
		// the count is per UTC day: a run that straddles midnight runs again, once
		const { db, env } = freshEnv();
		const s = await create(env, { text: 'x', maxViews: 100 });
		const day = Math.floor(Date.now() / 1000 / 86400) * 86400;
		const ip = '203.0.113.61';
		pgSql(db, `INSERT INTO counters (bucket, window_start, expires, count)
			SELECT sha256(i::text::bytea), ${day}, ${day + 86400}, 1 + i % 999 FROM generate_series(1, 1000000) i;
			INSERT INTO counters VALUES ('\\x${bucket(env.BURNLINK_SECRET_FILE, 'ip:metadata', ip)}', ${day}, ${day + 86400}, 998)`);
		const meta = (addr) => runCgi('metadata', { method: 'GET', pathInfo: `/${s.json.metadata.secretKey}`, env: { ...env, REMOTE_ADDR: addr } });
		const fresh = await meta('203.0.113.62');
		assert.equal(fresh.status, 200, fresh.body.toString());
		assert.equal(fresh.headers['x-ratelimit-remaining'], '999');
		assert.equal((await meta(ip)).status, 200);
		const last = await meta(ip);
		assert.equal(last.status, 200);
		assert.equal(last.headers['x-ratelimit-remaining'], '0');
		checkError(assert, await meta(ip), 429, 'RATE_LIMIT_EXCEEDED');
	}));

	test('after the last view and after a burn the database holds no trace of the content, the keys or the passphrase', async () => {
		const { db, env } = freshEnv();
		const marker = crypto.randomBytes(32);
		const a = await create(env, { text: 'one ' + marker.toString('hex'), files: [{ filename: 'm.bin', data: `data:application/octet-stream;base64,${marker.toString('base64')}` }] });
		const b = await create(env, { text: 'two', passphrase: 'pass-' + marker.toString('hex').slice(0, 12) });
		const ctA = pgSql(db, `SELECT encode(text_ct, 'hex') FROM secrets WHERE secret_hash = '\\x${sha256hex(a.json.metadata.secretKey)}'`);
		assert.ok(ctA.length > 64);
		assert.equal((await retrieve(env, a.json.metadata.secretKey)).status, 200);
		assert.equal((await cgi(env, 'delete', { method: 'DELETE', pathInfo: `/${b.json.metadata.key}` })).status, 200);
		const dump = execFileSync('pg_dump', ['-h', cluster.socketDir(pgDir), '-U', 'postgres', '--data-only', '-d', db], { encoding: 'utf8' });
		assert.ok(!dump.includes(ctA), 'the text ciphertext is gone');
		assert.equal(pgSql(db, 'SELECT count(*) FROM attachments'), '0');
		for (const [n, what] of [[a.json.metadata.secretKey, 'secretKey'], [a.json.metadata.key, 'receipt key'],
			[a.json.secretUrl.split('#key=')[1], 'decryption key'], ['pass-' + marker.toString('hex').slice(0, 12), 'passphrase'],
			[marker.toString('hex'), 'plaintext']])
			assert.ok(!dump.includes(n) && !dump.includes(Buffer.from(n).toString('hex')), `the dump holds the ${what}`);
	});
});

describe('accounts and API keys', () => {
	test('burnlink-admin manages accounts and keys; a key attributes a creation; a revoked key is 401', async () => {
		const { db, env } = freshEnv();
		const admin = (...args) => {
			const r = spawnSync(path.resolve(process.env.BURNLINK_BIN, 'tools/burnlink-admin'), ['--json', ...args],
				{ encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
			return { code: r.status, json: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
		};
		const acct = admin('account', 'create', 'Ops@Example.org');
		assert.equal(acct.code, 0, acct.stderr);
		assert.equal(admin('account', 'create', 'Ops@Example.org').code, 4, 'the name is taken');
		const key = admin('key', 'issue', 'Ops@Example.org', '--label', 'ci');
		assert.equal(key.code, 0, key.stderr);
		const withKey = await runCgi('create', { method: 'POST', body: { text: 'by key' },
			env: { REMOTE_ADDR: '192.0.2.8', HTTP_AUTHORIZATION: `Bearer ${key.json.key}`, ...env } });
		assert.equal(withKey.status, 200, withKey.body.toString());
		assert.equal(pgSql(db, 'SELECT account_id FROM secrets'), String(acct.json.id));
		const listed = admin('account', 'list').json;
		assert.equal(listed[0].secrets, 1);
		assert.equal(listed[0].activeKeys, 1);
		assert.notEqual(admin('key', 'list').json[0].lastUsedAt, null);
		assert.equal(admin('key', 'revoke', String(key.json.id)).code, 0);
		const revoked = await runCgi('create', { method: 'POST', body: { text: 'by key' },
			env: { REMOTE_ADDR: '192.0.2.8', HTTP_AUTHORIZATION: `Bearer ${key.json.key}`, ...env } });
		checkError(assert, revoked, 401, 'INVALID_API_KEY');
	});
});

describe('least privilege (INSTALL)', () => {
	test('the owner role installs the schema; the programs\' role works but cannot drop or create tables', async () => {
		const db = cluster.createDatabase(pgDir, 'postgres');
		const own = `own_${crypto.randomBytes(4).toString('hex')}`, app = `app_${crypto.randomBytes(4).toString('hex')}`;
		pgSql('postgres', `CREATE ROLE ${own} LOGIN; CREATE ROLE ${app} LOGIN`);
		pgSql(db, `ALTER DATABASE ${db} OWNER TO ${own}; REVOKE ALL ON DATABASE ${db} FROM PUBLIC; ` +
			`GRANT CONNECT ON DATABASE ${db} TO ${app}; ALTER SCHEMA public OWNER TO ${own}; ` +
			'REVOKE CREATE ON SCHEMA public FROM PUBLIC; ' +
			`ALTER DEFAULT PRIVILEGES FOR ROLE ${own} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${app}; ` +
			`GRANT USAGE ON SCHEMA public TO ${app}`);
		const secret = path.join(secretDir(), 'secret.key');
		const appEnv = { BURNLINK_DB: `postgres:host=${cluster.socketDir(pgDir)} dbname=${db} user=${app}`, BURNLINK_SECRET_FILE: secret };
		// Before the schema exists the programs' role cannot create it: 503, and the log says what to do.
		const early = await create(appEnv, { text: 'too early' });
		assert.equal(early.status, 503);
		assert.match(early.stderr, /run cron\/cleanup once as the database's owner/);
		// The owner's one cleanup run applies it.
		const r = await runProgram('cleanup', { env: { ...appEnv, BURNLINK_DB: `postgres:host=${cluster.socketDir(pgDir)} dbname=${db} user=${own}` } });
		assert.equal(r.code, 0, r.stderr);
		const c = await create(appEnv, { text: 'least privilege', maxViews: 1 });
		assert.equal(c.status, 200, c.body.toString());
		assert.equal((await retrieve(appEnv, c.json.metadata.secretKey)).status, 200);
		assert.equal((await runProgram('cleanup', { env: appEnv })).code, 0);
		for (const q of ['DROP TABLE secrets', 'TRUNCATE counters', 'ALTER TABLE secrets ADD COLUMN x int', 'CREATE TABLE evil (x int)'])
			assert.throws(() => pgSql(db, q, { user: app }), /must be owner|permission denied/, q);
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema', { user: app }), pgSql(db, 'SELECT max(version) FROM burnlink_schema'));
	});
});

describe('TCP and a host name, under the seccomp filter', () => {
	let pg, port;
	before(async () => {
		// on a port found free (again on another one if it was taken meanwhile)
		({ port, value: pg } = await cluster.onFreePort((p) => cluster.newCluster({ tcpPort: p })));
	});
	after(() => pg?.remove());

	test('create and retrieve over postgres:host=localhost port=N', async () => {
		const db = pg.createDatabase();
		const env = { BURNLINK_DB: `postgres:host=localhost port=${port} dbname=${db} user=burnlink sslmode=disable`,
			BURNLINK_SECRET_FILE: path.join(secretDir(), 'secret.key') };
		const c = await create(env, { text: 'over tcp' });
		assert.equal(c.status, 200, `${c.body} ${c.stderr}`);
		const r = await retrieve(env, c.json.metadata.secretKey);
		assert.equal(r.status, 200);
		assert.equal(pg.sql(db, "SELECT count(*) FROM pg_stat_activity WHERE client_addr IS NOT NULL AND application_name = 'burnlink'").trim(), '0',
			'each program closed its connection');
	});
});

describe('schema version 4 (key commitment)', () => {
	test('a version-3 database gains secrets.key_commit on first use; its secrets answer keyCommitment null and keep working', async () => {
		const { db, env } = freshEnv();
		// Version 3: schema-pg.sql as it was, without the column.
		const v3 = oldSchema('pg', 3);
		const current = String(SCHEMA_VERSION);
		assert.ok(!/key_commit/.test(v3.replace(/^--.*$/gm, '')), 'the version-3 schema has no key_commit');
		pgSql(db, v3, { user: 'burnlink' });	// as the programs' role (tests/pg/cluster.mjs ROLE), which owns what they use
		const key = crypto.randomBytes(32), iv = crypto.randomBytes(12);
		const c = crypto.createCipheriv('aes-256-gcm', key, iv);
		const sealed = Buffer.concat([c.update('from version 3'), c.final(), c.getAuthTag()]);
		const skey = crypto.randomBytes(16).toString('base64url'), rkey = crypto.randomBytes(16).toString('base64url');
		pgSql(db, `INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, max_views, text_ct, text_iv) VALUES
			('\\x${sha256hex(skey)}', '\\x${sha256hex(rkey)}', ${Date.now()}, ${Date.now() + 3600e3}, 1, '\\x${sealed.toString('hex')}', '\\x${iv.toString('hex')}')`, { user: 'burnlink' });
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), '3');
		const m = await runCgi('metadata', { method: 'GET', pathInfo: `/${skey}`, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
		assert.equal(m.status, 200, m.body.toString() + m.stderr);
		assert.equal(m.json.keyCommitment, null);
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), current);
		assert.equal(pgSql(db, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'secrets' AND column_name = 'key_commit'"), '1');
		const r = await retrieve(env, skey);
		assert.equal(r.status, 200);
		const item = Buffer.from(r.json.text.ciphertext, 'base64');
		const d = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(r.json.text.iv, 'base64'));
		d.setAuthTag(item.subarray(item.length - 16));
		assert.equal(Buffer.concat([d.update(item.subarray(0, item.length - 16)), d.final()]).toString(), 'from version 3');
		// A new server-side secret carries the commitment of its key.
		const n = await create(env, { text: 'new' });
		assert.equal(n.status, 200, n.stderr);
		const nkey = Buffer.from(n.json.secretUrl.split('#key=')[1], 'base64url');
		const nm = await runCgi('metadata', { method: 'GET', pathInfo: `/${n.json.metadata.secretKey}`, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
		assert.equal(nm.json.keyCommitment, crypto.createHmac('sha256', nkey).update('burnlink key commitment v1').digest('base64url'));
	});
});

describe('schema version 7 (the audit trail)', () => {
	test('a version-6 database gains audit_events on first use, and the first event is written there', async () => {
		const { db, env } = freshEnv();
		const v6 = oldSchema('pg', 6);	// schema-pg.sql of ad17c37, the last version 6
		assert.ok(!/audit_events/.test(v6), 'the version-6 schema has no audit trail');
		pgSql(db, `${v6}; CREATE TABLE IF NOT EXISTS burnlink_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL);
			INSERT INTO burnlink_schema (id, version) VALUES (1, 6)`, { user: 'burnlink' });
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), '6');
		const c = await create(env, { text: 'after the upgrade' });
		assert.equal(c.status, 200, c.stderr);
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), String(SCHEMA_VERSION));
		assert.equal(pgSql(db, "SELECT kind FROM audit_events"), 'secret.created');
		const r = await retrieve(env, c.json.metadata.secretKey);
		assert.equal(r.status, 200);
		assert.equal(pgSql(db, "SELECT count(*) FROM audit_events WHERE kind = 'secret.exhausted'"), '1');
	});
});

describe('schema version 8 (keys that carry the expiry)', () => {
	test('a version-7 database: its secrets (keys without the expiry) read and burn after the upgrade; the hashes are unique under lookup_at', async () => {
		const { db, env } = freshEnv();
		const v7 = oldSchema('pg', 7);	// schema-pg.sql of 717fafd, the last version 7
		assert.ok(/secret_hash\s+bytea NOT NULL UNIQUE/.test(v7), 'the version-7 table');
		pgSql(db, `${v7}; INSERT INTO burnlink_schema (id, version) VALUES (1, 7)`, { user: 'burnlink' });
		const key = crypto.randomBytes(32), iv = crypto.randomBytes(12);
		const c = crypto.createCipheriv('aes-256-gcm', key, iv);
		const sealed = Buffer.concat([c.update('from version 7'), c.final(), c.getAuthTag()]);
		const [skey, rkey, skey2, rkey2] = Array.from({ length: 4 }, () => crypto.randomBytes(16).toString('base64url'));
		for (const [sk, rk] of [[skey, rkey], [skey2, rkey2]])
			pgSql(db, `INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, max_views, text_ct, text_iv) VALUES
				('\\x${sha256hex(sk)}', '\\x${sha256hex(rk)}', ${Date.now()}, ${Date.now() + 3600e3}, 2, '\\x${sealed.toString('hex')}', '\\x${iv.toString('hex')}')`, { user: 'burnlink' });
		const m = await runCgi('metadata', { method: 'GET', pathInfo: `/${rkey}`, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
		assert.equal(m.status, 200, m.body.toString() + m.stderr);
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), String(SCHEMA_VERSION));
		assert.equal(pgSql(db, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'secrets'::regclass AND contype = 'u'"), '0',
			'the constraints on the hashes alone are gone');
		assert.equal(pgSql(db, "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'secrets' AND indexdef LIKE '%UNIQUE%lookup_at%'"),
			'secrets_receipt,secrets_secret');
		assert.equal(pgSql(db, 'SELECT string_agg(DISTINCT lookup_at::text, \',\') FROM secrets'), '0');
		// the whole way and the one-statement view (ST_VIEW_TAKE) both find it
		const r = await retrieve(env, skey);
		assert.equal(r.status, 200, r.body.toString());
		const item = Buffer.from(r.json.text.ciphertext, 'base64');
		const d = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(r.json.text.iv, 'base64'));
		d.setAuthTag(item.subarray(item.length - 16));
		assert.equal(Buffer.concat([d.update(item.subarray(0, item.length - 16)), d.final()]).toString(), 'from version 7');
		const burn = await runCgi('delete', { method: 'DELETE', pathInfo: `/${rkey2}`, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
		assert.equal(burn.status, 200, burn.body.toString());
		checkError(assert, await retrieve(env, skey2), 410, 'SECRET_BURNED');
		// a new secret's keys carry its expiry, and its row keeps it
		const n = await create(env, { text: 'version 8', ttl: 3600 });
		assert.equal(n.status, 200, n.stderr);
		const at = Buffer.from(n.json.metadata.secretKey, 'base64url').readUInt32BE(0);
		assert.equal(at, Math.floor(Date.parse(n.json.metadata.expiresAt) / 1000));
		assert.equal(Buffer.from(n.json.metadata.key, 'base64url').readUInt32BE(0), at);
		assert.equal(pgSql(db, `SELECT lookup_at FROM secrets WHERE secret_hash = '\\x${sha256hex(n.json.metadata.secretKey)}'`), String(at));
		assert.equal((await retrieve(env, n.json.metadata.secretKey)).status, 200);
		assert.equal((await retrieve(env, skey)).status, 200, 'the old secret\'s second view');
	});
});

describe('a schema newer than the programs (a rollback)', () => {
	test('is refused: 503 SCHEMA_TOO_NEW naming both versions, nothing read or changed', async () => {
		const { db, env } = freshEnv();
		const made = await create(env, { text: 'before the rollback' });
		assert.equal(made.status, 200, made.stderr);
		const current = Number(pgSql(db, 'SELECT version FROM burnlink_schema'));
		pgSql(db, `UPDATE burnlink_schema SET version = ${current + 1}`);
		const res = await retrieve(env, made.json.metadata.secretKey);
		const j = checkError(assert, res, 503, 'SCHEMA_TOO_NEW');
		assert.match(j.hint, new RegExp(`version ${current + 1}\\b.*version ${current}\\b`), j.hint);
		assert.equal(pgSql(db, 'SELECT version FROM burnlink_schema'), String(current + 1));
		assert.equal(pgSql(db, 'SELECT view_count FROM secrets'), '0');
		const c = await runProgram('cleanup', { env });
		assert.notEqual(c.code, 0);
		assert.match(c.stderr, new RegExp(`version ${current + 1}\\b`));
	});
});

// Shortcuts the describes above share (hoisted function declarations).
function create(env, body) {
	return runCgi('create', { method: 'POST', body, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
}
function retrieve(env, key, body) {
	return runCgi('retrieve', { method: 'POST', pathInfo: `/${key}`, body, env: { REMOTE_ADDR: '192.0.2.7', ...env } });
}
