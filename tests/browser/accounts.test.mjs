// The account dashboard in Debian's chromium against lighttpd and the real
// programs: sign up and in, create an API key, use it with the CLI and curl,
// see the secrets in "My secrets" (and one made on the create page while
// signed in), burn one, revoke the key, change the password, sign out.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

import fs from 'node:fs';

import { missing, serverAndBrowser, newContext, createSecret, shown, api, axeViolations, ROOT } from './helpers.mjs';

const run = promisify(execFile);
const skip = missing();
const EMAIL = 'dana@example.org';
const PASSWORD = 'a long enough password';

// The CLI, as a user runs it; resolves to {code, stdout, stderr}.
async function cli(base, args, env = {}) {
	try {
		const r = await run(process.execPath, [path.join(ROOT, 'cli/burnlink.mjs'), '--url', base, ...args],
			{ env: { PATH: process.env.PATH, ...env }, timeout: 30000 });
		return { code: 0, stdout: r.stdout, stderr: r.stderr };
	} catch (e) {
		return { code: e.code, stdout: e.stdout || '', stderr: e.stderr || '' };
	}
}

// curl's request: POST /api/secrets with a key (server-side mode, plain text).
async function curlCreate(base, key, text) {
	const res = await fetch(`${base}/api/secrets`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
		body: JSON.stringify({ text }),
	});
	return { status: res.status, json: await res.json() };
}

async function secretRows(page) {
	await page.click('#refresh-secrets');
	await page.waitForLoadState('networkidle');
	return page.$$eval('#secrets-body tr', (rows) => rows.map((r) => ({ id: r.dataset.id, state: r.dataset.state })));
}

describe('accounts in the browser', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser({ BURNLINK_SIGNUP: 'open' }, (s, b) => { srv = s; browser = b; });

	test('sign up, create a key, use it with the CLI and curl, see and burn the secrets, revoke, sign out', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		assert.equal(await page.isVisible('#signup-form'), true, 'sign-up is open');
		assert.deepEqual(await axeViolations(page), [], 'sign-in view');

		// Sign up: the dashboard shows, with an HttpOnly, SameSite=Strict cookie.
		await page.fill('#signup-email', EMAIL);
		await page.fill('#signup-password', PASSWORD);
		await page.click('#signup-button');
		await shown(page, 'dashboard-view');
		assert.equal(await page.textContent('#account-email'), EMAIL);
		const cookies = await ctx.cookies(srv.base);
		assert.equal(cookies.length, 1);
		assert.equal(cookies[0].name, 'burnlink_session');	// plain-http loopback: no Secure, no __Host-
		assert.equal(cookies[0].httpOnly, true);
		assert.equal(cookies[0].sameSite, 'Strict');
		assert.equal(cookies[0].path, '/');
		assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session');
		assert.match(await page.textContent('#usage-hour'), /^0 of 100$/);

		// Create a key: shown once, with a copy button.
		await page.fill('#key-name', 'laptop CLI');
		await page.click('#key-create');
		await page.locator('#new-key').waitFor({ state: 'visible' });
		const key = await page.inputValue('#new-key-value');
		assert.match(key, /^bl_[A-Za-z0-9_-]{43}$/);
		assert.equal(await page.isVisible('#copy-key'), true);
		// The list is fetched again after the key is shown: wait for it.
		await page.waitForFunction(() => document.querySelector('#keys-body').textContent.includes('laptop CLI'));
		assert.match(await page.textContent('#keys-body'), /laptop CLI/);
		assert.ok(!(await page.textContent('#keys-body')).includes(key), 'the list shows only the prefix');
		assert.deepEqual(await axeViolations(page), [], 'dashboard with a new key');

		// Use it: the CLI (client-side encryption) and curl (server-side).
		const sent = await cli(srv.base, ['--json', 'made by the CLI'], { BURNLINK_API_KEY: key });
		assert.equal(sent.code, 0, sent.stderr);
		const cliLink = JSON.parse(sent.stdout).link;
		const curled = await curlCreate(srv.base, key, 'made by curl');
		assert.equal(curled.status, 200);

		// A secret made on the create page while signed in is the account's too.
		const made = await createSecret(page, srv.base, { text: 'made on the page' });
		assert.match(await page.textContent('#account-nav'), new RegExp(`Signed in as ${EMAIL}`));
		const posts = (await ctx.requests()).filter((r) => r.method === 'POST' && r.url.endsWith('/api/secrets'));
		assert.match(posts[posts.length - 1].headers['x-csrf-token'] || '', /^[A-Za-z0-9_-]{43}$/);

		// "My secrets": three receipts, no link or content anywhere on the page.
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'dashboard-view');
		let rows = await secretRows(page);
		assert.equal(rows.length, 3);
		assert.ok(rows.every((r) => r.state === 'active'));
		const html = await page.content();
		for (const needle of [made.secretKey, made.receiptKey, made.key, 'made by the CLI', 'made by curl', 'made on the page'])
			assert.ok(!html.includes(needle), `the dashboard shows ${needle}`);
		assert.match(await page.textContent('#usage-hour'), /^1 of 100$/);
		assert.match(await page.textContent('#usage-keys'), /^2 of 1000$/);
		assert.match(await page.textContent('#keys-body'), /ago|now/, 'last used is shown');
		assert.deepEqual(await axeViolations(page), [], 'dashboard with secrets');

		// Burn the CLI's secret (the oldest row): two presses.
		const oldest = rows[rows.length - 1].id;
		const burn = page.locator(`#secrets-body tr[data-id="${oldest}"] button`);
		await burn.click();
		assert.match(await burn.textContent(), /again/);
		await burn.click();
		await page.locator(`#secrets-body tr[data-id="${oldest}"][data-state="burned"]`).waitFor();
		const gone = await cli(srv.base, ['get', cliLink]);
		assert.notEqual(gone.code, 0);
		assert.match(gone.stderr, /burn/i);

		// Revoke the key: the CLI and curl get 401.
		const revoke = page.locator('#keys-body tr button');
		await revoke.click();
		await revoke.click();
		await page.locator('#keys-empty').waitFor({ state: 'visible' });
		assert.equal((await curlCreate(srv.base, key, 'after revoke')).status, 401);
		const refused = await cli(srv.base, ['after revoke'], { BURNLINK_API_KEY: key });
		assert.notEqual(refused.code, 0);
		assert.match(refused.stderr, /INVALID_API_KEY|revoked|API key/i);

		// Sign out: back to the sign-in form, the cookie gone, the API says signed out.
		await page.click('#signout-button');
		await shown(page, 'signin-view');
		assert.deepEqual(await ctx.cookies(srv.base), []);
		const me = await page.evaluate(async () => (await fetch('/api/session')).json());
		assert.equal(me.signedIn, false);
		// The create page shows a sign-in link again.
		await page.goto(srv.base + '/');
		await shown(page, 'create-view');
		await page.locator('#signin-link').waitFor();
		assert.deepEqual(ctx.problems, []);
		await ctx.close();
	});

	test('sign in with a wrong password, then the right one; change the password', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		await page.fill('#signin-email', EMAIL);
		await page.fill('#signin-password', 'not the password');
		await page.click('#signin-button');
		await page.locator('#signin-error:not([hidden])').waitFor();
		assert.match(await page.textContent('#signin-error'), /e-mail address or the password is wrong/);
		await page.fill('#signin-password', PASSWORD);
		await page.click('#signin-button');
		await shown(page, 'dashboard-view');
		// Two burned/active receipts from the first test are still listed.
		assert.equal((await secretRows(page)).length, 3);

		await page.click('.password-box summary');
		await page.fill('#current-password', PASSWORD);
		await page.fill('#new-password', 'another long password');
		await page.click('#password-button');
		await page.locator('#password-message.ok').waitFor();
		// Still signed in here (a new session); the old password no longer works.
		await page.reload();
		await shown(page, 'dashboard-view');
		const old = await api(srv.base, 'POST', null, { text: 'x' });
		assert.equal(old.status, 200, 'anonymous creation still works');
		const res = await fetch(`${srv.base}/api/session`, {
			method: 'POST', headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
		});
		assert.equal(res.status, 401);
		assert.deepEqual(ctx.problems.filter((p) => !/status of 401/.test(p)), []);
		await ctx.close();
	});

	// docs/PAGE.md, "Languages": only a code the page does not know shows the
	// server's English hint.
	test('too many sign-in attempts: the message is in the page\'s language, with the time to wait', async () => {
		const DE = JSON.parse(fs.readFileSync(path.join(ROOT, 'www/assets/i18n/de.json'), 'utf8'));
		const email = 'limited@example.org';
		for (let i = 0; i < 10; i++) {
			const res = await fetch(`${srv.base}/api/session`, {
				method: 'POST', headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ email, password: 'not the password' }),
			});
			assert.equal(res.status, 401);
		}
		const ctx = await newContext(browser, { context: { locale: 'de-DE' } });
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		await page.fill('#signin-email', email);
		await page.fill('#signin-password', 'not the password');
		await page.click('#signin-button');
		await page.locator('#signin-error:not([hidden])').waitFor();
		assert.equal(await page.textContent('#signin-error strong'), DE['error.attemptsAccount.title']);
		const detail = await page.textContent('#signin-error .detail');
		const [before, after] = DE['error.rate.detailWait'].split('{wait}');
		assert.ok(detail.startsWith(before) && detail.endsWith(after), detail);
		assert.doesNotMatch(detail, /sign-in attempts|try again/);
		assert.equal(await page.locator('#signin-error [lang=en]').count(), 0);
		assert.deepEqual(ctx.problems.filter((p) => !/status of 429/.test(p)), []);
		await ctx.close();
	});
});
