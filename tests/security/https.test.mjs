// https.test.mjs: the shipped configurations send Strict-Transport-Security
// over HTTPS (max-age of a year, no includeSubDomains: a sibling host may not
// have HTTPS) and only there: over the plain http of the tests no server sends
// it (a browser would ignore it; an http-only mistake would be harmless, but
// the condition must hold). The test servers have no TLS, so the HTTPS side is
// checked in the configurations themselves, and INSTALL's HTTPS examples.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, rawRequest, ROOT } from '../lib/server.mjs';

const SERVERS = (process.env.BURNLINK_SECURITY_SERVERS || 'lighttpd apache htaccess nginx').split(/\s+/).filter(Boolean);
const read = (p) => fs.readFileSync(path.join(ROOT, p), 'utf8');
const HSTS = 'Strict-Transport-Security';

describe('Strict-Transport-Security in the configurations', () => {
	test('lighttpd: added under $HTTP["scheme"] == "https"', () => {
		const conf = read('conf/lighttpd.conf.in');
		assert.match(conf, /\$HTTP\["scheme"\] == "https" \{\s*setenv\.add-response-header = \( "Strict-Transport-Security" => "max-age=31536000" \)/);
	});
	test('Apache vhost and .htaccess: set when HTTPS is on', () => {
		for (const f of ['conf/apache-vhost.conf.in', 'www/.htaccess'])
			assert.match(read(f), /Header always set Strict-Transport-Security "max-age=31536000" "expr=%\{HTTPS\} == 'on'"/, f);
	});
	test('nginx: on every page location, empty (not sent) unless $https is on', () => {
		const conf = read('conf/nginx.conf.in');
		assert.match(conf, /map \$https \$bl_hsts \{\s*on\s+"max-age=31536000";\s*default\s+"";\s*\}/);
		const pages = conf.split('\n\tlocation ').filter((b) => /add_header Content-Security-Policy/.test(b));
		assert.ok(pages.length >= 5);
		for (const b of pages) assert.match(b, /add_header Strict-Transport-Security \$bl_hsts always;/, b.split('\n')[0]);
	});
	test('INSTALL\'s HTTPS section shows the header for each server', () => {
		const https = read('INSTALL').split(/\n9\. HTTPS\n/)[1].split(/\n10\. /)[0];
		for (const re of [/setenv\.add-response-header = \( "Strict-Transport-Security" => "max-age=31536000" \)/,
			/Header always set Strict-Transport-Security "max-age=31536000"/,
			/add_header Strict-Transport-Security "max-age=31536000" always;/])
			assert.match(https, re);
	});
});

for (const kind of SERVERS) {
	describe(`${kind}: no ${HSTS} over plain http`, () => {
		let srv;
		before(async () => { srv = await startServer({ server: kind }); });
		after(async () => { if (srv) await srv.stop(); });
		test('the pages and the API answer without it', async () => {
			for (const p of ['/', '/secret/AAAAAAAAAAAAAAAAAAAAAA', '/assets/burnlink.css', '/api/secrets/AAAAAAAAAAAAAAAAAAAAAA']) {
				const r = await rawRequest(srv.base, { path: p });
				assert.ok(r.status === 200 || r.status === 404, `${p}: ${r.status}`);
				assert.equal(r.headers['strict-transport-security'], undefined, p);
			}
		});
	});
}
