// The page in the reader's language (docs/PAGE.md, "Languages"), in Debian's
// chromium against the real lighttpd and programs: the browser's language
// chooses the catalogue and no English shows before it is applied; lang and
// dir are set; the menu switches, re-renders what is shown and remembers the
// choice in localStorage (no cookie); whole runs in Arabic and German; a
// 360 px phone never scrolls sideways; axe-core finds nothing in Arabic (RTL)
// and Japanese, light and dark; the operator's default and offered languages.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import {
	ROOT, missing, serverAndBrowser, newContext, createSecret, openLink, shown, axeViolations, axeScript, PHONE,
} from './helpers.mjs';

const skip = missing();
const DIR = path.join(ROOT, 'www', 'assets', 'i18n');
const cat = (code) => JSON.parse(fs.readFileSync(path.join(DIR, `${code}.json`), 'utf8'));
const EN = cat('en');

// A message as the page renders it (i18n.js): the plural form by
// Intl.PluralRules, numbers by Intl.NumberFormat.
function tr(code, key, args = {}) {
	let entry = cat(code)[key];
	if (typeof entry === 'object')
		entry = entry[new Intl.PluralRules(code).select(args.count ?? 0)] ?? entry.other;
	return entry.replace(/\{(\w+)\}/g, (m, n) => (n in args
		? (typeof args[n] === 'number' ? new Intl.NumberFormat(code, { useGrouping: 'min2' }).format(args[n]) : args[n])
		: m));
}

// The English words that must not show on a page in this language: the
// longest fixed part of each English message the language words otherwise
// (a part some message of the catalogue still holds in English, not yet
// translated, may show).
function englishOnly(code) {
	const mine = cat(code);
	const all = JSON.stringify(mine);
	const out = new Set();
	for (const [k, v] of Object.entries(EN)) {
		if (k.startsWith('_'))
			continue;
		const forms = typeof v === 'string' ? [v] : Object.values(v);
		const theirs = JSON.stringify(mine[k]);
		for (const f of forms) {
			const part = f.split(/\{\w+\}/).map((s) => s.trim()).sort((a, b) => b.length - a.length)[0];
			if (part.length >= 6 && !theirs.includes(part) && !all.includes(part))
				out.add(part);
		}
	}
	return [...out];
}

// Records the page's visible text before every frame (innerText leaves out
// what is invisible), from the first frame until three after the catalogue
// is applied.
const FRAMES = `
	window.__frames = [];
	(function sample() {
		const html = document.documentElement;
		const pending = !html || html.classList.contains('i18n-pending');
		window.__frames.push({ pending, lang: html ? html.lang : '', text: document.body ? document.body.innerText : '' });
		if (window.__frames.filter((f) => !f.pending).length < 3 && window.__frames.length < 5000)
			requestAnimationFrame(sample);
	})();
`;

// The visible text of the page holds none of these English words.
async function noEnglish(page, words, what) {
	const text = await page.evaluate(() => document.body.innerText);
	const seen = words.filter((w) => text.includes(w));
	assert.deepEqual(seen, [], `${what}: English words on the page`);
}

// An account made by the operator's tool on the test server's database
// (sign-up is closed there), run as the server's user as expireNewest() does.
function account(srv, email, password) {
	const env = { ...process.env, BURNLINK_DB: srv.db, BURNLINK_SECRET_FILE: path.join(path.dirname(srv.db), 'secret.key') };
	const argv = [path.join(ROOT, 'tools', 'burnlink-admin')];
	if (typeof process.getuid === 'function' && process.getuid() === 0 && srv.user && srv.user !== 'root')
		argv.unshift('runuser', '-u', srv.user, '--');
	for (const [args, input] of [[['account', 'create', email], ''], [['account', 'password', email], password + '\n']])
		execFileSync(argv[0], [...argv.slice(1), ...args], { env, input, stdio: ['pipe', 'ignore', 'pipe'] });
}

describe('languages', { skip: skip || false }, () => {
	let srv, browser;
	const contexts = [];

	async function context(locale, opts = {}) {
		const ctx = await newContext(browser, { ...opts, context: { locale, ...(opts.context || {}) } });
		contexts.push(ctx);
		return ctx;
	}

	serverAndBrowser(null, (s, b) => { srv = s; browser = b; });

	for (const [locale, code, dir] of [['de-DE', 'de', 'ltr'], ['ar-EG', 'ar', 'rtl'], ['ja-JP', 'ja', 'ltr'], ['pt-BR', 'pt-BR', 'ltr']]) {
		test(`${locale}: the page is in ${code} from the first frame, lang and dir set, the menu switches and remembers`, async (t) => {
			if (!fs.existsSync(path.join(DIR, `${code}.json`)))
				return t.skip(`no ${code}.json yet`);
			const ctx = await context(locale);
			await ctx.addInitScript({ content: FRAMES });
			const p = await ctx.newPage();
			await p.goto(srv.base + '/');
			await shown(p, 'create-view');
			await p.waitForFunction(() => window.__frames.filter((f) => !f.pending).length >= 3);
			const frames = await p.evaluate(() => window.__frames);
			const english = englishOnly(code);
			for (const f of frames) {
				const seen = english.filter((w) => f.text.includes(w));
				assert.deepEqual(seen, [], `a frame (pending: ${f.pending}) showed English`);
			}
			const first = frames.find((f) => !f.pending);
			assert.ok(first.text.includes(cat(code)['create.title']), 'the first visible frame is in the language');
			// while the catalogue loads, only the brand shows
			const early = frames.filter((f) => f.pending).map((f) => f.text.trim());
			assert.ok(early.length > 0 && early.every((s) => s === '' || s === 'burnlink'), early.join(' | '));

			assert.equal(await p.getAttribute('html', 'lang'), code);
			assert.equal(await p.getAttribute('html', 'dir'), dir);
			// what the languages cost: the index (preloaded with the page) and one catalogue
			const i18n = (await ctx.requests()).map((r) => r.url).filter((u) => u.includes('/assets/i18n'));
			assert.deepEqual(i18n.map((u) => u.replace(/^.*\/assets\//, '')).sort(),
				['i18n.js', 'i18n/index.json', `i18n/${code}.json`].sort());
			assert.equal(await p.textContent('#create-title'), cat(code)['create.title']);
			assert.equal(await p.title(), cat(code)['create.pageTitle']);
			assert.equal(await p.getAttribute('meta[name="description"]', 'content'), cat(code)['create.metaDescription']);
			assert.equal(await p.getAttribute('#toggle-passphrase', 'aria-label'), cat(code)['common.showPassphrase']);
			assert.equal(await p.inputValue('#language'), code);
			// the options are named in their own language, and say so
			const options = await p.$$eval('#language option', (os) => os.map((o) => ({ value: o.value, lang: o.lang, text: o.textContent })));
			assert.ok(options.length >= 4);
			for (const o of options) {
				assert.equal(o.lang, o.value);
				assert.ok(o.text.length > 1);
			}

			// The menu: English at once, everything shown re-rendered, remembered.
			await p.selectOption('#language', 'en');
			await p.waitForFunction(() => document.documentElement.lang === 'en');
			assert.equal(await p.getAttribute('html', 'dir'), 'ltr');
			assert.equal(await p.textContent('#create-title'), EN['create.title']);
			assert.equal(await p.textContent('#files-hint'), 'Up to 20 files, 2 MiB in total with the text.');
			assert.equal(await p.textContent('option[value="1800"]'), '30 minutes');
			assert.equal(await p.evaluate(() => localStorage.getItem('burnlink-language')), 'en');
			await p.reload();
			await shown(p, 'create-view');
			assert.equal(await p.getAttribute('html', 'lang'), 'en', 'the choice outlives a reload');
			assert.equal(await p.textContent('#create-title'), EN['create.title']);
			// ... and applies to the other pages of the site
			await p.goto(srv.base + '/secret/AAAAAAAAAAAAAAAAAAAAAA');
			await shown(p, 'gone-view');
			assert.equal(await p.textContent('#gone-title'), EN['gone.nokey.title']);
			await p.selectOption('#language', code);
			await p.waitForFunction((c) => document.documentElement.lang === c, code);
			assert.equal(await p.textContent('#gone-title'), cat(code)['gone.nokey.title']);
			assert.equal(await p.title(), `${cat(code)['gone.nokey.title']} · burnlink`);
			assert.deepEqual(await ctx.cookies(), [], 'no cookie');
			const sent = (await ctx.requests()).filter((r) => /cookie/i.test(Object.keys(r.headers).join(' ')));
			assert.deepEqual(sent.map((r) => r.url), [], 'no request carries a cookie');
			assert.deepEqual(ctx.problems, []);
		});
	}

	for (const code of ['ar', 'de']) {
		test(`${code}: create, reveal and receipt, all in ${code}`, async () => {
			const words = englishOnly(code);
			const sender = await (await context(code)).newPage();
			const text = code === 'ar' ? 'كلمة المرور: x7!Qm\nسطر ثانٍ' : 'Passwort: x7!Qm\nzweite Zeile';
			const fileName = code === 'ar' ? 'مفتاح النشر.pem' : 'Schlüssel.pem';
			const res = await createSecret(sender, srv.base, {
				text, views: 2, files: [{ name: fileName, mimeType: 'text/plain', buffer: Buffer.from('k') }],
			});
			assert.equal(await sender.textContent('#result-title'), tr(code, 'result.title'));
			assert.equal(await sender.textContent('#result-views'), tr(code, 'result.views', { count: 2 }));
			assert.equal(await sender.textContent('#result-passphrase'), tr(code, 'result.passphraseNone'));
			assert.match(await sender.textContent('#result-expiry'), new RegExp(new Intl.RelativeTimeFormat(code).format(1, 'day')));
			await noEnglish(sender, words, 'result');

			const rctx = await context(code);
			const r = await rctx.newPage();
			await openLink(r, res.link);
			await shown(r, 'ready-view');
			assert.equal(await r.textContent('#ready-title'), tr(code, 'reveal.readyTitle'));
			assert.equal(await r.textContent('#ready-views'), new Intl.NumberFormat(code).format(2));
			assert.equal(await r.textContent('#ready-passphrase'), tr(code, 'reveal.notNeeded'));
			await noEnglish(r, words, 'reveal ready');
			await r.click('#reveal-button');
			await shown(r, 'secret-view');
			assert.equal(await r.textContent('#secret-text'), text);
			// the secret and its file names keep their own direction
			assert.equal(await r.getAttribute('#secret-text', 'dir'), 'auto');
			assert.equal(await r.getAttribute('#files .file-name', 'dir'), 'auto');
			assert.equal(await r.textContent('#files .file-name'), fileName);
			assert.equal(await r.textContent('#files-title'), tr(code, 'reveal.files', { count: 1 }));
			assert.equal(await r.getAttribute('#files a', 'aria-label'), tr(code, 'reveal.downloadName', { name: fileName }));
			assert.match(await r.textContent('#views-message'), new RegExp(tr(code, 'reveal.viewsLeft', { count: 1 }).replace(/[.()]/g, '\\$&')));
			assert.equal(await r.title(), `${tr(code, 'reveal.secretTitle')} · burnlink`);
			await noEnglish(r, words, 'revealed');
			// the live region has said so, in the page's language
			await r.waitForFunction((s) => document.getElementById('status').textContent.trim() === s, tr(code, 'reveal.shownAnnounce'));
			// switching now re-renders the messages already shown, the hidden
			// live region's too, the secret stays
			await r.selectOption('#language', 'en');
			await r.waitForFunction(() => document.documentElement.lang === 'en');
			assert.equal((await r.textContent('#status')).trim(), EN['reveal.shownAnnounce']);
			assert.match(await r.textContent('#views-message'), /1 view left\./);
			assert.equal(await r.textContent('#files-title'), 'File');
			assert.equal(await r.textContent('#secret-text'), text);
			await r.selectOption('#language', code);
			await r.waitForFunction((c) => document.documentElement.lang === c, code);

			await sender.goto(res.receipt);
			await shown(sender, 'receipt-view');
			assert.equal(await sender.textContent('#state-badge'), tr(code, 'state.active'));
			assert.equal(await sender.textContent('#r-used'), tr(code, 'common.nOfMax', { n: 1, max: 2 }));
			assert.equal(await sender.textContent('#state-text'), tr(code, 'receipt.opened', { count: 1 }));
			assert.equal(await sender.title(), tr(code, 'receipt.titleState', { state: tr(code, 'state.active') }));
			await noEnglish(sender, words, 'receipt');
			await sender.click('#burn-button');
			await shown(sender, 'burn-confirm');
			await sender.click('#burn-yes');
			await sender.locator('#receipt-message:not([hidden])').waitFor();
			assert.match(await sender.textContent('#receipt-message'), new RegExp(tr(code, 'common.burned').replace(/[.]/g, '\\.')));
			assert.equal(await sender.textContent('#state-badge'), tr(code, 'state.burned'));
			await noEnglish(sender, words, 'receipt burned');

			// the burned link, in the recipient's language
			await openLink(r, res.link);
			await shown(r, 'gone-view');
			assert.equal(await r.textContent('#gone-title'), tr(code, 'gone.burned.title'));
			// an API error code in the language (the API's own words stay English)
			await r.goto(srv.base + '/');
			await shown(r, 'create-view');
			await r.click('#create-button');
			await r.locator('#form-error:not([hidden])').waitFor();
			assert.match(await r.textContent('#form-error'), new RegExp(tr(code, 'error.empty.title').replace(/[.]/g, '\\.')));
			assert.deepEqual([...sender.context().problems, ...rctx.problems], []);
		});
	}

	test('ar: ask, answer and inbox (the secret request pages) in Arabic, right to left, from the first frame', async () => {
		const code = 'ar';
		const words = englishOnly(code);
		const ctx = await context('ar-EG');
		await ctx.addInitScript({ content: FRAMES });
		const p = await ctx.newPage();
		await p.goto(srv.base + '/ask');
		await shown(p, 'ask-view');
		await p.waitForFunction(() => window.__frames.filter((f) => !f.pending).length >= 3);
		const frames = await p.evaluate(() => window.__frames);
		for (const f of frames)
			assert.deepEqual(words.filter((w) => f.text.includes(w)), [], `a frame (pending: ${f.pending}) showed English`);
		const early = frames.filter((f) => f.pending).map((f) => f.text.trim());
		assert.ok(early.every((t) => t === '' || t === 'burnlink'), early.join(' | '));
		assert.equal(await p.getAttribute('html', 'lang'), code);
		assert.equal(await p.getAttribute('html', 'dir'), 'rtl');
		assert.equal(await p.inputValue('#language'), code);
		assert.equal(await p.title(), tr(code, 'ask.pageTitle'));
		assert.equal(await p.textContent('#ask-title'), tr(code, 'ask.title'));
		await noEnglish(p, words, 'ask');
		// a note over the limit: the error in Arabic
		await p.fill('#note', '\u0645'.repeat(600));	// 1200 bytes in 600 characters
		await p.click('#ask-button');
		await p.locator('#ask-error:not([hidden])').waitFor();
		assert.match(await p.textContent('#ask-error'), new RegExp(tr(code, 'ask.noteTooLong').replace(/[.?()]/g, '\\$&')));
		await noEnglish(p, words, 'ask with an error');
		const note = 'كلمة مرور الشبكة، من فضلك';
		await p.fill('#note', note);
		await p.click('#ask-button');
		await shown(p, 'asked-view');
		await noEnglish(p, words, 'asked');
		const requestLink = await p.inputValue('#request-link');
		const inboxLink = await p.inputValue('#inbox-link');

		const s = await (await context('ar-EG')).newPage();
		await s.goto(requestLink);
		await shown(s, 'answer-view');
		assert.equal(await s.getAttribute('html', 'dir'), 'rtl');
		assert.equal(await s.textContent('#answer-title'), tr(code, 'request.title'));
		assert.equal(await s.textContent('#note-text'), note);
		assert.equal(await s.getAttribute('#note-text', 'dir'), 'auto');
		await noEnglish(s, words, 'answer form');
		await s.click('#answer-button');
		await s.locator('#answer-error:not([hidden])').waitFor();
		assert.match(await s.textContent('#answer-error'), new RegExp(tr(code, 'request.empty').replace(/[.?()]/g, '\\$&')));
		const secret = 'سر: x7!Qm';
		await s.fill('#answer-text', secret);
		await s.click('#answer-button');
		await shown(s, 'done-view');
		assert.equal(await s.textContent('#done-title'), tr(code, 'request.sentTitle'));
		assert.equal(await s.title(), tr(code, 'common.titleOf', { title: tr(code, 'request.sentTitle') }));
		await noEnglish(s, words, 'sent');

		await p.goto(inboxLink);
		await shown(p, 'inbox-view');
		const answered = tr(code, 'request.state.answered');
		assert.equal(await p.textContent('#i-state'), answered);
		assert.equal(await p.textContent('#inbox-badge'), answered);
		assert.equal(await p.title(), tr(code, 'request.inboxPageTitle', { state: answered }));
		await noEnglish(p, words, 'inbox');
		// the menu re-renders what the script put in
		await p.selectOption('#language', 'en');
		await p.waitForFunction(() => document.documentElement.lang === 'en');
		assert.equal(await p.textContent('#i-state'), EN['request.state.answered']);
		assert.equal(await p.getAttribute('html', 'dir'), 'ltr');
		await p.selectOption('#language', code);
		await p.waitForFunction((c) => document.documentElement.lang === c, code);
		await p.click('#reveal');
		await shown(p, 'revealed-view');
		assert.equal(await p.inputValue('#revealed-text'), secret);
		await noEnglish(p, words, 'revealed');
		assert.deepEqual([...ctx.problems, ...s.context().problems], []);
	});

	for (const code of ['de', 'ar']) {
		test(`${code}: a 360 px phone never scrolls sideways`, async () => {
			const ctx = await context(code, { viewport: PHONE });
			const p = await ctx.newPage();
			const wide = async (what) => {
				const w = await p.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
				assert.ok(w.scroll <= w.view, `${what}: ${w.scroll} px wide in a ${w.view} px view`);
			};
			await p.goto(srv.base + '/');
			await shown(p, 'create-view');
			await p.setInputFiles('#file-input', [
				{ name: 'Jahresabschlussprüfungsunterlagen-Entwurf.pdf', mimeType: 'application/pdf', buffer: Buffer.from('x') },
				{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(2097153) },
			]);
			await shown(p, 'form-error');
			await wide('create with files and an error');
			const res = await createSecret(p, srv.base, { text: 'Telefon', views: 3, passphrase: 'Donaudampfschiff' });
			await wide('result');
			const q = await (await context(code, { viewport: PHONE })).newPage();
			await openLink(q, res.link);
			await shown(q, 'ready-view');
			await q.fill('#passphrase', 'falsch!');
			await q.click('#reveal-button');
			await q.locator('#reveal-error:not([hidden])').waitFor();
			const pw = async (what) => {
				const w = await q.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
				assert.ok(w.scroll <= w.view, `${what}: ${w.scroll} px wide in a ${w.view} px view`);
			};
			await pw('reveal with a wrong passphrase');
			await q.fill('#passphrase', 'Donaudampfschiff');
			await q.click('#reveal-button');
			await shown(q, 'secret-view');
			await q.click('#burn-button');
			await pw('revealed, burn confirmation');
			await p.goto(res.receipt);
			await shown(p, 'receipt-view');
			await p.click('#burn-button');
			await wide('receipt, burn confirmation');
			await p.goto(srv.base + '/dashboard');
			await p.locator('#signin-view:not([hidden]), #error-view:not([hidden])').first().waitFor();
			await wide('dashboard sign-in');
			// signed in, with a key: the tables scroll inside their box, the
			// page does not (their visually hidden headers included)
			const email = `phone-${code}@example.org`;
			account(srv, email, 'ein langes Passwort');
			await p.fill('#signin-email', email);
			await p.fill('#signin-password', 'ein langes Passwort');
			await p.click('#signin-button');
			await shown(p, 'dashboard-view');
			await p.fill('#key-name', 'Laptop im Büro');
			await p.click('#key-create');
			await shown(p, 'new-key');
			await p.locator('#keys-body tr').first().waitFor();
			await wide('dashboard with a key');
		});
	}

	// Issue 31: the two-step sign-in card in every language of the site. One
	// page, set up in English, switched through each catalogue: every text of
	// the card while setting up is the language's, none is left in English.
	test('every language: the two-step sign-in card while setting up, none of it left in English', async () => {
		const email = 'totp-languages@example.org';
		account(srv, email, 'ein langes Passwort');
		const p = await (await context('en')).newPage();
		await p.goto(srv.base + '/dashboard');
		await shown(p, 'signin-view');
		await p.fill('#signin-email', email);
		await p.fill('#signin-password', 'ein langes Passwort');
		await p.click('#signin-button');
		await shown(p, 'dashboard-view');
		await p.fill('#totp-password', 'ein langes Passwort');
		await p.click('#totp-start-button');
		await p.locator('#totp-enrol').waitFor({ state: 'visible' });
		const KEYS = ['totp.title', 'totp.scan', 'totp.secretLabel', 'totp.code', 'totp.confirm'];
		const codes = fs.readdirSync(DIR).filter((f) => f.endsWith('.json') && f !== 'index.json').map((f) => f.slice(0, -5));
		assert.equal(codes.length, 31);
		for (const code of [...codes.filter((c) => c !== 'en'), 'en']) {
			await p.selectOption('#language', code);
			await p.waitForFunction((c) => document.documentElement.lang === c, code);
			const text = await p.textContent('#totp-card');
			for (const k of KEYS) {
				assert.ok(text.includes(cat(code)[k]), `${code}: ${k} is shown in the language`);
				if (code !== 'en' && EN[k].length >= 6) {
					assert.notEqual(cat(code)[k], EN[k], `${code}.json: ${k} is an English copy`);
					assert.ok(!text.includes(EN[k]), `${code}: "${EN[k]}" left in English`);
				}
			}
			assert.equal(await p.getAttribute('#totp-qr', 'aria-label'), cat(code)['totp.qrLabel'], `${code}: the QR code's name`);
		}
		assert.deepEqual(p.context().problems, []);
	});

	test('axe: no violations in Arabic (right to left) and Japanese, light and dark', async () => {
		const found = [];
		for (const code of ['ar', 'ja']) {
			const check = async (page, what) => {
				for (const v of await axeViolations(page))
					found.push(`${code} ${what} (light): ${v}`);
				await page.emulateMedia({ colorScheme: 'dark' });
				for (const v of await axeViolations(page, ['color-contrast', 'link-in-text-block']))
					found.push(`${code} ${what} (dark): ${v}`);
				await page.emulateMedia({ colorScheme: 'light' });
			};
			const ctx = await context(code, { context: { reducedMotion: 'reduce' } });
			await ctx.addInitScript({ content: axeScript() });
			const p = await ctx.newPage();
			await p.goto(srv.base + '/');
			await shown(p, 'create-view');
			await check(p, 'create');
			await p.setInputFiles('#file-input', [{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(2097153) }]);
			await shown(p, 'form-error');
			await check(p, 'create with an error');
			const res = await createSecret(p, srv.base, {
				text: 'axe', views: 2, passphrase: 'open sesame',
				files: [{ name: 'ملف.txt', mimeType: 'text/plain', buffer: Buffer.from('1') }],
			});
			await check(p, 'result');
			const r = await ctx.newPage();
			await openLink(r, res.link);
			await check(r, 'reveal ready');
			await r.fill('#passphrase', 'open sesame');
			await r.click('#reveal-button');
			await shown(r, 'secret-view');
			await check(r, 'revealed');
			await p.goto(res.receipt);
			await shown(p, 'receipt-view');
			await check(p, 'receipt');
			await p.goto(srv.base + '/dashboard');
			await shown(p, 'signin-view');
			await check(p, 'sign-in');
		}
		assert.deepEqual(found, []);
	});

	test('without JavaScript each page shows its noscript message (English only) and nothing else', async () => {
		const p = await (await context('de-DE', { context: { javaScriptEnabled: false } })).newPage();
		for (const [path, words] of [['/', /needs JavaScript/], ['/secret/AAAAAAAAAAAAAAAAAAAAAA', /needs JavaScript/],
			['/receipt/AAAAAAAAAAAAAAAAAAAAAA', /needs JavaScript/], ['/dashboard', /needs JavaScript/],
			['/ask', /needs JavaScript/], ['/request/AAAAAAAAAAAAAAAAAAAAAA', /needs JavaScript/]]) {
			await p.goto(srv.base + path);
			const text = (await p.evaluate(() => document.body.innerText)).trim();
			assert.match(text, words, path);
			assert.deepEqual(text.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 1), ['burnlink'], path);
			assert.equal(text.split('\n').filter((l) => l.trim()).length, 2, `${path}: only the brand and the message: ${text}`);
		}
	});

	// A number in a message is a placeholder, written as the page writes every
	// number (Intl.NumberFormat in the reader's variant): in Egyptian Arabic the
	// dashboard's footer and the password hint both in Arabic-Indic digits.
	test('ar-EG: the dashboard footer writes its hours in the digits of the rest of the page', async () => {
		const ctx = await context('ar-EG');
		const p = await ctx.newPage();
		await p.goto(srv.base + '/dashboard');
		await shown(p, 'signin-view');
		const twelve = await p.evaluate(() => new Intl.NumberFormat('ar-EG').format(12));
		const hint = await p.textContent('#signup-password-hint');
		const footer = await p.textContent('[data-i18n="dash.footer"]');
		assert.ok(hint.includes(await p.evaluate(() => new Intl.NumberFormat('ar-EG').format(256))), hint);
		assert.ok(footer.includes(twelve), footer);
		assert.equal(/[0-9]/.test(footer), /[0-9]/.test(hint), `${footer} | ${hint}`);
		await ctx.close();
	});

	test('the browser\'s languages are matched with fallbacks', async () => {
		const p = await (await context('en-GB')).newPage();
		await p.goto(srv.base + '/');
		await shown(p, 'create-view');
		const got = await p.evaluate(async () => {
			const m = await import(new URL('assets/i18n.js', location.href).href);
			const all = ['ar', 'de', 'en', 'pt', 'pt-BR', 'zh-Hans', 'zh-Hant'];
			return {
				ptBR: m.bestMatch(['pt-BR'], all),
				ptPT: m.bestMatch(['pt-PT'], all),
				ptBRonlyPt: m.bestMatch(['pt-BR'], ['en', 'pt']),
				ptOnlyBR: m.bestMatch(['pt'], ['en', 'pt-BR']),
				zhTW: m.bestMatch(['zh-TW'], all),
				zhHK: m.bestMatch(['zh-HK'], all),
				zhHant: m.bestMatch(['zh-Hant'], all),
				zhCN: m.bestMatch(['zh-CN'], all),
				zh: m.bestMatch(['zh'], all),
				deAT: m.bestMatch(['de-AT'], all),
				order: m.bestMatch(['ko', 'ar-SA', 'de'], all),
				none: m.bestMatch(['ko', 'tlh'], all),
				broken: m.bestMatch(['', 'not a tag'], all),
			};
		});
		assert.deepEqual(got, {
			ptBR: 'pt-BR', ptPT: 'pt', ptBRonlyPt: 'pt', ptOnlyBR: 'pt-BR', zhTW: 'zh-Hant', zhHK: 'zh-Hant',
			zhHant: 'zh-Hant', zhCN: 'zh-Hans', zh: 'zh-Hans', deAT: 'de', order: 'ar', none: null, broken: null,
		});
		// a language without a catalogue (Swahili): English, the default
		const k = await (await context('sw-KE')).newPage();
		await k.goto(srv.base + '/');
		await shown(k, 'create-view');
		assert.equal(await k.getAttribute('html', 'lang'), 'en');
		assert.equal(await k.textContent('#create-title'), EN['create.title']);
	});

	test('the operator\'s default and offered languages (index.json)', async () => {
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-www-'));
		let own;
		try {
			fs.cpSync(path.join(ROOT, 'www'), tmp, { recursive: true });
			const idx = JSON.parse(fs.readFileSync(path.join(DIR, 'index.json'), 'utf8'));
			fs.writeFileSync(path.join(tmp, 'assets', 'i18n', 'index.json'),
				JSON.stringify({ ...idx, default: 'de', offered: ['de', 'en'] }));
			fs.chmodSync(tmp, 0o755);
			own = await startServer({ server: 'lighttpd', wwwDir: tmp });
			// Japanese is not offered: the operator's default
			const ctx = await context('ja-JP');
			const p = await ctx.newPage();
			await p.goto(own.base + '/');
			await shown(p, 'create-view');
			assert.equal(await p.getAttribute('html', 'lang'), 'de');
			assert.deepEqual(await p.$$eval('#language option', (os) => os.map((o) => o.value)), ['de', 'en']);
			// a stored choice that is no longer offered is ignored
			await p.evaluate(() => localStorage.setItem('burnlink-language', 'ar'));
			await p.reload();
			await shown(p, 'create-view');
			assert.equal(await p.getAttribute('html', 'lang'), 'de');
			// an offered language of the browser wins over the default
			const e = await (await context('en-US')).newPage();
			await e.goto(own.base + '/');
			await shown(e, 'create-view');
			assert.equal(await e.getAttribute('html', 'lang'), 'en');
		} finally {
			if (own)
				await own.stop();
			fs.rmSync(tmp, { recursive: true, force: true });
		}
	});
});
