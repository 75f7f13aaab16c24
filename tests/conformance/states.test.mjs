// Conformance: the state table, passphrases, burning, expiry, cleanup, unknown
// and malformed keys, metadata fields, concurrency (CLAIMS.md C33-C48).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { schemaMembers } from '../lib/openapi.mjs';
import {
	server, api, create, created, retrieve, meta, burn, assertError, assertRateHeaders, encrypt,
	decrypt, fragmentKey, expire, sql, randomKey, KEY_RE, ISO_MS_RE, rawRequest, serverKind,
} from './helpers.mjs';

let srv;
before(async () => { srv = await server(); });
after(async () => { await srv?.stop(); });

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

test('C33 views count down; exhausted at the last view', async () => {
	const j = await created(srv, { text: 'three', maxViews: 3 });
	const sk = j.metadata.secretKey;
	for (const left of [2, 1, 0]) {
		const r = await retrieve(srv, sk);
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.viewsRemaining, left);
		assert.equal(decrypt(fragmentKey(j.secretUrl).key, r.json.text).toString(), 'three');
	}
	const r = await retrieve(srv, sk);
	assertError(r, 410, 'MAX_VIEWS_REACHED', 'retrieve after the last view');
	assertRateHeaders(r, '410 retrieve');
	assertError(await meta(srv, sk), 410, 'MAX_VIEWS_REACHED', 'metadata by secretKey after the last view');
	const rc = await meta(srv, j.metadata.key);
	assert.equal(rc.status, 200, rc.text);
	assert.equal(rc.json.state, 'exhausted');
	assert.equal(rc.json.exists, false);
	assert.equal(rc.json.viewsRemaining, 0);
	assert.equal(rc.json.viewCount, 3);
	assertError(await burn(srv, sk), 410, 'MAX_VIEWS_REACHED', 'burn by secretKey after exhaustion');
	assertError(await burn(srv, j.metadata.key), 410, 'MAX_VIEWS_REACHED', 'burn by receipt after exhaustion');
});

test('C33 default maxViews 1: second retrieval is 410', async () => {
	const j = await created(srv, { text: 'once' });
	const r = await retrieve(srv, j.metadata.secretKey);
	assert.equal(r.status, 200);
	assert.equal(r.json.viewsRemaining, 0);
	assertError(await retrieve(srv, j.metadata.secretKey), 410, 'MAX_VIEWS_REACHED');
});

test('C34 maxViews null: unlimited, viewsRemaining null', async () => {
	const j = await created(srv, { text: 'many', maxViews: null });
	for (let i = 0; i < 5; i++) {
		const r = await retrieve(srv, j.metadata.secretKey);
		assert.equal(r.status, 200);
		assert.equal(r.json.viewsRemaining, null);
	}
	const rc = await meta(srv, j.metadata.key);
	assert.equal(rc.json.viewCount, 5);
	assert.equal(rc.json.viewsRemaining, null);
	assert.equal(rc.json.maxViews, null);
});

test('C35 metadata (GET and HEAD) consumes no view', async () => {
	const j = await created(srv, { text: 'x' });
	for (let i = 0; i < 5; i++) {
		const m = await meta(srv, j.metadata.secretKey);
		assert.equal(m.status, 200);
		assert.equal(m.json.viewsRemaining, 1);
		await meta(srv, j.metadata.key);
		const h = await api(srv, 'HEAD', '/api/secrets/' + j.metadata.secretKey);
		assert.equal(h.status, 200);
		assert.equal(h.text, '', 'HEAD has no body');
	}
	assert.equal((await retrieve(srv, j.metadata.secretKey)).status, 200);
});

test('C9 HEAD on unknown / gone keys mirrors GET status', async () => {
	const h = await api(srv, 'HEAD', '/api/secrets/' + randomKey());
	assert.equal(h.status, 404);
	assert.equal(h.text, '');
});

test('C36 passphrase: wrong and missing → 403 INVALID_PASSPHRASE, no view consumed', async () => {
	const j = await created(srv, { text: 'guarded', passphrase: 'correct horse', maxViews: 1 });
	const sk = j.metadata.secretKey;
	let r = await retrieve(srv, sk, { passphrase: 'wrong horse' });
	assertError(r, 403, 'INVALID_PASSPHRASE', 'wrong');
	assertRateHeaders(r, '403');
	r = await retrieve(srv, sk); // no body at all
	assertError(r, 403, 'INVALID_PASSPHRASE', 'no body');
	r = await retrieve(srv, sk, {}); // empty object
	assertError(r, 403, 'INVALID_PASSPHRASE', '{}');
	const m = await meta(srv, sk);
	assert.equal(m.json.viewsRemaining, 1, 'no view consumed');
	assert.equal(m.json.hasPassphrase, true);
	r = await retrieve(srv, sk, { passphrase: 'correct horse' });
	assert.equal(r.status, 200, r.text);
	assert.equal(decrypt(fragmentKey(j.secretUrl).key, r.json.text).toString(), 'guarded');
});

test('C36 passphrase is compared exactly (case, whitespace, Unicode form)', async () => {
	const j = await created(srv, { text: 'x', passphrase: 'Café Pass', maxViews: null });
	const sk = j.metadata.secretKey;
	assertError(await retrieve(srv, sk, { passphrase: 'café pass' }), 403, 'INVALID_PASSPHRASE');
	assertError(await retrieve(srv, sk, { passphrase: 'Café Pass ' }), 403, 'INVALID_PASSPHRASE');
	assert.equal((await retrieve(srv, sk, { passphrase: 'Café Pass' })).status, 200);
});

test('C36 passphrase of a wrong type on retrieval is not a crash', async () => {
	const j = await created(srv, { text: 'x', passphrase: 'abcd', maxViews: null });
	for (const p of [1234, null, ['abcd'], { a: 1 }]) {
		const r = await retrieve(srv, j.metadata.secretKey, { passphrase: p });
		assert.ok([400, 403].includes(r.status), `passphrase ${JSON.stringify(p)} → ${r.status}`);
		assertError(r, r.status, /^INVALID_/);
	}
});

test('retrieve on an unprotected secret: {} body, JSON body with a passphrase, no body, text/plain body', async () => {
	const j = await created(srv, { text: 'x', maxViews: null });
	const sk = j.metadata.secretKey;
	assert.equal((await retrieve(srv, sk)).status, 200, 'no body');
	assert.equal((await retrieve(srv, sk, {})).status, 200, '{}');
	assert.equal((await retrieve(srv, sk, { passphrase: 'whatever' })).status, 200, 'passphrase ignored when none is set');
	const r = await api(srv, 'POST', '/api/secrets/' + sk, { body: '', headers: { 'Content-Type': 'application/json' } });
	assert.equal(r.status, 200, `empty body with JSON type: ${r.text}`);
	const bad = await api(srv, 'POST', '/api/secrets/' + sk, { body: '{bad', headers: { 'Content-Type': 'application/json' } });
	assertError(bad, 400, 'INVALID_JSON', 'retrieve with invalid JSON');
	const tp = await api(srv, 'POST', '/api/secrets/' + sk, { body: '{"passphrase":"abcd"}' });
	assertError(tp, 415, 'UNSUPPORTED_MEDIA_TYPE', 'retrieve with a JSON body sent as text/plain');
});

test('retrieve with invalid JSON consumes no view', async () => {
	const j = await created(srv, { text: 'x', maxViews: 1 });
	await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, { body: '[1,', headers: { 'Content-Type': 'application/json' } });
	assert.equal((await meta(srv, j.metadata.secretKey)).json.viewsRemaining, 1);
});

test('C37 6th attempt within a minute → 429 TOO_MANY_ATTEMPTS with Retry-After', async () => {
	// Attempts count per clock minute: a run whose requests straddle a minute
	// boundary starts a new count part-way (the lock-out ends with the
	// minute), so such a run is done once more; two runs cannot both straddle.
	let j, sk, r6, rRight, rBurn, j2, rOther;
	for (let tries = 0; tries < 2; tries++) {
		j = await created(srv, { text: 'x', passphrase: 'right one', maxViews: 3 });
		sk = j.metadata.secretKey;
		const minute = Math.floor(Date.now() / 60000);
		// empty attempts count too
		for (let i = 0; i < 5; i++) {
			const r = i % 2 ? await retrieve(srv, sk) : await retrieve(srv, sk, { passphrase: 'bad guess ' + i });
			assertError(r, 403, 'INVALID_PASSPHRASE', `attempt ${i + 1}`);
		}
		r6 = await retrieve(srv, sk, { passphrase: 'bad guess 6' });
		// even the right passphrase is refused now
		rRight = await retrieve(srv, sk, { passphrase: 'right one' });
		// another secret is unaffected
		j2 = await created(srv, { text: 'y', passphrase: 'right one' });
		rOther = await retrieve(srv, j2.metadata.secretKey, { passphrase: 'right one' });
		// DELETE by secretKey with a passphrase counts with the same attempts
		rBurn = await burn(srv, sk, { passphrase: 'right one' });
		if (Math.floor(Date.now() / 60000) === minute) break;
	}
	assertError(r6, 429, 'TOO_MANY_ATTEMPTS', '6th attempt');
	assertRateHeaders(r6, '429 TOO_MANY_ATTEMPTS');
	const ra = r6.headers.get('retry-after');
	assert.match(ra || '', /^\d+$/, `Retry-After integer seconds: ${ra}`);
	assert.ok(Number(ra) >= 1 && Number(ra) <= 60, `Retry-After within the minute: ${ra}`);
	assertError(rRight, 429, 'TOO_MANY_ATTEMPTS', 'right passphrase after lock-out');
	assert.equal(rOther.status, 200, rOther.text);
	assertError(rBurn, 429, 'TOO_MANY_ATTEMPTS', 'burn by secretKey while locked out');
	// no view consumed
	assert.equal((await meta(srv, sk)).json.viewsRemaining, 3);
	// the receipt key still burns (the sender's capability)
	const r = await burn(srv, j.metadata.key);
	assert.equal(r.status, 200, r.text);
});

test('C37 correct passphrase attempts: 5 views then the 6th attempt within a minute (OPEN whether correct ones count)', async () => {
	const j = await created(srv, { text: 'x', passphrase: 'right one', maxViews: null });
	const codes = [];
	for (let i = 0; i < 7; i++) codes.push((await retrieve(srv, j.metadata.secretKey, { passphrase: 'right one' })).status);
	// record only: either all 200 (only failures count) or 429 from the 6th
	assert.ok(codes.slice(0, 5).every((c) => c === 200), codes.join(','));
	assert.ok(codes.slice(5).every((c) => c === 200 || c === 429), codes.join(','));
});

test('C38 DELETE with the receipt key burns, always (even deletable:false)', async () => {
	const j = await created(srv, { text: 'x', deletable: false, maxViews: 5 });
	const r = await burn(srv, j.metadata.key);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json, { success: true, state: 'burned' });
	assertRateHeaders(r, 'burn');
	assertError(await retrieve(srv, j.metadata.secretKey), 410, 'SECRET_BURNED', 'retrieve after burn');
	assertError(await meta(srv, j.metadata.secretKey), 410, 'SECRET_BURNED', 'metadata after burn');
	const rc = await meta(srv, j.metadata.key);
	assert.equal(rc.status, 200);
	assert.equal(rc.json.state, 'burned');
	assert.equal(rc.json.exists, false);
	assertError(await burn(srv, j.metadata.key), 410, 'SECRET_BURNED', 'burn twice (receipt)');
	assertError(await burn(srv, j.metadata.secretKey), 410, 'SECRET_BURNED', 'burn twice (secretKey)');
});

test('C39 DELETE with the secretKey: burns unless deletable:false', async () => {
	const j = await created(srv, { text: 'x' });
	let r = await burn(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json, { success: true, state: 'burned' });
	assertError(await retrieve(srv, j.metadata.secretKey), 410, 'SECRET_BURNED');
	const k = await created(srv, { text: 'x', deletable: false });
	r = await burn(srv, k.metadata.secretKey);
	assertError(r, 403, 'DELETION_NOT_ALLOWED', 'deletable:false');
	assertRateHeaders(r, 'DELETION_NOT_ALLOWED');
	const m = await meta(srv, k.metadata.secretKey);
	assert.equal(m.status, 200);
	assert.equal(m.json.exists, true);
	assert.equal(m.json.deletable, false);
	assert.equal((await retrieve(srv, k.metadata.secretKey)).status, 200, 'still active');
});

test('C40 DELETE with the secretKey of a passphrase secret needs the passphrase', async () => {
	const j = await created(srv, { text: 'x', passphrase: 'open sesame' });
	assertError(await burn(srv, j.metadata.secretKey), 403, 'INVALID_PASSPHRASE', 'no passphrase');
	assertError(await burn(srv, j.metadata.secretKey, { passphrase: 'nope nope' }), 403, 'INVALID_PASSPHRASE', 'wrong passphrase');
	const r = await burn(srv, j.metadata.secretKey, { passphrase: 'open sesame' });
	assert.equal(r.status, 200, r.text);
	assertError(await retrieve(srv, j.metadata.secretKey, { passphrase: 'open sesame' }), 410, 'SECRET_BURNED');
	// the receipt key needs no passphrase
	const k = await created(srv, { text: 'x', passphrase: 'open sesame' });
	assert.equal((await burn(srv, k.metadata.key)).status, 200);
});

test('C42 expired: 410 SECRET_EXPIRED; receipt state expired; burn 410', async (t) => {
	if (!srv.db) return t.skip('database path unknown');
	const j = await created(srv, { text: 'x', maxViews: 3 });
	const k = await created(srv, { text: 'y' });
	expire(srv, j.metadata.secretKey);
	expire(srv, k.metadata.secretKey);
	assertError(await meta(srv, j.metadata.secretKey), 410, 'SECRET_EXPIRED', 'metadata');
	assertError(await retrieve(srv, j.metadata.secretKey), 410, 'SECRET_EXPIRED', 'retrieve');
	const rc = await meta(srv, j.metadata.key);
	assert.equal(rc.status, 200, rc.text);
	assert.equal(rc.json.state, 'expired');
	assert.equal(rc.json.exists, false);
	assertError(await burn(srv, j.metadata.key), 410, 'SECRET_EXPIRED', 'burn by receipt');
	assertError(await burn(srv, k.metadata.secretKey), 410, 'SECRET_EXPIRED', 'burn by secretKey');
	assertError(await retrieve(srv, k.metadata.secretKey), 410, 'SECRET_EXPIRED', 'retrieve (first request after expiry was a burn)');
});

test('C43 cleanup removes rows past expiresAt → 404 NOT_FOUND', async (t) => {
	if (!srv.db) return t.skip('database path unknown');
	const cleanup = path.join(ROOT, 'cron', 'cleanup');
	if (!fs.existsSync(cleanup)) return t.skip('cron/cleanup not built');
	const j = await created(srv, { text: 'x' });
	const live = await created(srv, { text: 'live' });
	expire(srv, j.metadata.secretKey);
	const env = { ...process.env, BURNLINK_DB: srv.db };
	if (srv.user) execFileSync('setpriv', ['--reuid=' + srv.user, '--regid=' + srv.user, '--init-groups', cleanup], { env, stdio: 'pipe' });
	else execFileSync(cleanup, [], { env, stdio: 'pipe' });
	assertError(await meta(srv, j.metadata.secretKey), 404, 'NOT_FOUND', 'secretKey after cleanup');
	assertError(await meta(srv, j.metadata.key), 404, 'NOT_FOUND', 'receipt after cleanup');
	assertError(await retrieve(srv, j.metadata.secretKey), 404, 'NOT_FOUND');
	assertError(await burn(srv, j.metadata.key), 404, 'NOT_FOUND');
	assert.equal((await meta(srv, live.metadata.secretKey)).status, 200, 'a live secret survives cleanup');
});

test('C44 unknown well-formed key and wrong-length keys → 404 NOT_FOUND', async () => {
	const unknown = randomKey();
	for (const [m, fn] of [['GET', meta], ['POST', retrieve], ['DELETE', burn]]) {
		const r = await fn(srv, unknown);
		assertError(r, 404, 'NOT_FOUND', `${m} unknown`);
		assertRateHeaders(r, `404 ${m}`);
	}
	for (const k of [unknown.slice(0, 21), unknown + 'A', 'x', 'A'.repeat(200), 'not-a-real-key']) {
		for (const [m, fn] of [['GET', meta], ['POST', retrieve], ['DELETE', burn]]) {
			assertError(await fn(srv, k), 404, 'NOT_FOUND', `${m} ${k}`);
		}
	}
});

test('C44 keys with characters outside url-safe base64 → JSON 404 NOT_FOUND (not the web server\'s page)', async () => {
	const bad = [];
	const malformed = [
		'A'.repeat(21) + '=', 'A'.repeat(20) + '==', 'A'.repeat(21) + '.', 'A'.repeat(21) + '%2B', 'A'.repeat(21) + '%2F',
		'A'.repeat(21) + '!', 'A'.repeat(21) + '~', 'AAAAAAAAAA%20AAAAAAAAAAA', 'A'.repeat(300), randomKey() + '/',
	].filter((k) => serverKind() !== 'apache' || !k.includes('%2F')); // Apache's own 404 (AllowEncodedSlashes, a server-wide setting)
	for (const k of malformed) {
		for (const [m, fn] of [['GET', meta], ['POST', retrieve], ['DELETE', burn]]) {
			const r = await fn(srv, k);
			if (r.status !== 404 || r.json?.code !== 'NOT_FOUND') bad.push(`${m} /api/secrets/${k} → ${r.status} ${r.json?.code ?? r.text.slice(0, 40).replace(/\s+/g, ' ')}`);
		}
	}
	assert.deepEqual(bad, [], 'every malformed key answers the JSON 404 NOT_FOUND');
});

test('C44 the key is case-sensitive: a real key with its case flipped is 404', async () => {
	const j = await created(srv, { text: 'x' });
	const sk = j.metadata.secretKey;
	const flipped = sk.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
	assertError(await meta(srv, flipped), 404, 'NOT_FOUND');
});

test('C45 the receipt key does not retrieve the content', async () => {
	const j = await created(srv, { text: 'not for the sender', maxViews: 2 });
	const r = await retrieve(srv, j.metadata.key);
	assert.notEqual(r.status, 200, 'retrieving with the receipt key must not reveal the secret');
	assertError(r, 404, 'NOT_FOUND', 'retrieve by receipt key');
	assert.equal((await meta(srv, j.metadata.secretKey)).json.viewsRemaining, 2);
});

test('C47 metadata by secretKey: fields and types', async () => {
	const j = await created(srv, { text: 'x', passphrase: 'abcd', maxViews: 7, ttl: 7200 });
	const m = await meta(srv, j.metadata.secretKey);
	assert.equal(m.status, 200, m.text);
	assertRateHeaders(m, 'metadata');
	assert.equal(m.json.exists, true);
	assert.equal(m.json.type, 'secret');
	assert.equal(m.json.hasPassphrase, true);
	assert.equal(m.json.expiresAt, j.metadata.expiresAt);
	assert.match(m.json.expiresAt, ISO_MS_RE);
	assert.equal(m.json.maxViews, 7);
	assert.equal(m.json.viewsRemaining, 7);
	assert.equal(m.json.deletable, true);
	assert.ok(!m.text.includes(j.metadata.key), 'metadata by secretKey does not disclose the receipt key');
	const n = await meta(srv, (await created(srv, { text: 'x' })).metadata.secretKey);
	assert.equal(n.json.hasPassphrase, false);
	assert.equal(m.headers.get('x-request-id')?.startsWith('req_'), true);
});

test('C48 metadata by receipt key: fields, types, lastViewedAt, no secretKey', async () => {
	const t0 = Date.now();
	const j = await created(srv, { text: 'x', maxViews: 3, ttl: 3600 });
	const tc = Date.now();
	let m = await meta(srv, j.metadata.key);
	assert.equal(m.status, 200, m.text);
	for (const k of schemaMembers('ReceiptMetadata').required) assert.ok(k in m.json, `receipt field ${k}`);
	assert.equal(m.json.type, 'receipt');
	assert.equal(m.json.state, 'active');
	assert.equal(m.json.exists, true);
	assert.equal(m.json.hasPassphrase, false);
	assert.match(m.json.createdAt, ISO_MS_RE);
	// made between the create's start and its answer
	assert.ok(Date.parse(m.json.createdAt) >= t0 - 1000 && Date.parse(m.json.createdAt) <= tc + 1000, m.json.createdAt);
	assert.equal(m.json.expiresAt, j.metadata.expiresAt);
	assert.equal(m.json.maxViews, 3);
	assert.equal(m.json.viewsRemaining, 3);
	assert.equal(m.json.viewCount, 0);
	assert.equal(m.json.lastViewedAt, null);
	assert.equal(m.json.deletable, true);
	assert.ok(!m.text.includes(j.metadata.secretKey), 'never the secretKey');
	assert.ok(!('secretKey' in m.json));
	const v0 = Date.now();
	await retrieve(srv, j.metadata.secretKey);
	const v1 = Date.now();
	m = await meta(srv, j.metadata.key);
	assert.equal(m.json.viewCount, 1);
	assert.equal(m.json.viewsRemaining, 2);
	assert.match(m.json.lastViewedAt || '', ISO_MS_RE);
	// the view's moment lies between the retrieve's start and its answer
	const seen = Date.parse(m.json.lastViewedAt);
	assert.ok(seen >= v0 - 1000 && seen <= v1 + 1000, m.json.lastViewedAt);
	assert.ok(!m.text.includes(j.metadata.secretKey));
});

test('C46 50 concurrent retrievals of a maxViews:5 secret → exactly 5', async () => {
	const j = await created(srv, { text: 'race', maxViews: 5 });
	const rs = await Promise.all(Array.from({ length: 50 }, () => retrieve(srv, j.metadata.secretKey)));
	const ok = rs.filter((r) => r.status === 200);
	const gone = rs.filter((r) => r.status === 410 && r.json?.code === 'MAX_VIEWS_REACHED');
	assert.equal(ok.length, 5, rs.map((r) => r.status).join(','));
	assert.equal(gone.length, 45, rs.map((r) => `${r.status}:${r.json?.code}`).join(','));
	assert.deepEqual(ok.map((r) => r.json.viewsRemaining).sort(), [0, 1, 2, 3, 4]);
});

test('concurrent burn and retrieve: never both a view after the burn', async () => {
	const j = await created(srv, { text: 'x', maxViews: null });
	const rs = await Promise.all([
		...Array.from({ length: 10 }, () => retrieve(srv, j.metadata.secretKey)),
		burn(srv, j.metadata.key),
		...Array.from({ length: 10 }, () => retrieve(srv, j.metadata.secretKey)),
	]);
	for (const r of rs) assert.ok([200, 410].includes(r.status), `${r.status} ${r.text}`);
	assertError(await retrieve(srv, j.metadata.secretKey), 410, 'SECRET_BURNED');
});

test('client-side secret with a passphrase: ciphertext returned only with the passphrase', async () => {
	const key = crypto.randomBytes(32);
	const item = encrypt(key, 'zk + pass');
	const j = await created(srv, { text: item, passphrase: 'p4ss' });
	const bad = await retrieve(srv, j.metadata.secretKey, { passphrase: 'nope' });
	assertError(bad, 403, 'INVALID_PASSPHRASE');
	assert.ok(!bad.text.includes(item.ciphertext.slice(0, 20)));
	const r = await retrieve(srv, j.metadata.secretKey, { passphrase: 'p4ss' });
	assert.deepEqual(r.json.text, item);
});
