// replication.mjs: what synchronous replication costs a write (issue 30; INSTALL,
// "PostgreSQL, highly available"; docs/PERFORMANCE.md, "PostgreSQL failover").
//
// Usage: node bench/replication.mjs   (after `make pg`)
// A primary and a streaming standby on loopback TCP (tests/pg/cluster.mjs:
// initdb, pg_basebackup -R), both with fsync = on and full_page_writes = on
// (the test clusters turn them off), and lighttpd serving the PG build as
// FastCGI responders (and as CGI programs, CGI=1). The standby is switched in
// turn between asynchronous (synchronous_standby_names empty: a COMMIT waits
// for the primary's own WAL flush only) and synchronous (names '*',
// synchronous_commit = on: a COMMIT also waits for the standby to flush it),
// and each case runs under wrk in both modes, ROUNDS times, interleaved so that
// the machine's noise falls on both alike: a server-side create (64-byte
// text), a retrieve of an unlimited secret (a view is a COMMIT too) and
// metadata (a read: no COMMIT, a control).
// Environment: DURATION seconds per wrk run (5), CONNS ("1 8"), ROUNDS (3),
// OUT the Markdown file (default bench/results/<date>-replication.md).
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(ROOT);
const cluster = await import('../tests/pg/cluster.mjs');
const { startServer } = await import('../tests/lib/server.mjs');

const DURATION = Number(process.env.DURATION) || 5;
const CONNS = (process.env.CONNS || '1 8').split(/\s+/).filter(Boolean).map(Number);
const ROUNDS = Number(process.env.ROUNDS) || 3;
const SERVER = process.env.CGI === '1' ? 'lighttpd' : 'lighttpd-fastcgi';
const PGBIN = path.join(ROOT, 'build/pg');
if (!fs.existsSync(path.join(PGBIN, 'cgi-bin/create')))
	throw new Error('bench/replication.mjs: build/pg is missing (make pg)');

const freePort = () => new Promise((resolve) => {
	const s = net.createServer();
	s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

const p1 = await freePort();
let p2;
do p2 = await freePort(); while (p2 === p1);
console.error(`bench/replication: primary on 127.0.0.1:${p1}, standby on 127.0.0.1:${p2}`);
const primary = cluster.newCluster({ tcpPort: p1 });
// Durable, as a production primary is; the standby's copy of the settings
// (pg_basebackup copies postgresql.auto.conf) makes it durable too.
primary.sql('postgres', 'ALTER SYSTEM SET fsync = on');
primary.sql('postgres', 'ALTER SYSTEM SET full_page_writes = on');
primary.restart();
const standby = cluster.newStandby(primary, { tcpPort: p2 });
const db = primary.createDatabase();

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-replbench-'));
fs.chmodSync(work, 0o755);
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const secret = path.join(work, 'secret.key');
fs.writeFileSync(secret, crypto.randomBytes(32), { mode: 0o644 });
const env = {
	BURNLINK_DB: `postgresql://burnlink@127.0.0.1:${p1},127.0.0.1:${p2}/${db}?target_session_attrs=read-write`,
	BURNLINK_SECRET_FILE: secret,
	BURNLINK_TRUSTED_PROXIES: '127.0.0.1',
};
const body = path.join(work, 'create.json');
fs.writeFileSync(body, JSON.stringify({ text: 'x'.repeat(64), ttl: 86400 }));
fs.chmodSync(body, 0o644);

const field = (line, k) => Number(new RegExp(`${k}=([0-9.]+)`).exec(line)?.[1]);
function wrk(base, conns, vars) {
	const r = spawnSync('wrk', ['-t', String(Math.min(conns, 2)), '-c', String(conns), '-d', `${DURATION}s`,
		'-s', path.join(ROOT, 'bench/wrk.lua'), base], {
		encoding: 'utf8', env: { ...process.env, BL_THREADS: String(Math.min(conns, 2)), ...vars },
	});
	const line = (r.stdout || '').split('\n').find((l) => l.startsWith('RESULT')) || '';
	return { rps: field(line, 'rps'), p50: field(line, 'p50_ms'), p99: field(line, 'p99_ms'), bad: field(line, 'bad') };
}

const srv = await startServer({ server: SERVER, binDir: path.join(PGBIN, 'cgi-bin'), env });
const runs = [];
try {
	const res = await fetch(`${srv.base}/api/secrets`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ text: 'an unlimited secret', maxViews: null, ttl: 86400 }) });
	const j = await res.json();
	if (res.status !== 200) throw new Error(`bench/replication: seeding: ${JSON.stringify(j)}`);
	const cases = [
		['create', { BL_METHOD: 'POST', BL_PATH: '/api/secrets', BL_BODY: body }],
		['retrieve', { BL_METHOD: 'POST', BL_PATH: '/api/secrets/', BL_KEY: j.metadata.secretKey }],
		['metadata', { BL_METHOD: 'GET', BL_PATH: '/api/secrets/', BL_KEY: j.metadata.key }],
	];
	for (let round = 1; round <= ROUNDS; round++) {
		// Alternate which mode goes first, so that neither always follows the other.
		const modes = round % 2 ? ['async', 'sync'] : ['sync', 'async'];
		for (const mode of modes) {
			cluster.setSynchronous(primary.dir, mode === 'sync' ? '*' : '');
			for (const [name, vars] of cases) {
				for (const c of CONNS) {
					console.error(`bench/replication: round ${round} ${mode} ${name} ${c} conn`);
					runs.push({ round, mode, name, conns: c, ...wrk(srv.base, c, vars) });
				}
			}
		}
	}
} finally {
	await srv.stop();
}

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const lines = [];
const pgv = execFileSync(path.join(cluster.binDir(), 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
lines.push(`## Synchronous replication: cost of a write (bench/replication.mjs, ${new Date().toISOString()})`, '',
	`- ${os.cpus().length} x ${os.cpus()[0].model}, load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
	`- ${pgv}; primary and standby on this machine, loopback TCP, fsync = on, full_page_writes = on`,
	`- lighttpd, the PG build as ${SERVER === 'lighttpd' ? 'CGI programs' : 'FastCGI responders'}; wrk ${DURATION} s a run, ${ROUNDS} rounds, modes interleaved`,
	`- async: synchronous_standby_names = '' (a COMMIT waits for the primary's WAL flush); sync: '*' with synchronous_commit = on (and for the standby's flush)`,
	'');
lines.push('Median of the rounds (min–max in brackets):', '');
lines.push('| case | conns | async req/s | sync req/s | sync/async | async p50 ms | sync p50 ms | async p99 ms | sync p99 ms | not 200 |',
	'| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name] of [['create'], ['retrieve'], ['metadata']]) {
	for (const c of CONNS) {
		const pick = (mode) => runs.filter((r) => r.name === name && r.conns === c && r.mode === mode);
		const a = pick('async'), s = pick('sync');
		const span = (rs, k, d = 1) => `${f(median(rs.map((r) => r[k])), d)} (${f(Math.min(...rs.map((r) => r[k])), d)}–${f(Math.max(...rs.map((r) => r[k])), d)})`;
		const bad = [...a, ...s].reduce((n, r) => n + (r.bad || 0), 0);
		lines.push(`| ${name} | ${c} | ${span(a, 'rps')} | ${span(s, 'rps')} | ${f(median(s.map((r) => r.rps)) / median(a.map((r) => r.rps)), 2)} | ` +
			`${span(a, 'p50', 2)} | ${span(s, 'p50', 2)} | ${f(median(a.map((r) => r.p99)), 2)} | ${f(median(s.map((r) => r.p99)), 2)} | ${bad} |`);
	}
}
lines.push('', 'Every run:', '', '| round | mode | case | conns | req/s | p50 ms | p99 ms | not 200 |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of runs) lines.push(`| ${r.round} | ${r.mode} | ${r.name} | ${r.conns} | ${f(r.rps)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.bad ?? '-'} |`);
const text = lines.join('\n') + '\n';
process.stdout.write(text);
const out = process.env.OUT || path.join(ROOT, 'bench/results', `${new Date().toISOString().slice(0, 10)}-replication-${SERVER}.md`);
fs.writeFileSync(out, text);
console.error(`bench/replication: written to ${out}`);
standby.remove();
primary.remove();
