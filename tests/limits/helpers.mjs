// helpers.mjs: runs the real programs (CGI requests through tests/lib/cgi.mjs,
// and burnlink-admin) for the rate-limit and API-key tests, and reads or seeds
// the counters file (tests/lib/counters.mjs).
//
// Environment, as for the other suites:
//   BURNLINK_BIN   directory holding cgi-bin/, cron/ and tools/ (e.g. build/asan);
//                  default the repository itself
//   BURNLINK_WRAP  a command prefix every program runs under (e.g. valgrind ...)

import { spawnSync, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countersPath, seedCounter, readCounter, windowOf, inOneWindow } from '../lib/counters.mjs';
import { ROOT, runCgi, programPath, wrapper } from '../lib/cgi.mjs';

export { ROOT, programPath, windowOf, inOneWindow };
const PASS_THROUGH = ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'VALGRIND_OPTS'];

export const wrap = wrapper();
// Under a wrapper (valgrind) or a sanitizer build a thousand processes take
// minutes: the long loop seeds 990 first instead.
export const slow = wrap.length > 0 || !!process.env.BURNLINK_SLOW || !!process.env.BURNLINK_BIN;

function baseEnv() {
	const env = { PATH: process.env.PATH || '/usr/bin:/bin' };
	for (const k of PASS_THROUGH)
		if (process.env[k] !== undefined) env[k] = process.env[k];
	return env;
}

/*
 * One CGI request through the shared runner (tests/lib/cgi.mjs runCgi, which
 * also checks the answer against docs/openapi.yaml). opts: method (default by
 * program), key (PATH_INFO "/<key>"), body (object or string), ip
 * (REMOTE_ADDR, default 192.0.2.1), xff, auth (HTTP_AUTHORIZATION), env (more
 * variables), uid/gid (run as that user). Resolves to { status, headers,
 * body, json, stderr }; a non-zero exit rejects.
 */
export function cgi(ctx, program, opts = {}) {
	const env = {
		BURNLINK_DB: ctx.db,
		REMOTE_ADDR: opts.ip || '192.0.2.1',
		...ctx.env,
		...(opts.env || {}),
	};
	if (opts.xff !== undefined) env.HTTP_X_FORWARDED_FOR = opts.xff;
	if (opts.auth !== undefined) env.HTTP_AUTHORIZATION = opts.auth;
	return runCgi(program, {
		method: opts.method || (program === 'create' || program === 'retrieve' ? 'POST' :
			program === 'delete' ? 'DELETE' : 'GET'),
		pathInfo: opts.key === undefined ? undefined : `/${opts.key}`,
		body: opts.body,
		env,
		uid: opts.uid,
		gid: opts.gid,
	});
}

// Runs burnlink-admin (or cron/cleanup) synchronously: { code, stdout, stderr, json }.
export function tool(ctx, name, args = [], env = {}) {
	const prog = programPath(name);
	const cmd = wrap.length ? wrap[0] : prog;
	const argv = wrap.length ? [...wrap.slice(1), prog, ...args] : args;
	const r = spawnSync(cmd, argv, {
		env: { ...baseEnv(), BURNLINK_DB: ctx.db, ...ctx.env, ...env }, encoding: 'utf8',
	});
	if (r.error) throw r.error;
	let json;
	try { json = JSON.parse(r.stdout); } catch { json = undefined; }
	return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

export const admin = (ctx, ...args) => tool(ctx, 'burnlink-admin', args);

// Runs SQL with the sqlite3 command-line tool; returns its output, trimmed.
export function sql(db, q) {
	return execFileSync('sqlite3', ['-batch', '-cmd', '.timeout 10000', db], { input: q, encoding: 'utf8' }).trim();
}

const dirs = [];
process.on('exit', () => {
	for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// A fresh directory with a database path; env is passed to every program.
export function newCtx(env = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-limits-'));
	dirs.push(dir);
	const db = path.join(dir, 'burnlink.db');
	return { dir, db, limits: countersPath(db), env };
}

// The counter bucket of a limit: HMAC-SHA-256(install secret, name NUL subject).
export function bucket(ctx, name, subject) {
	const key = fs.readFileSync(ctx.env.BURNLINK_SECRET_FILE || path.join(ctx.dir, 'secret.key'));
	return crypto.createHmac('sha256', key)
		.update(Buffer.concat([Buffer.from(name + '\0'), Buffer.from(subject)])).digest('hex');
}

// Writes a counter directly into the counters file (e.g. a window that has ended).
export function seed(ctx, name, subject, windowStart, len, count) {
	seedCounter(ctx.limits, bucket(ctx, name, subject), windowStart, len, count);
}

// The count of a limit's bucket in the window starting at windowStart (0 if none).
export function count(ctx, name, subject, windowStart) {
	return readCounter(ctx.limits, bucket(ctx, name, subject), windowStart);
}

// Runs fn over items with at most n in flight; resolves to the results in order.
export async function pool(items, n, fn) {
	const out = new Array(items.length);
	let next = 0;
	async function worker() {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i], i);
		}
	}
	await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
	return out;
}

export function rl(res) {
	const h = res.headers;
	return {
		limit: h['x-ratelimit-limit'] === undefined ? undefined : Number(h['x-ratelimit-limit']),
		remaining: h['x-ratelimit-remaining'] === undefined ? undefined : Number(h['x-ratelimit-remaining']),
		reset: h['x-ratelimit-reset'] === undefined ? undefined : Number(h['x-ratelimit-reset']),
		retryAfter: h['retry-after'] === undefined ? undefined : Number(h['retry-after']),
	};
}

// Creates a secret and returns { secretKey, receiptKey }.
export async function createSecret(ctx, body = { text: 'hello' }, opts = {}) {
	const res = await cgi(ctx, 'create', { body, ...opts });
	if (res.status !== 200) throw new Error(`create: ${res.status} ${res.body}`);
	return { secretKey: res.json.metadata.secretKey, receiptKey: res.json.metadata.key, res };
}

export function secretsCount(ctx) {
	return Number(sql(ctx.db, 'SELECT count(*) FROM secrets'));
}

// Asserts that Retry-After counts down to reset from the moment the program
// ran (between t0, taken before the request, and now).
export function assertRetryAfter(assert, retryAfter, reset, t0) {
	const ra = Number(retryAfter);
	const serverNow = reset - ra;
	assert.ok(ra >= 1, `Retry-After ${retryAfter}`);
	assert.ok(serverNow >= Math.floor(t0 / 1000) - 1 && serverNow <= Math.ceil(Date.now() / 1000) + 1,
		`Retry-After ${ra} counts down to ${reset}`);
}
