// The wire module (www/assets/wire.js) that the page, the CLI and the tests
// share, against published AES-GCM vectors and node:crypto; and its limits
// (www/assets/limits.js), which must be what lib/fields.c's table prints.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { ROOT } from './helpers.mjs';
import * as wire from '../../www/assets/wire.js';

const sync = wire.nodeSync(crypto);
const hex = (s) => Buffer.from(s, 'hex');
const b64 = (b) => Buffer.from(b).toString('base64');

test('www/assets/limits.js is what lib/fields.c prints (make limits)', () => {
	const gen = path.join(ROOT, 'build', 'limits-gen');
	assert.ok(fs.existsSync(gen), 'build/limits-gen is missing: run make');
	const want = execFileSync(gen, { encoding: 'utf8' });
	const have = fs.readFileSync(path.join(ROOT, 'www', 'assets', 'limits.js'), 'utf8');
	assert.equal(have, want, 'www/assets/limits.js is stale: run make limits and commit it');
	assert.deepEqual([wire.LIMITS.ttl.min, wire.LIMITS.ttl.max, wire.LIMITS.ttl.default], [1800, 7776000, 86400]);
	assert.deepEqual([wire.LIMITS.maxViews.min, wire.LIMITS.maxViews.max, wire.LIMITS.maxViews.null], [1, 999, 'unlimited']);
	assert.equal(wire.LIMITS.content.max, 2 * 1024 * 1024);
	assert.equal(wire.LIMITS.body.max, 4 * 1024 * 1024);
	assert.equal(wire.LIMITS.files.max, 20);
	assert.deepEqual([wire.LIMITS.passphrase.min, wire.LIMITS.passphrase.max], [4, 256]);
});

// McGrew and Viega, "The Galois/Counter Mode of Operation", test cases 13 and
// 14: AES-256, a zero key and a zero 96-bit IV.
const ZERO_KEY = new Uint8Array(32);
const ZERO_IV = new Uint8Array(12);
const CASE13 = { plain: new Uint8Array(0), sealed: hex('530f8afbc74536b9a963b4f1c4cb738b') };
const CASE14 = {
	plain: new Uint8Array(16),
	sealed: hex('cea7403d4d606b6e074ec5d3baf39d18' + 'd0d1c8a799996bf0265b98b5d48ab919'),
};

test('open() and the synchronous seal() match the published AES-256-GCM vectors', async () => {
	for (const c of [CASE13, CASE14]) {
		const item = { ciphertext: b64(c.sealed), iv: b64(ZERO_IV) };
		assert.deepEqual(await wire.open(ZERO_KEY, item), c.plain);
		assert.deepEqual(sync.open(Buffer.from(ZERO_KEY), item), Buffer.from(c.plain));
		assert.deepEqual(sync.seal(Buffer.from(ZERO_KEY), c.plain, Buffer.from(ZERO_IV)), item);
	}
});

test('seal() makes a fresh 12-byte IV, appends the tag, and node:crypto opens it', async () => {
	const key = wire.newKey();
	const a = await wire.seal(key, 'exact  text\r\n');
	const b = await wire.seal(key, 'exact  text\r\n');
	assert.notEqual(a.iv, b.iv);
	assert.equal(Buffer.from(a.iv, 'base64').length, 12);
	assert.equal(Buffer.from(a.ciphertext, 'base64').length, 13 + 16);
	const iv = Buffer.from(a.iv, 'base64'), ct = Buffer.from(a.ciphertext, 'base64');
	const d = crypto.createDecipheriv('aes-256-gcm', key, iv);
	d.setAuthTag(ct.subarray(ct.length - 16));
	assert.equal(Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]).toString(), 'exact  text\r\n');
	await assert.rejects(wire.open(wire.newKey(), a, 'text'), (e) => e instanceof wire.WireError && e.reason === 'key' && e.what === 'text');
	const altered = { ...a, ciphertext: b64(Buffer.from(ct.map((x, i) => (i === 0 ? x ^ 1 : x)))) };
	await assert.rejects(wire.open(key, altered), (e) => e.reason === 'key');
});

test('base64 is strict and canonical; a 2 MiB item round-trips', async () => {
	for (const s of ['', 'YQ==', 'YWI=', 'YWJj', '+/+/'])
		assert.ok(wire.isCanonicalB64(s), s);
	for (const s of ['YR==', 'YWJ=', 'YQ=', 'YQ', 'YQ==\n', ' YQ==', 'Y Q==', '-_-_', 'YQ=a', '=YQ=', 'YWJj====', null, 5])
		assert.ok(!wire.isCanonicalB64(s), String(s));
	assert.throws(() => wire.b64decode('YR=='), (e) => e.reason === 'malformed');
	await assert.rejects(wire.open(ZERO_KEY, { ciphertext: 'AAAA', iv: b64(ZERO_IV) }), (e) => e.reason === 'malformed');
	await assert.rejects(wire.open(ZERO_KEY, { ciphertext: b64(CASE13.sealed), iv: b64(new Uint8Array(16)) }), (e) => e.reason === 'malformed');
	await assert.rejects(wire.open(ZERO_KEY, { ciphertext: b64(CASE13.sealed), iv: 'AAAAAAAAAAAAAAB=' }), (e) => e.part === 'iv');
	await assert.rejects(wire.open(ZERO_KEY, 'text'), (e) => e.reason === 'malformed');
	const big = crypto.randomBytes(wire.LIMITS.content.max);
	assert.equal(wire.b64encode(big), big.toString('base64'));
	assert.deepEqual(Buffer.from(wire.b64decode(big.toString('base64'))), big);
	const key = wire.newKey();
	const item = await wire.seal(key, big);
	assert.ok(Buffer.from(await wire.open(key, item)).equals(big));
});

test('the link key: 43 url-safe characters, decoded as docs/API.md says', () => {
	const raw = wire.newKey();
	const k = wire.encodeKey(raw);
	assert.match(k, /^[A-Za-z0-9_-]{43}$/);
	assert.equal(k, Buffer.from(raw).toString('base64url'));
	assert.deepEqual(wire.decodeKey(k), raw);
	assert.deepEqual(wire.decodeKey(k + '='), raw);
	assert.deepEqual(wire.decodeKey(k.replace(/-/g, '+').replace(/_/g, '/')), raw);
	for (const bad of [k.slice(0, 42), k + 'A', k.slice(0, 42) + '!', '', null, k + '=='])
		assert.equal(wire.decodeKey(bad), null, String(bad));
});

test('sealCreate and openAnswer: text and files, names and types sealed too', async () => {
	const key = wire.newKey();
	const bytes = crypto.randomBytes(3000);
	const read = new Uint8Array([1, 2, 3]);
	const seen = [];
	const body = await wire.sealCreate(key, {
		text: 'with files',
		files: [
			{ name: 'plan.txt', type: 'text/plain', data: bytes },
			{ name: 'read later', type: '', data: async () => read },
		],
	}, { onFile: (i) => seen.push(i) });
	assert.deepEqual(Object.keys(body), ['text', 'files', 'keyCommitment']);
	assert.equal(body.keyCommitment, await wire.keyCommitment(key));
	assert.deepEqual(seen, [0, 1]);
	assert.deepEqual([...read], [0, 0, 0], 'bytes the module read are wiped once sealed');
	for (const f of body.files)
		for (const m of ['filename', 'mimeType', 'data'])
			assert.ok(wire.isCanonicalB64(f[m].ciphertext) && wire.isCanonicalB64(f[m].iv), m);
	const out = await wire.openAnswer(key, { success: true, ...body, viewsRemaining: 0 });
	assert.equal(new TextDecoder().decode(out.text), 'with files');
	assert.deepEqual(out.files.map((f) => [f.name, f.type]), [['plan.txt', 'text/plain'], ['read later', 'application/octet-stream']]);
	assert.ok(Buffer.from(out.files[0].data).equals(bytes));
	assert.deepEqual([...out.files[1].data], [1, 2, 3]);
	assert.equal(out.viewsRemaining, 0);
	// Plain names as stored, no text, and an empty text left out.
	const plain = await wire.openAnswer(key, { text: null, files: [{ filename: 'a', mimeType: null, data: body.files[0].data }] });
	assert.deepEqual([plain.text, plain.files[0].name, plain.files[0].type], [null, 'a', '']);
	assert.deepEqual(await wire.sealCreate(key, { text: '' }), { keyCommitment: await wire.keyCommitment(key) });
	assert.equal('keyCommitment' in await wire.sealCreate(await wire.importKey(key), { text: 'a' }), false,
		'a CryptoKey gives no commitment');
	await assert.rejects(wire.openAnswer(wire.newKey(), body), (e) => e.reason === 'key' && e.what === 'text');
});

test('keyCommitment: the test vector of docs/API.md, and checkKey before a view is spent', async () => {
	const key = new Uint8Array([...Array(32).keys()]);
	assert.equal(wire.encodeKey(key), 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8');
	const vector = 'U2ltQrtdtVOzNsbXLlogN-nGhN7QuzMK-1ncF5iur8c';
	assert.equal(await wire.keyCommitment(key), vector);
	assert.equal(wire.nodeSync(crypto).keyCommitment(Buffer.from(key)), vector, 'the synchronous one agrees');
	assert.equal(vector.length, wire.COMMITMENT_LENGTH);
	assert.equal(wire.LIMITS.keyCommitment.max, wire.COMMITMENT_LENGTH);
	assert.equal(await wire.checkKey(key, vector), 'match');
	// A link key changed into other valid characters: another key, refused
	// (a change of the last character's two unused bits only is the same key).
	assert.equal(await wire.checkKey(wire.decodeKey('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9'), vector), 'match');
	const changed = wire.decodeKey('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8'.replace('Q', 'R'));
	assert.notEqual(changed, null);
	assert.equal(await wire.checkKey(changed, vector), 'mismatch');
	assert.equal(await wire.checkKey(key, null), 'unchecked', 'a secret stored without one');
	assert.equal(await wire.checkKey(key, undefined), 'unchecked');
	assert.equal(await wire.checkKey(key, 42), 'mismatch');
});
