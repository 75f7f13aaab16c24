// http.test.mjs: secret requests through every web server configuration
// (lighttpd, Apache, Apache over .htaccess, nginx): the routes of
// /api/requests[/<key>] and of the pages, and the zero-knowledge scan: the
// inbox secret (private key), the note key and the plaintexts never appear
// in a request body, a log or a database file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { startServer } from '../lib/server.mjs';
import { dbFiles } from '../lib/cgi.mjs';
import { wire } from './helpers.mjs';

// The files that hold the stored data: SQLite's, or under PostgreSQL
// (BURNLINK_TEST_PG) every file of the cluster (WAL and tables).
function storeFiles(srv) {
	const dir = process.env.BURNLINK_TEST_PG;
	if (!dir)
		return dbFiles(srv.db);
	return fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, f))
		.filter((f) => { try { return fs.statSync(f).isFile(); } catch { return false; } });
}

const SERVERS = (process.env.BURNLINK_REQUEST_SERVERS || 'lighttpd apache htaccess nginx').split(' ');

async function api(srv, method, p, json) {
	const init = { method, headers: {} };
	if (json !== undefined) {
		init.body = JSON.stringify(json);
		init.headers['content-type'] = 'application/json';
	}
	const res = await fetch(srv.base + p, init);
	const text = await res.text();
	return { status: res.status, json: text ? JSON.parse(text) : null, text, init };
}

for (const kind of SERVERS) {
	test(`${kind}: ask, answer, read through the server; no key or plaintext in bodies, logs or the database`, async () => {
		const srv = await startServer({ server: kind });
		try {
			const sent = [];
			const note = `note-${crypto.randomBytes(8).toString('hex')}`;
			const secret = `answer-${crypto.randomBytes(8).toString('hex')}`;
			const fileBytes = Buffer.from(`file-${crypto.randomBytes(8).toString('hex')}`);
			const keys = await wire.newRequestKeys();
			const body = { publicKey: keys.publicKey, note: await wire.sealNote(keys.noteKey, keys.publicKey, note) };
			let r = await api(srv, 'POST', '/api/requests', body);
			sent.push(r.init.body);
			assert.equal(r.status, 200, r.text);
			const { requestKey, inboxKey } = r.json;
			assert.equal(r.json.requestUrl, `${srv.base}/request/${requestKey}`);
			r = await api(srv, 'GET', `/api/requests/${requestKey}`);
			assert.equal(r.status, 200, r.text);
			const answer = await wire.sealAnswer(r.json.publicKey, keys.noteKey, { text: secret, files: [{ name: 'f.txt', type: 'text/plain', data: fileBytes }] });
			r = await api(srv, 'POST', `/api/requests/${requestKey}`, answer);
			sent.push(r.init.body);
			assert.equal(r.status, 200, r.text);
			r = await api(srv, 'POST', `/api/requests/${inboxKey}`);
			assert.equal(r.status, 200, r.text);
			const got = await wire.openRequestAnswer(keys.inboxSecret, r.json);
			assert.equal(Buffer.from(got.text).toString(), secret);
			assert.ok(Buffer.from(got.files[0].data).equals(fileBytes));
			r = await api(srv, 'GET', `/api/requests/${inboxKey}`);
			assert.equal(r.json.state, 'read');
			r = await api(srv, 'DELETE', `/api/requests/${requestKey}/x`);
			assert.equal(r.status, 404, r.text);
			assert.equal(r.json.code, 'NOT_FOUND');
			assert.equal(r.json.error, 'No such secret request.');
			for (const p of [`/request/${requestKey}`, `/inbox/${inboxKey}`, '/ask']) {
				const page = await fetch(srv.base + p);
				assert.equal(page.status, 200, p);
				assert.match(await page.text(), /<html/);
				assert.equal(page.headers.get('cache-control'), 'no-store');
			}

			// the scan: what must never leave the two browsers
			const d = Buffer.from(keys.inboxSecret, 'base64url').subarray(0, 32);
			const needles = [keys.inboxSecret, keys.noteKey, note, secret, fileBytes.toString(),
			    d, Buffer.from(d.toString('base64')), Buffer.from(d.toString('base64url'))];
			const logs = srv.accessLog() + srv.errorLog();
			const files = storeFiles(srv).map((f) => { try { return fs.readFileSync(f); } catch { return Buffer.alloc(0); } });
			assert.ok(files.length > 0, 'no database file to scan');
			for (const n of needles) {
				const nb = Buffer.from(n);
				for (const b of sent) assert.ok(!Buffer.from(b).includes(nb), `a request body holds ${n}`);
				assert.ok(!Buffer.from(logs).includes(nb), `a log holds ${n}`);
				for (const f of files) assert.ok(!f.includes(nb), `a database file holds ${n}`);
			}
			// Shared hosting: the host's log format applies (a .htaccess file cannot set one).
			if (kind !== 'htaccess') {
				assert.ok(!srv.accessLog().includes(requestKey), 'the access log holds the request key');
				assert.ok(!srv.accessLog().includes(inboxKey), 'the access log holds the inbox key');
			}
		} finally {
			await srv.stop();
		}
	});
}
