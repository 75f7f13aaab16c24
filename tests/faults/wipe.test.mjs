// wipe.test.mjs: the create answer, which holds the decryption key in
// server-side mode (secretUrl's #key=...), is never left in memory released
// unwiped (docs/SECURITY.md, "Keys and plaintext in memory"). In a FastCGI
// responder freed memory stays in the process for the next requests.
//
// The create program of build/dyn runs as a FastCGI responder under
// freewatch.so, which reports every block freed (or left behind by a
// realloc, which it always moves) that still holds "#key=". json-c's
// printbuf grows by realloc, and so does vasprintf: either one leaves copies.
import test from 'node:test';
import assert from 'node:assert/strict';
import { newContext, fragmentKey } from '../lib/cgi.mjs';
import { build, haveDyn, startResponder } from './fcgi.mjs';

test('server-side creates in a FastCGI responder leave no freed copy of their key', async (t) => {
	if (!haveDyn('create'))
		return t.skip('build/dyn is missing: make dyn');
	const ctx = newContext();
	const rsp = await startResponder(t, 'create', ctx.dir,
		{ LD_PRELOAD: build('freewatch', true), FREEWATCH_MARKER: '#key=' });
	const env = { BURNLINK_DB: ctx.db, BURNLINK_SITE_URL: 'https://burnlink.test' };
	const sent = [];
	for (let i = 0; i < 3; i++)
		sent.push(await rsp.send({ body: { text: `plain ${i}`.repeat(40), maxViews: 2 }, env }));
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	// and one more after the batch, on the same process
	const last = await (await rsp.send({ body: { text: 'after' }, env })).answer;
	for (const r of [...answers, last]) {
		assert.equal(r.status, 200, r.body.toString());
		assert.equal(fragmentKey(r.json.secretUrl).length, 32, 'server-side: the key is in the link');
	}
	assert.doesNotMatch(rsp.stderr(), /freewatch: freed/, 'no released block holds the key');
});
