// Conformance: 1000 requests per day per IP and operation, then 429
// RATE_LIMIT_EXCEEDED (CLAIMS.md C50). A server of its own, so the other files'
// requests do not count; a run that straddles midnight (UTC) runs again, once,
// on a new server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inOneWindow } from '../lib/counters.mjs';
import { server, meta, create, created, retrieve, assertError, assertRateHeaders, randomKey } from './helpers.mjs';

test('C50 the 1001st metadata request of the day → 429 RATE_LIMIT_EXCEEDED; other operations unaffected', async (t) => {
	if (process.env.BURNLINK_CONFORMANCE_BASE) return t.skip('needs a fresh server');
	await inOneWindow(86400, async () => {
		const srv = await server();
		try {
			await c50(srv);
		} finally {
			await srv.stop();
		}
	});
});

async function c50(srv) {
	const j = await created(srv, { text: 'x', maxViews: 2 });
	let statuses = [];
	let last;
	const N = 1000;
	let sent = 0;
	async function worker() {
		while (sent < N - 1) {
			sent++;
			const r = await meta(srv, randomKey());
			statuses.push(r.status);
			last = r;
		}
	}
	await Promise.all(Array.from({ length: 8 }, worker));
	assert.equal(statuses.length, N - 1);
	assert.ok(statuses.every((s) => s === 404), `the first 999 are answered normally: ${[...new Set(statuses)]}`);
	// the 1000th is still allowed (the real secret), remaining 0
	let r = await meta(srv, j.metadata.secretKey);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
	assert.equal(r.headers.get('x-ratelimit-limit'), '1000');
	// the 1001st
	r = await meta(srv, j.metadata.secretKey);
	assertError(r, 429, 'RATE_LIMIT_EXCEEDED', '1001st metadata');
	assertRateHeaders(r, '429');
	assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
	const midnight = Math.floor(Date.now() / 86400000 + 1) * 86400;
	assert.equal(Number(r.headers.get('x-ratelimit-reset')), midnight);
	// unknown keys are refused too
	assertError(await meta(srv, randomKey()), 429, 'RATE_LIMIT_EXCEEDED');
	// other operations have their own counters
	assert.equal((await retrieve(srv, j.metadata.secretKey)).status, 200);
	assert.equal((await create(srv, { text: 'y' })).status, 200);
}
