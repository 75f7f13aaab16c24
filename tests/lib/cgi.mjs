// cgi.mjs: run the real burnlink programs with a synthetic CGI environment, as a
// web server would, and read back what they print; plus the crypto and database
// helpers the CGI tests share.
//
//   import { newContext } from '../lib/cgi.mjs';
//   const ctx = newContext();                // fresh temp dir and database
//   const res = await ctx.run('create', { method: 'POST', body: { text: 'hi' } });
//   res.status, res.headers['x-request-id'], res.json, res.body (Buffer)
//
// Environment:
//   BURNLINK_BIN   directory prefix holding cgi-bin/ and cron/ (e.g. build/asan);
//                  relative to the repository; default the repository itself.
//                  A directory holding the programs directly is accepted too.
//   BURNLINK_WRAP  a command prefix each program runs under, split on spaces
//                  (e.g. "valgrind --error-exitcode=99 --leak-check=full -q").
//                  Any non-zero exit of a program (a wrapper's error exit, a
//                  sanitizer report) fails the request's test.
//   BURNLINK_SLOW   set under valgrind: the heavy tests use fewer processes.
//   BURNLINK_TEST_TIMEOUT_MS  the per-program time limit (default 60000).
//   BURNLINK_KEEP_TMP  keep the temporary directories (for debugging).
//   BURNLINK_OPENAPI_CHECK=0  do not check responses against docs/openapi.yaml.
//
// Every complete response of a CGI program is checked against docs/openapi.yaml
// (tests/lib/openapi.mjs) as the request the web servers would route to that
// program: a response the description does not allow rejects the request.
//
// Run the suite: node --test tests/cgi/
//   BURNLINK_BIN=build/asan node --test tests/cgi/
//   BURNLINK_BIN=build/dyn BURNLINK_SLOW=1 BURNLINK_WRAP="valgrind -q --error-exitcode=99 \
//       --leak-check=full --errors-for-leak-kinds=definite,indirect" node --test tests/cgi/

import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeSync, encodeKey } from '../../www/assets/wire.js';
import { checkResponse, cgiRoute } from './openapi.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// BURNLINK_TEST_PG (tests/run.sh pg): each context on a fresh PostgreSQL database.
const pgHook = process.env.BURNLINK_TEST_PG ? await import('../pg/hook.mjs') : null;

// Programs outside cgi-bin/: the cron job and the admin tool.
const SUBDIR = { cleanup: 'cron', notify: 'cron', 'burnlink-admin': 'tools' };
// Passed through from the test's environment so sanitizer builds can be steered.
const PASS_THROUGH = ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TZ', 'VALGRIND_OPTS'];
const DEFAULT_TIMEOUT_MS = Number(process.env.BURNLINK_TEST_TIMEOUT_MS) || 60000;

// The path of a program: a CGI program ('create', 'session', ...), 'cleanup'
// or 'burnlink-admin'.
export function programPath(name) {
	const base = path.resolve(ROOT, process.env.BURNLINK_BIN || '.');
	const sub = SUBDIR[name] || 'cgi-bin';
	const candidates = [
		path.join(base, sub, name),
		path.join(base, name),			// BURNLINK_BIN names cgi-bin/ itself
		path.join(base, '..', sub, name),	// ... and cron/ is its sibling
	];
	for (const p of candidates)
		if (fs.existsSync(p)) return p;
	throw new Error(`cgi.mjs: program ${name} not found under ${base} (run make)`);
}

// The wrapper command prefix from BURNLINK_WRAP, as an array (maybe empty).
export function wrapper() {
	const w = (process.env.BURNLINK_WRAP || '').trim();
	return w === '' ? [] : w.split(/\s+/);
}

export const wrapped = wrapper().length > 0;

// Under valgrind (BURNLINK_SLOW) each program costs seconds: table-driven
// tests run a spread of n of their cases instead of all of them.
export const slow = Boolean(process.env.BURNLINK_SLOW);
export function sample(cases, n = 4) {
	if (!slow || cases.length <= n) return cases;
	const step = cases.length / n;
	return Array.from({ length: n }, (_, i) => cases[Math.floor(i * step)]);
}

// Splits CGI output into status, headers (lower-cased names) and body.
export function parseCgi(out) {
	const sep = out.indexOf('\r\n\r\n');
	if (sep < 0) throw new Error(`no end of CGI header in output: ${JSON.stringify(out.toString('latin1').slice(0, 500))}`);
	const head = out.subarray(0, sep).toString('latin1');
	const body = out.subarray(sep + 4);
	const headers = {};
	const lines = head.split('\r\n');
	for (const line of lines) {
		const i = line.indexOf(':');
		if (i <= 0) throw new Error(`malformed CGI header line ${JSON.stringify(line)}`);
		const name = line.slice(0, i).trim().toLowerCase();
		const value = line.slice(i + 1).trim();
		if (name in headers) throw new Error(`header ${name} sent twice`);
		headers[name] = value;
	}
	const m = /^(\d{3})(?: |$)/.exec(headers.status || '');
	if (!m) throw new Error(`missing or malformed Status header: ${headers.status}`);
	let json;
	if (body.length > 0) {
		try { json = JSON.parse(body.toString('utf8')); } catch { json = undefined; }
	}
	return { status: Number(m[1]), headers, body, json, headLines: lines };
}

// 1 when out holds a whole CGI response: the header and Content-Length body bytes.
function responseComplete(out) {
	const sep = out.indexOf('\r\n\r\n');
	if (sep < 0) return false;
	const m = /\r\ncontent-length:\s*(\d+)/i.exec('\r\n' + out.subarray(0, sep).toString('latin1'));
	return m !== null && out.length - sep - 4 >= Number(m[1]);
}

/*
 * Runs one program as a CGI request and resolves to
 * { status, headers, body, json, stderr, code, signal, raw, ms }.
 *   method       REQUEST_METHOD (default GET; POST when a body is given)
 *   pathInfo     PATH_INFO ("/<key>"), omitted when undefined
 *   body         Buffer, string, or any other value (sent as JSON)
 *   contentType  CONTENT_TYPE (default application/json when there is a body;
 *                null omits it)
 *   contentLength CONTENT_LENGTH override (default the body's byte length)
 *   env          more variables; a value of undefined or null removes one
 *   stdinOpen    keep stdin open and empty until the whole response (header
 *                and Content-Length bytes) has been written, then end it: the
 *                program must answer without waiting for the body
 *   killAfterMs  SIGKILL the program after this many ms (resolves with
 *                killed: true, output possibly partial, no exit check)
 *   allowExit    accept a non-zero exit (default: it rejects)
 *   uid, gid     run the program as this user and group
 *   noSpecCheck  do not check the response against docs/openapi.yaml
 *   path         the program's file, instead of programPath(program) (another
 *                build: tests/faults runs build/dyn's)
 * A non-zero exit, a signal, no complete CGI header or a response that
 * docs/openapi.yaml does not allow rejects the promise.
 */
export function runCgi(program, opts = {}) {
	const prog = opts.path || programPath(program);
	let body = opts.body;
	if (body !== undefined && body !== null && !Buffer.isBuffer(body))
		body = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
	const method = opts.method || (body ? 'POST' : 'GET');
	const env = {
		PATH: process.env.PATH || '/usr/bin:/bin',
		GATEWAY_INTERFACE: 'CGI/1.1',
		SERVER_PROTOCOL: 'HTTP/1.1',
		SERVER_NAME: 'burnlink.test',
		SERVER_PORT: '80',
		SCRIPT_NAME: `/cgi-bin/${program}`,
		REQUEST_METHOD: method,
		HTTP_HOST: 'burnlink.test',
		REMOTE_ADDR: '192.0.2.10',
		REQUEST_URI: '/api/secrets' + (opts.pathInfo || ''),
		// The programs' own cron work (lib/work.c) runs after a request exits
		// and would race a test's checks: off unless a test turns it on.
		BURNLINK_SELF_WORK: 'off',
	};
	for (const k of PASS_THROUGH)
		if (process.env[k] !== undefined) env[k] = process.env[k];
	if (opts.pathInfo !== undefined) env.PATH_INFO = opts.pathInfo;
	if (body) {
		env.CONTENT_LENGTH = String(body.length);
		env.CONTENT_TYPE = 'application/json';
	}
	if (opts.contentType !== undefined) env.CONTENT_TYPE = opts.contentType;
	if (opts.contentLength !== undefined) env.CONTENT_LENGTH = String(opts.contentLength);
	for (const [k, v] of Object.entries(opts.env || {})) env[k] = v;
	for (const k of Object.keys(env))
		if (env[k] === undefined || env[k] === null) delete env[k];

	const wrap = wrapper();
	const cmd = wrap.length ? wrap[0] : prog;
	const args = wrap.length ? [...wrap.slice(1), prog] : [];
	const timeoutMs = opts.timeoutMs || DEFAULT_TIMEOUT_MS;
	const started = process.hrtime.bigint();

	return new Promise((resolve, reject) => {
		const spawnOpts = { env, stdio: ['pipe', 'pipe', 'pipe'] };
		if (opts.uid !== undefined) Object.assign(spawnOpts, { uid: opts.uid, gid: opts.gid });
		const child = spawn(cmd, args, spawnOpts);
		const out = [], err = [];
		let killedByUs = false, timedOut = false;
		let answered = false;
		child.stdout.on('data', (c) => {
			out.push(c);
			// stdinOpen: once the whole response is out, end the body (the
			// program may read and discard the rest of an unread body after
			// answering, as the servers that stream bodies need).
			if (opts.stdinOpen && !answered && responseComplete(Buffer.concat(out))) {
				answered = true;
				child.stdin.end();
			}
		});
		child.stderr.on('data', (c) => err.push(c));
		// The program may exit without reading (413): ignore EPIPE.
		child.stdin.on('error', () => {});
		if (body && body.length) child.stdin.write(body);
		if (!opts.stdinOpen) child.stdin.end();
		let killTimer;
		if (opts.killAfterMs !== undefined) {
			killTimer = setTimeout(() => { killedByUs = true; child.kill('SIGKILL'); }, opts.killAfterMs);
		}
		const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
		child.on('error', (e) => { clearTimeout(timer); clearTimeout(killTimer); reject(e); });
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			clearTimeout(killTimer);
			if (opts.stdinOpen && !child.stdin.destroyed) child.stdin.destroy();
			const raw = Buffer.concat(out);
			const stderr = Buffer.concat(err).toString('utf8');
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			if (timedOut)
				return reject(new Error(`${program} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
			if (killedByUs || (opts.killAfterMs !== undefined && signal === 'SIGKILL')) {
				let parsed = null;
				try { parsed = parseCgi(raw); } catch { parsed = null; }
				// Complete: the whole header and as many body bytes as it announced.
				const complete = parsed !== null && parsed.json !== undefined &&
				    Number(parsed.headers['content-length']) === parsed.body.length;
				return resolve({ ...(parsed || {}), killed: true, complete, raw, stderr, code, signal, ms });
			}
			if ((code !== 0 || signal) && !opts.allowExit)
				return reject(new Error(`${program} exited with ${signal || code}; stderr:\n${stderr}`));
			let parsed;
			try { parsed = parseCgi(raw); } catch (e) {
				if (opts.allowExit) return resolve({ raw, stderr, code, signal, ms });
				return reject(new Error(`${e.message}\nstderr:\n${stderr}`));
			}
			const route = opts.noSpecCheck ? null : cgiRoute(program, env.REQUEST_METHOD || 'OTHER', env.PATH_INFO);
			if (route) {
				try {
					checkResponse({ ...route, status: parsed.status, headers: parsed.headers, body: parsed.body });
				} catch (e) {
					return reject(new Error(`${program} (${method} PATH_INFO ${env.PATH_INFO}): ${e.message}`));
				}
			}
			resolve({ ...parsed, killed: false, complete: true, raw, stderr, code, signal, ms });
		});
	});
}

// A command prefix that runs a program in a network namespace of its own
// (unshare -n; as another user than root, inside a user namespace too):
// no packet it sends can leave the machine, not even to loopback.
export function offline() {
	return process.getuid() === 0 ? ['unshare', '-n'] : ['unshare', '-r', '-n'];
}

// Runs a non-CGI program (cron/cleanup) under the wrapper; resolves to
// { code, signal, stdout, stderr }. Never rejects on a non-zero exit.
// `under` is a command prefix put before the wrapper (e.g. offline()).
export function runProgram(program, { env = {}, args = [], under = [] } = {}) {
	const prog = programPath(program);
	const e = { PATH: process.env.PATH || '/usr/bin:/bin' };
	for (const k of PASS_THROUGH)
		if (process.env[k] !== undefined) e[k] = process.env[k];
	for (const [k, v] of Object.entries(env))
		if (v !== undefined && v !== null) e[k] = v;
	const line = [...under, ...wrapper(), prog, ...args];
	return new Promise((resolve, reject) => {
		const child = spawn(line[0], line.slice(1), { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
		const out = [], err = [];
		child.stdout.on('data', (c) => out.push(c));
		child.stderr.on('data', (c) => err.push(c));
		child.on('error', reject);
		child.on('close', (code, signal) => resolve({
			code, signal,
			stdout: Buffer.concat(out).toString('utf8'),
			stderr: Buffer.concat(err).toString('utf8'),
		}));
	});
}

// ---- crypto (www/assets/wire.js, synchronous over node:crypto) ----------------

const wire = nodeSync(crypto);

// Url-safe base64 without padding, the form of the key in a link.
export function b64urlEncode(buf) {
	return encodeKey(buf);
}

// Decodes url-safe base64 without padding the way docs/API.md says a client does.
export function b64urlDecode(s) {
	let t = s.replace(/-/g, '+').replace(/_/g, '/');
	while (t.length % 4) t += '=';
	return Buffer.from(t, 'base64');
}

export function newKey() {
	return crypto.randomBytes(32);
}

// The decryption key in a secretUrl's fragment (#key=...), as a Buffer, or null.
export function fragmentKey(url) {
	const i = url.indexOf('#key=');
	if (i < 0) return null;
	return b64urlDecode(url.slice(i + 5));
}

// {ciphertext, iv} of plaintext under key (a fresh IV unless one is given).
export function encryptItem(plaintext, key, iv) {
	return wire.seal(key, plaintext, iv);
}

// Decrypts {ciphertext, iv} with key (Buffer, or url-safe base64 string); returns a
// Buffer; throws on a malformed item (not canonical, an IV not 12 bytes) or a wrong key.
export function decryptItem(item, key) {
	if (typeof key === 'string') key = b64urlDecode(key);
	return wire.open(key, item);
}

// The key commitment of key (Buffer): docs/API.md "Key commitment".
export function keyCommitment(key) {
	return wire.keyCommitment(key);
}

export function sha256hex(s) {
	return crypto.createHash('sha256').update(s).digest('hex');
}

// ---- database ----------------------------------------------------------------

// Runs SQL through the sqlite3 command-line tool (waiting out locks); returns stdout.
export function sqlite(db, sql) {
	return execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, sql], { encoding: 'utf8' });
}

// Sets expires_at (ms since the epoch) of the row of secretKey.
export function setExpiresAt(db, secretKey, ms) {
	sqlite(db, `UPDATE secrets SET expires_at=${Math.trunc(ms)} WHERE secret_hash = x'${sha256hex(secretKey)}'`);
}

// Ages the secret so that its expiry lies agoMs in the past.
export function ageSecret(db, secretKey, agoMs = 1000) {
	setExpiresAt(db, secretKey, Date.now() - agoMs);
}

// The files SQLite may keep content in.
export function dbFiles(db) {
	return [db, `${db}-wal`, `${db}-shm`, `${db}-journal`].filter((f) => fs.existsSync(f));
}

// Which of the database files hold needle (Buffer or string); [] when none.
export function filesContaining(db, needle) {
	const n = Buffer.from(needle);
	return dbFiles(db).filter((f) => fs.readFileSync(f).includes(n));
}

// ---- per-file context --------------------------------------------------------

const tmpDirs = new Set();
process.on('exit', () => {
	if (process.env.BURNLINK_KEEP_TMP) return;
	for (const d of tmpDirs) {
		try { fs.rmSync(d, { recursive: true, force: true }); } catch { /* ignore */ }
	}
});

/*
 * A fresh temporary directory and database for one test file, with shortcuts:
 *   ctx.run(program, opts)       runCgi with BURNLINK_DB set
 *   ctx.create(body, opts)       POST /api/secrets
 *   ctx.createOk(body)           ...asserting 200; returns the create JSON plus
 *                                secretKey, receiptKey and the fragment key
 *   ctx.metadata(key), ctx.retrieve(key, body), ctx.burn(key, body)
 *   ctx.cleanup()                cron/cleanup
 *   ctx.sql(sql), ctx.age(secretKey, agoMs)
 */
export function newContext(extraEnv = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-cgi-'));
	tmpDirs.add(dir);
	const db = path.join(dir, 'burnlink.db');
	const baseEnv = { BURNLINK_DB: db, ...extraEnv };
	const ctx = {
		dir, db,
		env: baseEnv,
		// Every response must carry the common headers; a missing one rejects.
		async run(program, opts = {}) {
			const res = await runCgi(program, { ...opts, env: { ...baseEnv, ...(opts.env || {}) } });
			if (res.headers && !opts.noHeaderCheck) {
				const bad = commonHeaderProblems(res);
				if (bad.length) throw new Error(`${program} answered ${res.status} without the common headers: ${bad.join('; ')}`);
			}
			return res;
		},
		create(body, opts = {}) {
			return ctx.run('create', { method: 'POST', body, ...opts });
		},
		async createOk(body, opts = {}) {
			const res = await ctx.create(body, opts);
			if (res.status !== 200)
				throw new Error(`create failed: ${res.status} ${res.body.toString()}`);
			const j = res.json;
			return {
				...j, res,
				secretKey: j.metadata.secretKey,
				receiptKey: j.metadata.key,
				key: fragmentKey(j.secretUrl),
			};
		},
		metadata(key, opts = {}) {
			return ctx.run('metadata', { method: 'GET', pathInfo: `/${key}`, ...opts });
		},
		retrieve(key, body, opts = {}) {
			return ctx.run('retrieve', { method: 'POST', pathInfo: `/${key}`, body, ...opts });
		},
		burn(key, body, opts = {}) {
			return ctx.run('delete', { method: 'DELETE', pathInfo: `/${key}`, body, ...opts });
		},
		cleanup(env = {}) {
			return runProgram('cleanup', { env: { ...baseEnv, ...env } });
		},
		sql(q) { return sqlite(db, q); },
		age(secretKey, agoMs) { ageSecret(db, secretKey, agoMs); },
		remove() {
			fs.rmSync(dir, { recursive: true, force: true });
			tmpDirs.delete(dir);
		},
	};
	return pgHook ? pgHook.adaptContext(ctx) : ctx;
}

// Asserts the shape every error response has; returns the JSON body.
export function checkError(assert, res, status, code) {
	assert.equal(res.status, status, `status for ${code}: ${res.body.toString()}`);
	const j = res.json;
	assert.ok(j && typeof j === 'object', `error body is JSON: ${res.body.toString()}`);
	assert.equal(j.code, code, `code: ${res.body.toString()}`);
	assert.equal(typeof j.error, 'string');
	assert.ok(j.error.length > 0, 'error message is not empty');
	assert.equal(typeof j.hint, 'string');
	assert.ok(j.hint.length > 0, 'hint is not empty');
	assert.match(j.requestId, /^req_[A-Za-z0-9_-]{20}$/);
	assert.equal(res.headers['x-request-id'], j.requestId);
	assert.deepEqual(Object.keys(j).sort(), ['code', 'error', 'hint', 'requestId']);
	return j;
}

// What is wrong with the headers every response must carry ([] when nothing).
export function commonHeaderProblems(res) {
	const h = res.headers, bad = [];
	if (!/^application\/json(;|$)/.test(h['content-type'] || '')) bad.push(`Content-Type ${h['content-type']}`);
	if (h['cache-control'] !== 'no-store') bad.push(`Cache-Control ${h['cache-control']}`);
	if (h['x-content-type-options'] !== 'nosniff') bad.push(`X-Content-Type-Options ${h['x-content-type-options']}`);
	if (h['referrer-policy'] !== 'no-referrer') bad.push(`Referrer-Policy ${h['referrer-policy']}`);
	if (!/^req_[A-Za-z0-9_-]{20}$/.test(h['x-request-id'] || '')) bad.push(`X-Request-Id ${h['x-request-id']}`);
	return bad;
}

// Asserts the headers every response carries.
export function checkCommonHeaders(assert, res) {
	assert.match(res.headers['content-type'] || '', /^application\/json(;|$)/);
	assert.equal(res.headers['cache-control'], 'no-store');
	assert.equal(res.headers['x-content-type-options'], 'nosniff');
	assert.equal(res.headers['referrer-policy'], 'no-referrer');
	assert.match(res.headers['x-request-id'] || '', /^req_[A-Za-z0-9_-]{20}$/);
}
