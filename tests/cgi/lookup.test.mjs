// lookup.test.mjs: keys that carry their secret's expiry (docs/API.md, "Keys";
// schema version 8): what a new key holds, that the row is found under it,
// that rows lie in expiry order, and that a version-7 database's secrets
// (keys without it) still read, burn and go after the upgrade.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';
import { newContext, checkError, encryptItem, decryptItem, sha256hex } from '../lib/cgi.mjs';

const PG = !!process.env.BURNLINK_TEST_PG;
// The first 4 bytes of a key, big-endian: its expiry in Unix seconds.
const keyAt = (key) => Buffer.from(key, 'base64url').readUInt32BE(0);
const seconds = (iso) => Math.floor(Date.parse(iso) / 1000);
const one = (s) => s.trim().split('\n')[0].trim();

describe('keys that carry the expiry', () => {
	const ctx = newContext();
	after(() => ctx.remove());

	test('both keys of a new secret begin with its expiry in seconds, then 12 random bytes', async () => {
		const a = await ctx.createOk({ text: 'one', ttl: 3600 });
		const b = await ctx.createOk({ text: 'two', ttl: 3600 });
		for (const s of [a, b]) {
			assert.match(s.secretKey, /^[A-Za-z0-9_-]{22}$/);
			assert.equal(keyAt(s.secretKey), seconds(s.metadata.expiresAt), s.metadata.expiresAt);
			assert.equal(keyAt(s.receiptKey), seconds(s.metadata.expiresAt));
		}
		const rest = (k) => Buffer.from(k, 'base64url').subarray(4).toString('hex');
		assert.equal(new Set([a.secretKey, a.receiptKey, b.secretKey, b.receiptKey].map(rest)).size, 4,
			'the random part differs in every key');
		assert.equal(one(ctx.sql(`SELECT lookup_at FROM secrets WHERE secret_hash = ${PG ? "'\\x" : "x'"}${sha256hex(a.secretKey)}'`)),
			String(keyAt(a.secretKey)), 'the row keeps what the keys carry');
	});

	test('the row is found under what the key carries, and a row stored before version 8 (lookup_at 0) by its hash alone', async () => {
		const s = await ctx.createOk({ text: 'moved', ttl: 3600 });
		const h = `${PG ? "'\\x" : "x'"}${sha256hex(s.secretKey)}'`;
		assert.equal((await ctx.metadata(s.secretKey)).status, 200);
		ctx.sql(`UPDATE secrets SET lookup_at = lookup_at + 1 WHERE secret_hash = ${h}`);
		checkError(assert, await ctx.metadata(s.secretKey), 404, 'NOT_FOUND');
		checkError(assert, await ctx.metadata(s.receiptKey), 404, 'NOT_FOUND');
		ctx.sql(`UPDATE secrets SET lookup_at = 0 WHERE secret_hash = ${h}`);
		assert.equal((await ctx.metadata(s.receiptKey)).json.state, 'active');
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(r.status, 200, r.body.toString());
		assert.equal(decryptItem(r.json.text, s.key).toString(), 'moved');
	});

	test('ids follow expiry, not creation: (lookup_at << 20) + n', { skip: PG && 'SQLite ids (PostgreSQL keeps its identity)' }, async () => {
		for (const ttl of [7200, 1800, 86400, 3600, 1800])
			await ctx.createOk({ text: `ttl ${ttl}`, ttl });
		const rows = ctx.sql('SELECT id, lookup_at, expires_at FROM secrets WHERE lookup_at <> 0').trim().split('\n')
			.map((l) => l.split('|').map(Number));
		for (const [id, at, exp] of rows) {
			assert.equal(Math.floor(id / 2 ** 20), at, `id ${id}`);
			assert.equal(at, Math.floor(exp / 1000));
		}
		const byId = [...rows].sort((x, y) => x[0] - y[0]).map((r) => r[0]);
		const byExpiry = [...rows].sort((x, y) => x[2] - y[2] || x[0] - y[0]).map((r) => r[0]);
		assert.deepEqual(byId, byExpiry);
		assert.ok(rows.every(([id]) => id < 2 ** 52), 'exact as a JavaScript number');
	});
});

describe('a version-7 database', { skip: PG && 'builds a version-7 SQLite file with the sqlite3 shell; PostgreSQL: tests/pg' }, () => {
	const ctx = newContext();
	after(() => ctx.remove());
	const key = crypto.randomBytes(32);
	const text = encryptItem('made by version 7', key);
	const file = encryptItem('a file of version 7', key);
	const keys = Array.from({ length: 6 }, () => crypto.randomBytes(16).toString('base64url'));
	const [skey, rkey, skey2, rkey2, skey3, rkey3] = keys;
	const hex = (b64) => Buffer.from(b64, 'base64').toString('hex');

	test('its secrets, whose keys carry no expiry, read and burn after the upgrade; its table is rebuilt', async () => {
		const v7 = oldSchema('sqlite', 7);	// schema.sql of 717fafd, the last version 7
		assert.ok(/secret_hash\s+BLOB NOT NULL UNIQUE/.test(v7), 'the version-7 table: the hashes unique by themselves');
		const now = Date.now();
		// a fresh version-7 database: its CREATE TABLEs have every column (the ALTER lines are for older ones)
		ctx.sql(`PRAGMA journal_mode=WAL; ${v7.replace(/^ALTER TABLE .*$/gm, '')} PRAGMA user_version = 7;
			INSERT INTO secrets (id, secret_hash, receipt_hash, created_at, expires_at, max_views, text_ct, text_iv) VALUES
				(5, x'${sha256hex(skey)}', x'${sha256hex(rkey)}', ${now}, ${now + 3600e3}, 2, x'${hex(text.ciphertext)}', x'${hex(text.iv)}'),
				(6, x'${sha256hex(skey2)}', x'${sha256hex(rkey2)}', ${now}, ${now + 3600e3}, NULL, x'${hex(text.ciphertext)}', x'${hex(text.iv)}'),
				(7, x'${sha256hex(skey3)}', x'${sha256hex(rkey3)}', ${now - 7200e3}, ${now - 1000}, NULL, x'${hex(text.ciphertext)}', x'${hex(text.iv)}');
			INSERT INTO attachments (secret_id, idx, name, mime, data, data_iv) VALUES
				(5, 0, CAST('v7.txt' AS BLOB), CAST('text/plain' AS BLOB), x'${hex(file.ciphertext)}', x'${hex(file.iv)}');`);
		assert.equal(ctx.sql('PRAGMA user_version').trim(), '7');
		const m = await ctx.metadata(rkey);
		assert.equal(m.status, 200, m.body.toString());
		assert.equal(m.json.state, 'active');
		assert.equal(ctx.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
		assert.doesNotMatch(ctx.sql("SELECT group_concat(name) FROM sqlite_master WHERE tbl_name = 'secrets'"), /autoindex/,
			'the hashes\' own unique indexes are gone');
		assert.match(ctx.sql("SELECT group_concat(name) FROM sqlite_master WHERE tbl_name = 'secrets'"), /secrets_secret.*secrets_receipt.*secrets_expires/);
		assert.equal(ctx.sql('SELECT group_concat(x) FROM (SELECT id || \':\' || lookup_at AS x FROM secrets ORDER BY id)').trim(), '5:0,6:0,7:0');
		assert.equal(ctx.sql("SELECT count(*) FROM sqlite_master WHERE name = 'secrets_v7'").trim(), '0');
		assert.equal(ctx.sql('PRAGMA integrity_check').trim(), 'ok');
		const r = await ctx.retrieve(skey);
		assert.equal(r.status, 200, r.body.toString());
		assert.equal(decryptItem(r.json.text, key).toString(), 'made by version 7');
		assert.equal(r.json.files.length, 1);
		assert.equal(decryptItem(r.json.files[0].data, key).toString(), 'a file of version 7');
		assert.equal((await ctx.metadata(rkey)).json.viewCount, 1);
		const b = await ctx.burn(rkey2);
		assert.equal(b.status, 200, b.body.toString());
		checkError(assert, await ctx.retrieve(skey2), 410, 'SECRET_BURNED');
		checkError(assert, await ctx.metadata(skey3), 410, 'SECRET_EXPIRED');
	});

	test('new secrets beside them carry their expiry, and the cleanup removes old and new rows alike', async () => {
		const s = await ctx.createOk({ text: 'version 8', ttl: 1800 });
		assert.equal(keyAt(s.secretKey), seconds(s.metadata.expiresAt));
		assert.equal((await ctx.retrieve(skey)).status, 200, 'the old secret\'s second view');
		ctx.sql('UPDATE secrets SET expires_at = 1000');
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '0');
		assert.equal(ctx.sql('SELECT count(*) FROM attachments').trim(), '0');
		checkError(assert, await ctx.metadata(rkey), 404, 'NOT_FOUND');
		checkError(assert, await ctx.metadata(s.receiptKey), 404, 'NOT_FOUND');
	});
});
