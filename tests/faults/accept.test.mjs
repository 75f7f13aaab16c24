// accept.test.mjs: a FastCGI responder takes every connection already
// waiting into one batch (lib/fcgi.c); a connection whose first record comes
// late (a web server busy elsewhere between its connect and its write) must
// still be answered. Until 2026-11-25 the accept of a batch's further
// connections was bounded by a 2 ms timer whose signal could land while
// libfcgi waited for that first record, and libfcgi then closed the
// connection unanswered (the web server's 500).
import test from 'node:test';
import assert from 'node:assert/strict';
import { newContext } from '../lib/cgi.mjs';
import { haveDyn, startResponder } from './fcgi.mjs';

test('a connection whose request comes 50 ms after its connect is answered in the batch', { timeout: 60000 }, async (t) => {
	if (!haveDyn('metadata'))
		return t.skip('build/dyn is missing: make dyn');
	const ctx = newContext();
	const made = await ctx.createOk({ text: 'late' });
	const rsp = await startResponder(t, 'metadata', ctx.dir, {});
	const env = { BURNLINK_DB: ctx.db };
	// Queued before the responder runs: A whole, then B connected but silent.
	const a = await rsp.send({ method: 'GET', key: made.receiptKey, env });
	const b = await rsp.send({ method: 'GET', key: made.receiptKey, env, lateMs: 50 });
	rsp.go();
	const [ra, rb] = await Promise.all([a.answer, b.answer]);
	assert.equal(ra.status, 200, ra.body?.toString());
	assert.equal(rb.status, 200, `the late connection: ${rb.body?.toString()}\n${rsp.stderr()}`);
	assert.equal(rb.json.state, ra.json.state);
	await rsp.stop();
});
