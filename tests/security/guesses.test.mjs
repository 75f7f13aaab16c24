// guesses.test.mjs: passphrase guesses are capped per secret across all
// clients (20 an hour), and per secret and client with IPv6 counted per /48
// (5 a minute) (docs/API.md, "Passphrases"; docs/SECURITY.md). Before, only
// the per-client minute limit existed, with IPv6 per /64: ten /64s of one
// /48 had fifty guesses a minute, any number of addresses had no bound.
import test from 'node:test';
import assert from 'node:assert/strict';
import { newCtx, cgi, sql, rl, windowOf, createSecret, inOneWindow, assertRetryAfter } from '../limits/helpers.mjs';

const guess = (ctx, key, ip, passphrase) => cgi(ctx, 'retrieve', { key, ip, body: { passphrase } });
const views = (ctx) => sql(ctx.db, 'SELECT view_count FROM secrets');

test('20 guesses an hour per secret from all addresses together, then 429 with Retry-After', () =>
	inOneWindow(3600, async () => {
		const ctx = newCtx();
		const s = await createSecret(ctx, { text: 'the prize', passphrase: 'right horse', maxViews: 3 });
		const other = await createSecret(ctx, { text: 'another', passphrase: 'right horse' });
		for (let i = 0; i < 20; i++) {
			const r = await guess(ctx, s.secretKey, `198.51.100.${i + 1}`, `wrong ${i}`);
			assert.equal(r.status, 403, `guess ${i + 1}: ${r.body}`);
			assert.equal(r.json.code, 'INVALID_PASSPHRASE');
		}
		const t0 = Date.now();
		// A new address, with the right passphrase: the secret's hour is spent.
		const r = await guess(ctx, s.secretKey, '203.0.113.7', 'right horse');
		assert.equal(r.status, 429, r.body.toString());
		assert.equal(r.json.code, 'TOO_MANY_ATTEMPTS');
		assert.match(r.json.hint, /20 passphrase attempts an hour .* all addresses/);
		const h = rl(r);
		assert.equal(h.limit, 20);
		assert.equal(h.remaining, 0);
		assert.equal(h.reset, windowOf(3600)[1]);
		assertRetryAfter(assert, h.retryAfter, h.reset, t0);
		assert.equal(views(ctx).split('\n')[0], '0', 'no view used');

		// Another secret is not affected.
		const ok = await guess(ctx, other.secretKey, '203.0.113.7', 'right horse');
		assert.equal(ok.status, 200, ok.body.toString());
	}));

test('the 403 of a wrong guess counts down the secret\'s hour when it is the tighter', () =>
	inOneWindow(3600, async () => {
		const ctx = newCtx();
		const s = await createSecret(ctx, { text: 'x', passphrase: 'right horse' });
		let last;
		for (let i = 0; i < 17; i++) last = await guess(ctx, s.secretKey, `198.51.100.${i + 1}`, 'nope');
		assert.equal(last.status, 403);
		assert.match(last.json.hint, /3 attempts left this hour for this secret/);
		assert.equal(rl(last).limit, 20);
		assert.equal(rl(last).remaining, 3);
	}));

test('IPv6: the /64s of one /48 share the minute\'s 5 guesses', () =>
	inOneWindow(60, async () => {
		const ctx = newCtx();
		const s = await createSecret(ctx, { text: 'x', passphrase: 'right horse' });
		for (let i = 0; i < 5; i++) {
			const r = await guess(ctx, s.secretKey, `2001:db8:7:${i + 1}::1`, 'nope');
			assert.equal(r.status, 403, r.body.toString());
		}
		const r = await guess(ctx, s.secretKey, '2001:db8:7:ffff::2', 'right horse');
		assert.equal(r.status, 429, r.body.toString());
		assert.equal(r.json.code, 'TOO_MANY_ATTEMPTS');
		assert.equal(rl(r).limit, 5);
		// Another /48 has its own 5.
		const next = await guess(ctx, s.secretKey, '2001:db8:8::1', 'right horse');
		assert.equal(next.status, 200, next.body.toString());
	}));
