// The create page follows the server's settings (GET api/config, www/assets/policy.js):
// its expiry and views choices, a forced view count, files off, a required
// passphrase, and the operator's branding; in Debian's chromium against lighttpd.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { missing, launch, newContext, shown, readResult } from './helpers.mjs';

const skip = missing();

describe('the page and the settings file', { skip: skip || false }, () => {
	let srv, browser, dir, conf;
	const contexts = [];

	// The settings in force from now on (the programs read the file on each request).
	function settings(text) {
		fs.writeFileSync(conf, text, { mode: 0o644 });
	}

	// The create page, once it has applied the server's answer.
	async function createPage(state = 'loaded') {
		const ctx = await newContext(browser);
		contexts.push(ctx);
		const p = await ctx.newPage();
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');
		await p.waitForSelector(`html[data-policy="${state}"]`, { state: 'attached' });
		return p;
	}

	const options = (p) => p.$$eval('#ttl option', (os) => os.map((o) => [o.value, o.textContent, o.selected]));

	before(async () => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-policy-'));
		fs.chmodSync(dir, 0o755);
		conf = path.join(dir, 'burnlink.conf');
		settings('');
		srv = await startServer({ server: 'lighttpd', env: { BURNLINK_CONFIG: conf } });
		browser = await launch();
	});

	after(async () => {
		// the refused create without a passphrase logs its 400, the broken
		// settings file its 503s; nothing else is expected
		for (const c of contexts)
			assert.deepEqual(c.problems.filter((m) => !/status of (400|503)/.test(m)), [], 'no script error or CSP violation');
		if (browser)
			await browser.close();
		if (srv)
			await srv.stop();
		fs.rmSync(dir, { recursive: true, force: true });
	});

	test('without settings: the choices of docs/API.md, unlimited views offered', async () => {
		settings('');
		const p = await createPage();
		const o = await options(p);
		assert.deepEqual(o.map((x) => x[0]), ['1800', '3600', '14400', '43200', '86400', '259200', '604800', '1209600', '2592000', '7776000']);
		assert.deepEqual(o.filter((x) => x[2]).map((x) => x[0]), ['86400']);
		assert.equal(await p.isVisible('#unlimited'), true);
		assert.equal(await p.textContent('.site-header .brand span'), 'burnlink');
	});

	test('expiry and views choices, then a secret created with the defaults carries them', async () => {
		settings('expiry_choices = 1h, 1d, 2w\nexpiry_default = 2w\nviews_max = 5\nviews_default = 2\nviews_unlimited = no\n');
		const p = await createPage();
		assert.deepEqual(await options(p), [
			['3600', '1 hour', false], ['86400', '1 day', false], ['1209600', '14 days', true],
		]);
		assert.equal(await p.inputValue('#views'), '2');
		assert.equal(await p.getAttribute('#views', 'max'), '5');
		assert.equal(await p.isVisible('#unlimited'), false, 'unlimited views are not offered');
		await p.fill('#text', 'policy');
		await p.click('#create-button');
		await shown(p, 'result-view');
		await readResult(p);
		const post = (await p.context().requests()).find((r) => r.method === 'POST' && r.url.endsWith('/api/secrets'));
		const body = JSON.parse(post.body);
		assert.equal(body.ttl, 1209600);
		assert.equal(body.maxViews, 2);
		assert.match(await p.textContent('#result-views'), /2 views/);
	});

	test('a forced view count, files off and a required passphrase', async () => {
		settings('views_forced = 1\nfiles_allowed = no\npassphrase_required = yes\npassphrase_min = 10\n');
		const p = await createPage();
		assert.equal(await p.inputValue('#views'), '1');
		assert.equal(await p.$eval('#views', (v) => v.readOnly), true);
		assert.equal(await p.isVisible('#unlimited'), false);
		assert.equal(await p.isVisible('#dropzone'), false, 'no file field');
		assert.equal(await p.$eval('#passphrase', (v) => v.required && v.minLength), 10);
		// without a passphrase the page says what is needed and sends nothing
		await p.fill('#text', 'needs a passphrase');
		await p.$eval('#passphrase', (v) => { v.required = false; });	// past the browser's own check
		await p.click('#create-button');
		await p.waitForSelector('#form-error:not(:empty)');
		assert.match(await p.textContent('#form-error'), /requires a passphrase.*10 to 256 characters/s);
		assert.equal((await p.context().requests()).filter((r) => r.method === 'POST').length, 0);
	});

	test('content and file limits: the meter, the hint and the checks before sending follow the site', async () => {
		settings('content_max = 1KiB\nfiles_max = 2\nviews_max = 5\n');
		const p = await createPage();
		await p.waitForFunction(() => /of 1\.0 KiB used/.test(document.getElementById('size-meter').textContent));
		assert.equal(await p.textContent('#files-hint'), 'Up to 2 files, 1.0 KiB in total with the text.');
		const three = [1, 2, 3].map((i) => ({ name: `f${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`${i}`) }));
		await p.setInputFiles('#file-input', three);
		assert.equal(await p.locator('#file-list li').count(), 2);
		assert.match(await p.textContent('#form-error'), /f3\.txt.*not added.*at most 2 files/s);
		await p.setInputFiles('#file-input', []);
		for (let i = 0; i < 2; i++)
			await p.click('#file-list li button');
		await p.fill('#text', 'x'.repeat(1025));
		await p.click('#create-button');
		await p.waitForSelector('#form-error:not(:empty)');
		assert.match(await p.textContent('#form-error'), /too large.*at most 1\.0 KiB/s);
		await p.fill('#text', 'x');
		await p.fill('#views', '6');
		await p.click('#create-button');
		await p.waitForFunction(() => /from 1 to 5/.test(document.getElementById('form-error').textContent));
		assert.equal((await p.context().requests()).filter((r) => r.method === 'POST').length, 0, 'nothing sent');
	});

	test('create = accounts: signed out, the page says only signed-in users create', async () => {
		settings('create = accounts\n');
		const p = await createPage();
		await p.waitForSelector('#form-error:not([hidden])');
		assert.match(await p.textContent('#form-error'), /only signed-in users can create secrets.*Sign in/s);
		settings('');
		const q = await createPage();
		await q.waitForFunction(() => document.getElementById('account-nav').childElementCount > 0);
		assert.equal(await q.isVisible('#form-error'), false, 'anyone may create: no notice');
	});

	test('a broken settings file: the page keeps its own choices and shows the server\'s 503', async () => {
		settings('views_max = 5\nno_such_setting = 1\n');
		try {
			const p = await createPage('none');
			assert.equal((await options(p)).length, 10, 'the choices of docs/API.md');
			await p.fill('#text', 'not stored');
			await p.click('#create-button');
			await p.waitForSelector('#form-error:not(:empty)');
			assert.match(await p.textContent('#form-error'), /This site is not set up correctly.*error log/s);
			const posts = (await p.context().requests()).filter((r) => r.method === 'POST');
			assert.equal(posts.length, 1);
		} finally {
			settings('');
		}
	});

	test('branding: name, accent colour, footer text and imprint link', async () => {
		settings('site_name = Acme secrets\naccent_color = #0b6e4f\nfooter_text = Run by Acme IT.\nimprint_url = https://acme.example/imprint\n');
		const p = await createPage();
		assert.equal(await p.textContent('.site-header .brand span'), 'Acme secrets');
		assert.match(await p.title(), /^Acme secrets/);
		assert.equal(await p.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()), '#0b6e4f');
		assert.equal(await p.textContent('.site-footer .operator'), 'Run by Acme IT. Imprint and contact');
		assert.equal(await p.getAttribute('.site-footer .operator a', 'href'), 'https://acme.example/imprint');
	});
});
