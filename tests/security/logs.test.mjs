// logs.test.mjs: through real lighttpd, Apache and nginx, a workload of both modes,
// passphrases right and wrong, files, burns and errors; then every log (the
// server's error and access logs, which also hold the programs' stderr) is
// searched for every secret text, file name, decryption key, passphrase and
// ciphertext used: none may appear, nor any secret or receipt key (the access
// logs write "<key>" in its place). The pages carry the security headers.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startServer, rawRequest } from '../lib/server.mjs';
import { encryptItem, b64urlEncode, fragmentKey } from '../lib/cgi.mjs';

const SERVERS = (process.env.BURNLINK_SECURITY_SERVERS || 'lighttpd apache htaccess nginx').split(/\s+/).filter(Boolean);

function unique(label) {
	return `${label}-${crypto.randomBytes(9).toString('base64url')}`;
}

async function api(srv, method, p, body, headers = {}) {
	const res = await fetch(srv.base + p, {
		method,
		headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
		body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
	});
	const text = await res.text();
	let json;
	try { json = JSON.parse(text); } catch { json = undefined; }
	return { status: res.status, headers: res.headers, json, text };
}

for (const kind of SERVERS) {
	describe(`${kind}: nothing secret in any log`, () => {
		let srv;
		const needles = new Map();	// what must never be logged -> what it is
		const keys = [];		// secret and receipt keys (path parameters)
		before(async () => { srv = await startServer({ server: kind }); });
		after(async () => { if (srv) await srv.stop(); });

		test('a workload of every operation, success and failure', async () => {
			// Server-side mode: text, file, passphrase.
			const text = unique('server-side text');
			const fname = unique('filename') + '.txt';
			const fdata = unique('file content');
			const pass = unique('passphrase');
			const wrong = unique('wrong passphrase');
			needles.set(text, 'server-side text').set(fname, 'file name').set(fdata, 'file content')
				.set(pass, 'passphrase').set(wrong, 'wrong passphrase');
			const c = await api(srv, 'POST', '/api/secrets', { text, passphrase: pass, maxViews: 2,
				files: [{ filename: fname, mimeType: 'text/plain', data: `data:text/plain;base64,${Buffer.from(fdata).toString('base64')}` }] });
			assert.equal(c.status, 200, c.text);
			const dkey = c.json.secretUrl.split('#key=')[1];
			needles.set(dkey, 'decryption key');
			keys.push(c.json.metadata.secretKey, c.json.metadata.key);
			const sk = c.json.metadata.secretKey;
			assert.equal((await api(srv, 'POST', `/api/secrets/${sk}`, { passphrase: wrong })).status, 403);
			assert.equal((await api(srv, 'POST', `/api/secrets/${sk}`, {})).status, 403);
			const got = await api(srv, 'POST', `/api/secrets/${sk}`, { passphrase: pass });
			assert.equal(got.status, 200, got.text);
			needles.set(got.json.text.ciphertext, 'ciphertext').set(got.json.files[0].data.ciphertext, 'file ciphertext');
			assert.equal((await api(srv, 'GET', `/api/secrets/${c.json.metadata.key}`)).status, 200);
			assert.equal((await api(srv, 'DELETE', `/api/secrets/${c.json.metadata.key}`)).status, 200);

			// Client-side mode.
			const key = crypto.randomBytes(32);
			const ctext = unique('client-side text');
			const item = encryptItem(ctext, key);
			needles.set(ctext, 'client-side plaintext').set(item.ciphertext, 'client ciphertext').set(b64urlEncode(key), 'client key');
			const c2 = await api(srv, 'POST', '/api/secrets', { text: item, maxViews: 1 });
			assert.equal(c2.status, 200, c2.text);
			keys.push(c2.json.metadata.secretKey, c2.json.metadata.key);
			assert.equal((await api(srv, 'POST', `/api/secrets/${c2.json.metadata.secretKey}`)).status, 200);
			assert.equal((await api(srv, 'POST', `/api/secrets/${c2.json.metadata.secretKey}`)).status, 410);
			// The pages a link opens, with a query string as well.
			for (const p of [`/secret/${c2.json.metadata.secretKey}`, `/receipt/${c2.json.metadata.key}?x=1`]) {
				const res = await fetch(srv.base + p);
				await res.arrayBuffer();
				assert.equal(res.status, 200, p);
			}

			// The same paths written otherwise: percent-encoded, doubled slashes.
			// The server normalises them to the same route; the log must too.
			const sk2 = c2.json.metadata.secretKey, rk2 = c2.json.metadata.key;
			for (const p of [`/api/%73ecrets/${sk2}`, `//api/secrets/${sk2}`, `/api/secrets//${rk2}`,
				`/%73ecret/${sk2}`, `//secret/${sk2}`, `//receipt/${rk2}?y=2`, `/receipt/%${'4'}1${rk2.slice(1)}`]) {
				const r = await rawRequest(srv.base, { path: p });
				assert.ok(r.status < 500, `${p}: ${r.status}`);
			}

			// Errors that echo nothing of the input.
			const bad = unique('invalid json secret');
			needles.set(bad, 'text of a malformed body');
			assert.equal((await api(srv, 'POST', '/api/secrets', `{"text": "${bad}", `)).status, 400);
			const badPass = unique('p');
			needles.set(badPass.slice(0, 3) + 'X'.repeat(300), 'over-long passphrase');
			assert.equal((await api(srv, 'POST', '/api/secrets', { text: unique('x'), passphrase: badPass.slice(0, 3) + 'X'.repeat(300) })).status, 400);
			const apiKey = 'bl_' + crypto.randomBytes(32).toString('base64url');
			needles.set(apiKey, 'API key');
			const unauth = await api(srv, 'POST', '/api/secrets', { text: unique('y') }, { authorization: `Bearer ${apiKey}` });
			assert.equal(unauth.status, 401, unauth.text);
		});

		test('the error log (the programs\' stderr) holds none of it', () => {
			const log = srv.errorLog();
			for (const [needle, what] of needles)
				assert.ok(!log.includes(needle), `${what} in the error log`);
			for (const k of keys)
				assert.ok(!log.includes(k), `a secret or receipt key in the error log`);
		});

		test('the access log holds no text, decryption key, passphrase or ciphertext', () => {
			const log = srv.accessLog();
			assert.ok(log.length > 0, 'the access log was written');
			for (const [needle, what] of needles)
				assert.ok(!log.includes(needle), `${what} in the access log`);
		});

		test('the access log holds no secret or receipt key: each such request is logged with <key>', () => {
			const log = srv.accessLog();
			for (const k of keys) assert.ok(!log.includes(k), 'a key in the access log');
			// The requests are there, with their method and status.
			for (const line of ['"GET /api/secrets/<key> ', '"POST /api/secrets/<key> ', '"DELETE /api/secrets/<key> ',
				'"GET /secret/<key> ', '"GET /receipt/<key> '])
				assert.ok(log.includes(line), `${line.trim()} logged`);
			assert.match(log, /"POST \/api\/secrets\/<key> HTTP\/1\.1" 410 /, 'the status of a request with a key');
			// lighttpd logs the program's path (its URL once rewritten).
			assert.match(log, /"POST \/(api\/secrets|cgi-bin\/create) HTTP\/1\.1" 200 /, 'other paths are logged as they were');
		});
	});

	// Issue 29, item 13: every form of URL that a browser, a client, a mail
	// scanner or a link previewer may send, for every link and API path that
	// holds a key or a token (docs/API.md: /secret/<secretKey>#key=,
	// /receipt/<key>, /request/<requestKey>#key=, /inbox/<inboxKey>#key=,
	// /dashboard#verify=<token>, #reset=<token>; /api/secrets/<key>,
	// /api/requests/<key>): no log line holds the key, the fragment's key or
	// the token. Logged lines hold "<key>", "/<other>" or "-" in its place.
	describe(`${kind}: no key or token in any log, whatever form the URL takes`, () => {
		let srv;
		const key = () => crypto.randomBytes(16).toString('base64url');
		const needles = [];
		before(async () => { srv = await startServer({ server: kind }); });
		after(async () => { if (srv) await srv.stop(); });

		test('every form, GET and HEAD', async () => {
			const sk = key(), rk = key(), qk = key(), ik = key(), ak = key();
			const dk = crypto.randomBytes(32).toString('base64url');
			const tok = crypto.randomBytes(32).toString('base64url');
			needles.push(sk, rk, qk, ik, ak, dk, tok);
			const bases = [`/secret/${sk}`, `/receipt/${rk}`, `/request/${qk}`, `/inbox/${ik}`,
				`/api/secrets/${ak}`, `/api/requests/${qk}`, `/api/requests/${ik}/answer`];
			const forms = [];
			for (const b of bases) {
				const [, first, rest] = b.match(/^\/([a-z]+)(\/.*)$/);
				forms.push(b, `${b}/`, `${b}//`, `/${b}`, `/${first}/${rest}`, `${b}/x`, `${b}%2F`,
					`${b}?utm_source=chat`, `${b}?key=${dk}`, `${b}#key=${dk}`, `${b}%23key=${dk}`,
					`${b}%23key%3D${dk}`, `${b}/#key=${dk}`, `/${first.toUpperCase()}${rest}`,
					`/${first}.html${rest}`, `${b}.html`, `${b}&key=${dk}`, `${b};key=${dk}`);
			}
			for (const f of ['verify', 'reset'])
				forms.push(`/dashboard#${f}=${tok}`, `/dashboard%23${f}=${tok}`, `/dashboard?${f}=${tok}`,
					`/dashboard/#${f}=${tok}`, `/dashboard/%23${f}=${tok}`, `/dashboard.html#${f}=${tok}`,
					`//dashboard%23${f}%3D${tok}`);
			forms.push(`/s/${sk}`, `/?key=${dk}`, `/#key=${dk}`, `/%23key=${dk}`, `/index.html?secret=${sk}`,
				`/ask?key=${dk}`, `/assets/burnlink.css?${tok}`, `/api/secrets?key=${sk}`, `/api/config/${sk}`,
				`/cgi-bin/metadata/${ak}`, `/cgi-bin/requests/${qk}`);
			for (const p of forms) for (const method of ['GET', 'HEAD']) {
				const r = await rawRequest(srv.base, { method, path: p, noSpecCheck: true });
				assert.ok(r.status > 0, `${method} ${p}`);
			}
			// A POST and a DELETE of the API forms too.
			for (const p of [`/api/secrets/${ak}/`, `/api/secrets/${ak}%23key=${dk}`, `/api/requests/${qk}?x=${dk}`])
				for (const method of ['POST', 'DELETE'])
					await rawRequest(srv.base, { method, path: p, noSpecCheck: true, headers: { 'Content-Length': '0' } });
		});

		test('the access log holds none of them', () => {
			const log = srv.accessLog();
			assert.ok(log.length > 0, 'the access log was written');
			for (const n of needles) {
				const line = log.split('\n').find((l) => l.includes(n));
				assert.equal(line, undefined, `a key or token in the access log: ${line}`);
			}
		});

		test('the error log holds none of them', () => {
			const log = srv.errorLog();
			for (const n of needles) {
				const line = log.split('\n').find((l) => l.includes(n));
				assert.equal(line, undefined, `a key or token in the error log: ${line}`);
			}
		});
	});

	describe(`${kind}: security headers on the pages`, () => {
		let srv;
		before(async () => { srv = await startServer({ server: kind }); });
		after(async () => { if (srv) await srv.stop(); });

		for (const p of ['/', '/secret/AAAAAAAAAAAAAAAAAAAAAA', '/receipt/AAAAAAAAAAAAAAAAAAAAAA', '/assets/burnlink.css', '/assets/create.js']) {
			test(`${p}`, async () => {
				const res = await fetch(srv.base + p);
				await res.arrayBuffer();
				assert.equal(res.status, 200, p);
				const csp = res.headers.get('content-security-policy') || '';
				assert.match(csp, /default-src 'none'/, `${p}: CSP`);
				assert.match(csp, /frame-ancestors 'none'/, `${p}: CSP framing`);
				assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, `${p}: no inline script or style`);
				assert.equal(res.headers.get('x-content-type-options'), 'nosniff', p);
				assert.equal(res.headers.get('referrer-policy'), 'no-referrer', p);
				assert.equal(res.headers.get('x-frame-options'), 'DENY', p);
				if (!p.startsWith('/assets/'))
					assert.equal(res.headers.get('cache-control'), 'no-store', `${p}: a page that may carry a key is never stored`);
			});
		}
	});
}
