// secure-delete.test.mjs: once a secret's content is deleted (last view, burn,
// expiry seen by a request or by cron/cleanup) nothing in the data directory
// can give it back. The content is stored sealed under a key of its own in
// <db>-keys (lib/keyslots.c), and the deletion overwrites that key before its
// commit: tests/lib/shred.mjs says exactly what the scan checks (no key
// anywhere in the directory opens the sealed bytes captured while the secret
// was active; the bytes as sent or returned, and the plaintext, are in no
// file at all). Each test first proves, while the secret is active, that its
// sealed content opens under its slot's key (the control).
//
// docs/API.md and docs/SECURITY.md ("Gone for good") promise this at the
// answer: no test waits for cron/cleanup, which is tested on its own.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newContext, encryptItem, newKey } from '../lib/cgi.mjs';
import { capture, opens, slotKey, problems, sealedLeft } from '../lib/shred.mjs';

const ctx = newContext();

const ct = (item) => Buffer.from(item.ciphertext, 'base64');

// The items of a retrieve response, as [what, ciphertext bytes].
function itemsOf(json) {
	const items = [];
	if (json.text) items.push(['text', ct(json.text)]);
	json.files.forEach((f, i) => {
		items.push([`files[${i}].data`, ct(f.data)]);
		if (typeof f.filename === 'object') items.push([`files[${i}].filename`, ct(f.filename)]);
		if (typeof f.mimeType === 'object') items.push([`files[${i}].mimeType`, ct(f.mimeType)]);
	});
	return items;
}

// The control, while the secret is active: it is sealed, its key opens it, and
// the bytes as sent or returned (needles) are in no file.
function sealedNow(secretKey, needles = []) {
	const cap = capture(ctx.db, secretKey);
	assert.ok(cap.slot > 0, 'control: the secret is sealed (key_slot set)');
	assert.ok(cap.probe, 'control: the secret has sealed content');
	assert.ok(opens(slotKey(ctx.db, cap), cap.probe), 'control: its slot\'s key opens its content');
	assert.deepEqual(problems(ctx.dir, [], needles), [], 'control: the content as sent or returned is in no file');
	return cap;
}

// Asserts the scan finds nothing; says where the (unopenable) sealed bytes still lie.
function assertGone(t, caps, needles, when) {
	const found = problems(ctx.dir, caps, needles);
	assert.deepEqual(found, [], `${when}: ${found.map((r) => `${r.what} in ${r.file}`).join(', ')}`);
	const left = sealedLeft(ctx.dir, caps);
	if (left.length) t.diagnostic(`${when}: sealed bytes left, no key opens them: ${left.join(', ')}`);
}

const marker = () => crypto.randomBytes(64);
const dataUrl = (bytes) => `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;

describe('server-side mode', () => {
	test('the last view leaves no text or file ciphertext behind', async (t) => {
		const s = await ctx.createOk({
			text: 'text ' + crypto.randomBytes(40).toString('hex'), maxViews: 2,
			files: [{ filename: 'marker.bin', mimeType: 'application/x-marker', data: dataUrl(marker()) }],
		});
		const first = await ctx.retrieve(s.secretKey);
		assert.equal(first.status, 200);
		const items = itemsOf(first.json);
		assert.equal(items.length, 4);
		const cap = sealedNow(s.secretKey, items);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
		assertGone(t, [cap], items, 'the last view');
	});
	test('the last view leaves no ciphertext of a large file (overflow pages) behind', async (t) => {
		const big = crypto.randomBytes(300000);
		const s = await ctx.createOk({ maxViews: 2, files: [{ filename: 'big.bin', data: dataUrl(big) }] });
		const first = await ctx.retrieve(s.secretKey);
		const items = itemsOf(first.json);
		const cap = sealedNow(s.secretKey, [...items, ['plaintext', big]]);
		assert.ok(cap.items.some((i) => i.what === 'files[0].data' && i.buf.length > 300000), 'control: the file is sealed');
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
		assertGone(t, [cap], [...items, ['plaintext', big]], 'the last view of a large file');
	});
	test('a burn by receipt key leaves no ciphertext behind', async (t) => {
		const s = await ctx.createOk({ text: 'burn ' + crypto.randomBytes(40).toString('hex'), maxViews: 3, files: [{ filename: 'm', data: dataUrl(marker()) }] });
		const first = await ctx.retrieve(s.secretKey);
		const items = itemsOf(first.json);
		const cap = sealedNow(s.secretKey, items);
		assert.equal((await ctx.burn(s.receiptKey)).status, 200);
		assertGone(t, [cap], items, 'a burn');
	});
	test('a burn by secret key leaves no ciphertext behind', async (t) => {
		const s = await ctx.createOk({ text: 'burn2 ' + crypto.randomBytes(40).toString('hex'), maxViews: 3 });
		const items = itemsOf((await ctx.retrieve(s.secretKey)).json);
		const cap = sealedNow(s.secretKey, items);
		assert.equal((await ctx.burn(s.secretKey)).status, 200);
		assertGone(t, [cap], items, 'a burn by secret key');
	});
	test('expiry leaves no ciphertext behind once a request has seen it', async (t) => {
		const s = await ctx.createOk({ text: 'exp ' + crypto.randomBytes(40).toString('hex'), maxViews: 3, files: [{ filename: 'm', data: dataUrl(marker()) }] });
		const items = itemsOf((await ctx.retrieve(s.secretKey)).json);
		const cap = sealedNow(s.secretKey, items);
		ctx.age(s.secretKey);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 410);
		assertGone(t, [cap], items, 'expiry');
	});
	test('expiry that no request sees leaves nothing behind once cron/cleanup has run', async (t) => {
		const a = await ctx.createOk({ text: 'exp-a ' + crypto.randomBytes(40).toString('hex'), maxViews: 3, files: [{ filename: 'm', data: dataUrl(marker()) }] });
		const b = await ctx.createOk({ text: 'exp-b ' + crypto.randomBytes(40).toString('hex') });
		const ia = itemsOf((await ctx.retrieve(a.secretKey)).json);
		const caps = [sealedNow(a.secretKey, ia), sealedNow(b.secretKey)];
		ctx.age(a.secretKey);
		ctx.age(b.secretKey);
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		assert.equal((await ctx.metadata(a.secretKey)).status, 404, 'cleanup removed the row');
		assertGone(t, caps, ia, 'cron/cleanup of expired secrets');
	});
	test('the plaintext never reaches the database files', async () => {
		const m = marker();
		const text = 'plain-' + crypto.randomBytes(32).toString('hex');
		const s = await ctx.createOk({ text, maxViews: 2, files: [{ filename: 'x', data: dataUrl(m) }] });
		await ctx.retrieve(s.secretKey);
		assert.deepEqual(problems(ctx.dir, [], [['text', Buffer.from(text)], ['file', m]]), []);
	});
});

describe('client-side mode', () => {
	test('a burn leaves none of the sent ciphertext behind', async (t) => {
		const key = newKey();
		const text = encryptItem(crypto.randomBytes(100), key);
		const file = { filename: encryptItem('name', key), mimeType: encryptItem('application/x-marker', key), data: encryptItem(marker(), key) };
		const s = await ctx.createOk({ text, files: [file], maxViews: 5 });
		const items = [['text', ct(text)], ['data', ct(file.data)], ['filename', ct(file.filename)], ['mimeType', ct(file.mimeType)]];
		const cap = sealedNow(s.secretKey, items);
		assert.equal(cap.items.length, 4, 'control: every item is sealed');
		assert.equal((await ctx.burn(s.receiptKey)).status, 200);
		assertGone(t, [cap], items, 'a client-side burn');
	});
	test('the last view leaves none of the sent ciphertext behind', async (t) => {
		const key = newKey();
		const text = encryptItem(crypto.randomBytes(100), key);
		const data = encryptItem(crypto.randomBytes(120000), key);
		const s = await ctx.createOk({ text, files: [{ filename: 'f', data }] });
		const items = [['text', ct(text)], ['data', ct(data)]];
		const cap = sealedNow(s.secretKey, items);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
		assertGone(t, [cap], items, 'a client-side last view');
	});
});

describe('with another connection open', () => {
	test('a last view while another connection holds a read snapshot leaves nothing openable, at once', async (t) => {
		const { spawn } = await import('node:child_process');
		// Make sure the database exists, then hold a read snapshot open.
		await ctx.createOk({ text: 'warm up' });
		const reader = spawn('sqlite3', [ctx.db], { stdio: ['pipe', 'pipe', 'inherit'] });
		const ready = new Promise((resolve) => {
			let out = '';
			reader.stdout.on('data', (c) => { out += c; if (out.includes('snapshot-held')) resolve(); });
		});
		reader.stdin.write("BEGIN; SELECT count(*) FROM secrets; SELECT 'snapshot-held';\n");
		await ready;
		try {
			const s = await ctx.createOk({ text: 'wal ' + crypto.randomBytes(40).toString('hex'), files: [{ filename: 'm', data: dataUrl(marker()) }] });
			const cap = sealedNow(s.secretKey);
			const res = await ctx.retrieve(s.secretKey);
			assert.equal(res.status, 200);
			// the reader still holds the WAL: the checkpoint could not have run
			assertGone(t, [cap], itemsOf(res.json), 'a last view during a concurrent read');
		} finally {
			const closed = new Promise((resolve) => reader.on('close', resolve));
			reader.stdin.end('ROLLBACK;\n.quit\n');
			await closed;
		}
	});
});

describe('a database of schema 6 (content stored unsealed)', () => {
	test('after the upgrade its secrets read as before, and a last view still leaves none of their bytes in the files', async () => {
		const { oldSchema, SCHEMA_VERSION } = await import('../lib/schema.mjs');
		const { sha256hex } = await import('../lib/cgi.mjs');
		const old = newContext();
		// its CREATE TABLEs (the ALTER lines are for databases older than it)
		const v6 = oldSchema('sqlite', 6).split('\n').filter((l) => !/^ALTER TABLE/.test(l)).join('\n');
		assert.ok(!/key_slot/.test(v6), 'the version-6 secrets table');
		const key = newKey();
		const sent = encryptItem(crypto.randomBytes(200), key);
		const secretKey = crypto.randomBytes(16).toString('base64url');
		const receipt = crypto.randomBytes(16).toString('base64url');
		const now = Date.now();
		old.sql(`PRAGMA journal_mode=WAL; ${v6}
			INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, max_views, text_ct, text_iv)
			VALUES (x'${sha256hex(secretKey)}', x'${sha256hex(receipt)}', ${now}, ${now + 3600000}, 1,
			x'${ct(sent).toString('hex')}', x'${Buffer.from(sent.iv, 'base64').toString('hex')}');
			PRAGMA user_version = 6;`);
		assert.ok(problems(old.dir, [], [['stored', ct(sent)]]).length > 0, 'control: the unsealed bytes are in the files');
		const res = await old.retrieve(secretKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.equal(res.json.text.ciphertext, sent.ciphertext, 'read as it was stored');
		assert.equal(old.sql('PRAGMA user_version').trim(), String(SCHEMA_VERSION));
		assert.equal(old.sql(`SELECT coalesce(key_slot, 'null') FROM secrets`).trim(), 'null', 'an old row stays unsealed');
		assert.deepEqual(problems(old.dir, [], [['stored', ct(sent)]]), [], 'secure_delete and the checkpoint, as before schema 7');
	});
});
