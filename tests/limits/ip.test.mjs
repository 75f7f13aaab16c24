// The per-IP daily limit of every operation: the 1000th/1001st boundary, the
// headers on both sides, concurrency, windows that ended, and cleanup.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
	newCtx, cgi, admin, tool, sql, seed, count, windowOf, pool, rl, createSecret,
	secretsCount, slow, inOneWindow, assertRetryAfter,
} from './helpers.mjs';

const DAY = 86400;

// Sets the client's counter of op to n in today's window through the admin command.
function setIp(ctx, ip, op, n) {
	const r = admin(ctx, 'limits', 'set', '--ip', ip, '--op', op, '--count', String(n));
	assert.equal(r.code, 0, r.stderr);
}

function assertDayHeaders(res, remaining) {
	const h = rl(res);
	assert.equal(h.limit, 1000);
	assert.equal(h.remaining, remaining);
	assert.equal(h.reset, windowOf(DAY)[1], 'resets at the next UTC midnight');
}

test('1000 metadata requests from one address pass, each counted once; the 1001st is 429', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const { secretKey } = await createSecret(ctx, { text: 'x', maxViews: 5 }, { ip: '198.51.100.1' });
	const ip = '203.0.113.9';
	let first = 0;
	if (slow) {
		setIp(ctx, ip, 'metadata', 990);
		first = 990;
	}
	const n = 1000 - first;
	// In parallel: the counter must still hand out every remaining value exactly once.
	const res = await pool(Array.from({ length: n }, (_, i) => i), 4,
		() => cgi(ctx, 'metadata', { key: secretKey, ip }));
	for (const r of res) assert.equal(r.status, 200, r.body.toString());
	const seen = res.map((r) => rl(r).remaining).sort((a, b) => a - b);
	assert.deepEqual(seen, Array.from({ length: n }, (_, i) => i), 'remaining values 0..n-1 once each');
	for (const r of res) assertDayHeaders(r, rl(r).remaining);

	const t0 = Date.now();
	const over = await cgi(ctx, 'metadata', { key: secretKey, ip });
	assert.equal(over.status, 429);
	assert.equal(over.json.code, 'RATE_LIMIT_EXCEEDED');
	assertDayHeaders(over, 0);
	assertRetryAfter(assert, over.headers['retry-after'], windowOf(DAY)[1], t0);
	// Another address is not affected, and neither is another operation.
	const other = await cgi(ctx, 'metadata', { key: secretKey, ip: '203.0.113.10' });
	assert.equal(other.status, 200);
	assertDayHeaders(other, 999);
	const ret = await cgi(ctx, 'retrieve', { key: secretKey, ip });
	assert.equal(ret.status, 200);
	assertDayHeaders(ret, 999);
}));

for (const op of ['create', 'metadata', 'retrieve', 'burn']) {
	test(`${op}: 999th and 1000th pass with Remaining 1 and 0, the 1001st is 429 and changes nothing`, () => inOneWindow(DAY, async () => {
		const ctx = newCtx();
		const ip = '192.0.2.77';
		const { secretKey } = await createSecret(ctx, { text: 'boundary', maxViews: 10 }, { ip: '192.0.2.1' });
		const prog = op === 'burn' ? 'delete' : op;
		const req = () => cgi(ctx, prog, { ip, key: op === 'create' ? undefined : secretKey,
			body: op === 'create' ? { text: 'x' } : undefined });
		setIp(ctx, ip, op, 998);

		const r999 = await req();
		// (burn: the first burns, the second finds it burned: 410 is counted and has the headers too)
		assert.equal(r999.status, 200, r999.body.toString());
		assertDayHeaders(r999, 1);
		const r1000 = await req();
		assert.equal(r1000.status, op === 'burn' ? 410 : 200, r1000.body.toString());
		assertDayHeaders(r1000, 0);

		const before = sql(ctx.db, 'SELECT count(*), group_concat(view_count), group_concat(state) FROM secrets');
		const r1001 = await req();
		assert.equal(r1001.status, 429);
		assert.equal(r1001.json.code, 'RATE_LIMIT_EXCEEDED');
		assert.deepEqual(Object.keys(r1001.json).sort(), ['code', 'error', 'hint', 'requestId']);
		assertDayHeaders(r1001, 0);
		assert.ok(rl(r1001).retryAfter >= 1);
		assert.equal(sql(ctx.db, 'SELECT count(*), group_concat(view_count), group_concat(state) FROM secrets'),
			before, 'nothing created, consumed or burned');
		assert.equal(count(ctx, `ip:${op}`, ip, windowOf(DAY)[0]), 1001);
	}));
}

test('a window that ended does not count: yesterday at 5000, today starts at 1000', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '192.0.2.88';
	admin(ctx, 'limits', 'show', '--ip', ip);	// creates the stores and the install secret
	const [today] = windowOf(DAY);
	seed(ctx, 'ip:create', ip, today - DAY, DAY, 5000);
	const r = await cgi(ctx, 'create', { ip, body: { text: 'new day' } });
	assert.equal(r.status, 200);
	assertDayHeaders(r, 999);
	assert.equal(count(ctx, 'ip:create', ip, today), 1);
	assert.equal(count(ctx, 'ip:create', ip, today - DAY), 5000);

	// cron/cleanup prunes the ended window and keeps today's.
	const c = tool(ctx, 'cleanup');
	assert.equal(c.code, 0, c.stderr);
	assert.match(c.stdout, /pruned 1 counter windows/);
	assert.equal(count(ctx, 'ip:create', ip, today - DAY), 0);
	assert.equal(count(ctx, 'ip:create', ip, today), 1);
}));

test('the limiter resets: an operator reset (limits reset) lets the address in again', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '192.0.2.99';
	setIp(ctx, ip, 'create', 1000);
	assert.equal((await cgi(ctx, 'create', { ip, body: { text: 'x' } })).status, 429);
	const r = admin(ctx, 'limits', 'reset', '--ip', ip);
	assert.equal(r.code, 0, r.stderr);
	const ok = await cgi(ctx, 'create', { ip, body: { text: 'x' } });
	assert.equal(ok.status, 200);
	assertDayHeaders(ok, 999);
}));

// (Fewer under valgrind, where 40 slow processes would outwait the 5 s busy timeout.)
const PAR = slow ? 10 : 40;

test(`concurrency: ${PAR} parallel creates from one address at ${1000 - PAR / 2} → exactly ${PAR / 2} created`, () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '192.0.2.150';
	setIp(ctx, ip, 'create', 1000 - PAR / 2);
	const res = await pool(Array.from({ length: PAR }, (_, i) => i), PAR,
		(i) => cgi(ctx, 'create', { ip, body: { text: `c${i}` } }));
	const codes = res.map((r) => r.status);
	assert.equal(codes.filter((c) => c === 200).length, PAR / 2, `statuses ${codes.join(',')}`);
	assert.equal(codes.filter((c) => c === 429).length, PAR / 2);
	assert.equal(secretsCount(ctx), PAR / 2, 'exactly the limit was stored');
	assert.equal(count(ctx, 'ip:create', ip, windowOf(DAY)[0]), 1000 + PAR / 2);
	const rem = res.filter((r) => r.status === 200).map((r) => rl(r).remaining).sort((a, b) => a - b);
	assert.deepEqual(rem, Array.from({ length: PAR / 2 }, (_, i) => i));
}));

test('the IP limit is applied before authentication: an exhausted address gets 429, not 401', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '192.0.2.160';
	setIp(ctx, ip, 'create', 1000);
	const r = await cgi(ctx, 'create', { ip, auth: 'Bearer bl_not-a-key', body: { text: 'x' } });
	assert.equal(r.status, 429);
	// and a bad key is counted before it is refused
	const ip2 = '192.0.2.161';
	const bad = await cgi(ctx, 'create', { ip: ip2, auth: 'Bearer bl_not-a-key', body: { text: 'x' } });
	assert.equal(bad.status, 401);
	assert.equal(bad.json.code, 'INVALID_API_KEY');
	assertDayHeaders(bad, 999);
}));

test('every response of a limited operation carries the headers: 400, 404, 413, 410, 403', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '192.0.2.170';
	const cases = [
		['create', { body: { text: 'x', ttl: 5 } }, 400],
		['create', { body: 'not json' }, 400],
		['metadata', { key: 'short' }, 404],
		['metadata', { key: 'A'.repeat(22) }, 404],
		['retrieve', { key: 'A'.repeat(22) }, 404],
		['delete', { key: 'A'.repeat(22) }, 404],
	];
	for (const [prog, opts, status] of cases) {
		const r = await cgi(ctx, prog, { ip, ...opts });
		assert.equal(r.status, status, `${prog} ${r.body}`);
		assert.equal(rl(r).limit, 1000, `${prog} ${status} has X-RateLimit-Limit`);
		assert.ok(rl(r).remaining >= 0 && rl(r).reset > Date.now() / 1000);
	}
	// a 405 is counted too, and carries the headers
	const m = await cgi(ctx, 'create', { ip, method: 'PUT' });
	assert.equal(m.status, 405);
	assert.equal(rl(m).limit, 1000, '405 has X-RateLimit-Limit');
	// HEAD counts as metadata
	const { secretKey } = await createSecret(ctx, { text: 'x' }, { ip: '192.0.2.171' });
	const h = await cgi(ctx, 'metadata', { ip, key: secretKey, method: 'HEAD' });
	assert.equal(h.status, 200);
	assert.equal(count(ctx, 'ip:metadata', ip, windowOf(DAY)[0]), 3);
}));

test('client addresses are stored only as HMAC digests', () => inOneWindow(DAY, async () => {
	const ctx = newCtx();
	const ip = '198.51.100.213';
	await cgi(ctx, 'metadata', { ip, key: 'A'.repeat(22) });
	await cgi(ctx, 'create', { ip: '2001:db8:77:88::1', body: { text: 'x' } });
	for (const f of fs.readdirSync(ctx.dir)) {
		const buf = fs.readFileSync(`${ctx.dir}/${f}`);
		for (const needle of [ip, '2001:db8:77:88', Buffer.from([198, 51, 100, 213])])
			assert.ok(!buf.includes(Buffer.from(needle)), `${f} holds ${needle}`);
	}
	assert.equal(count(ctx, 'ip:metadata', ip, windowOf(DAY)[0]), 1);
}));
