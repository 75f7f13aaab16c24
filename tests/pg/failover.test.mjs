// failover.test.mjs: PostgreSQL failover (INSTALL, "PostgreSQL, highly
// available"). A primary and a standby of it (pg_basebackup -R) on loopback
// TCP; BURNLINK_DB names both hosts with target_session_attrs=read-write.
// lighttpd serves the programs of `make pg` as CGI and as FastCGI responders
// while clients create, view, read metadata and burn; the test plays the
// failover manager: it SIGKILLs the primary and every process of it, then
// promotes the standby.
//
// With a synchronous standby nothing acknowledged is lost: every create
// answered 200 is readable afterwards, no secret serves more views than its
// maxViews, burned and exhausted secrets stay gone, the outage is 503
// STORE_UNAVAILABLE with Retry-After (never 500, never a hang), and both
// servers, the FastCGI responders with connections to the dead primary
// among them, serve again within 10 s of the promotion.
//
// With an asynchronous standby that is behind, the same failover loses what
// the primary acknowledged and the standby never received: the second
// describe shows it (creates answered 200 gone, a spent view and a burn
// undone), as INSTALL and docs/ADMIN.md say.
//
// A host that vanishes without a word (no reset: powered off, cut off) is
// the third: a FastCGI responder's kept connection to it ends after libpq's
// tcp_user_timeout (lib/store_pg.c), a 503, not a hang (vanished-host.mjs,
// in a network namespace of its own).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cluster from './cluster.mjs';

process.env.BURNLINK_BIN ||= 'build/pg';
const { startServer } = await import('../lib/server.mjs');
const { runProgram } = await import('../lib/cgi.mjs');

// The liveness deadline of the issue: service is back this long after the promotion.
const RESUME_MS = 10000;
// A request that has no answer after this long hung (the programs' own bound
// is libpq's connect_timeout, 5 s a host, lib/store_pg.c).
const HANG_MS = 30000;

const asRoot = process.getuid() === 0;
const tmpDirs = [];
process.on('exit', () => { for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true }); });

// One install secret for both web servers (INSTALL: every host shares it), readable by their user.
function sharedSecret() {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-failover-'));
	tmpDirs.push(d);
	const file = path.join(d, 'secret.key');
	fs.writeFileSync(file, crypto.randomBytes(32), { mode: 0o600 });
	if (asRoot) {
		const uid = Number(execFileSync('id', ['-u', 'www-data'], { encoding: 'utf8' }));
		const gid = Number(execFileSync('id', ['-g', 'www-data'], { encoding: 'utf8' }));
		fs.chownSync(d, uid, gid);
		fs.chownSync(file, uid, gid);
	}
	return file;
}

// A primary on TCP with a streaming standby, a database on it and BURNLINK_DB naming both.
async function pair() {
	// (each on a port found free; again on another one if it was taken meanwhile)
	const { port: p1, value: primary } = await cluster.onFreePort((p) => cluster.newCluster({ tcpPort: p }));
	const { port: p2, value: standby } = await cluster.onFreePort((p) => cluster.newStandby(primary, { tcpPort: p }), [p1]);
	const db = primary.createDatabase();
	const env = {
		BURNLINK_DB: `postgresql://burnlink@127.0.0.1:${p1},127.0.0.1:${p2}/${db}?target_session_attrs=read-write`,
		BURNLINK_SECRET_FILE: sharedSecret(),
	};
	return { primary, standby, db, env, ports: [p1, p2] };
}

// One request; never throws: a request that failed or hung is { status: 0 }.
// Each on a connection of its own: the test blocks its event loop while it
// kills and promotes, and lighttpd may close an idle kept-alive connection
// just as a request is sent on it (a POST is not retried: "fetch failed").
async function api(base, method, p, json) {
	const t0 = Date.now();
	try {
		const res = await fetch(base + p, {
			method,
			headers: { Connection: 'close', ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
			body: json === undefined ? undefined : JSON.stringify(json),
			signal: AbortSignal.timeout(HANG_MS),
		});
		const text = await res.text();
		let body = null;
		try { body = JSON.parse(text); } catch { body = null; }
		return { status: res.status, headers: res.headers, body, text, t0, t1: Date.now() };
	} catch (e) {
		return { status: 0, headers: new Headers(), body: null, text: `${e} ${e.cause ?? ''}`, t0, t1: Date.now() };
	}
}

// The text of a server-side secret: AES-256-GCM under the key of secretUrl's fragment.
function decrypt(key, { ciphertext, iv }) {
	const ct = Buffer.from(ciphertext, 'base64');
	const d = crypto.createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64url'), Buffer.from(iv, 'base64'));
	d.setAuthTag(ct.subarray(ct.length - 16));
	return Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]).toString('utf8');
}

// The FastCGI responders of a server (the programs in its process group): pid per program.
function responders(srv) {
	const found = {};
	for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== srv.pid) continue;
			const argv0 = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')[0];
			if (path.dirname(argv0) === srv.cgiBin) found[path.basename(argv0)] = Number(d);
		} catch { /* gone */ }
	}
	return found;
}

// Waits for a condition the clients make true (each look lets them run on).
async function until(cond, what, ms = 120000) {
	const t0 = Date.now();
	while (!cond()) {
		if (Date.now() - t0 > ms) throw new Error(`waited ${ms} ms for ${what}`);
		await new Promise((r) => setTimeout(r, 5));
	}
}

describe('a synchronous standby promoted after the primary is killed', () => {
	let pg, servers;
	before(async () => {
		pg = await pair();
		pg.primary.replicateSynchronously();	// synchronous_standby_names = '*', waits for "sync"
		servers = {
			cgi: await startServer({ server: 'lighttpd', env: pg.env }),
			fastcgi: await startServer({ server: 'lighttpd-fastcgi', env: pg.env }),
		};
	});
	after(async () => {
		for (const s of Object.values(servers || {})) await s.stop();
		pg?.standby.remove();
		pg?.primary.remove();
	});

	test('nothing acknowledged is lost, no view served twice, 503 with Retry-After meanwhile, service back within 10 s', async (t) => {
		const names = Object.keys(servers);
		const secrets = [];	// every secret whose create was answered 200
		const log = [];		// every answer: { server, op, status, code, t0, t1, ... }
		const call = async (server, op, method, p, json) => {
			const r = await api(servers[server].base, method, p, json);
			log.push({ server, op, status: r.status, code: r.body?.code, retryAfter: r.headers.get('retry-after'),
				text: r.text.slice(0, 200), t0: r.t0, t1: r.t1 });
			return r;
		};
		const create = async (server, maxViews) => {
			const text = `failover ${crypto.randomBytes(6).toString('hex')}`;
			const r = await call(server, 'create', 'POST', '/api/secrets', { text, maxViews });
			if (r.status !== 200) return null;
			const s = { text, maxViews, key: new URL(r.body.secretUrl).hash.replace(/^#key=/, ''),
				secretKey: r.body.metadata.secretKey, receipt: r.body.metadata.key,
				served: 0, burned: false, maybeBurned: false, exhausted: false };
			secrets.push(s);
			return s;
		};
		const retrieve = async (server, s) => {
			const r = await call(server, 'retrieve', 'POST', `/api/secrets/${s.secretKey}`, {});
			if (r.status === 200) {
				assert.equal(decrypt(s.key, r.body.text), s.text, 'the content as it was sent');
				s.served++;
				if (r.body.viewsRemaining === 0) s.exhausted = true;
			}
			return r;
		};
		const burn = async (server, s) => {
			const r = await call(server, 'burn', 'DELETE', `/api/secrets/${s.receipt}`);
			if (r.status === 200) s.burned = true;
			else if (r.status === 503) s.maybeBurned = true;	// it may have committed
			return r;
		};

		// Before: burned and exhausted secrets on each server.
		const gone = [];
		for (const server of names) {
			for (let i = 0; i < 3; i++) {
				const b = await create(server, 3);
				assert.equal((await burn(server, b)).status, 200);
				const x = await create(server, 1);
				assert.equal((await retrieve(server, x)).status, 200);
				assert.ok(x.exhausted);
				gone.push(b, x);
			}
		}

		// Clients on both servers, without pause, until told to stop.
		let stop = false;
		const client = async (n) => {
			for (let i = 0; !stop; i++) {
				const server = names[(n + i) % names.length];
				const live = secrets.filter((s) => !s.burned && !s.exhausted);
				const pick = live[(i * 7 + n) % Math.max(live.length, 1)];
				switch (pick === undefined ? 0 : i % 5) {
				case 0: case 3: await create(server, 1 + (i % 3)); break;
				case 1: await retrieve(server, pick); break;
				case 2: await call(server, 'metadata', 'GET', `/api/secrets/${pick.receipt}`); break;
				case 4: if (i % 10 === 4) await burn(server, pick); else await retrieve(server, pick); break;
				}
			}
		};
		const ok = (server, from) => log.filter((l) => l.server === server && l.status === 200 && l.t0 >= from).length;
		const answered = (server, from) => log.filter((l) => l.server === server && l.t0 >= from).length;
		const clients = [0, 1, 2, 3].map(client);
		try {
			await until(() => names.every((s) => ok(s, 0) >= 12), 'answers before the failover');

			// The primary's host dies: SIGKILL to the postmaster and every backend.
			const kept = responders(servers.fastcgi);
			assert.deepEqual(Object.keys(kept).sort(), ['create', 'delete', 'metadata', 'retrieve']);
			const tKill = Date.now();
			pg.primary.kill();
			// Both servers, the FastCGI responders' kept connections lost, answer during the outage.
			await until(() => names.every((s) => answered(s, tKill) >= 6), 'answers during the outage');

			// The failover manager promotes the standby.
			pg.standby.promote();
			const tPromote = Date.now();

			// Liveness: each server answers a create with 200 again, within 10 s of the promotion.
			for (const server of names) {
				let r;
				do r = await call(server, 'probe', 'POST', '/api/secrets', { text: 'back?' });
				while (r.status !== 200 && Date.now() - tPromote < RESUME_MS);
				assert.equal(r.status, 200, `${server}: no create answered 200 within ${RESUME_MS} ms of the promotion: ${r.text}`);
				t.diagnostic(`${server}: a create answered 200 ${r.t1 - tPromote} ms after the promotion`);
			}
			const tBack = Date.now();
			await until(() => names.every((s) => ok(s, tBack) >= 8), 'answers after the failover');
			// The same responders, each of its own accord on a new connection: none was restarted.
			assert.deepEqual(responders(servers.fastcgi), kept);

			// The outage was met by both servers, each time as 503 STORE_UNAVAILABLE.
			for (const server of names) {
				assert.ok(log.some((l) => l.server === server && l.status === 503 && l.t0 >= tKill && l.t1 <= tPromote),
					`${server} answered some request with 503 during the outage`);
			}
			// The error log says why each host failed: the primary is gone, the standby read-only.
			const [p1, p2] = pg.ports;
			assert.match(servers.cgi.errorLog(), new RegExp(`rate limiter: connect: connection to server at "127\\.0\\.0\\.1", ` +
				`port ${p1} failed: Connection refused; connection to server at "127\\.0\\.0\\.1", port ${p2} failed: [^;\\n]*read-only`));
		} finally {
			stop = true;
			await Promise.all(clients);
		}

		const outage = log.filter((l) => l.status === 503);
		t.diagnostic(`${outage.length} answers 503 during the outage, the slowest in ${Math.max(0, ...outage.map((l) => l.t1 - l.t0))} ms`);
		// Every answer: 200, 410 for a burned or exhausted secret, or 503
		// STORE_UNAVAILABLE with Retry-After; never 500, never no answer.
		for (const l of log) {
			if (l.status === 200) continue;
			if (l.status === 410) {
				assert.ok(['SECRET_BURNED', 'MAX_VIEWS_REACHED'].includes(l.code), `${l.server} ${l.op}: ${l.text}`);
				continue;
			}
			assert.equal(l.status, 503, `${l.server} ${l.op}: ${l.status} ${l.text}`);
			assert.equal(l.code, 'STORE_UNAVAILABLE', `${l.server} ${l.op}: ${l.text}`);
			assert.match(l.retryAfter || '', /^[1-9]\d*$/, `${l.server} ${l.op}: Retry-After`);
		}

		// After the failover, through both servers: every secret created is
		// there; burned and exhausted ones stay gone; the rest give their
		// remaining views and no more, with the content as it was sent.
		for (const [i, s] of secrets.entries()) {
			const server = names[i % names.length];
			const m = await call(server, 'check', 'GET', `/api/secrets/${s.receipt}`);
			assert.equal(m.status, 200, `created (answered 200) before or during the failover: ${m.text}`);
			assert.ok(m.body.viewCount >= s.served, `every view served is counted: ${m.body.viewCount} < ${s.served}`);
			if (s.burned) {
				assert.equal(m.body.state, 'burned');
			} else if (s.exhausted) {
				assert.equal(m.body.state, 'exhausted');
			} else if (m.body.state === 'active') {
				let r;
				while ((r = await retrieve(server, s)).status === 200)
					;
				assert.equal(r.status, 410, r.text);
			} else {
				// a burn, or a last view, whose answer was lost in the outage
				assert.ok(m.body.state === 'exhausted' || (m.body.state === 'burned' && s.maybeBurned), m.text);
			}
			assert.ok(s.served <= s.maxViews, `secret served ${s.served} times, maxViews ${s.maxViews}`);
			if (s.burned || s.exhausted) {
				const r = await call(server, 'check', 'POST', `/api/secrets/${s.secretKey}`, {});
				assert.equal(r.status, 410, `${s.burned ? 'burned' : 'exhausted'} before or during the failover: ${r.text}`);
				assert.equal(r.body.code, s.burned ? 'SECRET_BURNED' : 'MAX_VIEWS_REACHED');
			}
		}
		assert.ok(gone.every((s) => s.burned || s.exhausted));
		assert.ok(secrets.length >= 20, `${secrets.length} secrets`);

		// The rate-limit counters are an UNLOGGED table (schema-pg.sql): not
		// replicated, so the promoted standby counts from nothing (INSTALL).
		// (window 0 holds the metrics' totals, which are not per-request windows)
		const counted = Number(pg.standby.sql(pg.db, 'SELECT coalesce(sum(count), 0) FROM counters WHERE window_start <> 0').trim());
		const requests = log.filter((l) => l.status !== 0).length;
		assert.ok(counted > 0 && counted < requests, `counted ${counted} of ${requests} requests`);

		// The cron job, with the same BURNLINK_DB, follows the primary too.
		const clean = await runProgram('cleanup', { env: pg.env });
		assert.equal(clean.code, 0, clean.stderr);
	});
});

describe('an asynchronous standby that is behind, promoted after the primary is killed', () => {
	let pg, srv;
	before(async () => {
		pg = await pair();	// synchronous_standby_names empty: commits do not wait for the standby
		srv = await startServer({ server: 'lighttpd', env: pg.env });
	});
	after(async () => {
		await srv?.stop();
		pg?.standby.remove();
		pg?.primary.remove();
	});

	const api1 = (method, p, json) => api(srv.base, method, p, json);

	test('loses what the primary acknowledged after the standby fell behind: creates, a spent view, a burn', async () => {
		const create = async (text, maxViews) => {
			const r = await api1('POST', '/api/secrets', { text, maxViews });
			assert.equal(r.status, 200, r.text);
			return r.body.metadata;
		};
		const early = await create('early', null);
		const viewed = await create('viewed once', 1);
		const burned = await create('burned', null);
		// Everything so far is on the standby: it has replayed the primary's WAL.
		const lsn = pg.primary.sql(pg.db, 'SELECT pg_current_wal_lsn()').trim();
		await until(() => pg.primary.sql(pg.db,
			`SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= '${lsn}'`).trim() === '1', 'the standby to replay');

		// The standby falls behind (here: it stops; in practice a slow link or
		// disk); the primary goes on acknowledging, as asynchronous replication does.
		pg.standby.stop('fast');
		const late = [];
		for (let i = 0; i < 3; i++) late.push(await create(`late ${i}`, null));
		assert.equal((await api1('POST', `/api/secrets/${viewed.secretKey}`, {})).body.viewsRemaining, 0);
		assert.equal((await api1('DELETE', `/api/secrets/${burned.key}`)).status, 200);

		pg.primary.kill();
		pg.standby.start();
		pg.standby.promote();

		// Service resumes on the standby, with what it had received.
		assert.equal((await api1('GET', `/api/secrets/${early.key}`)).status, 200);
		// Lost: every create answered 200 after the standby fell behind,
		for (const m of late) assert.equal((await api1('GET', `/api/secrets/${m.key}`)).status, 404, 'a create answered 200 is gone');
		// the last view of a maxViews: 1 secret (it is served a second time),
		const again = await api1('POST', `/api/secrets/${viewed.secretKey}`, {});
		assert.equal(again.status, 200, 'a spent view comes back');
		assert.equal(again.body.viewsRemaining, 0);
		// and the burn: the burned secret is readable again.
		const back = await api1('POST', `/api/secrets/${burned.secretKey}`, {});
		assert.equal(back.status, 200, 'a burned secret comes back');
		assert.ok(back.body.text.ciphertext);
	});
});

describe('a database host that vanishes without a word', () => {
	const isolated = spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up']).status === 0;
	test('a FastCGI responder waiting on it answers 503 STORE_UNAVAILABLE, not a hang, then reconnects',
		{ skip: !isolated && 'needs unshare -n (root) and ip (iproute2)' }, async () => {
			const env = { ...process.env, HANG_MS: String(HANG_MS) };
			delete env.BURNLINK_TEST_PG;	// its own cluster, inside the namespace
			const out = await new Promise((resolve, reject) => {
				execFile('unshare', ['-n', process.execPath, fileURLToPath(new URL('vanished-host.mjs', import.meta.url))],
					{ env, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
			});
			const r = JSON.parse(out.trim().split('\n').pop());
			assert.equal(r.before.status, 200, JSON.stringify(r.before));
			// Without a bound the kernel's retransmissions hold the request some 15 minutes.
			assert.notEqual(r.vanished.status, 0, `no answer within ${HANG_MS} ms: ${r.vanished.error}`);
			assert.equal(r.vanished.status, 503);
			assert.equal(r.vanished.code, 'STORE_UNAVAILABLE');
			assert.equal(r.vanished.retryAfter, '5');
			assert.ok(r.log.some((l) => /rate limiter: query: .*Connection timed out/.test(l)), r.log.join('\n'));
			assert.equal(r.back.status, 200, 'the next request connects anew');
		});
});

describe('a wait for the synchronous standby that is cancelled', () => {
	let pg, srv;
	before(async () => {
		pg = await pair();
		pg.primary.replicateSynchronously();
		srv = await startServer({ server: 'lighttpd', env: pg.env });
	});
	after(async () => {
		await srv?.stop();
		pg?.standby.remove();
		pg?.primary.remove();
	});

	// Sends a request that will wait for the standby, cancels that wait as an
	// operator or a failover manager may (pg_cancel_backend), and returns the answer.
	async function cancelled(method, p, json) {
		const pending = api(srv.base, method, p, json);
		const waiting = () => pg.primary.sql(pg.db, "SELECT pid FROM pg_stat_activity WHERE application_name = 'burnlink' AND wait_event = 'SyncRep'").trim();
		await until(() => waiting() !== '', 'a request waiting for the standby');
		pg.primary.sql(pg.db, `SELECT pg_cancel_backend(${waiting().split('\n')[0]})`);
		return pending;
	}

	test('is not reported done: the create and the last view answer 503, and after a failover the view is served once', async () => {
		const c = await api(srv.base, 'POST', '/api/secrets', { text: 'read once', maxViews: 1 });
		assert.equal(c.status, 200, c.text);
		const secret = c.body.metadata;

		// The standby stops: every COMMIT on the primary waits for it.
		pg.standby.stop('fast');
		// PostgreSQL commits locally and says only WARNING: "canceling wait for synchronous replication".
		const view = await cancelled('POST', `/api/secrets/${secret.secretKey}`, {});
		assert.equal(view.status, 503, `a view the standby may not have is not served: ${view.text.slice(0, 200)}`);
		assert.equal(view.body.code, 'STORE_UNAVAILABLE');
		assert.equal(view.headers.get('retry-after'), '5');
		const made = await cancelled('POST', '/api/secrets', { text: 'not on the standby' });
		assert.equal(made.status, 503, `a create the standby may not have is not answered 200: ${made.text.slice(0, 200)}`);
		assert.equal(made.body.code, 'STORE_UNAVAILABLE');
		assert.match(srv.errorLog(), /commit: the server warned: canceling wait for synchronous replication/);

		// The failover: the standby never had the view, so the secret is served
		// now, once in all, as maxViews: 1 says.
		pg.primary.kill();
		pg.standby.start();
		pg.standby.promote();
		const r = await api(srv.base, 'POST', `/api/secrets/${secret.secretKey}`, {});
		assert.equal(r.status, 200, r.text);
		assert.equal((await api(srv.base, 'POST', `/api/secrets/${secret.secretKey}`, {})).status, 410);
	});
});
