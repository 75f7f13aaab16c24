// health.test.mjs: GET /api/health (docs/API.md): 200 {status: "ok"} when the
// database answers, the counters store takes a count, the settings parse and
// cron/cleanup finished within two hours (or the installation is younger than
// that); else 503 UNHEALTHY naming each check that failed. burnlink-admin health prints the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, checkError, ROOT } from '../lib/cgi.mjs';

const CHECKS = ['cleanup', 'counters', 'database', 'files', 'routes', 'settings'];

// The routes' digest the programs were built with (make: scripts/routes-gen.c).
const OWN_ROUTES = fs.readFileSync(path.join(ROOT, 'build', 'routes', 'ROUTES_DIGEST'), 'utf8').trim();

function health(ctx, env = {}, method = 'GET') {
	return ctx.run('health', { method, env });
}

// Where cron/cleanup records its last run: x.db -> x-cleanup (beside the
// install secret with PostgreSQL, which the tests keep in the context's directory).
function stampOf(ctx) {
	return path.join(ctx.dir, 'burnlink-cleanup');
}

// A context whose cleanup has run.
// A database made by a first request, then cleaned (before the first
// request cleanup creates nothing, so it records no run either).
async function cleaned() {
	const ctx = newContext();
	await health(ctx);
	const r = await ctx.cleanup();
	assert.equal(r.code, 0, r.stderr);
	return ctx;
}

// Asserts a 503 UNHEALTHY naming exactly the failed checks; returns the body.
function unhealthy(res, failed) {
	assert.equal(res.status, 503, res.body.toString());
	const j = res.json;
	assert.equal(j.status, 'fail');
	assert.equal(j.code, 'UNHEALTHY');
	assert.equal(j.requestId, res.headers['x-request-id']);
	assert.equal(typeof j.hint, 'string');
	assert.deepEqual([...j.failed].sort(), [...failed].sort());
	assert.equal(j.error, `A health check failed: ${j.failed.join(', ')}.`);
	assert.deepEqual(Object.keys(j.checks).sort(), CHECKS);
	for (const c of CHECKS) {
		assert.equal(j.checks[c].ok, !failed.includes(c), `${c}: ${JSON.stringify(j.checks[c])}`);
		if (failed.includes(c)) assert.equal(typeof j.checks[c].error, 'string');
	}
	assert.match(res.stderr, /health: A health check failed/);
	return j;
}

// burnlink-admin on the context's configuration (its environment: no --db).
function admin(ctx, args, env = {}) {
	const base = path.resolve(ROOT, process.env.BURNLINK_BIN || '.');
	let prog = path.join(base, 'tools', 'burnlink-admin');
	if (!fs.existsSync(prog)) prog = path.join(base, '..', 'tools', 'burnlink-admin');
	const r = spawnSync(prog, args, { encoding: 'utf8', env: { PATH: process.env.PATH, ...ctx.env, ...env } });
	let json;
	try { json = JSON.parse(r.stdout); } catch { json = undefined; }
	return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

test('healthy: 200 {status: ok}, every check ok, its own rate limit, never stored', async () => {
	const t0 = Date.now();
	const ctx = await cleaned();
	const res = await health(ctx);
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.headers['cache-control'], 'no-store');
	assert.equal(res.headers['x-ratelimit-limit'], '60', 'its own limit: 60 a minute per address');
	assert.equal(res.json.status, 'ok');
	assert.deepEqual(res.json.failed, []);
	assert.deepEqual(Object.keys(res.json.checks).sort(), CHECKS);
	for (const c of CHECKS) assert.equal(res.json.checks[c].ok, true, c);
	const last = Date.parse(res.json.checks.cleanup.lastRun);
	// the cleanup run above: since t0 (its record in whole ms or seconds), not later than now
	assert.ok(last >= t0 - 1000 && last <= Date.now(), res.json.checks.cleanup.lastRun);
	const head = await health(ctx, {}, 'HEAD');
	assert.equal(head.status, 200);
	assert.equal(head.body.length, 0);
	const post = await ctx.run('health', { method: 'POST', body: {} });
	checkError(assert, post, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(post.headers.allow, 'GET, HEAD');
});

// The install secret, written by the first request: how old the installation is.
function age(ctx, seconds) {
	const key = path.join(ctx.dir, 'secret.key');
	assert.ok(fs.existsSync(key), `the first request wrote ${key}`);
	const t = new Date(Date.now() - seconds * 1000);
	fs.utimesSync(key, t, t);
}

test('a new installation: 200 before its first cleanup is due (lastRun null)', async () => {
	const ctx = newContext();
	const res = await health(ctx);
	assert.equal(res.status, 200, res.body.toString());
	assert.deepEqual(res.json.checks.cleanup, { ok: true, lastRun: null });
	age(ctx, 119 * 60);
	assert.equal((await health(ctx)).status, 200, 'an hour and 59 minutes: still new');
});

test('cleanup never ran on an installation older than two hours: 503 naming cleanup', async () => {
	const ctx = newContext();
	await health(ctx);
	age(ctx, 3 * 3600);
	const j = unhealthy(await health(ctx), ['cleanup']);
	assert.equal(j.checks.cleanup.lastRun, null);
	assert.match(j.checks.cleanup.error, /has not run/);
});

test('cleanup stale (last run three hours ago): 503 naming cleanup', async () => {
	const ctx = await cleaned();
	const stamp = stampOf(ctx);
	assert.ok(fs.existsSync(stamp), `cleanup records its run in ${stamp}`);
	const then = Date.now() - 3 * 3600e3;
	fs.writeFileSync(stamp, `${then}\n`);
	const j = unhealthy(await health(ctx), ['cleanup']);
	assert.equal(j.checks.cleanup.lastRun, new Date(then).toISOString());
	assert.match(j.checks.cleanup.error, /180 minutes ago/);
	// one hour and 59 minutes is still fine
	fs.writeFileSync(stamp, `${Date.now() - 119 * 60e3}\n`);
	assert.equal((await health(ctx)).status, 200);
});

test('settings broken: 503 naming settings and the line; the log names file, line and what is wrong', async () => {
	const ctx = await cleaned();
	fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), 'views_max = 5\nviews_max = 6\n');
	const res = await health(ctx);
	const j = unhealthy(res, ['settings']);
	assert.equal(j.checks.settings.error,
		'line 2 of the settings file is not valid; the error log, burnlink-admin config check and /setup say why');
	assert.ok(!j.checks.settings.error.includes(ctx.dir), 'no path in the public answer');
	assert.ok(res.stderr.includes(`settings: ${path.join(ctx.dir, 'burnlink.conf')}:2: views_max is set twice`), res.stderr);
});

// Issue 29, item 4: the answer is public; the text of a bad line may be a
// password (a conninfo pasted into the wrong file) or another file's first line.
test('settings broken: the public answer quotes nothing of the file, the log does', async () => {
	const ctx = await cleaned();
	const conf = path.join(ctx.dir, 'burnlink.conf');
	fs.writeFileSync(conf, '# settings\npostgresql://burnlink:Pa55-w0rd-x@db.internal/burnlink\n');
	const res = await health(ctx);
	const j = unhealthy(res, ['settings']);
	const body = res.body.toString();
	for (const s of ['Pa55', 'postgresql', 'db.internal', 'burnlink:'])
		assert.ok(!body.includes(s), `${s} in the public answer: ${body}`);
	assert.match(j.checks.settings.error, /^line 2 of the settings file is not valid/);
	assert.ok(res.stderr.includes(`${conf}:2: not "key = value": postgresql://burnlink:Pa55-w0rd-x@db.internal`), res.stderr);
	assert.equal(admin(ctx, ['config', 'check', conf]).stderr,
		`burnlink-admin: ${conf}:2: not "key = value": postgresql://burnlink:Pa55-w0rd-x@db.internal/burnlink\n`);

	// Another file named as the settings file: not a line of it in the answer.
	const other = path.join(ctx.dir, 'passwd');
	fs.writeFileSync(other, 'root:x:0:0:root:/root:/bin/bash\n');
	const r2 = await health(ctx, { BURNLINK_CONFIG: other });
	unhealthy(r2, ['settings']);
	assert.ok(!r2.body.toString().includes('root'), r2.body.toString());
	assert.equal(r2.json.checks.settings.error,
		'line 1 of the settings file is not valid; the error log, burnlink-admin config check and /setup say why');

	// An error about the whole file has no line.
	const r3 = await health(ctx, { BURNLINK_CONFIG: path.join(ctx.dir, 'none.conf') });
	unhealthy(r3, ['settings']);
	assert.equal(r3.json.checks.settings.error,
		'the settings file cannot be used; the error log, burnlink-admin config check and /setup say why');
	assert.match(r3.stderr, /none\.conf: cannot open the settings file/);
});

test('database missing: 503 naming the database', async () => {
	const ctx = await cleaned();
	// an installation older than two hours (with PostgreSQL its install secret
	// is the context's), and a database in a directory that does not exist
	// (its counters and cleanup record with it)
	age(ctx, 3 * 3600);
	const res = await health(ctx, { BURNLINK_DB: path.join(ctx.dir, 'missing', 'burnlink.db') });
	const j = unhealthy(res, ['database', 'counters', 'cleanup']);
	assert.match(j.checks.database.error, /^STORE_UNAVAILABLE/);
	assert.ok(!fs.existsSync(path.join(ctx.dir, 'missing')), 'nothing created');
});

test('counters store unusable: 503 naming counters', async () => {
	const ctx = await cleaned();
	const counters = path.join(ctx.dir, 'burnlink-counters');
	fs.rmSync(counters, { force: true });
	fs.mkdirSync(counters);
	const j = unhealthy(await health(ctx), ['counters']);
	assert.match(j.checks.counters.error, /^RATE_LIMIT_UNAVAILABLE/);
});

test('burnlink-admin health prints the same checks, exit status 0 or 1', async () => {
	const ctx = await cleaned();
	const ok = admin(ctx, ['health', '--json']);
	assert.equal(ok.code, 0, ok.stderr);
	assert.equal(ok.json.status, 'ok');
	assert.deepEqual(Object.keys(ok.json.checks).sort(), CHECKS);
	const text = admin(ctx, ['health']);
	assert.equal(text.code, 0);
	assert.match(text.stdout, /^status: ok\n/);
	assert.match(text.stdout, /^routes\s+ok \(the web server's configuration is not seen from here: burnlink-admin routes check\)$/m);
	fs.writeFileSync(stampOf(ctx), `${Date.now() - 3 * 3600e3}\n`);
	const bad = admin(ctx, ['health']);
	assert.equal(bad.code, 1);
	assert.match(bad.stdout, /^status: fail\n/);
	assert.match(bad.stdout, /cleanup\s+FAIL the last cleanup finished 180 minutes ago/);
});

test('burnlink-admin config check: 0 for a valid file, 1 naming file and line', async () => {
	const ctx = newContext();
	const none = admin(ctx, ['config', 'check']);
	assert.equal(none.code, 0, none.stderr);
	assert.match(none.stdout, /burnlink\.conf: no such file/);
	const good = path.join(ctx.dir, 'good.conf');
	fs.writeFileSync(good, '# ok\nexpiry_choices = 1h, 1d\n');
	const g = admin(ctx, ['config', 'check', good]);
	assert.equal(g.code, 0, g.stderr);
	assert.equal(g.stdout, `${good}: ok\n`);
	const bad = path.join(ctx.dir, 'bad.conf');
	fs.writeFileSync(bad, '# ok\n\nfiles_allowed = maybe\n');
	const b = admin(ctx, ['config', 'check', bad]);
	assert.equal(b.code, 1);
	assert.equal(b.stderr, `burnlink-admin: ${bad}:3: files_allowed = maybe: allowed: yes or no\n`);
	// --json: the check POST /api/setup answers (docs/API.md, "GET, POST /setup")
	const bj = admin(ctx, ['--json', 'config', 'check', bad]);
	assert.equal(bj.code, 1);
	assert.deepEqual(bj.json, { file: bad, loaded: false, ok: false, line: 3,
		error: `${bad}:3: files_allowed = maybe: allowed: yes or no` });
	assert.deepEqual(admin(ctx, ['--json', 'config', 'check', good]).json,
		{ file: good, loaded: true, ok: true, line: null, error: null });
	const show = admin(ctx, ['config', 'show'], { BURNLINK_CONFIG: good });
	assert.equal(show.code, 0, show.stderr);
	assert.deepEqual(show.json.limits.ttl.choices, [3600, 86400]);
});

// The kind of host (docs/API.md, host): the programs as the owner of their
// files (suEXEC), or as a web-server user that owns neither them nor the data.
test('host: runsAs owner and dataPrivate when the programs run as the owner of a closed data directory', async () => {
	const ctx = await cleaned();
	const res = await health(ctx);
	assert.deepEqual(res.json.host, { runsAs: 'owner', dataPrivate: true });
	fs.chmodSync(ctx.dir, 0o755);
	assert.deepEqual((await health(ctx)).json.host, { runsAs: 'owner', dataPrivate: false }, 'a directory others can read');
	ctx.remove();
});

test('host: runsAs shared when a web-server user runs the customer\'s programs over the customer\'s data directory', { skip: process.getuid() !== 0 && 'needs root (runs the programs as nobody)' }, async () => {
	// The customer (uid 1000 stands for it) owns a copy of the program and var/, mode 0777 (INSTALL 6b, shared host).
	const ctx = newContext();
	const CUSTOMER = 1000, NOBODY = 65534;
	const bin = path.join(ctx.dir, 'cgi-bin');
	fs.mkdirSync(bin);
	fs.copyFileSync(path.join(path.resolve(ROOT, process.env.BURNLINK_BIN || '.'), 'cgi-bin', 'health'), path.join(bin, 'health'));
	fs.chmodSync(bin, 0o755);
	fs.chmodSync(path.join(bin, 'health'), 0o755);
	fs.chownSync(path.join(bin, 'health'), CUSTOMER, CUSTOMER);
	fs.chmodSync(ctx.dir, 0o777);
	fs.chownSync(ctx.dir, CUSTOMER, CUSTOMER);
	const { runCgi } = await import('../lib/cgi.mjs');
	const res = await runCgi('health', { path: path.join(bin, 'health'), method: 'GET', env: ctx.env, uid: NOBODY, gid: NOBODY });
	assert.deepEqual(res.json.host, { runsAs: 'shared', dataPrivate: false }, res.body.toString());
	ctx.remove();
});

// The web server's routing made for other programs (docs/API.md,
// BURNLINK_ROUTES): an upgrade whose new configuration was not installed.
test('routes: the configuration\'s digest is compared with the programs\' own; another one fails the check', async () => {
	const ctx = await cleaned();
	const none = await health(ctx);
	assert.equal(none.status, 200);
	assert.deepEqual(none.json.checks.routes, { ok: true, stamped: false }, 'a configuration that does not say: not failed');
	const same = await health(ctx, { BURNLINK_ROUTES: OWN_ROUTES });
	assert.equal(same.status, 200, same.body.toString());
	assert.deepEqual(same.json.checks.routes, { ok: true, stamped: true });
	const redirected = await health(ctx, { REDIRECT_BURNLINK_ROUTES: OWN_ROUTES });
	assert.deepEqual(redirected.json.checks.routes, { ok: true, stamped: true }, 'as an .htaccess rewrite passes it');
	const other = OWN_ROUTES.replace(/^./, (c) => (c === '0' ? '1' : '0'));
	for (const env of [{ BURNLINK_ROUTES: other }, { REDIRECT_BURNLINK_ROUTES: other }, { BURNLINK_ROUTES: 'x'.repeat(40) }]) {
		const j = unhealthy(await health(ctx, env), ['routes']);
		assert.equal(j.checks.routes.stamped, true);
		assert.match(j.checks.routes.error, /made for other programs .*INSTALL section 12/);
	}
});

test('burnlink-admin routes check: 0 for files made for these programs, 1 naming the stale or silent one', async () => {
	const ctx = newContext();
	const cur = path.join(ctx.dir, 'current.htaccess');
	fs.copyFileSync(path.join(ROOT, 'build', 'routes', 'ROUTES_HTACCESS'), cur);
	const nginx = path.join(ctx.dir, 'nginx.conf');
	fs.copyFileSync(path.join(ROOT, 'build', 'routes', 'ROUTES_NGINX'), nginx);
	const lighttpd = path.join(ctx.dir, 'lighttpd.conf');
	fs.writeFileSync(lighttpd, `setenv.add-environment = (\n\t"BURNLINK_DB" => "/x.db",\n${fs.readFileSync(path.join(ROOT, 'build', 'routes', 'ROUTES_LIGHTTPD_ENV'), 'utf8')})\n`);
	const ok = admin(ctx, ['routes', 'check', cur, nginx, lighttpd]);
	assert.equal(ok.code, 0, ok.stdout + ok.stderr);
	assert.equal(ok.stdout.split('\n').filter((l) => l.endsWith(`made for these programs (routes ${OWN_ROUTES})`)).length, 3, ok.stdout);
	const old = path.join(ctx.dir, 'old.htaccess');
	fs.writeFileSync(old, fs.readFileSync(cur, 'utf8').replace(OWN_ROUTES, '0123456789abcdef'));
	const hand = path.join(ctx.dir, 'hand.conf');
	fs.writeFileSync(hand, '# BURNLINK_ROUTES 0123456789abcdef in a comment\nRewriteRule "^api/secrets$" "/cgi-bin/create" [L]\n');
	const bad = admin(ctx, ['routes', 'check', cur, old, hand]);
	assert.equal(bad.code, 1);
	assert.match(bad.stdout, new RegExp(`old\\.htaccess: made for other programs \\(routes 0123456789abcdef; these serve ${OWN_ROUTES}\\): install the new configuration \\(INSTALL section 12\\)`));
	assert.match(bad.stdout, /hand\.conf: does not say which routes it was made for/);
	const js = admin(ctx, ['routes', 'check', old, '--json']);
	assert.equal(js.code, 1);
	assert.deepEqual(js.json, { routes: OWN_ROUTES, files: [{ file: old, state: 'other', routes: '0123456789abcdef' }] });
});
