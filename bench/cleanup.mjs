// cleanup.mjs: how long a request waits while cron/cleanup removes many expired
// secrets, and what the cleanup costs (docs/PERFORMANCE.md, "Cleanup in steps").
//
// Usage: nice node bench/cleanup.mjs [COUNT] [BIN]
//   COUNT  expired secrets to seed (default 1000000), each with a 256-byte text
//   BIN    directory holding cgi-bin/ and cron/ (default: this repository; e.g.
//          a worktree of an older commit, to compare)
// Environment:
//   SHAPE=ordered   (default) rows as version 8 stores them: lookup_at and an id
//                   in expiry order (lib/store_sqlite.c), keys under lookup_at
//   SHAPE=legacy    rows as version 7 stored them (and version 8 keeps rows made
//                   before its upgrade): ids in creation order, lookup_at 0, the
//                   keys' hashes random in their indexes
//   TEMPLATE=file   copy this seeded database (its secret.key and -keys beside it)
//   SAVE=dir        keep a copy of the seeded database in dir, for TEMPLATE
//   CLEANUP=file    the cron/cleanup to run (default BIN/cron/cleanup); the one
//                   transaction to compare with: `make one`, build/one/cron/cleanup
//   ALONE=1         the cleanup alone, no creates beside it
//   STRACE=1        count what it writes to each file and its syncs (strace -y)
// Seeds a SQLite database fast (the sqlite3 tool, plus 1,000 live secrets made
// by the programs): secrets created over three days with a mix of lifetimes
// (minutes, hours, days; so creation order is not expiry order), all expired
// an hour ago. Then runs cgi-bin/create in a loop, one request after the
// other, before, during and after cron/cleanup, and prints a Markdown
// report: the cleanup's wall and CPU time (/usr/bin/time; with STRACE=1 the
// bytes it writes to each file and its syncs, through strace),
// and each phase's request count, median, 99th percentile and maximum wall
// time, and its status codes. A create's wait for the write lock is its time
// minus the median before.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const COUNT = Number(process.argv[2] || 1000000);
const BIN = path.resolve(process.argv[3] || ROOT);
const SHAPE = process.env.SHAPE || 'ordered';
const CLEANUP = path.resolve(process.env.CLEANUP || path.join(BIN, 'cron/cleanup'));
const ALONE = Boolean(process.env.ALONE);
if (!['ordered', 'legacy'].includes(SHAPE)) throw new Error(`SHAPE=${SHAPE}: ordered or legacy`);
const dir = fs.mkdtempSync(path.join(process.env.BENCH_TMP || os.tmpdir(), 'burnlink-cleanup-'));
const db = path.join(dir, 'burnlink.db');
const env = { PATH: process.env.PATH, BURNLINK_DB: db };
const body = JSON.stringify({ text: 'x'.repeat(64), ttl: 3600 });

let seq = 0;
// One create through the CGI program: resolves to { ms, status }.
function create() {
	const n = seq++;
	const t0 = process.hrtime.bigint();
	return new Promise((resolve) => {
		const p = spawn(path.join(BIN, 'cgi-bin/create'), [], {
			env: { ...env, REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json',
				CONTENT_LENGTH: String(body.length), HTTP_HOST: 'bench.example',
				REMOTE_ADDR: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
			stdio: ['pipe', 'pipe', 'ignore'],
		});
		let out = '';
		p.stdout.on('data', (c) => { out += c; });
		p.on('close', () => {
			const m = /^Status: (\d+)/m.exec(out);
			resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: m ? Number(m[1]) : 200 });
		});
		p.stdin.end(body);
	});
}

function stats(list) {
	const ms = list.map((r) => r.ms).sort((a, b) => a - b);
	const q = (f) => ms.length ? ms[Math.min(ms.length - 1, Math.floor(f * ms.length))] : NaN;
	const codes = {};
	for (const r of list) codes[r.status] = (codes[r.status] || 0) + 1;
	return { n: ms.length, p50: q(0.5), p99: q(0.99), max: ms.length ? ms[ms.length - 1] : NaN, codes };
}

async function loop(until) {
	const out = [];
	while (!until()) out.push(await create());
	return out;
}

// Seeding: the schema through the programs, then COUNT expired rows at once;
// or, with TEMPLATE (a database seeded so, its secret.key beside it), a copy.
// Each row: an expiry in the three days before an hour ago, a lifetime of
// minutes (40 %: 5 to 120), hours (40 %: 2 to 24) or days (20 %: 1 to 7),
// created at expiry less lifetime; inserted in creation order, as a service
// would have. SHAPE=ordered gives each the id and lookup_at that version 8
// gives (lib/store_sqlite.c), legacy the next id and lookup_at 0.
const t0 = Date.now();
const copies = ['', '-keys'];
if (process.env.TEMPLATE) {
	for (const x of copies)
		if (fs.existsSync(process.env.TEMPLATE + x)) fs.copyFileSync(process.env.TEMPLATE + x, db + x);
	fs.copyFileSync(path.join(path.dirname(process.env.TEMPLATE), 'secret.key'), path.join(dir, 'secret.key'));
} else {
await create();
const last = Date.now() - 3600e3;
const ordered = SHAPE === 'ordered';
execFileSync('sqlite3', [db], { input: `PRAGMA journal_mode=WAL;
CREATE TEMP TABLE g AS SELECT e - CASE WHEN r < 40 THEN (5 + t % 116) * 60000
	WHEN r < 80 THEN (2 + t % 23) * 3600000 ELSE (1 + t % 7) * 86400000 END AS c, e
	FROM (WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${COUNT})
	SELECT ${last} - abs(random()) % ${3 * 86400e3} AS e, abs(random()) % 100 AS r,
	abs(random()) % 1000000 AS t FROM k);
INSERT INTO secrets (${ordered ? 'id, lookup_at, ' : ''}secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv, server_side)
SELECT ${ordered ? '(e / 1000) * 1048576 + row_number() OVER (PARTITION BY e / 1000 ORDER BY c) - 1, e / 1000, ' : ''}
	randomblob(32), randomblob(32), c, e, randomblob(272), randomblob(12), 0 FROM g ORDER BY c;
PRAGMA wal_checkpoint(TRUNCATE);` });
for (let i = 0; i < 1000; i++) await create();
if (process.env.SAVE) {
	fs.mkdirSync(process.env.SAVE, { recursive: true });
	execFileSync('sqlite3', [db, 'PRAGMA wal_checkpoint(TRUNCATE);']);
	for (const x of copies)
		if (fs.existsSync(db + x)) fs.copyFileSync(db + x, path.join(process.env.SAVE, 'burnlink.db' + x));
	fs.copyFileSync(path.join(dir, 'secret.key'), path.join(process.env.SAVE, 'secret.key'));
}
}
const seedS = (Date.now() - t0) / 1000;
const bytes = fs.statSync(db).size;

// every page of the seeding or the copy on disk first, not the cleanup's to write
execFileSync('sync');
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
const t1 = Date.now();
const before = ALONE ? [] : await loop(() => Date.now() - t1 > 5000);
let cleanupDone = false, cleanupMs = 0, cleanupOut = '';
const timing = path.join(dir, 'time');
const tc = Date.now();
// /usr/bin/time: user and system CPU seconds; with STRACE, strace -y: the
// bytes written to each file and the syncs (strace slows every write, and so
// the steps: its wall and CPU times are not the program's)
const traced = path.join(dir, 'strace');
const cmd = process.env.STRACE ? ['/usr/bin/time', '-o', timing, '-f', '%U %S', 'strace', '-f', '-y', '-qq',
	'-e', 'trace=pwrite64,write,fdatasync,fsync', '-o', traced, CLEANUP] : ['/usr/bin/time', '-o', timing, '-f', '%U %S', CLEANUP];
const cp = spawn(cmd[0], cmd.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
cp.stdout.on('data', (c) => { cleanupOut += c; });
cp.stderr.on('data', (c) => { cleanupOut += c; });
const exited = new Promise((resolve) => cp.on('close', () => { cleanupDone = true; cleanupMs = Date.now() - tc; resolve(); }));
const during = ALONE ? [] : await loop(() => cleanupDone);
await exited;
const loadDuring = load();
const t2 = Date.now();
const after = ALONE ? [] : await loop(() => Date.now() - t2 > 5000);
const [user, sys] = fs.readFileSync(timing, 'utf8').trim().split('\n').pop().split(' ').map(Number);
// per file (the database, its WAL, ...): MiB written and syncs
let written = '';
if (process.env.STRACE) {
	const per = {};
	for (const l of fs.readFileSync(traced, 'utf8').split('\n')) {
		const m = /^\d+\s+(pwrite64|write|fdatasync|fsync)\(\d+<([^>]*)>.*= (\d+)$/.exec(l);
		if (!m) continue;
		const f = per[path.basename(m[2])] ||= { bytes: 0, writes: 0, syncs: 0 };
		if (m[1].includes('sync')) f.syncs++;
		else { f.bytes += Number(m[3]); f.writes++; }
	}
	written = Object.entries(per).filter(([, f]) => f.bytes > 4096 || f.syncs > 0)
		.map(([name, f]) => `${name} ${(f.bytes / 1048576).toFixed(0)} MiB in ${f.writes} writes, ${f.syncs} syncs`).join('; ');
}
const left = execFileSync('sqlite3', [db, 'SELECT count(*) FROM secrets'], { encoding: 'utf8' }).trim();

const row = (name, s) => `| ${name} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} | ${JSON.stringify(s.codes)} |`;
const sb = stats(before), sd = stats(during), sa = stats(after);
console.log(`## cron/cleanup of ${COUNT.toLocaleString('en')} expired secrets (${SHAPE})${ALONE ? ', alone' : ' while creates run'}

- build: ${BIN}${BIN === ROOT ? ' (this tree)' : ''}, commit ${spawnSync('git', ['-C', BIN, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}; cleanup ${CLEANUP}
- machine: ${os.cpus().length} x ${os.cpus()[0].model}, load average (1, 5, 15 min) before ${loadBefore}, at the end of the cleanup ${loadDuring}
- seeding: ${process.env.TEMPLATE ? `a copy of ${process.env.TEMPLATE}` : `${seedS.toFixed(0)} s`}, database ${(bytes / 1048576).toFixed(0)} MiB (${(bytes / (COUNT + 1000)).toFixed(0)} bytes a row)
- cleanup${process.env.STRACE ? ' (under strace)' : ''}: ${(cleanupMs / 1000).toFixed(2)} s wall, ${user.toFixed(2)} s user + ${sys.toFixed(2)} s system CPU; ${left} rows left; it said: \`${cleanupOut.trim()}\`${written ? `\n- written: ${written}` : ''}
${ALONE ? '' : `
One create at a time (cgi-bin/create, a new process each, 64-byte text), wall time in ms:

| phase | creates | median | p99 | max | statuses |
| --- | --- | --- | --- | --- | --- |
${row('before (5 s)', sb)}
${row('during the cleanup', sd)}
${row('after (5 s)', sa)}

Longest wait for the cleanup: ${(sd.max - sb.p50).toFixed(1)} ms (the slowest create during it less the median before).
`}`);
fs.rmSync(dir, { recursive: true, force: true });
