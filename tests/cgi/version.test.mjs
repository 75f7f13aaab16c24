// version.test.mjs: GET /api/version (docs/API.md), and one build version
// and one schema version (docs/HACKING.md, "Versions"). The build's version is scripts/version.sh's (a VERSION file,
// else git describe), compiled in and shown by GET /api/health; the schema's
// version is BL_SCHEMA_VERSION of lib/store.h alone: both backends record it
// after applying their schema file, which carries no number of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newContext, ROOT } from '../lib/cgi.mjs';
import { SCHEMA_VERSION } from '../lib/schema.mjs';

test('GET /api/health shows the build version the programs were built with', async () => {
	const ctx = newContext();
	try {
		const r = await ctx.run('health', { method: 'GET' });
		assert.match(r.json.version, /^[A-Za-z0-9._+~-]+$/);
		const bin = process.env.BURNLINK_BIN;
		if (!bin || bin === 'cgi-bin') {
			const h = fs.readFileSync(path.join(ROOT, 'build', 'version.h'), 'utf8');
			assert.equal(r.json.version, /BL_BUILD_VERSION "([^"]*)"/.exec(h)[1]);
		}
	} finally {
		ctx.remove();
	}
});

test('scripts/version.sh takes a VERSION file first (a source tarball, a package), else git', () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-version-'));
	try {
		fs.mkdirSync(path.join(dir, 'scripts'));
		fs.copyFileSync(path.join(ROOT, 'scripts', 'version.sh'), path.join(dir, 'scripts', 'version.sh'));
		// no VERSION and no git: "unknown"
		const run = () => execFileSync('sh', [path.join(dir, 'scripts', 'version.sh')],
			{ encoding: 'utf8', env: { PATH: process.env.PATH, GIT_CEILING_DIRECTORIES: path.dirname(dir) } }).trim();
		assert.equal(run(), 'unknown');
		fs.writeFileSync(path.join(dir, 'VERSION'), '1.4.2\n');
		assert.equal(run(), '1.4.2');
		fs.writeFileSync(path.join(dir, 'VERSION'), '1.4 "x"\n');
		assert.throws(run, /not a version/);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

test('the schema files carry no version; a new database records BL_SCHEMA_VERSION', async () => {
	for (const f of ['schema.sql', 'schema-pg.sql']) {
		const sql = fs.readFileSync(path.join(ROOT, f), 'utf8').replace(/--.*$/gm, '');
		assert.doesNotMatch(sql, /user_version|INSERT INTO burnlink_schema/i, `${f} writes no version of its own`);
	}
	const ctx = newContext();
	try {
		await ctx.run('health', { method: 'GET' });
		const v = ctx.sql(process.env.BURNLINK_TEST_PG ? 'SELECT version FROM burnlink_schema' : 'PRAGMA user_version');
		assert.equal(v.trim(), String(SCHEMA_VERSION));
	} finally {
		ctx.remove();
	}
});

test('GET /api/version: the build\'s version and the schema\'s; HEAD the same; other methods 405', async () => {
	const ctx = newContext();
	try {
		const r = await ctx.run('version', { method: 'GET' });
		assert.equal(r.status, 200, r.body.toString());
		assert.deepEqual(Object.keys(r.json).sort(), ['schemaVersion', 'version']);
		assert.equal(r.json.schemaVersion, SCHEMA_VERSION);
		assert.equal(r.json.version, (await ctx.run('health', { method: 'GET' })).json.version);
		assert.equal(r.headers['x-ratelimit-limit'], undefined, 'not counted');
		const h = await ctx.run('version', { method: 'HEAD' });
		assert.equal(h.status, 200);
		assert.equal(h.body.length, 0);
		const p = await ctx.run('version', { method: 'POST', body: '{}', contentType: 'application/json' });
		assert.equal(p.status, 405);
		assert.equal(p.headers.allow, 'GET, HEAD');
	} finally {
		ctx.remove();
	}
});
