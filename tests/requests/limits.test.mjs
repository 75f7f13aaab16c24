// limits.test.mjs: secret requests count like the secret operations
// (docs/API.md, "POST /requests"): the per-IP limit of the operation each
// method resembles, the creator's limits with an API key, and an invalid API
// key refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkError } from '../lib/cgi.mjs';
import { admin } from '../accounts/helpers.mjs';
import { requestContext, wire } from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

test('each method is counted by its own per-IP limit (create, metadata, retrieve, burn)', () => inOneWindow(86400, async () => {
	// the count is per UTC day: a run that straddles midnight runs again, once
	const ctx = requestContext();
	const q = await ctx.ask();
	const created = await ctx.rq.create({ publicKey: q.publicKey, note: await wire.sealNote(q.noteKey, q.publicKey, '') });
	const got = await ctx.rq.get(q.requestKey);
	const read = await ctx.rq.post(q.inboxKey);
	const burned = await ctx.rq.burn(q.inboxKey);
	// the first request of each limit today leaves limit - 1; the create is the second
	const limit = (r) => Number(r.headers['x-ratelimit-limit']);
	const left = (r) => Number(r.headers['x-ratelimit-remaining']);
	assert.equal(left(created), limit(created) - 2, 'the second create');
	assert.equal(left(got), limit(got) - 1, 'the first metadata-like request');
	assert.equal(left(read), limit(read) - 1, 'the first retrieve-like request');
	assert.equal(left(burned), limit(burned) - 1, 'the first burn-like request');
	ctx.remove();
}));

test('with an API key the request is the account\'s (creator limits); a wrong key is 401', async () => {
	const ctx = requestContext();
	// the context's database (a PostgreSQL conninfo under BURNLINK_TEST_PG)
	const db = { ...ctx, db: ctx.env.BURNLINK_DB };
	assert.equal(admin(db, ['account', 'create', 'asker@example.org']).code, 0);
	const issued = admin(db, ['--json', 'key', 'issue', 'asker@example.org']);
	assert.equal(issued.code, 0, issued.stderr);
	const key = issued.json.key;
	const k = await wire.newRequestKeys();
	const note = await wire.sealNote(k.noteKey, k.publicKey, '');
	const run = (auth) => ctx.run('requests', { method: 'POST', body: { publicKey: k.publicKey, note },
		env: { REQUEST_URI: '/api/requests', HTTP_AUTHORIZATION: `Bearer ${auth}` } });
	const ok = await run(key);
	assert.equal(ok.status, 200, ok.body.toString());
	checkError(assert, await run('bl_' + 'A'.repeat(43)), 401, 'INVALID_API_KEY');
	ctx.remove();
});
