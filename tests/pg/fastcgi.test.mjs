// fastcgi.test.mjs: the programs of `make pg` as FastCGI responders behind
// lighttpd's mod_fastcgi, on PostgreSQL: one connection per process, kept from
// request to request (the rate limiter's and the store's handles share it),
// under the FastCGI seccomp filter; after the database restarts, a process
// whose kept connection was lost connects anew on its next request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cluster from './cluster.mjs';
import { startLighttpd } from '../fastcgi/server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(ROOT, process.env.BURNLINK_BIN || 'build/pg', 'cgi-bin');
const PROGRAMS = ['create', 'metadata', 'retrieve', 'delete'];

let pg, db, dir, base, server;

// The burnlink backends connected to the database: [pid, state] per connection.
function backends() {
	return pg.sql(db, "SELECT pid, state FROM pg_stat_activity WHERE application_name = 'burnlink'")
		.trim().split('\n').filter(Boolean);
}

before(async () => {
	pg = cluster.newCluster();	// its own: this file restarts it
	db = pg.createDatabase();
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-pgfcgi-'));
	fs.chmodSync(dir, 0o755);
	for (const d of ['data', 'run', 'log', 'www', 'bin']) fs.mkdirSync(path.join(dir, d));
	for (const p of PROGRAMS) fs.copyFileSync(path.join(BIN, p), path.join(dir, 'bin', p));
	for (const p of PROGRAMS) fs.chmodSync(path.join(dir, 'bin', p), 0o755);
	fs.writeFileSync(path.join(dir, 'www', 'robots.txt'), 'ok\n');
	let user = '';
	if (process.getuid() === 0) {
		user = 'www-data';
		for (const d of ['data', 'run', 'log']) execFileSync('chown', [`${user}:${user}`, path.join(dir, d)]);
	}
	({ base, server } = await startLighttpd(dir, (port) => {
		const fcgi = PROGRAMS.map((p) => `\t"/cgi-bin/${p}" => (( "socket" => "${dir}/run/${p}.sock", "bin-path" => "${dir}/bin/${p}", "max-procs" => 1, "check-local" => "disable" )),`).join('\n');
		return `server.modules = ( "mod_access", "mod_alias", "mod_rewrite", "mod_setenv", "mod_fastcgi" )
server.bind = "127.0.0.1"
server.port = ${port}
server.document-root = "${dir}/www"
server.errorlog = "${dir}/log/error.log"
server.pid-file = "${dir}/run/lighttpd.pid"
${user ? `server.username = "${user}"\nserver.groupname = "${user}"` : ''}
setenv.add-environment = (
	"BURNLINK_DB" => "${pg.conninfo(db)}",
	"BURNLINK_SECRET_FILE" => "${dir}/data/secret.key",
)
$HTTP["request-method"] == "POST" {
	url.rewrite-once = ( "^/api/secrets$" => "/cgi-bin/create", "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/retrieve/$1" )
}
else $HTTP["request-method"] == "DELETE" {
	url.rewrite-once = ( "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/delete/$1" )
}
else {
	url.rewrite-once = ( "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/metadata/$1" )
}
fastcgi.server = (
${fcgi}
)
`;
	}));
});

after(async () => {
	if (server) {
		try { process.kill(-server.pid, 'SIGTERM'); } catch { /* gone */ }
		await new Promise((r) => { server.once('exit', r); setTimeout(r, 3000).unref(); });
	}
	if (dir) fs.rmSync(dir, { recursive: true, force: true });
	pg?.remove();
});

async function api(method, p, json) {
	const res = await fetch(base + p, {
		method, headers: json === undefined ? {} : { 'Content-Type': 'application/json' },
		body: json === undefined ? undefined : JSON.stringify(json),
	});
	const text = await res.text();
	let body = null;
	try { body = JSON.parse(text); } catch { body = null; }
	return { status: res.status, body, text, headers: res.headers };
}

test('many requests, one kept connection per FastCGI process', async () => {
	const made = [];
	for (let i = 0; i < 10; i++) {
		const c = await api('POST', '/api/secrets', { text: `fcgi ${i}`, maxViews: 2, passphrase: 'abcd' });
		assert.equal(c.status, 200, c.text);
		made.push(c.body.metadata);
	}
	for (const m of made) {
		assert.equal((await api('GET', `/api/secrets/${m.key}`)).status, 200);
		assert.equal((await api('POST', `/api/secrets/${m.secretKey}`, { passphrase: 'abcd' })).status, 200);
	}
	const b = backends();
	assert.ok(b.length >= 1 && b.length <= 3, `one connection per process (create, metadata, retrieve): ${b.join(' ')}`);
	for (const line of b) assert.match(line, /\|idle$/, 'no transaction left open between requests');
	// Racing retrievals through the one retrieve process still count exactly.
	const c = await api('POST', '/api/secrets', { text: 'race', maxViews: 3 });
	const rs = await Promise.all(Array.from({ length: 12 }, () => api('POST', `/api/secrets/${c.body.metadata.secretKey}`, {})));
	assert.equal(rs.filter((r) => r.status === 200).length, 3);
});

test('after a database restart the kept connections are made anew, without a failed request', async () => {
	pg.restart('fast');
	const seen = [];
	for (let i = 0; i < 6; i++) seen.push(await api('POST', '/api/secrets', { text: `after ${i}` }));
	assert.deepEqual(seen.map((r) => r.status), [200, 200, 200, 200, 200, 200], seen.map((r) => r.text).join('\n'));
	const key = crypto.randomBytes(16).toString('base64url');
	assert.equal((await api('GET', `/api/secrets/${key}`)).status, 404);
	const m = seen[0].body.metadata;
	assert.equal((await api('POST', `/api/secrets/${m.secretKey}`, {})).status, 200);
});

// A responder's connection is kept and made straight to the server: each
// statement is prepared once on it (parsed and planned once) and then only
// bound and run; after a restart the new session prepares again. The server's
// statement log shows which: "parse bl_N" once, "execute bl_N" per run
// (unnamed statements log "<unnamed>").
test('a kept connection prepares each statement once, and again after a restart', async () => {
	pg.sql(db, `ALTER DATABASE ${db} SET log_min_duration_statement = 0`);
	pg.sql(db, `ALTER DATABASE ${db} SET log_min_messages = log`);
	const log = path.join(pg.dir, 'server.log');
	const runs = (re) => (fs.readFileSync(log, 'utf8').match(re) || []).length;
	const insertParse = /parse bl_\d+: INSERT INTO secrets /g;
	const insertExec = /execute bl_\d+: INSERT INTO secrets /g;
	// the last view (maxViews 1), counted and ended in one statement (ST_VIEW_LAST)
	const viewParse = /parse bl_\d+: UPDATE secrets SET view_count = view_count \+ 1, last_viewed_at = \$2, state = \$3, text_ct = NULL, text_iv = NULL WHERE id = \$1$/gm;
	const viewExec = /execute bl_\d+: UPDATE secrets SET view_count = view_count \+ 1, last_viewed_at = \$2, state = \$3, text_ct = NULL, text_iv = NULL WHERE id = \$1$/gm;
	try {
		for (let round = 1; round <= 2; round++) {
			pg.restart('fast');	// the settings apply to new sessions
			const parsed = runs(insertParse), executed = runs(insertExec);
			const viewsParsed = runs(viewParse), viewsRun = runs(viewExec);
			for (let i = 0; i < 5; i++) {
				const c = await api('POST', '/api/secrets', { text: `prepared ${round}.${i}` });
				assert.equal(c.status, 200, c.text);
				const r = await api('POST', `/api/secrets/${c.body.metadata.secretKey}`, {});
				assert.equal(r.status, 200, r.text);
				assert.ok(r.body.text, 'the secret comes back');
			}
			assert.equal(runs(insertParse) - parsed, 1, 'the insert is prepared once per session');
			assert.equal(runs(insertExec) - executed, 5, 'and run by name for every create');
			assert.equal(runs(viewParse) - viewsParsed, 1, 'the view count is prepared once per session');
			assert.equal(runs(viewExec) - viewsRun, 5, 'and run by name for every view');
		}
		// A view that is not the last (here of maxViews 3 and of an
		// unlimited secret) is one statement: it finds the row by the
		// key's hash, checks, counts and returns the content, with no
		// lookup, no BEGIN and no row lock apart.
		// (with its audit row, written by the same statement: docs/ADMIN.md, "Audit trail")
		const takes = /execute bl_\d+: WITH v AS \(UPDATE secrets SET view_count = view_count \+ 1, last_viewed_at = \$2 WHERE lookup_at IN \(\$4, 0\) AND secret_hash = \$1 [^\n]*RETURNING[^\n]*INSERT INTO audit_events[^\n]*'secret\.viewed'/g;
		const lookups = /execute bl_\d+: SELECT [^\n]* WHERE \(lookup_at = \$2 AND secret_hash = \$1\) OR /g;
		const locks = /execute bl_\d+: SELECT [^\n]* FOR UPDATE/g;
		const begins = /execute[^\n]*: BEGIN|statement: BEGIN/g;
		for (const maxViews of [3, null]) {
			const c = await api('POST', '/api/secrets', { text: `counted ${maxViews}`, maxViews });
			assert.equal(c.status, 200, c.text);
			const [taken, looked, locked, begun] = [runs(takes), runs(lookups), runs(locks), runs(begins)];
			for (let i = 1; i <= 2; i++) {
				const r = await api('POST', `/api/secrets/${c.body.metadata.secretKey}`, {});
				assert.equal(r.status, 200, r.text);
				assert.equal(r.body.viewsRemaining, maxViews === null ? null : maxViews - i);
			}
			assert.equal(runs(takes) - taken, 2, 'each view in one statement');
			assert.equal(runs(lookups) - looked, 0, 'no lookup of its own');
			assert.equal(runs(locks) - locked, 0, 'no row lock of its own');
			assert.equal(runs(begins) - begun, 0, 'no transaction around it');
			const m = await api('GET', `/api/secrets/${c.body.metadata.key}`);
			assert.equal(m.body.viewCount, 2);
			assert.equal(m.body.state, 'active');
		}
		// The last view goes the whole way, under the row lock (it deletes
		// the content), and so does a view of a secret with a passphrase,
		// which is checked first: the one statement finds no such view.
		const c = await api('POST', '/api/secrets', { text: 'last', maxViews: 2 });
		const secretKey = c.body.metadata.secretKey;
		assert.equal((await api('POST', `/api/secrets/${secretKey}`, {})).body.viewsRemaining, 1);
		let locked = runs(locks);
		const last = await api('POST', `/api/secrets/${secretKey}`, {});
		assert.equal(last.status, 200, last.text);
		assert.equal(last.body.viewsRemaining, 0);
		assert.equal(runs(locks) - locked, 1, 'the last view locks the row');
		assert.equal((await api('GET', `/api/secrets/${c.body.metadata.key}`)).body.state, 'exhausted');
		const p = await api('POST', '/api/secrets', { text: 'guarded', maxViews: 3, passphrase: 'long enough' });
		const guarded = p.body.metadata.secretKey;
		assert.equal((await api('POST', `/api/secrets/${guarded}`, {})).body.code, 'INVALID_PASSPHRASE');
		locked = runs(locks);
		const ok = await api('POST', `/api/secrets/${guarded}`, { passphrase: 'long enough' });
		assert.equal(ok.status, 200, ok.text);
		assert.equal(ok.body.viewsRemaining, 2, 'the refused attempt used no view');
		assert.equal(runs(locks) - locked, 1, 'the passphrase\'s view locks the row');
	} finally {
		pg.sql(db, `ALTER DATABASE ${db} RESET log_min_duration_statement`);
		pg.sql(db, `ALTER DATABASE ${db} RESET log_min_messages`);
	}
});
