// The operator's page /admin in Debian's chromium against lighttpd and the
// real programs, in one session that covers the flow (docs/ADMIN.md, "The
// admin page"): an administrator finds an account, disables it (that
// person's sign-in and API key then fail), revokes a key, reads the activity
// of a secret, unblocks an address; a non-administrator is told so and gets
// 403 from every /api/admin/ endpoint; axe in every state, light and dark,
// and at 360 px.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { missing, serverAndBrowser, newContext, shown, axeViolations, PHONE, ROOT } from './helpers.mjs';

const skip = missing();
const PASSWORD = 'a long enough password';

// burnlink-admin on the test server's database, as the server's user.
function admin(srv, args, input = '') {
	const env = { ...process.env, BURNLINK_DB: srv.db, BURNLINK_SECRET_FILE: path.join(path.dirname(srv.db), 'secret.key') };
	const argv = [path.join(ROOT, 'tools', 'burnlink-admin')];
	if (typeof process.getuid === 'function' && process.getuid() === 0 && srv.user && srv.user !== 'root')
		argv.unshift('runuser', '-u', srv.user, '--');
	return execFileSync(argv[0], [...argv.slice(1), ...args], { env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

function account(srv, email, { isAdmin = false } = {}) {
	admin(srv, ['account', 'create', email]);
	admin(srv, ['account', 'password', email], PASSWORD + '\n');
	if (isAdmin)
		admin(srv, ['account', 'admin', email, 'on']);
}

async function signIn(page, base, email) {
	await page.goto(base + '/dashboard');
	await shown(page, 'signin-view');
	await page.fill('#signin-email', email);
	await page.fill('#signin-password', PASSWORD);
	await page.click('#signin-button');
	await shown(page, 'dashboard-view');
}

async function axeBoth(page, what) {
	for (const scheme of ['light', 'dark']) {
		await page.emulateMedia({ colorScheme: scheme });
		assert.deepEqual(await axeViolations(page), [], `${what}, ${scheme}`);
	}
	await page.emulateMedia({ colorScheme: 'light' });
}

// The API key of a signed-in person, from the page's own API.
async function keyOf(page) {
	return page.evaluate(async () => {
		const s = await (await fetch('/api/session')).json();
		const r = await fetch('/api/keys', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrfToken }, body: JSON.stringify({ name: 'deploys' }) });
		return (await r.json()).key;
	});
}

async function createWithKey(base, key) {
	const r = await fetch(`${base}/api/secrets`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: JSON.stringify({ text: 'from CI' }) });
	return { status: r.status, json: await r.json() };
}

describe('the admin page', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser({}, (s, b) => { srv = s; browser = b; });

	test('an administrator finds, disables and enables an account, revokes its key, reads a secret\'s activity, unblocks an address; a non-administrator is refused', async () => {
		account(srv, 'ops@example.org', { isAdmin: true });
		account(srv, 'pat@example.org');

		// The person: a key, and a secret with a receipt id.
		const pctx = await newContext(browser, { context: { reducedMotion: 'reduce' } });	// colours measured as they settle
		const pp = await pctx.newPage();
		await signIn(pp, srv.base, 'pat@example.org');
		const key = await keyOf(pp);
		assert.equal((await createWithKey(srv.base, key)).status, 200);
		admin(srv, ['account', 'email', 'pat@example.org', 'pat@example.org']);
		const receipt = await pp.evaluate(async () => {
			const s = await (await fetch('/api/session')).json();
			const r = await fetch('/api/secrets', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrfToken }, body: JSON.stringify({ text: 'for the audit', notify: ['email'] }) });
			return (await r.json()).metadata.receiptId;
		});
		assert.match(receipt, /^rcp_/);

		// A non-administrator: the page says so, and every endpoint answers 403.
		await pp.goto(srv.base + '/admin');
		await shown(pp, 'refused-view');
		assert.equal(await pp.getAttribute('#refused-title', 'data-i18n'), 'admin.notAdminTitle');
		await axeBoth(pp, 'not an administrator');
		const routes = JSON.parse(fs.readFileSync(path.join(ROOT, 'build', 'routes', 'routes.json'), 'utf8')).routes
			.filter((r) => r.url.startsWith('/api/admin/'));
		const statuses = await pp.evaluate(async (urls) => {
			const s = await (await fetch('/api/session')).json();
			const out = [];
			for (const [method, url] of urls)
				out.push((await fetch(url, { method, headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrfToken },
					body: method === 'GET' ? undefined : JSON.stringify({ action: 'disable', ip: '192.0.2.1', currentPassword: 'a long enough password' }) })).status);
			return out;
		}, routes.flatMap((r) => [
			...r.allow.split(', ').filter((m) => m !== 'HEAD').map((m) => [m, r.url]),
			...(r.allowItem || '').split(', ').filter((m) => m && m !== 'HEAD').map((m) => [m, r.url + '/1']),
		]));
		assert.ok(statuses.length >= 10);
		assert.deepEqual([...new Set(statuses)], [403]);

		// The administrator.
		const actx = await newContext(browser, { context: { reducedMotion: 'reduce' } });	// colours measured as they settle
		const page = await actx.newPage();
		await signIn(page, srv.base, 'ops@example.org');
		await page.goto(srv.base + '/admin');
		await shown(page, 'admin-view');
		await page.locator('#accounts-body tr').first().waitFor();
		assert.match(await page.textContent('#ov-health'), /\S/);
		await axeBoth(page, 'the admin page');

		// Find the account, keyboard only, and open it.
		await page.focus('#search-q');
		await page.keyboard.type('pat');
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => document.querySelectorAll('#accounts-body tr').length === 1);
		assert.match(await page.textContent('#accounts-body tr'), /pat@example\.org/);
		await page.locator('#accounts-body tr button').focus();
		await page.keyboard.press('Enter');
		await shown(page, 'account-detail');
		assert.equal(await page.textContent('#detail-title'), 'pat@example.org');
		assert.equal(await page.locator('#keys-body tr').count(), 1);
		assert.equal(await page.textContent('#keys-body code'), key.slice(0, 11) + '…');
		await axeBoth(page, 'an account open');

		// Disable: the password first.
		await page.click('#act-disable');
		await page.locator('#admin-message').waitFor({ state: 'visible' });
		assert.equal(await page.getAttribute('#admin-message strong', 'data-i18n'), 'admin.confirmNeeded');
		await page.fill('#confirm-password', PASSWORD);
		await page.click('#act-disable');
		await shown(page, 'act-enable');
		assert.equal((await createWithKey(srv.base, key)).json.code, 'ACCOUNT_DISABLED');
		const again = await newContext(browser, { context: { reducedMotion: 'reduce' } });	// colours measured as they settle
		const ap = await again.newPage();
		await ap.goto(srv.base + '/dashboard');
		await shown(ap, 'signin-view');
		await ap.fill('#signin-email', 'pat@example.org');
		await ap.fill('#signin-password', PASSWORD);
		const signin = ap.waitForResponse((r) => r.url().endsWith('/api/session') && r.request().method() === 'POST');
		await ap.click('#signin-button');
		assert.equal((await signin).status(), 401);
		await again.close();
		await page.click('#act-enable');
		await shown(page, 'act-disable');
		assert.equal((await createWithKey(srv.base, key)).status, 200);

		// Revoke the key.
		await page.locator('#keys-body button').click();
		await page.locator('#keys-body td', { hasText: /\S/ }).last().waitFor();
		await page.waitForFunction(() => !document.querySelector('#keys-body button'));
		assert.equal((await createWithKey(srv.base, key)).json.code, 'INVALID_API_KEY');

		// The activity of the secret, by its receipt id.
		await page.fill('#f-receipt', receipt);
		await page.click('#activity-form button[type=submit]');
		await page.waitForFunction(() => [...document.querySelectorAll('#events-body code')].every((c) => c.textContent.startsWith('secret.')) &&
			document.querySelectorAll('#events-body tr').length > 0);
		const kinds = await page.$$eval('#events-body code', (cs) => cs.map((c) => c.textContent));
		assert.deepEqual(kinds, ['secret.created']);
		assert.match(await page.getAttribute('#activity-csv', 'href'), new RegExp(`receipt=${receipt}.*format=csv`));
		// the administrator's own actions are events too
		await page.fill('#f-receipt', '');
		await page.fill('#f-kind', 'admin.command');
		await page.click('#activity-form button[type=submit]');
		await page.waitForFunction(() => [...document.querySelectorAll('#events-body code')].every((c) => c.textContent === 'admin.command'));
		assert.ok(await page.locator('#events-body tr').count() >= 3, 'disable, enable, key revoke');

		// Unblock an address whose creations are counted.
		for (let i = 0; i < 2; i++)
			await fetch(`${srv.base}/api/secrets`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'x' }) });
		await page.fill('#client-ip', '127.0.0.1');
		await page.click('#client-form button[type=submit]');
		await shown(page, 'client-result');
		const count = () => page.locator('#client-body tr', { hasText: 'create' }).first().locator('td').nth(1).textContent();
		assert.notEqual(await count(), '0 of 1000');
		await page.click('#client-unblock');
		await page.waitForFunction(() => /^0\b/.test(document.querySelector('#client-body tr td:nth-child(2)').textContent));
		await axeBoth(page, 'after the actions');

		// 360 px wide: nothing wider than the screen.
		await page.setViewportSize(PHONE);
		const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
		assert.ok(overflow <= 0, `the page is ${overflow} px wider than 360`);
		assert.deepEqual(await axeViolations(page), [], 'at 360 px');

		await actx.close();
		await pctx.close();
	});
});
