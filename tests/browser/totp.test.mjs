// The second factor on the dashboard, in Debian's chromium against lighttpd
// and the real programs: set up with the password, the QR code and the key
// as text, turned on by a code; the recovery codes shown once; sign-in then
// asks for a code, entered with the keyboard only; a recovery code signs in
// once; light and dark, axe clean.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import { missing, serverAndBrowser, newContext, shown, axeViolations } from './helpers.mjs';
import { totpCode as code, nowStep } from '../lib/totp.mjs';

const skip = missing();
const EMAIL = 'tess@example.org';
const PASSWORD = 'a long enough password';

describe('two-step sign-in in the browser', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser({ BURNLINK_SIGNUP: 'open' }, (s, b) => { srv = s; browser = b; });

	test('set up, recovery codes, sign-in with a code by keyboard, a recovery code once; light and dark', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		await page.fill('#signup-email', EMAIL);
		await page.fill('#signup-password', PASSWORD);
		await page.click('#signup-button');
		await shown(page, 'dashboard-view');
		await page.locator('#totp-card').waitFor({ state: 'visible' });
		assert.match(await page.textContent('#totp-state'), /^Off\./);

		await page.fill('#totp-password', PASSWORD);
		await page.click('#totp-start-button');
		await page.locator('#totp-enrol').waitFor({ state: 'visible' });
		assert.equal(await page.isVisible('#totp-qr'), true, 'the QR code is drawn');
		const secret = (await page.inputValue('#totp-secret')).replace(/ /g, '');
		assert.match(secret, /^[A-Z2-7]{32}$/);
		assert.deepEqual(await axeViolations(page), [], 'setting up, light');
		const step0 = nowStep();
		await page.fill('#totp-code', code(secret, step0));
		await page.click('#totp-confirm-button');
		await page.locator('#totp-recovery').waitFor({ state: 'visible' });
		const codes = await page.$$eval('#totp-recovery li', (li) => li.map((x) => x.textContent));
		assert.equal(codes.length, 10);
		assert.match(await page.textContent('#totp-state'), /Recovery codes left: 10/);
		assert.deepEqual(await axeViolations(page), [], 'recovery codes, light');
		// shown once: a reload shows the state only
		await page.reload();
		await shown(page, 'dashboard-view');
		await page.locator('#totp-off').waitFor({ state: 'visible' });
		assert.equal(await page.locator('#totp-recovery').count(), 0);
		await page.click('#signout-button');
		await shown(page, 'signin-view');
		await ctx.close();

		// a new browser, dark, keyboard only: e-mail, password, Enter; then the code, Enter
		const dark = await newContext(browser, { colorScheme: 'dark' });
		const p2 = await dark.newPage();
		await p2.goto(srv.base + '/dashboard');
		await shown(p2, 'signin-view');
		await p2.focus('#signin-email');
		await p2.keyboard.type(EMAIL);
		await p2.keyboard.press('Tab');
		await p2.keyboard.type(PASSWORD);
		await p2.keyboard.press('Enter');
		await p2.locator('#signin-code-field').waitFor({ state: 'visible' });
		assert.equal(await p2.evaluate(() => document.activeElement.id), 'signin-code', 'the code field has the focus');
		assert.deepEqual(await axeViolations(p2), [], 'sign-in with a code, dark');
		// a wrong code: none of the window's (the step before, now, the step after)
		await p2.keyboard.type(['000000', '111111'].find((x) => ![-1, 0, 1].some((d) => code(secret, nowStep() + d) === x)));
		await p2.keyboard.press('Enter');
		await p2.locator('#signin-error').waitFor({ state: 'visible' });
		assert.match(await p2.textContent('#signin-error'), /The code is wrong/);
		await p2.fill('#signin-code', '');
		await p2.focus('#signin-code');
		// the next code: a step after the enrolment's, and still in the window
		// (step0 + 1 is accepted only until step0 + 2 ends: a slow browser is past it)
		await p2.keyboard.type(code(secret, Math.max(step0 + 1, nowStep())));
		await p2.keyboard.press('Enter');
		await shown(p2, 'dashboard-view');
		assert.deepEqual(await axeViolations(p2), [], 'dashboard with two-step sign-in on, dark');
		await p2.click('#signout-button');
		await shown(p2, 'signin-view');

		// a recovery code, once
		await p2.fill('#signin-email', EMAIL);
		await p2.fill('#signin-password', PASSWORD);
		await p2.click('#signin-button');
		await p2.locator('#signin-code-field').waitFor({ state: 'visible' });
		await p2.fill('#signin-code', codes[0]);
		await p2.click('#signin-button');
		await shown(p2, 'dashboard-view');
		await p2.locator('#totp-state').waitFor({ state: 'visible' });
		assert.match(await p2.textContent('#totp-state'), /Recovery codes left: 9/);
		await dark.close();
	});
});
