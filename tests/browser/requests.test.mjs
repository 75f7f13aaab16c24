// requests.test.mjs: the secret request pages (docs/PAGE.md, "Secret
// requests") in Chromium, requester and sender in separate browser contexts:
// page to page, page to CLI and CLI to page (text and files byte for byte),
// nothing secret in any request, axe on every state in light and dark, and a
// keyboard-only run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

import { startServer } from '../lib/server.mjs';
import { ROOT, missing, launch, newContext, shown, requestsContaining, axeViolations, axeScript } from './helpers.mjs';
import { run as runCli, tmpDir } from '../cli/helpers.mjs';

const skip = missing();
// The English catalogue: the pages' words (docs/PAGE.md, "Languages").
const EN = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'assets', 'i18n', 'en.json'), 'utf8'));

// The focus ring is visible on the focused element.
async function focusVisible(page) {
	return page.evaluate(() => {
		const cs = getComputedStyle(document.activeElement);
		return (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) ||
			(cs.boxShadow && cs.boxShadow !== 'none');
	});
}

// Presses Tab until #id has the focus (every stop shows its focus).
async function tabTo(page, id, max = 30) {
	for (let i = 0; i < max; i++) {
		await page.keyboard.press('Tab');
		assert.ok(await focusVisible(page), 'the focus is visible');
		if (await page.evaluate(() => document.activeElement.id) === id)
			return;
	}
	throw new Error(`#${id} not reached by Tab`);
}

describe('secret request pages', { skip: skip || false }, () => {
	let srv, browser;
	const cli = (args, opts = {}) => runCli(args, { ...opts, env: { BURNLINK_URL: srv.base } });

	before(async () => {
		srv = await startServer({ server: 'lighttpd' });
		browser = await launch();
	});
	after(async () => {
		await browser?.close();
		await srv?.stop();
	});

	// The requester's page: asks, resolves to {requestLink, inboxLink}.
	async function ask(page, { note = '', files = false } = {}) {
		await page.goto(srv.base + '/ask');
		await shown(page, 'ask-view');
		if (note)
			await page.fill('#note', note);
		if (files)
			await page.check('#allow-files');
		await page.click('#ask-button');
		await shown(page, 'asked-view');
		return { requestLink: await page.inputValue('#request-link'), inboxLink: await page.inputValue('#inbox-link') };
	}

	// The sender's page: answers a request link with text and files.
	async function answer(page, link, { text, files = [] }) {
		await page.goto(link);
		await shown(page, 'answer-view');
		await page.fill('#answer-text', text);
		if (files.length)
			await page.setInputFiles('#answer-files', files);
		await page.click('#answer-button');
		await shown(page, 'done-view');
		assert.equal(await page.textContent('#done-title'), EN['request.sentTitle']);
	}

	// The requester's inbox: reveals, resolves to {text, files: [{name, data}]}.
	async function reveal(page, inboxLink) {
		await page.goto('about:blank');	// the same address with its fragment would not reload
		await page.goto(inboxLink);
		await shown(page, 'inbox-view');
		await page.click('#reveal');
		await shown(page, 'revealed-view');
		const text = await page.locator('#revealed-text-field').isVisible() ? await page.inputValue('#revealed-text') : null;
		const files = [];
		for (const a of await page.locator('#revealed-files a').all()) {
			const [dl] = await Promise.all([page.waitForEvent('download'), a.click()]);
			files.push({ name: dl.suggestedFilename(), data: fs.readFileSync(await dl.path()) });
		}
		return { text, files };
	}

	test('page to page in two browsers: note, text and a file byte for byte; nothing secret on the wire', async () => {
		const a = await newContext(browser);
		const b = await newContext(browser);
		const pa = await a.newPage();
		const pb = await b.newPage();
		const q = await ask(pa, { note: 'the VPN password for host X, please', files: true });
		assert.match(q.requestLink, /\/request\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{43}$/);
		assert.match(q.inboxLink, /\/inbox\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{182}$/);

		const inbox = await a.newPage();
		await inbox.goto(q.inboxLink);
		await shown(inbox, 'inbox-view');
		assert.equal(await inbox.textContent('#i-state'), EN['request.state.waiting']);
		assert.ok(await inbox.locator('#reveal').isHidden());

		await pb.goto(q.requestLink);
		await shown(pb, 'answer-view');
		assert.equal(await pb.textContent('#note-text'), 'the VPN password for host X, please');
		const bytes = crypto.randomBytes(40000);
		const secret = 'p\u00e4ss  word\n\tline two';
		await answer(pb, q.requestLink, { text: secret, files: [{ name: 'key.bin', mimeType: 'application/octet-stream', buffer: bytes }] });

		const got = await reveal(inbox, q.inboxLink);
		assert.equal(got.text, secret);
		// the key has left the address bar, as on the secret page
		assert.equal(inbox.url(), q.inboxLink.split('#')[0]);
		assert.equal(await inbox.evaluate(() => location.hash), '');
		assert.equal(got.files[0].name, 'key.bin');
		assert.ok(got.files[0].data.equals(bytes));

		for (const needle of [q.inboxLink.split('#key=')[1], q.requestLink.split('#key=')[1], secret, 'the VPN password'])
			assert.deepEqual(await requestsContaining([a, b], needle), [], `sent: ${needle}`);
		assert.deepEqual([...a.problems, ...b.problems], []);
		await a.close();
		await b.close();
	});

	test('CLI request answered in the page, read by the CLI; page request answered by the CLI, read in the page', async () => {
		const r = await cli(['request', '--note', 'from the CLI', '--files']);
		assert.equal(r.code, 0, r.err);
		const [requestLink, inboxLink] = r.out.trim().split('\n');
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		const bytes = crypto.randomBytes(3000);
		await page.goto(requestLink);
		await shown(page, 'answer-view');
		assert.equal(await page.textContent('#note-text'), 'from the CLI');
		await answer(page, requestLink, { text: 'page secret \u20ac', files: [{ name: 'a.bin', mimeType: 'application/x-thing', buffer: bytes }] });
		const out = tmpDir();
		const g = await cli(['get', inboxLink, '-o', out]);
		assert.equal(g.code, 0, g.err);
		assert.equal(g.out, 'page secret \u20ac');
		assert.ok(fs.readFileSync(path.join(out, 'a.bin')).equals(bytes));

		const q = await ask(page, { files: true });
		const dir = tmpDir();
		const fileBytes = crypto.randomBytes(5000);
		fs.writeFileSync(path.join(dir, 'c.bin'), fileBytes);
		const a = await cli(['answer', q.requestLink, 'cli secret\n', '-f', path.join(dir, 'c.bin')]);
		assert.equal(a.code, 0, a.err);
		const got = await reveal(page, q.inboxLink);
		assert.equal(got.text, 'cli secret\n');
		assert.ok(got.files[0].data.equals(fileBytes));
		assert.deepEqual(ctx.problems, []);
		await ctx.close();
	});

	test('burn by the sender and by the requester; states shown in the inbox', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		page.on('dialog', (d) => d.accept());
		const q = await ask(page);
		const s = await ctx.newPage();
		s.on('dialog', (d) => d.accept());
		await s.goto(q.requestLink);
		await shown(s, 'answer-view');
		await s.click('#sender-burn');
		await shown(s, 'done-view');
		await page.goto(q.inboxLink);
		await shown(page, 'inbox-view');
		assert.equal(await page.textContent('#i-state'), EN['request.state.burned']);
		assert.ok(await page.locator('#inbox-burn').isHidden());

		const q2 = await ask(page);
		await page.goto(q2.inboxLink);
		await shown(page, 'inbox-view');
		await page.click('#inbox-burn');
		await shown(page, 'done-view');
		await s.goto(q2.requestLink);
		await shown(s, 'done-view');
		assert.equal(await s.textContent('#done-title'), EN['request.burnedTitle']);
		await ctx.close();
	});

	test('the inbox shows the hint about Reveal only with the Reveal button: not while waiting, not once read', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		const q = await ask(page);
		const open = async () => {
			await page.goto('about:blank');
			await page.goto(q.inboxLink);
			await shown(page, 'inbox-view');
			// the state's badge stands out from the heading, in every state
			assert.ok(await page.locator('#inbox-badge').evaluate((b) => {
				const cs = getComputedStyle(b);
				return cs.backgroundColor !== 'rgba(0, 0, 0, 0)' || parseFloat(cs.borderTopWidth) > 0;
			}), `the ${await page.getAttribute('body', 'data-state')} badge has a background or border`);
			return { reveal: await page.locator('#reveal').isVisible(), hint: await page.getByText(EN['request.revealHint']).isVisible() };
		};
		assert.deepEqual(await open(), { reveal: false, hint: false }, 'waiting');
		const s = await ctx.newPage();
		await answer(s, q.requestLink, { text: 'hint' });
		assert.deepEqual(await open(), { reveal: true, hint: true }, 'answered');
		await page.click('#reveal');
		await shown(page, 'revealed-view');
		assert.deepEqual(await open(), { reveal: false, hint: false }, 'read');
		assert.equal(await page.textContent('#i-state'), EN['request.state.read']);
		assert.deepEqual(ctx.problems, []);
		await ctx.close();
	});

	test('an inbox link whose key pair, note key or check was changed in transit is a damaged link; the answer stays for the right one', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		const q = await ask(page);
		const s = await ctx.newPage();
		await answer(s, q.requestLink, { text: 'still there' });
		// One character of the private scalar, one of the public point, one of
		// the note key (issue 29, item 10: its only check was the answer's
		// decryption, after the read) and one of the check, changed into
		// other valid ones: still 182 base64 characters.
		const at = q.inboxLink.indexOf('#key=') + 5;
		const change = (i) => q.inboxLink.slice(0, at + i) + (q.inboxLink[at + i] === 'A' ? 'B' : 'A') + q.inboxLink.slice(at + i + 1);
		for (const damaged of [change(1), change(60), change(150), change(175)]) {
			await page.goto('about:blank');
			await page.goto(damaged);
			await shown(page, 'done-view');
			assert.equal(await page.textContent('#done-title'), EN['request.linkBroken']);
		}
		const inboxKey = /\/inbox\/([A-Za-z0-9_-]{22})/.exec(q.inboxLink)[1];
		const sent = (await ctx.requests()).filter((r) => r.url.endsWith(`/api/requests/${inboxKey}`));
		assert.deepEqual(sent, [], 'nothing was asked about the inbox with a damaged link');
		assert.equal((await reveal(page, q.inboxLink)).text, 'still there');
		await ctx.close();
	});

	test('the inbox offers an answer\'s files as the secret page does: octet-stream blobs, names without bidi or control characters', async () => {
		const ctx = await newContext(browser);
		// The type of every blob the pages make into a URL.
		await ctx.addInitScript(() => {
			const make = URL.createObjectURL;
			window.blobTypes = [];
			URL.createObjectURL = (blob) => {
				window.blobTypes.push(blob.type);
				return make.call(URL, blob);
			};
		});
		const page = await ctx.newPage();
		const q = await ask(page, { files: true });
		const s = await ctx.newPage();
		await answer(s, q.requestLink, { text: 'see the files', files: [
			{ name: 'invoice\u202Efdp.exe', mimeType: 'application/pdf', buffer: Buffer.from('MZ') },
			{ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<h1>rendered?</h1>') },
		] });
		const got = await reveal(page, q.inboxLink);
		assert.deepEqual(got.files.map((f) => f.name), ['invoice_fdp.exe', 'page.html']);
		assert.deepEqual(await page.locator('#revealed-files a').evaluateAll((as) => as.map((a) => a.download)),
			['invoice_fdp.exe', 'page.html']);
		assert.deepEqual(await page.evaluate(() => window.blobTypes), ['application/octet-stream', 'application/octet-stream']);
		await ctx.close();
	});

	test('keyboard only: ask, answer and reveal', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/ask');
		await shown(page, 'ask-view');
		await tabTo(page, 'note');
		await page.keyboard.type('keyboard note');
		await tabTo(page, 'ask-button');
		await page.keyboard.press('Enter');
		await shown(page, 'asked-view');
		assert.equal(await page.evaluate(() => document.activeElement.id), 'asked-title');
		const requestLink = await page.inputValue('#request-link');
		const inboxLink = await page.inputValue('#inbox-link');

		const s = await ctx.newPage();
		await s.goto(requestLink);
		await shown(s, 'answer-view');
		await tabTo(s, 'answer-text');
		await s.keyboard.type('typed secret');
		await tabTo(s, 'answer-button');
		await s.keyboard.press('Enter');
		await shown(s, 'done-view');

		await page.goto(inboxLink);
		await shown(page, 'inbox-view');
		await tabTo(page, 'reveal');
		await page.keyboard.press('Enter');
		await shown(page, 'revealed-view');
		assert.equal(await page.inputValue('#revealed-text'), 'typed secret');
		await ctx.close();
	});

	test('axe: no violations on any state, light and dark', async () => {
		const found = [];
		const check = async (page, what) => {
			for (const v of await axeViolations(page))
				found.push(`${what} (light): ${v}`);
			await page.emulateMedia({ colorScheme: 'dark' });
			for (const v of await axeViolations(page, ['color-contrast', 'link-in-text-block']))
				found.push(`${what} (dark): ${v}`);
			await page.emulateMedia({ colorScheme: 'light' });
		};
		const ctx = await newContext(browser, { context: { reducedMotion: 'reduce' } });
		await ctx.addInitScript({ content: axeScript() });
		const page = await ctx.newPage();
		await page.goto(srv.base + '/ask');
		await shown(page, 'ask-view');
		await check(page, 'ask');
		await page.fill('#note', '\u00e9'.repeat(600));	// 1200 bytes in 600 characters
		await page.click('#ask-button');
		await page.locator('#ask-error').waitFor();
		await check(page, 'ask with an error');
		const q = await ask(page, { note: 'axe', files: true });
		await check(page, 'asked');

		const s = await ctx.newPage();
		await s.goto(q.requestLink);
		await shown(s, 'answer-view');
		await check(s, 'answer form');
		await s.click('#answer-button');
		await s.locator('#answer-error').waitFor();
		await check(s, 'answer form with an error');
		await answer(s, q.requestLink, { text: 'axe secret', files: [{ name: 'f.txt', mimeType: 'text/plain', buffer: Buffer.from('f') }] });
		await check(s, 'sent');

		await page.goto('about:blank');
		await page.goto(q.inboxLink);
		await shown(page, 'inbox-view');
		await check(page, 'inbox answered');
		await page.click('#reveal');
		await shown(page, 'revealed-view');
		await check(page, 'revealed');
		await page.goto('about:blank');
		await page.goto(q.inboxLink);
		await shown(page, 'inbox-view');
		await check(page, 'inbox read');
		const w = await ask(page);
		await page.goto(w.inboxLink);
		await shown(page, 'inbox-view');
		await check(page, 'inbox waiting');
		await s.goto(q.requestLink);
		await shown(s, 'done-view');
		await check(s, 'request answered already');
		await s.goto(srv.base + '/request/AAAAAAAAAAAAAAAAAAAAAA#key=broken');
		await shown(s, 'done-view');
		await check(s, 'broken link');
		assert.deepEqual(found, []);
		await ctx.close();
	});
});
