// The CLI and the page share one format: a secret made by burnlink opens in the
// page (Debian's chromium, driven by playwright-core), and one made in the page
// opens with `burnlink get` — text exactly, files byte for byte, passphrase too.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../lib/server.mjs';
import { missing, launch, newContext, createSecret, openLink, shown } from '../browser/helpers.mjs';
import { run, tmpDir } from './helpers.mjs';

const why = missing();
let srv, browser;

before(async () => {
	if (why)
		return;
	srv = await startServer({ server: 'lighttpd' });
	browser = await launch();
});

after(async () => {
	await browser?.close();
	await srv?.stop();
});

test('a secret made by burnlink opens in the page', { skip: why || false }, async () => {
	const text = 'from the CLI:\n  indented\ttab ✓ 🔥\n\ntrailing spaces   \n';
	const src = tmpDir();
	const bytes = crypto.randomBytes(5000);
	fs.writeFileSync(path.join(src, 'key material.bin'), bytes);
	const r = await run(['--url', srv.base, '-p', 'cli to page', '-f', path.join(src, 'key material.bin'), text]);
	assert.equal(r.code, 0, r.err);
	const link = r.out.trim();

	const ctx = await newContext(browser);
	try {
		const page = await ctx.newPage();
		await openLink(page, link);
		await shown(page, 'ready-view');
		await page.fill('#passphrase', 'cli to page');
		await page.click('#reveal-button');
		await shown(page, 'secret-view');
		assert.equal(await page.locator('#secret-text').textContent(), text);
		assert.equal(await page.locator('#files .file-name').textContent(), 'key material.bin');
		const [download] = await Promise.all([
			page.waitForEvent('download'),
			page.click('#files a[download]'),
		]);
		assert.equal(download.suggestedFilename(), 'key material.bin');
		assert.ok(fs.readFileSync(await download.path()).equals(bytes));
		assert.deepEqual(ctx.problems, []);
	} finally {
		await ctx.close();
	}
});

test('a secret made in the page opens with burnlink get', { skip: why || false }, async () => {
	const text = 'from the page:\n  indented\ttab ✓ 🔥\n\ntrailing spaces   \n';
	const bytes = crypto.randomBytes(3000);
	const ctx = await newContext(browser);
	let made;
	try {
		const page = await ctx.newPage();
		made = await createSecret(page, srv.base, {
			text,
			passphrase: 'page to cli',
			views: 2,
			files: [{ name: 'notes (v2).txt', mimeType: 'text/plain', buffer: bytes }],
		});
		assert.deepEqual(ctx.problems, []);
	} finally {
		await ctx.close();
	}
	const out = tmpDir();
	const g = await run(['get', '-p', 'page to cli', '-o', out, made.link]);
	assert.equal(g.code, 0, g.err);
	assert.equal(g.out, text);
	assert.deepEqual(fs.readdirSync(out), ['notes (v2).txt']);
	assert.ok(fs.readFileSync(path.join(out, 'notes (v2).txt')).equals(bytes));

	const st = await run(['status', '--json', made.receipt]);
	assert.equal(st.code, 0, st.err);
	const j = JSON.parse(st.out);
	assert.equal(j.viewCount, 1);
	assert.equal(j.maxViews, 2);
	assert.equal(j.hasPassphrase, true);
	const b = await run(['burn', made.receipt]);
	assert.equal(b.code, 0, b.err);
});
