// batch.test.mjs: a FastCGI batch whose final commit fails (docs/SECURITY.md,
// "Group commit"). A request with a passphrase flushes the batch so far
// before its scrypt (bl_store_batch_flush): that commit makes the earlier
// requests' writes durable. If the batch's final commit then fails, only the
// answers whose writes it held may become 503 "nothing was stored or used";
// an answer whose view the flush already spent must go out as it was.
//
// The responder (build/dyn/cgi-bin/retrieve, for LD_PRELOAD) is started on a
// Unix socket by fcgi_listen only once three requests wait there, so it takes
// them as one batch in order: A the last view of X, B a view of Y with its
// passphrase (the flush), C a view of Z. Z's row carries a marker (its
// secret key's SHA-256: the stored content is sealed, lib/keyslots.c), and
// failsync.so fails the sync that follows the write of the page holding it:
// the final commit, which holds B's and C's views.
import test from 'node:test';
import assert from 'node:assert/strict';
import { newContext, newKey, encryptItem, decryptItem, sqlite, sha256hex } from '../lib/cgi.mjs';
import { build, haveDyn, startResponder } from './fcgi.mjs';

test('a failed final commit does not take back an answer whose view an earlier flush made durable', async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const ctx = newContext();
	const key = newKey();
	// Z first, then rows enough to keep X's and Y's on other pages than Z's.
	const z = await ctx.createOk({ text: encryptItem('z', newKey()), maxViews: 5 });
	for (let i = 0; i < 12; i++) await ctx.createOk({ text: encryptItem('f'.repeat(1500), key) });
	const x = await ctx.createOk({ text: encryptItem('the last view', key), maxViews: 1 });
	const y = await ctx.createOk({ text: encryptItem('locked', key), passphrase: 'open sesame', maxViews: 3 });

	const rsp = await startResponder(t, 'retrieve', ctx.dir,
		{ LD_PRELOAD: build('failsync', true), FAILSYNC_MARKER_HEX: sha256hex(z.secretKey) });
	const env = { BURNLINK_DB: ctx.db };
	// Queued in this order before the responder runs: one batch, A B C.
	const a = await rsp.send({ key: x.secretKey, body: {}, env });
	const b = await rsp.send({ key: y.secretKey, body: { passphrase: 'open sesame' }, env });
	const c = await rsp.send({ key: z.secretKey, body: {}, env });
	rsp.go();
	const [ra, rb, rc] = await Promise.all([a.answer, b.answer, c.answer]);

	assert.match(rsp.stderr(), /failsync: failing f(data)?sync/, 'the final commit was made to fail');
	assert.equal(rc.status, 503, rc.body.toString());
	assert.equal(rc.json.code, 'STORE_UNAVAILABLE');
	assert.equal(rb.status, 503, rb.body.toString());
	// A's view was made durable by B's flush: it is answered, not "nothing was used".
	assert.equal(ra.status, 200, `A: ${ra.body}`);
	assert.equal(decryptItem(ra.json.text, key).toString(), 'the last view');
	assert.equal(ra.json.viewsRemaining, 0);

	// And it was spent: the database says so, and so does the responder.
	const row = sqlite(ctx.db, `SELECT state, view_count, text_ct IS NULL FROM secrets WHERE secret_hash = x'${sha256hex(x.secretKey)}'`).trim();
	assert.equal(row, '3|1|1', 'X exhausted, its content gone');
	const again = await rsp.send({ key: x.secretKey, body: {}, env });
	assert.equal((await again.answer).status, 410);
});
