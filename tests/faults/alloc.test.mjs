// alloc.test.mjs: every allocation of a request made to fail in turn (the
// failmalloc LD_PRELOAD shim over the programs of build/dyn). Each run must end
// in a complete response, success or a JSON 5xx error, with no signal, no
// leak, no partial row, and no view used without a response that says so.
// BURNLINK_FAULTS_FULL=1 fails every allocation; by default the first and last
// 25 of each request and 35 spread between them.

import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sqlite, sha256hex, decryptItem, fragmentKey, encryptItem, newKey } from '../lib/cgi.mjs';
import { buildShim, runDyn, outcomeProblems, failPoints, integrity, ipFor } from './helpers.mjs';
import { accountsContext, signedUp, PASSWORD } from '../accounts/helpers.mjs';
import { wire } from '../requests/helpers.mjs';
import { totpCode, nowStep } from '../lib/totp.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-faults-'));
process.on('exit', () => { if (!process.env.BURNLINK_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true }); });
let dbn = 0;
function newDb() { return path.join(dir, `f${++dbn}.db`); }

const SERVER_BODY = {
	text: 'alloc fault text',
	maxViews: 3,
	files: [{ filename: 'a.txt', mimeType: 'text/plain', data: 'data:text/plain;base64,aGVsbG8=' }],
};

function row(db, secretKey) {
	const out = sqlite(db, `SELECT state, view_count, text_ct IS NOT NULL FROM secrets WHERE secret_hash = x'${sha256hex(secretKey)}'`).trim();
	if (out === '') return null;
	const [state, views, hasText] = out.split('|').map(Number);
	return { state, views, hasText: hasText === 1 };
}

function counts(db) {
	const [s, a] = sqlite(db, 'SELECT (SELECT count(*) FROM secrets), (SELECT count(*) FROM attachments)').trim().split('|').map(Number);
	return { secrets: s, attachments: a };
}

async function createPlain(db, body, n = 0) {
	const r = await runDyn('create', { body, env: { BURNLINK_DB: db }, ip: ipFor(100000 + n) });
	assert.equal(r.res?.status, 200, `set-up create: ${r.raw}`);
	const j = r.res.json;
	return { secretKey: j.metadata.secretKey, receiptKey: j.metadata.key, key: fragmentKey(j.secretUrl), json: j };
}

// The hint of a 5xx after a view was used must say so.
function saysViewUsed(res) {
	return /view/i.test(res?.json?.hint || '') && /(used|consumed|lost)/i.test(res?.json?.hint || '');
}

/*
 * Defects of the Debian 12 libraries, not of burnlink (docs/SECURITY.md):
 * - OpenSSL 3.0: when the allocation of a lock fails during its lazy set-up,
 *   a later EVP_*_fetch takes the NULL lock and crashes (SIGSEGV). It happens
 *   before anything is stored or consumed (encryption and scrypt run first),
 *   core dumps are off, and the web server answers 500.
 * - OpenSSL 3.0: an allocation that fails inside EVP_*_fetch leaks what the
 *   fetch had allocated so far (a few bytes, once per process); so does one
 *   that fails inside OSSL_PROVIDER_load while it sets up the default
 *   provider (whose AES-256-GCM lib/crypto.c calls: loaded once per process,
 *   unloaded by the OPENSSL_cleanup() these tests run at the exit).
 * - json-c 0.16: when it cannot add a member or an element while parsing, it
 *   leaks the value it could not add (burnlink then refuses the request);
 *   when it cannot copy a member name, it adds the member under a NULL name
 *   and crashes (SIGSEGV), again before anything is stored.
 */
const KNOWN_LEAK = /json_tokener_parse_ex|^[^ ]*\(libcrypto[^ ]*( [^ ]*\(libcrypto[^ ]*)* (EVP_[A-Za-z_]*fetch|OSSL_PROVIDER_(try_)?load\+)/;
function knownUpstream(r, where, crash) {
	if (r.signal === 'SIGSEGV' && /libcrypto/.test(where) && /CRYPTO_THREAD_(read|write)_lock|pthread_rwlock/.test(crash))
		return 'OpenSSL 3.0 NULL lock after a failed allocation in its initialisation (SIGSEGV before anything was stored)';
	if (r.signal === 'SIGSEGV' && /__strdup[^ ]* json_tokener_parse_ex/.test(where) && /json_object_object_add_ex/.test(crash))
		return 'json-c 0.16 tokener uses the NULL member name it could not copy (SIGSEGV while parsing the body, before anything was stored)';
	return null;
}

// Runs one sweep; check(r, n) returns a list of problems. Collects them all.
async function sweep(t, name, runOne, check) {
	const base = await runOne(0);
	assert.deepEqual([...outcomeProblems(base), ...(await check(base, 0))], [], `${name} without faults`);
	assert.ok(base.alloc, `the shim reported nothing: ${base.stderr}`);
	assert.equal(base.alloc.live, 0, `${name} leaks without faults:\n${base.alloc.leaks.join('\n')}`);
	const total = base.alloc.allocations;
	const points = failPoints(total);
	const problems = [];
	const known = [];
	const outcomes = {};
	let n = 0;
	for (const at of points) {
		const r = await runOne(at);
		n++;
		const key = r.res ? `${r.res.status}${r.res.json?.code ? ' ' + r.res.json.code : ''}` : 'no response';
		outcomes[key] = (outcomes[key] || 0) + 1;
		const where = ((/failmalloc: failing #\d+: (.*)/.exec(r.stderr) || [])[1] || '?')
			.replace(/^([^ ]*\(failmalloc\.so\) )+/, '');
		const crash = (/failmalloc: signal \d+ after \d+ allocations: (.*)/.exec(r.stderr) || [])[1] || '';
		const upstream = knownUpstream(r, where, crash);
		if (upstream) {
			known.push(`${at}: ${upstream}`);
			continue;
		}
		const bad = [...outcomeProblems(r), ...(await check(r, at))];
		if (r.alloc && r.alloc.live !== 0 && !KNOWN_LEAK.test(where))
			bad.push(`leak of ${r.alloc.live} blocks: ${r.alloc.leaks.join('; ')}`);
		if (!r.alloc && !crash) bad.push('the shim did not report (did the process die?)');
		if (crash) bad.push(`crashed in: ${crash.slice(0, 400)}`);
		if (bad.length) {
			const log = r.stderr.split('\n').filter((l) => l && !l.startsWith('failmalloc')).join(' | ').slice(0, 300);
			problems.push(`allocation ${at}: ${bad.join('; ')}\n      failed in: ${where.replace(/ \?\+0x[0-9a-f]+\(failmalloc.so\).*/, '')}${log ? `\n      log: ${log}` : ''}`);
		}
	}
	t.diagnostic(`${name}: ${total} allocations, ${n} failed in turn; outcomes ${JSON.stringify(outcomes)}`);
	if (known.length) t.diagnostic(`${name}: known upstream defects hit at ${known.join('; ')}`);
	assert.deepEqual(problems, [], `${name}: ${problems.length} of ${n} runs went wrong`);
}

before(() => { buildShim(); });

// Each sweep has a database of its own, so three run at a time: the runs
// mostly wait on the programs they start.
describe('allocation failure', { concurrency: 3 }, () => {
	test('create (server-side text and a file): 200 or a JSON 5xx; a row exists exactly when the answer is 200', async (t) => {
		const db = newDb();
		await createPlain(db, { text: 'schema' });
		let last = counts(db);
		await sweep(t, 'create', (at) => runDyn('create', { body: SERVER_BODY, failAt: at,
			env: { BURNLINK_DB: db }, ip: ipFor(at) }), async (r) => {
			const bad = [];
			const now = counts(db);
			const ok = r.res?.status === 200;
			if (now.secrets - last.secrets !== (ok ? 1 : 0))
				bad.push(`${now.secrets - last.secrets} rows added by a ${r.res?.status}`);
			if (now.attachments - last.attachments !== (ok ? 1 : 0))
				bad.push(`${now.attachments - last.attachments} attachments added by a ${r.res?.status}`);
			if (ok) {
				const rw = row(db, r.res.json.metadata.secretKey);
				if (!rw || rw.state !== 0 || !rw.hasText) bad.push('the acknowledged secret is not stored whole');
			}
			last = now;
			return bad;
		});
		assert.equal(integrity(db), 'ok');
	});

	test('create (client-side, passphrase-free, files only)', async (t) => {
		const db = newDb();
		const key = newKey();
		const body = { files: [{ filename: encryptItem('n.bin', key), mimeType: encryptItem('application/x', key), data: encryptItem('bytes', key) }], maxViews: null };
		await createPlain(db, { text: 'schema' });
		let last = counts(db);
		await sweep(t, 'create client-side', (at) => runDyn('create', { body, failAt: at,
			env: { BURNLINK_DB: db }, ip: ipFor(at) }), async (r) => {
			const now = counts(db);
			const ok = r.res?.status === 200;
			const bad = now.secrets - last.secrets !== (ok ? 1 : 0) ? [`${now.secrets - last.secrets} rows added by a ${r.res?.status}`] : [];
			last = now;
			return bad;
		});
		assert.equal(integrity(db), 'ok');
	});

	test('retrieve (unlimited views): a view is used exactly when the answer is 200, or the 5xx says it was', async (t) => {
		const db = newDb();
		const s = await createPlain(db, { ...SERVER_BODY, maxViews: null });
		let views = 0;
		await sweep(t, 'retrieve', (at) => runDyn('retrieve', { method: 'POST', pathInfo: `/${s.secretKey}`,
			failAt: at, env: { BURNLINK_DB: db }, ip: ipFor(at) }), async (r) => {
			const bad = [];
			const now = row(db, s.secretKey).views;
			const used = now - views;
			views = now;
			if (r.res?.status === 200) {
				if (used !== 1) bad.push(`a 200 used ${used} views`);
				try {
					if (decryptItem(r.res.json.text, s.key).toString() !== SERVER_BODY.text) bad.push('wrong text');
				} catch (e) { bad.push(`text does not decrypt: ${e.message}`); }
			} else if (used === 1 && !saysViewUsed(r.res)) {
				bad.push(`a view was used but the ${r.res?.status} says nothing of it (hint: ${r.res?.json?.hint})`);
			} else if (used !== 0 && used !== 1) bad.push(`${used} views used`);
			return bad;
		});
		assert.equal(integrity(db), 'ok');
	});

	test('retrieve of the last view: content gone exactly when a view was used, and then the answer says so', async (t) => {
		const db = newDb();
		let cur = null;
		await sweep(t, 'retrieve last view', async (at) => {
			cur = await createPlain(db, { text: 'last view', maxViews: 1 }, at);
			return runDyn('retrieve', { method: 'POST', pathInfo: `/${cur.secretKey}`, failAt: at,
				env: { BURNLINK_DB: db }, ip: ipFor(at) });
		}, async (r) => {
			const bad = [];
			const rw = row(db, cur.secretKey);
			if (r.res?.status === 200) {
				if (rw.state !== 3 || rw.hasText || rw.views !== 1) bad.push(`after the last view: ${JSON.stringify(rw)}`);
			} else if (rw.views === 1) {
				if (!saysViewUsed(r.res)) bad.push(`the last view was used but the ${r.res?.status} says nothing of it`);
				if (rw.state !== 3 || rw.hasText) bad.push(`view counted but content kept: ${JSON.stringify(rw)}`);
			} else if (rw.state !== 0 || !rw.hasText || rw.views !== 0) bad.push(`failed retrieve changed the row: ${JSON.stringify(rw)}`);
			return bad;
		});
		assert.equal(integrity(db), 'ok');
	});

	test('metadata by secret key and by receipt key', async (t) => {
		const db = newDb();
		const s = await createPlain(db, { text: 'meta', passphrase: 'open sesame' });
		for (const [name, key] of [['metadata (secret key)', s.secretKey], ['metadata (receipt key)', s.receiptKey]])
			await sweep(t, name, (at) => runDyn('metadata', { pathInfo: `/${key}`, failAt: at,
				env: { BURNLINK_DB: db }, ip: ipFor(at) }), async () => []);
		assert.equal(row(db, s.secretKey).views, 0);
	});

	test('burn by receipt key: burned exactly when the answer is 200, or the 5xx says it was', async (t) => {
		const db = newDb();
		let cur = null;
		const late = [];
		await sweep(t, 'burn', async (at) => {
			cur = await createPlain(db, { text: 'burn me' }, at);
			return runDyn('delete', { method: 'DELETE', pathInfo: `/${cur.receiptKey}`, failAt: at,
				env: { BURNLINK_DB: db }, ip: ipFor(at) });
		}, async (r, at) => {
			const rw = row(db, cur.secretKey);
			if (r.res?.status === 200)
				return rw.state === 2 && !rw.hasText ? [] : [`200 but ${JSON.stringify(rw)}`];
			if (rw.state === 2) {
				late.push(at);
				if (!/burned/i.test(r.res?.json?.hint || '')) return [`burned, but the ${r.res?.status} does not say so`];
			}
			else if (rw.state !== 0 || !rw.hasText) return [`failed burn left ${JSON.stringify(rw)}`];
			return [];
		});
		if (late.length) t.diagnostic(`burn: ${late.length} failures came after the commit, each answered with a 500 that says the secret was burned: ${late.join(',')}`);
		assert.equal(integrity(db), 'ok');
	});

	// An account's API keys and webhooks, from a signed-in page (the session
	// cookie, its Origin and CSRF token): adding one writes a row exactly when
	// the answer is 200 (each row the sweep adds is removed again, so the
	// account never reaches a limit); listing them answers 200 or a JSON 5xx.
	test('API keys and webhooks: add (a row exactly when 200) and list', async (t) => {
		const ctx = accountsContext();
		const b = await signedUp(ctx, 'alloc@example.org');
		const env = (program) => ({ ...ctx.env, HTTPS: 'on', HTTP_COOKIE: b.cookieHeader(),
			HTTP_ORIGIN: b.origin, HTTP_X_CSRF_TOKEN: b.csrf, REQUEST_URI: `/api/${program}` });
		const added = (table, mark) => Number(sqlite(ctx.db, `SELECT count(*) FROM ${table} WHERE ${mark}`).trim());
		for (const [program, body, table, mark] of [
			['keys', { name: 'swept' }, 'api_keys', "label = 'swept'"],
			['webhooks', { url: 'https://hooks.example.org/swept' }, 'webhooks', "url LIKE '%/swept'"],
		]) {
			await sweep(t, `add ${program}`, (at) => runDyn(program, { method: 'POST', body, failAt: at,
				env: env(program), ip: ipFor(at) }), async (r) => {
				const n = added(table, mark);
				sqlite(ctx.db, `DELETE FROM ${table} WHERE ${mark}`);
				if (r.res?.status === 200) return n === 1 ? [] : [`a 200 added ${n} rows`];
				return n === 0 ? [] : [`a ${r.res?.status} added ${n} rows`];
			});
			await sweep(t, `list ${program}`, (at) => runDyn(program, { method: 'GET', failAt: at,
				env: env(program), ip: ipFor(at) }), async () => []);
		}
	});

	// Setup (docs/API.md, "GET, POST /setup"): an operator account and a
	// session exactly when the answer is 200; an account without 200 only
	// when the 5xx says it was created; the file burnlink-setup used up
	// exactly when the account was made or the 5xx says so.
	test('setup: the operator account exactly when 200, or the 5xx says what became of it', async (t) => {
		const ctx = accountsContext();
		const code = 'Zq3v8Kx1Lw9Tb6Hn2Yd5Rf0Ms7Pc4Ja';
		const file = path.join(ctx.dir, 'burnlink-setup');
		const env = { ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test',
			HTTP_ORIGIN: 'https://burnlink.test', REQUEST_URI: '/api/setup' };
		const count = (q) => Number(sqlite(ctx.db, q).trim());
		await sweep(t, 'setup', (at) => {
			fs.writeFileSync(file, code + '\n');
			return runDyn('setup', { method: 'POST', failAt: at,
				body: { code, name: `op${at}`, password: PASSWORD }, env, ip: ipFor(at) });
		}, async (r, at) => {
			const n = count(`SELECT count(*) FROM accounts WHERE name = 'op${at}'`);
			const admins = count(`SELECT count(*) FROM accounts WHERE name = 'op${at}' AND admin = 1`);
			const sessions = count(`SELECT count(*) FROM sessions WHERE account_id = (SELECT id FROM accounts WHERE name = 'op${at}')`);
			const gone = !fs.existsSync(file);
			const hint = r.res?.json?.hint || '';
			// the next run starts with setup open again
			sqlite(ctx.db, 'UPDATE accounts SET admin = 0');
			if (r.res?.status === 200)
				return n === 1 && admins === 1 && sessions === 1 && gone ? [] :
					[`a 200 made ${n} accounts (${admins} admin), ${sessions} sessions, the file ${gone ? 'gone' : 'kept'}`];
			if (sessions !== 0) return [`a ${r.res?.status} left ${sessions} sessions`];
			if (n !== 0 && !/account was created/i.test(hint))
				return [`an account was made, but the ${r.res?.status} does not say so`];
			if (gone && n === 0 && !/used up/i.test(hint))
				return [`the file was deleted, but the ${r.res?.status} does not say so`];
			return [];
		});
	});

	// Sign-up and sign-in (docs/API.md, "Accounts"): a session exactly when
	// the answer is 200 (one nobody was given is deleted again); an account
	// exactly when the sign-up's answer is 200, or the 5xx says that it was
	// made (it is stored before its session and answer, as a burn is before
	// its answer): no one is left not knowing whether their address is taken.
	test('sign-up and sign-in: a session exactly when 200; an account when 200 or the 5xx says so', async (t) => {
		const ctx = accountsContext();
		const env = (program) => ({ ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test',
			HTTP_ORIGIN: 'https://burnlink.test', REQUEST_URI: `/api/${program}` });
		const count = (table, email) => Number(sqlite(ctx.db, `SELECT count(*) FROM ${table} ` +
			(table === 'accounts' ? `WHERE name = '${email}'` :
				`WHERE account_id = (SELECT id FROM accounts WHERE name = '${email}')`)).trim());
		const late = [];
		await sweep(t, 'sign-up', (at) => runDyn('signup', { method: 'POST', failAt: at,
			body: { email: `swept${at}@example.org`, password: PASSWORD },
			env: env('signup'), ip: ipFor(at) }), async (r, at) => {
			const email = `swept${at}@example.org`;
			const [n, sessions] = [count('accounts', email), count('sessions', email)];
			if (r.res?.status === 200) return n === 1 && sessions === 1 ? [] : [`a 200 made ${n} accounts, ${sessions} sessions`];
			if (sessions !== 0) return [`a ${r.res?.status} left ${sessions} sessions`];
			if (n === 0) return [];
			late.push(at);
			return /account was created/i.test(r.res?.json?.hint || '') ? [] :
				[`an account was made, but the ${r.res?.status} does not say so`];
		});
		if (late.length) t.diagnostic(`sign-up: ${late.length} failures came after the account was stored, each answered with a 5xx that says so`);
		// Each sign-in on its own copy of one database with one account,
		// so that every run makes the same allocations (a growing database
		// would move the answer's out of the swept edge) and the per-address
		// attempt limit never answers for it.
		await signedUp(ctx, 'in@example.org');
		sqlite(ctx.db, 'PRAGMA wal_checkpoint(TRUNCATE)');
		const had = Number(sqlite(ctx.db, 'SELECT count(*) FROM sessions').trim());
		const copy = (at) => {
			const db = path.join(dir, `signin-${at}.db`);
			fs.copyFileSync(ctx.db, db);
			return db;
		};
		const dbs = new Map();
		await sweep(t, 'sign-in', (at) => {
			dbs.set(at, copy(at));
			return runDyn('session', { method: 'POST', failAt: at, body: { email: 'in@example.org', password: PASSWORD },
				env: { ...env('session'), BURNLINK_DB: dbs.get(at) }, ip: ipFor(at) });
		}, async (r, at) => {
			const sessions = Number(sqlite(dbs.get(at), 'SELECT count(*) FROM sessions').trim()) - had;
			if (r.res?.status === 200) return sessions === 1 ? [] : [`a 200 made ${sessions} sessions`];
			return sessions === 0 ? [] : [`a ${r.res?.status} left ${sessions} sessions`];
		});
	});

	// An account's address (docs/API.md, "POST /email"): changed exactly when
	// the answer is 200, or the 5xx says it was. Each run on an account of
	// its own (5 changes an hour per account).
	test('e-mail change: the address set exactly when 200, or the 5xx says so', async (t) => {
		const ctx = accountsContext();
		const address = (email) => sqlite(ctx.db, 'SELECT e.email FROM account_emails e JOIN accounts a ' +
			`ON a.id = e.account_id WHERE a.name = '${email}'`).trim();
		const late = [];
		await sweep(t, 'e-mail change', async (at) => {
			const b = await signedUp(ctx, `m${at}@example.org`, { ip: `192.0.2.${(at % 250) + 1}` });
			return runDyn('email', { method: 'POST', body: { email: `new${at}@example.org`, currentPassword: PASSWORD }, failAt: at,
				ip: ipFor(at), env: { ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test', HTTP_COOKIE: b.cookieHeader(),
					HTTP_ORIGIN: b.origin, HTTP_X_CSRF_TOKEN: b.csrf, REQUEST_URI: '/api/email' } });
		}, async (r, at) => {
			const now = address(`m${at}@example.org`);
			if (r.res?.status === 200) return now === `new${at}@example.org` ? [] : [`a 200 left the address ${now}`];
			if (now === `m${at}@example.org`) return [];
			late.push(at);
			return /address was set/i.test(r.res?.json?.hint || '') ? [] :
				[`the address became ${now}, but the ${r.res?.status} does not say so`];
		});
		if (late.length) t.diagnostic(`e-mail change: ${late.length} failures came after the address was set, each answered with a 5xx that says so`);
	});

	// A password change (docs/API.md, "POST /password"): changed exactly when
	// the answer is 200, or the 5xx says it was; a session exactly when 200
	// (it ends every other one). Each run on an account of its own.
	test('password change: changed exactly when 200, or the 5xx says so; a session only with a 200', async (t) => {
		const ctx = accountsContext();
		const q = (sql) => sqlite(ctx.db, sql).trim();
		const late = [];
		let before = {};
		await sweep(t, 'password change', async (at) => {
			const b = await signedUp(ctx, `p${at}@example.org`, { ip: `192.0.2.${(at % 250) + 1}` });
			const id = q(`SELECT id FROM accounts WHERE name = 'p${at}@example.org'`);
			before = { id, hash: q(`SELECT hex(pass_hash) FROM account_passwords WHERE account_id = ${id}`) };
			return runDyn('password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: 'another horse' },
				failAt: at, ip: ipFor(at), env: { ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test', HTTP_COOKIE: b.cookieHeader(),
					HTTP_ORIGIN: b.origin, HTTP_X_CSRF_TOKEN: b.csrf, REQUEST_URI: '/api/password' } });
		}, async (r) => {
			const changed = q(`SELECT hex(pass_hash) FROM account_passwords WHERE account_id = ${before.id}`) !== before.hash;
			const sessions = Number(q(`SELECT count(*) FROM sessions WHERE account_id = ${before.id}`));
			if (r.res?.status === 200) return changed && sessions === 1 ? [] : [`a 200: changed ${changed}, ${sessions} sessions`];
			if (!changed) return sessions === 1 ? [] : [`a ${r.res?.status} that changed nothing left ${sessions} sessions`];
			late.push(r.res?.status);
			if (sessions !== 0) return [`a ${r.res?.status} after the change left ${sessions} sessions`];
			return /password was changed/i.test(r.res?.json?.hint || '') ? [] :
				[`the password was changed, but the ${r.res?.status} does not say so`];
		});
		if (late.length) t.diagnostic(`password change: ${late.length} failures came after the change, each answered with a 5xx that says so`);
	});

	// Sign-in through the web server (docs/ACCOUNTS.md): a session exactly
	// when the answer is 200 (the account, made on the first sign-in, may
	// stay: the next sign-in uses it). Each run a person of its own.
	test('web-server sign-in: a session exactly when 200', async (t) => {
		const ctx = accountsContext({ BURNLINK_SIGNUP: '' });
		fs.writeFileSync(path.join(ctx.dir, 'burnlink.conf'), 'signin_webserver = yes\nwebserver_create = yes\n');
		const sessions = (name) => Number(sqlite(ctx.db, 'SELECT count(*) FROM sessions WHERE account_id = ' +
			`(SELECT id FROM accounts WHERE name = '${name}')`).trim());
		await sweep(t, 'web-server sign-in', (at) => runDyn('session', { method: 'POST', failAt: at, body: { webServer: true },
			ip: ipFor(at), env: { ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test', HTTP_ORIGIN: 'https://burnlink.test',
				REQUEST_URI: '/api/session', REMOTE_USER: `w${at}@example.org` } }), async (r, at) => {
			const n = sessions(`w${at}@example.org`);
			if (r.res?.status === 200) return n === 1 ? [] : [`a 200 made ${n} sessions`];
			return n === 0 ? [] : [`a ${r.res?.status} left ${n} sessions`];
		});
	});

	// The second factor's confirmation (docs/API.md, "/totp"): on, with its
	// 10 recovery codes, exactly when the answer is 200, or the 5xx says it
	// is on. Each run on an account of its own, its enrolment started.
	test('second factor: on exactly when 200, or the 5xx says so', async (t) => {
		const ctx = accountsContext();
		const q = (sql) => sqlite(ctx.db, sql).trim();
		let id = 0;
		const late = [];
		await sweep(t, 'second factor', async (at) => {
			const b = await signedUp(ctx, `t${at}@example.org`, { ip: `192.0.2.${(at % 250) + 1}` });
			const begin = await b.req('totp', { method: 'POST', body: { password: PASSWORD } });
			id = q(`SELECT id FROM accounts WHERE name = 't${at}@example.org'`);
			return runDyn('totp', { method: 'POST', body: { code: totpCode(begin.json.secret, nowStep()) },
				failAt: at, ip: ipFor(at), env: { ...ctx.env, HTTPS: 'on', HTTP_HOST: 'burnlink.test', HTTP_COOKIE: b.cookieHeader(),
					HTTP_ORIGIN: b.origin, HTTP_X_CSRF_TOKEN: b.csrf, REQUEST_URI: '/api/totp' } });
		}, async (r) => {
			const on = q(`SELECT count(*) FROM account_totp WHERE account_id = ${id} AND confirmed_at IS NOT NULL`) === '1';
			const codes = Number(q(`SELECT count(*) FROM account_recovery WHERE account_id = ${id}`));
			if (r.res?.status === 200) return on && codes === 10 ? [] : [`a 200: on ${on}, ${codes} codes`];
			if (!on) return codes === 0 ? [] : [`a ${r.res?.status} that turned nothing on left ${codes} codes`];
			late.push(r.res?.status);
			return /second factor is on/i.test(r.res?.json?.hint || '') ? [] :
				[`it was turned on, but the ${r.res?.status} does not say so`];
		});
		if (late.length) t.diagnostic(`second factor: ${late.length} failures came after it was on, each answered with a 5xx that says so`);
	});

	// A secret request (docs/API.md, "Secret requests"): the requester is
	// given its request and inbox keys exactly when the request is stored.
	test('secret request create: a row exactly when the answer is 200', async (t) => {
		const db = newDb();
		const keys = await wire.newRequestKeys();
		const body = { publicKey: keys.publicKey, note: await wire.sealNote(keys.noteKey, keys.publicKey, 'alloc') };
		const stored = () => Number(sqlite(db, 'SELECT count(*) FROM requests').trim());
		await runDyn('requests', { body, env: { BURNLINK_DB: db, REQUEST_URI: '/api/requests' } });
		let before = stored();
		await sweep(t, 'request create', (at) => runDyn('requests', { method: 'POST', body, failAt: at,
			env: { BURNLINK_DB: db, REQUEST_URI: '/api/requests' }, ip: ipFor(at) }), async (r) => {
			const n = stored() - before;
			before += n;
			if (r.res?.status === 200) return n === 1 ? [] : [`a 200 stored ${n} requests`];
			return n === 0 ? [] : [`a ${r.res?.status} stored ${n} requests`];
		});
	});

	test('retrieve with a passphrase (scrypt, counters file)', async (t) => {
		const db = newDb();
		// A secret takes 20 attempts an hour from all addresses (docs/API.md,
		// "Passphrases"): a fresh one every 15 runs.
		let s, views = 0, runs = 0;
		await sweep(t, 'retrieve with passphrase', async (at) => {
			if (runs++ % 15 === 0) {
				s = await createPlain(db, { text: 'pp', passphrase: 'correct horse', maxViews: null });
				views = 0;
			}
			return runDyn('retrieve', { method: 'POST', pathInfo: `/${s.secretKey}`,
				body: { passphrase: 'correct horse' }, failAt: at, env: { BURNLINK_DB: db }, ip: ipFor(at) });
		}, async (r) => {
			const now = row(db, s.secretKey).views;
			const used = now - views;
			views = now;
			if (r.res?.status === 200) return used === 1 ? [] : [`a 200 used ${used} views`];
			if (used === 1 && !saysViewUsed(r.res)) return [`a view was used but the ${r.res?.status} says nothing of it`];
			return used === 0 || used === 1 ? [] : [`${used} views used`];
		});
	});
});
