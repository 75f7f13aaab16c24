// parms.test.mjs: a statement given more parameters than a backend binds
// (BL_MAX_PARMS, lib/store.h) does not compile, whichever backend is built.
// It used to fail only at run time, and only on PostgreSQL (store_pg.c's
// MAX_ARGS): a thirteenth column of ST_INSERT_SECRET passed every SQLite test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/cgi.mjs';

function compile(n) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-parms-'));
	try {
		const src = path.join(dir, 'p.c');
		const list = Array.from({ length: n }, (_, i) => `P_INT(${i})`).join(', ');
		fs.writeFileSync(src, '#include "store.h"\n' +
			'enum bl_err f(struct bl_store *);\n' +
			`enum bl_err f(struct bl_store *s) { return bl_st_run(s, ST_INSERT_SECRET, PARMS(${list}), NULL, NULL, NULL); }\n`);
		return spawnSync(process.env.CC || 'cc', ['-D_GNU_SOURCE', `-I${path.join(ROOT, 'lib')}`,
			`-I${path.join(ROOT, 'build')}`, '-Wall', '-Wextra', '-Werror', '-c', '-o', path.join(dir, 'p.o'), src],
		{ encoding: 'utf8' });
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

test('PARMS() of BL_MAX_PARMS compiles; one more does not', () => {
	const max = Number(/#define\s+BL_MAX_PARMS\s+(\d+)/.exec(fs.readFileSync(path.join(ROOT, 'lib', 'store.h'), 'utf8'))[1]);
	const ok = compile(max);
	assert.equal(ok.status, 0, ok.stderr);
	const over = compile(max + 1);
	assert.notEqual(over.status, 0);
	assert.match(over.stderr, /more parameters than BL_MAX_PARMS/);
});
