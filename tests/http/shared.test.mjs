// shared.test.mjs: the two easy mistakes of shared hosting (issue 29, item 12),
// through Apache serving the installed tree by its .htaccess files alone
// (BURNLINK_SERVER=htaccess; skipped for the other servers, whose
// configurations are the operator's own).
//  - A host without mod_headers: the page's security headers are not inside
//    <IfModule>, so every request fails loudly (500, "Invalid command 'Header'"
//    in the error log) instead of serving the page without its CSP,
//    frame-ancestors and no-store.
//  - A database inside the document root (a BURNLINK_DB named x.sqlite, which
//    no deny rule knows): the programs know DOCUMENT_ROOT and serve nothing,
//    503 CONFIG_INVALID, /api/health failing its "files" check, the reason in
//    the error log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KIND, start, api, assertError, rawRequest } from './helpers.mjs';

const skip = KIND !== 'htaccess' && 'the .htaccess files (BURNLINK_SERVER=htaccess)';

test(`${KIND}: without mod_headers every page request is a 500 with a clear log line, never a page without its headers`, { skip }, async () => {
	const srv = await start({ apacheWithout: ['headers'] });
	try {
		for (const p of ['/', '/secret/AAAAAAAAAAAAAAAAAAAAAA', '/assets/burnlink.css']) {
			const r = await rawRequest(srv.base, { path: p, noSpecCheck: true });
			assert.equal(r.status, 500, `${p}: ${r.status} ${JSON.stringify(r.headers)}`);
		}
		assert.match(srv.errorLog(), /Invalid command 'Header'/);
	} finally {
		await srv.stop();
	}
});

test(`${KIND}: a database named x.sqlite under the document root: nothing is served, health says which file`, { skip }, async () => {
	const srv = await start();
	try {
		assert.equal((await api(srv, 'POST', '/api/secrets', { json: { text: 'before' } })).status, 200);
		const data = path.join(srv.docroot, 'data');
		fs.mkdirSync(data, { mode: 0o777 });
		fs.chmodSync(data, 0o777);
		const htaccess = path.join(srv.cgiBin, '.htaccess');
		fs.appendFileSync(htaccess, `\nSetEnv BURNLINK_DB "${path.join(data, 'x.sqlite')}"\n`);
		const r = await api(srv, 'POST', '/api/secrets', { json: { text: 'after' } });
		assertError(r, 503, 'CONFIG_INVALID');
		assert.ok(!fs.existsSync(path.join(data, 'x.sqlite')), 'the request did not create the database');
		const h = await api(srv, 'GET', '/api/health');
		assert.equal(h.status, 503, h.text);
		assert.ok(h.body.failed.includes('files'), h.text);
		assert.match(h.body.checks.files.error, /^the database lies under the web server's document root/);
		assert.ok(!h.text.includes(srv.docroot), 'no path in the public answer');
		assert.match(srv.errorLog(), /files: the database \(.*x\.sqlite\) lies under the document root/);
	} finally {
		await srv.stop();
	}
});
