// Notifications on the pages (docs/NOTIFY.md), in Debian's chromium against
// lighttpd and the real programs: "Notify me" on the create form only when
// signed in (and the create request asks for it), the dashboard's webhooks
// (the signing secret shown once) and each secret's last event, and the
// receipt page updating by itself after the secret is read elsewhere.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, missing, serverAndBrowser, newContext, shown, readResult, openLink, axeViolations } from './helpers.mjs';

const skip = missing();
const catalogue = (tag) => JSON.parse(fs.readFileSync(path.join(ROOT, `www/assets/i18n/${tag}.json`), 'utf8'));
const EN = catalogue('en');

describe('notifications in the browser', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser({ BURNLINK_SIGNUP: 'open' }, (s, b) => { srv = s; browser = b; });

	test('Notify me, webhooks on the dashboard, the last event, the receipt refreshing itself', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();

		// Anonymous: no "Notify me".
		await page.goto(srv.base + '/');
		await shown(page, 'create-view');
		await page.locator('#signin-link').waitFor();
		assert.equal(await page.isVisible('#notify-field'), false);

		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		await page.fill('#signup-email', 'erin@example.org');
		await page.fill('#signup-password', 'a long enough password');
		await page.click('#signup-button');
		await shown(page, 'dashboard-view');
		await page.locator('#notify-card').waitFor({ state: 'visible' });
		assert.match(await page.textContent('#notify-card'), /erin@example\.org/);

		// The address: changing it needs the password (docs/API.md, POST /email).
		assert.equal(await page.getAttribute('#address-password', 'type'), 'password');
		await page.fill('#notify-address', 'erin@new.example');
		await page.fill('#address-password', 'not the password');
		await page.click('#address-form button[type=submit]');
		await page.locator('#notify-card > .message[role=alert].error').waitFor();
		assert.match(await page.textContent('#notify-card > .message[role=alert].error'), new RegExp(EN['error.credentials.title'].replace(/[.?]/g, '\\$&')));
		await page.fill('#address-password', 'a long enough password');
		await page.click('#address-form button[type=submit]');
		await page.locator('#notify-card > .message[role=alert].ok').waitFor();
		assert.equal(await page.inputValue('#address-password'), '', 'the password is not kept in the form');
		await page.waitForFunction(() => document.querySelector('#notify-card').textContent.includes('erin@new.example'));
		const sent = (await ctx.requests()).filter((r) => r.method === 'POST' && r.url.endsWith('/api/email'));
		assert.deepEqual(JSON.parse(sent.pop().body), { email: 'erin@new.example', currentPassword: 'a long enough password' });

		// A webhook: its signing secret once, then only the URL in the list.
		await page.fill('#webhook-url', 'https://hooks.example.org/burnlink');
		await page.click('#webhook-form button[type=submit]');
		await page.waitForFunction(() => document.querySelector('#webhooks-list').textContent.includes('hooks.example.org'));
		const secret = await page.inputValue('#notify-card input.mono');
		assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
		assert.ok(!(await page.textContent('#webhooks-list')).includes(secret));
		assert.deepEqual(await axeViolations(page), [], 'dashboard with a webhook');

		// Signed in, the create form offers it and the request carries it.
		await page.goto(srv.base + '/');
		await shown(page, 'create-view');
		await page.locator('#notify-email').waitFor({ state: 'visible' });
		assert.deepEqual(await axeViolations(page), [], 'create form with Notify me');
		await page.fill('#text', 'notify me when it is read');
		await page.check('#notify-email');
		await page.check('#notify-webhook');
		await page.click('#create-button');
		await shown(page, 'result-view');
		const made = await readResult(page);
		const post = (await ctx.requests()).filter((r) => r.method === 'POST' && r.url.endsWith('/api/secrets')).pop();
		assert.deepEqual(JSON.parse(post.body).notify, ['email', 'webhook']);

		// The receipt page, left open, sees the read made in another tab.
		const receipt = await ctx.newPage();
		await receipt.goto(made.receipt);
		await shown(receipt, 'receipt-view');
		assert.equal(await receipt.getAttribute('body', 'data-state'), 'active');
		const reader = await ctx.newPage();
		await openLink(reader, made.link);
		await reader.click('#reveal-button');
		await shown(reader, 'secret-view');
		await receipt.waitForFunction(() => document.body.dataset.state === 'exhausted', null, { timeout: 60000 });

		// The dashboard names the secret's last event.
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'dashboard-view');
		await page.locator('#secrets-body .last-event').waitFor();
		assert.match(await page.textContent('#secrets-body .last-event'), /^Viewed for the last time/);
		assert.deepEqual(ctx.problems.filter((p) => !/status of 401/.test(p)), []);
		await ctx.close();
	});

	// docs/PAGE.md, "The API stays English": INVALID_EMAIL is a code the page
	// knows, so its detail is the catalogue's, never the server's English hint.
	for (const [locale, tag] of [['en-GB', 'en'], ['de-DE', 'de']]) {
		test(`${locale}: an address that is no address, in "Forgot your password?" and sign-up, is explained in the page's language`, async () => {
			const words = catalogue(tag);
			const ctx = await newContext(browser, { context: { locale } });
			const page = await ctx.newPage();
			await page.goto(srv.base + '/dashboard');
			await shown(page, 'signin-view');
			for (const [open, field, button, box] of [
				['#forgot-box summary', '#forgot-email', '#forgot-form button[type=submit]', '#mail-message'],
				[null, '#signup-email', '#signup-button', '#signup-error'],
			]) {
				if (open)
					await page.click(open);
				await page.fill(field, 'not-an-address');
				if (field === '#signup-email')
					await page.fill('#signup-password', 'a long enough password');
				await page.click(button);
				await page.locator(`${box}.error .detail`).waitFor();
				assert.equal(await page.textContent(`${box} strong`), words['error.email.title'], box);
				const detail = page.locator(`${box} .detail`);
				assert.equal(await detail.textContent(), words['error.email.detail'], box);
				assert.equal(await detail.getAttribute('lang'), null, box);
			}
			assert.deepEqual(ctx.problems.filter((p) => !/status of 400/.test(p)), []);
			await ctx.close();
		});
	}

	// Only INVALID_TOKEN makes a mail link invalid, used or too old; too many
	// requests, the network and the server are said as the other pages say them.
	test('the verify and reset links: only INVALID_TOKEN says the link is bad', async () => {
		const token = 'A'.repeat(43);	// well-formed, never issued: the server's INVALID_TOKEN
		const answers = {
			429: { status: 429, headers: { 'Retry-After': '30' },
				body: { error: 'Too many requests.', code: 'RATE_LIMIT_EXCEEDED', hint: 'Wait.' }, title: EN['error.rate.title'] },
			500: { status: 500, headers: {},
				body: { error: 'Internal error.', code: 'INTERNAL_ERROR', hint: 'Try again.' }, title: EN['error.internal.title'] },
			network: { title: EN['error.network.title'] },
		};
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		// a new document each time: a change of the fragment alone is no new page load
		const open = async (kind) => {
			await page.goto('about:blank');
			await page.goto(`${srv.base}/dashboard#${kind}=${token}`);
		};
		const message = async () => {
			await page.locator('#mail-message.error').waitFor();
			return page.textContent('#mail-message strong');
		};
		// Each failure on the way to the real server, for both kinds of link.
		for (const [name, a] of Object.entries(answers)) {
			await page.route('**/api/token', (route) => (a.status
				? route.fulfill({ status: a.status, contentType: 'application/json', headers: a.headers, body: JSON.stringify(a.body) })
				: route.abort()));
			await open('verify');
			await page.click('#verify-form button[type=submit]');
			assert.equal(await message(), a.title, `verify, ${name}`);
			// the link may still work: the button stays to try again
			assert.equal(await page.isVisible('#verify-form'), true, `verify, ${name}`);
			await open('reset');
			await page.fill('#reset-password', 'a long enough password');
			await page.click('#reset-form button[type=submit]');
			assert.equal(await message(), a.title, `reset, ${name}`);
			// the link may still work: the form stays to try again
			assert.equal(await page.isVisible('#reset-form'), true, `reset, ${name}`);
			await page.unroute('**/api/token');
		}
		// The real server's INVALID_TOKEN: the link is bad.
		await open('verify');
		await page.click('#verify-form button[type=submit]');
		assert.equal(await message(), EN['notify.badLink'], 'verify, INVALID_TOKEN');
		await open('reset');
		await page.fill('#reset-password', 'a long enough password');
		await page.click('#reset-form button[type=submit]');
		assert.equal(await message(), EN['notify.badLink'], 'reset, INVALID_TOKEN');
		await page.locator('#reset-form').waitFor({ state: 'hidden' });
		assert.deepEqual(ctx.problems.filter((p) => !/status of (400|429|500)|ERR_FAILED/.test(p)), []);
		await ctx.close();
	});
	// docs/PAGE.md: a mail scanner that opens the link and runs the page's
	// scripts sends nothing; the token goes to the server on a press only.
	test('a verify link is used only when "Confirm address" is pressed', async () => {
		const token = 'B'.repeat(43);
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(`${srv.base}/dashboard#verify=${token}`);
		const button = page.locator('#verify-form button[type=submit]');
		await button.waitFor();
		assert.equal(await button.textContent(), EN['notify.verifyButton']);
		assert.equal(await page.evaluate(() => window.location.hash), '', 'the token leaves the address bar');
		// the page has settled: its module ran, the button has the focus
		await page.waitForFunction(() => document.activeElement?.closest('#verify-form') !== null);
		const posted = async () => (await ctx.requests()).filter((r) => r.method === 'POST' && r.url.endsWith('/api/token'));
		assert.deepEqual(await posted(), [], 'nothing sent on load');
		await button.click();
		await page.locator('#mail-message.error').waitFor();
		assert.equal(await page.textContent('#mail-message strong'), EN['notify.badLink']);
		const sent = await posted();
		assert.equal(sent.length, 1);
		assert.deepEqual(JSON.parse(sent[0].body), { token });
		assert.deepEqual(await axeViolations(page), []);
		assert.deepEqual(ctx.problems.filter((p) => !/status of 400/.test(p)), []);
		await ctx.close();
	});

	// Last: it spends this client's requests to /api/token for the day.
	test('"Forgot your password?" asked too often: says so with the time to wait, not that a link is invalid', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'signin-view');
		await page.click('#forgot-box summary');
		await page.fill('#forgot-email', 'frank@example.org');
		await page.click('#forgot-form button[type=submit]');
		await page.waitForFunction((t) => document.activeElement.id === 'mail-message' &&
			document.getElementById('mail-message').textContent.includes(t), EN['notify.forgotSent']);
		// docs/API.md, POST /token: 100 requests a day per client address, then 429
		// (the same for any address: no per-address count is shown or refused)
		const left = await page.evaluate(async () => {
			let r;
			do {
				r = await fetch('/api/token', { method: 'POST', headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ email: 'frank@example.org' }) });
			} while (r.status === 200 && r.headers.get('X-RateLimit-Remaining') !== '0');
			return [r.status, r.headers.get('X-RateLimit-Limit')];
		});
		assert.deepEqual(left, [200, '100']);
		await page.click('#forgot-form button[type=submit]');
		await page.locator('#mail-message.error').waitFor();
		const text = await page.textContent('#mail-message');
		assert.ok(!text.includes(EN['notify.badLink']), text);
		assert.ok(text.startsWith(EN['error.rate.title']), text);
		assert.match(text, /Try again in \S.*\./);
		assert.deepEqual(ctx.problems.filter((p) => !/status of 429/.test(p)), []);
		await ctx.close();
	});
});
