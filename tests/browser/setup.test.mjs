// The page /setup in Debian's chromium against lighttpd and the real programs
// (docs/ADMIN.md, "Setting up without a shell"): closed without the file
// burnlink-setup; with it, a wrong code is told, the right one shows the
// settings file's check and creates the first operator's account, which then
// opens /admin; the file is gone. axe light and dark, keyboard, 360 px.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { missing, serverAndBrowser, newContext, shown, axeViolations, PHONE } from './helpers.mjs';

const skip = missing();
const CODE = 'q7Lm2Xv9Rb4Tn8Kd3Hf6Wc1Zp5Ys0Ja';
const PASSWORD = 'a long enough password';

// Uploads burnlink-setup into the server's data directory, as its user's file.
function upload(srv) {
	const f = path.join(path.dirname(srv.db), 'burnlink-setup');
	fs.writeFileSync(f, CODE + '\n');
	if (typeof process.getuid === 'function' && process.getuid() === 0 && srv.user && srv.user !== 'root')
		execFileSync('chown', [srv.user, f]);
	return f;
}

async function axeBoth(page, what) {
	for (const scheme of ['light', 'dark']) {
		await page.emulateMedia({ colorScheme: scheme });
		assert.deepEqual(await axeViolations(page), [], `${what}, ${scheme}`);
	}
	await page.emulateMedia({ colorScheme: 'light' });
}

describe('the setup page', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser({}, (s, b) => { srv = s; browser = b; });

	test('closed without the file; with it, the settings check and the first operator\'s account', async () => {
		// colours measured as they settle
		const ctx = await newContext(browser, { viewport: PHONE, context: { reducedMotion: 'reduce' } });
		const page = await ctx.newPage();
		await page.goto(srv.base + '/setup');
		await shown(page, 'closed-view');
		await axeBoth(page, 'closed');

		const f = upload(srv);
		await page.reload();
		await shown(page, 'setup-view');
		await axeBoth(page, 'open');
		// the page fits 360 px
		assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));

		// a wrong code: told, nothing shown of the settings
		await page.fill('#setup-code', 'not-the-code-xxxxxxxxxxxxxxxxxxxx');
		await page.click('#check-button');
		await page.locator('#setup-message:not([hidden])').waitFor();
		assert.match(await page.textContent('#setup-message'), /setup code is wrong/);
		assert.equal(await page.isHidden('#settings-result'), true);

		// the right code, by keyboard: the settings file's check
		await page.fill('#setup-code', CODE);
		await page.focus('#check-button');
		await page.keyboard.press('Enter');
		await page.locator('#settings-result:not([hidden])').waitFor();
		assert.match(await page.textContent('#settings-summary'), /settings file/);
		await axeBoth(page, 'checked');

		await page.fill('#setup-name', 'operator@example.org');
		await page.fill('#setup-password', PASSWORD);
		await page.press('#setup-password', 'Enter');
		await shown(page, 'done-view');
		assert.equal(fs.existsSync(f), false);
		await axeBoth(page, 'done');

		await page.click('#done-view a');
		await shown(page, 'admin-view');

		// closed from now on, even with a new file
		upload(srv);
		await page.goto(srv.base + '/setup');
		await shown(page, 'closed-view');
		assert.deepEqual(ctx.problems, []);
		await ctx.close();
	});
});
