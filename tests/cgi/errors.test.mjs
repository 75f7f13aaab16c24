// errors.test.mjs: every error the four programs answer at the edge of a request
// (body, media type, method, size, key), each with the full error body, and the
// headers every response carries.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { newContext, checkError, checkCommonHeaders, encryptItem, newKey } from '../lib/cgi.mjs';

const ctx = newContext();
let plain;		// an active secret without a passphrase, maxViews 999
let prot;		// an active secret with a passphrase
const VALID_KEY = 'AAAAAAAAAAAAAAAAAAAAAA';	// 22 url-safe chars, never created

before(async () => {
	plain = await ctx.createOk({ text: 'errors test', maxViews: 999 });
	prot = await ctx.createOk({ text: 'protected', passphrase: 'correct horse', maxViews: 999 });
});

describe('request body', () => {
	test('a body that is not JSON is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('this is not json'), 400, 'INVALID_JSON');
	});
	test('a JSON array body is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('["text"]'), 400, 'INVALID_JSON');
	});
	test('a JSON string body is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('"text"'), 400, 'INVALID_JSON');
	});
	test('data after the JSON object is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"a"} {"text":"b"}'), 400, 'INVALID_JSON');
	});
	test('a truncated JSON object is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"a"'), 400, 'INVALID_JSON');
	});
	test('whitespace after the JSON object is accepted', async () => {
		const res = await ctx.create('{"text":"a"}\r\n \t');
		assert.equal(res.status, 200, res.body.toString());
	});
	test('an empty body on create is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create(undefined, { contentLength: 0 }), 400, 'INVALID_JSON');
	});
	test('a create without CONTENT_LENGTH is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.run('create', { method: 'POST' }), 400, 'INVALID_JSON');
	});
	test('a body shorter than CONTENT_LENGTH is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"a"}', { contentLength: 40 }), 400, 'INVALID_JSON');
	});
	test('a CONTENT_LENGTH that is not a number is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"a"}', { contentLength: '12abc' }), 400, 'INVALID_JSON');
	});
	test('a negative CONTENT_LENGTH is 400 INVALID_JSON', async () => {
		checkError(assert, await ctx.create('{"text":"a"}', { contentLength: '-12' }), 400, 'INVALID_JSON');
	});
	// Keys are compared as json-c stores them: after unescaping, and up to a
	// NUL (its keys are C strings); no cap on the number of keys in an object.
	const REPEATS = [
		['a key repeated with an escape', '{"text":"a","passphrase":"abcd","pass\\u0070hrase":"wxyz"}', 'passphrase'],
		['a key repeated with \\/ and a raw slash', '{"text":"a","a/b":1,"a\\/b":2}', 'a/b'],
		['a non-ASCII key repeated as \\u00e9', '{"text":"a","\u00e9":1,"\\u00e9":2}', null],
		['a key repeated as a surrogate pair', '{"text":"a","\u{1F600}":1,"\\ud83d\\ude00":2}', null],
		['two keys that differ only after a \\u0000', '{"text":"a","x\\u0000y":1,"x\\u0000z":2}', null],
		['the 34th key repeated', '{"text":"a",' + Array.from({ length: 33 }, (_, i) => `"k${i}":${i}`).join(',') + ',"k32":1}', 'k32'],
		['a repeat after 5000 distinct keys', '{"text":"a",' + Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',') + ',"k4999":1}', 'k4999'],
		['a repeat in a nested object', '{"text":"a","files":[{"filename":"f","file\\u006eame":"g"}]}', 'filename'],
	];
	for (const [name, body, key] of REPEATS) {
		test(`${name} is 400 INVALID_JSON naming no memory error`, async () => {
			const res = await ctx.create(body);
			const j = checkError(assert, res, 400, 'INVALID_JSON');
			assert.match(j.hint, /twice/, j.hint);
			if (key) assert.ok(j.hint.includes(`"${key}"`), j.hint);
			assert.doesNotMatch(res.stderr, /out of memory/, res.stderr);
		});
	}
	test('keys that only look alike (case, \\u escapes of different characters) are accepted', async () => {
		const res = await ctx.create('{"text":"a","x":1,"X":2,"\\u0078y":3,"xy ":4}');
		assert.equal(res.status, 200, res.body.toString());
	});
	test('invalid UTF-8 in the body is 400 INVALID_JSON', async () => {
		const body = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
		checkError(assert, await ctx.create(body), 400, 'INVALID_JSON');
	});
	// json-c 0.16 lets these through even in strict mode; RFC 8259 and
	// RFC 3629 do not, and docs/API.md answers INVALID_JSON for them.
	const NOT_JSON = [
		['an overlong UTF-8 sequence (C0 AF)', [0xc0, 0xaf], /utf-8 at byte 9/],
		['a surrogate encoded in UTF-8 (ED A0 80)', [0xed, 0xa0, 0x80], /utf-8 at byte 9/],
		['UTF-8 past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], /utf-8 at byte 9/],
		['a control character not escaped in a string', [0x01], /control character.*at byte 9/],
		['a tab not escaped in a string', [0x09], /control character.*at byte 9/],
	];
	for (const [name, bytes, hint] of NOT_JSON) {
		test(`${name} is 400 INVALID_JSON`, async () => {
			const body = Buffer.concat([Buffer.from('{"text":"'), Buffer.from(bytes), Buffer.from('"}')]);
			const j = checkError(assert, await ctx.create(body), 400, 'INVALID_JSON');
			assert.match(j.hint, hint, j.hint);
		});
	}
	for (const [name, value] of [['NaN', 'NaN'], ['Infinity', 'Infinity'], ['-Infinity', '-Infinity'], ['a number ending in its point', '3600.']]) {
		test(`${name} (not JSON) is 400 INVALID_JSON, also in a field the server ignores`, async () => {
			for (const body of [`{"text":"a","ttl":${value}}`, `{"text":"a","x":[1,${value}]}`]) {
				const j = checkError(assert, await ctx.create(body), 400, 'INVALID_JSON');
				assert.match(j.hint, /NaN, Infinity/, j.hint);
				assert.ok(j.hint.includes(`at byte ${body.indexOf(value)}`), j.hint);
			}
		});
	}
	test('escapes of control characters, non-ASCII UTF-8 and numbers JSON allows are accepted', async () => {
		const res = await ctx.create('{"text":"a\\t\\u0001 \u00e9\u20ac\u{1F600}","ttl":3.6e3,"x":[-0,0.5,1E+2,-1e-2,true,false,null]}');
		assert.equal(res.status, 200, res.body.toString());
	});
	test('a body that is not JSON on retrieve is 400 INVALID_JSON and uses no view', async () => {
		checkError(assert, await ctx.retrieve(plain.secretKey, '{passphrase'), 400, 'INVALID_JSON');
		const m = await ctx.metadata(plain.receiptKey);
		assert.equal(m.json.viewCount, 0);
	});
});

describe('media type', () => {
	test('a body sent as text/plain is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
		checkError(assert, await ctx.create({ text: 'a' }, { contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
	});
	test('a body without CONTENT_TYPE is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
		checkError(assert, await ctx.create({ text: 'a' }, { contentType: null }), 415, 'UNSUPPORTED_MEDIA_TYPE');
	});
	test('application/jsonp is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
		checkError(assert, await ctx.create({ text: 'a' }, { contentType: 'application/jsonp' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
	});
	test('form encoding is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
		checkError(assert, await ctx.create('text=a', { contentType: 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
	});
	test('application/json with a charset parameter is accepted', async () => {
		const res = await ctx.create({ text: 'a' }, { contentType: 'application/json; charset=utf-8' });
		assert.equal(res.status, 200, res.body.toString());
	});
	test('a charset other than UTF-8 is 415 UNSUPPORTED_MEDIA_TYPE (the body is read as UTF-8)', async () => {
		for (const contentType of ['application/json; charset=latin1', 'application/json;charset=ISO-8859-1',
			'application/json; charset=utf-16', 'application/json; charset=utf-8x', 'application/json; charset='])
			checkError(assert, await ctx.create({ text: 'a' }, { contentType }), 415, 'UNSUPPORTED_MEDIA_TYPE');
		for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"',
			'application/json; foo=bar; charset=utf-8 ', 'application/json;'])
			assert.equal((await ctx.create({ text: 'a' }, { contentType })).status, 200, contentType);
	});
	test('the media type is matched case-insensitively', async () => {
		const res = await ctx.create({ text: 'a' }, { contentType: 'Application/JSON' });
		assert.equal(res.status, 200, res.body.toString());
	});
	test('a retrieve body sent as text/plain is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
		checkError(assert, await ctx.retrieve(prot.secretKey, { passphrase: 'correct horse' }, { contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
	});
});

describe('payload size', () => {
	test('CONTENT_LENGTH 4194305 is 413 PAYLOAD_TOO_LARGE, answered without reading the body', async () => {
		// stdin stays open and empty: a program that tried to read would hang.
		const res = await ctx.create(undefined, { contentLength: 4194305, stdinOpen: true, timeoutMs: 20000 });
		checkError(assert, res, 413, 'PAYLOAD_TOO_LARGE');
	});
	test('a huge CONTENT_LENGTH is 413 PAYLOAD_TOO_LARGE without overflowing', async () => {
		const res = await ctx.create(undefined, { contentLength: '184467440737095516160000', stdinOpen: true, timeoutMs: 20000 });
		checkError(assert, res, 413, 'PAYLOAD_TOO_LARGE');
	});
	test('413 comes before the media type check', async () => {
		const res = await ctx.create(undefined, { contentLength: 4194305, contentType: 'text/plain', stdinOpen: true, timeoutMs: 20000 });
		checkError(assert, res, 413, 'PAYLOAD_TOO_LARGE');
	});
	test('a retrieve with CONTENT_LENGTH 4194305 is 413 PAYLOAD_TOO_LARGE', async () => {
		const res = await ctx.retrieve(plain.secretKey, undefined, { contentLength: 4194305, stdinOpen: true, timeoutMs: 20000 });
		checkError(assert, res, 413, 'PAYLOAD_TOO_LARGE');
	});
	test('a body of exactly 4194304 bytes is read (not 413)', async () => {
		// Valid JSON of exactly 4 MiB whose text is over the plaintext limit.
		const skeleton = '{"text":""}';
		const body = '{"text":"' + 'a'.repeat(4194304 - skeleton.length) + '"}';
		assert.equal(Buffer.byteLength(body), 4194304);
		checkError(assert, await ctx.create(body), 400, 'INVALID_CONTENT_SIZE');
	});
});

describe('methods', () => {
	test('GET on create is 405 METHOD_NOT_ALLOWED with Allow: POST', async () => {
		const res = await ctx.run('create', { method: 'GET' });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(res.headers.allow, 'POST');
	});
	test('PUT on create is 405 METHOD_NOT_ALLOWED with Allow: POST', async () => {
		const res = await ctx.run('create', { method: 'PUT', body: { text: 'a' } });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(res.headers.allow, 'POST');
	});
	test('DELETE on create is 405 METHOD_NOT_ALLOWED', async () => {
		const res = await ctx.run('create', { method: 'DELETE' });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(res.headers.allow, 'POST');
	});
	test('405 comes before the body is read (no 413 for a GET on create)', async () => {
		const res = await ctx.run('create', { method: 'GET', contentLength: 4194305, stdinOpen: true, timeoutMs: 20000 });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
	});
	test('PUT on a key (routed to metadata) is 405 with Allow: GET, HEAD, POST, DELETE', async () => {
		const res = await ctx.metadata(plain.secretKey, { method: 'PUT' });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.deepEqual(res.headers.allow.split(/,\s*/).sort(), ['DELETE', 'GET', 'HEAD', 'POST']);
	});
	test('PATCH on a key (routed to metadata) is 405 with an Allow header', async () => {
		const res = await ctx.metadata(plain.secretKey, { method: 'PATCH' });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.match(res.headers.allow, /GET/);
	});
	test('a lower-case method is 405 (methods are case-sensitive)', async () => {
		const res = await ctx.metadata(plain.secretKey, { method: 'get' });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
	});
	test('a missing REQUEST_METHOD is 405', async () => {
		const res = await ctx.run('metadata', { pathInfo: `/${plain.secretKey}`, env: { REQUEST_METHOD: null } });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
	});
	test('GET on retrieve is 405 with an Allow header', async () => {
		const res = await ctx.run('retrieve', { method: 'GET', pathInfo: `/${plain.secretKey}` });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.match(res.headers.allow, /POST/);
	});
	test('POST on delete is 405 with an Allow header', async () => {
		const res = await ctx.run('delete', { method: 'POST', pathInfo: `/${plain.secretKey}` });
		checkError(assert, res, 405, 'METHOD_NOT_ALLOWED');
		assert.match(res.headers.allow, /DELETE/);
	});
	test('only 405 responses carry an Allow header', async () => {
		const res = await ctx.metadata(plain.secretKey);
		assert.equal(res.status, 200);
		assert.equal(res.headers.allow, undefined);
	});
});

describe('keys', () => {
	test('a never-created key is 404 NOT_FOUND on metadata', async () => {
		checkError(assert, await ctx.metadata(VALID_KEY), 404, 'NOT_FOUND');
	});
	test('a never-created key is 404 NOT_FOUND on retrieve', async () => {
		checkError(assert, await ctx.retrieve(VALID_KEY), 404, 'NOT_FOUND');
	});
	test('a never-created key is 404 NOT_FOUND on delete', async () => {
		checkError(assert, await ctx.burn(VALID_KEY), 404, 'NOT_FOUND');
	});
});

describe('API keys', () => {
	const unknownKey = 'bl_' + 'A'.repeat(43);
	test('an unknown API key on create is 401 INVALID_API_KEY', async () => {
		const res = await ctx.create({ text: 'a' }, { env: { HTTP_AUTHORIZATION: `Bearer ${unknownKey}` } });
		checkError(assert, res, 401, 'INVALID_API_KEY');
	});
	test('a malformed API key on create is 401 INVALID_API_KEY', async () => {
		const res = await ctx.create({ text: 'a' }, { env: { HTTP_AUTHORIZATION: 'Bearer not-a-key' } });
		checkError(assert, res, 401, 'INVALID_API_KEY');
	});
	test('a rejected API key stores nothing', async () => {
		const before = ctx.sql('SELECT count(*) FROM secrets').trim();
		await ctx.create({ text: 'a' }, { env: { HTTP_AUTHORIZATION: `Bearer ${unknownKey}` } });
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), before);
	});
	test('an Authorization header on metadata is ignored', async () => {
		const res = await ctx.metadata(plain.secretKey, { env: { HTTP_AUTHORIZATION: `Bearer ${unknownKey}` } });
		assert.equal(res.status, 200, res.body.toString());
	});
});

describe('create validation codes', () => {
	const cases = [
		['text of the wrong type', { text: 42 }, 'INVALID_TEXT'],
		['text and the legacy secret together', { text: 'a', secret: 'b' }, 'INVALID_TEXT'],
		['a legacy secret that is an object', { secret: { ciphertext: 'AAAA', iv: 'AAAA' } }, 'INVALID_TEXT'],
		['no content at all', {}, 'INVALID_CONTENT'],
		['an empty text and no files', { text: '' }, 'INVALID_CONTENT'],
		['an empty text and an empty files array', { text: '', files: [] }, 'INVALID_CONTENT'],
		['only unknown fields', { message: 'hello' }, 'INVALID_CONTENT'],
		['a ttl below the minimum', { text: 'a', ttl: 60 }, 'INVALID_TTL'],
		['a maxViews of 0', { text: 'a', maxViews: 0 }, 'INVALID_MAX_VIEWS'],
		['a passphrase of 3 characters', { text: 'a', passphrase: 'abc' }, 'INVALID_PASSPHRASE_FORMAT'],
		['a passphrase that is a number', { text: 'a', passphrase: 12345 }, 'INVALID_PASSPHRASE_FORMAT'],
		['deletable as a string', { text: 'a', deletable: 'no' }, 'INVALID_DELETABLE'],
		['deletable as 0', { text: 'a', deletable: 0 }, 'INVALID_DELETABLE'],
		['files that is not an array', { text: 'a', files: { filename: 'x' } }, 'INVALID_FILES'],
		['a file item that is not an object', { files: ['data:text/plain;base64,YQ=='] }, 'INVALID_FILES'],
		['a file without data', { text: 'a', files: [{ filename: 'a.txt', mimeType: 'text/plain' }] }, 'INVALID_FILES'],
		['a file without a filename', { text: 'a', files: [{ mimeType: 'text/plain', data: 'data:text/plain;base64,YQ==' }] }, 'INVALID_FILES'],
		['a file whose data is not a data URL', { text: 'a', files: [{ filename: 'a', data: 'YQ==' }] }, 'INVALID_FILES'],
		['a data URL without ;base64', { text: 'a', files: [{ filename: 'a', data: 'data:text/plain,hello' }] }, 'INVALID_FILES'],
		['a data URL with bad base64', { text: 'a', files: [{ filename: 'a', data: 'data:text/plain;base64,Y!==' }] }, 'INVALID_FILES'],
		['a ciphertext that is not base64', { text: { ciphertext: '!!!!', iv: 'AAAAAAAAAAAAAAAA' } }, 'INVALID_CIPHERTEXT'],
		['a text object without ciphertext', { text: { iv: 'AAAAAAAAAAAAAAAA' } }, 'INVALID_CIPHERTEXT'],
		['a text object without iv', { text: { ciphertext: encryptItem('x', newKey()).ciphertext } }, 'INVALID_IV'],
		['an iv of 8 bytes', { text: { ...encryptItem('x', newKey()), iv: 'AAAAAAAAAAA=' } }, 'INVALID_IV'],
		['text as a string with a client-side file', { text: 'a', files: [{ filename: 'a', data: encryptItem('x', newKey()) }] }, 'INVALID_ENCRYPTION_MODE'],
		['text as an object with a server-side file', { text: encryptItem('x', newKey()), files: [{ filename: 'a', data: 'data:text/plain;base64,YQ==' }] }, 'INVALID_ENCRYPTION_MODE'],
		['files in both modes without text', { files: [{ filename: 'a', data: 'data:text/plain;base64,YQ==' }, { filename: 'b', data: encryptItem('x', newKey()) }] }, 'INVALID_ENCRYPTION_MODE'],
		['an encrypted filename in server-side mode', { text: 'a', files: [{ filename: encryptItem('a', newKey()), data: 'data:text/plain;base64,YQ==' }] }, 'INVALID_ENCRYPTION_MODE'],
		['an encrypted mimeType in server-side mode', { text: 'a', files: [{ filename: 'a', mimeType: encryptItem('a', newKey()), data: 'data:text/plain;base64,YQ==' }] }, 'INVALID_ENCRYPTION_MODE'],
	];
	for (const [name, body, code] of cases) {
		test(`${name} is 400 ${code}`, async () => {
			checkError(assert, await ctx.create(body), 400, code);
		});
	}
	test('unknown fields are ignored', async () => {
		const res = await ctx.create({ text: 'a', colour: 'blue', nested: { x: [1, 2] } });
		assert.equal(res.status, 200, res.body.toString());
	});
	test('a failed create stores nothing', async () => {
		const before = Number(ctx.sql('SELECT count(*) FROM secrets').trim());
		checkError(assert, await ctx.create({ text: 'a', ttl: 1 }), 400, 'INVALID_TTL');
		const after = Number(ctx.sql('SELECT count(*) FROM secrets').trim());
		assert.equal(after, before);
	});
});

describe('retrieve body checks', () => {
	test('a passphrase that is not a string is 400 INVALID_PASSPHRASE_FORMAT', async () => {
		checkError(assert, await ctx.retrieve(prot.secretKey, { passphrase: 1234 }), 400, 'INVALID_PASSPHRASE_FORMAT');
	});
	test('so is it on a secret without one, and on a burn; no view is used', async () => {
		const plain = (await ctx.create({ text: 'p', maxViews: 2 })).json;
		for (const passphrase of [5, true, ['x'], { a: 1 }]) {
			checkError(assert, await ctx.retrieve(plain.metadata.secretKey, { passphrase }), 400, 'INVALID_PASSPHRASE_FORMAT');
			checkError(assert, await ctx.burn(plain.metadata.secretKey, { passphrase }), 400, 'INVALID_PASSPHRASE_FORMAT');
		}
		assert.equal((await ctx.metadata(plain.metadata.secretKey)).json.viewsRemaining, 2);
		assert.equal((await ctx.retrieve(plain.metadata.secretKey, { passphrase: null })).status, 200);
	});
});

describe('error bodies and headers', () => {
	test('every request gets a different requestId', async () => {
		const a = await ctx.metadata(VALID_KEY);
		const b = await ctx.metadata(VALID_KEY);
		assert.notEqual(a.json.requestId, b.json.requestId);
		assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
	});
	test('a success response carries X-Request-Id too', async () => {
		const res = await ctx.metadata(plain.secretKey);
		assert.equal(res.status, 200);
		assert.match(res.headers['x-request-id'], /^req_[A-Za-z0-9_-]{20}$/);
	});
	test('the status line carries a reason phrase', async () => {
		const res = await ctx.metadata(VALID_KEY);
		assert.match(res.headers.status, /^404 \S/);
	});
	test('Content-Length matches the body', async () => {
		const res = await ctx.metadata(plain.secretKey);
		assert.equal(Number(res.headers['content-length']), res.body.length);
	});
	test('create success carries the common headers', async () => {
		checkCommonHeaders(assert, (await ctx.create({ text: 'h' })));
	});
	test('metadata success carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.metadata(plain.secretKey));
	});
	test('retrieve success carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.retrieve(plain.secretKey));
	});
	test('burn success carries the common headers', async () => {
		const s = await ctx.createOk({ text: 'burn me' });
		checkCommonHeaders(assert, await ctx.burn(s.receiptKey));
	});
	test('a 400 carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.create({ text: 'a', ttl: 'x' }));
	});
	test('a 404 carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.retrieve(VALID_KEY));
	});
	test('a 405 carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.run('create', { method: 'GET' }));
	});
	test('a 413 carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.create(undefined, { contentLength: 4194305, stdinOpen: true, timeoutMs: 20000 }));
	});
	test('a 415 carries the common headers', async () => {
		checkCommonHeaders(assert, await ctx.create({ text: 'a' }, { contentType: 'text/plain' }));
	});
	test('HEAD on metadata answers 200 with headers and no body', async () => {
		const res = await ctx.metadata(plain.secretKey, { method: 'HEAD' });
		assert.equal(res.status, 200);
		checkCommonHeaders(assert, res);
		assert.equal(res.body.length, 0);
	});
	test('HEAD on an unknown key answers 404 with no body', async () => {
		const res = await ctx.metadata(VALID_KEY, { method: 'HEAD' });
		assert.equal(res.status, 404);
		checkCommonHeaders(assert, res);
		assert.equal(res.body.length, 0);
	});
});
