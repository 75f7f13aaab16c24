// Creation in a signed-in session: 100 per hour and 1000 per UTC day per
// account, at the exact boundaries, with the headers on both sides.
// The browser side (sign-up, cookie, CSRF token) comes from the accounts suite.
import test from 'node:test';
import assert from 'node:assert/strict';
import { accountsContext, signedUp } from '../accounts/helpers.mjs';
import { admin, windowOf, inOneWindow, assertRetryAfter } from './helpers.mjs';

function rlOf(res) {
	const h = res.headers;
	return [Number(h['x-ratelimit-limit']), Number(h['x-ratelimit-remaining']), Number(h['x-ratelimit-reset'])];
}

// Sets one of the account's windows through the admin command.
function setWindow(ctx, account, window, count) {
	const r = admin({ db: ctx.db, env: ctx.env }, 'limits', 'set', '--account', account,
		'--window', window, '--count', String(count));
	assert.equal(r.code, 0, r.stderr);
}

test('signed-in creation: the 100th in an hour passes with Remaining 0, the 101st is 429', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	const email = 'hourly@example.org';
	const b = await signedUp(ctx, email);
	setWindow(ctx, email, 'hour', 98);
	const [, hourEnd] = windowOf(3600);

	const r99 = await b.create({ text: '99' });
	assert.equal(r99.status, 200, r99.body.toString());
	assert.deepEqual(rlOf(r99), [100, 1, hourEnd]);
	const r100 = await b.create({ text: '100' });
	assert.equal(r100.status, 200);
	assert.deepEqual(rlOf(r100), [100, 0, hourEnd]);
	const t0 = Date.now();
	const r101 = await b.create({ text: '101' });
	assert.equal(r101.status, 429);
	assert.equal(r101.json.code, 'RATE_LIMIT_EXCEEDED');
	assert.deepEqual(rlOf(r101), [100, 0, hourEnd]);
	assertRetryAfter(assert, r101.headers['retry-after'], hourEnd, t0);
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '2');
}));

test('signed-in creation: the 1000th in a day passes, the 1001st is 429 until midnight UTC', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	const email = 'daily@example.org';
	const b = await signedUp(ctx, email);
	setWindow(ctx, email, 'day', 998);
	const [, dayEnd] = windowOf(86400);

	const r999 = await b.create({ text: '999' });
	assert.equal(r999.status, 200, r999.body.toString());
	assert.deepEqual(rlOf(r999), [1000, 1, dayEnd], 'the day has fewer left than the hour (99)');
	const r1000 = await b.create({ text: '1000' });
	assert.equal(r1000.status, 200);
	assert.deepEqual(rlOf(r1000), [1000, 0, dayEnd]);
	const t0 = Date.now();
	const r1001 = await b.create({ text: '1001' });
	assert.equal(r1001.status, 429);
	assert.deepEqual(rlOf(r1001), [1000, 0, dayEnd]);
	assertRetryAfter(assert, r1001.headers['retry-after'], dayEnd, t0);
	assert.equal(ctx.sql('SELECT count(*) FROM secrets').trim(), '2');
	// the operator can lift it
	admin({ db: ctx.db, env: ctx.env }, 'limits', 'reset', '--account', email);
	assert.equal((await b.create({ text: 'after reset' })).status, 200);
}));
