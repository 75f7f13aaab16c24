// Accessibility of the bundled page: axe-core finds no violation on any page
// and state, in the light and the dark theme; and a keyboard-only run of
// create, reveal and the receipt works, with the focus visible at every stop.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import {
	missing, serverAndBrowser, newContext, createSecret, openLink, shown, api, apiCreate, expireNewest,
	axeViolations, axeScript, PHONE,
} from './helpers.mjs';

const skip = missing();

// The focused element, described, with whether its focus can be seen.
async function focused(page) {
	return page.evaluate(() => {
		const e = document.activeElement;
		const cs = getComputedStyle(e);
		const visible = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) ||
			(cs.boxShadow && cs.boxShadow !== 'none');
		const name = e.id || (e.className ? '.' + String(e.className).split(' ')[0] : e.tagName.toLowerCase());
		return { name, visible, tag: e.tagName.toLowerCase() };
	});
}

// Presses Tab until the element with this id has the focus; checks that every
// stop on the way shows its focus. Resolves to the names of the stops.
async function tabTo(page, id, max = 25) {
	const stops = [];
	for (let i = 0; i < max; i++) {
		await page.keyboard.press('Tab');
		const f = await focused(page);
		stops.push(f.name);
		assert.ok(f.visible, `focus is not visible on ${f.name}`);
		if (f.name === id)
			return stops;
	}
	throw new Error(`#${id} not reached by Tab; stops: ${stops.join(' ')}`);
}

describe('accessibility', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser(null, (s, b) => { srv = s; browser = b; });

	test('axe: no violations on any page and state, light and dark', async () => {
		const found = [];
		// Every rule in the light theme, then the colour rules in the dark one.
		const check = async (page, what) => {
			for (const v of await axeViolations(page))
				found.push(`${what} (light): ${v}`);
			await page.emulateMedia({ colorScheme: 'dark' });
			for (const v of await axeViolations(page, ['color-contrast', 'link-in-text-block']))
				found.push(`${what} (dark): ${v}`);
			await page.emulateMedia({ colorScheme: 'light' });
		};
		// No transitions: colours are measured as they settle.
		const ctx = await newContext(browser, { context: { reducedMotion: 'reduce' } });
		await ctx.addInitScript({ content: axeScript() });
		const p = await ctx.newPage();

		// Create: empty, with files and an error, then the result.
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');
		await check(p, 'create');
		await p.setInputFiles('#file-input', [
			{ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('a') },
			{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(2097153) },
		]);
		await shown(p, 'form-error');
		await p.fill('#passphrase', 'abc');
		await p.click('#create-button');
		await p.locator('#form-error', { hasText: 'passphrase' }).waitFor();
		await check(p, 'create with files and errors');
		const res = await createSecret(p, srv.base, { text: 'axe', views: 3, passphrase: 'open sesame' });
		await check(p, 'result');

		// Reveal: ready, wrong passphrase, revealed with text and files, burn confirmation.
		const r = await ctx.newPage();
		await openLink(r, res.link);
		await check(r, 'reveal ready (passphrase)');
		await r.fill('#passphrase', 'nope');
		await r.click('#reveal-button');
		await r.locator('#reveal-error', { hasText: 'not right' }).waitFor();
		await check(r, 'reveal wrong passphrase');
		await r.fill('#passphrase', 'open sesame');
		await r.click('#reveal-button');
		await shown(r, 'secret-view');
		await check(r, 'revealed');
		await r.click('#burn-button');
		await shown(r, 'burn-confirm');
		await check(r, 'burn confirmation');

		const withFiles = await ctx.newPage();
		const f = await createSecret(withFiles, srv.base, {
			text: 'with files',
			files: [{ name: 'one.txt', mimeType: 'text/plain', buffer: Buffer.from('1') }],
		});
		await openLink(withFiles, f.link);
		await check(withFiles, 'reveal ready');
		await withFiles.click('#reveal-button');
		await shown(withFiles, 'secret-view');
		await check(withFiles, 'revealed with files, last view');

		// Receipt: active, burned; not found.
		await withFiles.goto(res.receipt);
		await shown(withFiles, 'receipt-view');
		await check(withFiles, 'receipt active');
		await withFiles.click('#burn-button');
		await check(withFiles, 'receipt burn confirmation');
		await withFiles.click('#burn-yes');
		await withFiles.locator('#state-badge', { hasText: 'Burned' }).waitFor();
		await check(withFiles, 'receipt burned');
		await withFiles.goto(`${srv.base}/receipt/AAAAAAAAAAAAAAAAAAAAAA`);
		await shown(withFiles, 'gone-view');
		await check(withFiles, 'receipt not found');

		// The gone pages, and a server that cannot be reached.
		const expired = await apiCreate(srv.base, 'x');
		expireNewest(srv);
		const gone = [
			['burned', res.link],
			['viewed up', f.link],
			['expired', expired.link],
			['not found', `${srv.base}/secret/AAAAAAAAAAAAAAAAAAAAAA#key=${expired.key}`],
			['key missing', res.link.split('#')[0]],
			['key mangled', res.link.slice(0, -5)],
		];
		for (const [what, link] of gone) {
			await openLink(r, link);
			await shown(r, 'gone-view');
			await check(r, `gone: ${what}`);
		}
		const live = await apiCreate(srv.base, 'y');
		await r.route('**/api/**', (route) => route.abort());
		await openLink(r, live.link);
		await shown(r, 'error-view');
		await check(r, 'reveal: server unreachable');

		// A phone-sized page too.
		const phone = await newContext(browser, { viewport: PHONE, context: { reducedMotion: 'reduce' } });
		const ph = await phone.newPage();
		await ph.goto(srv.base + '/');
		await shown(ph, 'create-view');
		await check(ph, 'create on a phone');
		await phone.close();
		await ctx.close();
		assert.deepEqual(found, []);
	});

	test('keyboard only: create, reveal, burn from the receipt', async () => {
		const ctx = await newContext(browser, { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
		const p = await ctx.newPage();
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');

		// The skip link comes first and moves to the content.
		await p.keyboard.press('Tab');
		assert.equal((await focused(p)).name, '.skip-link');
		assert.ok((await focused(p)).visible);
		const stops = await tabTo(p, 'text');
		await p.keyboard.type('typed by keyboard only  \nsecond line');
		await tabTo(p, 'ttl');
		await p.keyboard.press('ArrowDown'); // 1 day -> 3 days
		await tabTo(p, 'views');
		await p.keyboard.press('Control+A');
		await p.keyboard.type('2');
		await tabTo(p, 'passphrase');
		await p.keyboard.type('keyboard pass');
		await tabTo(p, 'toggle-passphrase');
		await p.keyboard.press('Space');
		assert.equal(await p.getAttribute('#passphrase', 'type'), 'text');
		const rest = await tabTo(p, 'create-button');
		assert.deepEqual(rest, ['deletable', 'create-button']);
		assert.ok(stops.length <= 6, `few stops before the text: ${stops.join(' ')}`);
		await p.keyboard.press('Enter');
		await shown(p, 'result-view');
		assert.equal((await focused(p)).name, 'result-title');
		assert.match(await p.textContent('#result-expiry'), /in 3 days/);
		assert.match(await p.textContent('#result-views'), /2 views/);
		await tabTo(p, 'copy-secret');
		await p.keyboard.press('Enter');
		await p.locator('#copy-secret', { hasText: 'Copied' }).waitFor();
		const link = await p.evaluate(() => navigator.clipboard.readText());
		assert.equal(link, await p.inputValue('#secret-link'));
		const receipt = await p.inputValue('#receipt-link');
		await tabTo(p, 'create-another');

		// Reveal in another browser, by keyboard.
		const other = await newContext(browser);
		const q = await other.newPage();
		await openLink(q, link);
		await tabTo(q, 'passphrase');
		await q.keyboard.type('keyboard pass');
		await q.keyboard.press('Enter');
		await shown(q, 'secret-view');
		assert.equal((await focused(q)).name, 'secret-title');
		assert.equal(await q.textContent('#secret-text'), 'typed by keyboard only  \nsecond line');
		await tabTo(q, 'secret-text');
		await tabTo(q, 'copy-text');
		await tabTo(q, 'burn-button');
		await q.keyboard.press('Enter');
		assert.equal((await focused(q)).name, 'burn-yes');
		await q.keyboard.press('Tab');
		assert.equal((await focused(q)).name, 'burn-no');
		await q.keyboard.press('Enter');
		assert.equal(await q.isVisible('#burn-confirm'), false);
		assert.equal((await focused(q)).name, 'burn-button');
		await q.keyboard.press('Enter');
		await q.keyboard.press('Escape');
		assert.equal(await q.isVisible('#burn-confirm'), false);
		assert.equal((await focused(q)).name, 'burn-button');
		await other.close();

		// The receipt, by keyboard: refresh, then burn.
		await p.goto(receipt);
		await shown(p, 'receipt-view');
		assert.equal(await p.textContent('#r-used'), '1 of 2');
		await tabTo(p, 'refresh');
		await p.keyboard.press('Enter');
		await p.locator('#refresh:not([disabled])', { hasText: /^Refresh$/ }).waitFor();
		assert.equal((await focused(p)).name, 'refresh');
		await tabTo(p, 'burn-button');
		await p.keyboard.press('Enter');
		assert.equal((await focused(p)).name, 'burn-yes');
		await p.keyboard.press('Enter');
		await p.locator('#state-badge', { hasText: 'Burned' }).waitFor();
		assert.equal((await api(srv.base, 'GET', link.split('#')[0].split('/').pop())).json.code, 'SECRET_BURNED');
		assert.deepEqual(ctx.problems, []);
		await ctx.close();
	});

	test('status changes are announced through a live region', async () => {
		const ctx = await newContext(browser);
		const p = await ctx.newPage();
		const res = await createSecret(p, srv.base, { text: 'announce me' });
		const live = p.locator('#status[role="status"][aria-live="polite"]');
		await live.filter({ hasText: 'Your secret link is ready' }).waitFor({ state: 'attached' });
		await openLink(p, res.link);
		await p.locator('#status').filter({ hasText: 'Press Reveal' }).waitFor({ state: 'attached' });
		await p.click('#reveal-button');
		await p.locator('#status').filter({ hasText: 'The secret is shown' }).waitFor({ state: 'attached' });
		assert.equal(await p.getAttribute('#reveal-error', 'role'), 'alert');
		await ctx.close();
	});
});
