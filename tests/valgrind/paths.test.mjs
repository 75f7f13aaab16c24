// paths.test.mjs: every path through the four programs and cron/cleanup once,
// for runs under valgrind (BURNLINK_WRAP): each program run must end with exit 0
// and no memory error or leak (the wrapper's --error-exitcode fails it). The
// full CGI suite under valgrind is `tests/run.sh valgrind-full`. The four
// tests run side by side, each on a database of its own: valgrind makes
// every run CPU-bound, and one after the other they left a core idle.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newContext, checkError, encryptItem, decryptItem, newKey } from '../lib/cgi.mjs';

const PASS = 'open sesame';

describe('every path through the programs once', { concurrency: true }, () => {
	test('server-side create with text, a file and a passphrase; metadata both ways; retrieve with the passphrase; burn', async () => {
		const ctx = newContext();
		const s = await ctx.createOk({
			text: 'tab\there\r\nemoji 🔥', maxViews: 2, passphrase: PASS,
			files: [{ filename: 'a.txt', mimeType: 'text/plain', data: 'data:text/plain;base64,aGVsbG8=' }],
		});
		assert.equal((await ctx.metadata(s.secretKey)).json.type, 'secret');
		assert.equal((await ctx.metadata(s.receiptKey)).json.type, 'receipt');
		checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: 'wrong one' }), 403, 'INVALID_PASSPHRASE');
		const r = await ctx.retrieve(s.secretKey, { passphrase: PASS });
		assert.equal(r.status, 200, r.body.toString());
		assert.equal(decryptItem(r.json.text, s.key).toString(), 'tab\there\r\nemoji 🔥');
		assert.equal(decryptItem(r.json.files[0].data, s.key).toString(), 'hello');
		const b = await ctx.burn(s.receiptKey);
		assert.equal(b.status, 200, b.body.toString());
		checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: PASS }), 410, 'SECRET_BURNED');
	});

	test('client-side create with files; the last view exhausts it', async () => {
		const ctx = newContext();
		const key = newKey();
		const s = await ctx.createOk({
			text: encryptItem(Buffer.from('client side'), key),
			files: [{ filename: encryptItem(Buffer.from('f.bin'), key), mimeType: 'application/octet-stream',
				data: encryptItem(crypto.randomBytes(3000), key) }],
		});
		const r = await ctx.retrieve(s.secretKey);
		assert.equal(r.status, 200, r.body.toString());
		assert.equal(decryptItem(r.json.text, key).toString(), 'client side');
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'MAX_VIEWS_REACHED');
		checkError(assert, await ctx.metadata(s.secretKey), 410, 'MAX_VIEWS_REACHED');
	});

	test('burn by secret key: allowed, forbidden; expiry; cleanup', async () => {
		const ctx = newContext();
		const a = await ctx.createOk({ text: 'a', maxViews: null });
		assert.equal((await ctx.burn(a.secretKey)).status, 200);
		const b = await ctx.createOk({ text: 'b', deletable: false });
		checkError(assert, await ctx.burn(b.secretKey), 403, 'DELETION_NOT_ALLOWED');
		ctx.age(b.secretKey, 1000);
		checkError(assert, await ctx.retrieve(b.secretKey), 410, 'SECRET_EXPIRED');
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		checkError(assert, await ctx.metadata(b.secretKey), 404, 'NOT_FOUND');
	});

	test('each class of refused request', async () => {
		const ctx = newContext();
		checkError(assert, await ctx.create('{"text": '), 400, 'INVALID_JSON');
		checkError(assert, await ctx.create({ text: 'a', ttl: 60 }), 400, 'INVALID_TTL');
		checkError(assert, await ctx.create({ text: { ciphertext: 'QR==', iv: 'AAAAAAAAAAAAAAAA' } }), 400, 'INVALID_CIPHERTEXT');
		checkError(assert, await ctx.create({ text: 'a', files: [{ filename: 'x', data: { ciphertext: 'AAAA', iv: 'AAAA' } }] }), 400, 'INVALID_ENCRYPTION_MODE');
		checkError(assert, await ctx.create({ text: 'a' }, { contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
		checkError(assert, await ctx.create(undefined, { contentLength: 4194305, stdinOpen: true }), 413, 'PAYLOAD_TOO_LARGE');
		checkError(assert, await ctx.run('create', { method: 'PUT' }), 405, 'METHOD_NOT_ALLOWED');
		checkError(assert, await ctx.create({ text: 'a' }, { env: { HTTP_AUTHORIZATION: 'Bearer bl_nope' } }), 401, 'INVALID_API_KEY');
		checkError(assert, await ctx.metadata('short'), 404, 'NOT_FOUND');
		checkError(assert, await ctx.retrieve('AAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
		checkError(assert, await ctx.burn('AAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
	});
});
