// api.test.mjs: secret requests through the `requests` program (docs/API.md,
// "Secret requests"): the whole flow, answered once under a race of 20,
// states, burn by either key, expiry, cleanup, validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { checkError, sha256hex, dbFiles } from '../lib/cgi.mjs';
import { requestContext, wire } from './helpers.mjs';
import { SCHEMA_VERSION } from '../lib/schema.mjs';
import { capture, opens, slotKey, problems } from '../lib/shred.mjs';

const text = (b) => Buffer.from(b).toString('utf8');

function row(ctx, inboxKey) {
	return ctx.sql(`SELECT state, note_ct IS NULL, public_key IS NULL, answer_key IS NULL, ` +
		`ifnull(answer_id, 0) FROM requests WHERE inbox_hash = x'${sha256hex(inboxKey)}'`).trim();
}

test('ask, read the note, answer once, read the answer once: text and files byte for byte', async () => {
	const ctx = requestContext();
	const q = await ctx.ask({ note: 'the VPN password for host X, please', allowFiles: true });
	assert.match(q.requestUrl, /^http:\/\/burnlink\.test\/request\/[A-Za-z0-9_-]{22}$/);
	assert.match(q.inboxUrl, /^http:\/\/burnlink\.test\/inbox\/[A-Za-z0-9_-]{22}$/);
	const g = await ctx.rq.get(q.requestKey);
	assert.equal(g.status, 200);
	assert.equal(g.json.type, 'request');
	assert.equal(g.json.publicKey, q.publicKey);
	assert.equal(await wire.openNote(q.noteKey, g.json.publicKey, g.json.note), 'the VPN password for host X, please');
	const other = await wire.newRequestKeys();
	await assert.rejects(wire.openNote(q.noteKey, other.publicKey, g.json.note), (e) => e.reason === 'key',
		'a public key swapped by the server does not open the note');
	let s = await ctx.rq.get(q.inboxKey);
	assert.equal(s.json.state, 'waiting');
	checkError(assert, await ctx.rq.post(q.inboxKey), 409, 'REQUEST_WAITING');
	assert.equal((await ctx.rq.get(q.inboxKey)).json.state, 'waiting', 'no view used');

	const data = crypto.randomBytes(70000);
	const a = await ctx.answer(q, { text: 'hunter2 \u00e9\u0000', files: [{ name: 'cert.pem', type: 'application/x-pem-file', data }] });
	assert.equal(a.status, 200, a.body.toString());
	assert.deepEqual(a.json, { success: true, state: 'answered' });
	assert.equal(row(ctx, q.inboxKey), '1|1|0|0|' + row(ctx, q.inboxKey).split('|')[4]);
	s = await ctx.rq.get(q.inboxKey);
	assert.equal(s.json.state, 'answered');
	assert.ok(s.json.answeredAt);
	checkError(assert, await ctx.rq.get(q.requestKey), 409, 'REQUEST_ANSWERED');

	const r = await ctx.rq.post(q.inboxKey);
	assert.equal(r.status, 200, r.body.toString());
	const opened = await wire.openRequestAnswer(q.inboxSecret, r.json);
	assert.equal(text(opened.text), 'hunter2 \u00e9\u0000');
	assert.equal(opened.files[0].name, 'cert.pem');
	assert.equal(opened.files[0].type, 'application/x-pem-file');
	assert.ok(Buffer.from(opened.files[0].data).equals(data));

	checkError(assert, await ctx.rq.post(q.inboxKey), 410, 'ANSWER_READ');
	checkError(assert, await ctx.answer(q, { text: 'again' }), 409, 'REQUEST_ANSWERED');
	s = await ctx.rq.get(q.inboxKey);
	assert.equal(s.json.state, 'read');
	assert.ok(s.json.readAt);
	const answerId = row(ctx, q.inboxKey).split('|')[4];
	assert.equal(ctx.sql(`SELECT state, text_ct IS NULL, (SELECT count(*) FROM attachments WHERE secret_id = ${answerId}) FROM secrets WHERE id = ${answerId}`).trim(), '3|1|0',
		'the answer is an exhausted tombstone without content');
	checkError(assert, await ctx.rq.burn(q.inboxKey), 410, 'ANSWER_READ');
	// Either key: a read request's DELETE is ANSWER_READ (docs/API.md, DELETE /requests/<key>).
	checkError(assert, await ctx.rq.burn(q.requestKey), 410, 'ANSWER_READ');
	ctx.remove();
});

test('an empty sealed answer (no text, or an empty text, and no files) is 400 INVALID_CONTENT; the request still waits', async () => {
	const ctx = requestContext();
	const q = await ctx.ask();
	const eph = (await wire.sealAnswer(q.publicKey, q.noteKey, { text: 'x' })).ephemeralKey;
	checkError(assert, await ctx.rq.post(q.requestKey, { ephemeralKey: eph }), 400, 'INVALID_CONTENT');
	checkError(assert, await ctx.answer(q, { text: '' }), 400, 'INVALID_CONTENT');
	assert.equal((await ctx.rq.get(q.inboxKey)).json.state, 'waiting');
	ctx.remove();
});

test('20 concurrent answers to one request: exactly one is accepted, the others 409 REQUEST_ANSWERED', async () => {
	const ctx = requestContext();
	const q = await ctx.ask();
	const bodies = await Promise.all(Array.from({ length: 20 }, (_, i) => wire.sealAnswer(q.publicKey, q.noteKey, { text: `answer ${i}` })));
	const results = await Promise.all(bodies.map((b) => ctx.rq.post(q.requestKey, b)));
	const ok = results.filter((r) => r.status === 200);
	assert.equal(ok.length, 1, results.map((r) => r.status).join(','));
	for (const r of results.filter((x) => x.status !== 200))
		checkError(assert, r, 409, 'REQUEST_ANSWERED');
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1', 'one answer stored');
	const r = await ctx.rq.post(q.inboxKey);
	const got = text((await wire.openRequestAnswer(q.inboxSecret, r.json)).text);
	assert.equal(bodies.filter((b, i) => got === `answer ${i}`).length, 1);
	ctx.remove();
});

test('either key burns: waiting by the request key, answered by the inbox key; content deleted', async () => {
	const ctx = requestContext();
	const a = await ctx.ask({ note: 'burn me' });
	const b1 = await ctx.rq.burn(a.requestKey);
	assert.deepEqual(b1.json, { success: true, state: 'burned' });
	assert.equal(row(ctx, a.inboxKey), '4|1|1|1|0');
	assert.equal((await ctx.rq.get(a.inboxKey)).json.state, 'burned');
	checkError(assert, await ctx.rq.get(a.requestKey), 410, 'REQUEST_BURNED');
	checkError(assert, await ctx.answer(a, { text: 'x' }), 410, 'REQUEST_BURNED');
	checkError(assert, await ctx.rq.burn(a.inboxKey), 410, 'REQUEST_BURNED');

	const b = await ctx.ask();
	assert.equal((await ctx.answer(b, { text: 'secret answer' })).status, 200);
	assert.equal((await ctx.rq.burn(b.inboxKey)).status, 200);
	checkError(assert, await ctx.rq.post(b.inboxKey), 410, 'REQUEST_BURNED');
	assert.equal(ctx.sql('SELECT state, text_ct IS NULL FROM secrets').trim(), '2|1', 'the answer burned too');
	ctx.remove();
});

test('expiry ends the request and its answer; cleanup removes both (then 404)', async () => {
	const ctx = requestContext();
	const a = await ctx.ask({ note: 'n', ttl: 1800 });
	assert.equal((await ctx.answer(a, { text: 'late' })).status, 200);
	const w = await ctx.ask({ note: 'waiting one' });
	const past = Date.now() - 1000;
	ctx.sql(`UPDATE requests SET expires_at = ${past}; UPDATE secrets SET expires_at = ${past}`);
	checkError(assert, await ctx.rq.post(a.inboxKey), 410, 'REQUEST_EXPIRED');
	checkError(assert, await ctx.rq.get(w.requestKey), 410, 'REQUEST_EXPIRED');
	assert.equal((await ctx.rq.get(w.inboxKey)).json.state, 'expired');
	assert.equal(row(ctx, w.inboxKey), '3|1|1|1|0');
	assert.equal(ctx.sql('SELECT state, text_ct IS NULL FROM secrets').trim(), '1|1');
	const c = await ctx.cleanup();
	assert.equal(c.code, 0, c.stderr);
	assert.match(c.stdout, /removed 1 expired secrets and 2 expired secret requests, pruned \d+ counter windows/);
	assert.equal(ctx.sql('SELECT count(*) FROM requests').trim() + ctx.sql('SELECT count(*) FROM secrets').trim(), '00');
	checkError(assert, await ctx.rq.get(a.inboxKey), 404, 'NOT_FOUND');
	ctx.remove();
});

test('validation: public keys, note, allowFiles, server-side answers, files refused', async () => {
	const ctx = requestContext();
	checkError(assert, await ctx.rq.create({}), 400, 'INVALID_PUBLIC_KEY');
	checkError(assert, await ctx.rq.create({ publicKey: 'A'.repeat(87) }), 400, 'INVALID_PUBLIC_KEY');
	const k = await wire.newRequestKeys();
	const note = await wire.sealNote(k.noteKey, k.publicKey, '');
	checkError(assert, await ctx.rq.create({ publicKey: k.publicKey, note, ttl: 60 }), 400, 'INVALID_TTL');
	checkError(assert, await ctx.rq.create({ publicKey: k.publicKey, note, allowFiles: 'yes' }), 400, 'INVALID_ALLOW_FILES');
	checkError(assert, await ctx.rq.create({ publicKey: k.publicKey }), 400, 'INVALID_NOTE');
	checkError(assert, await ctx.rq.create({ publicKey: k.publicKey, note: 'plain' }), 400, 'INVALID_NOTE');
	const big = await wire.sealNote(k.noteKey, k.publicKey, 'x'.repeat(wire.LIMITS.note.max + 1));
	checkError(assert, await ctx.rq.create({ publicKey: k.publicKey, note: big }), 400, 'INVALID_NOTE');
	const q = await ctx.ask({ allowFiles: false });
	const g = await ctx.rq.get(q.requestKey);
	assert.equal(g.json.allowFiles, false);
	assert.equal(await wire.openNote(q.noteKey, g.json.publicKey, g.json.note), '');
	const sealed = await wire.sealAnswer(q.publicKey, q.noteKey, { text: 't' });
	checkError(assert, await ctx.rq.post(q.requestKey, { ...sealed, ephemeralKey: undefined }), 400, 'INVALID_PUBLIC_KEY');
	checkError(assert, await ctx.rq.post(q.requestKey, { ephemeralKey: sealed.ephemeralKey, text: 'plain' }), 400, 'INVALID_ENCRYPTION_MODE');
	checkError(assert, await ctx.answer(q, { files: [{ name: 'a', data: new Uint8Array([1]) }] }), 400, 'FILES_NOT_ALLOWED');
	for (const key of ['A'.repeat(22), 'short']) {
		const nf = await ctx.rq.get(key);
		checkError(assert, nf, 404, 'NOT_FOUND');
		assert.equal(nf.json.error, 'No such secret request.', 'a request, not a secret');
	}
	const m = await ctx.run('requests', { method: 'PUT', env: { REQUEST_URI: '/api/requests' } });
	checkError(assert, m, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(m.headers.allow, 'POST');
	assert.equal((await ctx.rq.get(q.inboxKey)).json.state, 'waiting', 'nothing changed the request');
	ctx.remove();
});

test('a database of schema version 3 (before requests) is migrated on first use', async () => {
	const ctx = requestContext();
	await ctx.createOk({ text: 'an old secret' });
	if (process.env.BURNLINK_TEST_PG)
		ctx.sql('DROP TABLE requests; UPDATE burnlink_schema SET version = 3');
	else
		ctx.sql('DROP TABLE requests; PRAGMA user_version = 3');
	const q = await ctx.ask({ note: 'after the upgrade' });
	assert.equal((await ctx.rq.get(q.inboxKey)).json.state, 'waiting');
	assert.equal(ctx.sql(process.env.BURNLINK_TEST_PG ? 'SELECT version FROM burnlink_schema'
		: 'PRAGMA user_version').trim(), String(SCHEMA_VERSION));
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1', 'the old secret is kept');
	ctx.remove();
});

// Whether any 16-byte window of buf is in one of the database's files (SQLite).
function inDatabase(ctx, buf) {
	const files = dbFiles(ctx.db).map((f) => fs.readFileSync(f));
	for (let i = 0; i + 16 <= buf.length; i += 16)
		if (files.some((f) => f.includes(buf.subarray(i, i + 16))))
			return true;
	return false;
}

// The answer is a one-view secret, stored sealed under a key of its own
// (docs/SECURITY.md, "Gone for good"; the scan: tests/lib/shred.mjs); the
// note is stored as it came and leaves the files by secure_delete and the
// checkpoint.
test('secure deletion: the answer cannot be opened from the data directory once read, the note leaves the files when answered or burned', { skip: process.env.BURNLINK_TEST_PG ? 'scans the SQLite files' : false }, async () => {
	const ctx = requestContext();
	const q = await ctx.ask({ note: 'n'.repeat(200) });
	const note = Buffer.from((await ctx.rq.get(q.requestKey)).json.note.ciphertext, 'base64');
	const body = await wire.sealAnswer(q.publicKey, q.noteKey, { text: 'z'.repeat(3000), files: [{ name: 'f', data: crypto.randomBytes(5000) }] });
	assert.equal((await ctx.rq.post(q.requestKey, body)).status, 200);
	const text = Buffer.from(body.text.ciphertext, 'base64');
	const file = Buffer.from(body.files[0].data.ciphertext, 'base64');
	const cap = capture(ctx.db, Number(ctx.sql('SELECT answer_id FROM requests').trim()));
	assert.ok(cap.slot > 0 && opens(slotKey(ctx.db, cap), cap.probe), 'control: the answer is stored, sealed, and its key opens it');
	assert.ok(!inDatabase(ctx, text) && !inDatabase(ctx, file), 'the answer as sent is in no file');
	assert.ok(!inDatabase(ctx, note), 'the note went with the answer');
	assert.equal((await ctx.rq.post(q.inboxKey)).status, 200);
	assert.deepEqual(problems(ctx.dir, [cap], [['answer text', text], ['answer file', file]]), [], 'nothing opens the answer');

	const b = await ctx.ask({ note: 'm'.repeat(200) });
	const note2 = Buffer.from((await ctx.rq.get(b.requestKey)).json.note.ciphertext, 'base64');
	assert.ok(inDatabase(ctx, note2));
	assert.equal((await ctx.rq.burn(b.requestKey)).status, 200);
	assert.ok(!inDatabase(ctx, note2), 'the burned note is gone from the files');
	ctx.remove();
});
