// helpers.mjs: the fault-injection harness: the failmalloc shim (built here
// from failmalloc.c into build/faults/), the CGI runner pointed at the
// dynamically linked programs in build/dyn/ (LD_PRELOAD does not reach static
// ones), and the checks every faulty run must pass.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runCgi, sqlite } from '../lib/cgi.mjs';

// BURNLINK_DYN: another dynamically linked build tree (default build/dyn).
export const DYN = path.resolve(ROOT, process.env.BURNLINK_DYN || path.join('build', 'dyn'));
export const SHIM = path.join(ROOT, 'build', 'faults', 'failmalloc.so');

// Builds the shim when it is missing or older than its source.
export function buildShim() {
	const src = path.join(ROOT, 'tests', 'faults', 'failmalloc.c');
	const st = fs.existsSync(SHIM) ? fs.statSync(SHIM).mtimeMs : 0;
	if (st < fs.statSync(src).mtimeMs) {
		fs.mkdirSync(path.dirname(SHIM), { recursive: true });
		// built beside and renamed: suites that run at once may build it together
		const tmp = `${SHIM}.${process.pid}`;
		execFileSync(process.env.CC || 'cc', ['-O1', '-g', '-shared', '-fPIC', '-Wall',
			'-Wextra', '-Werror', '-o', tmp, src, '-ldl'], { stdio: 'inherit' });
		fs.renameSync(tmp, SHIM);
	}
	return SHIM;
}

export function dynProgram(name) {
	const p = path.join(DYN, name === 'cleanup' ? 'cron' : 'cgi-bin', name);
	if (!fs.existsSync(p)) throw new Error(`${p} is missing: run make dyn`);
	return p;
}

/*
 * Runs a program of build/dyn as a CGI request (tests/lib/cgi.mjs's runCgi(),
 * any exit accepted, its answer not checked against the API: faulty runs are
 * judged by outcomeProblems()). opts: method, pathInfo, body (object → JSON),
 * ip, env, failAt (the allocation to fail; 0 none), persist, uid/gid,
 * timeoutMs, program (another file). Resolves to { code, signal, raw, stderr,
 * res (parsed CGI or null), alloc: {allocations, failed, live, leaks[]} or
 * null, ms }.
 */
export async function runDyn(program, opts = {}) {
	const env = { REMOTE_ADDR: opts.ip || '192.0.2.10' };
	if (opts.failAt !== undefined) {
		env.LD_PRELOAD = SHIM;
		env.FAILMALLOC_AT = String(opts.failAt);
		if (opts.persist) env.FAILMALLOC_PERSIST = '1';
	}
	const r = await runCgi(program, {
		method: opts.method, pathInfo: opts.pathInfo, body: opts.body, uid: opts.uid, gid: opts.gid,
		timeoutMs: opts.timeoutMs, env: { ...env, ...(opts.env || {}) },
		path: opts.program || dynProgram(program), allowExit: true, noSpecCheck: true,
	});
	const res = r.status === undefined ? null :
		{ status: r.status, headers: r.headers, body: r.body, json: r.json };
	return { code: r.code, signal: r.signal, raw: r.raw, stderr: r.stderr, res,
		alloc: parseAlloc(r.stderr), ms: r.ms };
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
