// wire.test.mjs: the test vector of docs/API.md ("Secret requests: wire
// format"), computed independently with node:crypto and through the shared
// wire module (www/assets/wire.js) that the page and the CLI use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as wire from '../../www/assets/wire.js';

const doc = readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('**Test vector**'), doc.indexOf('### POST /requests'));

// The value of a row of the vector's table, by its first cell.
function row(name) {
	for (const line of section.split('\n')) {
		const cells = line.split('|').map((c) => c.trim());
		if (cells[1] === name)
			return cells[2].replace(/^`|`$/g, '');
	}
	throw new Error(`no row ${name} in docs/API.md`);
}

const v = {
	rd: row('requester `d`'), rpub: row('requester `publicKey`'), inbox: row('inbox `#key=` (128 bytes, without the check)'),
	checked: row('inbox `#key=` with its check').split('`')[0],
	ed: row('ephemeral `d`'), epub: row('`ephemeralKey`'), z: row('`Z`'), key: row('AES key (IKM: `Z`, then the note key)'),
	iv: row('`text.iv` (base64)'),
	ct: row('`text.ciphertext` (base64) for `correct horse battery staple`'),
	nk: row('note key (`#key=` of the request link)'), niv: row('`note.iv` (base64)'),
	nct: row('`note.ciphertext` (base64) for `the VPN password, please`, additional data the requester\'s point'),
};

test('the vector\'s keys: SHA-256 seeds, uncompressed points, the inbox fragment', () => {
	assert.equal(v.rd, crypto.createHash('sha256').update('burnlink requester').digest('hex'));
	assert.equal(v.ed, crypto.createHash('sha256').update('burnlink ephemeral').digest('hex'));
	const r = crypto.createECDH('prime256v1');
	r.setPrivateKey(Buffer.from(v.rd, 'hex'));
	assert.equal(r.getPublicKey().toString('base64url'), v.rpub);
	assert.equal(v.rpub.length, 87);
	assert.equal(wire.decodePoint(v.rpub)[0], 4);
	assert.equal(Buffer.concat([r.getPrivateKey(), r.getPublicKey().subarray(1),
	    Buffer.from(v.nk, 'base64url')]).toString('base64url'), v.inbox);
	assert.equal(v.inbox.length, 171);
});

// Issue 29, item 10: the inbox link's key value carries a check of all of it,
// so a changed character of the note key is found before the answer is read.
test('the inbox fragment\'s check: SHA-256 of the 128 bytes, first 8; any changed character is refused', async () => {
	const raw = Buffer.from(v.inbox, 'base64url');
	const check = crypto.createHash('sha256').update(raw).digest().subarray(0, 8);
	assert.equal(Buffer.concat([raw, check]).toString('base64url'), v.checked);
	assert.equal(v.checked.length, 182);
	assert.deepEqual(Buffer.from(await wire.inboxCheck(raw)), check);
	assert.ok(await wire.importInboxSecret(v.checked), 'the vector imports');
	const change = (s, i) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
	// Every position: the key pair, the note key (96..127 bytes: characters
	// 128..170) and the check itself.
	for (let i = 0; i < v.checked.length - 1; i++)
		assert.equal(await wire.importInboxSecret(change(v.checked, i)), null, `character ${i} changed`);
	// A link made before the check: its note key cannot be checked, as before.
	assert.ok(await wire.importInboxSecret(change(v.inbox, 150)), 'a 171-character link is accepted');
	// A new request's inbox secret carries the check.
	const keys = await wire.newRequestKeys();
	assert.equal(keys.inboxSecret.length, 182);
	assert.ok(await wire.importInboxSecret(keys.inboxSecret));
	assert.equal(await wire.importInboxSecret(change(keys.inboxSecret, 150)), null);
});

test('node:crypto: ECDH, HKDF-SHA-256 (salt, info) and AES-256-GCM give the documented values', () => {
	const e = crypto.createECDH('prime256v1');
	e.setPrivateKey(Buffer.from(v.ed, 'hex'));
	assert.equal(e.getPublicKey().toString('base64url'), v.epub);
	const rpub = Buffer.from(v.rpub, 'base64url');
	const z = e.computeSecret(rpub);
	assert.equal(z.toString('hex'), v.z);
	const salt = Buffer.concat([e.getPublicKey(), rpub]);
	const ikm = Buffer.concat([z, Buffer.from(v.nk, 'base64url')]);
	const key = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, 'burnlink request answer v1', 32));
	assert.equal(key.toString('hex'), v.key);
	const sealed = wire.nodeSync(crypto).seal(key, 'correct horse battery staple', Buffer.from(v.iv, 'base64'));
	assert.deepEqual(sealed, { ciphertext: v.ct, iv: v.iv });
});

test('wire.js derives the same key from either side and opens the vector\'s answer', async () => {
	const inbox = await wire.importInboxSecret(v.inbox);
	const epub = wire.decodePoint(v.epub);
	assert.equal(Buffer.from(inbox.noteKey).toString('base64url'), v.nk);
	const fromRequester = await wire.answerKey(inbox.privateKey, epub, epub, inbox.publicRaw, inbox.noteKey);
	assert.equal(Buffer.from(fromRequester).toString('hex'), v.key);
	const answer = { ephemeralKey: v.epub, text: { ciphertext: v.ct, iv: v.iv }, files: [] };
	const opened = await wire.openRequestAnswer(v.inbox, answer);
	assert.equal(Buffer.from(opened.text).toString(), 'correct horse battery staple');
	assert.equal(wire.ANSWER_INFO, 'burnlink request answer v1');
});

test('the note: AES-256-GCM under the note key with the requester\'s point as additional data', async () => {
	assert.equal(v.nk, crypto.createHash('sha256').update('burnlink note key').digest('base64url'));
	const c = crypto.createCipheriv('aes-256-gcm', Buffer.from(v.nk, 'base64url'), Buffer.from(v.niv, 'base64'));
	c.setAAD(Buffer.from(v.rpub, 'base64url'));
	const ct = Buffer.concat([c.update('the VPN password, please'), c.final(), c.getAuthTag()]);
	assert.equal(ct.toString('base64'), v.nct);
	const item = { ciphertext: v.nct, iv: v.niv };
	assert.equal(await wire.openNote(v.nk, v.rpub, item), 'the VPN password, please');
	await assert.rejects(wire.openNote(v.nk, v.epub, item), (e) => e.reason === 'key', 'another public key');
	const fresh = await wire.sealNote(v.nk, v.rpub, 'x');
	assert.equal(await wire.openNote(v.nk, v.rpub, fresh), 'x');
});

test('a sealed answer opens only with its inbox key, byte for byte', async () => {
	const a = await wire.newRequestKeys();
	const b = await wire.newRequestKeys();
	const data = crypto.randomBytes(3000);
	const body = await wire.sealAnswer(a.publicKey, a.noteKey, { text: 'pässwörd\u0000x', files: [{ name: 'k.bin', type: '', data }] });
	assert.equal(body.ephemeralKey.length, 87);
	const got = await wire.openRequestAnswer(a.inboxSecret, body);
	assert.equal(Buffer.from(got.text).toString(), 'pässwörd\u0000x');
	assert.equal(got.files[0].name, 'k.bin');
	assert.equal(got.files[0].type, 'application/octet-stream');
	assert.ok(Buffer.from(got.files[0].data).equals(data));
	await assert.rejects(wire.openRequestAnswer(b.inboxSecret, body), (e) => e.reason === 'key');
	const forged = await wire.sealAnswer(a.publicKey, b.noteKey, { text: 'from the server' });
	await assert.rejects(wire.openRequestAnswer(a.inboxSecret, forged), (e) => e.reason === 'key',
		'an answer sealed without the request link\'s note key (by the server) does not open');
	assert.equal(wire.decodePoint('A'.repeat(87)), null);
	assert.equal(await wire.importInboxSecret('x'), null);
});
