// Protected retrieval: 5 attempts per minute per secret and client address,
// empty attempts included, through the same counters as every other limit.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { newCtx, cgi, sql, rl, seed, count, windowOf, createSecret, inOneWindow } from './helpers.mjs';

const MIN = 60;

function subject(secretKey, ip) {
	return Buffer.concat([crypto.createHash('sha256').update(secretKey).digest(), Buffer.from(ip)]);
}

test('5 attempts a minute (empty ones too); the 6th is 429 TOO_MANY_ATTEMPTS, no view used', () => inOneWindow(MIN, async () => {
	const ctx = newCtx();
	const { secretKey } = await createSecret(ctx, { text: 'guarded', passphrase: 'right one', maxViews: 3 });
	const ip = '198.51.100.60';
	const [, minuteEnd] = windowOf(MIN);
	const bodies = [undefined, { passphrase: 'wrong 1' }, {}, { passphrase: 'wrong 2' }, { passphrase: null }];
	for (let i = 0; i < 5; i++) {
		const r = await cgi(ctx, 'retrieve', { ip, key: secretKey, body: bodies[i] });
		assert.equal(r.status, 403, r.body.toString());
		assert.equal(r.json.code, 'INVALID_PASSPHRASE');
		assert.deepEqual([rl(r).limit, rl(r).remaining, rl(r).reset], [5, 4 - i, minuteEnd],
			'the minute window is the tightest');
		// docs/API.md: a 403's hint counts down the tighter window, a missing passphrase's too
		const left = 4 - i;
		assert.ok(r.json.hint.includes(`${left} attempt${left === 1 ? '' : 's'} left this minute`), r.json.hint);
	}
	const sixth = await cgi(ctx, 'retrieve', { ip, key: secretKey, body: { passphrase: 'right one' } });
	assert.equal(sixth.status, 429);
	assert.equal(sixth.json.code, 'TOO_MANY_ATTEMPTS');
	assert.deepEqual([rl(sixth).limit, rl(sixth).remaining, rl(sixth).reset], [5, 0, minuteEnd]);
	const ra = rl(sixth).retryAfter;
	assert.ok(ra >= 1 && ra <= 60, `Retry-After ${ra}`);
	assert.equal(sql(ctx.db, 'SELECT view_count FROM secrets'), '0', 'no view used');

	// another address has its own attempts, and the right passphrase opens it
	const other = await cgi(ctx, 'retrieve', { ip: '198.51.100.61', key: secretKey, body: { passphrase: 'right one' } });
	assert.equal(other.status, 200);
	assert.equal(other.json.viewsRemaining, 2);
	assert.deepEqual([rl(other).limit, rl(other).remaining], [5, 4]);
	// an unprotected retrieval reports the daily window
	const { secretKey: open } = await createSecret(ctx, { text: 'open' });
	const plain = await cgi(ctx, 'retrieve', { ip, key: open });
	assert.equal(plain.status, 200);
	assert.deepEqual([rl(plain).limit, rl(plain).remaining], [1000, 993]);
}));

test('the attempts of the last minute do not count in this one; burn attempts count the same way', () => inOneWindow(MIN, async () => {
	const ctx = newCtx();
	const { secretKey } = await createSecret(ctx, { text: 'guarded', passphrase: 'right one' });
	const ip = '198.51.100.62';
	const [start] = windowOf(MIN);
	seed(ctx, 'passphrase', subject(secretKey, ip), start - MIN, MIN, 50);
	seed(ctx, 'passphrase', subject(secretKey, ip), start, MIN, 4);
	const fifth = await cgi(ctx, 'delete', { ip, key: secretKey, body: { passphrase: 'nope' } });
	assert.equal(fifth.status, 403);
	assert.equal(rl(fifth).remaining, 0);
	const sixth = await cgi(ctx, 'delete', { ip, key: secretKey, body: { passphrase: 'right one' } });
	assert.equal(sixth.status, 429);
	assert.equal(sixth.json.code, 'TOO_MANY_ATTEMPTS');
	assert.equal(sql(ctx.db, 'SELECT state FROM secrets'), '0', 'not burned');
	assert.equal(count(ctx, 'passphrase', subject(secretKey, ip), start), 6);
}));
