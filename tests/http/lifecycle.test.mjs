// lifecycle.test.mjs: the harness leaves nothing running or listening, after a
// clean stop and also when the test process fails, exits or is interrupted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIND, start, api } from './helpers.mjs';
import { processGroupAlive } from '../lib/server.mjs';

const LIB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'server.mjs');

function refused(port) {
	return new Promise((resolve) => {
		const s = net.connect(port, '127.0.0.1');
		s.once('connect', () => {
			s.destroy();
			resolve(false);
		});
		s.once('error', () => resolve(true));
	});
}

function groupGone(pgid) {
	return !processGroupAlive(pgid);
}

// Processes whose command line mentions the server's temporary directory.
function processesUsing(dir) {
	const found = [];
	for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
		try {
			const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
			if (cmd.includes(dir)) found.push(`${pid}: ${cmd.replace(/\0/g, ' ')}`);
		} catch {
			// gone meanwhile
		}
	}
	return found;
}

// The killed processes of a test process that has exited are reaped by init a
// moment later: wait (bounded) until they are all gone. The wait ends when
// they are; its bound (30 s) is for a group that stays, not a moment a
// loaded machine may stretch past 5 s.
async function assertNothingLeft({ port, pid, dir }) {
	const t0 = Date.now();
	while (!groupGone(pid) && Date.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 20));
	assert.ok(groupGone(pid), `process group ${pid} still exists`);
	assert.deepEqual(processesUsing(dir), []);
	assert.ok(await refused(port), `port ${port} still accepts connections`);
}

test(`${KIND}: stop() ends the server and everything it started`, async () => {
	const srv = await start();
	const r = await api(srv, 'POST', '/api/secrets', { json: { text: 'x' } });
	assert.equal(r.status, 200);
	await srv.stop();
	await assertNothingLeft(srv);
	await srv.stop();	// a second stop is harmless
});

// Runs a script that starts a server, reports it, then ends in the given way.
function runChild(ending, { viaNodeTest = false } = {}) {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-lifecycle-'));
	const file = path.join(tmp, viaNodeTest ? 'child.test.mjs' : 'child.mjs');
	fs.writeFileSync(file, `
import { startServer } from ${JSON.stringify(LIB)};
${viaNodeTest ? "import { test } from 'node:test'; import assert from 'node:assert/strict';" : ''}
const srv = await startServer({ server: ${JSON.stringify(KIND)} });
process.stdout.write('SERVER ' + JSON.stringify({ port: srv.port, pid: srv.pid, dir: srv.dir }) + '\\n');
${ending}
`);
	return new Promise((resolve, reject) => {
		const args = viaNodeTest ? ['--test', '--test-reporter=tap', file] : [file];
		const env = { ...process.env };
		delete env.NODE_TEST_CONTEXT;	// a test run of its own, not a subtest of this one
		const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
		let out = '';
		let info = null;
		child.stdout.on('data', (d) => {
			out += d;
			const m = out.match(/SERVER (\{.*\})/);
			if (m && !info) {
				info = JSON.parse(m[1]);
				child.emit('server', info);
			}
		});
		child.stderr.on('data', (d) => {
			out += d;
		});
		child.once('server', () => {
			if (ending.includes('WAIT_FOR_SIGNAL')) child.kill('SIGTERM');
		});
		child.once('error', reject);
		child.once('exit', (code, signal) => {
			fs.rmSync(tmp, { recursive: true, force: true });
			if (!info) reject(new Error(`the child never reported its server:\n${out}`));
			else resolve({ code, signal, info, out });
		});
	});
}

test(`${KIND}: nothing is left when the test process throws`, async () => {
	const { code, info } = await runChild("throw new Error('a failing test');");
	assert.notEqual(code, 0);
	await assertNothingLeft(info);
});

test(`${KIND}: nothing is left when the test process exits without stopping`, async () => {
	const { code, info } = await runChild('process.exit(3);');
	assert.equal(code, 3);
	await assertNothingLeft(info);
});

test(`${KIND}: nothing is left when the test process is interrupted`, async () => {
	const { info } = await runChild('// WAIT_FOR_SIGNAL\nsetInterval(() => {}, 1000);');
	await assertNothingLeft(info);
});

test(`${KIND}: nothing is left when a node:test test fails without stopping its server`, async () => {
	const { code, info } = await runChild("test('fails', () => { assert.equal(1, 2); });", { viaNodeTest: true });
	assert.notEqual(code, 0);
	await assertNothingLeft(info);
});
