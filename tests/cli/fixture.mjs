// Shared by the CLI test files: one real server per file (lighttpd + the CGI
// programs), and the assertions on burnlink's output and exit codes.

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../lib/server.mjs';
import { ROOT, CLI, run, splitLink, apiJson, errorLine } from './helpers.mjs';

export let srv;
export let URL_OPT;

before(async () => {
	srv = await startServer({ server: 'lighttpd' });
	URL_OPT = ['--url', srv.base];
});

after(async () => {
	await srv?.stop();
});

export async function send(args, opts = {}) {
	const r = await run([...URL_OPT, ...args], opts);
	assert.equal(r.code, 0, `burnlink ${args.join(' ')} failed: ${r.err}`);
	return r.out.trim();
}

export async function meta(link) {
	const { site, id } = splitLink(link);
	const r = await apiJson('GET', `${site}/api/secrets/${id}`);
	return r;
}

// Asserts an API error: exit 1, one stderr line with code, hint and requestId.
export function assertApiError(r, code) {
	assert.equal(r.code, 1, `expected exit 1, got ${r.code}: ${r.err}`);
	const line = errorLine(r.err);
	assert.match(line, /^burnlink: error: /);
	assert.ok(line.includes(`(${code}, HTTP `), line);
	assert.match(line, /; hint: \S/);
	assert.match(line, /; requestId: req_[A-Za-z0-9_-]{20}$/);
	assert.equal(r.out, '');
}

export function assertUsage(r, re) {
	assert.equal(r.code, 2, `expected exit 2, got ${r.code}: ${r.err}`);
	const line = errorLine(r.err);
	assert.match(line, /^burnlink: usage: /);
	if (re)
		assert.match(line, re);
	assert.equal(r.out, '');
}

// iso is seconds after the moment of a create made since t0 (the clock before
// the command that made it) and before now (whole seconds: a second either
// side); not "within a minute of now", which a slow run on a loaded machine passes.
export function near(iso, seconds, t0) {
	assert.equal(typeof t0, 'number', 'near(iso, seconds, t0): the clock before the create');
	const t = Date.parse(iso);
	const t1 = Date.now();
	assert.ok(t >= t0 + seconds * 1000 - 1000 && t <= t1 + seconds * 1000 + 1000,
		`${iso} is not ${seconds} s after a moment in ${new Date(t0).toISOString()}..${new Date(t1).toISOString()}`);
}


// Runs SQL on the server's database as the user the server runs as (so that
// no file of the database ends up owned by someone else).
export function sql(statement) {
	const asOther = process.getuid?.() === 0 && srv.user !== 'root';
	const argv = asOther ? ['runuser', '-u', srv.user, '--', 'sqlite3', srv.db, statement] : ['sqlite3', srv.db, statement];
	execFileSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

// Runs burnlink on a pseudo-terminal (util-linux script), answering each
// prompt when it appears; resolves {code, out} (out is the terminal's text).
export function runOnTerminal(args, answers) {
	return new Promise((resolve, reject) => {
		const quoted = [process.env.BURNLINK_TEST_NODE || process.execPath, CLI, ...args]
			.map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
		const child = spawn('script', ['-qec', quoted, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
		let out = '';
		let seen = 0;
		child.stdout.on('data', d => {
			out += d;
			const prompts = out.match(/Passphrase( \(again\))?: /g) || [];
			while (seen < prompts.length && seen < answers.length)
				child.stdin.write(answers[seen++] + '\r');
		});
		child.on('error', reject);
		child.on('close', code => resolve({ code, out }));
	});
}

export function hasScript() {
	try {
		execFileSync('script', ['--version'], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

// The operator's tool (tools/burnlink-admin, or the one built beside
// $BURNLINK_BIN), run on the test server's database; resolves its --json output.
export function admin(...args) {
	const dirs = process.env.BURNLINK_BIN
		? [path.resolve(ROOT, process.env.BURNLINK_BIN, '..', 'tools'), path.resolve(ROOT, process.env.BURNLINK_BIN, 'tools')]
		: [];
	const tool = [...dirs, path.join(ROOT, 'tools')].map(d => path.join(d, 'burnlink-admin')).find(p => fs.existsSync(p));
	if (!tool)
		throw new Error('tools/burnlink-admin is missing (run make)');
	const out = execFileSync(tool, ['--json', ...args], {
		env: { ...process.env, BURNLINK_DB: srv.db, BURNLINK_SECRET_FILE: path.join(path.dirname(srv.db), 'secret.key') },
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	return out.trim() ? JSON.parse(out) : null;
}
