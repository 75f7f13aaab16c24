// checkpoint.test.mjs: a FastCGI responder keeps its connection and lets the
// WAL grow to WAL_PAGES_KEPT (1,000) pages, then checkpoints it: a PASSIVE
// checkpoint that copies the pages back and syncs the database file without
// SQLite's write lock, so that the other responder's batches go on
// meanwhile (lib/store_sqlite.c, wal_hook(); a RESTART, which takes the
// write lock, only bounds the WAL at 4,000 pages). A batch whose commit
// brings the WAL there sends its answers first, and checkpoints after: its
// requests do not wait for ~1,000 scattered page writes and the database's
// sync (docs/PERFORMANCE.md, "The one-time read, shredded"). The order is
// read from strace: the answers' writes to the web server, then the
// database's sync; and between the two no write lock on the -shm file
// (SQLite's WAL write lock: its byte 120, which the RESTART of before took).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, programPath } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';

function straceRuns() {
	try {
		execFileSync('strace', ['-f', '-qq', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

test('a batch whose commit fills the WAL answers before the checkpoint syncs the database', { timeout: 120000 }, async (t) => {
	if (!straceRuns())
		return t.skip('strace cannot run here');
	const ctx = newContext();
	await ctx.createOk({ text: 'first' });
	const trace = path.join(ctx.dir, 'strace.out');
	const rsp = await startResponder(t, 'create', ctx.dir, {}, {
		exe: programPath('create'),
		wrap: ['strace', '-f', '-qq', '-s', '16', '-e', 'trace=openat,fsync,fdatasync,write,fcntl',
			'-o', trace],
	});
	// four creates of ~1.2 MB of content: ~1,200 pages in the batch's commit
	const sent = [];
	for (let i = 0; i < 4; i++) {
		const file = `data:application/octet-stream;base64,${crypto.randomBytes(1200 * 1024).toString('base64')}`;
		sent.push(await rsp.send({ body: { text: `big ${i}`, files: [{ filename: 'f.bin', data: file }] },
			env: { BURNLINK_DB: ctx.db }, connected: true }));
	}
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	await rsp.stop();
	assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200], rsp.stderr());

	const lines = fs.readFileSync(trace, 'utf8').split('\n');
	const dbFds = new Set(), shmFds = new Set();
	let dbSync = -1, lastAnswer = -1;
	lines.forEach((l, i) => {
		const o = /openat\([^"]*"([^"]*)".* = (\d+)$/.exec(l);
		if (o && o[1] === ctx.db)
			dbFds.add(o[2]);
		if (o && o[1] === `${ctx.db}-shm`)
			shmFds.add(o[2]);
		const s = /\b(?:fsync|fdatasync)\((\d+)\)/.exec(l);
		if (s && dbFds.has(s[1]) && dbSync < 0)
			dbSync = i;
		if (/\bwrite\(\d+, "\\1\\6/.test(l))	// a FastCGI stdout record: an answer
			lastAnswer = i;
	});
	assert.ok(dbFds.size > 0, 'strace saw the database opened');
	assert.ok(lastAnswer >= 0, 'strace saw the answers written');
	assert.ok(dbSync >= 0, 'the batch brought the WAL to its checkpoint (the database synced)');
	assert.ok(lastAnswer < dbSync,
		`the answers went out (line ${lastAnswer + 1}) before the checkpoint synced the database (line ${dbSync + 1})`);
	assert.ok(shmFds.size > 0, 'strace saw the -shm file opened');
	const writeLock = lines.slice(lastAnswer, dbSync).filter((l) => {
		const m = /\bfcntl\((\d+), F_SETLKW?, \{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=120, l_len=1\}/.exec(l);
		return m && shmFds.has(m[1]);
	});
	assert.deepEqual(writeLock, [], 'the checkpoint did not take SQLite\'s write lock');
});
