// cleanup.mjs: how long a request waits while cron/cleanup removes many expired
// secrets (docs/PERFORMANCE.md, "Cleanup at a million expired secrets").
//
// Usage: nice node bench/cleanup.mjs [COUNT] [BIN]
//   COUNT  expired secrets to seed (default 1000000), each with a 256-byte text
//   BIN    directory holding cgi-bin/ and cron/ (default: this repository; e.g.
//          a worktree of an older commit, to compare)
// Seeds a SQLite database fast (one INSERT ... SELECT in the sqlite3 tool, plus
// 1,000 live secrets made by the programs), then runs cgi-bin/create in a loop,
// one request after the other, before, during and after cron/cleanup, and
// prints a Markdown report: the cleanup's time, and each phase's request count,
// median, 99th percentile and maximum wall time, and its status codes. A
// create's wait for the write lock is its time minus the median before.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const COUNT = Number(process.argv[2] || 1000000);
const BIN = path.resolve(process.argv[3] || ROOT);
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
const t0 = Date.now();
if (process.env.TEMPLATE) {
	fs.copyFileSync(process.env.TEMPLATE, db);
	fs.copyFileSync(path.join(path.dirname(process.env.TEMPLATE), 'secret.key'), path.join(dir, 'secret.key'));
} else {
await create();
const past = Date.now() - 3600e3;
execFileSync('sqlite3', [db], { input: `PRAGMA journal_mode=WAL;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${COUNT})
INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv, server_side)
SELECT randomblob(32), randomblob(32), ${past} - 86400000, ${past} + i, randomblob(272), randomblob(12), 0 FROM k;
PRAGMA wal_checkpoint(TRUNCATE);` });
for (let i = 0; i < 1000; i++) await create();
}
const seedS = (Date.now() - t0) / 1000;
const bytes = fs.statSync(db).size;

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
let phase = 'before';
const t1 = Date.now();
const before = await loop(() => Date.now() - t1 > 5000);
phase = 'during';
let cleanupDone = false, cleanupMs = 0, cleanupOut = '';
const tc = Date.now();
const cp = spawn(path.join(BIN, 'cron/cleanup'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
cp.stdout.on('data', (c) => { cleanupOut += c; });
cp.stderr.on('data', (c) => { cleanupOut += c; });
cp.on('close', () => { cleanupDone = true; cleanupMs = Date.now() - tc; });
const during = await loop(() => cleanupDone);
const loadDuring = load();
const t2 = Date.now();
const after = await loop(() => Date.now() - t2 > 5000);
void phase;

const row = (name, s) => `| ${name} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} | ${JSON.stringify(s.codes)} |`;
const sb = stats(before), sd = stats(during), sa = stats(after);
console.log(`## cron/cleanup of ${COUNT.toLocaleString('en')} expired secrets while creates run

- build: ${BIN}${BIN === ROOT ? ' (this tree)' : ''}, commit ${spawnSync('git', ['-C', BIN, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}
- machine: ${os.cpus().length} x ${os.cpus()[0].model}, load average (1, 5, 15 min) before ${loadBefore}, at the end of the cleanup ${loadDuring}
- seeding: ${seedS.toFixed(0)} s, database ${(bytes / 1048576).toFixed(0)} MiB (${(bytes / (COUNT + 1000)).toFixed(0)} bytes a row)
- cleanup: ${(cleanupMs / 1000).toFixed(2)} s wall; it said: \`${cleanupOut.trim()}\`

One create at a time (cgi-bin/create, a new process each, 64-byte text), wall time in ms:

| phase | creates | median | p99 | max | statuses |
| --- | --- | --- | --- | --- | --- |
${row('before (5 s)', sb)}
${row('during the cleanup', sd)}
${row('after (5 s)', sa)}

Longest wait for the cleanup: ${(sd.max - sb.p50).toFixed(1)} ms (the slowest create during it less the median before).
`);
fs.rmSync(dir, { recursive: true, force: true });
