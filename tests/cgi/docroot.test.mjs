// docroot.test.mjs: a data file under the web server's document root (issue 29,
// item 12). The web server hands out any file there that its configuration does
// not deny, and a deny list misses names it does not know (a BURNLINK_DB named
// x.sqlite, its -wal, a settings file or install secret named otherwise). So
// the programs, which know DOCUMENT_ROOT, serve nothing while the database, its
// WAL, the rate-limit counters, the settings file or the install secret lies
// under it (real paths, so symbolic links on either side change nothing):
// 503 CONFIG_INVALID, the reason with both paths in the error log, and
// /api/health's failed check "files" naming which file, without a path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { newContext, checkError, programPath } from '../lib/cgi.mjs';

const PG = !!process.env.BURNLINK_TEST_PG;

// A context with a document root directory of its own, outside the data.
function site() {
	const ctx = newContext();
	const docroot = path.join(ctx.dir, 'htdocs');
	fs.mkdirSync(docroot);
	return { ctx, docroot };
}

// Asserts that a request is refused because of `what`, logged with `file`
// (untouched: checked by untouched() before health, which opens the stores).
async function refused(ctx, env, what, file, untouched = () => {}) {
	const res = await ctx.create({ text: 'x' }, { env });
	untouched();
	checkError(assert, res, 503, 'CONFIG_INVALID');
	assert.match(res.stderr, new RegExp(`files: ${what} \\(${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) lies under the document root`), res.stderr);
	const h = await ctx.run('health', { env });
	assert.equal(h.status, 503, h.body.toString());
	assert.ok(h.json.failed.includes('files'), JSON.stringify(h.json));
	assert.equal(h.json.checks.files.ok, false);
	assert.equal(h.json.checks.files.error,
		`${what} lies under the web server's document root, where anyone can download it: move it out`);
	assert.ok(!h.body.toString().includes(ctx.dir), 'no path in the public answer');
	assert.match(h.stderr, /files: .* lies under the document root/);
	return res;
}

test('data outside the document root: served as before, health ok', async () => {
	const { ctx, docroot } = site();
	const res = await ctx.create({ text: 'x' }, { env: { DOCUMENT_ROOT: docroot } });
	assert.equal(res.status, 200, res.body.toString());
	const h = await ctx.run('health', { env: { DOCUMENT_ROOT: docroot } });
	assert.equal(h.json.checks.files.ok, true, JSON.stringify(h.json));
	assert.ok(!h.json.failed.includes('files'));
});

test('no DOCUMENT_ROOT (burnlink-admin, cron, a server that sends none): no check', async () => {
	const { ctx } = site();
	assert.equal((await ctx.create({ text: 'x' })).status, 200);
});

test('a database named x.sqlite inside the document root: 503, nothing created', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx, docroot } = site();
	const db = path.join(docroot, 'data', 'x.sqlite');
	fs.mkdirSync(path.dirname(db));
	const env = { DOCUMENT_ROOT: docroot, BURNLINK_DB: db, BURNLINK_SECRET_FILE: path.join(ctx.dir, 'secret.key') };
	await refused(ctx, env, 'the database', db, () => assert.ok(!fs.existsSync(db), 'the database was not even created'));
});

test('the document root is the data directory itself; or reached through a symbolic link', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx } = site();
	await refused(ctx, { DOCUMENT_ROOT: ctx.dir }, 'the database', ctx.db);
	const link = path.join(ctx.dir, 'htdocs', 'www');
	fs.symlinkSync(ctx.dir, link);
	await refused(ctx, { DOCUMENT_ROOT: link + '/' }, 'the database', ctx.db);
	// A database path through a link into the document root.
	const inside = path.join(ctx.dir, 'htdocs', 'data');
	fs.mkdirSync(inside);
	const viaLink = path.join(ctx.dir, 'outside');
	fs.symlinkSync(inside, viaLink);
	await refused(ctx, { DOCUMENT_ROOT: path.join(ctx.dir, 'htdocs'), BURNLINK_DB: path.join(viaLink, 'b.db'),
		BURNLINK_SECRET_FILE: path.join(ctx.dir, 'secret.key') }, 'the database', path.join(inside, 'b.db'));
});

test('the database outside, its WAL inside (a link in place of the -wal file)', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx, docroot } = site();
	assert.equal((await ctx.create({ text: 'x' })).status, 200);
	fs.rmSync(ctx.db + '-wal', { force: true });
	const wal = path.join(docroot, 'burnlink.db-wal');
	fs.writeFileSync(wal, '');
	fs.symlinkSync(wal, ctx.db + '-wal');
	await refused(ctx, { DOCUMENT_ROOT: docroot }, "the database's WAL", wal);
});

test('the database outside, its keys inside (a link in place of the -keys file)', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx, docroot } = site();
	assert.equal((await ctx.create({ text: 'x' })).status, 200);
	const keys = path.join(docroot, 'burnlink.db-keys');
	fs.renameSync(ctx.db + '-keys', keys);
	fs.symlinkSync(keys, ctx.db + '-keys');
	await refused(ctx, { DOCUMENT_ROOT: docroot }, "the secrets' keys", keys);
});

test('the settings file inside the document root', async () => {
	const { ctx, docroot } = site();
	const conf = path.join(docroot, 'settings.txt');
	fs.writeFileSync(conf, '# nothing\n');
	await refused(ctx, { DOCUMENT_ROOT: docroot, BURNLINK_CONFIG: conf }, 'the settings file', conf);
});

test('the install secret inside the document root (before it exists, too)', async () => {
	const { ctx, docroot } = site();
	const secret = path.join(docroot, 'install-secret');
	// (the settings file named outside: with PostgreSQL its default place is beside the install secret)
	const conf = path.join(ctx.dir, 'outside.conf');
	fs.writeFileSync(conf, '# nothing\n');
	await refused(ctx, { DOCUMENT_ROOT: docroot, BURNLINK_SECRET_FILE: secret, BURNLINK_CONFIG: conf },
		'the install secret', secret,
		() => assert.ok(!fs.existsSync(secret), 'not written'));
});

test('BURNLINK_DOCUMENT_ROOT: for a server that passes the program\'s directory as DOCUMENT_ROOT (lighttpd)', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx, docroot } = site();
	const db = path.join(docroot, 'x.db');
	const cgi = path.join(ctx.dir, 'cgi-bin');
	fs.mkdirSync(cgi);
	await refused(ctx, { DOCUMENT_ROOT: cgi, BURNLINK_DOCUMENT_ROOT: docroot, BURNLINK_DB: db,
		BURNLINK_SECRET_FILE: path.join(ctx.dir, 'secret.key') }, 'the database', db);
	assert.equal((await ctx.create({ text: 'x' }, { env: { DOCUMENT_ROOT: cgi, BURNLINK_DOCUMENT_ROOT: docroot } })).status, 200);
});

test('a sibling whose name starts like the document root is not under it', { skip: PG && 'an SQLite path' }, async () => {
	const { ctx } = site();
	const docroot = path.join(ctx.dir, 'burn');	// ctx.dir/burnlink.db starts with it
	fs.mkdirSync(docroot);
	assert.equal((await ctx.create({ text: 'x' }, { env: { DOCUMENT_ROOT: docroot } })).status, 200);
});

// The check costs every CGI request (issue 36): the data files share a
// directory, which is resolved once, and each file's own name is looked at
// with one readlink() (a link is resolved whole, as the tests above need);
// realpath() of each file read every component of its path again (31
// readlink() calls a request with the data in /tmp/x/data/, 23 here).
test('the data files cost one readlink() each, their directory is resolved once', { skip: PG && 'an SQLite path' }, async (t) => {
	try {
		execFileSync('strace', ['-qq', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
	} catch {
		t.skip('strace cannot run here');
		return;
	}
	const { ctx, docroot } = site();
	assert.equal((await ctx.create({ text: 'x' })).status, 200);	// the database, its WAL and keys exist
	const trace = path.join(ctx.dir, 'readlink.trace');
	const out = execFileSync('strace', ['-f', '-qq', '-e', 'trace=readlink,readlinkat', '-o', trace,
		programPath('metadata')], {
		input: '',
		env: { PATH: process.env.PATH, GATEWAY_INTERFACE: 'CGI/1.1', REQUEST_METHOD: 'GET',
			REMOTE_ADDR: '192.0.2.10', HTTP_HOST: 'burnlink.test', SCRIPT_NAME: '/cgi-bin/metadata',
			PATH_INFO: '/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', BURNLINK_SELF_WORK: 'off',
			BURNLINK_DB: ctx.db, DOCUMENT_ROOT: docroot,
			// (LeakSanitizer cannot run under ptrace: the asan suite's build)
			ASAN_OPTIONS: 'detect_leaks=0' },
	}).toString();
	assert.match(out, /^Status: 404/, out);	// served: no file is under the document root
	const calls = fs.readFileSync(trace, 'utf8').split('\n')
		.filter((l) => /readlink/.test(l) && !l.includes('/proc/self/exe'));
	const depth = (p) => fs.realpathSync(p).split('/').filter(Boolean).length;
	// the document root's components, the data directory's, one per data file (six)
	assert.ok(calls.length <= depth(docroot) + depth(ctx.dir) + 6, `${calls.length} calls:\n${calls.join('\n')}`);
});
