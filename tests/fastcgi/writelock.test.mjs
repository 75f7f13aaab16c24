// writelock.test.mjs: a FastCGI responder that finds the database's write
// lock taken sleeps in the kernel until it is free: it takes the flock of
// <db>-lock before it opens a write transaction and lets it go after COMMIT
// (lib/store_sqlite.c, wlock_take()). Before, it polled SQLite's lock every
// 50 us (busy_wait(): a clock_nanosleep and the fcntl locks of each try),
// taking the CPU the lock's holder needed (docs/PERFORMANCE.md, "The
// one-time read, shredded"). The holder here does what a responder in its
// batch does: the lock file's flock, then SQLite's write lock (flock(1)
// running sqlite3 in a BEGIN IMMEDIATE). The waiting responder is seen
// waiting in /proc/PID/syscall, then the holder lets go; strace counts what
// the responder did meanwhile. A responder killed while it holds the lock
// does not stop the next one (the flock dies with its file descriptor), and
// one that finds it held for good goes on after the busy time limit (5 s: a
// timer ends the wait), to SQLite's own lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, programPath } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';

function runs(cmd, args) {
	try {
		execFileSync(cmd, args, { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

// The system call numbers /proc/PID/syscall shows for a process blocked in one.
const NR = {
	x64: { flock: 73, nanosleep: 35, clock_nanosleep: 230, fcntl: 72 },
	arm64: { flock: 32, nanosleep: 101, clock_nanosleep: 115, fcntl: 25 },
}[process.arch];

// The system call pid is blocked in, by name (null while it runs).
function blockedIn(pid) {
	let s;
	try {
		s = fs.readFileSync(`/proc/${pid}/syscall`, 'utf8').trim();
	} catch {
		return null;
	}
	const nr = Number(s.split(' ')[0]);
	return Object.keys(NR).find((k) => NR[k] === nr) || null;
}

// Resolves once cond() is true, checking it every 2 ms.
async function until(cond) {
	while (!cond())
		await new Promise((resolve) => setTimeout(resolve, 2));
}

// flock(1) holding <db>-lock, running sqlite3 in a write transaction; resolves once both are held.
async function holdWriteLock(t, db) {
	const h = spawn('flock', ['-x', `${db}-lock`, 'sqlite3', db], { stdio: ['pipe', 'pipe', 'pipe'] });
	t.after(() => h.kill('SIGKILL'));
	let out = '';
	h.stdout.on('data', (d) => { out += d; });
	h.stdin.write("BEGIN IMMEDIATE;\nSELECT 'held';\n");
	await new Promise((resolve, reject) => {
		h.stdout.on('data', () => { if (out.includes('held')) resolve(); });
		h.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
	});
	return {
		release: () => new Promise((resolve) => { h.once('exit', resolve); h.stdin.end(); }),
	};
}

const TRACED = 'trace=openat,flock,fcntl,nanosleep,clock_nanosleep';

// Whether /proc/PID/syscall can be read here (a kernel without it, a hardened /proc).
function syscallFile() {
	try {
		fs.readFileSync(`/proc/${process.pid}/syscall`, 'utf8');
		return true;
	} catch {
		return false;
	}
}

test('a responder waiting for the write lock sleeps in flock, it does not poll', { timeout: 60000 }, async (t) => {
	if (!NR || !syscallFile() || !runs('strace', ['-f', '-qq', '-o', '/dev/null', 'true']) ||
	    !runs('flock', ['-V']) || !runs('sqlite3', ['-version']))
		return t.skip('needs strace, flock(1), sqlite3 and /proc/PID/syscall numbers for this machine');
	const ctx = newContext();
	const made = await ctx.createOk({ text: 'read once', maxViews: 1 });
	// the responder has served a request: its database and lock file are open
	const warm = await ctx.createOk({ text: 'warm', maxViews: 1 });
	const trace = path.join(ctx.dir, 'strace.out');
	const rsp = await startResponder(t, 'retrieve', ctx.dir, {}, {
		exe: programPath('retrieve'), wrap: ['strace', '-f', '-qq', '-e', TRACED, '-o', trace],
	});
	const env = { BURNLINK_DB: ctx.db };
	const first = await rsp.send({ key: warm.secretKey, body: {}, env });
	rsp.go();
	assert.equal((await first.answer).status, 200, rsp.stderr());
	const before = fs.readFileSync(trace, 'utf8').split('\n').length - 1;

	const holder = await holdWriteLock(t, ctx.db);
	const sent = await rsp.send({ key: made.secretKey, body: {}, env });
	const pid = rsp.pid();
	// Waiting: in flock (the lock file), or, before, in busy_wait's sleeps
	// (or, after 5 s of them, answered 503 STORE_BUSY).
	let answered = null;
	sent.answer.then((a) => { answered = a; }, () => { answered = {}; });
	let seen = null;
	await until(() => answered !== null || (seen = blockedIn(pid)) === 'flock' ||
	    seen === 'clock_nanosleep' || seen === 'nanosleep');
	await holder.release();
	const a = await sent.answer;
	await rsp.stop();
	assert.equal(a.status, 200, `the one-time read waited and was served: ${a.body}\n${rsp.stderr()}`);
	assert.equal(seen, 'flock', 'the responder was seen waiting in flock');

	const lines = fs.readFileSync(trace, 'utf8').split('\n').slice(before);
	const lockFds = new Set();
	for (const l of fs.readFileSync(trace, 'utf8').split('\n')) {
		const o = /openat\([^"]*"([^"]*)".* = (\d+)$/.exec(l);
		if (o && o[1] === `${ctx.db}-lock`)
			lockFds.add(o[2]);
	}
	const count = (re) => lines.filter((l) => re.test(l)).length;
	assert.equal(count(/\b(clock_)?nanosleep\(/), 0,
		`no sleep-and-retry while the lock was taken:\n${lines.filter((l) => /sleep/.test(l)).slice(0, 5).join('\n')}`);
	assert.ok(lockFds.size > 0, 'the responder opened <db>-lock');
	const fd = [...lockFds][0];
	const ex = lines.findIndex((l) => new RegExp(`flock\\(${fd}, LOCK_EX\\)`).test(l));
	const un = lines.findIndex((l) => new RegExp(`flock\\(${fd}, LOCK_UN\\)`).test(l));
	assert.ok(ex >= 0 && un > ex, `the lock file was locked, then let go:\n${lines.join('\n')}`);
	assert.equal(fs.statSync(`${ctx.db}-lock`).mode & 0o777, 0o600, 'the lock file is private (0600)');
});

test('a responder killed while it holds the write lock does not stop the next one', { timeout: 60000 }, async (t) => {
	if (!runs('strace', ['-f', '-qq', '-o', '/dev/null', 'true']))
		return t.skip('strace cannot run here');
	const ctx = newContext();
	const x = await ctx.createOk({ text: 'first', maxViews: 1 });
	const y = await ctx.createOk({ text: 'second', maxViews: 1 });
	const env = { BURNLINK_DB: ctx.db };
	// A dies inside the write transaction, at its fourth flock: the counters
	// file's take and release, the write lock's take, then the keys file's
	// (the wipe). Its syncs all come after the lock now (the WAL's before the
	// answer, the wiped keys' once idle: lib/store_sqlite.c, commit()).
	const trace = path.join(ctx.dir, 'a.strace');
	fs.mkdirSync(path.join(ctx.dir, 'a'));
	fs.mkdirSync(path.join(ctx.dir, 'b'));
	const a = await startResponder(t, 'retrieve', path.join(ctx.dir, 'a'), {}, {
		exe: programPath('retrieve'),
		wrap: ['strace', '-f', '-qq', '-e', 'trace=openat,flock,fdatasync,fsync',
			'-e', 'inject=flock:signal=SIGKILL:when=4', '-o', trace],
	});
	const ra = await a.send({ key: x.secretKey, body: {}, env });
	a.go();
	await ra.answer.catch(() => null);
	await until(() => /\+\+\+ killed by SIGKILL/.test(fs.readFileSync(trace, 'utf8')));
	const lines = fs.readFileSync(trace, 'utf8');
	const fd = new RegExp(`openat\\([^"]*"${ctx.db}-lock".* = (\\d+)`).exec(lines)?.[1];
	assert.ok(fd, `A opened the lock file:\n${lines}`);
	const ops = lines.split('\n').filter((l) => l.includes(`flock(${fd}, `));
	assert.match(ops.at(-1) || '', /LOCK_EX.*= 0$/, `A held the lock file when it was killed:\n${lines}`);

	const b = await startResponder(t, 'retrieve', path.join(ctx.dir, 'b'), {}, { exe: programPath('retrieve') });
	const rb = await b.send({ key: y.secretKey, body: {}, env });
	b.go();
	const answer = await rb.answer;
	await b.stop();
	assert.equal(answer.status, 200, `B served the other one-time read: ${answer.body}\n${b.stderr()}`);
});

test('a holder stuck with the lock file does not hold a responder for ever', { timeout: 60000 }, async (t) => {
	if (!runs('flock', ['-V']))
		return t.skip('needs flock(1)');
	const ctx = newContext();
	const x = await ctx.createOk({ text: 'read once', maxViews: 1 });
	// The lock file taken and never let go (a process stopped in its
	// transaction would do the same); SQLite's own lock is free.
	const h = spawn('flock', ['-x', `${ctx.db}-lock`, 'cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
	t.after(() => h.kill('SIGKILL'));
	await until(() => {
		let ino;
		try {
			ino = fs.statSync(`${ctx.db}-lock`).ino;
		} catch {
			return false;	// flock(1) has not created it yet
		}
		return fs.readFileSync('/proc/locks', 'utf8').split('\n').some((l) =>
			/ FLOCK +ADVISORY +WRITE /.test(l) && l.includes(`:${ino} `));
	});
	const rsp = await startResponder(t, 'retrieve', ctx.dir, {}, { exe: programPath('retrieve') });
	const sent = await rsp.send({ key: x.secretKey, body: {}, env: { BURNLINK_DB: ctx.db } });
	rsp.go();
	const a = await sent.answer;
	await rsp.stop();
	assert.equal(a.status, 200, `served once the wait for the lock file ran out: ${a.body}\n${rsp.stderr()}`);
});

test('requests that came while a responder waited for the lock join its batch: one commit', { timeout: 60000 }, async (t) => {
	if (!NR || !syscallFile() || !runs('strace', ['-f', '-qq', '-o', '/dev/null', 'true']) ||
	    !runs('flock', ['-V']) || !runs('sqlite3', ['-version']))
		return t.skip('needs strace, flock(1), sqlite3 and /proc/PID/syscall numbers for this machine');
	const ctx = newContext();
	const secrets = [];
	for (let i = 0; i < 4; i++) secrets.push(await ctx.createOk({ text: `once ${i}`, maxViews: 1 }));
	const trace = path.join(ctx.dir, 'strace.out');
	const rsp = await startResponder(t, 'retrieve', ctx.dir, {}, {
		exe: programPath('retrieve'), wrap: ['strace', '-f', '-qq', '-e', 'trace=openat,flock,fdatasync,fsync', '-o', trace],
	});
	const env = { BURNLINK_DB: ctx.db };
	const warm = await rsp.send({ key: secrets[0].secretKey, body: {}, env });
	rsp.go();
	assert.equal((await warm.answer).status, 200, rsp.stderr());

	const holder = await holdWriteLock(t, ctx.db);
	const first = await rsp.send({ key: secrets[1].secretKey, body: {}, env });
	const pid = rsp.pid();
	await until(() => blockedIn(pid) === 'flock');
	const before = fs.readFileSync(trace, 'utf8').split('\n').length - 1;
	// two more, queued while it waits
	const more = [await rsp.send({ key: secrets[2].secretKey, body: {}, env }),
		await rsp.send({ key: secrets[3].secretKey, body: {}, env })];
	await holder.release();
	const answers = await Promise.all([first, ...more].map((s) => s.answer));
	await rsp.stop();
	assert.deepEqual(answers.map((a) => a.status), [200, 200, 200], rsp.stderr());

	const all = fs.readFileSync(trace, 'utf8').split('\n');
	const wal = new Set(all.map((l) => new RegExp(`openat\\([^"]*"${ctx.db}-wal".* = (\\d+)$`).exec(l)?.[1]).filter(Boolean));
	const walSyncs = all.slice(before).filter((l) => {
		const m = /\b(?:fsync|fdatasync)\((\d+)\)/.exec(l);
		return m && wal.has(m[1]);
	});
	assert.ok(wal.size > 0, 'strace saw the WAL opened');
	assert.equal(walSyncs.length, 1, `the three one-time reads were committed together:\n${all.slice(before).join('\n')}`);
});
