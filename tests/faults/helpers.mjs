// helpers.mjs: the fault-injection harness: the failmalloc shim (built here
// from failmalloc.c into build/faults/), a runner for the dynamically linked
// programs in build/dyn/ (LD_PRELOAD does not reach static ones), and the
// checks every faulty run must pass.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, parseCgi, sqlite } from '../lib/cgi.mjs';

// BURNLINK_DYN: another dynamically linked build tree (default build/dyn).
export const DYN = path.resolve(ROOT, process.env.BURNLINK_DYN || path.join('build', 'dyn'));
export const SHIM = path.join(ROOT, 'build', 'faults', 'failmalloc.so');

// Builds the shim when it is missing or older than its source.
export function buildShim() {
	const src = path.join(ROOT, 'tests', 'faults', 'failmalloc.c');
	const st = fs.existsSync(SHIM) ? fs.statSync(SHIM).mtimeMs : 0;
	if (st < fs.statSync(src).mtimeMs) {
		fs.mkdirSync(path.dirname(SHIM), { recursive: true });
		execFileSync(process.env.CC || 'cc', ['-O1', '-g', '-shared', '-fPIC', '-Wall',
			'-Wextra', '-Werror', '-o', SHIM, src, '-ldl'], { stdio: 'inherit' });
	}
	return SHIM;
}

export function dynProgram(name) {
	const p = path.join(DYN, name === 'cleanup' ? 'cron' : 'cgi-bin', name);
	if (!fs.existsSync(p)) throw new Error(`${p} is missing: run make dyn`);
	return p;
}

/*
 * Runs a program of build/dyn as a CGI request. opts: method, pathInfo, body
 * (object → JSON), env, failAt (the allocation to fail; 0 none), persist,
 * uid/gid, timeoutMs. Resolves to { code, signal, raw, stderr, res (parsed
 * CGI or null), alloc: {allocations, failed, live, leaks[]} or null, ms }.
 */
export function runDyn(program, opts = {}) {
	let body = opts.body;
	if (body !== undefined && body !== null && !Buffer.isBuffer(body))
		body = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
	const env = {
		PATH: '/usr/bin:/bin',
		GATEWAY_INTERFACE: 'CGI/1.1',
		REQUEST_METHOD: opts.method || (body ? 'POST' : 'GET'),
		HTTP_HOST: 'burnlink.test',
		REMOTE_ADDR: opts.ip || '192.0.2.10',
		REQUEST_URI: '/api/secrets' + (opts.pathInfo || ''),
	};
	if (opts.pathInfo !== undefined) env.PATH_INFO = opts.pathInfo;
	if (body) {
		env.CONTENT_LENGTH = String(body.length);
		env.CONTENT_TYPE = 'application/json';
	}
	if (opts.failAt !== undefined) {
		env.LD_PRELOAD = SHIM;
		env.FAILMALLOC_AT = String(opts.failAt);
		if (opts.persist) env.FAILMALLOC_PERSIST = '1';
	}
	Object.assign(env, opts.env || {});
	for (const k of Object.keys(env)) if (env[k] === undefined || env[k] === null) delete env[k];
	const prog = opts.program || dynProgram(program);
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(prog, [], { env, stdio: ['pipe', 'pipe', 'pipe'],
			uid: opts.uid, gid: opts.gid });
		const out = [], err = [];
		child.stdout.on('data', (c) => out.push(c));
		child.stderr.on('data', (c) => err.push(c));
		child.stdin.on('error', () => {});
		if (body) child.stdin.write(body);
		child.stdin.end();
		const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs || 60000);
		child.on('error', (e) => { clearTimeout(timer); reject(e); });
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			const raw = Buffer.concat(out);
			const stderr = Buffer.concat(err).toString('utf8');
			let res = null;
			try { res = parseCgi(raw); } catch { res = null; }
			resolve({ code, signal, raw, stderr, res, alloc: parseAlloc(stderr), ms: Date.now() - started });
		});
	});
}

function parseAlloc(stderr) {
	const m = /failmalloc: allocations=(\d+) failed=(\d+) at=(\d+) live=(-?\d+)/.exec(stderr);
	if (!m) return null;
	const leaks = stderr.split('\n').filter((l) => l.startsWith('failmalloc: leak'));
	return { allocations: Number(m[1]), failed: Number(m[2]), at: Number(m[3]), live: Number(m[4]), leaks };
}

// The error codes a server-side failure may answer with (docs/API.md: 500 and the 503s).
export const SERVER_CODES = new Set(['INTERNAL_ERROR', 'STORE_UNAVAILABLE', 'STORE_BUSY',
	'RATE_LIMIT_UNAVAILABLE']);

/*
 * What is wrong with the outcome of one run ([] when nothing): it must exit 0
 * by itself, print a complete CGI response with the common headers, and be
 * either the expected success or a JSON error of a server-side code.
 */
export function outcomeProblems(r, okStatus = 200) {
	const bad = [];
	if (r.signal) bad.push(`killed by ${r.signal}`);
	else if (r.code !== 0) bad.push(`exit ${r.code}`);
	if (!r.res) {
		bad.push(`no complete CGI response: ${JSON.stringify(r.raw.toString('latin1').slice(0, 200))}`);
		return bad;
	}
	const h = r.res.headers;
	if (!/^application\/json/.test(h['content-type'] || '')) bad.push(`Content-Type ${h['content-type']}`);
	if (h['cache-control'] !== 'no-store') bad.push(`Cache-Control ${h['cache-control']}`);
	if (h['x-content-type-options'] !== 'nosniff') bad.push('no X-Content-Type-Options');
	if (r.res.status === okStatus) {
		if (!r.res.json || typeof r.res.json !== 'object') bad.push('success without a JSON body');
		return bad;
	}
	const j = r.res.json;
	if (!j) { bad.push(`status ${r.res.status} without a JSON body`); return bad; }
	if (!SERVER_CODES.has(j.code)) bad.push(`status ${r.res.status} code ${j.code}`);
	if (r.res.status !== 500 && r.res.status !== 503) bad.push(`status ${r.res.status}`);
	for (const k of ['error', 'code', 'hint', 'requestId'])
		if (typeof j[k] !== 'string' || j[k] === '') bad.push(`error body without ${k}`);
	return bad;
}

// The allocation numbers to fail: all of them when BURNLINK_FAULTS_FULL=1,
// else the first and last `edge` and an even spread of `budget` in between.
export function failPoints(total, { edge = 25, budget = 35 } = {}) {
	if (process.env.BURNLINK_FAULTS_FULL === '1' || total <= 2 * edge + budget)
		return Array.from({ length: total }, (_, i) => i + 1);
	const pts = new Set();
	for (let i = 1; i <= edge; i++) pts.add(i);
	for (let i = total - edge + 1; i <= total; i++) pts.add(i);
	const step = (total - 2 * edge) / (budget + 1);
	for (let k = 1; k <= budget; k++) pts.add(edge + Math.round(k * step));
	return [...pts].sort((a, b) => a - b);
}

// Runs fn over items with at most `width` at once; resolves to the results in order.
export async function pool(items, width, fn) {
	const out = new Array(items.length);
	let next = 0;
	async function worker() {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i], i);
		}
	}
	await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
	return out;
}

export function integrity(db) {
	return sqlite(db, 'PRAGMA integrity_check').trim();
}

// A client address per run, so the per-IP daily limit never ends a sweep.
export function ipFor(n) {
	return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
