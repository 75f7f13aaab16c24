// headers.test.mjs: the security headers on pages and API, robots.txt, the
// program settings the server passes (site URL), and what reaches the logs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
	KIND, start, api, create, rawRequest, duplicateHeaders, UNKNOWN_KEY,
} from './helpers.mjs';

const PAGE_CSP = {
	'default-src': "'none'",
	'script-src': "'self'",
	'style-src': "'self'",
	'img-src': "'self' data: blob:",
	'connect-src': "'self'",
	'form-action': "'self'",
	'base-uri': "'none'",
	'frame-ancestors': "'none'",
};

function parseCsp(v) {
	const out = {};
	for (const part of (v || '').split(';')) {
		const [name, ...vals] = part.trim().split(/\s+/);
		if (name) out[name] = vals.join(' ');
	}
	return out;
}

let srv;
let c;
before(async () => {
	srv = await start();
	c = await create(srv);
});
after(async () => {
	await srv?.stop();
});

function assertPageHeaders(r, where) {
	assert.deepEqual(parseCsp(r.headers['content-security-policy']), PAGE_CSP, where);
	assert.equal(r.headers['referrer-policy'], 'no-referrer', where);
	assert.equal(r.headers['x-content-type-options'], 'nosniff', where);
	assert.equal(r.headers['x-frame-options'], 'DENY', where);
	assert.deepEqual(duplicateHeaders(r.rawHeaders), [], where);
}

test(`${KIND}: pages carry the strict CSP, no-referrer, nosniff and no framing`, async () => {
	for (const p of ['/', '/index.html', `/secret/${c.metadata.secretKey}`, `/receipt/${c.metadata.key}`, '/robots.txt', '/no-such-page']) {
		const r = await rawRequest(srv.base, { path: p });
		assertPageHeaders(r, p);
	}
});

// The page /setup (docs/ADMIN.md, "Setting up without a shell"): served by
// every configuration, with the page headers, never stored (it takes a code).
test(`${KIND}: /setup is the setup page, with the page headers, never stored`, async () => {
	const r = await rawRequest(srv.base, { path: '/setup' });
	assert.equal(r.status, 200, '/setup');
	assert.match(r.text, /assets\/setup\.js/);
	assertPageHeaders(r, '/setup');
	assert.match(r.headers['cache-control'] || '', /no-store/, '/setup');
});

test(`${KIND}: pages that carry a key are never stored`, async () => {
	for (const p of [`/secret/${c.metadata.secretKey}`, `/receipt/${c.metadata.key}`, '/']) {
		const r = await rawRequest(srv.base, { path: p });
		assert.equal(r.status, 200, p);
		assert.match(r.headers['cache-control'] || '', /no-store/, p);
	}
});

test(`${KIND}: the reveal and receipt pages are the static files, whatever the key`, async () => {
	const www = srv.docroot;
	for (const [p, f] of [[`/secret/${c.metadata.secretKey}`, 'secret.html'], [`/receipt/${UNKNOWN_KEY}`, 'receipt.html'], ['/', 'index.html']]) {
		const file = path.join(www, f);
		if (!fs.existsSync(file)) continue;
		const r = await rawRequest(srv.base, { path: p });
		assert.equal(r.text, fs.readFileSync(file, 'utf8'), p);
		assert.match(r.headers['content-type'], /^text\/html; charset=utf-8/i, p);
	}
});

test(`${KIND}: assets have their types and the same headers`, async () => {
	const dir = path.join(srv.docroot, 'assets');
	const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.(js|css|svg)$/.test(f)) : [];
	for (const f of files) {
		const r = await rawRequest(srv.base, { path: `/assets/${f}` });
		assert.equal(r.status, 200, f);
		const type = { js: /^(text|application)\/javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ }[f.split('.').pop()];
		assert.match(r.headers['content-type'], type, f);
		assertPageHeaders(r, f);
	}
});

test(`${KIND}: robots.txt keeps crawlers out of /secret/ and /receipt/`, async () => {
	const r = await rawRequest(srv.base, { path: '/robots.txt' });
	assert.equal(r.status, 200);
	assert.match(r.headers['content-type'], /^text\/plain/);
	assert.match(r.text, /^User-agent: \*$/m);
	assert.match(r.text, /^Disallow: \/secret\/$/m);
	assert.match(r.text, /^Disallow: \/receipt\/$/m);
});

test(`${KIND}: API responses carry the program's headers, once each`, async () => {
	for (const [m, p, body] of [
		['POST', '/api/secrets', '{"text":"x"}'],
		['GET', `/api/secrets/${c.metadata.key}`],
		['GET', `/api/secrets/${UNKNOWN_KEY}`],
		['PUT', '/api/secrets'],
		['POST', '/api/secrets', 'not json'],
	]) {
		const r = await rawRequest(srv.base, { method: m, path: p, body, headers: body ? { 'Content-Type': 'application/json' } : { 'Content-Length': '0' } });
		const where = `${m} ${p} → ${r.status}`;
		assert.match(r.headers['content-type'], /^application\/json/, where);
		assert.equal(r.headers['cache-control'], 'no-store', where);
		assert.equal(r.headers['x-content-type-options'], 'nosniff', where);
		assert.equal(r.headers['referrer-policy'], 'no-referrer', where);
		assert.match(r.headers['content-security-policy'] || '', /frame-ancestors 'none'/, where);
		assert.match(r.headers['x-request-id'] || '', /^req_[A-Za-z0-9_-]{20}$/, where);
		assert.deepEqual(duplicateHeaders(r.rawHeaders), [], where);
		// A response is either of known length or chunked, never both.
		assert.ok(!(r.headers['content-length'] && r.headers['transfer-encoding']), where);
		JSON.parse(r.text);
	}
});

test(`${KIND}: the decryption key never reaches the server`, async () => {
	const s = await create(srv, { text: 'fragment test' });
	const url = new URL(s.secretUrl);
	const key = url.hash.slice('#key='.length);
	assert.equal(key.length, 43);
	const r = await fetch(s.secretUrl);	// the fragment is not sent
	assert.equal(r.status, 200);
	await r.arrayBuffer();
	// The shipped configurations write <key> in its place (on shared hosting
	// the .htaccess mark, with a log format that uses it: docs/SECURITY.md).
	// The server writes the line after the response: wait for it to appear.
	const line = '"GET /secret/<key> ';
	let log = srv.accessLog();
	for (let i = 0; i < 250 && !log.includes(line); i++) {
		await new Promise((res) => setTimeout(res, 20));
		log = srv.accessLog();
	}
	assert.ok(log.includes(line), `the page request is logged: ${line}`);
	assert.ok(!log.includes(s.metadata.secretKey), 'the secret key is not in the access log');
	assert.ok(!log.includes(key), 'the key is not in the access log');
	assert.ok(!srv.errorLog().includes(key), 'the key is not in the error log');
});

test(`${KIND}: BURNLINK_SITE_URL given to the server is used for the links`, async () => {
	const s2 = await start({ env: { BURNLINK_SITE_URL: 'https://secrets.example.org/share' } });
	try {
		const r = await api(s2, 'POST', '/api/secrets', { json: { text: 'x' } });
		assert.equal(r.status, 200, r.text);
		assert.match(r.body.secretUrl, /^https:\/\/secrets\.example\.org\/share\/secret\/[A-Za-z0-9_-]{22}#key=/);
		assert.match(r.body.metadataUrl, /^https:\/\/secrets\.example\.org\/share\/receipt\//);
	} finally {
		await s2.stop();
	}
});
