// datadir.test.mjs: a data directory the programs cannot reach or write, or a
// file in it another user made, answers 503 STORE_UNAVAILABLE with a hint
// naming the directory (or file), the user the programs run as and its owner
// (docs/API.md), never CONFIG_INVALID or RATE_LIMIT_UNAVAILABLE. The programs
// run as nobody over directories of root, as a host without suEXEC runs them
// over the customer's files.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, runCgi, checkError } from '../lib/cgi.mjs';

const isRoot = process.getuid && process.getuid() === 0;
const NOBODY = 65534;

// A context whose database lies in var/ (root's, of mode), reachable by nobody down to var/.
function withVar(mode) {
	const ctx = newContext();
	fs.chmodSync(ctx.dir, 0o755);
	const dir = path.join(ctx.dir, 'var');
	fs.mkdirSync(dir);
	fs.chmodSync(dir, mode);
	ctx.var = dir;
	ctx.env.BURNLINK_DB = path.join(dir, 'burnlink.db');
	return ctx;
}

function asNobody(ctx, program = 'create', opts = {}) {
	const body = program === 'create' ? { text: 'x' } : undefined;
	return runCgi(program, { body, env: ctx.env, uid: NOBODY, gid: NOBODY, ...opts });
}

describe('a data directory out of the programs\' reach', { skip: !isRoot && 'needs root (runs the programs as nobody)' }, () => {
	for (const mode of [0o700, 0o711, 0o755, 0o775]) {
		test(`var/ of another user with mode ${mode.toString(8)}: STORE_UNAVAILABLE naming the directory, both users and the mode`, async () => {
			const ctx = withVar(mode);
			for (const program of ['create', 'metadata', 'session']) {
				const res = await asNobody(ctx, program, program === 'metadata' ? { pathInfo: '/AAAAAAAAAAAAAAAAAAAAAA' } : {});
				const j = checkError(assert, res, 503, 'STORE_UNAVAILABLE');
				assert.ok(j.hint.includes(`data directory ${ctx.var},`), j.hint);
				assert.match(j.hint, /run as uid 65534 \(nobody\)/);
				assert.match(j.hint, /belongs to uid 0 \(root\)/);
				assert.ok(j.hint.includes(`mode 0${mode.toString(8)}`), j.hint);
				assert.match(j.hint, /INSTALL section 6/);
				assert.match(res.stderr, /cannot write the data directory/, 'the error log says it too');
			}
			ctx.remove();
		});
	}
	test('a database file made by another user (a cron job as the customer): the hint names the file and its owner', async () => {
		const ctx = withVar(0o777);
		const made = await ctx.create({ text: 'made as root' });	// as root: the files are root's, 0600
		assert.equal(made.status, 200);
		const res = await asNobody(ctx, 'metadata', { pathInfo: `/${made.json.metadata.key}` });
		const j = checkError(assert, res, 503, 'STORE_UNAVAILABLE');
		assert.ok(j.hint.includes(`the file ${path.join(ctx.var, 'burnlink.db')}`) ||
			j.hint.includes(`the file ${path.join(ctx.var, 'burnlink')}`), j.hint);
		assert.match(j.hint, /uid 65534 \(nobody\).*uid 0 \(root\) \(mode 0600\)/);
		ctx.remove();
	});
	test('a data directory that does not exist says so', async () => {
		const ctx = newContext({ BURNLINK_DB: '/nonexistent/burnlink/var/burnlink.db' });
		const j = checkError(assert, await ctx.create({ text: 'x' }), 503, 'STORE_UNAVAILABLE');
		assert.match(j.hint, /data directory \/nonexistent\/burnlink\/var does not exist/);
		ctx.remove();
	});
	test('a writable data directory of the programs\' own user works (suEXEC: mode 0700)', async () => {
		const ctx = withVar(0o700);
		fs.chownSync(ctx.var, NOBODY, NOBODY);
		assert.equal((await asNobody(ctx)).status, 200);
		ctx.remove();
	});
});

describe('the guard in the data directory (docs/SECURITY.md)', () => {
	test('the first request writes a deny-all .htaccess (0644) beside the database', async () => {
		const ctx = newContext();
		assert.equal((await ctx.create({ text: 'x' })).status, 200);
		const guard = path.join(ctx.dir, '.htaccess');
		assert.match(fs.readFileSync(guard, 'utf8'), /^Require all denied$/m);
		assert.equal(fs.statSync(guard).mode & 0o777, 0o644);
		ctx.remove();
	});
	test('an .htaccess the operator put there is kept; cron/cleanup gives an older installation one', async () => {
		const ctx = newContext();
		assert.equal((await ctx.create({ text: 'x' })).status, 200);
		fs.writeFileSync(path.join(ctx.dir, '.htaccess'), 'Require ip 192.0.2.1\n');
		assert.equal((await ctx.cleanup()).code, 0);
		assert.equal(fs.readFileSync(path.join(ctx.dir, '.htaccess'), 'utf8'), 'Require ip 192.0.2.1\n');
		fs.rmSync(path.join(ctx.dir, '.htaccess'));
		assert.equal((await ctx.cleanup()).code, 0);
		assert.match(fs.readFileSync(path.join(ctx.dir, '.htaccess'), 'utf8'), /^Require all denied$/m);
		ctx.remove();
	});
});
