// notify.test.mjs: notifications end to end (docs/NOTIFY.md). The events a
// change writes to the outbox, cron/notify delivering them to a real HTTPS
// receiver on loopback (a self-signed certificate made here with openssl,
// trusted through BURNLINK_NOTIFY_CA, loopback allowed through
// BURNLINK_NOTIFY_ALLOW) and to a capture script as BURNLINK_SENDMAIL; the
// signature, the retry after a 500, the give-up after 24 hours (the event's
// stored times moved back), two overlapping runs, the SSRF refusals, and that
// nothing of a secret reaches a mail, a webhook or a log. Runs on SQLite, and
// on PostgreSQL under tests/run.sh pg (the programs of make pg).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

import { runProgram, offline } from '../lib/cgi.mjs';
import { accountsContext, signedUp, createWithKey, admin, Browser } from '../accounts/helpers.mjs';
import { syslogSink } from '../lib/syslog.mjs';
import { inOneWindow } from '../lib/counters.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-notify-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

const keyPath = path.join(dir, 'key.pem');
const certPath = path.join(dir, 'cert.pem');
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
	'-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', '/CN=localhost',
	'-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'], { stdio: 'ignore' });

// The mailer: each message into a file of the directory given as its argument.
const mailer = path.join(dir, 'capture-mail');
fs.writeFileSync(mailer, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\n', { mode: 0o755 });

const SITE = 'https://burnlink.test';
const SECRET_TEXT = 'the launch code is 0000-TOP-SECRET';

// An HTTPS receiver on 127.0.0.1: records each request; answers the queued
// statuses, then `status` (200). `onHit(hit)`, when given, runs before the
// answer: a receiver that is slow until something has happened.
async function receiver({ status = 200, onHit = null } = {}) {
	const r = { hits: [], statuses: [] };
	r.server = https.createServer({ key: fs.readFileSync(keyPath), cert: fs.readFileSync(certPath) }, (req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const hit = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
			r.hits.push(hit);
			if (onHit) await onHit(hit);
			res.writeHead(r.statuses.length ? r.statuses.shift() : status, { 'Content-Type': 'text/plain' });
			res.end('ok');
		});
	});
	await new Promise((resolve) => r.server.listen(0, '127.0.0.1', resolve));
	r.port = r.server.address().port;
	r.url = `https://127.0.0.1:${r.port}/hook`;
	return r;
}

// A fresh database with a signed-up account, its API key and its address
// verified the way a person does: the link of the sign-up mail.
async function account() {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const me = (await b.me()).json;
	const key = (await b.req('keys', { method: 'POST', body: { name: 'ci' } })).json.key;
	const a = { ctx, b, key, accountId: me.account.id, mails: fs.mkdtempSync(path.join(dir, 'mails-')) };
	const run = await notify(a);
	assert.equal(run.code, 0, run.stderr);
	const [mail] = mailsOf(a);
	const token = /#verify=([A-Za-z0-9_-]{43})$/m.exec(mail)[1];
	assert.equal((await b.req('token', { method: 'POST', body: { token } })).status, 200);
	a.mails = fs.mkdtempSync(path.join(dir, 'mails-'));
	return a;
}

async function addHook(b, url, body = {}) {
	const res = await b.req('webhooks', { method: 'POST', body: { url, ...body } });
	assert.equal(res.status, 200, res.body.toString());
	return res.json;
}

function notify(a, env = {}, under = []) {
	return runProgram('notify', { under, env: {
		...a.ctx.env,
		BURNLINK_SENDMAIL: `${mailer} ${a.mails}`,
		BURNLINK_NOTIFY_CA: certPath,
		BURNLINK_NOTIFY_ALLOW: '127.0.0.1/32',
		BURNLINK_SITE_URL: SITE,
		...env,
	} });
}

// Runs cron/notify until every pending row was tried (a run tries at most 5
// webhooks of an account and leaves the rest, untried, to the next run):
// the runs' stderr, joined.
async function notifyAll(a, env = {}, under = []) {
	let log = '';
	for (let i = 0; i < 40; i++) {
		const run = await notify(a, env, under);
		assert.equal(run.code, 0, run.stderr);
		log += run.stderr;
		if (!outbox(a).some((r) => r.state === 0 && r.attempts === 0)) return log;
		a.ctx.sql('UPDATE outbox SET next_at = 0 WHERE state = 0 AND attempts = 0');
	}
	assert.fail('rows still untried after 40 runs');
}

function mailsOf(a) {
	return fs.readdirSync(a.mails).sort().map((f) => fs.readFileSync(path.join(a.mails, f), 'utf8'));
}

function outbox(a, where = "kind NOT LIKE 'account.%'") {
	const out = a.ctx.sql(`SELECT id, kind, channel, state, attempts, coalesce(last_status, -1), ` +
		`coalesce(last_error, ''), next_at FROM outbox WHERE ${where} ORDER BY id`).trim();
	return out === '' ? [] : out.split('\n').map((l) => {
		const [id, kind, channel, state, attempts, status, error, next] = l.split('|');
		return { id: Number(id), kind, channel: Number(channel), state: Number(state),
			attempts: Number(attempts), status: Number(status), error, next: Number(next) };
	});
}

// Checks Burnlink-Signature: t=<unix>,v1=<hex HMAC-SHA-256(secret, t + "." + body)>.
function checkSignature(hit, secret) {
	const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hit.headers['burnlink-signature'] || '');
	assert.ok(m, `a signature header: ${hit.headers['burnlink-signature']}`);
	const want = crypto.createHmac('sha256', secret).update(`${m[1]}.${hit.body}`).digest('hex');
	assert.equal(m[2], want, 'the signature verifies with the signing secret');
	assert.ok(Math.abs(Number(m[1]) - Date.now() / 1000) < 3600, 'the timestamp is now');
}

// Nothing of the secret in what was sent or logged.
function assertNoSecret(texts, created) {
	const u = new URL(created.secretUrl);
	const needles = [SECRET_TEXT, created.metadata.secretKey, created.metadata.key, created.secretUrl,
		created.metadataUrl, u.hash.slice('#key='.length)].filter((s) => s && s.length > 0);
	for (const t of texts)
		for (const n of needles)
			assert.ok(!t.includes(n), `"${n}" must not appear in: ${t.slice(0, 200)}`);
}

async function create(a, body) {
	const res = await createWithKey(a.ctx, a.key, { text: SECRET_TEXT, ...body });
	assert.equal(res.status, 200, res.body.toString());
	return res.json;
}

describe('notifications', () => {
	let rx;
	before(async () => { rx = await receiver(); });
	after(() => rx.server.close());

	test('a view and a burn: signed webhook bodies and mails, nothing of the secret', async () => {
		const a = await account();
		const hook = await addHook(a.b, rx.url);
		assert.match(hook.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
		const before = rx.hits.length;
		const s = await create(a, { maxViews: 2, notify: ['email', 'webhook'] });
		assert.match(s.metadata.receiptId, /^rcp_[A-Za-z0-9_-]{22}$/);
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		assert.equal((await a.ctx.burn(s.metadata.key)).status, 200);
		assert.deepEqual(outbox(a).map((r) => `${r.kind}/${r.channel}`).sort(),
			['secret.burned/1', 'secret.burned/2', 'secret.viewed/1', 'secret.viewed/2']);

		const run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stdout, /sent 4, to retry 0, dropped 0/);
		const hits = rx.hits.slice(before);
		assert.equal(hits.length, 2);
		const [viewed, burned] = hits.map((h) => ({ h, j: JSON.parse(h.body) }));
		for (const { h, j } of [viewed, burned]) {
			assert.equal(h.method, 'POST');
			assert.equal(h.url, '/hook');
			assert.equal(h.headers['content-type'], 'application/json');
			assert.equal(h.headers['burnlink-event-id'], j.id);
			checkSignature(h, hook.secret);
			assert.equal(j.receiptId, s.metadata.receiptId);
			assert.match(j.occurredAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		}
		assert.equal(viewed.j.type, 'secret.viewed');
		assert.equal(viewed.j.viewsLeft, 1);
		assert.equal(burned.j.type, 'secret.burned');
		assert.equal(burned.j.burnedBy, 'receipt');
		assert.equal(burned.j.viewsLeft, 1, 'the views that were left at the burn (1 view of 2)');

		const mails = mailsOf(a);
		assert.equal(mails.length, 2);
		// in the order of the events
		mails.sort((x, y) => Number(y.includes('Subject: Your secret was viewed')) -
			Number(x.includes('Subject: Your secret was viewed')));
		assert.match(mails[0], /^To: alice@example\.org$/m);
		assert.match(mails[0], /^Subject: Your secret was viewed$/m);
		assert.match(mails[0], /^Views left: 1$/m);
		assert.ok(mails[0].includes(`${SITE}/dashboard#${s.metadata.receiptId}`), 'the receipt link');
		assert.match(mails[1], /^Subject: Your secret was burned$/m);
		assert.match(mails[1], /^Views left: 1$/m);
		assertNoSecret([...mails, ...hits.map((h) => h.body + JSON.stringify(h.headers)), run.stdout, run.stderr], s);

		// Delivered once: a second run has nothing to send.
		const again = await notify(a);
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stdout, /sent 0, to retry 0, dropped 0/);
		assert.equal(rx.hits.length, before + 2);
		assert.equal(mailsOf(a).length, 2);

		// The dashboard's list: the secret's last event.
		const mine = (await a.b.req('mysecrets')).json.secrets;
		assert.equal(mine[0].receiptId, s.metadata.receiptId);
		assert.equal(mine[0].lastEvent.type, 'secret.burned');
		assert.match(mine[0].lastEvent.at, /Z$/);

		// The dashboard's view of the webhook: its deliveries, with status.
		const got = await a.b.req('webhooks', { pathInfo: `/${hook.webhook.id}` });
		assert.equal(got.status, 200);
		assert.equal(got.json.webhook.lastStatus, 200);
		assert.deepEqual(got.json.deliveries.map((d) => [d.type, d.state, d.status]),
			[['secret.burned', 'sent', 200], ['secret.viewed', 'sent', 200]]);
	});

	test('a failed delivery\'s webhook.failing reaches syslog after its commit (audit_syslog)', async () => {
		const a = await account();
		const hook = await addHook(a.b, rx.url, { events: ['secret.viewed'] });
		const s = await create(a, { maxViews: 3, notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		const log = await syslogSink(fs.mkdtempSync(path.join(dir, 'log-')));
		const conf = path.join(dir, `audit-${a.accountId}.conf`);
		fs.writeFileSync(conf, `audit_syslog = yes\naudit_syslog_socket = ${log.path}\n`);
		rx.statuses.push(500);
		const run = await notify(a, { BURNLINK_CONFIG: conf });
		assert.equal(run.code, 0, run.stderr);
		const lines = (await log.stop()).map((l) => JSON.parse(l.slice(l.indexOf('{'))));
		const rows = a.ctx.sql("SELECT coalesce(CAST(owner_id AS TEXT), ''), object_id, outcome FROM audit_events " +
			"WHERE kind = 'webhook.failing'").trim().split('\n').filter(Boolean);
		assert.equal(rows.length, 1);
		assert.deepEqual(lines.filter((j) => j.kind === 'webhook.failing')
			.map((j) => `${j.ownerId}|${j.objectId}|${j.outcome}`), rows);
		assert.equal(lines.find((j) => j.kind === 'webhook.failing').objectId, hook.webhook.id);
		assertNoSecret(lines.map((j) => JSON.stringify(j)), s);
	});

	test('retried after a 500 with the same event id; dropped and logged after 24 hours', async () => {
		const a = await account();
		const hook = await addHook(a.b, rx.url, { events: ['secret.viewed', 'secret.exhausted'] });
		const before = rx.hits.length;
		const s = await create(a, { maxViews: 3, notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		assert.equal((await a.ctx.burn(s.metadata.key)).status, 200, 'burned: not one of its events');
		assert.equal(outbox(a).length, 1);

		rx.statuses.push(500);
		let run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(rx.hits.length, before + 1);
		let [row] = outbox(a);
		assert.equal(row.state, 0, 'still to deliver');
		assert.equal(row.status, 500);
		assert.equal(row.attempts, 1);
		assert.ok(row.next > Date.now(), 'a later retry');

		run = await notify(a);
		assert.equal(rx.hits.length, before + 1, 'not before its time');
		a.ctx.sql(`UPDATE outbox SET next_at = 0 WHERE id = ${row.id}`);
		run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(rx.hits.length, before + 2, 'the retry');
		const [first, second] = rx.hits.slice(before);
		assert.equal(first.headers['burnlink-event-id'], second.headers['burnlink-event-id']);
		checkSignature(second, hook.secret);
		assert.equal(JSON.parse(second.body).attempt, 2);
		[row] = outbox(a);
		assert.equal(row.state, 1);

		// Another event that keeps failing; its time moved back 25 hours.
		const s2 = await create(a, { maxViews: 1, notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s2.metadata.secretKey)).status, 200);
		rx.statuses.push(500);
		run = await notify(a);
		assert.equal(rx.hits.length, before + 3);
		assert.equal(JSON.parse(rx.hits.at(-1).body).type, 'secret.exhausted');
		const day = 25 * 3600 * 1000;
		a.ctx.sql(`UPDATE outbox SET occurred_at = occurred_at - ${day}, next_at = 0 WHERE state = 0`);
		run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(rx.hits.length, before + 3, 'not tried again');
		assert.match(run.stdout, /dropped 1/);
		assert.match(run.stderr, /secret\.exhausted webhook \d+ .*dropped: undelivered for 24 hours/);
		assert.deepEqual(outbox(a).map((r) => r.state), [1, 2]);
		assertNoSecret([run.stderr, ...rx.hits.slice(before).map((h) => h.body)], s2);
	});

	test('two overlapping runs deliver each event once', async () => {
		const a = await account();
		await addHook(a.b, rx.url);
		const before = rx.hits.length;
		const s = await create(a, { maxViews: 40, notify: ['webhook', 'email'] });
		for (let i = 0; i < 12; i++)
			assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		const rows = outbox(a);
		assert.equal(rows.length, 24);
		// overlapping runs, again until each row was tried (5 webhooks of an account a run)
		for (let i = 0; i < 12 && outbox(a).some((r) => r.state === 0); i++) {
			const runs = await Promise.all([notify(a), notify(a), notify(a)]);
			for (const r of runs) assert.equal(r.code, 0, r.stderr);
			a.ctx.sql('UPDATE outbox SET next_at = 0 WHERE state = 0 AND attempts = 0');
		}
		const ids = rx.hits.slice(before).map((h) => h.headers['burnlink-event-id']);
		assert.equal(ids.length, 12);
		assert.equal(new Set(ids).size, 12, 'no event twice');
		assert.equal(mailsOf(a).length, 12);
		assert.ok(outbox(a).every((r) => r.state === 1 && r.attempts === 1));
	});

	test('a run that dies mid-way loses nothing: its rows go out once their lease ends', async () => {
		const a = await account();
		await addHook(a.b, rx.url);
		const before = rx.hits.length;
		const s = await create(a, { maxViews: 2, notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		// as a run leaves a row it claimed and never settled (killed after its claim)
		a.ctx.sql(`UPDATE outbox SET lease_until = ${Date.now() + 300000}, attempts = 1`);
		let run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(rx.hits.length, before, 'still leased');
		a.ctx.sql(`UPDATE outbox SET lease_until = ${Date.now() - 1}`);
		run = await notify(a);
		assert.equal(rx.hits.length, before + 1);
		assert.equal(JSON.parse(rx.hits.at(-1).body).attempt, 2);
		assert.deepEqual(outbox(a).map((r) => r.state), [1]);
	});

	test('SSRF: loopback, private, link-local and a name for loopback are refused at delivery', async () => {
		const a = await account();
		const urls = [`https://127.0.0.1:${rx.port}/hook`, `https://[::1]:${rx.port}/hook`,
			'https://10.1.2.3/hook', 'https://169.254.169.254/latest', `https://localhost:${rx.port}/hook`,
			'https://[::ffff:127.0.0.1]/hook'];
		for (const u of urls) await addHook(a.b, u);
		const before = rx.hits.length;
		const s = await create(a, { notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		const log = await notifyAll(a, { BURNLINK_NOTIFY_ALLOW: undefined }, offline());
		assert.equal(rx.hits.length, before, 'nothing reached the receiver');
		const rows = outbox(a);
		assert.equal(rows.length, urls.length);
		for (const r of rows) {
			assert.equal(r.state, 0);
			assert.equal(r.error, 'unreachable', 'the account sees the outcome only');
			assert.match(log, new RegExp(`evt_${r.id} .*retry: address not allowed \\((Loopback|Loopback Address|Private-Use|Link Local|IPv4-mapped Address) \\(RFC `));
		}
		// and at delivery, should one be stored (saved while the operator allowed http)
		a.ctx.sql(`UPDATE webhooks SET url = 'http://127.0.0.1:${rx.port}/hook'`);
		a.ctx.sql('UPDATE outbox SET next_at = 0, attempts = 0');
		await notifyAll(a, { BURNLINK_NOTIFY_ALLOW: '127.0.0.1/32' }, offline());
		assert.equal(rx.hits.length, before);
		assert.ok(outbox(a).every((r) => r.state === 0 && r.error === 'not https'));
		// plain http is refused when the webhook is saved (https only by default)
		const res = await a.b.req('webhooks', { method: 'POST', body: { url: 'http://example.org/hook' } });
		assert.equal(res.status, 400);
		assert.equal(res.json.code, 'INVALID_WEBHOOK');
	});

	// One address in each row of the IANA special-purpose registries (and the
	// rows lib/netaddr.c adds), with the row's name, or null where the address
	// is globally reachable. The sender runs offline (unshare -n): an address
	// it lets through fails to connect instead.
	const REGISTRY = [
		['0.1.2.3', 'This network'], ['0.0.0.0', 'This host on this network'],
		['10.1.2.3', 'Private-Use'], ['100.64.0.1', 'Shared Address Space'],
		['127.0.0.1', 'Loopback'], ['169.254.169.254', 'Link Local'], ['172.16.0.1', 'Private-Use'],
		['192.0.0.200', 'IETF Protocol Assignments'], ['192.0.0.1', 'IPv4 Service Continuity Prefix'],
		['192.0.0.8', 'IPv4 dummy address'], ['192.0.0.9', null], ['192.0.0.10', null],
		['192.0.0.170', 'NAT64/DNS64 Discovery'], ['192.0.0.171', 'NAT64/DNS64 Discovery'],
		['192.0.2.1', 'Documentation (TEST-NET-1)'], ['192.31.196.1', null], ['192.52.193.1', null],
		['192.88.99.1', 'Deprecated (6to4 Relay Anycast)'], ['192.88.99.2', '6a44-relay anycast address'],
		['192.168.1.1', 'Private-Use'], ['192.175.48.1', null], ['198.18.0.1', 'Benchmarking'],
		['198.19.255.1', 'Benchmarking'], ['198.51.100.7', 'Documentation (TEST-NET-2)'],
		['203.0.113.7', 'Documentation (TEST-NET-3)'], ['240.0.0.1', 'Reserved'],
		['255.255.255.255', 'Limited Broadcast'], ['224.0.0.1', 'Multicast'],
		['::', 'Unspecified Address'], ['::1', 'Loopback Address'],
		['::ffff:127.0.0.1', 'IPv4-mapped Address'], ['::ffff:8.8.8.8', 'IPv4-mapped Address'],
		['64:ff9b::a9fe:a9fe', 'IPv4-IPv6 Translat. (RFC 6052) of 169.254.169.254: Link Local'],
		['64:ff9b::7f00:1', 'IPv4-IPv6 Translat. (RFC 6052) of 127.0.0.1: Loopback'],
		['64:ff9b::c612:1', 'IPv4-IPv6 Translat. (RFC 6052) of 198.18.0.1: Benchmarking'],
		['64:ff9b::808:808', null],
		['64:ff9b:1:a9fe:a9:fe00::', 'IPv4-IPv6 Translat. (RFC 8215) of 169.254.169.254'],
		['64:ff9b:1:808:8:800::', 'IPv4-IPv6 Translat. (RFC 8215) of 8.8.8.8'],
		['100::1', 'Discard-Only Address Block'], ['100:0:0:1::1', 'Dummy IPv6 Prefix'],
		['2001:100::1', 'IETF Protocol Assignments'],
		['2001:0:4136:e378:8000:63bf:80ff:fffe', 'TEREDO (RFC 4380, RFC 8190) of 127.0.0.1'],
		['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'TEREDO (RFC 4380, RFC 8190) of 10.0.0.1'],
		['2001:0:4136:e378:8000:63bf:f7f7:f7f7', null],
		['2001:1::1', null], ['2001:1::2', null], ['2001:1::3', null],
		['2001:2::1', 'Benchmarking'], ['2001:3::1', null], ['2001:4:112::1', null],
		['2001:10::1', 'Deprecated (previously ORCHID)'], ['2001:20::1', null], ['2001:30::1', null],
		['2001:db8::1', 'Documentation'],
		['2002:a9fe:a9fe::1', '6to4 (RFC 3056) of 169.254.169.254'],
		['2002:c0a8:101::1', '6to4 (RFC 3056) of 192.168.1.1'], ['2002:808:808::1', null],
		['2620:4f:8000::1', null], ['3fff::1', 'Documentation'], ['5f00::1', 'Segment Routing (SRv6) SIDs'],
		['fd12:3456::1', 'Unique-Local'], ['fe80::1', 'Link-Local Unicast'],
		['4000::1', 'Reserved (not global unicast)'], ['::7f00:1', 'IPv4-compatible Address (deprecated)'],
		['::ffff:0:a9fe:a9fe', 'IPv4-translated Address'], ['fec0::1', 'Site-Local (deprecated)'],
		['ff02::1', 'Multicast'], ['2a00:1450::1', null],
	];

	test('SSRF: an address in every row of the special-purpose registries, judged at delivery (offline)', async () => {
		const a = await account();
		const now = Date.now();
		const url = (addr) => `https://${addr.includes(':') ? `[${addr}]` : addr}/hook`;
		a.ctx.sql('INSERT INTO webhooks (account_id, url, events, secret, created_at) VALUES ' +
			REGISTRY.map(([addr]) => `(${a.accountId}, '${url(addr)}', 15, 'whsec_x', ${now})`).join(', '));
		const ids = new Map(a.ctx.sql(`SELECT id, url FROM webhooks WHERE account_id = ${a.accountId}`)
			.trim().split('\n').map((l) => l.split('|')).map(([id, u]) => [u, Number(id)]));
		const s = await create(a, { notify: ['webhook'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		assert.equal(outbox(a).length, REGISTRY.length);
		// runs until every row was tried once (a run takes a few of an account's rows)
		const log = await notifyAll(a, { BURNLINK_NOTIFY_ALLOW: undefined }, offline());
		for (const [addr, row] of REGISTRY) {
			const id = ids.get(url(addr));
			const line = new RegExp(`^.*webhook ${id} \\(attempt 1\\): retry: (.*)$`, 'm').exec(log);
			assert.ok(line, `${addr}: tried once (webhook ${id})`);
			if (row === null)
				assert.doesNotMatch(line[1], /address not allowed/, `${addr} is globally reachable`);
			else
				assert.ok(line[1].startsWith(`address not allowed (${row}`), `${addr}: ${line[1]}`);
		}
	});

	test('webhook management: secret shown once, test delivery, delete, the cap', async () => {
		const a = await account();
		const hook = await addHook(a.b, rx.url, { events: ['secret.burned'] });
		const list = await a.b.req('webhooks');
		assert.equal(list.status, 200);
		assert.deepEqual(list.json.webhooks.map((w) => [w.url, w.events, w.lastStatus]),
			[[rx.url, ['secret.burned'], null]]);
		assert.ok(!list.body.toString().includes(hook.secret), 'the secret is not listed');

		const before = rx.hits.length;
		assert.equal((await a.b.req('webhooks', { method: 'POST', pathInfo: `/${hook.webhook.id}` })).status, 200);
		const run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(rx.hits.length, before + 1);
		const hit = rx.hits.at(-1);
		assert.equal(JSON.parse(hit.body).type, 'webhook.test');
		checkSignature(hit, hook.secret);

		for (const bad of [{ url: 'ftp://example.org/' }, { url: rx.url, events: ['secret.read'] }, { url: rx.url, events: [] }]) {
			const r = await a.b.req('webhooks', { method: 'POST', body: bad });
			assert.equal(r.status, 400, JSON.stringify(bad));
			assert.equal(r.json.code, 'INVALID_WEBHOOK');
		}
		for (let i = 1; i < 10; i++) await addHook(a.b, `${rx.url}/${i}`);
		const over = await a.b.req('webhooks', { method: 'POST', body: { url: rx.url } });
		assert.equal(over.status, 409);
		assert.equal(over.json.code, 'WEBHOOK_LIMIT_REACHED');

		const del = await a.b.req('webhooks', { method: 'DELETE', pathInfo: `/${hook.webhook.id}` });
		assert.equal(del.status, 200);
		assert.equal((await a.b.req('webhooks', { method: 'DELETE', pathInfo: `/${hook.webhook.id}` })).status, 404);
		assert.equal((await a.b.req('webhooks')).json.webhooks.length, 9);

		// Other methods: 405 with Allow (and the rate-limit headers, docs/openapi.yaml).
		const put = await a.b.req('webhooks', { method: 'PUT' });
		assert.equal(put.status, 405);
		assert.equal(put.headers.allow, 'GET, HEAD, POST');
		const putItem = await a.b.req('webhooks', { method: 'PUT', pathInfo: '/1' });
		assert.equal(putItem.status, 405);
		assert.equal(putItem.headers.allow, 'GET, HEAD, POST, DELETE');
		assert.equal((await a.b.req('email', { method: 'DELETE' })).headers.allow, 'GET, HEAD, POST');
		assert.equal((await a.b.req('token', { method: 'GET' })).headers.allow, 'POST');

		// Another account sees none of them.
		const other = await signedUp(a.ctx, 'bob@example.org', { ip: '192.0.2.77' });
		assert.deepEqual((await other.req('webhooks')).json.webhooks, []);
		assert.equal((await other.req('webhooks', { pathInfo: `/${hook.webhook.id + 1}` })).status, 404);
	});

	// burnlink-admin on the account's database (its BURNLINK_DB: on PostgreSQL, not ctx.db).
	const adminOf = (a, args) => admin({ db: a.ctx.env.BURNLINK_DB, env: a.ctx.env }, args);

	// Queues n test deliveries of a webhook (POST /api/webhooks/<id>).
	async function queueTests(a, hookId, n) {
		for (let i = 0; i < n; i++)
			assert.equal((await a.b.req('webhooks', { method: 'POST', pathInfo: `/${hookId}` })).status, 200);
	}

	test('a delivery shows the account a coarse outcome; the detail is in the operator\'s log only', async () => {
		const a = await account();
		const closed = await receiver();
		const closedPort = closed.port;
		await new Promise((resolve) => closed.server.close(resolve));
		const kinds = {
			name: await addHook(a.b, 'https://no-such-host.invalid/hook'),
			address: await addHook(a.b, 'https://10.1.2.3/hook'),
			connect: await addHook(a.b, `https://127.0.0.1:${closedPort}/hook`),
			status: await addHook(a.b, rx.url),
		};
		for (const h of Object.values(kinds)) await queueTests(a, h.webhook.id, 1);
		// offline (unshare -n): 127.0.0.1 is allowed here (BURNLINK_NOTIFY_ALLOW), so the
		// closed port is tried, and fails to connect
		const run = await notify(a, {}, offline());
		assert.equal(run.code, 0, run.stderr);
		const shown = async (h) => (await a.b.req('webhooks', { pathInfo: `/${h.webhook.id}` })).json.deliveries[0];
		for (const k of ['name', 'address', 'connect'])
			assert.deepEqual([k, (await shown(kinds[k])).error, (await shown(kinds[k])).status], [k, 'unreachable', null]);
		assert.match(run.stderr, new RegExp(`webhook ${kinds.name.webhook.id} .*retry: (host name not found|Could not resolve)`));
		assert.match(run.stderr, new RegExp(`webhook ${kinds.address.webhook.id} .*retry: address not allowed \\(Private-Use \\(RFC 1918\\)\\)`));
		assert.match(run.stderr, new RegExp(`webhook ${kinds.connect.webhook.id} .*retry: (?!address not allowed)`));
		// a receiver's own answer is its own: the status and its number (with the network)
		rx.statuses.push(503);
		a.ctx.sql(`UPDATE outbox SET next_at = 0 WHERE webhook_id = ${kinds.status.webhook.id}`);
		const online = await notify(a);
		assert.equal(online.code, 0, online.stderr);
		const st = await shown(kinds.status);
		assert.deepEqual([st.error, st.status], ['HTTP status 503', 503]);
		assert.ok(!JSON.stringify((await a.b.req('webhooks', { pathInfo: `/${kinds.name.webhook.id}` })).json).includes('not found'));
	});

	test('concurrent creations never pass 10 webhooks (PostgreSQL: the account row is locked)', async () => {
		const a = await account();
		// rounds of 12 at once with 0, then 5 already there (the race shows in some rounds)
		for (let round = 0; round < 6; round++) {
			const start = (await a.b.req('webhooks')).json.webhooks.length;
			const res = await Promise.all(Array.from({ length: 12 }, (_, i) =>
				a.b.req('webhooks', { method: 'POST', body: { url: `${rx.url}/${round}/${i}` } })));
			const codes = res.map((r) => r.status).sort();
			assert.equal(codes.filter((c) => c === 200).length, 10 - start, `round ${round}: ${codes}`);
			assert.ok(res.every((r) => r.status === 200 || r.json.code === 'WEBHOOK_LIMIT_REACHED'), String(codes));
			assert.equal((await a.b.req('webhooks')).json.webhooks.length, 10);
			// keep 5 for the next round
			for (const w of (await a.b.req('webhooks')).json.webhooks.slice(5))
				assert.equal((await a.b.req('webhooks', { method: 'DELETE', pathInfo: `/${w.id}` })).status, 200);
		}
	});

	test('a deleted webhook\'s id is never given again: another account sees neither it nor its last status', async () => {
		const a = await account();
		const hook = await addHook(a.b, rx.url);
		await queueTests(a, hook.webhook.id, 1);
		assert.equal((await notify(a)).code, 0);
		assert.equal((await a.b.req('webhooks')).json.webhooks[0].lastStatus, 200);
		assert.equal((await a.b.req('webhooks', { method: 'DELETE', pathInfo: `/${hook.webhook.id}` })).status, 200);

		const b = await signedUp(a.ctx, 'bob@example.org', { ip: '192.0.2.77' });
		const made = await addHook(b, rx.url);
		assert.notEqual(made.webhook.id, hook.webhook.id, 'a new id');
		assert.ok(made.webhook.id > hook.webhook.id);
		const list = (await b.req('webhooks')).json.webhooks;
		assert.deepEqual(list.map((w) => [w.id, w.lastStatus]), [[made.webhook.id, null]]);
		const got = await b.req('webhooks', { pathInfo: `/${made.webhook.id}` });
		assert.equal(got.json.webhook.lastStatus, null);
		assert.deepEqual(got.json.deliveries, [], 'none of the deleted webhook\'s deliveries');
		// B deletes its own (the newest): A's next one gets another id still
		assert.equal((await b.req('webhooks', { method: 'DELETE', pathInfo: `/${made.webhook.id}` })).status, 200);
		const again = await addHook(a.b, rx.url);
		assert.ok(again.webhook.id > made.webhook.id, `${again.webhook.id} > ${made.webhook.id}`);
		assert.deepEqual((await a.b.req('webhooks')).json.webhooks.map((w) => [w.id, w.lastStatus]), [[again.webhook.id, null]]);
		// deleted ones are gone for their account too, and do not count against the 10
		assert.equal((await a.b.req('webhooks', { method: 'DELETE', pathInfo: `/${hook.webhook.id}` })).status, 404);
		assert.equal((await a.b.req('webhooks', { method: 'POST', pathInfo: `/${hook.webhook.id}` })).status, 404);
		for (let i = 1; i < 10; i++) await addHook(a.b, `${rx.url}/${i}`);
		assert.equal((await a.b.req('webhooks', { method: 'POST', body: { url: rx.url } })).status, 409);
	});

	test('at most 100 notification attempts an hour per account, failed ones too: the rest wait', () => inOneWindow(3600, async () => {
		// limits set fills this hour's window: a run that straddles its end runs again, once
		const failing = await receiver({ status: 500 });
		try {
			const a = await account();
			const hook = await addHook(a.b, failing.url);
			// 97 attempts already made this hour (burnlink-admin, the operator's view of the cap)
			const set = adminOf(a, ['limits', 'set', '--account', String(a.accountId), '--window', 'notify-hour', '--count', '97']);
			assert.equal(set.code, 0, set.stderr);
			await queueTests(a, hook.webhook.id, 4);
			// four runs, each with every row due again (as hours of retries would)
			for (let i = 0; i < 4; i++) {
				const run = await notify(a);
				assert.equal(run.code, 0, run.stderr);
				a.ctx.sql('UPDATE outbox SET next_at = 0 WHERE state = 0');
			}
			assert.equal(failing.hits.length, 3, 'the 98th to 100th attempts, all answered 500; no more');
			const rows = outbox(a);
			assert.equal(rows.reduce((n, r) => n + r.attempts, 0), 3, 'attempts counted as made');
			assert.ok(rows.some((r) => r.error === "the account's hourly cap is reached"));
			const show = adminOf(a, ['--json', 'limits', 'show', '--account', String(a.accountId)]);
			assert.ok(show.json.windows.find((w) => w.window === 'notify-hour').count >= 100);
			// the operator clears the window: the rest go out (and fail again)
			assert.equal(adminOf(a, ['limits', 'reset', '--account', String(a.accountId)]).code, 0);
			a.ctx.sql('UPDATE outbox SET next_at = 0 WHERE state = 0');
			assert.equal((await notify(a)).code, 0);
			assert.equal(failing.hits.length, 7);
		} finally {
			failing.server.close();
		}
	}));

	test('a run tries at most 5 webhooks of an account; the rest wait for the next run, untried', async () => {
		const failing = await receiver({ status: 500 });
		try {
			const a = await account();
			const hook = await addHook(a.b, failing.url);
			await queueTests(a, hook.webhook.id, 8);
			const run = await notify(a);
			assert.equal(run.code, 0, run.stderr);
			assert.equal(failing.hits.length, 5);
			const rows = outbox(a);
			assert.deepEqual(rows.map((r) => r.attempts), [1, 1, 1, 1, 1, 0, 0, 0]);
			for (const r of rows.slice(5))
				assert.equal(r.error, "the account's share of this run is used");
			assert.match(run.stderr, /waits: the account's share of this run is used/);
			// the next run takes 5 again
			a.ctx.sql('UPDATE outbox SET next_at = 0 WHERE state = 0');
			assert.equal((await notify(a)).code, 0);
			assert.equal(failing.hits.length, 10);
		} finally {
			failing.server.close();
		}
	});

	test('account mail goes first, and between webhooks: a slow receiver does not hold it', async () => {
		const order = path.join(dir, `order-${crypto.randomUUID()}`);
		fs.writeFileSync(order, '');
		let a, anon;
		let resets = 0;
		// the receiver answers its first request only once more account mail
		// was queued (a sign-up's verification: a second reset for the same
		// address sends nothing while the first link is valid)
		const slow = await receiver({ status: 500, onHit: async () => {
			fs.appendFileSync(order, 'hook\n');
			if (resets++ === 0) await signedUp(a.ctx, 'bob@example.org');
		} });
		try {
			a = await account();
			anon = new Browser(a.ctx, { ip: '192.0.2.99' });
			const hook = await addHook(a.b, slow.url);
			await queueTests(a, hook.webhook.id, 3);
			// a reset mail queued after the webhooks
			assert.equal((await anon.req('token', { method: 'POST', body: { email: 'alice@example.org' } })).status, 200);
			const mailer = path.join(dir, 'order-mail');
			fs.writeFileSync(mailer, '#!/bin/sh\nf=$(mktemp "$1/mail.XXXXXX") || exit 75\ncat > "$f"\necho mail >> "$2"\n', { mode: 0o755 });
			const run = await notify(a, { BURNLINK_SENDMAIL: `${mailer} ${a.mails} ${order}` });
			assert.equal(run.code, 0, run.stderr);
			assert.deepEqual(fs.readFileSync(order, 'utf8').trim().split('\n'),
				['mail', 'hook', 'mail', 'hook', 'hook'],
				'the reset before any webhook; the verification before the next webhook');
			assert.equal(mailsOf(a).filter((m) => /^Subject: Reset your password$/m.test(m)).length, 1);
			assert.equal(mailsOf(a).filter((m) => /^To: bob@example\.org$/m.test(m)).length, 1);
		} finally {
			slow.server.close();
		}
	});

	test('notify needs an account; no mail without a verified address', async () => {
		const a = await account();
		const anon = await a.ctx.create({ text: 'x', notify: ['email'] });
		assert.equal(anon.status, 400);
		assert.equal(anon.json.code, 'INVALID_NOTIFY');
		const bad = await createWithKey(a.ctx, a.key, { text: 'x', notify: ['sms'] });
		assert.equal(bad.status, 400);
		assert.equal(bad.json.code, 'INVALID_NOTIFY');

		a.ctx.sql('UPDATE account_emails SET verified_at = NULL');
		const s = await create(a, { notify: ['email'] });
		assert.equal((await a.ctx.retrieve(s.metadata.secretKey)).status, 200);
		const run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(mailsOf(a).length, 0);
		assert.match(run.stderr, /dropped: the account has no verified address/);
	});

	test('expired unread: the cleanup writes the event with the removal', async () => {
		const a = await account();
		const s = await create(a, { notify: ['email'] });
		a.ctx.age(s.metadata.secretKey);
		const c = await a.ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		assert.deepEqual(outbox(a).map((r) => r.kind), ['secret.expired']);
		const run = await notify(a);
		assert.equal(run.code, 0, run.stderr);
		const mails = mailsOf(a);
		assert.equal(mails.length, 1);
		assert.match(mails[0], /^Subject: Your secret expired unread$/m);
		assertNoSecret([...mails, run.stderr], s);
	});
});
