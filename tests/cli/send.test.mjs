// burnlink sending against a real server: byte-exact input, every option
// checked through the API, --json.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { srv, URL_OPT, send, meta, assertApiError, assertUsage, near, sql, runOnTerminal, hasScript } from './fixture.mjs';
import { ROOT, run, splitLink, apiJson, retrieveRaw, createRaw, tmpDir, errorLine } from './helpers.mjs';


/* ---------- sending: input ---------- */

test('an argument is sent as its UTF-8 bytes and one link line is printed', async () => {
	const text = '  héllo wörld ✓ 🔥\ttabs\n\nand trailing spaces   \n';
	const r = await run([...URL_OPT, text]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.err, '');
	assert.match(r.out, /^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{43}\n$/);
	assert.ok(r.out.startsWith(`${srv.base}/secret/`));
	const got = await retrieveRaw(r.out);
	assert.deepEqual(got.text, Buffer.from(text, 'utf8'));
	assert.deepEqual(got.files, []);
});

test('standard input is sent byte for byte, trailing newline included', async () => {
	const all = Buffer.alloc(256);
	for (let i = 0; i < 256; i++)
		all[i] = i;
	const input = Buffer.concat([Buffer.from('line1\r\nline2\n\0nul\xff\xfe'), all, Buffer.from('\n\n')]);
	const link = await send([], { input });
	assert.deepEqual((await retrieveRaw(link)).text, input);
});

test('"-" reads standard input; "--" sends text that looks like a command', async () => {
	let link = await send(['-'], { input: 'from stdin\n' });
	assert.equal((await retrieveRaw(link)).text.toString(), 'from stdin\n');
	link = await send(['--', 'get']);
	assert.equal((await retrieveRaw(link)).text.toString(), 'get');
	link = await send(['--', '--json']);
	assert.equal((await retrieveRaw(link)).text.toString(), '--json');
});

test('1 MiB of binary-ish input round-trips exactly through burnlink get', async () => {
	const input = crypto.randomBytes(1024 * 1024);
	input.write('text at the start\n', 0);
	const link = await send([], { input });
	const r = await run(['get', link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.stdout.length, input.length);
	assert.ok(r.stdout.equals(input));
});

test('only ciphertext reaches the server: no plaintext or key in the database or logs', async () => {
	const marker = `plaintext-marker-${crypto.randomBytes(8).toString('hex')}`;
	const dir = tmpDir();
	const fname = `name-marker-${crypto.randomBytes(6).toString('hex')}.txt`;
	fs.writeFileSync(path.join(dir, fname), `file-${marker}`);
	const link = await send(['--file', path.join(dir, fname), marker]);
	const { key } = splitLink(link);
	const keyText = key.toString('base64url');
	const stores = [srv.db, `${srv.db}-wal`].filter(f => fs.existsSync(f)).map(f => fs.readFileSync(f));
	for (const buf of stores) {
		assert.equal(buf.indexOf(marker), -1, 'plaintext found in the database');
		assert.equal(buf.indexOf(fname), -1, 'file name found in the database');
		assert.equal(buf.indexOf(keyText), -1, 'key found in the database');
		assert.equal(buf.indexOf(key), -1, 'raw key found in the database');
	}
	assert.ok(!srv.accessLog().includes(keyText), 'key found in the access log');
	const got = await retrieveRaw(link);
	assert.equal(got.text.toString(), marker);
	assert.equal(got.files[0].filename, fname);
	assert.equal(got.files[0].mimeType, 'text/plain');
});

test('an empty secret is a usage error and nothing is created', async () => {
	assertUsage(await run([...URL_OPT], { input: '' }), /empty/);
	assertUsage(await run([...URL_OPT, '']), /empty/);
});

/* ---------- sending: options ---------- */

test('defaults: one view, one day', async () => {
	const t0 = Date.now();
	const link = await send(['x']);
	const m = await meta(link);
	assert.equal(m.status, 200);
	assert.equal(m.json.maxViews, 1);
	assert.equal(m.json.viewsRemaining, 1);
	assert.equal(m.json.hasPassphrase, false);
	near(m.json.expiresAt, 86400, t0);
});

test('--ttl in seconds and with a unit reaches the API', async () => {
	for (const [args, seconds] of [[['--ttl', '3600'], 3600], [['--ttl=2h'], 7200], [['--ttl', '90d'], 7776000]]) {
		const t0 = Date.now();
		near((await meta(await send([...args, 'x']))).json.expiresAt, seconds, t0);
	}
});

test('--views N and --views unlimited reach the API', async () => {
	let m = await meta(await send(['--views', '3', 'x']));
	assert.equal(m.json.maxViews, 3);
	assert.equal(m.json.viewsRemaining, 3);
	m = await meta(await send(['--views', 'unlimited', 'x']));
	assert.equal(m.json.maxViews, null);
	assert.equal(m.json.viewsRemaining, null);
});

test('--views 2 lets the link open twice, then 410 MAX_VIEWS_REACHED', async () => {
	const link = await send(['--views', '2', 'twice']);
	for (let i = 0; i < 2; i++) {
		const r = await run(['get', link]);
		assert.equal(r.code, 0, r.err);
		assert.equal(r.out, 'twice');
	}
	assertApiError(await run(['get', link]), 'MAX_VIEWS_REACHED');
});

test('--passphrase protects the secret; get needs it and a wrong one is 403', async () => {
	const link = await send(['--passphrase', 'correct horse', 'guarded']);
	assert.equal((await meta(link)).json.hasPassphrase, true);
	// No passphrase and no terminal: usage error, no view consumed.
	assertUsage(await run(['get', link]), /passphrase/);
	assertApiError(await run(['get', '--passphrase', 'wrong one', link]), 'INVALID_PASSPHRASE');
	assert.equal((await meta(link)).json.viewsRemaining, 1);
	const r = await run(['get', '-p', 'correct horse', link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'guarded');
});

test('--passphrase-file reads the passphrase without its trailing newline', async () => {
	const dir = tmpDir();
	fs.writeFileSync(path.join(dir, 'pp'), 'from a file\n');
	const link = await send(['--passphrase-file', path.join(dir, 'pp'), 'guarded']);
	assertApiError(await run(['get', '--passphrase', 'from a file\n', link]), 'INVALID_PASSPHRASE');
	const r = await run(['get', '--passphrase-file', path.join(dir, 'pp'), link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'guarded');
});

test('--undeletable: recipients cannot burn (403 DELETION_NOT_ALLOWED), the receipt can', async () => {
	const r = await run([...URL_OPT, '--json', '--undeletable', 'keep']);
	assert.equal(r.code, 0, r.err);
	const res = JSON.parse(r.out);
	assertApiError(await run(['burn', res.link]), 'DELETION_NOT_ALLOWED');
	const st = await run(['status', '--json', res.metadataUrl]);
	assert.equal(JSON.parse(st.out).deletable, false);
	const b = await run(['burn', res.metadataUrl]);
	assert.equal(b.code, 0, b.err);
	assert.equal(b.out, 'burned\n');
});

test('--api-key and BURNLINK_API_KEY are sent as a Bearer key (an unknown key is 401)', async () => {
	const bogus = `bl_${'A'.repeat(43)}`;
	assertApiError(await run([...URL_OPT, '--api-key', bogus, 'x']), 'INVALID_API_KEY');
	assertApiError(await run([...URL_OPT, 'x'], { env: { BURNLINK_API_KEY: bogus } }), 'INVALID_API_KEY');
	// The option wins over the variable.
	assertApiError(await run([...URL_OPT, '--api-key', bogus, 'x'], { env: { BURNLINK_API_KEY: '' } }), 'INVALID_API_KEY');
});

test('BURNLINK_URL and a --url with a trailing slash both work', async () => {
	let r = await run(['via env'], { env: { BURNLINK_URL: srv.base } });
	assert.equal(r.code, 0, r.err);
	assert.equal((await retrieveRaw(r.out)).text.toString(), 'via env');
	r = await run(['--url', `${srv.base}/`, 'slash']);
	assert.equal(r.code, 0, r.err);
	assert.equal((await retrieveRaw(r.out)).text.toString(), 'slash');
	// --url wins over BURNLINK_URL.
	r = await run(['--url', srv.base, 'both'], { env: { BURNLINK_URL: 'http://127.0.0.1:1' } });
	assert.equal(r.code, 0, r.err);
});

test('--json prints the create response with the full link', async () => {
	const t0 = Date.now();
	const r = await run([...URL_OPT, '--json', '--views', '5', '--ttl', '7200', 'json me']);
	assert.equal(r.code, 0, r.err);
	const j = JSON.parse(r.out);
	assert.equal(j.success, true);
	assert.match(j.secretUrl, /\/secret\/[A-Za-z0-9_-]{22}$/);
	assert.match(j.metadataUrl, /\/receipt\/[A-Za-z0-9_-]{22}$/);
	assert.equal(typeof j.metadata.key, 'string');
	assert.equal(typeof j.metadata.secretKey, 'string');
	assert.equal(j.metadata.maxViews, 5);
	near(j.metadata.expiresAt, 7200, t0);
	assert.ok(j.link.startsWith(`${j.secretUrl}#key=`));
	assert.ok(j.secretUrl.endsWith(j.metadata.secretKey));
	assert.equal((await retrieveRaw(j.link)).text.toString(), 'json me');
});

