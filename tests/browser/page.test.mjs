// End-to-end tests of the bundled page in Debian's chromium, against the real
// lighttpd and CGI programs: create, reveal, files, passphrases, view counts,
// receipts, the gone states, and that the key never leaves the browser.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';

import { rawRequest } from '../lib/server.mjs';
import {
	missing, serverAndBrowser, newContext, createSecret, readResult, paste, dropFiles, openLink, shown,
	requestsContaining, api, apiCreate, expireNewest, PHONE,
} from './helpers.mjs';

const skip = missing();

describe('page', { skip: skip || false }, () => {
	let srv, browser;
	const contexts = [];
	const keys = [];

	async function context(opts) {
		const ctx = await newContext(browser, opts);
		contexts.push(ctx);
		return ctx;
	}

	async function page(opts) {
		return (await context(opts)).newPage();
	}

	serverAndBrowser(null, (s, b) => { srv = s; browser = b; });

	test('create, then reveal in a fresh browser: the text comes back exactly', async () => {
		const text = '  leading spaces\tand a tab\r\nCRLF line\rlone CR\nLF line  \n' +
			'emoji 😀 👩‍👩‍👧 flags 🇫🇷, accents é ü, RTL שלום, NBSP\u00a0here, zero\u200bwidth\n\n\ttrailing tab\t';
		const sender = await page();
		const res = await createSecret(sender, srv.base, { text });
		keys.push(res.key);
		assert.match(await sender.textContent('#result-views'), /1 view/);
		assert.match(await sender.textContent('#result-expiry'), /in 1 day/);

		// What was sent is ciphertext only: no word of the text is in the request.
		const posts = (await sender.context().requests()).filter((r) => r.method === 'POST');
		assert.equal(posts.length, 1);
		const body = JSON.parse(posts[0].body);
		assert.equal(typeof body.text.ciphertext, 'string');
		assert.equal(typeof body.text.iv, 'string');
		for (const word of ['leading', 'CRLF', 'שלום'])
			assert.ok(!posts[0].body.includes(word));

		const recipient = await page();
		await openLink(recipient, res.link);
		await shown(recipient, 'ready-view');
		await recipient.click('#reveal-button');
		await shown(recipient, 'secret-view');
		assert.equal(await recipient.textContent('#secret-text'), text);
		// The key is taken out of the address bar once read.
		assert.equal(new URL(recipient.url()).hash, '');
		assert.match(await recipient.textContent('#views-message'), /last view/);
		assert.deepEqual(recipient.context().problems, []);
		assert.deepEqual(sender.context().problems, []);
	});

	test('a secret made in server-side mode opens in the page too', async () => {
		const text = 'server side\r\n\tmode ✓';
		const file = Buffer.from('file bytes \x00\x01\xff', 'latin1');
		const res = await api(srv.base, 'POST', null, {
			text,
			files: [{ filename: 'plain name.bin', mimeType: 'application/octet-stream', data: `data:application/octet-stream;base64,${file.toString('base64')}` }],
		});
		assert.equal(res.status, 200);
		const link = res.json.secretUrl;
		keys.push(new URL(link).hash.replace('#key=', ''));
		const p = await page();
		await openLink(p, link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), text);
		assert.equal(await p.textContent('#files .file-name'), 'plain name.bin');
		const [download] = await Promise.all([p.waitForEvent('download'), p.click('#files a[download]')]);
		assert.equal(download.suggestedFilename(), 'plain name.bin');
		assert.ok(fs.readFileSync(await download.path()).equals(file));
	});

	test('copy button copies the exact text', async () => {
		const text = 'copy\tme\r\nexactly 🔑';
		const res = await apiCreate(srv.base, text);
		keys.push(res.key);
		const ctx = await context({ context: { permissions: ['clipboard-read', 'clipboard-write'] } });
		const p = await ctx.newPage();
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		await p.click('#copy-text');
		await p.locator('#copy-text', { hasText: 'Copied' }).waitFor();
		assert.equal(await p.evaluate(() => navigator.clipboard.readText()), text);
	});

	test('files: picker and drag-and-drop, downloaded byte-identical with their names', async () => {
		const a = { name: 'résumé 2024.pdf', mimeType: 'application/pdf', buffer: crypto.randomBytes(300000) };
		const b = { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('line 1\r\nline 2\n') };
		const c = { name: 'dropped key.bin', mimeType: 'application/octet-stream', buffer: crypto.randomBytes(70000) };
		const sender = await page();
		await sender.goto(srv.base + '/');
		await shown(sender, 'create-view');
		await sender.setInputFiles('#file-input', [a, b]);
		await dropFiles(sender, [c]);
		const names = await sender.locator('#file-list .file-name').allTextContents();
		assert.deepEqual(names, [a.name, b.name, c.name]);
		assert.match(await sender.textContent('#size-meter'), /3 files of 20/);
		// Progress is shown while the files are encrypted and uploaded.
		await sender.evaluate(() => {
			window.progressSeen = [];
			new MutationObserver(() => window.progressSeen.push(document.getElementById('progress-text').textContent))
				.observe(document.getElementById('progress'), { subtree: true, childList: true, characterData: true, attributes: true });
		});
		await sender.click('#create-button');
		await shown(sender, 'result-view');
		const res = await readResult(sender);
		keys.push(res.key);
		const progress = (await sender.evaluate(() => window.progressSeen)).join(' | ');
		assert.match(progress, /Encrypting file 1 of 3/);
		assert.match(progress, /Uploading/);

		// Nothing about the files reaches the server in the clear.
		const post = (await sender.context().requests()).find((r) => r.method === 'POST');
		for (const f of [a, b, c]) {
			assert.ok(!post.body.includes(f.name));
			assert.ok(!post.body.includes(f.mimeType));
		}

		const recipient = await page();
		await openLink(recipient, res.link);
		await recipient.click('#reveal-button');
		await shown(recipient, 'secret-view');
		assert.equal(await recipient.isVisible('#text-block'), false);
		const links = recipient.locator('#files a[download]');
		assert.equal(await links.count(), 3);
		for (const [i, f] of [a, b, c].entries()) {
			const [download] = await Promise.all([
				recipient.waitForEvent('download'),
				links.nth(i).click(),
			]);
			assert.equal(download.suggestedFilename(), f.name);
			const got = fs.readFileSync(await download.path());
			assert.ok(got.equals(f.buffer), `${f.name}: downloaded bytes differ`);
		}
		assert.deepEqual(recipient.context().problems, []);
	});

	test('files over the limits are refused before upload, with the reason', async () => {
		const p = await page();
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');
		assert.match(await p.textContent('#files-hint'), /20 files, 2 MiB/);
		const big = { name: 'big.iso', mimeType: 'application/octet-stream', buffer: Buffer.alloc(2 * 1048576 + 1) };
		await p.setInputFiles('#file-input', [big]);
		await shown(p, 'form-error');
		assert.match(await p.textContent('#form-error'), /big\.iso.*not added/s);
		assert.match(await p.textContent('#form-error'), /2 MiB/);
		assert.equal(await p.locator('#file-list li').count(), 0);

		const many = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`${i}`) }));
		await p.setInputFiles('#file-input', many);
		assert.equal(await p.locator('#file-list li').count(), 20);
		assert.match(await p.textContent('#form-error'), /f20\.txt.*not added.*at most 20 files/s);
		// Nothing was sent.
		assert.equal((await p.context().requests()).filter((r) => r.method === 'POST').length, 0);
	});

	test('the largest secret allowed, 2 MiB of text and file, goes through', async () => {
		const big = { name: 'exactly.bin', mimeType: 'application/octet-stream', buffer: crypto.randomBytes(2 * 1048576 - 3) };
		const sender = await page();
		const res = await createSecret(sender, srv.base, { text: 'é!', files: [big] });
		keys.push(res.key);
		const p = await page();
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), 'é!');
		const [download] = await Promise.all([p.waitForEvent('download'), p.click('#files a[download]')]);
		assert.ok(fs.readFileSync(await download.path()).equals(big.buffer));
	});

	test('passphrase: needed, wrong (no view used), then right', async () => {
		const sender = await page();
		await sender.goto(srv.base + '/');
		await shown(sender, 'create-view');
		await sender.fill('#passphrase', 'correct horse');
		assert.equal(await sender.getAttribute('#passphrase', 'type'), 'password');
		await sender.click('#toggle-passphrase');
		assert.equal(await sender.getAttribute('#passphrase', 'type'), 'text');
		assert.equal(await sender.getAttribute('#toggle-passphrase', 'aria-pressed'), 'true');
		const res = await createSecret(sender, srv.base, { text: 'behind a passphrase', passphrase: 'correct horse' });
		keys.push(res.key);
		assert.match(await sender.textContent('#result-passphrase'), /Required/);

		const p = await page();
		await openLink(p, res.link);
		assert.equal(await p.textContent('#ready-passphrase'), 'Needed');
		await p.fill('#passphrase', 'wrong horse');
		await p.click('#reveal-button');
		await p.locator('#reveal-error', { hasText: 'not right' }).waitFor();
		assert.match(await p.textContent('#reveal-error'), /No view was used/);
		assert.equal(await p.getAttribute('#passphrase', 'aria-invalid'), 'true');
		const meta = await api(srv.base, 'GET', res.receiptKey);
		assert.equal(meta.json.viewCount, 0);

		await p.fill('#passphrase', 'correct horse');
		await p.press('#passphrase', 'Enter');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), 'behind a passphrase');
	});

	test('passphrase: too many wrong tries lock it, with the time to wait', async () => {
		const res = await apiCreate(srv.base, 'locked', { passphrase: 'right one' });
		keys.push(res.key);
		const p = await page();
		await openLink(p, res.link);
		// Every state the Reveal button goes through (the wait may be as short as
		// a second: the attempts are counted per minute of the clock).
		await p.evaluate(() => {
			const b = document.getElementById('reveal-button');
			window.buttonStates = [];
			new MutationObserver(() => window.buttonStates.push(`${b.disabled}|${b.textContent}`))
				.observe(b, { attributes: true, childList: true, characterData: true, subtree: true });
		});
		// Five wrong tries a minute are allowed; the sixth is refused. A minute
		// of the clock may end during the tries, so try until refused.
		let tries = 0;
		let text = '';
		while (tries < 12) {
			await p.fill('#passphrase', `wrong ${tries++}`);
			await p.click('#reveal-button');
			await p.locator('#reveal-error:not([hidden])').waitFor();
			text = await p.textContent('#reveal-error');
			if (/Too many/.test(text))
				break;
			assert.match(text, /not right/);
			await p.evaluate(() => { document.getElementById('reveal-error').hidden = true; });
		}
		assert.ok(tries >= 6 && tries <= 11, `refused after ${tries} tries`);
		assert.match(text, /Too many passphrase attempts/);
		assert.match(text, /paused for (\d+ seconds?|\d+ minutes?|a minute)\. No view was used/);
		const states = await p.evaluate(() => window.buttonStates);
		assert.ok(states.some((st) => /^true\|Try again in \d+ (seconds?|minutes?)$/.test(st)), states.join(' / '));
		// Even the right passphrase cannot be tried while locked; no view was used.
		const meta = await api(srv.base, 'GET', res.receiptKey);
		assert.equal(meta.json.viewCount, 0);
		assert.equal(meta.json.state, 'active');
	});

	test('views count down, then the link is viewed up', async () => {
		const sender = await page();
		const res = await createSecret(sender, srv.base, { text: 'three times', views: 3 });
		keys.push(res.key);
		assert.match(await sender.textContent('#result-views'), /3 views/);
		const seen = [];
		for (let i = 3; i >= 1; i--) {
			const p = await page();
			await openLink(p, res.link);
			seen.push(await p.textContent('#ready-views'));
			await p.click('#reveal-button');
			await shown(p, 'secret-view');
			assert.equal(await p.textContent('#secret-text'), 'three times');
			const msg = await p.textContent('#views-message');
			if (i > 1)
				assert.match(msg, new RegExp(`${i - 1} views? left`));
			else
				assert.match(msg, /last view/);
			await p.close();
		}
		assert.deepEqual(seen, ['3', '2', '1 (this is the last one)']);
		const p = await page();
		await openLink(p, res.link);
		await shown(p, 'gone-view');
		assert.equal(await p.textContent('#gone-title'), 'This secret has already been viewed');
	});

	test('unlimited views until expiry', async () => {
		const res = await createSecret(await page(), srv.base, { text: 'again and again', views: null });
		keys.push(res.key);
		for (let i = 0; i < 2; i++) {
			const p = await page();
			await openLink(p, res.link);
			assert.equal(await p.textContent('#ready-views'), 'Unlimited until it expires');
			await p.click('#reveal-button');
			await shown(p, 'secret-view');
			assert.match(await p.textContent('#views-message'), /until it expires/);
		}
	});

	test('receipt: shows views, refreshes on demand, burns with confirmation', async () => {
		const sender = await page();
		const res = await createSecret(sender, srv.base, { text: 'receipt me', views: 2 });
		keys.push(res.key);
		const r = await page();
		await r.goto(res.receipt);
		await shown(r, 'receipt-view');
		assert.equal(await r.textContent('#state-badge'), 'Active');
		assert.equal(await r.textContent('#r-used'), '0 of 2');
		assert.equal(await r.textContent('#r-left'), '2');
		assert.equal(await r.textContent('#r-last'), 'Not yet');

		const p = await page();
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');

		await r.click('#refresh');
		await r.locator('#r-used', { hasText: '1 of 2' }).waitFor();
		assert.equal(await r.textContent('#r-left'), '1');
		assert.doesNotMatch(await r.textContent('#r-last'), /Not yet/);
		assert.match(await r.textContent('#state-text'), /opened once/);

		await r.click('#burn-button');
		await shown(r, 'burn-confirm');
		await r.click('#burn-no');
		assert.equal(await r.isVisible('#burn-confirm'), false);
		assert.equal((await api(srv.base, 'GET', res.receiptKey)).json.state, 'active');
		await r.click('#burn-button');
		await r.click('#burn-yes');
		await r.locator('#state-badge', { hasText: 'Burned' }).waitFor();
		assert.equal(await r.isVisible('#burn-button'), false);

		const q = await page();
		await openLink(q, res.link);
		await shown(q, 'gone-view');
		assert.equal(await q.textContent('#gone-title'), 'This secret was burned');
	});

	test('recipient may burn it after reading, unless the sender said no', async () => {
		const res = await apiCreate(srv.base, 'burn after reading', { maxViews: 5 });
		keys.push(res.key);
		const p = await page();
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		await p.click('#burn-button');
		await p.click('#burn-yes');
		await p.locator('#burn-message', { hasText: 'Burned' }).waitFor();
		assert.equal((await api(srv.base, 'GET', res.receiptKey)).json.state, 'burned');

		const sender = await page();
		const kept = await createSecret(sender, srv.base, { text: 'not deletable', views: 5, deletable: false });
		keys.push(kept.key);
		const q = await page();
		await openLink(q, kept.link);
		await q.click('#reveal-button');
		await shown(q, 'secret-view');
		assert.equal(await q.isVisible('#burn-block'), false);
	});

	test('opening the link and its metadata without pressing Reveal uses no view', async () => {
		const res = await apiCreate(srv.base, 'untouched');
		keys.push(res.key);
		// Link previewers and scanners: fetch the page, run its script, even
		// submit its form from script.
		for (let i = 0; i < 3; i++) {
			const p = await page();
			await openLink(p, res.link);
			await shown(p, 'ready-view');
			await p.evaluate(() => {
				const form = document.getElementById('reveal-form');
				const button = document.getElementById('reveal-button');
				form.requestSubmit();
				button.click();
				button.dispatchEvent(new MouseEvent('click', { bubbles: true }));
				document.getElementById('passphrase').dispatchEvent(
					new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
			});
			await p.reload();
			await shown(p, 'ready-view');
			await p.close();
		}
		const meta = await api(srv.base, 'GET', res.secretKey);
		assert.equal(meta.status, 200);
		assert.equal(meta.json.viewsRemaining, 1);
		const receipt = await api(srv.base, 'GET', res.receiptKey);
		assert.equal(receipt.json.viewCount, 0);
		assert.equal(receipt.json.state, 'active');
		// Still revealable by the person it was meant for.
		const p = await page();
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), 'untouched');
	});

	test('gone pages: expired, burned, viewed up, not found', async () => {
		const expired = await apiCreate(srv.base, 'soon gone');
		expireNewest(srv);
		const burned = await apiCreate(srv.base, 'burned');
		assert.equal((await api(srv.base, 'DELETE', burned.receiptKey)).status, 200);
		const used = await apiCreate(srv.base, 'used');
		assert.equal((await api(srv.base, 'POST', used.secretKey, {})).status, 200);
		const unknown = `${srv.base}/secret/AAAAAAAAAAAAAAAAAAAAAA#key=${expired.key}`;
		keys.push(expired.key, burned.key, used.key);
		const cases = [
			[expired.link, 'This secret has expired'],
			[burned.link, 'This secret was burned'],
			[used.link, 'This secret has already been viewed'],
			[unknown, 'Secret not found'],
		];
		for (const [link, title] of cases) {
			const p = await page();
			await openLink(p, link);
			await shown(p, 'gone-view');
			assert.equal(await p.textContent('#gone-title'), title);
			assert.equal(await p.title(), `${title} · burnlink`);
			await p.close();
		}
	});

	test('a link whose key is missing or mangled is explained before anything is requested', async () => {
		const res = await apiCreate(srv.base, 'intact');
		keys.push(res.key);
		const base = res.link.split('#')[0];
		const cases = [
			[base, 'This link is incomplete'],
			[base + '#', 'This link is incomplete'],
			[base + '#key=', 'This link is incomplete'],
			[base + '#key=' + res.key.slice(0, 30), 'This link is damaged'],
			[base + '#key=' + res.key + 'xy', 'This link is damaged'],
			[base + '#key=' + res.key.slice(0, 42) + '!', 'This link is damaged'],
			[`${srv.base}/secret/short#key=${res.key}`, 'This link is not valid'],
		];
		for (const [link, title] of cases) {
			const ctx = await context();
			const p = await ctx.newPage();
			await openLink(p, link);
			await shown(p, 'gone-view');
			assert.equal(await p.textContent('#gone-title'), title, link);
			const apiCalls = (await ctx.requests()).filter((r) => r.url.includes('/api/'));
			assert.deepEqual(apiCalls, [], `${link}: no API request`);
			await ctx.close();
		}
		assert.equal((await api(srv.base, 'GET', res.receiptKey)).json.viewCount, 0);
	});

	test('a link whose key was changed into other valid characters is refused before a view is spent', async () => {
		const sender = await page();
		const res = await createSecret(sender, srv.base, { text: 'fits only its own key' });
		keys.push(res.key);
		const m = await api(srv.base, 'GET', res.secretKey);
		assert.match(m.json.keyCommitment, /^[A-Za-z0-9_-]{43}$/, 'the page sent the commitment');
		assert.equal(m.json.keyCommitment, crypto.createHmac('sha256', Buffer.from(res.key, 'base64url'))
			.update('burnlink key commitment v1').digest('base64url'));
		// One character changed: 43 valid characters, a 256-bit key, another key.
		const changed = res.key.slice(0, 5) + (res.key[5] === 'A' ? 'B' : 'A') + res.key.slice(6);
		const ctx = await context();
		const p = await ctx.newPage();
		await openLink(p, res.link.split('#')[0] + '#key=' + changed);
		await shown(p, 'gone-view');
		assert.equal(await p.textContent('#gone-title'), 'This link’s key does not fit');
		assert.match(await p.textContent('#gone-extra'), /No view was used/);
		const calls = (await ctx.requests()).filter((r) => r.url.includes('/api/'));
		assert.deepEqual(calls.map((r) => r.method), ['GET'], 'only the metadata was asked');
		assert.equal((await api(srv.base, 'GET', res.receiptKey)).json.viewCount, 0, 'no view was spent');
		// The right link still reveals it.
		const q = await page();
		await openLink(q, res.link);
		await shown(q, 'ready-view');
		await q.click('#reveal-button');
		await shown(q, 'secret-view');
		assert.equal(await q.textContent('#secret-text'), 'fits only its own key');
	});

	test('a secret stored without a key commitment still reveals with its key', async () => {
		const res = await apiCreate(srv.base, 'no commitment');
		keys.push(res.key);
		assert.equal((await api(srv.base, 'GET', res.secretKey)).json.keyCommitment, null);
		const p = await page();
		await openLink(p, res.link);
		await shown(p, 'ready-view');
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), 'no commitment');
	});

	test('the page works on a 360 px wide phone without sideways scrolling', async () => {
		const sender = await page({ viewport: PHONE });
		const res = await createSecret(sender, srv.base, { text: 'x'.repeat(500), views: 2 });
		keys.push(res.key);
		const width = () => sender.evaluate(() => document.documentElement.scrollWidth);
		assert.ok(await width() <= PHONE.width, 'result view fits');
		const p = await page({ viewport: PHONE });
		await openLink(p, res.link);
		assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'ready view fits');
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'secret view fits');
		await p.goto(res.receipt);
		await shown(p, 'receipt-view');
		assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'receipt fits');
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');
		assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'create view fits');
	});

	test('the page works without the QR library', async () => {
		const ctx = await context();
		await ctx.route('**/assets/vendor/qrcode.js', (route) => route.fulfill({ status: 404, body: '' }));
		const p = await ctx.newPage();
		const res = await createSecret(p, srv.base, { text: 'no qr' });
		keys.push(res.key);
		assert.equal(await p.isVisible('#qr-figure'), false);
		await p.click('#create-another');
		await shown(p, 'create-view');
		assert.equal(await p.inputValue('#text'), '');
		assert.equal(await p.evaluate(() => document.activeElement.id), 'text');
	});

	test('the QR code is drawn in the browser', async () => {
		assert.ok(fs.existsSync(new URL('../../www/assets/vendor/qrcode.js', import.meta.url)),
			'www/assets/vendor/qrcode.js is missing: the build copies it from node_modules/qrcode-generator');
		const p = await page();
		const res = await createSecret(p, srv.base, { text: 'qr' });
		keys.push(res.key);
		await shown(p, 'qr-figure');
		const dark = await p.evaluate(() => {
			const c = document.getElementById('qr-canvas');
			const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
			let n = 0;
			for (let i = 0; i < d.length; i += 4)
				if (d[i] === 0)
					n++;
			return n;
		});
		assert.ok(dark > 1000, 'the canvas holds a drawn code');
	});

	test('under a path prefix, every address the page uses stays under it', async () => {
		// The site as it would be installed at /burnlink/: the browser sees the
		// prefix, and the route hands each request to the server without it.
		const prefix = `${srv.base}/burnlink`;
		const ctx = await context();
		await ctx.route(`${prefix}/**`, async (route) => {
			const req = route.request();
			const headers = { ...req.headers() };
			delete headers.host;
			let res;
			try {
				// A fresh connection per request (no keep-alive to go stale).
				res = await rawRequest(srv.base, {
					method: req.method(), path: req.url().slice(prefix.length), headers,
					body: req.postDataBuffer() || undefined,
				});
			} catch {
				return route.abort().catch(() => {});
			}
			let body = res.body;
			if (/json/.test(res.headers['content-type'] || '')) {
				const esc = (u) => u.replace(/\//g, '\\/');
				body = res.text.split(srv.base + '/').join(prefix + '/')
					.split(esc(srv.base + '/')).join(esc(prefix + '/'));
			}
			const out = {};
			for (const [k, v] of Object.entries(res.headers))
				if (k !== 'content-length' && k !== 'transfer-encoding')
					out[k] = Array.isArray(v) ? v.join(', ') : v;
			return route.fulfill({ status: res.status, headers: out, body }).catch(() => {});
		});
		const p = await ctx.newPage();
		const res = await createSecret(p, prefix, { text: 'under a prefix', views: 2 });
		keys.push(res.key);
		assert.ok(res.link.startsWith(`${prefix}/secret/`), res.link);
		await openLink(p, res.link);
		await p.click('#reveal-button');
		await shown(p, 'secret-view');
		assert.equal(await p.textContent('#secret-text'), 'under a prefix');
		await p.click('a.brand');
		await shown(p, 'create-view');
		await p.goto(res.receipt);
		await shown(p, 'receipt-view');
		assert.equal(await p.textContent('#r-used'), '1 of 2');
		const outside = (await ctx.requests()).filter((r) => !r.url.startsWith(`${prefix}/`) && r.url !== 'about:blank');
		assert.deepEqual(outside.map((r) => r.url), []);
		assert.deepEqual(ctx.problems, []);
	});

	test('no key ever appears in a request the browser sent or in the server log', async () => {
		assert.ok(keys.length >= 10);
		const log = srv.accessLog();
		assert.ok(log.includes('/api/secrets'), 'the access log is being written');
		for (const k of keys) {
			const std = Buffer.from(k, 'base64url').toString('base64');
			for (const needle of [k, std, std.replace(/=+$/, ''), encodeURIComponent(std)]) {
				assert.deepEqual(await requestsContaining(contexts, needle), [], `key ${k} was sent`);
				assert.ok(!log.includes(needle), `key ${k} is in the access log`);
			}
		}
		for (const ctx of contexts)
			assert.deepEqual(ctx.problems, []);
	});
});
