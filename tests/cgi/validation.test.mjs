// validation.test.mjs: the create validators at and around their bounds:
// ttl, maxViews, passphrase length (code points), file count, canonical base64
// and IV length.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newContext, checkError, encryptItem, newKey } from '../lib/cgi.mjs';

const ctx = newContext();

async function accepted(body) {
	const res = await ctx.create(body);
	assert.equal(res.status, 200, `expected 200 for ${JSON.stringify(body).slice(0, 200)}: ${res.body.toString()}`);
	return res.json;
}

async function rejected(body, code) {
	return checkError(assert, await ctx.create(body), 400, code);
}

// A body with a number written exactly as given (JSON.stringify would turn 3600.0 into 3600).
function rawBody(field, literal) {
	return `{"text":"bounds","${field}":${literal}}`;
}

describe('ttl', () => {
	test('ttl 1799 is rejected', () => rejected({ text: 'a', ttl: 1799 }, 'INVALID_TTL'));
	test('ttl 1800 is accepted and sets expiresAt 1800 s ahead', async () => {
		const t0 = Date.now();
		const j = await accepted({ text: 'a', ttl: 1800 });
		const exp = Date.parse(j.metadata.expiresAt);
		assert.ok(exp >= t0 + 1800e3 - 1000 && exp <= Date.now() + 1800e3 + 1000, j.metadata.expiresAt);
	});
	test('ttl 7776000 is accepted', async () => {
		const t0 = Date.now();
		const j = await accepted({ text: 'a', ttl: 7776000 });
		const exp = Date.parse(j.metadata.expiresAt);
		assert.ok(exp >= t0 + 7776000e3 - 1000 && exp <= Date.now() + 7776000e3 + 1000);
	});
	test('ttl 7776001 is rejected', () => rejected({ text: 'a', ttl: 7776001 }, 'INVALID_TTL'));
	test('ttl as the string "3600" is rejected', () => rejected({ text: 'a', ttl: '3600' }, 'INVALID_TTL'));
	test('ttl 3600.5 is rejected', () => rejected({ text: 'a', ttl: 3600.5 }, 'INVALID_TTL'));
	test('ttl written as 3600.0 is accepted (an integral number)', async () => {
		const res = await ctx.create(rawBody('ttl', '3600.0'));
		assert.equal(res.status, 200, res.body.toString());
	});
	test('ttl written as 3.6e3 is accepted', async () => {
		const res = await ctx.create(rawBody('ttl', '3.6e3'));
		assert.equal(res.status, 200, res.body.toString());
	});
	test('ttl -3600 is rejected', () => rejected({ text: 'a', ttl: -3600 }, 'INVALID_TTL'));
	test('ttl 1e300 is rejected', async () => {
		checkError(assert, await ctx.create(rawBody('ttl', '1e300')), 400, 'INVALID_TTL');
	});
	test('ttl beyond 64 bits is rejected', async () => {
		checkError(assert, await ctx.create(rawBody('ttl', '99999999999999999999999')), 400, 'INVALID_TTL');
	});
	test('ttl true is rejected', () => rejected({ text: 'a', ttl: true }, 'INVALID_TTL'));
	test('the default ttl is 86400 s', async () => {
		const t0 = Date.now();
		const j = await accepted({ text: 'a' });
		const exp = Date.parse(j.metadata.expiresAt);
		assert.ok(exp >= t0 + 86400e3 - 1000 && exp <= Date.now() + 86400e3 + 1000);
	});
	test('expiresAt is ISO 8601 UTC with milliseconds', async () => {
		const j = await accepted({ text: 'a' });
		assert.match(j.metadata.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	});
});

describe('maxViews', () => {
	test('maxViews 0 is rejected', () => rejected({ text: 'a', maxViews: 0 }, 'INVALID_MAX_VIEWS'));
	test('maxViews 1 is accepted', async () => {
		assert.equal((await accepted({ text: 'a', maxViews: 1 })).metadata.maxViews, 1);
	});
	test('maxViews 999 is accepted', async () => {
		assert.equal((await accepted({ text: 'a', maxViews: 999 })).metadata.maxViews, 999);
	});
	test('maxViews 1000 is rejected', () => rejected({ text: 'a', maxViews: 1000 }, 'INVALID_MAX_VIEWS'));
	test('maxViews null is accepted as unlimited', async () => {
		assert.equal((await accepted({ text: 'a', maxViews: null })).metadata.maxViews, null);
	});
	test('maxViews 1.5 is rejected', () => rejected({ text: 'a', maxViews: 1.5 }, 'INVALID_MAX_VIEWS'));
	test('maxViews as the string "5" is rejected', () => rejected({ text: 'a', maxViews: '5' }, 'INVALID_MAX_VIEWS'));
	test('maxViews -1 is rejected', () => rejected({ text: 'a', maxViews: -1 }, 'INVALID_MAX_VIEWS'));
	test('maxViews written as 5.0 is accepted', async () => {
		const res = await ctx.create(rawBody('maxViews', '5.0'));
		assert.equal(res.status, 200, res.body.toString());
		assert.equal(res.json.metadata.maxViews, 5);
	});
	test('the default maxViews is 1', async () => {
		assert.equal((await accepted({ text: 'a' })).metadata.maxViews, 1);
	});
});

describe('passphrase length in code points', () => {
	test('3 ASCII characters are rejected', () => rejected({ text: 'a', passphrase: 'abc' }, 'INVALID_PASSPHRASE_FORMAT'));
	test('3 two-byte characters (6 bytes) are rejected', () => rejected({ text: 'a', passphrase: 'ééé' }, 'INVALID_PASSPHRASE_FORMAT'));
	test('4 four-byte characters (16 bytes) are accepted', async () => {
		assert.equal((await accepted({ text: 'a', passphrase: '😀😀😀😀' })).metadata.hasPassphrase, true);
	});
	test('256 two-byte characters (512 bytes) are accepted', async () => {
		await accepted({ text: 'a', passphrase: 'é'.repeat(256) });
	});
	test('257 ASCII characters are rejected', () => rejected({ text: 'a', passphrase: 'a'.repeat(257) }, 'INVALID_PASSPHRASE_FORMAT'));
	test('257 four-byte characters are rejected', () => rejected({ text: 'a', passphrase: '😀'.repeat(257) }, 'INVALID_PASSPHRASE_FORMAT'));
	test('an empty passphrase is rejected', () => rejected({ text: 'a', passphrase: '' }, 'INVALID_PASSPHRASE_FORMAT'));
	test('a passphrase with a NUL is rejected', () => rejected({ text: 'a', passphrase: 'ab\u0000cd' }, 'INVALID_PASSPHRASE_FORMAT'));
	test('a null passphrase means none', async () => {
		assert.equal((await accepted({ text: 'a', passphrase: null })).metadata.hasPassphrase, false);
	});
});

describe('deletable', () => {
	test('deletable defaults to true', async () => {
		assert.equal((await accepted({ text: 'a' })).metadata.deletable, true);
	});
	test('deletable false is accepted', async () => {
		assert.equal((await accepted({ text: 'a', deletable: false })).metadata.deletable, false);
	});
});

describe('file count', () => {
	const file = (i) => ({ filename: `f${i}.txt`, mimeType: 'text/plain', data: `data:text/plain;base64,${Buffer.from(`file ${i}`).toString('base64')}` });
	test('20 files are accepted', async () => {
		await accepted({ text: 'a', files: Array.from({ length: 20 }, (_, i) => file(i)) });
	});
	test('21 files are rejected', () => rejected({ text: 'a', files: Array.from({ length: 21 }, (_, i) => file(i)) }, 'INVALID_FILES'));
	test('20 client-side files are accepted', async () => {
		const k = newKey();
		const files = Array.from({ length: 20 }, (_, i) => ({ filename: encryptItem(`f${i}`, k), mimeType: encryptItem('text/plain', k), data: encryptItem(`file ${i}`, k) }));
		await accepted({ text: encryptItem('a', k), files });
	});
	test('21 client-side files are rejected', async () => {
		const k = newKey();
		const files = Array.from({ length: 21 }, (_, i) => ({ filename: `f${i}`, data: encryptItem(`file ${i}`, k) }));
		await rejected({ text: encryptItem('a', k), files }, 'INVALID_FILES');
	});
	test('files alone, without text, are accepted', async () => {
		await accepted({ files: [file(1)] });
	});
	test('an empty text with a file is accepted', async () => {
		await accepted({ text: '', files: [file(1)] });
	});
	test('a filename of 256 bytes is rejected', () => rejected({ text: 'a', files: [{ ...file(1), filename: 'x'.repeat(256) }] }, 'INVALID_FILES'));
	test('an empty filename is rejected', () => rejected({ text: 'a', files: [{ ...file(1), filename: '' }] }, 'INVALID_FILES'));
});

// A canonical base64 string whose last data character has unused low bits, and
// the same string with those bits set (decoders accept it, the server must not).
const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function nonCanonical(b64) {
	const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
	assert.ok(pad > 0, 'needs a padded string');
	const i = b64.length - pad - 1;
	const v = ALPHA.indexOf(b64[i]);
	return b64.slice(0, i) + ALPHA[v | 1] + b64.slice(i + 1);
}

describe('canonical base64', () => {
	test('"QR==" is not canonical, "QQ==" is (the same byte)', () => {
		// Sanity check of the premise: Node decodes both to "A".
		assert.deepEqual(Buffer.from('QR==', 'base64'), Buffer.from('QQ==', 'base64'));
		assert.equal(nonCanonical('QQ=='), 'QR==');
	});
	test('a canonical ciphertext (one padding pair) is accepted', async () => {
		const k = newKey();
		const item = encryptItem('abc', k);	// 19 bytes: ends in "=="
		assert.ok(item.ciphertext.endsWith('=='));
		await accepted({ text: item });
	});
	test('the same ciphertext with stray low bits ("...R==" for "...Q==") is rejected', async () => {
		const k = newKey();
		const item = encryptItem('abc', k);
		await rejected({ text: { ...item, ciphertext: nonCanonical(item.ciphertext) } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext with one "=" and stray low bits is rejected', async () => {
		const item = encryptItem('a', newKey());	// 17 bytes: ends in one "="
		assert.ok(item.ciphertext.endsWith('=') && !item.ciphertext.endsWith('=='));
		await rejected({ text: { ...item, ciphertext: nonCanonical(item.ciphertext) } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext without its padding is rejected', async () => {
		const item = encryptItem('a', newKey());
		await rejected({ text: { ...item, ciphertext: item.ciphertext.replace(/=+$/, '') } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext in url-safe base64 is rejected', async () => {
		// Find a ciphertext that contains + or /, then write it url-safe.
		let item;
		do item = encryptItem(crypto.randomBytes(30), newKey()); while (!/[+/]/.test(item.ciphertext));
		await rejected({ text: { ...item, ciphertext: item.ciphertext.replace(/\+/g, '-').replace(/\//g, '_') } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext with a line break is rejected', async () => {
		const item = encryptItem(crypto.randomBytes(60), newKey());
		await rejected({ text: { ...item, ciphertext: item.ciphertext.slice(0, 8) + '\n' + item.ciphertext.slice(8) } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext shorter than the 16-byte tag is rejected', async () => {
		await rejected({ text: { ciphertext: Buffer.alloc(15, 1).toString('base64'), iv: Buffer.alloc(12).toString('base64') } }, 'INVALID_CIPHERTEXT');
	});
	test('a ciphertext of exactly the tag (empty plaintext) alone is no content', async () => {
		await rejected({ text: encryptItem('', newKey()) }, 'INVALID_CONTENT');
	});
	test('a non-canonical file ciphertext is rejected', async () => {
		const k = newKey();
		const data = encryptItem('a', k);
		await rejected({ files: [{ filename: 'f', data: { ...data, ciphertext: nonCanonical(data.ciphertext) } }] }, 'INVALID_CIPHERTEXT');
	});
	test('a non-canonical data URL payload is rejected', async () => {
		await rejected({ text: 'a', files: [{ filename: 'f', data: 'data:text/plain;base64,QR==' }] }, 'INVALID_FILES');
	});
	test('a canonical data URL payload is accepted', async () => {
		await accepted({ text: 'a', files: [{ filename: 'f', data: 'data:text/plain;base64,QQ==' }] });
	});
});

describe('iv length', () => {
	const iv = (n) => crypto.randomBytes(n).toString('base64');
	test('an iv of 11 bytes is rejected', async () => {
		await rejected({ text: { ...encryptItem('a', newKey()), iv: iv(11) } }, 'INVALID_IV');
	});
	test('an iv of 12 bytes is accepted', async () => {
		await accepted({ text: { ...encryptItem('a', newKey()), iv: iv(12) } });
	});
	test('an iv of 13 bytes is rejected', async () => {
		await rejected({ text: { ...encryptItem('a', newKey()), iv: iv(13) } }, 'INVALID_IV');
	});
	test('an iv that is a number is rejected', async () => {
		await rejected({ text: { ...encryptItem('a', newKey()), iv: 12 } }, 'INVALID_IV');
	});
	test('an iv in url-safe base64 is rejected', async () => {
		let v;
		do v = iv(12); while (!/[+/]/.test(v));
		await rejected({ text: { ...encryptItem('a', newKey()), iv: v.replace(/\+/g, '-').replace(/\//g, '_') } }, 'INVALID_IV');
	});
	test('a file iv of 13 bytes is rejected', async () => {
		const k = newKey();
		await rejected({ text: encryptItem('a', k), files: [{ filename: 'f', data: { ...encryptItem('x', k), iv: iv(13) } }] }, 'INVALID_IV');
	});
	test('an encrypted filename with an 11-byte iv is rejected', async () => {
		const k = newKey();
		await rejected({ text: encryptItem('a', k), files: [{ filename: { ...encryptItem('f', k), iv: iv(11) }, data: encryptItem('x', k) }] }, 'INVALID_IV');
	});
});
