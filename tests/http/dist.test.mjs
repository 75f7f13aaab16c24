// dist.test.mjs: the `make dist` tarball, unpacked as a shared host would get
// it, served by Apache through its .htaccess files alone, with no setting at
// all: the programs find ../var/burnlink.db beside their cgi-bin. Runs with
// BURNLINK_SERVER=htaccess (the other servers do not read .htaccess files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIND, start, api, create } from './helpers.mjs';
import { ROOT } from '../lib/server.mjs';

test(`${KIND}: the make dist tree serves through its .htaccess files with no settings`, { skip: KIND !== 'htaccess' && 'only with BURNLINK_SERVER=htaccess' }, async () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-dist-'));
	let srv;
	try {
		fs.chmodSync(tmp, 0o755);
		execFileSync('sh', [path.join(ROOT, 'scripts/dist.sh')], {
			cwd: ROOT,
			env: { ...process.env, BURNLINK_DIST_DIR: tmp, BURNLINK_QUIET: '1' },
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		const tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tar.gz'));
		assert.ok(tarball, 'dist.sh made a tarball');
		execFileSync('tar', ['-xzf', path.join(tmp, tarball), '-C', tmp]);
		const tree = path.join(tmp, tarball.replace(/\.tar\.gz$/, ''));
		for (const d of ['htdocs', 'cgi-bin', 'var', 'bin']) assert.ok(fs.existsSync(path.join(tree, d)), d);
		// Complete: a versioned name, checksums, every program static and stripped, the operator's tools.
		assert.match(tarball, /^burnlink-\d+\.\d+\.\d+(-g[0-9a-f]+(-dirty)?)?\.tar\.gz$/);
		execFileSync('sha256sum', ['-c', `${tarball}.sha256`], { cwd: tmp, stdio: 'ignore' });
		execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: tree, stdio: 'ignore' });
		assert.ok(fs.existsSync(path.join(tree, 'etc', 'burnlink.conf.example')));
		const programs = [...fs.readdirSync(path.join(tree, 'cgi-bin')).filter((f) => !f.startsWith('.')).map((f) => `cgi-bin/${f}`),
			...fs.readdirSync(path.join(tree, 'bin')).map((f) => `bin/${f}`)];
		for (const p of ['bin/cleanup', 'bin/notify', 'bin/burnlink-admin', 'cgi-bin/create']) assert.ok(programs.includes(p), p);
		for (const p of programs) {
			const elf = execFileSync('readelf', ['-lS', path.join(tree, p)], { encoding: 'utf8' });
			assert.doesNotMatch(elf, /INTERP|\.dynamic /, `${p} is static`);
			assert.doesNotMatch(elf, /\.symtab|\.debug_info/, `${p} is stripped`);
		}
		// x86-64: one binary holds every program, each program's file is a stub
		// that runs it under its own name (scripts/multicall.c, scripts/stub.c).
		if (process.arch === 'x64') {
			assert.ok(programs.includes('bin/burnlink-programs'), 'the multi-call binary');
			for (const p of programs.filter((f) => f !== 'bin/burnlink-programs'))
				assert.ok(fs.statSync(path.join(tree, p)).size < 16384, `${p} is a stub`);
			const mb = fs.statSync(path.join(tmp, tarball)).size / 1048576;
			assert.ok(mb < 8, `the tarball is ${mb.toFixed(1)} MB (45 MB with a copy of the libraries per program)`);
			const none = spawnSync(path.join(tree, 'bin', 'burnlink-programs'), [], { encoding: 'utf8' });
			assert.equal(none.status, 2);
			assert.match(none.stderr, /run as one of its programs/);
		}
		assert.equal(fs.statSync(path.join(tree, 'var')).mode & 0o777, 0o700);
		assert.equal(fs.statSync(path.join(tree, 'cgi-bin', 'create')).mode & 0o777, 0o755);
		const ht = fs.readFileSync(path.join(tree, 'cgi-bin', '.htaccess'), 'utf8');
		assert.doesNotMatch(ht, /^SetEnv BURNLINK_DB/m, 'the dist tree names no database');
		// The host runs the programs as the uploading user: give var/ to the server's user.
		if (process.getuid?.() === 0) {
			const uid = Number(execFileSync('id', ['-u', 'www-data']).toString());
			const gid = Number(execFileSync('id', ['-g', 'www-data']).toString());
			fs.chownSync(path.join(tree, 'var'), uid, gid);
		}
		srv = await start({ tree });
		const c = await create(srv, { text: 'from the tarball' });
		const r = await api(srv, 'POST', `/api/secrets/${c.metadata.secretKey}`, { json: {} });
		assert.equal(r.status, 200, r.text);
		assert.ok(fs.existsSync(path.join(tree, 'var', 'burnlink.db')), 'the database is var/burnlink.db');
		const page = await fetch(`${srv.base}/secret/${c.metadata.secretKey}`);
		assert.equal(page.status, 200);
		assert.equal(page.headers.get('cache-control'), 'no-store');
	} finally {
		await srv?.stop();
		fs.rmSync(tmp, { recursive: true, force: true });
	}
});

test('dist.sh fails on a dynamically linked program', async () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-dist-dyn-'));
	try {
		// A build whose create is a dynamically linked program (the system's true).
		for (const d of ['cgi-bin', 'cron', 'tools']) fs.mkdirSync(path.join(tmp, 'build', d), { recursive: true });
		for (const p of fs.readdirSync(path.join(ROOT, 'cgi-bin')).filter((f) => !f.includes('.')))
			fs.copyFileSync(path.join(ROOT, 'cgi-bin', p), path.join(tmp, 'build', 'cgi-bin', p));
		fs.copyFileSync('/bin/true', path.join(tmp, 'build', 'cgi-bin', 'create'));
		for (const p of ['cleanup', 'notify']) fs.copyFileSync(path.join(ROOT, 'cron', p), path.join(tmp, 'build', 'cron', p));
		fs.copyFileSync(path.join(ROOT, 'tools', 'burnlink-admin'), path.join(tmp, 'build', 'tools', 'burnlink-admin'));
		for (const d of ['cgi-bin', 'cron', 'tools'])
			for (const p of fs.readdirSync(path.join(tmp, 'build', d))) fs.chmodSync(path.join(tmp, 'build', d, p), 0o755);
		const { spawnSync } = await import('node:child_process');
		const r = spawnSync('sh', [path.join(ROOT, 'scripts/dist.sh')], {
			cwd: ROOT, encoding: 'utf8',
			env: { ...process.env, BURNLINK_BIN: path.join(tmp, 'build'), BURNLINK_DIST_DIR: path.join(tmp, 'out'), BURNLINK_QUIET: '1' },
		});
		assert.notEqual(r.status, 0, 'dist.sh failed');
		assert.match(r.stderr, /cgi-bin\/create is dynamically linked/);
		assert.ok(!fs.existsSync(path.join(tmp, 'out')) || fs.readdirSync(path.join(tmp, 'out')).length === 0, 'no tarball');
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
});
