// status.test.mjs: GET /api/config and GET /api/health through the real server,
// with the settings file at its default place beside the database (on shared
// hosting: var/burnlink.conf, nothing else to configure).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KIND, start, api, assertError, rawRequest, duplicateHeaders } from './helpers.mjs';

let srv, conf, stamp, secret;
before(async () => {
	srv = await start();
	const dir = path.dirname(srv.db);
	conf = path.join(dir, 'burnlink.conf');
	stamp = path.join(dir, 'burnlink-cleanup');
	secret = path.join(dir, 'secret.key');
});
after(async () => {
	await srv?.stop();
});

// Writes a file the server's user can read.
function put(file, text) {
	fs.writeFileSync(file, text, { mode: 0o644 });
	fs.chmodSync(file, 0o644);
}

test(`${KIND}: GET /api/config is cacheable JSON with one Cache-Control`, async () => {
	const r = await rawRequest(srv.base, { method: 'GET', path: '/api/config' });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.headers['cache-control'], 'public, max-age=300');
	assert.deepEqual(duplicateHeaders(r.rawHeaders), [], 'no header twice');
	assert.match(r.headers['content-type'], /^application\/json/);
	assert.equal(r.headers['x-content-type-options'], 'nosniff');
	const j = r.json();
	assert.equal(j.apiVersion, 1);
	assert.equal(j.limits.ttl.max, 7776000);
	const post = await api(srv, 'POST', '/api/config', { json: {} });
	assertError(post, 405, 'METHOD_NOT_ALLOWED');
});

test(`${KIND}: the settings file beside the database shapes /api/config and POST /api/secrets`, async () => {
	put(conf, 'expiry_choices = 1h, 1d\nsite_name = Acme secrets\nviews_unlimited = no\n');
	try {
		const c = await api(srv, 'GET', '/api/config');
		assert.equal(c.status, 200, c.text);
		assert.deepEqual(c.body.limits.ttl.choices, [3600, 86400]);
		assert.equal(c.body.branding.siteName, 'Acme secrets');
		const r = await api(srv, 'POST', '/api/secrets', { json: { text: 'x', ttl: 172800 } });
		assertError(r, 400, 'INVALID_TTL');
		assert.match(r.body.hint, /86400/);
		const v = await api(srv, 'POST', '/api/secrets', { json: { text: 'x', maxViews: null } });
		assertError(v, 400, 'INVALID_MAX_VIEWS');
		const ok = await api(srv, 'POST', '/api/secrets', { json: { text: 'x', ttl: 86400 } });
		assert.equal(ok.status, 200, ok.text);
	} finally {
		fs.rmSync(conf, { force: true });
	}
});

test(`${KIND}: /api/health: 200 once cleanup ran, 503 naming a broken settings file`, async () => {
	put(stamp, `${Date.now()}\n`);
	try {
		const ok = await api(srv, 'GET', '/api/health');
		assert.equal(ok.status, 200, ok.text);
		assert.equal(ok.body.status, 'ok');
		assert.equal(ok.res.headers.get('cache-control'), 'no-store');
		assert.equal(ok.res.headers.get('x-ratelimit-limit'), '60');
		put(conf, 'views_max = 5\nno_such_setting = 1\n');
		const bad = await api(srv, 'GET', '/api/health');
		assert.equal(bad.status, 503, bad.text);
		assert.deepEqual(bad.body.failed, ['settings']);
		assert.equal(bad.body.code, 'UNHEALTHY');
		assert.match(bad.body.checks.settings.error, /^line 2 of the settings file is not valid;/);
		assert.ok(!bad.text.includes("no_such_setting"), "the line itself only in the error log");
		const create = await api(srv, 'POST', '/api/secrets', { json: { text: 'x' } });
		assertError(create, 503, 'CONFIG_INVALID');
	} finally {
		fs.rmSync(conf, { force: true });
		fs.rmSync(stamp, { force: true });
	}
	// No cleanup yet: fine while the installation is new (its install
	// secret younger than two hours), a failure after that.
	const fresh = await api(srv, 'GET', '/api/health');
	assert.equal(fresh.status, 200, fresh.text);
	assert.deepEqual(fresh.body.checks.cleanup, { ok: true, lastRun: null });
	const then = new Date(Date.now() - 3 * 3600e3);
	fs.utimesSync(secret, then, then);
	const stale = await api(srv, 'GET', '/api/health');
	assert.equal(stale.status, 503, stale.text);
	assert.deepEqual(stale.body.failed, ['cleanup']);
});

// The generated configuration of every server passes BURNLINK_ROUTES, the
// routes it was made for (scripts/routes-gen.c; an .htaccess rewrite as
// REDIRECT_BURNLINK_ROUTES): the programs find it is theirs.
test(`${KIND}: /api/health: the server's configuration says it was made for these programs' routes`, async () => {
	const r = await api(srv, 'GET', '/api/health');
	assert.deepEqual(r.body.checks.routes, { ok: true, stamped: true }, r.text);
});
