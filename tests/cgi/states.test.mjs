// states.test.mjs: every row of docs/API.md's state table through the real programs:
// create, retrieve (views counting down), passphrases and attempts, metadata,
// burn by either key, expiry, cleanup, and the keys that find nothing.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newContext, checkError, sha256hex, sample, keyCommitment } from '../lib/cgi.mjs';
import { schemaMembers } from '../lib/openapi.mjs';

const ctx = newContext();
const PASS = 'open sesame';

async function receipt(s) {
	const res = await ctx.metadata(s.receiptKey);
	assert.equal(res.status, 200, res.body.toString());
	return res.json;
}

describe('create', () => {
	test('a valid create answers 200 with secretUrl, metadataUrl and metadata', async () => {
		const res = await ctx.create({ text: 'hello', maxViews: 2, ttl: 3600 });
		assert.equal(res.status, 200, res.body.toString());
		const j = res.json;
		assert.equal(j.success, true);
		assert.equal(typeof j.secretUrl, 'string');
		assert.equal(typeof j.metadataUrl, 'string');
		assert.match(j.metadata.key, /^[A-Za-z0-9_-]{22}$/);
		assert.match(j.metadata.secretKey, /^[A-Za-z0-9_-]{22}$/);
		assert.notEqual(j.metadata.key, j.metadata.secretKey);
		assert.equal(j.metadata.maxViews, 2);
		assert.match(j.metadata.expiresAt, /Z$/);
	});
	test('a new secret is active', async () => {
		const s = await ctx.createOk({ text: 'hello' });
		const r = await receipt(s);
		assert.equal(r.state, 'active');
		assert.equal(r.exists, true);
	});
	test('two creates give different keys', async () => {
		const a = await ctx.createOk({ text: 'x' });
		const b = await ctx.createOk({ text: 'x' });
		assert.notEqual(a.secretKey, b.secretKey);
		assert.notEqual(a.receiptKey, b.receiptKey);
		assert.notDeepEqual(a.key, b.key);
	});
});

describe('metadata', () => {
	test('by secretKey: exactly the fields of a secret', async () => {
		const s = await ctx.createOk({ text: 'm', maxViews: 3, ttl: 7200, deletable: false });
		const res = await ctx.metadata(s.secretKey);
		assert.equal(res.status, 200);
		assert.deepEqual(res.json, {
			exists: true, type: 'secret', hasPassphrase: false, expiresAt: s.metadata.expiresAt,
			maxViews: 3, viewsRemaining: 3, deletable: false, keyCommitment: keyCommitment(s.key),
		});
	});
	test('by receipt key: the receipt fields, never the secretKey', async () => {
		const t0 = Date.now();
		const s = await ctx.createOk({ text: 'm', maxViews: 4 });
		const res = await ctx.metadata(s.receiptKey);
		assert.equal(res.status, 200);
		const r = res.json;
		// every member docs/openapi.yaml requires, and only members it describes
		const { required, properties } = schemaMembers('ReceiptMetadata');
		for (const k of required) assert.ok(k in r, `receipt member ${k}`);
		for (const k of Object.keys(r)) assert.ok(properties.includes(k), `receipt member ${k} is described`);
		assert.ok(!('secretKey' in r));
		assert.equal(r.type, 'receipt');
		assert.equal(r.state, 'active');
		assert.equal(r.exists, true);
		assert.equal(r.hasPassphrase, false);
		assert.equal(r.maxViews, 4);
		assert.equal(r.viewsRemaining, 4);
		assert.equal(r.viewCount, 0);
		assert.equal(r.lastViewedAt, null);
		assert.equal(r.deletable, true);
		assert.equal(r.expiresAt, s.metadata.expiresAt);
		const created = Date.parse(r.createdAt);
		assert.ok(created >= t0 - 1000 && created <= Date.now() + 1000, r.createdAt);
		assert.equal(Date.parse(r.expiresAt) - created, 86400e3);
		assert.ok(!res.body.toString().includes(s.secretKey), 'the receipt must not reveal the secretKey');
	});
	test('metadata consumes no view', async () => {
		const s = await ctx.createOk({ text: 'm', maxViews: 1 });
		for (let i = 0; i < 3; i++) assert.equal((await ctx.metadata(s.secretKey)).status, 200);
		const r = await receipt(s);
		assert.equal(r.viewCount, 0);
		assert.equal(r.viewsRemaining, 1);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
	});
	test('an unlimited secret has viewsRemaining null', async () => {
		const s = await ctx.createOk({ text: 'm', maxViews: null });
		const res = await ctx.metadata(s.secretKey);
		assert.equal(res.json.maxViews, null);
		assert.equal(res.json.viewsRemaining, null);
	});
	test('hasPassphrase is true for a protected secret', async () => {
		const s = await ctx.createOk({ text: 'm', passphrase: PASS });
		assert.equal((await ctx.metadata(s.secretKey)).json.hasPassphrase, true);
		assert.equal((await receipt(s)).hasPassphrase, true);
	});
});

describe('retrieve', () => {
	test('a retrieve consumes one view and answers the content', async () => {
		const s = await ctx.createOk({ text: 'one view', maxViews: 2 });
		const res = await ctx.retrieve(s.secretKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.equal(res.json.success, true);
		assert.equal(typeof res.json.text.ciphertext, 'string');
		assert.equal(typeof res.json.text.iv, 'string');
		assert.deepEqual(res.json.files, []);
		assert.equal(res.json.viewsRemaining, 1);
		assert.equal((await receipt(s)).viewCount, 1);
	});
	test('viewsRemaining counts down to 0, then 410 MAX_VIEWS_REACHED', async () => {
		const s = await ctx.createOk({ text: 'count', maxViews: 3 });
		const seen = [];
		for (let i = 0; i < 3; i++) {
			const res = await ctx.retrieve(s.secretKey);
			assert.equal(res.status, 200);
			seen.push(res.json.viewsRemaining);
		}
		assert.deepEqual(seen, [2, 1, 0]);
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'MAX_VIEWS_REACHED');
	});
	test('the last view leaves an exhausted receipt', async () => {
		const t0 = Date.now();
		const s = await ctx.createOk({ text: 'count', maxViews: 1 });
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
		const r = await receipt(s);
		assert.equal(r.state, 'exhausted');
		assert.equal(r.exists, false);
		assert.equal(r.viewCount, 1);
		assert.equal(r.viewsRemaining, 0);
		const seen = Date.parse(r.lastViewedAt);
		assert.ok(seen >= t0 - 1000 && seen <= Date.now() + 1000, r.lastViewedAt);
	});
	test('metadata by secretKey of an exhausted secret is 410 MAX_VIEWS_REACHED', async () => {
		const s = await ctx.createOk({ text: 'x', maxViews: 1 });
		await ctx.retrieve(s.secretKey);
		checkError(assert, await ctx.metadata(s.secretKey), 410, 'MAX_VIEWS_REACHED');
	});
	test('an unlimited secret keeps answering with viewsRemaining null', async () => {
		const s = await ctx.createOk({ text: 'forever', maxViews: null });
		for (let i = 0; i < 3; i++) {
			const res = await ctx.retrieve(s.secretKey);
			assert.equal(res.status, 200);
			assert.equal(res.json.viewsRemaining, null);
		}
		const r = await receipt(s);
		assert.equal(r.viewCount, 3);
		assert.equal(r.state, 'active');
	});
	test('the receipt key on retrieve is 404 NOT_FOUND and uses no view', async () => {
		const s = await ctx.createOk({ text: 'x', maxViews: 1 });
		checkError(assert, await ctx.retrieve(s.receiptKey), 404, 'NOT_FOUND');
		assert.equal((await receipt(s)).viewCount, 0);
	});
	test('a retrieve of a secret without passphrase ignores a passphrase in the body', async () => {
		const s = await ctx.createOk({ text: 'x' });
		assert.equal((await ctx.retrieve(s.secretKey, { passphrase: 'whatever' })).status, 200);
	});
	test('a retrieve with an empty JSON object body works', async () => {
		const s = await ctx.createOk({ text: 'x' });
		assert.equal((await ctx.retrieve(s.secretKey, {})).status, 200);
	});
});

describe('passphrase', () => {
	test('the right passphrase answers the content', async () => {
		const s = await ctx.createOk({ text: 'p', passphrase: PASS });
		const res = await ctx.retrieve(s.secretKey, { passphrase: PASS });
		assert.equal(res.status, 200, res.body.toString());
		assert.equal(res.json.viewsRemaining, 0);
	});
	test('a wrong passphrase is 403 INVALID_PASSPHRASE and uses no view', async () => {
		const s = await ctx.createOk({ text: 'p', passphrase: PASS });
		checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: 'open sesamE' }), 403, 'INVALID_PASSPHRASE');
		const r = await receipt(s);
		assert.equal(r.viewCount, 0);
		assert.equal(r.state, 'active');
		assert.equal(r.lastViewedAt, null);
	});
	test('a missing passphrase is 403 INVALID_PASSPHRASE and uses no view', async () => {
		const s = await ctx.createOk({ text: 'p', passphrase: PASS });
		checkError(assert, await ctx.retrieve(s.secretKey), 403, 'INVALID_PASSPHRASE');
		assert.equal((await receipt(s)).viewCount, 0);
	});
	test('the 6th attempt within a minute is 429 TOO_MANY_ATTEMPTS with Retry-After, even with the right passphrase', async () => {
		// Empty attempts count too, and cost no scrypt. The window is the UTC
		// minute: if the attempts straddled a minute boundary, do it again.
		for (let round = 0; round < 2; round++) {
			const s = await ctx.createOk({ text: 'p', passphrase: PASS });
			const minute = Math.floor(Date.now() / 60000);
			for (let i = 0; i < 5; i++)
				checkError(assert, await ctx.retrieve(s.secretKey), 403, 'INVALID_PASSPHRASE');
			const res = await ctx.retrieve(s.secretKey, { passphrase: PASS });
			if (Math.floor(Date.now() / 60000) !== minute && res.status !== 429) continue;
			checkError(assert, res, 429, 'TOO_MANY_ATTEMPTS');
			const ra = Number(res.headers['retry-after']);
			assert.ok(Number.isInteger(ra) && ra >= 1 && ra <= 60, `Retry-After ${res.headers['retry-after']}`);
			assert.equal((await receipt(s)).viewCount, 0);
			return;
		}
		assert.fail('two rounds straddled a minute boundary');
	});
	test('attempts are counted per client address', async () => {
		for (let round = 0; round < 2; round++) {
			const s = await ctx.createOk({ text: 'p', passphrase: PASS });
			const minute = Math.floor(Date.now() / 60000);
			for (let i = 0; i < 6; i++)
				await ctx.retrieve(s.secretKey, undefined, { env: { REMOTE_ADDR: '198.51.100.7' } });
			const blocked = await ctx.retrieve(s.secretKey, undefined, { env: { REMOTE_ADDR: '198.51.100.7' } });
			if (Math.floor(Date.now() / 60000) !== minute) continue;
			assert.equal(blocked.status, 429);
			const res = await ctx.retrieve(s.secretKey, { passphrase: PASS }, { env: { REMOTE_ADDR: '198.51.100.8' } });
			assert.equal(res.status, 200, res.body.toString());
			return;
		}
		assert.fail('two rounds straddled a minute boundary');
	});
	test('the wrong-passphrase hint says how many attempts are left', async () => {
		const s = await ctx.createOk({ text: 'p', passphrase: PASS });
		const j = checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: 'nope nope' }), 403, 'INVALID_PASSPHRASE');
		assert.match(j.hint, /\d attempts? left/);
	});
});

describe('burn', () => {
	test('burn by receipt key answers {success: true, state: "burned"}', async () => {
		const s = await ctx.createOk({ text: 'b' });
		const res = await ctx.burn(s.receiptKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.deepEqual(res.json, { success: true, state: 'burned' });
	});
	test('a burned secret is 410 SECRET_BURNED on retrieve', async () => {
		const s = await ctx.createOk({ text: 'b' });
		await ctx.burn(s.receiptKey);
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'SECRET_BURNED');
	});
	test('a burned secret is 410 SECRET_BURNED on metadata by secretKey', async () => {
		const s = await ctx.createOk({ text: 'b' });
		await ctx.burn(s.receiptKey);
		checkError(assert, await ctx.metadata(s.secretKey), 410, 'SECRET_BURNED');
	});
	test('a burned secret has a receipt in state burned', async () => {
		const s = await ctx.createOk({ text: 'b', maxViews: 5 });
		await ctx.retrieve(s.secretKey);
		await ctx.burn(s.receiptKey);
		const r = await receipt(s);
		assert.equal(r.state, 'burned');
		assert.equal(r.exists, false);
		assert.equal(r.viewCount, 1);
		assert.equal(r.viewsRemaining, 0);
	});
	test('burn by receipt key works even when deletable is false and a passphrase is set', async () => {
		const s = await ctx.createOk({ text: 'b', deletable: false, passphrase: PASS });
		const res = await ctx.burn(s.receiptKey);
		assert.equal(res.status, 200, res.body.toString());
		checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: PASS }), 410, 'SECRET_BURNED');
	});
	test('burn by secretKey works when deletable (the default)', async () => {
		const s = await ctx.createOk({ text: 'b' });
		const res = await ctx.burn(s.secretKey);
		assert.equal(res.status, 200, res.body.toString());
		assert.equal((await receipt(s)).state, 'burned');
	});
	test('burn by secretKey with deletable false is 403 DELETION_NOT_ALLOWED and stays active', async () => {
		const s = await ctx.createOk({ text: 'b', deletable: false });
		checkError(assert, await ctx.burn(s.secretKey), 403, 'DELETION_NOT_ALLOWED');
		assert.equal((await receipt(s)).state, 'active');
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
	});
	test('burn by secretKey of a protected secret without the passphrase is 403 INVALID_PASSPHRASE', async () => {
		const s = await ctx.createOk({ text: 'b', passphrase: PASS });
		checkError(assert, await ctx.burn(s.secretKey), 403, 'INVALID_PASSPHRASE');
		assert.equal((await receipt(s)).state, 'active');
	});
	test('burn by secretKey of a protected secret with a wrong passphrase is 403 INVALID_PASSPHRASE', async () => {
		const s = await ctx.createOk({ text: 'b', passphrase: PASS });
		checkError(assert, await ctx.burn(s.secretKey, { passphrase: 'wrong one' }), 403, 'INVALID_PASSPHRASE');
		assert.equal((await receipt(s)).state, 'active');
	});
	test('burn by secretKey of a protected secret with the passphrase burns it', async () => {
		const s = await ctx.createOk({ text: 'b', passphrase: PASS });
		const res = await ctx.burn(s.secretKey, { passphrase: PASS });
		assert.equal(res.status, 200, res.body.toString());
		assert.equal((await receipt(s)).state, 'burned');
	});
	test('burning twice is 410 SECRET_BURNED', async () => {
		const s = await ctx.createOk({ text: 'b' });
		assert.equal((await ctx.burn(s.receiptKey)).status, 200);
		checkError(assert, await ctx.burn(s.receiptKey), 410, 'SECRET_BURNED');
	});
	test('burning an exhausted secret is 410 MAX_VIEWS_REACHED', async () => {
		const s = await ctx.createOk({ text: 'b', maxViews: 1 });
		await ctx.retrieve(s.secretKey);
		checkError(assert, await ctx.burn(s.receiptKey), 410, 'MAX_VIEWS_REACHED');
		assert.equal((await receipt(s)).state, 'exhausted');
	});
});

describe('expiry', () => {
	test('an expired secret is 410 SECRET_EXPIRED on retrieve', async () => {
		const s = await ctx.createOk({ text: 'e' });
		ctx.age(s.secretKey);
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'SECRET_EXPIRED');
	});
	test('an expired secret is 410 SECRET_EXPIRED on metadata by secretKey', async () => {
		const s = await ctx.createOk({ text: 'e' });
		ctx.age(s.secretKey);
		checkError(assert, await ctx.metadata(s.secretKey), 410, 'SECRET_EXPIRED');
	});
	test('an expired secret has a receipt in state expired', async () => {
		const s = await ctx.createOk({ text: 'e', maxViews: 3 });
		ctx.age(s.secretKey);
		const r = await receipt(s);
		assert.equal(r.state, 'expired');
		assert.equal(r.exists, false);
		assert.equal(r.viewsRemaining, 0);
	});
	test('burning an expired secret is 410 SECRET_EXPIRED', async () => {
		const s = await ctx.createOk({ text: 'e' });
		ctx.age(s.secretKey);
		checkError(assert, await ctx.burn(s.receiptKey), 410, 'SECRET_EXPIRED');
	});
	test('a secret expiring exactly now is expired', async () => {
		const s = await ctx.createOk({ text: 'e' });
		ctx.age(s.secretKey, 0);
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'SECRET_EXPIRED');
	});
	test('the first request after expiry deletes the content', async () => {
		const s = await ctx.createOk({ text: 'e', files: [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }] });
		ctx.age(s.secretKey);
		await ctx.metadata(s.receiptKey);
		const row = ctx.sql(`SELECT state, text_ct IS NULL, text_iv IS NULL, (SELECT count(*) FROM attachments WHERE secret_id = secrets.id) FROM secrets WHERE receipt_hash = x'${sha256hex(s.receiptKey)}'`).trim();
		assert.equal(row, '1|1|1|0');
	});
	// The last view deletes attachments only where the locked row has some
	// (lib/secret.c, set_state()): both kinds end with none. It is counted and
	// ended in one statement (ST_VIEW_LAST): the count and time are kept.
	test('the last view deletes the content: attachments too, and a text alone; it is counted', async () => {
		const f = await ctx.createOk({ text: 'l', files: [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }] });
		const t = await ctx.createOk({ text: 'l' });
		for (const s of [f, t]) {
			const before = Date.now();
			assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
			const after = Date.now();
			const row = ctx.sql(`SELECT state, view_count, text_ct IS NULL, text_iv IS NULL, (SELECT count(*) FROM attachments WHERE secret_id = secrets.id), last_viewed_at FROM secrets WHERE receipt_hash = x'${sha256hex(s.receiptKey)}'`).trim().split('|');
			assert.deepEqual(row.slice(0, 5), ['3', '1', '1', '1', '0']);
			assert.ok(Number(row[5]) >= before && Number(row[5]) <= after, `last_viewed_at ${row[5]} within the request`);
			const m = await ctx.metadata(s.receiptKey);
			assert.equal(m.json.viewCount, 1, m.body.toString());
			assert.equal(m.json.state, 'exhausted', m.body.toString());
		}
	});
});

describe('cleanup', () => {
	test('after cleanup an expired secret is 404 NOT_FOUND by either key', async () => {
		const s = await ctx.createOk({ text: 'c' });
		ctx.age(s.secretKey);
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		checkError(assert, await ctx.retrieve(s.secretKey), 404, 'NOT_FOUND');
		checkError(assert, await ctx.metadata(s.secretKey), 404, 'NOT_FOUND');
		checkError(assert, await ctx.metadata(s.receiptKey), 404, 'NOT_FOUND');
		checkError(assert, await ctx.burn(s.receiptKey), 404, 'NOT_FOUND');
	});
	test('an exhausted tombstone stays (410) until its expiry, then cleanup removes it (404)', async () => {
		const s = await ctx.createOk({ text: 'c', maxViews: 1 });
		await ctx.retrieve(s.secretKey);
		assert.equal((await ctx.cleanup()).code, 0);
		checkError(assert, await ctx.retrieve(s.secretKey), 410, 'MAX_VIEWS_REACHED');
		ctx.age(s.secretKey);
		assert.equal((await ctx.cleanup()).code, 0);
		checkError(assert, await ctx.retrieve(s.secretKey), 404, 'NOT_FOUND');
	});
	test('a burned tombstone is removed by cleanup after its expiry', async () => {
		const s = await ctx.createOk({ text: 'c' });
		await ctx.burn(s.receiptKey);
		ctx.age(s.secretKey);
		assert.equal((await ctx.cleanup()).code, 0);
		checkError(assert, await ctx.metadata(s.receiptKey), 404, 'NOT_FOUND');
	});
	test('cleanup leaves active secrets alone', async () => {
		const s = await ctx.createOk({ text: 'c' });
		assert.equal((await ctx.cleanup()).code, 0);
		assert.equal((await ctx.retrieve(s.secretKey)).status, 200);
	});
});

describe('keys that find nothing', () => {
	const bad = [
		['21 characters', '/' + 'A'.repeat(21)],
		['23 characters', '/' + 'A'.repeat(23)],
		['a "+"', '/' + 'A'.repeat(21) + '+'],
		['a "/" inside', '/' + 'A'.repeat(10) + '/' + 'A'.repeat(11)],
		['a "=" pad', '/' + 'A'.repeat(21) + '='],
		['a "."', '/' + 'A'.repeat(21) + '.'],
		['a percent escape', '/' + 'A'.repeat(19) + '%2F'],
		['a trailing slash', '/' + 'A'.repeat(22) + '/'],
		['a space', '/' + 'A'.repeat(21) + ' '],
		['a non-ASCII letter', '/' + 'A'.repeat(21) + 'é'],
		['an empty key', '/'],
		['no leading slash', 'A'.repeat(22)],
		['a path traversal', '/../../etc/passwd'],
	];
	for (const [name, pathInfo] of sample(bad)) {
		test(`a key with ${name} is 404 NOT_FOUND on metadata, retrieve and delete`, async () => {
			checkError(assert, await ctx.run('metadata', { method: 'GET', pathInfo }), 404, 'NOT_FOUND');
			checkError(assert, await ctx.run('retrieve', { method: 'POST', pathInfo }), 404, 'NOT_FOUND');
			checkError(assert, await ctx.run('delete', { method: 'DELETE', pathInfo }), 404, 'NOT_FOUND');
		});
	}
	test('no PATH_INFO at all is 404 NOT_FOUND', async () => {
		checkError(assert, await ctx.run('metadata', { method: 'GET' }), 404, 'NOT_FOUND');
		checkError(assert, await ctx.run('retrieve', { method: 'POST' }), 404, 'NOT_FOUND');
		checkError(assert, await ctx.run('delete', { method: 'DELETE' }), 404, 'NOT_FOUND');
	});
	test('a malformed key adds nothing to the database', async () => {
		const fresh = newContext();
		await fresh.createOk({ text: 'one' });
		checkError(assert, await fresh.metadata('short'), 404, 'NOT_FOUND');
		checkError(assert, await fresh.retrieve('A'.repeat(23)), 404, 'NOT_FOUND');
		checkError(assert, await fresh.burn('A+AAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
		assert.equal(fresh.sql('SELECT count(*) FROM secrets').trim(), '1');
		fresh.remove();
	});
	// docs/API.md: "A key that is not 22 url-safe base64 characters is 404
	// NOT_FOUND without touching the database." The per-IP rate limit runs first,
	// in the counters file alone.
	test('a malformed key is answered without opening the secrets database', async () => {
		const fresh = newContext();
		checkError(assert, await fresh.metadata('short'), 404, 'NOT_FOUND');
		checkError(assert, await fresh.retrieve('A'.repeat(23)), 404, 'NOT_FOUND');
		checkError(assert, await fresh.burn('A+AAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
		assert.equal(fs.existsSync(fresh.db), false, 'the secrets database was created');
		fresh.remove();
	});
	test('a secretKey with one character changed is 404 NOT_FOUND', async () => {
		const s = await ctx.createOk({ text: 'k' });
		const k = s.secretKey;
		const other = k.slice(0, -1) + (k.endsWith('A') ? 'B' : 'A');
		checkError(assert, await ctx.retrieve(other), 404, 'NOT_FOUND');
	});
	test('keys are case-sensitive', async () => {
		let s;
		do s = await ctx.createOk({ text: 'k' }); while (s.secretKey.toUpperCase() === s.secretKey);
		checkError(assert, await ctx.retrieve(s.secretKey.toUpperCase()), 404, 'NOT_FOUND');
	});
});
