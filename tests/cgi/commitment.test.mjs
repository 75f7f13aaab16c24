// The key commitment (docs/API.md "Key commitment"): stored with each secret,
// sent by the client in client-side mode and made by the server in
// server-side mode, returned with the secret's metadata (null for a secret
// stored without one) so that a client refuses a wrong key before it spends
// a view; a database of schema version 3 gains the column in place.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newContext, checkError, encryptItem, decryptItem, keyCommitment, sha256hex } from '../lib/cgi.mjs';
import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';

const ctx = newContext();

// docs/API.md's test vector: the key 00 01 02 .. 1f.
const VECTOR_KEY = Buffer.from([...Array(32).keys()]);
const VECTOR = 'U2ltQrtdtVOzNsbXLlogN-nGhN7QuzMK-1ncF5iur8c';

// A key that differs from key in one valid character of its link form, as a
// link changed in transit: 43 url-safe base64 characters that still decode to 32 bytes.
function alteredKey(key) {
	const s = key.toString('base64url');
	const i = 10;
	const c = s[i] === 'A' ? 'B' : 'A';
	return Buffer.from(s.slice(0, i) + c + s.slice(i + 1), 'base64url');
}

describe('the commitment', () => {
	test('matches the test vector of docs/API.md', () => {
		assert.equal(keyCommitment(VECTOR_KEY), VECTOR);
		assert.equal(crypto.createHmac('sha256', VECTOR_KEY).update('burnlink key commitment v1').digest('base64url'), VECTOR);
	});

	test('server-side mode: the server makes it from the key in secretUrl', async () => {
		const s = await ctx.createOk({ text: 'server made' });
		const m = await ctx.metadata(s.secretKey);
		assert.equal(m.status, 200);
		assert.equal(m.json.keyCommitment, keyCommitment(s.key));
		assert.match(m.json.keyCommitment, /^[A-Za-z0-9_-]{43}$/);
		assert.notEqual(keyCommitment(alteredKey(s.key)), m.json.keyCommitment,
			'a changed key is told apart before the view is spent');
		// The metadata spent nothing: the one view is still there and opens with the key.
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(r.status, 200);
		assert.equal(decryptItem(r.json.text, s.key).toString(), 'server made');
	});

	test('client-side mode: stored as sent and returned with the metadata', async () => {
		const key = crypto.randomBytes(32);
		const s = await ctx.createOk({ text: encryptItem('client made', key), keyCommitment: keyCommitment(key) });
		const m = await ctx.metadata(s.secretKey);
		assert.equal(m.json.keyCommitment, keyCommitment(key));
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(decryptItem(r.json.text, key).toString(), 'client made');
	});

	test('client-side mode without one (or null): the metadata says null, retrieval works', async () => {
		for (const body of [{}, { keyCommitment: null }]) {
			const key = crypto.randomBytes(32);
			const s = await ctx.createOk({ text: encryptItem('none', key), ...body });
			const m = await ctx.metadata(s.secretKey);
			assert.equal(m.status, 200);
			assert.equal(m.json.keyCommitment, null);
			assert.equal(decryptItem((await ctx.retrieve(s.secretKey)).json.text, key).toString(), 'none');
		}
	});

	test('the receipt does not carry it', async () => {
		const s = await ctx.createOk({ text: 'receipt' });
		const m = await ctx.metadata(s.receiptKey);
		assert.equal(m.status, 200);
		assert.equal('keyCommitment' in m.json, false);
	});
});

describe('validation', () => {
	const key = crypto.randomBytes(32);
	const good = keyCommitment(key);
	const last = good[42];
	const cases = {
		'42 characters': good.slice(0, 42),
		'44 characters': good + 'A',
		'standard base64 alphabet': '+' + good.slice(1),
		'padding': good.slice(0, 42) + '=',
		'a character outside base64': '!' + good.slice(1),
		'stray bits in the last character': good.slice(0, 42) + (last === 'B' ? 'C' : 'B'),
		'a number': 12345,
		'an object': { commitment: good },
		'an empty string': '',
	};
	for (const [name, value] of Object.entries(cases)) {
		test(`${name} is 400 INVALID_KEY_COMMITMENT, nothing stored`, async () => {
			const before = ctx.sql('SELECT count(*) FROM secrets').trim();
			const res = await ctx.create({ text: encryptItem('x', key), keyCommitment: value });
			const j = checkError(assert, res, 400, 'INVALID_KEY_COMMITMENT');
			assert.match(j.hint, /43 url-safe base64 characters/);
			assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), before);
		});
	}

	test('server-side mode with a keyCommitment is 400 INVALID_KEY_COMMITMENT (the server makes the key)', async () => {
		const res = await ctx.create({ text: 'plain', keyCommitment: good });
		const j = checkError(assert, res, 400, 'INVALID_KEY_COMMITMENT');
		assert.match(j.hint, /client-side mode only/);
	});
});

describe('secrets stored before key commitments', () => {
	test('a row without one answers keyCommitment null and is retrieved as before', async () => {
		const s = await ctx.createOk({ text: 'older' });
		ctx.sql(`UPDATE secrets SET key_commit = NULL WHERE secret_hash = x'${sha256hex(s.secretKey)}'`);
		const m = await ctx.metadata(s.secretKey);
		assert.equal(m.status, 200);
		assert.equal(m.json.keyCommitment, null);
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(r.status, 200);
		assert.equal(decryptItem(r.json.text, s.key).toString(), 'older');
	});

	test('a schema-version-3 database gains the column in place; its secrets keep working', async () => {
		const old = newContext();
		try {
			// Version 3: schema.sql as it was, without the key_commit column.
			const v3 = oldSchema('sqlite', 3);
			assert.ok(!/key_commit/.test(v3.replace(/^--.*$/gm, '')), 'the version-3 schema has no key_commit');
			const key = crypto.randomBytes(32);
			const item = encryptItem('from version 3', key);
			const skey = crypto.randomBytes(16).toString('base64url');
			const rkey = crypto.randomBytes(16).toString('base64url');
			old.sql(`PRAGMA journal_mode=WAL; ${v3}
				INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, max_views, text_ct, text_iv) VALUES
					(x'${sha256hex(skey)}', x'${sha256hex(rkey)}', ${Date.now()}, ${Date.now() + 3600e3}, 1,
					 x'${Buffer.from(item.ciphertext, 'base64').toString('hex')}', x'${Buffer.from(item.iv, 'base64').toString('hex')}');`);
			assert.equal(old.sql('PRAGMA user_version').trim(), '3');
			const m = await old.metadata(skey);
			assert.equal(m.status, 200, m.body.toString());
			assert.equal(m.json.keyCommitment, null);
			assert.equal(old.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
			assert.match(old.sql("SELECT name FROM pragma_table_info('secrets')"), /key_commit/);
			const r = await old.retrieve(skey);
			assert.equal(r.status, 200);
			assert.equal(decryptItem(r.json.text, key).toString(), 'from version 3');
			// New secrets on the upgraded database carry one.
			const s = await old.createOk({ text: 'new' });
			assert.equal((await old.metadata(s.secretKey)).json.keyCommitment, keyCommitment(s.key));
		} finally {
			old.remove();
		}
	});
});
