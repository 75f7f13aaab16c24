// screenshots.mjs: regenerates docs/screenshots/*.png (run by `make screenshots`):
// the create page, the result, the reveal page before and after Reveal, and the
// receipt, in the light and the dark theme, on a desktop and a 360 px phone;
// then the create and reveal pages in Arabic (right to left) and Japanese;
// then the operator's page /admin with an account open (light, dark, phone).
// It serves the real page and programs through lighttpd with a fresh database.
//
//   node tests/browser/screenshots.mjs [output-dir]

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { ROOT, missing, launch, newContext, shown, openLink, readResult, DESKTOP, PHONE } from './helpers.mjs';

const why = missing();
if (why) {
	console.error(`screenshots: ${why}`);
	process.exit(1);
}

const out = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'screenshots'));
fs.mkdirSync(out, { recursive: true });

const TEXT = 'Database: db.internal:5432\nUser:     deploy\nPassword: x7!Qm#2pLr9$vT\n\nRotate it after the migration.';
const FILE = { name: 'deploy-key.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\n'.repeat(40)) };
const SIZES = { desktop: { ...DESKTOP, height: 760 }, phone: PHONE };

// The pages in other languages: the browser's language chooses the page's; the
// secret is written in that language too (it keeps its own direction).
const LANGUAGES = {
	ar: { locale: 'ar-EG', text: 'قاعدة البيانات: db.internal:5432\nالمستخدم: deploy\nكلمة المرور: x7!Qm#2pLr9$vT\n\nغيّرها بعد الترحيل.' },
	ja: { locale: 'ja-JP', text: 'データベース: db.internal:5432\nユーザー: deploy\nパスワード: x7!Qm#2pLr9$vT\n\n移行後に変更してください。' },
};

// The links shown carry a site address as a real install would have.
const SITE = 'https://burnlink.example';
const srv = await startServer({ server: 'lighttpd', env: { BURNLINK_SITE_URL: SITE } });
const local = (u) => u.replace(SITE, srv.base);
const browser = await launch();
const written = [];

async function shot(page, name) {
	await page.evaluate(() => document.activeElement && document.activeElement.blur());
	const file = path.join(out, `${name}.png`);
	await page.screenshot({ path: file, fullPage: true });
	written.push(file);
}

try {
	for (const [device, viewport] of Object.entries(SIZES)) {
		for (const scheme of ['light', 'dark']) {
			const tag = `${scheme}-${device}`;
			const ctx = await newContext(browser, { colorScheme: scheme, viewport });
			const p = await ctx.newPage();
			await p.goto(srv.base + '/');
			await shown(p, 'create-view');
			await p.fill('#text', TEXT);
			await p.setInputFiles('#file-input', [FILE]);
			await p.fill('#views', '3');
			await p.fill('#passphrase', 'blue-harbour-41');
			await shot(p, `create-${tag}`);
			await p.click('#create-button');
			await shown(p, 'result-view');
			await shot(p, `result-${tag}`);
			const { link, receipt } = await readResult(p);
			assert.ok(link.startsWith(`${SITE}/secret/`), link);

			const other = await newContext(browser, { colorScheme: scheme, viewport });
			const q = await other.newPage();
			await openLink(q, local(link));
			await shown(q, 'ready-view');
			await q.fill('#passphrase', 'blue-harbour-41');
			await shot(q, `reveal-${tag}`);
			await q.click('#reveal-button');
			await shown(q, 'secret-view');
			await shot(q, `revealed-${tag}`);
			await other.close();

			await p.goto(local(receipt));
			await shown(p, 'receipt-view');
			await shot(p, `receipt-${tag}`);
			await ctx.close();
		}
	}
	for (const [code, { locale, text }] of Object.entries(LANGUAGES)) {
		for (const [device, viewport] of Object.entries(SIZES)) {
			const tag = `${code}-light-${device}`;
			const ctx = await newContext(browser, { viewport, context: { locale } });
			const p = await ctx.newPage();
			await p.goto(srv.base + '/');
			await shown(p, 'create-view');
			assert.equal(await p.getAttribute('html', 'lang'), code);
			await p.fill('#text', text);
			await p.setInputFiles('#file-input', [FILE]);
			await p.fill('#views', '3');
			await p.fill('#passphrase', 'blue-harbour-41');
			await shot(p, `create-${tag}`);
			await p.click('#create-button');
			await shown(p, 'result-view');
			const { link } = await readResult(p);
			const q = await ctx.newPage();
			await openLink(q, local(link));
			await shown(q, 'ready-view');
			await q.fill('#passphrase', 'blue-harbour-41');
			await shot(q, `reveal-${tag}`);
			await ctx.close();
		}
	}
	// The admin page: accounts made by the operator's tool on the server's database.
	const adminTool = (args, input = '') => execFileSync(path.join(ROOT, 'tools', 'burnlink-admin'), args, {
		input, stdio: ['pipe', 'ignore', 'pipe'],
		env: { ...process.env, BURNLINK_DB: srv.db, BURNLINK_SECRET_FILE: path.join(path.dirname(srv.db), 'secret.key') } });
	for (const name of ['ops@example.org', 'alex@example.org', 'sam@example.org']) {
		adminTool(['account', 'create', name]);
		adminTool(['account', 'password', name], 'a long enough password\n');
	}
	adminTool(['account', 'admin', 'ops@example.org', 'on']);
	adminTool(['account', 'disable', 'sam@example.org']);
	for (const [tag, opts] of [['light-desktop', {}], ['dark-desktop', { colorScheme: 'dark' }], ['light-phone', { viewport: PHONE }]]) {
		const ctx = await newContext(browser, { viewport: SIZES.desktop, ...opts });
		const p = await ctx.newPage();
		await p.goto(srv.base + '/dashboard');
		await shown(p, 'signin-view');
		await p.fill('#signin-email', 'ops@example.org');
		await p.fill('#signin-password', 'a long enough password');
		await p.click('#signin-button');
		await shown(p, 'dashboard-view');
		await p.goto(srv.base + '/admin');
		await shown(p, 'admin-view');
		await p.locator('#accounts-body tr', { hasText: 'alex@example.org' }).locator('button').click();
		await shown(p, 'account-detail');
		await p.locator('#events-body tr').first().waitFor();
		await shot(p, `admin-${tag}`);
		await ctx.close();
	}
} finally {
	await browser.close();
	await srv.stop();
}

for (const f of written)
	console.log(`${path.relative(ROOT, f)} (${Math.round(fs.statSync(f).size / 1024)} KiB)`);
