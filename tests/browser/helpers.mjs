// Helpers for the browser tests: Debian's chromium driven by playwright-core,
// a record of every request the browser sends, the page actions a person takes,
// a small independent API client, and the axe-core accessibility check.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { after, before } from 'node:test';

import { rawRequest, startServer } from '../lib/server.mjs';
import { newKey, encodeKey, seal } from '../../www/assets/wire.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(ROOT, 'package.json'));

export const CHROMIUM = process.env.BURNLINK_CHROMIUM || '/usr/bin/chromium';
const ARGS = [
	'--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	'--disable-background-networking', '--disable-component-update', '--disable-sync',
	'--disable-dev-shm-usage',
];

// Why the browser suite cannot run here, or null when it can.
export function missing() {
	if (!fs.existsSync(CHROMIUM))
		return `${CHROMIUM} is missing (sh scripts/deps.sh browser)`;
	try {
		require.resolve('playwright-core');
		require.resolve('axe-core');
	} catch {
		return 'playwright-core or axe-core is missing (npm ci)';
	}
	return null;
}

export async function launch() {
	const { chromium } = require('playwright-core');
	return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60000 });
}

/*
 * What every browser suite sets up: a lighttpd serving the page and the
 * programs (env: more settings for them) and one chromium, started before
 * the suite's first test and stopped after its last. Call it inside the
 * suite's describe(); ready(srv, browser) hands both over once started.
 */
export function serverAndBrowser(env, ready) {
	let srv, browser;
	before(async () => {
		srv = await startServer({ server: 'lighttpd', ...(env ? { env } : {}) });
		browser = await launch();
		ready(srv, browser);
	});
	after(async () => {
		if (browser)
			await browser.close();
		if (srv)
			await srv.stop();
	});
}

export const DESKTOP = { width: 1100, height: 900 };
export const PHONE = { width: 360, height: 740 };

// A fresh context (no shared storage: another person's browser) whose requests
// are recorded with their full URL, headers and body, and whose pages are
// watched for script errors and CSP violations.
export async function newContext(browser, opts = {}) {
	const ctx = await browser.newContext({
		viewport: opts.viewport || DESKTOP,
		colorScheme: opts.colorScheme || 'light',
		acceptDownloads: true,
		locale: 'en-GB',
		timezoneId: 'UTC',
		...(opts.context || {}),
	});
	// Every wait is on an event (an element, a download, a response) and ends
	// when it comes; the bound is for one that never does, and a loaded
	// machine (two cores, the deb suite beside this one, a create's scrypt or
	// a file's encryption in the page) can take more than 15 s for one that does.
	ctx.setDefaultTimeout(60000);
	const requests = [];
	const pending = [];
	const problems = [];
	ctx.on('request', (req) => {
		// What goes on the wire: the URL without its fragment (playwright reports
		// a navigation's fragment with its URL, but HTTP never sends it), every
		// header, the body.
		const rec = { method: req.method(), url: req.url().replace(/#.*$/s, ''), headers: req.headers(), body: req.postData() || '' };
		requests.push(rec);
		pending.push(req.allHeaders().then((h) => { rec.headers = h; }, () => {}));
	});
	ctx.on('page', (page) => watch(page, problems));
	ctx.requests = async () => {
		await Promise.all(pending);
		return requests;
	};
	ctx.problems = problems;
	return ctx;
}

function watch(page, problems) {
	page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
	page.on('console', (m) => {
		const t = m.text();
		// 404 and 410 answers of the API are expected; anything else is not.
		if (/Content Security Policy|Refused to/i.test(t) || (m.type() === 'error' && !/status of (404|410|403|429)/.test(t)))
			problems.push(`console ${m.type()}: ${t}`);
	});
}

// The requests of these contexts that carry needle anywhere: in the URL (as sent,
// without fragment), any header, or the body.
export async function requestsContaining(contexts, needle) {
	const hits = [];
	for (const ctx of contexts)
		for (const r of await ctx.requests()) {
			const hay = [r.url, r.body, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`)].join('\n');
			if (hay.includes(needle))
				hits.push(`${r.method} ${r.url}`);
		}
	return hits;
}

/* Page actions */

// Waits until the view with this id is the one shown.
export async function shown(page, id) {
	await page.locator(`#${id}`).waitFor({ state: 'visible' });
}

// Fills the create form as a person would and submits it. text may hold CR
// characters: those arrive through a paste, as a textarea cannot be typed into
// with them. Resolves to {link, receipt, key, secretKey, receiptKey}.
export async function createSecret(page, base, opts = {}) {
	await page.goto(base + '/');
	await shown(page, 'create-view');
	if (opts.text !== undefined && opts.text !== '') {
		if (opts.text.includes('\r'))
			await paste(page, '#text', opts.text);
		else
			await page.fill('#text', opts.text);
	}
	if (opts.files)
		await page.setInputFiles('#file-input', opts.files);
	if (opts.ttl)
		await page.selectOption('#ttl', String(opts.ttl));
	if (opts.views === null)
		await page.check('#unlimited');
	else if (opts.views !== undefined)
		await page.fill('#views', String(opts.views));
	if (opts.passphrase)
		await page.fill('#passphrase', opts.passphrase);
	if (opts.deletable === false)
		await page.uncheck('#deletable');
	await page.click('#create-button');
	await shown(page, 'result-view');
	return readResult(page);
}

export async function readResult(page) {
	const link = await page.inputValue('#secret-link');
	const receipt = await page.inputValue('#receipt-link');
	const m = /\/secret\/([A-Za-z0-9_-]{22})#key=([A-Za-z0-9_-]{43})$/.exec(link);
	const r = /\/receipt\/([A-Za-z0-9_-]{22})$/.exec(receipt);
	if (!m || !r)
		throw new Error(`unexpected result links: ${link} ${receipt}`);
	return { link, receipt, secretKey: m[1], key: m[2], receiptKey: r[1] };
}

// A paste of text (exactly, CR included) into the focused field, the way the
// browser delivers it: a paste event carrying the clipboard data.
export async function paste(page, selector, text) {
	await page.focus(selector);
	await page.evaluate(([sel, t]) => {
		const dt = new DataTransfer();
		dt.setData('text/plain', t);
		document.querySelector(sel).dispatchEvent(new ClipboardEvent('paste', {
			clipboardData: dt, bubbles: true, cancelable: true,
		}));
	}, [selector, text]);
}

// Drops files on the drop zone, as a drag from the desktop does.
export async function dropFiles(page, files) {
	await page.evaluate((list) => {
		const dt = new DataTransfer();
		for (const f of list)
			dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
		const zone = document.getElementById('dropzone');
		for (const type of ['dragenter', 'dragover', 'drop'])
			zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
	}, files.map((f) => ({ name: f.name, mimeType: f.mimeType, b64: f.buffer.toString('base64') })));
}

// Opens a secret link and waits for the page to settle on a view. (From
// about:blank, so that a link differing only in its fragment still loads.)
export async function openLink(page, link) {
	await page.goto('about:blank');
	await page.goto(link);
	await page.locator('[data-view]:not([hidden]):not(#loading-view)').waitFor({ state: 'visible' });
}

/* Independent API client (fetch + WebCrypto in Node) */

export async function api(base, method, key, body) {
	const headers = {};
	let data;
	if (body !== undefined) {
		headers['Content-Type'] = 'application/json';
		data = JSON.stringify(body);
	}
	// A fresh connection for each call (rawRequest): no kept-alive socket that
	// the server may have closed in between.
	const res = await rawRequest(base, { method, path: `/api/secrets${key ? '/' + key : ''}`, headers, body: data });
	let json = null;
	try {
		json = JSON.parse(res.text);
	} catch {
		json = null;
	}
	return { status: res.status, json, headers: res.headers };
}

// Creates a client-side encrypted secret through the API; resolves to the
// same shape as createSecret.
export async function apiCreate(base, text, extra = {}) {
	const raw = newKey();
	const res = await api(base, 'POST', null, { text: await seal(raw, text), ...extra });
	if (res.status !== 200)
		throw new Error(`create failed: ${res.status} ${JSON.stringify(res.json)}`);
	const k = encodeKey(raw);
	return {
		link: `${res.json.secretUrl}#key=${k}`,
		receipt: res.json.metadataUrl,
		secretKey: res.json.metadata.secretKey,
		receiptKey: res.json.metadata.key,
		key: k,
	};
}

// Moves the newest secret's expiry into the past, as time would (the tests
// create one and expire it at once). sqlite3 runs as the server's user, so the
// files it may create stay writable by the programs.
export function expireNewest(srv) {
	const sql = 'UPDATE secrets SET expires_at = CAST(strftime(\'%s\',\'now\') AS INTEGER) * 1000 - 1000 ' +
		'WHERE id = (SELECT id FROM secrets ORDER BY created_at DESC, id DESC LIMIT 1);';
	const argv = ['sqlite3', '-cmd', '.timeout 10000', srv.db, sql];
	const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (asRoot && srv.user && srv.user !== 'root')
		argv.unshift('runuser', '-u', srv.user, '--');
	execFileSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

/* Accessibility */

let axeSource = null;

// The axe-core source, to add to a context with ctx.addInitScript({content})
// so that every page of it has axe from the start.
export function axeScript() {
	axeSource = axeSource || fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
	return axeSource;
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

// Runs axe-core on the page as it is now; resolves to the list of violations
// (WCAG 2.x A and AA, and axe's best practices, or only the given rules), each
// as a readable line.
export async function axeViolations(page, rules) {
	// evaluate() runs through the DevTools protocol, outside the page's CSP.
	if (!await page.evaluate(() => typeof window.axe === 'object'))
		await page.evaluate(axeScript());
	const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: AXE_TAGS };
	const result = await page.evaluate((only) => window.axe.run(document, {
		runOnly: only, resultTypes: ['violations'],
	}), runOnly);
	return result.violations.map((v) =>
		`${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
