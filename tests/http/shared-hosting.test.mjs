// shared-hosting.test.mjs: the `make dist` tarball installed as INSTALL section
// 6 says, on two simulated Apache hosts with nothing but .htaccess files and no
// cron at all: (A) CGI runs as the owner of the files (suEXEC: the tree is the
// web server's user's, var/ 0700), (B) CGI runs as a web-server user shared
// with other customers (the tree belongs to a customer uid, var/ 0777). Each at
// the document root and under a sub-path (/burnlink/, site_url in
// var/burnlink.conf): a secret made and read (the page, the API, the CLI),
// /api/health naming the kind of host, an expired secret removed and a read
// receipt mailed by the programs themselves, the first operator account made
// through /setup with an uploaded burnlink-setup (INSTALL 6j), and nothing of
// var/ downloadable. Runs as root with BURNLINK_SERVER=htaccess.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIND, api, create } from './helpers.mjs';
import { ROOT, startServer, rawRequest } from '../lib/server.mjs';

const skip = (KIND !== 'htaccess' && 'only with BURNLINK_SERVER=htaccess') ||
	(process.getuid() !== 0 && 'needs root (owners of the simulated hosts)');
const CUSTOMER = 4242;	// the shared host's customer: a uid of its own, not the web server's
let tmp, tarball;

before(() => {
	if (skip) return;
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-shared-'));
	fs.chmodSync(tmp, 0o755);
	execFileSync('sh', [path.join(ROOT, 'scripts/dist.sh')], {
		cwd: ROOT, env: { ...process.env, BURNLINK_DIST_DIR: tmp, BURNLINK_QUIET: '1' }, stdio: ['ignore', 'ignore', 'pipe'],
	});
	tarball = path.join(tmp, fs.readdirSync(tmp).find((f) => f.endsWith('.tar.gz')));
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

const www = () => ({
	uid: Number(execFileSync('id', ['-u', 'www-data']).toString()),
	gid: Number(execFileSync('id', ['-g', 'www-data']).toString()),
});

// Unpacks the tarball as a customer uploads it: kind 'owner' or 'shared', at sub ('' or 'burnlink').
function install(kind, sub) {
	const dir = fs.mkdtempSync(path.join(tmp, `${kind}-`));
	fs.chmodSync(dir, 0o755);
	execFileSync('tar', ['-xzf', tarball, '-C', dir]);
	const tree = path.join(dir, fs.readdirSync(dir)[0]);
	if (sub) {
		// The pages into public_html/<sub>/, the .htaccess unchanged (INSTALL 6f).
		const pages = path.join(tree, 'htdocs-pages');
		fs.renameSync(path.join(tree, 'htdocs'), pages);
		fs.mkdirSync(path.join(tree, 'htdocs'), { mode: 0o755 });
		fs.renameSync(pages, path.join(tree, 'htdocs', sub));
	}
	// The customer's own settings: the address with its sub-path (INSTALL 6e).
	fs.writeFileSync(path.join(tree, 'var', 'burnlink.conf'), 'site_url = https://example.org' + (sub ? `/${sub}` : '') + '\n', { mode: 0o644 });
	const owner = kind === 'owner' ? www() : { uid: CUSTOMER, gid: CUSTOMER };
	execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, tree]);
	fs.chmodSync(path.join(tree, 'var'), kind === 'owner' ? 0o700 : 0o777);
	return tree;
}

// Runs sqlite3 on the database as the web server's user (its files are that user's).
function sqlAs(db, q) {
	return execFileSync('setpriv', ['--reuid=www-data', '--regid=www-data', '--init-groups', 'sqlite3', db, q], { encoding: 'utf8' });
}

async function until(cond, what, ms = 60000) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

for (const kind of ['owner', 'shared']) {
	for (const sub of ['', 'burnlink']) {
		describe(`host with CGI as ${kind === 'owner' ? 'the owner (suEXEC)' : 'a shared web-server user'}, at ${sub ? `/${sub}/` : 'the root'}`, { skip }, () => {
			let srv, tree, prefix, mails;
			before(async () => {
				tree = install(kind, sub);
				prefix = sub ? `/${sub}` : '';
				// The host's mailer, captured: each mail a file the web server's user writes.
				mails = fs.mkdtempSync(path.join(tmp, 'mails-'));
				fs.chmodSync(mails, 0o777);
				const mailer = path.join(tmp, 'capture-mail');
				fs.writeFileSync(mailer, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\n', { mode: 0o755 });
				srv = await startServer({ server: 'htaccess', tree, env: { BURNLINK_SELF_WORK: 'on', BURNLINK_SENDMAIL: `${mailer} ${mails}` } });
			});
			after(async () => { await srv?.stop(); });

			test('the page and a secret made and read', async () => {
				const page = await fetch(`${srv.base}${prefix}/`);
				assert.equal(page.status, 200);
				const c = await api(srv, 'POST', `${prefix}/api/secrets`, { json: { text: 'on a shared host' } });
				assert.equal(c.status, 200, c.text);
				assert.ok(c.body.secretUrl.startsWith(`https://example.org${prefix}/secret/`), c.body.secretUrl);
				const r = await api(srv, 'POST', `${prefix}/api/secrets/${c.body.metadata.secretKey}`, { json: {} });
				assert.equal(r.status, 200, r.text);
				const rp = await fetch(`${srv.base}${prefix}/secret/${c.body.metadata.secretKey}`);
				assert.equal(rp.status, 200);
			});
			test('the CLI sends and reads a secret at the site\'s address (its sub-path too)', async () => {
				const cli = (args, input) => spawnSync(process.execPath, [path.join(ROOT, 'cli', 'burnlink.mjs'), ...args], {
					encoding: 'utf8', input, env: { PATH: process.env.PATH, HOME: tmp },
				});
				const sent = cli(['--url', `${srv.base}${prefix}`, '-'], 'from the CLI\n');
				assert.equal(sent.status, 0, sent.stderr);
				const link = sent.stdout.trim();
				assert.ok(link.startsWith(`https://example.org${prefix}/secret/`), link);
				// The link names the site's public address: reach it at the test server's.
				const got = cli(['get', link.replace('https://example.org', srv.base)]);
				assert.equal(got.status, 0, got.stderr);
				assert.equal(got.stdout, 'from the CLI\n');
			});
			test('/api/health names the kind of host', async () => {
				const h = await api(srv, 'GET', `${prefix}/api/health`);
				assert.equal(h.body.host.runsAs, kind, h.text);
				assert.equal(h.body.host.dataPrivate, kind === 'owner');
			});
			test('no cron: an expired secret is removed by the programs themselves', async () => {
				const c = await api(srv, 'POST', `${prefix}/api/secrets`, { json: { text: 'expires' } });
				assert.equal(c.status, 200);
				const db = path.join(tree, 'var', 'burnlink.db');
				sqlAs(db, `UPDATE secrets SET expires_at = ${Date.now() - 1000} WHERE id = (SELECT id FROM secrets ORDER BY created_at DESC, id DESC LIMIT 1)`);
				const then = new Date(Date.now() - 90 * 60e3);
				fs.utimesSync(path.join(tree, 'var', 'secret.key'), then, then);
				for (const f of ['burnlink-cleanup', 'burnlink-notify']) fs.rmSync(path.join(tree, 'var', f), { force: true });
				assert.equal((await api(srv, 'GET', `${prefix}/api/config`)).status, 200);
				await until(() => fs.existsSync(path.join(tree, 'var', 'burnlink-cleanup')), 'the cleanup record');
				await until(() => fs.existsSync(path.join(tree, 'var', 'burnlink-notify')), 'the notify record (the helper\'s last file)');
				const m = await api(srv, 'GET', `${prefix}/api/secrets/${c.body.metadata.key}`);
				assert.equal(m.status, 404, 'removed, not only expired');
				assert.equal((await api(srv, 'GET', `${prefix}/api/health`)).body.checks.cleanup.ok, true);
			});
			test('no cron: a read receipt is mailed by the programs themselves', async () => {
				assert.equal((await api(srv, 'GET', `${prefix}/api/config`)).status, 200);
				// An account with a verified address and a key, as burnlink-admin makes them
				// (run here as the programs' user, whose files the database's are).
				const admin = (...args) => execFileSync('setpriv', ['--reuid=www-data', '--regid=www-data', '--init-groups',
					path.join(tree, 'bin', 'burnlink-admin'), '--db', path.join(tree, 'var', 'burnlink.db'), ...args],
				{ encoding: 'utf8', env: { PATH: process.env.PATH, BURNLINK_SELF_WORK: 'off' } });
				admin('account', 'create', 'alice');
				admin('account', 'email', 'alice', 'alice@example.org');
				const key = JSON.parse(admin('--json', 'key', 'issue', 'alice')).key;
				const c = await api(srv, 'POST', `${prefix}/api/secrets`, {
					json: { text: 'read me', notify: ['email'] }, headers: { Authorization: `Bearer ${key}` },
				});
				assert.equal(c.status, 200, c.text);
				const r = await api(srv, 'POST', `${prefix}/api/secrets/${c.body.metadata.secretKey}`, { json: {} });
				assert.equal(r.status, 200, r.text);
				// The deliveries due: no run recorded lately (the install secret 90 minutes old).
				fs.rmSync(path.join(tree, 'var', 'burnlink-notify'), { force: true });
				const then = new Date(Date.now() - 90 * 60e3);
				fs.utimesSync(path.join(tree, 'var', 'secret.key'), then, then);
				if (fs.existsSync(path.join(tree, 'var', 'burnlink-work'))) fs.utimesSync(path.join(tree, 'var', 'burnlink-work'), then, then);
				assert.equal((await api(srv, 'GET', `${prefix}/api/config`)).status, 200);
				const list = () => fs.readdirSync(mails).map((f) => fs.readFileSync(path.join(mails, f), 'utf8'));
				await until(() => list().some((m) => /^Subject: Your secret was viewed for the last time$/m.test(m)), 'the read receipt');
				const mail = list().find((m) => /^Subject: Your secret was viewed/m.test(m));
				assert.match(mail, /^To: alice@example\.org$/m);
				await until(() => fs.existsSync(path.join(tree, 'var', 'burnlink-notify')), 'the notify record');
			});
			// INSTALL 6j: the first operator's account without a shell.
			test('setup: upload burnlink-setup, open /setup, the operator account made, the file gone', async () => {
				const code = 'Vx4Nq8Lt2Wm6Hb9Rk3Fz7Pd1Gs5Jc0Ye';
				assert.equal((await api(srv, 'GET', `${prefix}/api/setup`)).body.open, false);
				const f = path.join(tree, 'var', 'burnlink-setup');
				fs.writeFileSync(f, code + '\n', { mode: 0o644 });
				const owner = kind === 'owner' ? www() : { uid: CUSTOMER, gid: CUSTOMER };
				fs.chownSync(f, owner.uid, owner.gid);
				const page = await fetch(`${srv.base}${prefix}/setup`);
				assert.equal(page.status, 200);
				assert.match(await page.text(), /assets\/setup\.js/);
				assert.equal((await api(srv, 'GET', `${prefix}/api/setup`)).body.open, true);
				const check = await api(srv, 'POST', `${prefix}/api/setup`, { json: { code } });
				assert.equal(check.status, 200, check.text);
				const { file, ...rest } = check.body.settings;
				assert.equal(path.resolve(file), path.join(tree, 'var', 'burnlink.conf'));
				assert.deepEqual(rest, { loaded: true, ok: true, line: null, error: null });
				const made = await api(srv, 'POST', `${prefix}/api/setup`, { json: { code, name: 'op@example.org', password: 'a long enough password' } });
				assert.equal(made.status, 200, made.text);
				assert.equal(fs.existsSync(f), false);
				assert.equal(sqlAs(path.join(tree, 'var', 'burnlink.db'), "SELECT admin FROM accounts WHERE name = 'op@example.org'").trim(), '1');
				assert.equal((await api(srv, 'GET', `${prefix}/api/setup`)).body.open, false);
			});
			test('nothing of var/ can be downloaded', async () => {
				for (const f of fs.readdirSync(path.join(tree, 'var'))) {
					for (const p of [`/${f}`, `${prefix}/${f}`, `/var/${f}`, `${prefix}/var/${f}`, `/cgi-bin/../var/${f}`]) {
						const r = await rawRequest(srv.base, { path: p });
						assert.notEqual(r.status, 200, `${p}: ${r.status}`);
					}
				}
			});
		});
	}
}
