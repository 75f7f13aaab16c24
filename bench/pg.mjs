// pg.mjs: a PostgreSQL CGI request broken down, run by hand (`node bench/pg.mjs`
// after `make pg` and `make bench`; `make bench BACKEND=postgres` measures the
// cases themselves, bench/run.sh). The programs of `make pg` (build/pg, dynamically
// linked, both backends) run on a throwaway PostgreSQL cluster
// (tests/pg/cluster.mjs) that listens on a unix socket and on loopback TCP:
//   1. per request, each program run directly as a CGI request (bench/drive):
//      the static SQLite programs, the PG build on SQLite (the cost of dynamic
//      linking), and the PG build on PostgreSQL over the socket and over TCP
//      (the cost of a connection per request); and pgbench's own figure for a
//      connection (pgbench -C) against a kept one;
//   2. through lighttpd with wrk (bench/wrk.lua), at 1 and 8 connections:
//      metadata, retrieve (unlimited) and a client-side create, on SQLite and
//      on PostgreSQL over the socket and over TCP.
// Environment: DURATION seconds per wrk run (5), CONNS ("1 8"), COUNT CGI runs
// per direct measurement (200), OUT the Markdown file (bench/results/).
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(ROOT);
const { newCluster, binDir } = await import('../tests/pg/cluster.mjs');
const { startServer } = await import('../tests/lib/server.mjs');

const DURATION = Number(process.env.DURATION) || 5;
const CONNS = (process.env.CONNS || '1 8').split(/\s+/).filter(Boolean).map(Number);
const COUNT = Number(process.env.COUNT) || 200;
const PGBIN = path.join(ROOT, 'build/pg');
const DRIVE = path.join(ROOT, process.env.BENCH_HELPERS || 'build/bench', 'drive');
for (const p of [path.join(PGBIN, 'cgi-bin/create'), path.join(ROOT, 'cgi-bin/create'), DRIVE])
	if (!fs.existsSync(p)) throw new Error(`bench/pg.mjs: ${p} is missing (make pg; make bench)`);

const freePort = () => new Promise((resolve) => {
	const s = net.createServer();
	s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

const tcpPort = await freePort();
console.error(`bench/pg: a throwaway cluster (unix socket and 127.0.0.1:${tcpPort})`);
const pg = newCluster({ tcpPort });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-pgbench-'));
fs.chmodSync(work, 0o755);
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

// The backends: the environment each gives the programs.
function backendEnv(name) {
	const secret = path.join(work, `${name}.key`);
	if (!fs.existsSync(secret)) fs.writeFileSync(secret, crypto.randomBytes(32), { mode: 0o644 });
	if (name === 'sqlite') {
		const dir = path.join(work, 'sqlite');
		fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
		fs.chmodSync(dir, 0o777);
		return { BURNLINK_DB: path.join(dir, `burnlink-${crypto.randomBytes(4).toString('hex')}.db`), BURNLINK_SECRET_FILE: secret };
	}
	const db = pg.createDatabase();
	return {
		BURNLINK_DB: name === 'pg-unix' ? pg.conninfo(db) :
			`postgres:host=127.0.0.1 port=${tcpPort} dbname=${db} user=burnlink sslmode=disable`,
		BURNLINK_SECRET_FILE: secret,
	};
}

const field = (line, k) => Number(new RegExp(`${k}=([0-9.]+)`).exec(line)?.[1]);

// One program run COUNT times as a CGI request by bench/drive; its mean wall and CPU ms.
function drive(program, env, body = '/dev/null', extra = {}) {
	const r = spawnSync(DRIVE, [String(COUNT), body, program], {
		encoding: 'utf8',
		env: { PATH: process.env.PATH, GATEWAY_INTERFACE: 'CGI/1.1', REMOTE_ADDR: '127.0.0.1',
			HTTP_HOST: 'bench.test', BURNLINK_TRUSTED_PROXIES: '127.0.0.1', ...env, ...extra },
	});
	if (r.status !== 0) throw new Error(`drive ${program}: ${r.stderr}`);
	return { mean: field(r.stdout, 'mean_ms'), cpu: field(r.stdout, 'cpu_ms'), status: /status=(.*)/.exec(r.stdout)?.[1] };
}

// A secret created through the CGI program; returns its keys.
function seedSecret(bin, env) {
	const body = JSON.stringify({ text: { ciphertext: crypto.randomBytes(1040).toString('base64'), iv: crypto.randomBytes(12).toString('base64') }, maxViews: null, ttl: 86400 });
	const out = execFileSync(path.join(bin, 'cgi-bin/create'), {
		input: body, encoding: 'utf8',
		env: { PATH: process.env.PATH, REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json',
			CONTENT_LENGTH: String(body.length), REMOTE_ADDR: '127.0.0.1', HTTP_HOST: 'bench.test', ...env },
	});
	const j = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
	return { secretKey: j.metadata.secretKey, receiptKey: j.metadata.key };
}

const csBody = path.join(work, 'cs.json');
fs.writeFileSync(csBody, JSON.stringify({ text: { ciphertext: crypto.randomBytes(1040).toString('base64'), iv: crypto.randomBytes(12).toString('base64') }, ttl: 86400, maxViews: 1 }));
fs.chmodSync(csBody, 0o644);

// ---- 1. per request, CGI run directly ----------------------------------------
const direct = [];
for (const [label, bin, backend] of [
	['SQLite, static programs (make)', ROOT, 'sqlite'],
	['SQLite, PG build (dynamic)', PGBIN, 'sqlite'],
	['PostgreSQL, unix socket', PGBIN, 'pg-unix'],
	['PostgreSQL, TCP 127.0.0.1', PGBIN, 'pg-tcp'],
]) {
	console.error(`bench/pg: direct CGI runs: ${label}`);
	const env = backendEnv(backend);
	const s = seedSecret(bin, env);
	const meta = drive(path.join(bin, 'cgi-bin/metadata'), env, '/dev/null', {
		REQUEST_METHOD: 'GET', PATH_INFO: `/${s.receiptKey}`, REQUEST_URI: `/api/secrets/${s.receiptKey}` });
	const size = fs.statSync(csBody).size;
	const create = drive(path.join(bin, 'cgi-bin/create'), env, csBody, {
		REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json', CONTENT_LENGTH: String(size), REQUEST_URI: '/api/secrets' });
	direct.push({ label, meta, create });
}

// pgbench: a connection per transaction (-C) against a kept one, SELECT 1.
function pgbench(extra) {
	const script = path.join(work, 'select1.sql');
	fs.writeFileSync(script, 'SELECT 1;\n');
	fs.chmodSync(script, 0o644);
	const r = spawnSync(path.join(binDir(), 'pgbench'), ['-n', '-h', pg.socket, '-p', String(tcpPort), '-U', 'postgres',
		'-f', script, '-t', '500', ...extra, 'postgres'], { encoding: 'utf8' });
	const lat = /latency average = ([0-9.]+) ms/.exec(r.stdout)?.[1];
	const conn = /average connection time = ([0-9.]+) ms/.exec(r.stdout)?.[1];
	return { lat: Number(lat), conn: conn === undefined ? undefined : Number(conn) };
}
const pgbKept = pgbench([]);
const pgbNew = pgbench(['-C']);

// ---- 2. through lighttpd with wrk ----------------------------------------------
function wrk(base, conns, vars) {
	const r = spawnSync('wrk', ['-t', String(Math.min(conns, 2)), '-c', String(conns), '-d', `${DURATION}s`,
		'-s', path.join(ROOT, 'bench/wrk.lua'), base], {
		encoding: 'utf8', env: { ...process.env, BL_THREADS: String(Math.min(conns, 2)), ...vars },
	});
	const line = (r.stdout || '').split('\n').find((l) => l.startsWith('RESULT')) || '';
	return { rps: field(line, 'rps'), p50: field(line, 'p50_ms'), p99: field(line, 'p99_ms'), bad: field(line, 'bad') };
}

const served = [];
for (const backend of ['sqlite', 'pg-unix', 'pg-tcp']) {
	const env = { ...backendEnv(backend), BURNLINK_TRUSTED_PROXIES: '127.0.0.1' };
	const srv = await startServer({ server: 'lighttpd', binDir: path.join(PGBIN, 'cgi-bin'), env });
	try {
		// Seeded through the server, so that the SQLite file belongs to its user.
		const res = await fetch(`${srv.base}/api/secrets`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ text: { ciphertext: crypto.randomBytes(1040).toString('base64'), iv: crypto.randomBytes(12).toString('base64') }, maxViews: null }) });
		const j = await res.json();
		if (res.status !== 200) throw new Error(`bench/pg: seeding ${backend}: ${JSON.stringify(j)}`);
		const s = { secretKey: j.metadata.secretKey, receiptKey: j.metadata.key };
		for (const [name, vars] of [
			['metadata', { BL_METHOD: 'GET', BL_PATH: '/api/secrets/', BL_KEY: s.receiptKey }],
			['retrieve', { BL_METHOD: 'POST', BL_PATH: '/api/secrets/', BL_KEY: s.secretKey }],
			['create-cs', { BL_METHOD: 'POST', BL_PATH: '/api/secrets', BL_BODY: csBody }],
		]) {
			for (const c of CONNS) {
				console.error(`bench/pg: wrk ${backend} ${name} ${c} conn`);
				served.push({ backend, name, conns: c, ...wrk(srv.base, c, vars) });
			}
		}
	} finally {
		await srv.stop();
	}
}

// ---- the report -------------------------------------------------------------------
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const lines = [];
lines.push(`## PostgreSQL (bench/pg.mjs, ${new Date().toISOString()}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})`, '');
lines.push(`Per request, each program run directly as a CGI request ${COUNT} times (bench/drive): mean wall ms (CPU ms).`, '');
lines.push('| programs and database | metadata | create (client-side 1 KiB) |', '| --- | --- | --- |');
for (const d of direct) lines.push(`| ${d.label} | ${f(d.meta.mean)} (${f(d.meta.cpu)}) | ${f(d.create.mean)} (${f(d.create.cpu)}) |`);
lines.push('', `pgbench, SELECT 1 over the unix socket: ${f(pgbKept.lat, 3)} ms a query on a kept connection; ` +
	`${f(pgbNew.lat, 3)} ms with a new connection each (-C; average connection time ${f(pgbNew.conn, 3)} ms).`, '');
lines.push(`Through lighttpd (CGI, the PG build), wrk ${DURATION} s per run, one run:`, '');
lines.push('| case | database | conns | req/s | p50 ms | p99 ms | not 200 |', '| --- | --- | --- | --- | --- | --- | --- |');
for (const s of served) lines.push(`| ${s.name} | ${s.backend} | ${s.conns} | ${f(s.rps, 1)} | ${f(s.p50)} | ${f(s.p99)} | ${s.bad ?? '-'} |`);
const text = lines.join('\n') + '\n';
process.stdout.write(text);
const out = process.env.OUT || path.join(ROOT, 'bench/results', `postgres-${new Date().toISOString().replace(/[:.]/g, '-')}.md`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, text);
console.error(`bench/pg: written to ${out}`);
pg.remove();
