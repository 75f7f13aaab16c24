// json.test.mjs: an object built through bl_json_add() (lib/json.c) frees
// everything it allocated when any allocation fails, however many members it
// has: json-c keeps the member names (string literals) rather than copies, so
// the growth of its table past the 10th member has no copied name to leak
// (json-c 0.16 leaked it when that growth failed: a 12th member of the
// receipt's answer would have). tests/faults/json_members.c under failmalloc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/cgi.mjs';
import { buildShim } from './helpers.mjs';

const BIN = path.join(ROOT, 'build', 'faults', 'json_members');

function build() {
	const lib = path.join(ROOT, 'build', 'libburnlink.a');
	if (!fs.existsSync(lib)) throw new Error(`${lib} is missing (run make)`);
	fs.mkdirSync(path.dirname(BIN), { recursive: true });
	execFileSync(process.env.CC || 'cc', ['-D_GNU_SOURCE', '-O1', '-g', '-Wall', '-Wextra', '-Werror',
		`-I${path.join(ROOT, 'lib')}`, '-o', BIN, path.join(ROOT, 'tests', 'faults', 'json_members.c'), lib,
		'-lfcgi', '-lssl', '-lcrypto', '-lsqlite3', '-ljson-c', '-lpthread', '-ldl', '-lm'], { stdio: 'inherit' });
}

function run(shim, at) {
	const r = spawnSync(BIN, [], {
		encoding: 'utf8',
		env: { PATH: process.env.PATH, LD_PRELOAD: shim, ...(at ? { FAILMALLOC_AT: String(at) } : {}) },
	});
	const m = /failmalloc: allocations=(\d+) failed=(\d+) at=\d+ live=(-?\d+)/.exec(r.stderr);
	assert.ok(m, `no failmalloc summary: ${r.stderr}`);
	return { allocations: Number(m[1]), failed: Number(m[2]), live: Number(m[3]), members: r.status, stderr: r.stderr };
}

test('a 40-member object leaks nothing when any one allocation fails', () => {
	const shim = buildShim();
	build();
	const all = run(shim, 0);
	assert.equal(all.members, 40);
	assert.equal(all.live, 0, all.stderr);
	for (let at = 1; at <= all.allocations; at++) {
		const r = run(shim, at);
		assert.equal(r.live, 0, `allocation #${at} failed after ${r.members} members: ${r.stderr}`);
	}
});
