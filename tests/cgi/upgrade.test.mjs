// upgrade.test.mjs: a database made by an older release (the schema-3 fixture
// of tests/fixtures/schema3, made by the programs of 604d26a) read through
// today's programs, every item as before; and a database whose schema is newer
// than the programs' (a rollback after an upgrade), refused, never served.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SCHEMA_VERSION } from '../lib/schema.mjs';
import { ROOT, newContext, checkError, decryptItem } from '../lib/cgi.mjs';
import { Browser, createWithKey } from '../accounts/helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'schema3');
// the schema's version, from its one place (lib/store.h, tests/lib/schema.mjs)
const CURRENT = String(SCHEMA_VERSION);

// An item as the recipient reads it: decrypted with key when it is sealed.
const open = (item, key) => (item !== null && typeof item === 'object' ? decryptItem(item, key) : Buffer.from(item));

describe('a schema-3 database made by an older release', () => {
	const items = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'items.json'), 'utf8'));
	const ctx = newContext({ BURNLINK_SIGNUP: 'open' });
	before(() => {
		fs.copyFileSync(path.join(FIXTURE, 'burnlink.db'), ctx.db);
		fs.chmodSync(ctx.db, 0o600);
		// The fixture's clock moved to today: its secrets expire as long after now as they did after it was made.
		ctx.sql(`UPDATE secrets SET expires_at = expires_at + ${Date.now() - items.madeAt}`);
	});
	after(() => ctx.remove());

	test('the fixture is schema 3', () => {
		assert.equal(items.schema, 3);
		assert.equal(ctx.sql('PRAGMA user_version').trim(), '3');
	});
	test('every receipt reads as before, and the first request moves the schema to the current version', async () => {
		for (const s of items.secrets) {
			const m = await ctx.metadata(s.receiptKey);
			assert.equal(m.status, 200, `${s.what}: ${m.body}`);
			assert.equal(m.json.state, s.state || 'active', s.what);
			assert.equal(m.json.viewCount, s.viewCount ?? (s.state === 'exhausted' ? 1 : 0), s.what);
		}
		assert.equal(ctx.sql('PRAGMA user_version').trim(), CURRENT);
	});
	test('every active secret gives back its text and files byte for byte', async () => {
		for (const s of items.secrets.filter((x) => !x.state)) {
			const key = s.key || s.clientKey;
			const res = await ctx.retrieve(s.secretKey, s.passphrase ? { passphrase: s.passphrase } : undefined);
			assert.equal(res.status, 200, `${s.what}: ${res.body}`);
			assert.equal(open(res.json.text, key).toString('utf8'), s.text, s.what);
			assert.equal(res.json.files.length, (s.files || []).length, s.what);
			(s.files || []).forEach((f, i) => {
				const got = res.json.files[i];
				assert.equal(open(got.filename, key).toString('utf8'), f.filename, s.what);
				if (f.mimeType) assert.equal(open(got.mimeType, key).toString('utf8'), f.mimeType, s.what);
				assert.equal(open(got.data, key).toString('base64'), f.b64, s.what);
			});
		}
	});
	test('a wrong passphrase is still refused', async () => {
		const s = items.secrets.find((x) => x.passphrase);
		checkError(assert, await ctx.retrieve(s.secretKey, { passphrase: 'not it' }), 403, 'INVALID_PASSPHRASE');
	});
	test('burned and used-up secrets keep their states', async () => {
		checkError(assert, await ctx.retrieve(items.secrets.find((x) => x.state === 'burned').secretKey), 410, 'SECRET_BURNED');
		checkError(assert, await ctx.retrieve(items.secrets.find((x) => x.state === 'exhausted').secretKey), 410, 'MAX_VIEWS_REACHED');
	});
	test('a not-deletable secret is still not deletable with its secret key', async () => {
		const s = items.secrets.find((x) => x.what.includes('not deletable'));
		checkError(assert, await ctx.burn(s.secretKey), 403, 'DELETION_NOT_ALLOWED');
	});
	test('the account made by sign-up signs in with its password and sees its secret', async () => {
		const a = items.accounts.find((x) => x.password);
		const b = new Browser(ctx);
		assert.equal((await b.signin(a.name, a.password)).status, 200);
		const mine = (await b.req('mysecrets')).json.secrets;
		assert.equal(mine.length, 1);
		assert.equal(mine[0].state, 'exhausted', 'read once by the test above');
	});
	test('the API key issued by the operator still creates secrets', async () => {
		const res = await createWithKey(ctx, items.keys[0].key);
		assert.equal(res.status, 200, res.body.toString());
	});
	test('cleanup runs on the upgraded database and removes nothing that is live', async () => {
		const r = await ctx.cleanup();
		assert.equal(r.code, 0, r.stderr);
		const s = items.secrets.find((x) => x.what === 'server-side text');
		assert.equal((await ctx.metadata(s.receiptKey)).status, 200);
	});
});

describe('a database whose schema is newer than the programs', () => {
	const ctx = newContext();
	let s, newer;
	before(async () => {
		s = await ctx.createOk({ text: 'made before the rollback' });
		newer = Number(CURRENT) + 1;
		ctx.sql(`PRAGMA user_version = ${newer}`);
	});
	after(() => ctx.remove());

	test('every program refuses it: 503 SCHEMA_TOO_NEW with a hint naming both versions', async () => {
		for (const res of [await ctx.metadata(s.receiptKey), await ctx.retrieve(s.secretKey),
			await ctx.create({ text: 'x' }), await ctx.burn(s.receiptKey)]) {
			const j = checkError(assert, res, 503, 'SCHEMA_TOO_NEW');
			assert.match(j.hint, new RegExp(`version ${newer}\\b.*version ${CURRENT}\\b`), j.hint);
			assert.match(j.hint, /backup/);
			assert.ok(Number(res.headers['retry-after']) > 0);
		}
	});
	test('nothing was read, used or changed: the secret is untouched and the version stays', () => {
		assert.equal(ctx.sql('PRAGMA user_version').trim(), String(newer));
		assert.equal(ctx.sql('SELECT count(*), sum(view_count), min(state) FROM secrets').trim(), '1|0|0');
	});
	test('cron/cleanup and burnlink-admin refuse it too, naming both versions', async () => {
		const c = await ctx.cleanup();
		assert.notEqual(c.code, 0);
		assert.match(c.stderr, new RegExp(`version ${newer}\\b.*version ${CURRENT}\\b`));
		assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '1');
	});
	test('/api/health fails its database check with SCHEMA_TOO_NEW', async () => {
		const h = await ctx.run('health', { method: 'GET', env: { REQUEST_URI: '/api/health' } });
		assert.equal(h.status, 503);
		assert.match(h.json.checks.database.error, /^SCHEMA_TOO_NEW: /);
	});
});
