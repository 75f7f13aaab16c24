// fcgi.mjs: a program of build/dyn as a FastCGI responder under an LD_PRELOAD
// shim, with requests queued before it runs so that it answers them as one
// batch (lib/fcgi.c), and a FastCGI client for them.
//
//   const rsp = await startResponder(t, 'retrieve', dir, { LD_PRELOAD: ..., ... });
//   (a fifth argument { exe, wrap }: another program file, e.g. the static
//   one, and a command prefix it runs under, e.g. strace)
//   const a = await rsp.send({ method, key, body, env });   // connected, sent
//   (connected: true resolves once connected, for a large body; lateMs: the
//   request is written that long after connecting, as a slow web server might)
//   rsp.go();                                               // the responder runs
//   const res = await a.answer;                             // parsed CGI answer
//   rsp.stderr()                                            // what it logged
//   await rsp.waitStderr(/re/)                              // once it logged that
//   rsp.pid()                                               // the program's process
//   await rsp.stop()                                        // SIGTERM, exited

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT, parseCgi } from '../lib/cgi.mjs';
import { DYN, dynProgram } from './helpers.mjs';

const OUT = path.join(ROOT, 'build', 'faults');

export const haveDyn = (program) => fs.existsSync(path.join(DYN, 'cgi-bin', program));

// Builds tests/faults/NAME.c (a shim when shared) into build/faults/ when missing or older.
export function build(name, shared) {
	const src = path.join(ROOT, 'tests', 'faults', `${name}.c`);
	const out = path.join(OUT, shared ? `${name}.so` : name);
	const st = fs.existsSync(out) ? fs.statSync(out).mtimeMs : 0;
	// rebuilt when older than its source or than the wrappers the marker shims share (looked.h)
	const newest = Math.max(fs.statSync(src).mtimeMs, fs.statSync(path.join(ROOT, 'tests', 'faults', 'looked.h')).mtimeMs);
	if (st < newest) {
		fs.mkdirSync(OUT, { recursive: true });
		// built beside and renamed: suites that run at once may build it together
		const tmp = `${out}.${process.pid}`;
		execFileSync(process.env.CC || 'cc', ['-O1', '-g', '-Wall', '-Wextra', '-Werror',
			...(shared ? ['-shared', '-fPIC'] : []), '-o', tmp, src, ...(shared ? ['-ldl'] : [])],
		{ stdio: 'inherit' });
		fs.renameSync(tmp, out);
	}
	return out;
}

// One FastCGI record.
function record(type, id, content = Buffer.alloc(0)) {
	const h = Buffer.alloc(8);
	h.writeUInt8(1, 0);
	h.writeUInt8(type, 1);
	h.writeUInt16BE(id, 2);
	h.writeUInt16BE(content.length, 4);
	return Buffer.concat([h, content]);
}

function nameValue(k, v) {
	const len = (n) => {
		if (n < 128) return Buffer.from([n]);
		const b = Buffer.alloc(4);
		b.writeUInt32BE((n | 0x80000000) >>> 0);
		return b;
	};
	return Buffer.concat([len(Buffer.byteLength(k)), len(Buffer.byteLength(v)), Buffer.from(k), Buffer.from(v)]);
}

// A whole FastCGI responder request (id 1): BEGIN_REQUEST, PARAMS, STDIN.
function fcgiRequest(params, body) {
	const parts = [record(1, 1, Buffer.from([0, 1, 0, 0, 0, 0, 0, 0]))];
	const p = Buffer.concat(Object.entries(params).map(([k, v]) => nameValue(k, v)));
	for (let i = 0; i < p.length; i += 65535) parts.push(record(4, 1, p.subarray(i, i + 65535)));
	parts.push(record(4, 1));
	for (let i = 0; i < body.length; i += 65535) parts.push(record(5, 1, body.subarray(i, i + 65535)));
	parts.push(record(5, 1));
	return Buffer.concat(parts);
}

// The process whose parent is pid (the program a wrapper such as strace runs).
function childOf(pid) {
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(d);
		} catch {
			// gone
		}
	}
	throw new Error(`no child of ${pid}`);
}

/*
 * Starts build/dyn's program (or exe) through fcgi_listen on a socket in dir,
 * with env (the shim), under the command prefix wrap: it runs only at go().
 * Killed when the test t ends.
 */
export async function startResponder(t, program, dir, env, { exe, wrap = [] } = {}) {
	const launcher = build('fcgi_listen', false);
	const sock = path.join(dir, `${program}.sock`);
	const argv = [...wrap, launcher, sock, exe || dynProgram(program)];
	const child = spawn(argv[0], argv.slice(1), {
		env: { PATH: '/usr/bin:/bin', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
	});
	let stderr = '';
	let waiters = [];
	child.stderr.on('data', (d) => {
		stderr += d;
		waiters = waiters.filter(({ re, resolve }) => !(re.test(stderr) && (resolve(), true)));
	});
	t.after(() => child.kill('SIGKILL'));
	await new Promise((resolve, reject) => {
		child.stdout.once('data', resolve);
		child.once('exit', (code) => reject(new Error(`fcgi_listen exited (${code}): ${stderr}`)));
	});
	return {
		go: () => child.stdin.write('go\n'),
		stderr: () => stderr,
		// Resolves once what it logged matches re.
		waitStderr: (re) => new Promise((resolve) => {
			if (re.test(stderr)) resolve();
			else waiters.push({ re, resolve });
		}),
		// The program's process id (under a wrapper, the wrapper's child).
		pid: () => (wrap.length ? childOf(child.pid) : child.pid),
		// Ends the program with SIGTERM (under a wrapper, the wrapper's child,
		// so that a tracer writes out its end) and resolves once all exited.
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			process.kill(wrap.length ? childOf(child.pid) : child.pid, 'SIGTERM');
			await exited;
		},
		// Connects and sends one request; resolves once sent (or connected) to { answer }.
		send({ method = 'POST', key, body, env: more = {}, connected = false, lateMs = 0 }) {
			const b = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
			const params = {
				GATEWAY_INTERFACE: 'CGI/1.1', SERVER_PROTOCOL: 'HTTP/1.1', SERVER_NAME: 'burnlink.test',
				SERVER_PORT: '80', SCRIPT_NAME: `/cgi-bin/${program}`, REQUEST_METHOD: method,
				HTTP_HOST: 'burnlink.test', REMOTE_ADDR: '192.0.2.10',
				REQUEST_URI: `/api/secrets${key ? `/${key}` : ''}`,
				...(key ? { PATH_INFO: `/${key}` } : {}),
				...(b.length ? { CONTENT_LENGTH: String(b.length), CONTENT_TYPE: 'application/json' } : {}),
				...more,
			};
			return new Promise((resolve, reject) => {
				const c = net.createConnection(sock);
				const chunks = [];
				const answer = new Promise((res, rej) => {
					c.on('data', (d) => chunks.push(d));
					c.on('error', rej);
					c.on('close', () => {
						const all = Buffer.concat(chunks);
						const out = [];
						for (let off = 0; off + 8 <= all.length;) {
							const type = all[off + 1], len = all.readUInt16BE(off + 4), pad = all[off + 6];
							if (type === 6) out.push(all.subarray(off + 8, off + 8 + len));
							off += 8 + len + pad;
						}
						try { res(parseCgi(Buffer.concat(out))); } catch (e) { rej(e); }
					});
				});
				c.once('error', reject);
				// connected: resolve once connected (a body larger than the
				// socket's buffer is sent only while the responder reads it)
				c.once('connect', () => {
					if (lateMs) {
						setTimeout(() => c.write(fcgiRequest(params, b)), lateMs);
						resolve({ answer });
						return;
					}
					c.write(fcgiRequest(params, b), () => resolve({ answer }));
					if (connected) resolve({ answer });
				});
			});
		},
	};
}

export const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-fcgi-'));
