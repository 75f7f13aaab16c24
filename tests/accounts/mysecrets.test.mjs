// "My secrets" (/api/my/secrets): the receipts of the account's secrets, made
// while signed in or with its keys; only its own; burn by id; usage; nothing
// that would let anyone read a secret.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError, checkCommonHeaders } from '../lib/cgi.mjs';
import { inOneWindow } from '../lib/counters.mjs';
import { accountsContext, Browser, signedUp, createWithKey } from './helpers.mjs';
import { schemaMembers } from '../lib/openapi.mjs';

// Creates a secret while signed in; returns the create JSON.
async function createSignedIn(b, body = { text: 'signed-in secret' }) {
	const res = await b.create(body);
	assert.equal(res.status, 200, res.body.toString());
	return res.json;
}

test('the list holds the account\'s own secrets (session and key), newest first, and no key', async () => {
	const ctx = accountsContext();
	const alice = await signedUp(ctx, 'alice@example.org');
	const bob = await signedUp(ctx, 'bob@example.org', { ip: '192.0.2.31' });
	const { key } = (await alice.req('keys', { method: 'POST', body: { name: 'cli' } })).json;

	const s1 = await createSignedIn(alice, { text: 'first', maxViews: 3, passphrase: 'open sesame' });
	const s2 = (await createWithKey(ctx, key, { text: 'second', maxViews: null, ttl: 3600 })).json;
	await createSignedIn(bob, { text: 'bob' });
	await ctx.createOk({ text: 'anonymous' });

	const res = await alice.req('mysecrets');
	assert.equal(res.status, 200, res.body.toString());
	checkCommonHeaders(assert, res);
	assert.match(res.headers['x-ratelimit-limit'], /^\d+$/);
	const list = res.json.secrets;
	assert.equal(list.length, 2);
	const { required, properties } = schemaMembers('MySecret');
	for (const k of required) assert.ok(k in list[0], `member ${k}`);
	for (const k of Object.keys(list[0])) assert.ok(properties.includes(k), `member ${k} is described`);
	const [b2, b1] = list;
	assert.equal(b2.maxViews, null);
	assert.equal(b2.viewsRemaining, null);
	assert.equal(b2.expiresAt, s2.metadata.expiresAt);
	assert.equal(b1.state, 'active');
	assert.equal(b1.hasPassphrase, true);
	assert.equal(b1.maxViews, 3);
	assert.equal(b1.viewsRemaining, 3);
	assert.equal(b1.viewCount, 0);
	assert.equal(b1.lastViewedAt, null);
	assert.equal(b1.expiresAt, s1.metadata.expiresAt);
	// No secret key, receipt key, link or content in the answer.
	const text = res.body.toString();
	for (const s of [s1, s2])
		for (const needle of [s.metadata.key, s.metadata.secretKey, 'first', 'second'])
			assert.ok(!text.includes(needle), `list leaks ${needle}`);
	// Bob sees only his own.
	const bobs = (await bob.req('mysecrets')).json.secrets;
	assert.equal(bobs.length, 1);
	assert.ok(!list.some((x) => x.id === bobs[0].id));
});

test('views and states follow the secret: viewed, exhausted, expired', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const one = await createSignedIn(b, { text: 'read me once' });
	const two = await createSignedIn(b, { text: 'read me twice', maxViews: 2 });
	const old = await createSignedIn(b, { text: 'expires' });
	assert.equal((await ctx.retrieve(two.metadata.secretKey)).status, 200);
	assert.equal((await ctx.retrieve(one.metadata.secretKey)).status, 200);
	ctx.age(old.metadata.secretKey, 1000);
	const list = (await b.req('mysecrets')).json.secrets;
	const byExp = (x) => list.find((s) => s.expiresAt === x.metadata.expiresAt && s.maxViews === x.metadata.maxViews);
	const [l1, l2] = [byExp(one), byExp(two)];
	assert.equal(l1.state, 'exhausted');
	assert.equal(l1.viewsRemaining, 0);
	assert.equal(l1.viewCount, 1);
	assert.match(l1.lastViewedAt, /Z$/);
	assert.equal(l2.state, 'active');
	assert.equal(l2.viewsRemaining, 1);
	assert.equal(list.find((s) => s.state === 'expired').viewsRemaining, 0);
});

test('burn from "my secrets": the secret is gone for its link; another account gets 404', async () => {
	const ctx = accountsContext();
	const alice = await signedUp(ctx, 'alice@example.org');
	const mallory = await signedUp(ctx, 'mallory@example.org', { ip: '192.0.2.66' });
	const s = await createSignedIn(alice, { text: 'burn me', deletable: false });
	const id = (await alice.req('mysecrets')).json.secrets[0].id;

	const steal = await mallory.req('mysecrets', { method: 'DELETE', pathInfo: `/${id}` });
	checkError(assert, steal, 404, 'NOT_FOUND');
	// Same answer as an id that does not exist.
	const none = await mallory.req('mysecrets', { method: 'DELETE', pathInfo: '/987654' });
	checkError(assert, none, 404, 'NOT_FOUND');
	assert.equal(steal.json.hint, none.json.hint);
	assert.equal((await ctx.metadata(s.metadata.secretKey)).status, 200, 'still there');

	// The owner may burn it even though recipients may not (deletable: false).
	const res = await alice.req('mysecrets', { method: 'DELETE', pathInfo: `/${id}` });
	assert.equal(res.status, 200, res.body.toString());
	assert.deepEqual(res.json, { success: true, state: 'burned' });
	checkError(assert, await ctx.retrieve(s.metadata.secretKey), 410, 'SECRET_BURNED');
	assert.equal((await alice.req('mysecrets')).json.secrets[0].state, 'burned');
	checkError(assert, await alice.req('mysecrets', { method: 'DELETE', pathInfo: `/${id}` }), 410, 'SECRET_BURNED');
	// The content is gone from the row.
	assert.equal(ctx.sql(`SELECT text_ct IS NULL FROM secrets WHERE id = ${id}`).trim(), '1');
});

test('anonymous secrets and other accounts\' secrets cannot be burned by id', async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const anon = await ctx.createOk({ text: 'anonymous' });
	const id = ctx.sql('SELECT id FROM secrets ORDER BY created_at DESC, id DESC LIMIT 1').trim();
	checkError(assert, await b.req('mysecrets', { method: 'DELETE', pathInfo: `/${id}` }), 404, 'NOT_FOUND');
	assert.equal((await ctx.metadata(anon.secretKey)).status, 200);
});

test('usage against the account limits: signed-in creations per hour and day, key creations per hour', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const { key } = (await b.req('keys', { method: 'POST', body: { name: 'cli' } })).json;
	await createSignedIn(b);
	await createSignedIn(b);
	await createWithKey(ctx, key);
	const { usage } = (await b.req('mysecrets')).json;
	assert.deepEqual({ ...usage.hour, resetsAt: undefined }, { limit: 100, used: 2, remaining: 98, resetsAt: undefined });
	assert.deepEqual({ ...usage.day, resetsAt: undefined }, { limit: 1000, used: 2, remaining: 998, resetsAt: undefined });
	assert.deepEqual({ ...usage.apiKeysHour, resetsAt: undefined }, { limit: 1000, used: 1, remaining: 999, resetsAt: undefined });
	for (const u of Object.values(usage))
		assert.ok(Date.parse(u.resetsAt) > Date.now());
}));

test('"my secrets" needs a session and the right methods', async () => {
	const ctx = accountsContext();
	const anon = new Browser(ctx);
	checkError(assert, await anon.req('mysecrets'), 401, 'NOT_SIGNED_IN');
	checkError(assert, await anon.req('mysecrets', { method: 'DELETE', pathInfo: '/1' }), 401, 'NOT_SIGNED_IN');
	const b = await signedUp(ctx, 'alice@example.org');
	let r = await b.req('mysecrets', { method: 'POST', body: {} });
	checkError(assert, r, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(r.headers.allow, 'GET, HEAD');
	r = await b.req('mysecrets', { method: 'GET', pathInfo: '/1' });
	checkError(assert, r, 405, 'METHOD_NOT_ALLOWED');
	assert.equal(r.headers.allow, 'DELETE');
	checkError(assert, await b.req('mysecrets', { method: 'DELETE', pathInfo: '/x' }), 404, 'NOT_FOUND');
});

test('the signed-in account limit: the 101st creation in an hour is 429, anonymous still works', () => inOneWindow(3600, async () => {
	const ctx = accountsContext();
	const b = await signedUp(ctx, 'alice@example.org');
	const { seedCounter } = await import('./helpers.mjs');
	await createSignedIn(b);
	seedCounter(ctx, 'account:hour', String(b.account.id), 3600, 100);
	const res = await b.create();
	checkError(assert, res, 429, 'RATE_LIMIT_EXCEEDED');
	assert.equal(res.headers['x-ratelimit-limit'], '100');
	assert.equal(res.headers['x-ratelimit-remaining'], '0');
	assert.equal((await ctx.create({ text: 'anonymous' })).status, 200);
}));
