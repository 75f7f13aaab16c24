// Conformance: what reaches the database file (docs/API.md: only SHA-256 of
// keys, scrypt of passphrases, never the server-side key; the content sealed under a key its deletion wipes) and
// the client address (X-Forwarded-For ignored without trusted proxies).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import {
	server, created, retrieve, burn, meta, assertError, fragmentKey, encrypt, sha256hex, api, sql,
} from './helpers.mjs';
import { countersPath } from '../lib/counters.mjs';
import { capture, opens, slotKey, problems } from '../lib/shred.mjs';

let srv;
before(async () => {
	srv = await server();
	await created(srv, { text: 'warm up' }); // the programs create the database on first use
});
after(async () => { await srv?.stop(); });

// Every byte of the database, its WAL, its keys (lib/keyslots.c) and the counters file.
function dbBytes() {
	const parts = [];
	const dir = srv.db.replace(/[^/]+$/, '');
	const counters = path.basename(countersPath(srv.db));
	for (const f of fs.readdirSync(dir)) {
		if (/\.db(-wal|-shm|-journal|-keys)?$/.test(f) || f === counters) parts.push(fs.readFileSync(dir + f));
	}
	return Buffer.concat(parts);
}

test('keys, passphrase, server-side key and plaintext never reach the database file', async (t) => {
	if (!srv.db || !fs.existsSync(srv.db)) return t.skip('database not reachable');
	const text = 'PLAINTEXT-MARKER-' + crypto.randomBytes(8).toString('hex');
	const passphrase = 'PASS-MARKER-' + crypto.randomBytes(8).toString('hex');
	const j = await created(srv, { text, passphrase, maxViews: 2 });
	const { text: keyText, key } = fragmentKey(j.secretUrl);
	const all = dbBytes();
	for (const [what, needle] of [
		['secretKey', j.metadata.secretKey], ['receipt key', j.metadata.key], ['decryption key (url-safe)', keyText],
		['passphrase', passphrase], ['plaintext', text],
	]) {
		assert.equal(all.indexOf(Buffer.from(needle)), -1, `${what} found in the database files`);
	}
	assert.equal(all.indexOf(key), -1, 'raw decryption key found in the database files');
	// the lookup hash is SHA-256 of the key string
	assert.equal(sql(srv, `SELECT count(*) FROM secrets WHERE secret_hash=x'${sha256hex(j.metadata.secretKey)}'`).trim(), '1');
});

// Gone for good (docs/SECURITY.md): the content is stored sealed under a key of
// its own that the deletion wipes; the scan (tests/lib/shred.mjs) checks that
// no key anywhere in the data directory opens what was stored, and that the
// bytes as sent or returned are in no file.
test('secure delete: after a burn and after the last view nothing in the data directory opens the content (WAL included)', async (t) => {
	if (!srv.db || !fs.existsSync(srv.db)) return t.skip('database not reachable');
	const dir = path.dirname(srv.db);
	const key = crypto.randomBytes(32);
	const sent = (item) => [['sent', Buffer.from(item.ciphertext, 'base64')]];
	const item = encrypt(key, crypto.randomBytes(4096));
	const j = await created(srv, { text: item, maxViews: 5 });
	const c1 = capture(srv.db, j.metadata.secretKey);
	assert.ok(opens(slotKey(srv.db, c1), c1.probe), 'control: the content is stored, sealed, and its key opens it');
	assert.equal((await burn(srv, j.metadata.key)).status, 200);
	assert.deepEqual(problems(dir, [c1], sent(item)), [], 'after a burn by receipt key');
	const k = await created(srv, { text: encrypt(key, crypto.randomBytes(4096)), maxViews: 1 });
	const c2 = capture(srv.db, k.metadata.secretKey);
	const g = await retrieve(srv, k.metadata.secretKey);
	assert.deepEqual(problems(dir, [c2], sent(g.json.text)), [], 'after the last view');
	const s = await created(srv, { text: 'x'.repeat(4096) });
	const c3 = capture(srv.db, s.metadata.secretKey);
	const g2 = await retrieve(srv, s.metadata.secretKey);
	assert.deepEqual(problems(dir, [c3], sent(g2.json.text)), [], 'after the last view (server-side)');
});

test('X-Forwarded-For is ignored without trusted proxies: passphrase attempts are not reset by it', async () => {
	// The attempts are counted per clock minute (docs/API.md, "Passphrases"):
	// a run whose six requests straddle a minute's end runs again, once.
	const minute = () => Math.floor(Date.now() / 60000);
	for (let run = 1; ; run++) {
		const j = await created(srv, { text: 'x', passphrase: 'right pass' });
		const start = minute();
		for (let i = 0; i < 5; i++) {
			const r = await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, {
				json: { passphrase: 'wrong' }, headers: { 'X-Forwarded-For': `198.51.100.${i + 1}` },
			});
			assertError(r, 403, 'INVALID_PASSPHRASE');
		}
		const r = await api(srv, 'POST', '/api/secrets/' + j.metadata.secretKey, {
			json: { passphrase: 'right pass' }, headers: { 'X-Forwarded-For': '203.0.113.77', 'X-Real-IP': '203.0.113.78' },
		});
		if (minute() !== start && run === 1) continue;
		assertError(r, 429, 'TOO_MANY_ATTEMPTS', 'a forged X-Forwarded-For does not make a new client');
		assert.equal((await meta(srv, j.metadata.secretKey)).json.viewsRemaining, 1);
		break;
	}
});

test('rate limits fail closed: an unwritable counters file → 503 RATE_LIMIT_UNAVAILABLE, Retry-After: 60, nothing consumed', async (t) => {
	if (!srv.db || process.getuid?.() !== 0) return t.skip('needs the database files');
	// A FastCGI responder opened the file with its first request and keeps it:
	// a changed mode does not stop it counting (tests/fastcgi covers a deleted file).
	if (srv.server === 'lighttpd-fastcgi') return t.skip('a FastCGI responder keeps the counters file open');
	const j = await created(srv, { text: 'x', maxViews: 3 });
	const lim = countersPath(srv.db);
	if (!fs.existsSync(lim)) return t.skip('counters file not found beside the database');
	const mode = fs.statSync(lim).mode & 0o777;
	assert.equal(mode, 0o600, 'the counters file is private');
	fs.chmodSync(lim, 0o400);
	try {
		for (const [what, r] of [
			['create', await api(srv, 'POST', '/api/secrets', { json: { text: 'x' } })],
			['metadata', await meta(srv, j.metadata.secretKey)],
			['retrieve', await retrieve(srv, j.metadata.secretKey)],
			['burn', await burn(srv, j.metadata.key)],
		]) {
			assertError(r, 503, 'RATE_LIMIT_UNAVAILABLE', what);
			assert.equal(r.headers.get('retry-after'), '60', what);
		}
	} finally {
		fs.chmodSync(lim, mode);
	}
	// one file: no -wal, -shm or -journal beside it
	for (const x of ['-wal', '-shm', '-journal']) assert.ok(!fs.existsSync(lim + x), `no ${lim}${x}`);
	const m = await meta(srv, j.metadata.secretKey);
	assert.equal(m.status, 200);
	assert.equal(m.json.viewsRemaining, 3, 'no view consumed, not burned');
});
