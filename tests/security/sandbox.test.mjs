// sandbox.test.mjs: the CGI programs run confined: seccomp filter installed,
// no new privileges, no core dumps; the filter kills execve, socket, fork and
// ptrace and refuses what it does not list. The filter's behaviour is shown by
// tests/security/sandbox_probe.c, which runs the same bl_sandbox() the
// programs run first; the programs themselves are inspected through /proc
// while they wait for their request body.

import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, programPath } from '../lib/cgi.mjs';

const PROBE = path.join(ROOT, 'build', 'security', 'sandbox_probe');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-sandbox-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// The probe is linked the way the programs are: the library and the Makefile's LIBS.
function buildProbe() {
	const src = path.join(ROOT, 'tests', 'security', 'sandbox_probe.c');
	const lib = path.join(ROOT, 'build', 'libburnlink.a');
	const mt = (p) => (fs.existsSync(p) ? fs.statSync(p).mtimeMs : 0);
	if (mt(PROBE) > mt(src) && mt(PROBE) > mt(lib)) return;
	fs.mkdirSync(path.dirname(PROBE), { recursive: true });
	const libs = execFileSync('make', ['-s', '--no-print-directory', '-f', 'Makefile', '-f', '-',
		'burnlink-print-libs'], { cwd: ROOT, encoding: 'utf8',
		input: 'burnlink-print-libs:\n\t@echo $(LIBS)\n' }).trim().split(/\s+/);
	execFileSync('cc', ['-D_GNU_SOURCE', '-Ilib', '-Ibuild', '-O1', '-g', '-Wall', '-Wextra',
		'-o', PROBE, src, lib, '-static', ...libs], { cwd: ROOT, stdio: 'inherit' });
}

function probe(...args) {
	const r = spawnSync(PROBE, args, { cwd: tmp, encoding: 'utf8', timeout: 10000 });
	return { out: r.stdout.trim(), status: r.status, signal: r.signal };
}

let enabled = false;
before(() => {
	assert.ok(fs.existsSync(path.join(ROOT, 'build', 'libburnlink.a')), 'build/libburnlink.a is missing: run make');
	buildProbe();
	enabled = probe('enabled').out === '1';
});

describe('process hygiene (every build)', () => {
	test('core dumps are off: RLIMIT_CORE 0 and not dumpable (its /proc entry belongs to root)', async (t) => {
		if (process.getuid() !== 0) return t.skip('needs root to run the probe as nobody');
		const child = spawn(PROBE, ['wait'], { cwd: tmp, uid: 65534, gid: 65534, stdio: ['pipe', 'pipe', 'inherit'] });
		const done = new Promise((resolve) => child.on('close', resolve));
		let limits = '', owner = -1;
		// until /proc shows it (the probe waits on its stdin, so a longer wait
		// costs nothing; 200 polls, about 2 s, a loaded machine could outlast)
		for (const t0 = Date.now(); Date.now() - t0 < 30000;) {
			try {
				limits = fs.readFileSync(`/proc/${child.pid}/limits`, 'utf8');
				owner = fs.statSync(`/proc/${child.pid}/status`).uid;
				if (owner === 0 && /^Max core file size\s+0\s+0/m.test(limits)) break;
			} catch { /* not yet */ }
			await new Promise((r) => setTimeout(r, 10));
		}
		child.stdin.end();
		await done;
		assert.match(limits, /^Max core file size\s+0\s+0\s/m);
		assert.equal(owner, 0, 'a process of nobody whose /proc files belong to root is not dumpable');
	});

	test('a crash leaves no core file', () => {
		const r = probe('crash');
		assert.equal(r.signal, 'SIGSEGV');
		const cores = fs.readdirSync(tmp).filter((f) => /^core/.test(f));
		assert.deepEqual(cores, []);
	});
});

describe('seccomp filter', () => {
	test('the production build has the filter (make SECCOMP=0 is the only way to drop it)', (t) => {
		if (process.env.BURNLINK_EXPECT_NO_SECCOMP) return t.skip('built with SECCOMP=0');
		assert.equal(enabled, true);
	});

	test('what the programs do is allowed: open, read, write', (t) => {
		if (!enabled) return t.skip('built without seccomp');
		assert.match(probe('read', '/etc/passwd').out, /^read=\d+$/);
	});

	for (const call of ['execve', 'socket', 'fork', 'ptrace']) {
		test(`${call} kills the process with SIGSYS, before the call does anything`, (t) => {
			if (!enabled) return t.skip('built without seccomp');
			const r = probe(call);
			assert.equal(r.signal, 'SIGSYS', `${call}: ${JSON.stringify(r)}`);
			assert.equal(r.out, '', 'nothing after the call ran');
		});
	}

	test('tgkill cannot signal another process of the same user', async (t) => {
		if (!enabled) return t.skip('built without seccomp');
		const victim = spawn('sleep', ['30'], { stdio: 'ignore' });
		const gone = new Promise((resolve) => victim.on('exit', (code, signal) => resolve(signal)));
		try {
			const r = probe('tgkill', String(victim.pid));
			assert.equal(r.out, 'tgkill=-1 errno=1', JSON.stringify(r));
			// still running: signal 0 reaches it
			assert.doesNotThrow(() => process.kill(victim.pid, 0));
		} finally {
			victim.kill('SIGKILL');
		}
		assert.equal(await gone, 'SIGKILL', 'the process ended by the test, not by the probe');
	});

	test('tgkill to its own threads still works: raise() and abort() end in SIGABRT', (t) => {
		if (!enabled) return t.skip('built without seccomp');
		assert.equal(probe('tgkill-self').out, 'tgkill=0 errno=0');
		assert.equal(probe('abort').signal, 'SIGABRT');
	});

	test('a call outside the allow-list that is not dangerous fails with EPERM', (t) => {
		if (!enabled) return t.skip('built without seccomp');
		const dir = path.join(tmp, 'not-made');
		assert.equal(probe('mkdir', dir).out, 'mkdir=-1 errno=1');
		assert.equal(fs.existsSync(dir), false);
	});
});

// Starts a program that waits for a body it will not get, and reads its /proc entries.
async function inspect(program, env) {
	const child = spawn(programPath(program), [], {
		env: { PATH: '/usr/bin:/bin', REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json',
			CONTENT_LENGTH: '100', PATH_INFO: '/AAAAAAAAAAAAAAAAAAAAAA', REMOTE_ADDR: '192.0.2.1',
			BURNLINK_DB: path.join(tmp, 'p.db'), ...env },
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	const done = new Promise((resolve) => child.on('close', resolve));
	// It is blocked in read() once /proc shows it sleeping on the pipe.
	let status = '', limits = '';
	// (it waits for the body for good: the bound, 30 s, is for a program that
	// never gets there; 200 polls, about 2 s, a loaded machine could outlast)
	for (const t0 = Date.now(); Date.now() - t0 < 30000;) {
		try {
			status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
			const wchan = fs.readFileSync(`/proc/${child.pid}/wchan`, 'utf8');
			limits = fs.readFileSync(`/proc/${child.pid}/limits`, 'utf8');
			if (/^State:\s+S/m.test(status) && /pipe|wait|read/.test(wchan) && /^Seccomp:\s+[12]/m.test(status)) break;
			if (/^State:\s+S/m.test(status) && !enabled) break;
		} catch { /* not there yet */ }
		await new Promise((r) => setTimeout(r, 10));
	}
	child.stdin.end();
	await done;
	return { status, limits };
}

describe('the CGI programs confine themselves', () => {
	for (const program of ['create', 'retrieve', 'delete']) {
		test(`${program}: seccomp filter on, no new privileges, core size 0`, async (t) => {
			const { status, limits } = await inspect(program, program === 'delete' ? { REQUEST_METHOD: 'DELETE' } : {});
			assert.match(limits, /^Max core file size\s+0\s+0\s/m);
			if (!enabled) return t.skip('built without seccomp');
			assert.match(status, /^Seccomp:\s+2$/m);
			assert.match(status, /^NoNewPrivs:\s+1$/m);
		});
	}
});

describe('a FastCGI responder confines itself too', () => {
	test('spawn-fcgi metadata: answers over FastCGI with Seccomp 2 and NoNewPrivs', async (t) => {
		if (!enabled) return t.skip('built without seccomp');
		for (const tool of ['spawn-fcgi', 'cgi-fcgi'])
			if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return t.skip(`${tool} is not installed`);
		const sock = path.join(tmp, 'fcgi.sock');
		const pidFile = path.join(tmp, 'fcgi.pid');
		const env = { ...process.env, BURNLINK_DB: path.join(tmp, 'f.db') };
		assert.equal(spawnSync('spawn-fcgi', ['-s', sock, '-P', pidFile, '--', programPath('metadata')], { env }).status, 0);
		const pid = Number(fs.readFileSync(pidFile, 'utf8'));
		try {
			const r = spawnSync('cgi-fcgi', ['-bind', '-connect', sock], { encoding: 'utf8', timeout: 10000,
				env: { PATH: process.env.PATH, REQUEST_METHOD: 'GET', PATH_INFO: '/AAAAAAAAAAAAAAAAAAAAAA', REMOTE_ADDR: '192.0.2.3' } });
			assert.match(r.stdout, /"code":"NOT_FOUND"/);
			const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
			assert.match(status, /^Seccomp:\s+2$/m);
			assert.match(status, /^NoNewPrivs:\s+1$/m);
			assert.match(fs.readFileSync(`/proc/${pid}/limits`, 'utf8'), /^Max core file size\s+0\s+0\s/m);
		} finally {
			process.kill(pid, 'SIGTERM');
		}
	});
});
