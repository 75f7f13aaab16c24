// content.test.mjs: what goes in comes out: exact text in both modes, files
// byte for byte in both modes, and the 2 MiB plaintext limit counted over text
// and files together.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newContext, checkError, encryptItem, decryptItem, newKey, b64urlEncode, sample } from '../lib/cgi.mjs';

const ctx = newContext();
const LIMIT = 2097152;

const TEXTS = [
	['leading and trailing spaces', '   spaced out   '],
	['tabs', '\tone\ttwo\t\tthree\t'],
	['CRLF line ends', 'line 1\r\nline 2\r\n'],
	['a lone CR', 'a\rb'],
	['leading newlines', '\n\n\nafter three newlines'],
	['trailing newlines', 'before three newlines\n\n\n'],
	['only whitespace', ' \t\r\n '],
	['emoji with ZWJ sequences and flags', '🔥 secret 😀 👩‍👩‍👧‍👦 🇫🇷 🏳️‍🌈'],
	['combining characters (not normalised)', 'e\u0301 vs \u00e9, A\u030a vs \u00c5'],
	['line and paragraph separators', 'a\u2028b\u2029c'],
	['JSON specials', '"quoted" \\back\\slash/ </script> {"a":[1]}'],
	['control characters', '\u0001\u0007\u001b[31mred\u001b[0m\u007f'],
	['NUL characters', 'a\u0000b\u0000'],
	['a BOM and non-characters', '\ufeffbom \ufffe\uffff'],
	['astral plane characters', '𝕳𝖊𝖑𝖑𝖔 𐍈 𠜎'],
	['a single character', 'x'],
];

describe('server-side text fidelity', () => {
	for (const [name, text] of sample(TEXTS)) {
		test(`${name} comes back exactly`, async () => {
			const s = await ctx.createOk({ text });
			assert.ok(s.key && s.key.length === 32, 'the secretUrl carries a 32-byte key');
			const res = await ctx.retrieve(s.secretKey);
			assert.equal(res.status, 200, res.body.toString());
			const plain = decryptItem(res.json.text, s.key);
			assert.deepEqual(plain, Buffer.from(text, 'utf8'));
		});
	}
	test('JSON escapes (a surrogate pair, \\u00e9, \\t) decode to the same UTF-8 as raw characters', async () => {
		const s = await ctx.createOk('{"text":"\\ud83d\\ude00 caf\\u00e9\\t\\r\\n\\/"}');
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(decryptItem(res.json.text, s.key).toString('utf8'), '😀 café\t\r\n/');
	});
	test('the legacy secret field is stored like text', async () => {
		const text = ' legacy\r\n\ttext 🔐 ';
		const s = await ctx.createOk({ secret: text });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200);
		assert.equal(decryptItem(res.json.text, s.key).toString('utf8'), text);
	});
	test('text and the legacy secret together are 400 INVALID_TEXT', async () => {
		checkError(assert, await ctx.create({ text: 'a', secret: 'a' }), 400, 'INVALID_TEXT');
	});
	test('the ciphertext decrypts only with the fragment key', async () => {
		const s = await ctx.createOk({ text: 'only mine' });
		const res = await ctx.retrieve(s.secretKey);
		assert.throws(() => decryptItem(res.json.text, newKey()));
	});
	test('text is not returned as plaintext in the retrieve response', async () => {
		const marker = 'PLAINTEXT-MARKER-' + crypto.randomBytes(8).toString('hex');
		const s = await ctx.createOk({ text: marker });
		const res = await ctx.retrieve(s.secretKey);
		assert.ok(!res.body.toString().includes(marker));
	});
});

describe('client-side text fidelity', () => {
	for (const [name, text] of sample(TEXTS)) {
		test(`${name} comes back exactly`, async () => {
			const key = newKey();
			const item = encryptItem(text, key);
			const s = await ctx.createOk({ text: item });
			assert.equal(s.key, null, 'a client-side secretUrl has no fragment');
			const res = await ctx.retrieve(s.secretKey);
			assert.equal(res.status, 200, res.body.toString());
			assert.deepEqual(res.json.text, item, 'the stored ciphertext and iv come back unchanged');
			assert.equal(decryptItem(res.json.text, key).toString('utf8'), text);
		});
	}
	test('mixed modes are 400 INVALID_ENCRYPTION_MODE', async () => {
		const key = newKey();
		checkError(assert, await ctx.create({ text: encryptItem('a', key), files: [{ filename: 'f', data: 'data:text/plain;base64,YQ==' }] }), 400, 'INVALID_ENCRYPTION_MODE');
	});
	test('a legacy secret with a client-side file is 400 INVALID_ENCRYPTION_MODE', async () => {
		checkError(assert, await ctx.create({ secret: 'a', files: [{ filename: 'f', data: encryptItem('x', newKey()) }] }), 400, 'INVALID_ENCRYPTION_MODE');
	});
});

function dataUrl(mime, bytes) {
	return `data:${mime};base64,${Buffer.from(bytes).toString('base64')}`;
}

describe('server-side files', () => {
	test('data, filename and mimeType come back encrypted, each with its own IV, and decrypt exactly', async () => {
		const bytes = Buffer.concat([crypto.randomBytes(64), Buffer.from([0, 0xff, 0x0d, 0x0a, 0])]);
		const filename = 'résumé 📄 "final" (2).pdf';
		const mimeType = 'application/pdf';
		const s = await ctx.createOk({ text: 'see attachment', files: [{ filename, mimeType, data: dataUrl(mimeType, bytes) }] });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.equal(res.json.files.length, 1);
		const f = res.json.files[0];
		for (const part of ['filename', 'mimeType', 'data'])
			assert.deepEqual(Object.keys(f[part]).sort(), ['ciphertext', 'iv'], `${part} is {ciphertext, iv}`);
		assert.equal(decryptItem(f.filename, s.key).toString('utf8'), filename);
		assert.equal(decryptItem(f.mimeType, s.key).toString('utf8'), mimeType);
		assert.deepEqual(decryptItem(f.data, s.key), bytes);
		const ivs = new Set([res.json.text.iv, f.filename.iv, f.mimeType.iv, f.data.iv]);
		assert.equal(ivs.size, 4, 'every item has its own IV');
		assert.ok(!res.body.toString().includes('résumé'), 'the filename is not returned in clear');
	});
	test('several files keep their order', async () => {
		const files = Array.from({ length: 5 }, (_, i) => ({ filename: `f${i}.bin`, mimeType: 'application/octet-stream', bytes: crypto.randomBytes(10 + i) }));
		const s = await ctx.createOk({ files: files.map((f) => ({ filename: f.filename, mimeType: f.mimeType, data: dataUrl(f.mimeType, f.bytes) })) });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200);
		assert.equal(res.json.text, null, 'no text was sent');
		res.json.files.forEach((f, i) => {
			assert.equal(decryptItem(f.filename, s.key).toString(), files[i].filename);
			assert.deepEqual(decryptItem(f.data, s.key), files[i].bytes);
		});
	});
	test('a missing mimeType defaults to application/octet-stream', async () => {
		const s = await ctx.createOk({ text: 't', files: [{ filename: 'x', data: dataUrl('text/plain', 'abc') }] });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(decryptItem(res.json.files[0].mimeType, s.key).toString(), 'application/octet-stream');
	});
	test('an empty file is kept', async () => {
		const s = await ctx.createOk({ text: 't', files: [{ filename: 'empty.txt', mimeType: 'text/plain', data: 'data:text/plain;base64,' }] });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200);
		assert.equal(decryptItem(res.json.files[0].data, s.key).length, 0);
	});
});

describe('client-side files', () => {
	test('encrypted data, filename and mimeType round trip unchanged', async () => {
		const key = newKey();
		const bytes = crypto.randomBytes(1000);
		const file = { filename: encryptItem('secret plan.txt', key), mimeType: encryptItem('text/plain', key), data: encryptItem(bytes, key) };
		const text = encryptItem('with a file', key);
		const s = await ctx.createOk({ text, files: [file] });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.deepEqual(res.json.files[0], file);
		assert.deepEqual(decryptItem(res.json.files[0].data, key), bytes);
		assert.equal(decryptItem(res.json.files[0].filename, key).toString(), 'secret plan.txt');
	});
	test('a plain filename and mimeType come back as strings', async () => {
		const key = newKey();
		const file = { filename: 'plain name.txt', mimeType: 'text/plain', data: encryptItem('x', key) };
		const s = await ctx.createOk({ files: [file] });
		const res = await ctx.retrieve(s.secretKey);
		assert.deepEqual(res.json.files[0], file);
	});
});

// A ciphertext item that stands for n bytes of plaintext (the server cannot
// check the tag, so random bytes of n + 16 do).
function fakeItem(n) {
	return { ciphertext: crypto.randomBytes(n + 16).toString('base64'), iv: crypto.randomBytes(12).toString('base64') };
}

describe('2 MiB plaintext limit', () => {
	test('server-side text of exactly 2097152 bytes is accepted and comes back whole', async () => {
		const text = 'a'.repeat(LIMIT - 1) + 'z';
		const s = await ctx.createOk({ text });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200);
		const plain = decryptItem(res.json.text, s.key);
		assert.equal(plain.length, LIMIT);
		assert.equal(plain[LIMIT - 1], 'z'.charCodeAt(0));
	});
	test('server-side text of 2097153 bytes is 400 INVALID_CONTENT_SIZE', async () => {
		checkError(assert, await ctx.create({ text: 'a'.repeat(LIMIT + 1) }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('server-side text is counted in UTF-8 bytes: 524288 four-byte emoji are accepted', async () => {
		const res = await ctx.create({ text: '😀'.repeat(LIMIT / 4) });
		assert.equal(res.status, 200, res.body.toString().slice(0, 300));
	});
	test('server-side text is counted in UTF-8 bytes: one more byte is rejected', async () => {
		checkError(assert, await ctx.create({ text: '😀'.repeat(LIMIT / 4) + 'a' }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('server-side text + file of exactly 2097152 bytes together are accepted', async () => {
		const bytes = crypto.randomBytes(LIMIT / 2);
		const s = await ctx.createOk({ text: 'b'.repeat(LIMIT / 2), files: [{ filename: 'half.bin', data: dataUrl('application/octet-stream', bytes) }] });
		const res = await ctx.retrieve(s.secretKey);
		assert.deepEqual(decryptItem(res.json.files[0].data, s.key), bytes);
	});
	test('server-side text + file of 2097153 bytes together are 400 INVALID_CONTENT_SIZE', async () => {
		checkError(assert, await ctx.create({ text: 'b'.repeat(LIMIT / 2), files: [{ filename: 'half.bin', data: dataUrl('application/octet-stream', crypto.randomBytes(LIMIT / 2 + 1)) }] }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('server-side files alone of exactly 2097152 bytes are accepted', async () => {
		const files = [0, 1, 2, 3].map((i) => ({ filename: `q${i}`, data: dataUrl('application/octet-stream', crypto.randomBytes(LIMIT / 4)) }));
		assert.equal((await ctx.create({ files })).status, 200);
	});
	test('server-side files alone of 2097153 bytes are 400 INVALID_CONTENT_SIZE', async () => {
		const files = [0, 1, 2, 3].map((i) => ({ filename: `q${i}`, data: dataUrl('application/octet-stream', crypto.randomBytes(LIMIT / 4 + (i === 3 ? 1 : 0))) }));
		checkError(assert, await ctx.create({ files }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('client-side text + file of exactly 2097152 bytes are accepted and round trip', async () => {
		const key = newKey();
		const textPlain = crypto.randomBytes(LIMIT / 2).toString('latin1');	// any bytes, as text
		const fileBytes = crypto.randomBytes(LIMIT / 2);
		const text = encryptItem(Buffer.from(textPlain, 'latin1'), key);
		const data = encryptItem(fileBytes, key);
		const s = await ctx.createOk({ text, files: [{ filename: 'f', data }] });
		const res = await ctx.retrieve(s.secretKey);
		assert.deepEqual(decryptItem(res.json.text, key), Buffer.from(textPlain, 'latin1'));
		assert.deepEqual(decryptItem(res.json.files[0].data, key), fileBytes);
	});
	test('client-side text + file of 2097153 bytes are 400 INVALID_CONTENT_SIZE', async () => {
		checkError(assert, await ctx.create({ text: fakeItem(LIMIT / 2), files: [{ filename: 'f', data: fakeItem(LIMIT / 2 + 1) }] }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('client-side text alone of exactly 2097152 bytes is accepted', async () => {
		assert.equal((await ctx.create({ text: fakeItem(LIMIT) })).status, 200);
	});
	test('client-side text alone of 2097153 bytes is 400 INVALID_CONTENT_SIZE', async () => {
		checkError(assert, await ctx.create({ text: fakeItem(LIMIT + 1) }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('client-side files alone of 2097153 bytes are 400 INVALID_CONTENT_SIZE', async () => {
		checkError(assert, await ctx.create({ files: [{ filename: 'a', data: fakeItem(LIMIT / 2) }, { filename: 'b', data: fakeItem(LIMIT / 2 + 1) }] }), 400, 'INVALID_CONTENT_SIZE');
	});
	test('the fragment key is url-safe base64 of 32 bytes without padding', async () => {
		const s = await ctx.createOk({ text: 'k' });
		const frag = s.secretUrl.split('#key=')[1];
		assert.match(frag, /^[A-Za-z0-9_-]{43}$/);
		assert.equal(b64urlEncode(s.key), frag);
	});
});

// A body over 256 KiB is read by the parser in pieces of 256 KiB (lib/json.c),
// each wiped and given back once read. json-c checks UTF-8 afresh in each
// piece, so a piece must never end inside a character: these place 2-, 3- and
// 4-byte characters across every piece boundary of a body, 1 to 3 bytes in.
describe('large bodies, read in pieces', () => {
	const PIECE = 262144;
	const PREFIX = Buffer.byteLength('{"text":"');
	function straddling(ch, k) {
		let s = '';
		let pos = PREFIX;
		for (const b of [PIECE, 2 * PIECE, 3 * PIECE]) {
			s += 'a'.repeat(b - k - pos) + ch;
			pos = b - k + Buffer.byteLength(ch);
		}
		return s + ' end';
	}
	for (const ch of ['é', '€', '😀'])
		for (const k of [1, 2, 3].filter((n) => n < Buffer.byteLength(ch)))
			test(`a ${Buffer.byteLength(ch)}-byte character ${k} byte(s) before each boundary comes back exactly`, async () => {
				const text = straddling(ch, k);
				const s = await ctx.createOk({ text });
				const res = await ctx.retrieve(s.secretKey);
				assert.equal(res.status, 200, res.body.toString().slice(0, 300));
				assert.ok(decryptItem(res.json.text, s.key).equals(Buffer.from(text, 'utf8')), 'the text is not the same');
			});
	test('escapes across a boundary (\\u00e9, a surrogate pair) decode as in one piece', async () => {
		for (const k of [1, 3, 5, 8, 11]) {
			const head = '{"text":"' + 'a'.repeat(PIECE - k - PREFIX);
			const s = await ctx.createOk(head + '\\u00e9\\ud83d\\ude00\\"z"}');
			const res = await ctx.retrieve(s.secretKey);
			const plain = decryptItem(res.json.text, s.key).toString('utf8');
			assert.equal(plain.slice(-5), 'é😀"z', `escapes ${k} bytes before the boundary`);
		}
	});
	test('a client-side ciphertext of 2 MiB is stored whole', async () => {
		const key = newKey();
		const plain = crypto.randomBytes(LIMIT);
		const s = await ctx.createOk({ text: encryptItem(plain, key) });
		const res = await ctx.retrieve(s.secretKey);
		assert.ok(decryptItem(res.json.text, key).equals(plain));
	});
	test('bad UTF-8 right after a boundary is 400 INVALID_JSON', async () => {
		const body = Buffer.concat([Buffer.from('{"text":"' + 'a'.repeat(PIECE - PREFIX)), Buffer.from([0x80, 0x80]), Buffer.from('"}')]);
		checkError(assert, await ctx.create(body), 400, 'INVALID_JSON');
	});
	test('an error past the first piece names its byte in the whole body', async () => {
		const body = '{"text":"' + 'a'.repeat(300000) + '" x}';
		const j = checkError(assert, await ctx.create(body), 400, 'INVALID_JSON');
		assert.match(j.hint, new RegExp(`at byte ${PREFIX + 300000 + 2}\\b`), j.hint);
	});
	test('a key repeated after the first piece is 400 INVALID_JSON', async () => {
		const j = checkError(assert, await ctx.create('{"text":"' + 'a'.repeat(300000) + '","text":"b"}'), 400, 'INVALID_JSON');
		assert.match(j.hint, /twice/);
	});
	test('data after a large object is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"' + 'a'.repeat(300000) + '"} {}'), 400, 'INVALID_JSON');
	});
	test('a large body that ends early is 400 INVALID_JSON', async () => {
		const j = checkError(assert, await ctx.create('{"text":"' + 'a'.repeat(300000)), 400, 'INVALID_JSON');
		assert.match(j.hint, new RegExp(`end of data at byte ${PREFIX + 300000 + 1}\\b`), j.hint);
	});
});
