// audit.test.mjs: the audit trail (docs/ADMIN.md, "Audit trail"; issue 32)
// through the real programs: every action writes its event, in the same
// transaction, with syslog's copy after the commit; no event holds content,
// a key, a passphrase, a token or (audit_client = hashed) an address, in the
// database, its WAL or the syslog lines; an account sees only its own events
// (GET /api/my/events); the cleanup prunes by audit_days; burnlink-admin
// audit's ndjson parses with jq and its csv with a CSV reader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Browser, admin, PASSWORD } from './helpers.mjs';
import { requestContext, wire } from '../requests/helpers.mjs';
import { checkError, dbFiles, ROOT } from '../lib/cgi.mjs';
import { inOneWindow } from '../lib/counters.mjs';
import { syslogSink } from '../lib/syslog.mjs';

const IP_A = '198.51.100.23';		// account A's browser
const IP_ANON = '203.0.113.77';	// a recipient
const SECRET_TEXT = 'audit-canary-plaintext-7f3a';
const PASSPHRASE = 'audit-canary-passphrase-91c';
const NOTE = 'audit-canary-note-c1d2';
const ANSWER = 'audit-canary-answer-e5f6';

let ctx, log, lines, conf;
const needles = [SECRET_TEXT, PASSPHRASE, NOTE, ANSWER, IP_A, IP_ANON];

function events(where = '1=1') {
	return ctx.sql(`SELECT kind, coalesce(account_id,''), coalesce(api_key_id,''), coalesce(operator,''),
		coalesce(client,''), coalesce(owner_id,''), coalesce(object_id,''), outcome, coalesce(detail,'')
		FROM audit_events WHERE ${where} ORDER BY id`).trim().split('\n').filter(Boolean)
		.map((l) => { const [kind, account, key, operator, client, owner, object, outcome, detail] = l.split('|');
			return { kind, account, key, operator, client, owner, object, outcome, detail }; });
}
const kinds = () => new Set(events().map((e) => e.kind));

before(async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-audit-'));
	log = await syslogSink(dir);
	conf = path.join(dir, 'burnlink.conf');
	fs.writeFileSync(conf, `audit_syslog = yes\naudit_syslog_socket = ${log.path}\naudit_syslog_facility = local3\n`);
	ctx = requestContext({ BURNLINK_SIGNUP: 'open', BURNLINK_CONFIG: conf });
});
after(async () => { if (lines === undefined) await log.stop(); });

test('every action writes its event, by its actor, with its outcome', async () => {
	const a = new Browser(ctx, { ip: IP_A });
	assert.equal((await a.signup('alice@example.org')).status, 200);
	const aid = a.account.id;
	const anon = { env: { REMOTE_ADDR: IP_ANON } };

	// secrets: created (by the session), passphrase refused, viewed, burned by the receipt
	const c = await a.create({ text: SECRET_TEXT, passphrase: PASSPHRASE, maxViews: 3 });
	assert.equal(c.status, 200, c.body.toString());
	const s = { secretKey: c.json.metadata.secretKey, receiptKey: c.json.metadata.key };
	needles.push(s.secretKey, s.receiptKey);
	checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: 'wrong one' }, anon), 403, 'INVALID_PASSPHRASE');
	assert.equal((await ctx.retrieve(s.secretKey, { passphrase: PASSPHRASE }, anon)).status, 200);
	assert.equal((await ctx.burn(s.receiptKey, {}, anon)).status, 200);
	const sid = events("kind = 'secret.created'")[0].object;
	assert.deepEqual(events(`object_id = ${sid} AND kind LIKE 'secret.%'`).map((e) => [e.kind, e.account, e.owner, e.outcome, e.detail]), [
		['secret.created', String(aid), String(aid), 'ok', ''],
		['secret.passphrase_refused', '', String(aid), 'refused', ''],
		['secret.viewed', '', String(aid), 'ok', 'views_left=2'],
		['secret.burned', '', String(aid), 'ok', 'by=receipt'],
	]);

	// API keys: created, first use in a day once, revoked
	const k = await a.req('keys', { method: 'POST', body: { name: 'ci' } });
	assert.equal(k.status, 200, k.body.toString());
	const key = k.json.apiKey.key ?? k.json.key;
	assert.match(key, /^bl_/);
	needles.push(key);
	for (let i = 0; i < 2; i++) {
		const r = await ctx.create({ text: SECRET_TEXT }, { env: { HTTP_AUTHORIZATION: `Bearer ${key}` } });
		assert.equal(r.status, 200, r.body.toString());
		needles.push(r.json.metadata.secretKey, r.json.metadata.key);
	}
	assert.equal(events("kind = 'apikey.used'").length, 1, 'once a UTC day');
	assert.equal(events(`kind = 'secret.created' AND api_key_id = ${k.json.apiKey.id}`).length, 2);
	assert.equal((await a.req('keys', { method: 'DELETE', pathInfo: `/${k.json.apiKey.id}` })).status, 200);
	assert.deepEqual(events("kind LIKE 'apikey.%'").map((e) => [e.kind, e.owner, e.object]), [
		['apikey.created', String(aid), String(k.json.apiKey.id)],
		['apikey.used', String(aid), String(k.json.apiKey.id)],
		['apikey.revoked', String(aid), String(k.json.apiKey.id)],
	]);

	// webhooks: created, deleted
	const w = await a.req('webhooks', { method: 'POST', body: { url: 'https://hooks.example.org/burnlink' } });
	assert.equal(w.status, 200, w.body.toString());
	{
		assert.equal((await a.req('webhooks', { method: 'DELETE', pathInfo: `/${w.json.webhook.id}` })).status, 200);
		assert.deepEqual(events("kind LIKE 'webhook.%'").map((e) => e.kind), ['webhook.created', 'webhook.deleted']);
	}

	// the account: password changed (ends its sessions), signed out, refused, signed in
	assert.equal((await a.req('password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: 'a new long password' } })).status, 200);
	needles.push('a new long password');
	assert.equal((await a.signout()).status, 200);
	checkError(assert, await a.signin('alice@example.org', 'not the password'), 401, 'INVALID_CREDENTIALS');
	assert.equal((await a.signin('alice@example.org', 'a new long password')).status, 200);
	// sign-up's address waits for its verification
	assert.deepEqual(events("kind = 'account.email_changed'").map((e) => [e.owner, e.detail]), [[String(aid), 'pending']]);
	assert.deepEqual(events("kind LIKE 'account.%' AND kind <> 'account.email_changed'").map((e) => [e.kind, e.owner, e.outcome]), [
		['account.created', String(aid), 'ok'],
		['account.signed_in', String(aid), 'ok'],
		['account.password_changed', String(aid), 'ok'],
		['account.signed_in', String(aid), 'ok'],
		['account.signed_out', String(aid), 'ok'],
		['account.signin_refused', String(aid), 'refused'],
		['account.signed_in', String(aid), 'ok'],
	]);

	// secret requests: created, answered, read, burned
	const q = await ctx.ask({ note: NOTE });
	needles.push(q.requestKey, q.inboxKey);
	assert.equal((await ctx.answer(q, { text: ANSWER })).status, 200);
	assert.equal((await ctx.rq.post(q.inboxKey)).status, 200);
	const q2 = await ctx.ask({ note: NOTE });
	needles.push(q2.requestKey, q2.inboxKey);
	assert.equal((await ctx.rq.burn(q2.inboxKey)).status, 200);
	assert.deepEqual(events("kind LIKE 'request.%'").map((e) => e.kind),
		['request.created', 'request.answered', 'request.read', 'request.created', 'request.burned']);

	// expiry and the cleanup's removal
	const old = await ctx.createOk({ text: SECRET_TEXT }, anon);
	needles.push(old.secretKey, old.receiptKey);
	ctx.age(old.secretKey, 1000);
	assert.equal((await ctx.cleanup({ BURNLINK_CONFIG: conf })).code, 0);
	const oid = events("kind = 'secret.created'").at(-1).object;
	assert.deepEqual(events(`object_id = ${oid} AND kind LIKE 'secret.%'`).map((e) => [e.kind, e.detail]), [
		['secret.created', ''], ['secret.expired', 'by=cleanup'], ['secret.removed', 'state=expired']]);

	// burnlink-admin: the operator, by the user name of the real uid
	const r = admin(ctx, ['account', 'create', 'bob@example.org']);
	assert.equal(r.code, 0, r.stderr);
	const who = os.userInfo().username;
	assert.deepEqual(events("operator IS NOT NULL").map((e) => [e.kind, e.operator, e.detail]), [
		['account.created', who, ''], ['admin.command', who, 'account create']]);
	const sudo = admin({ ...ctx, env: { ...ctx.env, SUDO_USER: 'carol' } }, ['account', '2fa-reset', 'bob@example.org']);
	assert.equal(sudo.code, 0, sudo.stderr);
	const last = events("kind = 'admin.command'").at(-1);
	assert.equal(last.operator, process.getuid() === 0 ? `${who} (sudo: carol)` : who);

	// the same client is recognisable, its address is not stored (hashed, the default)
	const clients = new Set(events("kind IN ('secret.passphrase_refused', 'secret.viewed', 'secret.burned')").map((e) => e.client));
	assert.equal(clients.size, 1);
	assert.match([...clients][0], /^c_[0-9a-f]{24}$/);
	assert.notEqual(events("kind = 'secret.created'")[0].client, [...clients][0], 'another client, another hash');
});

test('no event holds content, a key, a passphrase, a token or the address: the database, its WAL, syslog', async () => {
	assert.ok(kinds().size >= 15);
	const hits = [];
	for (const f of dbFiles(ctx.db)) {
		const data = fs.readFileSync(f);
		// only the audit trail is scanned for what other tables legitimately hold (hashes, ciphertext)
		for (const n of [PASSPHRASE, NOTE, ANSWER, IP_A, IP_ANON, ...needles.filter((x) => x.startsWith('bl_'))])
			if (data.includes(Buffer.from(n))) hits.push(`${path.basename(f)}: ${n}`);
	}
	assert.deepEqual(hits, []);
	const rows = ctx.sql('SELECT * FROM audit_events');
	for (const n of needles)
		assert.ok(!rows.includes(n), `an audit row holds ${n}`);
	lines = await log.stop();
	assert.ok(lines.length >= 20, `syslog lines: ${lines.length}`);
	for (const l of lines) {
		const m = /^<(\d+)>[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d burnlink\[\d+\]: (\{.*\})$/.exec(l);
		assert.ok(m, `not a syslog line: ${l}`);
		assert.equal(Number(m[1]), (19 << 3) | 6, 'local3.info');
		const j = JSON.parse(m[2]);
		assert.ok(kinds().has(j.kind));
		for (const n of needles)
			assert.ok(!l.includes(n), `syslog line holds ${n}: ${l}`);
	}
	const sent = new Set(lines.map((l) => JSON.parse(l.slice(l.indexOf('{'))).kind));
	for (const k of ['secret.created', 'secret.viewed', 'secret.burned', 'secret.passphrase_refused',
		'account.signed_in', 'account.signin_refused', 'apikey.created', 'request.created', 'admin.command',
		// written for many rows by one statement, read back after it to be sent as the others
		'apikey.used', 'secret.expired', 'secret.removed'])
		assert.ok(sent.has(k), `syslog has no ${k}`);
	// each of those once, with the row's fields (the id aside)
	for (const k of ['apikey.used', 'secret.expired', 'secret.removed']) {
		const got = lines.map((l) => JSON.parse(l.slice(l.indexOf('{')))).filter((j) => j.kind === k)
			.map((j) => [j.accountId ?? '', j.apiKeyId ?? '', j.ownerId ?? '', j.objectId ?? '', j.outcome, j.detail ?? '']
				.map(String));
		assert.deepEqual(got, events(`kind = '${k}'`).map((e) => [e.account, e.key, e.owner, e.object, e.outcome, e.detail]), k);
	}
});

test('audit_client = clear keeps the address (so the scan above can fail), none keeps nothing', async () => {
	for (const [mode, want] of [['clear', IP_ANON], ['none', '']]) {
		const c2 = path.join(path.dirname(conf), `${mode}.conf`);
		fs.writeFileSync(c2, `audit_client = ${mode}\n`);
		const s = await ctx.createOk({ text: 'x' }, { env: { REMOTE_ADDR: IP_ANON, BURNLINK_CONFIG: c2 } });
		assert.equal((await ctx.burn(s.receiptKey, {}, { env: { REMOTE_ADDR: IP_ANON, BURNLINK_CONFIG: c2 } })).status, 200);
		assert.equal(events("kind = 'secret.burned'").at(-1).client, want);
	}
});

test('GET /api/my/events: own events only, newest first, paged by a cursor, by kind; session or API key', async () => {
	const a = new Browser(ctx, { ip: IP_A });
	assert.equal((await a.signin('alice@example.org', 'a new long password')).status, 200);
	const b = new Browser(ctx, { ip: '192.0.2.99' });
	assert.equal((await b.signup('mallory@example.org')).status, 200);
	await b.create({ text: 'b secret' });
	const all = [];
	let cursor = null;
	do {
		const res = await a.req('myevents', { env: { QUERY_STRING: `limit=7${cursor ? `&cursor=${cursor}` : ''}` } });
		assert.equal(res.status, 200, res.body.toString());
		assert.ok(res.json.events.length <= 7);
		all.push(...res.json.events);
		cursor = res.json.nextCursor;
	} while (cursor);
	const ids = all.map((e) => e.id);
	assert.deepEqual(ids, [...ids].sort((x, y) => y - x), 'newest first');
	assert.equal(new Set(ids).size, ids.length, 'no event twice');
	const aid = a.account.id;
	const mine = ctx.sql(`SELECT count(*) FROM audit_events WHERE account_id = ${aid} OR owner_id = ${aid}`).trim();
	assert.equal(all.length, Number(mine));
	for (const e of all)
		assert.ok(!('operator' in e) && !('ownerId' in e));
	// IDOR: B's events never, whichever way B asks
	const bid = b.account.id;
	const bs = await b.req('myevents');
	assert.equal(bs.status, 200);
	assert.ok(bs.json.events.length > 0);
	for (const e of bs.json.events)
		assert.ok(e.accountId === bid || e.accountId === null, JSON.stringify(e));
	const bIds = new Set(bs.json.events.map((e) => e.id));
	assert.ok(all.every((e) => !bIds.has(e.id)), 'A sees none of B\'s events');
	const aIds = new Set(ids);
	const crafted = await b.req('myevents', { env: { QUERY_STRING: `cursor=${Math.max(...ids) + 1}&limit=100` } });
	assert.ok(crafted.json.events.every((e) => !aIds.has(e.id)), 'a cursor reaches no other account');
	// by kind
	const kind = await a.req('myevents', { env: { QUERY_STRING: 'kind=account.signed_in' } });
	assert.ok(kind.json.events.length >= 3 && kind.json.events.every((e) => e.kind === 'account.signed_in'));
	// an API key of B sees B's
	const k = await b.req('keys', { method: 'POST', body: { name: 'b' } });
	const bk = k.json.apiKey.key ?? k.json.key;
	const viaKey = await ctx.run('myevents', { method: 'GET', env: { HTTP_AUTHORIZATION: `Bearer ${bk}` } });
	assert.equal(viaKey.status, 200, viaKey.body.toString());
	assert.ok(viaKey.json.events.some((e) => e.kind === 'apikey.created'));
	assert.ok(viaKey.json.events.every((e) => !aIds.has(e.id)));
	// anonymous: 401; bad queries: 400 INVALID_QUERY
	checkError(assert, await ctx.run('myevents', { method: 'GET' }), 401, 'NOT_SIGNED_IN');
	for (const qs of ['kind=nope', 'limit=0', 'limit=101', 'cursor=x', 'page=2', 'limit=5&limit=6'])
		checkError(assert, await a.req('myevents', { env: { QUERY_STRING: qs } }), 400, 'INVALID_QUERY');
});

test('burnlink-admin audit: ndjson parses with jq, csv with a CSV reader, and the filters hold', () => {
	const nd = admin(ctx, ['audit', '--format', 'ndjson', '--since', '1d']);
	assert.equal(nd.code, 0, nd.stderr);
	const jq = spawnSync('jq', ['-c', '-s', 'map(.kind)'], { input: nd.stdout, encoding: 'utf8' });
	assert.equal(jq.status, 0, jq.stderr);
	const total = Number(ctx.sql('SELECT count(*) FROM audit_events').trim());
	assert.equal(JSON.parse(jq.stdout).length, total);
	const csv = admin(ctx, ['audit', '--format', 'csv', '--kind', 'secret.created']);
	assert.equal(csv.code, 0, csv.stderr);
	const py = spawnSync('python3', ['-c', 'import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin))))'],
		{ input: csv.stdout, encoding: 'utf8' });
	assert.equal(py.status, 0, py.stderr);
	const recs = JSON.parse(py.stdout);
	assert.ok(recs.length >= 4 && recs.every((r) => r.kind === 'secret.created' && /Z$/.test(r.at)));
	const acc = admin(ctx, ['audit', '--format', 'ndjson', '--account', 'alice@example.org']).stdout.trim().split('\n').map(JSON.parse);
	const aid = Number(ctx.sql("SELECT id FROM accounts WHERE name = 'alice@example.org'").trim());
	assert.ok(acc.length > 5 && acc.every((e) => e.accountId === aid || e.ownerId === aid));
	const future = admin(ctx, ['audit', '--format', 'ndjson', '--since', '2099-01-01T00:00:00Z']);
	assert.equal(future.stdout, '');
	const until = admin(ctx, ['audit', '--format', 'ndjson', '--until', '2000-01-01']);
	assert.equal(until.stdout, '');
	assert.equal(admin(ctx, ['audit', '--limit', '3', '--format', 'ndjson']).stdout.trim().split('\n').length, 3);
	assert.equal(admin(ctx, ['audit', '--since', 'yesterday']).code, 2);
	assert.equal(admin(ctx, ['audit', '--kind', 'secret.nope']).code, 2);
	const table = admin(ctx, ['audit']);
	assert.match(table.stdout.split('\n')[0], /^ID +AT +KIND/);
});

test('retention: the cleanup removes events older than audit_days, and only those', async () => {
	const total = Number(ctx.sql('SELECT count(*) FROM audit_events').trim());
	ctx.sql(`UPDATE audit_events SET at = at - 31 * 86400000 WHERE id IN (SELECT id FROM audit_events ORDER BY id LIMIT 5)`);
	ctx.sql(`UPDATE audit_events SET at = at - 8 * 86400000 WHERE id IN (SELECT id FROM audit_events ORDER BY id LIMIT 5 OFFSET 5)`);
	let r = await ctx.cleanup({ BURNLINK_CONFIG: '/dev/null' });
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, /and 5 audit events/);
	const left = Number(ctx.sql('SELECT count(*) FROM audit_events').trim());
	assert.ok(left >= total - 5, `${left} of ${total}`);
	const c7 = path.join(path.dirname(conf), 'seven.conf');
	fs.writeFileSync(c7, 'audit_days = 7\n');
	r = await ctx.cleanup({ BURNLINK_CONFIG: c7 });
	assert.match(r.stdout, /and 5 audit events/);
	assert.equal(Number(ctx.sql('SELECT count(*) FROM audit_events WHERE at < ' + (Date.now() - 7 * 86400000)).trim()), 0);
});

test('one list of kinds: burnlink-admin audit kinds, docs/ADMIN.md\'s table, docs/openapi.yaml, the metrics', async () => {
	const r = admin(ctx, ['audit', 'kinds']);
	assert.equal(r.code, 0, r.stderr);
	const fromTool = r.stdout.trim().split('\n').map((l) => {
		const m = /^(\S+)\s+(\S+)\s+(.*)$/.exec(l);
		return [m[1], m[2] === '-' ? '' : m[2], m[3]];
	});
	const adminMd = fs.readFileSync(path.join(ROOT, 'docs', 'ADMIN.md'), 'utf8');
	const fromDocs = [...adminMd.matchAll(/^\| `([a-z0-9_.]+)` \| ([a-z]*) \| (.*) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
	assert.deepEqual(fromDocs, fromTool);
	const yaml = fs.readFileSync(path.join(ROOT, 'docs', 'openapi.yaml'), 'utf8');
	const en = /EventKind:[\s\S]*?enum: \[([^\]]*)\]/.exec(yaml)[1].split(',').map((x) => x.trim());
	assert.deepEqual(en, fromTool.map((k) => k[0]));
	const token = 'a'.repeat(40);
	const c2 = path.join(path.dirname(conf), 'metrics.conf');
	fs.writeFileSync(c2, `metrics_token = ${token}\n`);
	const m = await ctx.run('metrics', { method: 'GET', noHeaderCheck: true,
		env: { HTTP_AUTHORIZATION: `Bearer ${token}`, BURNLINK_CONFIG: c2 } });
	assert.equal(m.status, 200, m.body.toString());
	const counted = [...m.body.toString().matchAll(/^burnlink_events_total\{kind="([^"]+)"\}/gm)].map((x) => x[1]);
	assert.deepEqual(counted, fromTool.map((k) => k[0]));
});

test('limits hit are events too: secret.limited (passphrase attempts), account.signin_refused limited', async () => {
	// each part again, once, if its clock window (a minute, an hour) rolled over
	await inOneWindow(60, async () => {
		const s = await ctx.createOk({ text: 'x', passphrase: PASSPHRASE });
		const env = { env: { REMOTE_ADDR: '192.0.2.201' } };
		let last;
		for (let i = 0; i < 6; i++)
			last = await ctx.retrieve(s.secretKey, { passphrase: 'wrong one' }, env);
		checkError(assert, last, 429, 'TOO_MANY_ATTEMPTS');
		const sid = Number(ctx.sql(`SELECT id FROM secrets WHERE secret_hash = x'${(await import('node:crypto')).createHash('sha256').update(s.secretKey).digest('hex')}'`).trim());
		assert.deepEqual(events(`object_id = ${sid} AND kind IN ('secret.passphrase_refused', 'secret.limited')`).map((e) => [e.kind, e.outcome]),
			[...Array(5).fill(['secret.passphrase_refused', 'refused']), ['secret.limited', 'limited']]);
	});
	await inOneWindow(3600, async () => {
		const limited = () => events("kind = 'account.signin_refused' AND outcome = 'limited'").length;
		const before = limited();
		const b = new Browser(ctx, { ip: '192.0.2.202' });
		let r;
		for (let i = 0; i < 11; i++)
			r = await b.signin('alice@example.org', 'not it');
		assert.equal(r.status, 429, r.body.toString());
		assert.equal(limited() - before, 1);
	});
});
