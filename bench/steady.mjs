// steady.mjs: a database at steady state does not grow (docs/PERFORMANCE.md,
// "Scale"; docs/ADMIN.md, "A large instance").
//
// Usage: nice node bench/steady.mjs [LIVE] [PER_CYCLE] [CYCLES]
//   (defaults 100000 live secrets, 20000 created and as many expired a cycle, 30 cycles)
// Keeps LIVE secrets of a 256-byte text in a SQLite database. Each cycle
// creates PER_CYCLE new ones (one INSERT ... SELECT in the sqlite3 tool: the
// same rows and pages as the programs' creations, without their fsyncs), lets
// the PER_CYCLE oldest expire and runs the real cron/cleanup, then records the
// file's size, its page count and its free pages. Prints a Markdown report.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const [LIVE, PER, CYCLES] = [process.argv[2] || 100000, process.argv[3] || 20000, process.argv[4] || 30].map(Number);
const dir = fs.mkdtempSync(path.join(process.env.BENCH_TMP || os.tmpdir(), 'burnlink-steady-'));
const db = path.join(dir, 'burnlink.db');
const env = { PATH: process.env.PATH, BURNLINK_DB: db };
const sql = (q) => execFileSync('sqlite3', ['-batch', '-cmd', '.timeout 10000', db], { input: q, encoding: 'utf8' }).trim();

// the schema, through the programs
execFileSync(path.join(ROOT, 'cgi-bin/create'), [], {
	env: { ...env, REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json', CONTENT_LENGTH: '13', REMOTE_ADDR: '10.0.0.1' },
	input: '{"text":"ab"}',
});
const insert = (n) => sql(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv, server_side)
SELECT randomblob(32), randomblob(32), ${Date.now()}, ${Date.now() + 86400e3}, randomblob(272), randomblob(12), 0 FROM k;`);
const state = () => {
	const [pages, free, rows] = sql('PRAGMA page_count; PRAGMA freelist_count; SELECT count(*) FROM secrets;').split('\n').map(Number);
	return { bytes: fs.statSync(db).size, pages, free, rows };
};

insert(LIVE);
const rows = [];
const t0 = Date.now();
for (let c = 1; c <= CYCLES; c++) {
	insert(PER);
	sql(`UPDATE secrets SET expires_at = ${Date.now() - 1000} WHERE id IN (SELECT id FROM secrets ORDER BY id LIMIT ${PER});`);
	const out = execFileSync(path.join(ROOT, 'cron/cleanup'), [], { env, encoding: 'utf8' }).trim();
	rows.push({ c, ...state(), removed: Number(/removed (\d+) expired secrets/.exec(out)[1]) });
}
const s = (Date.now() - t0) / 1000;
const first = rows[0], last = rows[rows.length - 1];
console.log(`## Steady state: ${LIVE.toLocaleString('en')} live secrets, ${PER.toLocaleString('en')} created and expired a cycle, ${CYCLES} cycles

- machine: ${os.cpus().length} x ${os.cpus()[0].model}, load average (1, 5, 15 min) at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ${s.toFixed(0)} s
- every row: a 256-byte text (272 bytes with its tag), two 32-byte key hashes

| cycle | rows after cleanup | removed | file (MiB) | pages | free pages |
| --- | --- | --- | --- | --- | --- |
${rows.map((r) => `| ${r.c} | ${r.rows} | ${r.removed} | ${(r.bytes / 1048576).toFixed(2)} | ${r.pages} | ${r.free} |`).join('\n')}

File after cycle 1: ${first.bytes} bytes; after cycle ${CYCLES}: ${last.bytes} bytes (${((last.bytes / first.bytes - 1) * 100).toFixed(2)} %).
Bytes per live secret: ${(last.bytes / last.rows).toFixed(0)} (file / rows), ${((last.pages - last.free) * 4096 / last.rows).toFixed(0)} counting the used pages only.
`);
fs.rmSync(dir, { recursive: true, force: true });
