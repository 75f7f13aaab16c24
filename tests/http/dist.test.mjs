// dist.test.mjs: the `make dist` tarball, unpacked as a shared host would get
// it, served by Apache through its .htaccess files alone, with no setting at
// all: the programs find ../var/burnlink.db beside their cgi-bin. Runs with
// BURNLINK_SERVER=htaccess (the other servers do not read .htaccess files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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
