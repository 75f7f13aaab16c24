// Sign-in through the web server in Debian's chromium: lighttpd's mod_auth
// with a user file in front (conf/lighttpd-signin.conf.in), password sign-in
// off. The browser answers the web server's password prompt; the dashboard
// signs the person in from REMOTE_USER, they create a secret and an API key;
// another person reads the link in a fresh browser without signing in; curl
// creates with the key; a user of another e-mail domain sees why they are
// refused; sign-out goes to the web server's logout address.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { missing, launch, newContext, createSecret, shown, openLink, axeViolations, ROOT } from './helpers.mjs';

const skip = missing();
const LOGOUT = '/receipt/signed-out-of-the-web-server';

describe('sign-in through the web server', { skip: skip || false }, () => {
	let srv, browser, dir;

	before(async () => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-websignin-'));
		fs.chmodSync(dir, 0o755);
		const users = path.join(dir, 'users');
		fs.writeFileSync(users, 'alice@example.org:alice password\nbob@other.test:bob password\n', { mode: 0o644 });
		const settings = path.join(dir, 'burnlink.conf');
		fs.writeFileSync(settings, ['signin_webserver = yes', 'webserver_create = yes', 'create = accounts',
			'signin_password = no', 'allowed_domains = example.org', `webserver_logout = ${LOGOUT}`, ''].join('\n'), { mode: 0o644 });
		const extra = execFileSync('sh', [path.join(ROOT, 'scripts/genconf.sh'), path.join(ROOT, 'conf/lighttpd-signin.conf.in')],
			{ env: { ...process.env, BL_USERFILE: users } }).toString();
		srv = await startServer({ server: 'lighttpd', lighttpdExtra: extra, env: { BURNLINK_CONFIG: settings } });
		browser = await launch();
	});
	after(async () => {
		await browser?.close();
		await srv?.stop();
		if (dir) fs.rmSync(dir, { recursive: true, force: true });
	});

	function person(name, password, opts = {}) {
		return newContext(browser, { ...opts, context: { httpCredentials: { username: name, password } } });
	}

	test('signed in by the web server: create, "my secrets", an API key; anyone reads; curl creates; sign-out', async () => {
		const ctx = await person('alice@example.org', 'alice password');
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'dashboard-view');
		assert.equal(await page.textContent('#account-email'), 'alice@example.org');
		assert.equal(await page.isVisible('#password-box'), false, 'no password to change');
		assert.deepEqual(await axeViolations(page), [], 'dashboard, light');

		const made = await createSecret(page, srv.base, { text: 'for the team' });
		assert.match(await page.textContent('#account-nav'), /alice@example\.org/);

		await page.goto(srv.base + '/dashboard');
		await shown(page, 'dashboard-view');
		await page.waitForFunction(() => document.querySelectorAll('#secrets-body tr').length === 1);
		await page.fill('#key-name', 'ci');
		await page.click('#key-create');
		await page.locator('#new-key').waitFor({ state: 'visible' });
		const key = await page.inputValue('#new-key-value');
		assert.match(key, /^bl_[A-Za-z0-9_-]{43}$/);

		// another person, a fresh browser without credentials, reads the link
		const other = await newContext(browser);
		const reader = await other.newPage();
		await openLink(reader, made.link);
		await reader.click('#reveal-button');
		await shown(reader, 'secret-view');
		assert.equal(await reader.textContent('#secret-text'), 'for the team');

		// curl with the key creates; without it (or with a claimed user) it may not
		const withKey = await fetch(`${srv.base}/api/secrets`, { method: 'POST',
			headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: JSON.stringify({ text: 'ci' }) });
		assert.equal(withKey.status, 200);
		const anon = await fetch(`${srv.base}/api/secrets`, { method: 'POST',
			headers: { 'Content-Type': 'application/json', 'Remote-User': 'alice@example.org' }, body: JSON.stringify({ text: 'x' }) });
		assert.equal(anon.status, 401);
		assert.equal((await anon.json()).code, 'NOT_SIGNED_IN');

		// sign-out: burnlink's session ends, then the web server's logout address
		await page.click('#signout-button');
		await page.waitForURL((u) => u.pathname === LOGOUT);
		const left = await ctx.request.get(srv.base + '/api/my/secrets');
		assert.equal(left.status(), 401);
		await ctx.close();
		await other.close();
	});

	test('a person the settings do not let in sees why, in light and dark; keyboard reaches it', async () => {
		for (const colorScheme of ['light', 'dark']) {
			const ctx = await person('bob@other.test', 'bob password', { colorScheme });
			const page = await ctx.newPage();
			await page.goto(srv.base + '/dashboard');
			await shown(page, 'signin-view');
			const box = page.locator('#webserver-message');
			await box.waitFor({ state: 'visible' });
			assert.match(await box.textContent(), /not accepted here/);
			assert.match(await box.textContent(), /other\.test/);
			assert.equal(await page.isVisible('#signin-form'), false, 'password sign-in is off');
			assert.deepEqual(await axeViolations(page), [], `refused, ${colorScheme}`);
			await page.keyboard.press('Tab');
			assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link');
			await ctx.close();
		}
	});
});
