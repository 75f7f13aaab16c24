// root.test.mjs: the programs an operator may run as root (cron/cleanup,
// burnlink-admin) act as the data directory's owner, create nothing before
// the first request, and never follow a symbolic link (docs/ADMIN.md).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, runCgi, ROOT } from '../lib/cgi.mjs';
import { countersPath } from '../lib/counters.mjs';

const isRoot = process.getuid && process.getuid() === 0;
const NOBODY = 65534;
const ADMIN = path.join(ROOT, 'tools', 'burnlink-admin');

// A data directory of the web server's user (nobody), as an installation has.
function webContext() {
	const ctx = newContext();
	fs.chownSync(ctx.dir, NOBODY, NOBODY);
	return ctx;
}

// A request as the web server's user.
function createAsNobody(ctx) {
	return runCgi('create', { body: { text: 'x' }, env: ctx.env, uid: NOBODY, gid: NOBODY });
}

function admin(ctx, ...args) {
	return spawnSync(ADMIN, args, { env: { PATH: process.env.PATH, ...ctx.env }, encoding: 'utf8' });
}

// Every file of the directory with its owner.
function owners(dir) {
	return fs.readdirSync(dir).map((f) => `${f}:${fs.lstatSync(path.join(dir, f)).uid}`).sort();
}

describe('cron/cleanup and burnlink-admin run as root', { skip: !isRoot && 'needs root' }, () => {
	test('cleanup before the first request creates nothing, and requests then work', async () => {
		const ctx = webContext();
		const res = await ctx.cleanup();
		assert.equal(res.code, 0, res.stderr);
		assert.match(res.stdout, /removed 0 expired secrets and 0 expired secret requests, pruned 0 counter windows/);
		assert.deepEqual(fs.readdirSync(ctx.dir), [], 'no database, -wal, -shm or counters file');
		assert.equal((await createAsNobody(ctx)).status, 200);
		ctx.remove();
	});
	test('cleanup after requests leaves every file to the web server\'s user', async () => {
		const ctx = webContext();
		assert.equal((await createAsNobody(ctx)).status, 200);
		const res = await ctx.cleanup();
		assert.equal(res.code, 0, res.stderr);
		for (const o of owners(ctx.dir)) assert.match(o, new RegExp(`:${NOBODY}$`), o);
		assert.equal((await createAsNobody(ctx)).status, 200);
		ctx.remove();
	});
	test('burnlink-admin before the first request creates the database as the directory\'s owner', async () => {
		const ctx = webContext();
		const r = admin(ctx, 'account', 'create', 'ops@example.org');
		assert.equal(r.status, 0, r.stderr);
		assert.ok(fs.existsSync(ctx.db));
		for (const o of owners(ctx.dir)) assert.match(o, new RegExp(`:${NOBODY}$`), o);
		assert.equal((await createAsNobody(ctx)).status, 200);
		ctx.remove();
	});
	for (const which of ['database', 'counters']) {
		test(`a symbolic link as the ${which} path is refused, its target untouched`, async () => {
			const ctx = webContext();
			assert.equal((await createAsNobody(ctx)).status, 200);
			const target = path.join(ctx.dir, 'elsewhere');
			const name = which === 'database' ? ctx.db : countersPath(ctx.db);
			fs.renameSync(name, target);
			fs.symlinkSync(target, name);
			const before = fs.readFileSync(target);
			const res = await ctx.cleanup();
			assert.notEqual(res.code, 0, res.stdout);
			assert.match(res.stderr, /symbolic link/);
			const r = admin(ctx, 'account', 'list');
			assert.equal(r.status, 1, r.stdout);
			assert.match(r.stderr, /symbolic link/);
			assert.ok(before.equals(fs.readFileSync(target)), 'the link\'s target is unchanged');
			ctx.remove();
		});
	}
	test('a symbolic link as the database path is not opened by a request either', async () => {
		const ctx = webContext();
		const target = path.join(ctx.dir, 'elsewhere.db');
		fs.writeFileSync(target, '');
		fs.chownSync(target, NOBODY, NOBODY);
		fs.symlinkSync(target, ctx.db);
		const res = await createAsNobody(ctx);
		assert.equal(res.status, 503, String(res.body));
		assert.equal(fs.statSync(target).size, 0, 'nothing written through the link');
		ctx.remove();
	});
});
