// unit.test.mjs: the storage unit test (tests/unit/test_store.c) against
// PostgreSQL: the same lifecycle table the unit suite runs against SQLite,
// through the library of `make pg` (build/pg-obj/tests/test_store), on a fresh
// database of the cluster of BURNLINK_TEST_PG (tests/run.sh pg) or of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cluster from './cluster.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const UNIT = path.join(ROOT, 'build', 'pg-obj', 'tests', 'test_store');

test('the storage lifecycle table passes on PostgreSQL', () => {
	assert.ok(fs.existsSync(UNIT), `${UNIT} is missing: run make pg`);
	const own = process.env.BURNLINK_TEST_PG ? null : cluster.newCluster();
	const dir = process.env.BURNLINK_TEST_PG || own.dir;
	const db = cluster.createDatabase(dir);
	const r = spawnSync(UNIT, [], {
		env: { ...process.env, BURNLINK_TEST_DB: cluster.conninfo(dir, db) },
		encoding: 'utf8',
		timeout: 120000,
	});
	const m = /^store \(postgresql\): (\d+) passed, (\d+) failed$/m.exec(r.stdout);
	assert.ok(m, `no result line: ${r.stdout}${r.stderr}`);
	assert.equal(Number(m[2]), 0, r.stderr);
	assert.ok(Number(m[1]) > 150, `only ${m[1]} checks ran`);
	assert.equal(r.status, 0, r.stderr);
});
