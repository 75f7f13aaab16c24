// capacity.test.mjs: the counters file cannot be filled (docs/ADMIN.md, "Where
// the counters live"). A table far fuller than today's 131,072 slots could
// hold, or one whose every slot is live, still lets a fresh client in (the
// file grows, every live count moves with it), the 1000th/1001st boundary
// stays exact, and cron/cleanup shrinks the file again once its windows end.
// The tables are written directly (tests/lib/counters.mjs fillTable), as no
// test could make a million clients through requests. An IPv6 /48's creations
// are counted together as well (docs/API.md, "Rate limits").
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
	newCtx, cgi, tool, admin, bucket, count, pool, rl, createSecret, windowOf, inOneWindow, seed,
} from './helpers.mjs';
import { SLOTS, sizeOf, slotsOf, fillTable, countLive, expireAll } from '../lib/counters.mjs';

const DAY = 86400;

// A context whose install secret and counters file exist (one request made).
async function ready() {
	const ctx = newCtx();
	const s = await createSecret(ctx, { text: 'kept', maxViews: 100 }, { ip: '198.51.100.200' });
	return { ctx, ...s };
}

// The boundary of the metadata limit for ip, whose count is at 998: 200, 200, 429.
async function assertBoundary(ctx, ip, secretKey) {
	const req = () => cgi(ctx, 'metadata', { key: secretKey, ip });
	const r999 = await req();
	assert.equal(r999.status, 200, r999.body.toString());
	assert.equal(rl(r999).remaining, 1);
	const r1000 = await req();
	assert.equal(r1000.status, 200, r1000.body.toString());
	assert.equal(rl(r1000).remaining, 0);
	const r1001 = await req();
	assert.equal(r1001.status, 429, r1001.body.toString());
	assert.equal(r1001.json.code, 'RATE_LIMIT_EXCEEDED');
}

test('every slot of a 131,072-slot table live: a fresh client gets 200, the file doubles, no count is lost', () => inOneWindow(DAY, async () => {
	const { ctx, secretKey } = await ready();
	const [start] = windowOf(DAY);
	const near = '203.0.113.50';
	const extra = [{ bucket: bucket(ctx, 'ip:metadata', near), start, len: DAY, count: 998 }];
	// fillTable places entries until every one of the slots is taken
	const placed = fillTable(ctx.limits, SLOTS, SLOTS - 1, { extra, count: 7 });
	assert.equal(placed, SLOTS);
	assert.equal(countLive(ctx.limits), SLOTS, 'no free slot anywhere');

	const fresh = await cgi(ctx, 'metadata', { key: secretKey, ip: '203.0.113.99' });
	assert.equal(fresh.status, 200, fresh.body.toString());
	assert.equal(rl(fresh).remaining, 999, 'a fresh client starts at its first request');
	assert.equal(slotsOf(ctx.limits), 2 * SLOTS, 'the table doubled');
	assert.equal(fs.statSync(ctx.limits).size, sizeOf(2 * SLOTS));
	assert.equal(fs.statSync(ctx.limits).mode & 0o777, 0o600);
	assert.ok(!fs.existsSync(`${ctx.limits}.new`), 'nothing left beside it');
	assert.equal(countLive(ctx.limits), SLOTS + 1, 'every live count moved, and the new one');
	assert.equal(count(ctx, 'ip:metadata', near, start), 998);
	await assertBoundary(ctx, near, secretKey);
}));

test('a table of 1,000,000 live clients (7.6 x the old capacity): a fresh client gets 200 and the boundary is exact', () => inOneWindow(DAY, async () => {
	const { ctx, secretKey } = await ready();
	const [start] = windowOf(DAY);
	const near = '203.0.113.51';
	const extra = [{ bucket: bucket(ctx, 'ip:metadata', near), start, len: DAY, count: 998 }];
	fillTable(ctx.limits, 1 << 21, 1000000, { extra, count: 500 });

	const fresh = await cgi(ctx, 'metadata', { key: secretKey, ip: '203.0.113.98' });
	assert.equal(fresh.status, 200, fresh.body.toString());
	assert.equal(rl(fresh).remaining, 999);
	const created = await cgi(ctx, 'create', { ip: '2001:db8:5:6::7', body: { text: 'x' } });
	assert.equal(created.status, 200, created.body.toString());
	await assertBoundary(ctx, near, secretKey);
	assert.equal(countLive(ctx.limits), 1000001 + 1 + 2, 'the seeded, the fresh, the creator (/64 and /48)');
}));

test('a full table grows while 24 processes count at once: exactly the limit passes, nobody else is refused', () => inOneWindow(DAY, async () => {
	const { ctx, secretKey } = await ready();
	const [start] = windowOf(DAY);
	const near = '203.0.113.52';
	const extra = [{ bucket: bucket(ctx, 'ip:metadata', near), start, len: DAY, count: 995 }];
	fillTable(ctx.limits, SLOTS, SLOTS - 1, { extra });
	const jobs = [
		...Array.from({ length: 12 }, () => ({ ip: near })),
		...Array.from({ length: 12 }, (_, i) => ({ ip: `198.18.0.${i + 1}` })),
	];
	const res = await pool(jobs, 6, (j) => cgi(ctx, 'metadata', { key: secretKey, ip: j.ip }));
	const nearRes = res.slice(0, 12);
	assert.equal(nearRes.filter((r) => r.status === 200).length, 5, 'the 996th to the 1000th');
	assert.equal(nearRes.filter((r) => r.status === 429).length, 7);
	for (const r of res.slice(12)) assert.equal(r.status, 200, r.body.toString());
	assert.equal(count(ctx, 'ip:metadata', near, start), 1007);
	assert.equal(slotsOf(ctx.limits), 2 * SLOTS);
}));

test('cron/cleanup shrinks a grown table once its windows have ended, keeping the live counts', () => inOneWindow(DAY, async () => {
	const { ctx, secretKey } = await ready();
	const [start] = windowOf(DAY);
	fillTable(ctx.limits, 1 << 20, 400000);
	expireAll(ctx.limits);
	const near = '203.0.113.53';
	seed(ctx, 'ip:metadata', near, start, DAY, 998);
	const r = tool(ctx, 'cleanup');
	assert.equal(r.code, 0, r.stderr);
	// (the seeded entry may have taken the slot of an ended one)
	assert.ok(Number(/pruned (\d+) counter windows/.exec(r.stdout)[1]) >= 399999, r.stdout);
	assert.equal(slotsOf(ctx.limits), SLOTS, 'back to the smallest table');
	assert.equal(count(ctx, 'ip:metadata', near, start), 998);
	await assertBoundary(ctx, near, secretKey);
}));

test('IPv6: a /48 creates at most 10,000 secrets a day, all its /64s together', () => inOneWindow(DAY, async () => {
	const { ctx } = await ready();
	const [start] = windowOf(DAY);
	seed(ctx, 'net48:create', '2001:db8:48::/48', start, DAY, 9999);
	const a = await cgi(ctx, 'create', { ip: '2001:db8:48:1::1', body: { text: 'x' } });
	assert.equal(a.status, 200, a.body.toString());
	assert.equal(rl(a).limit, 10000, 'the tighter window is the /48');
	assert.equal(rl(a).remaining, 0);
	const b = await cgi(ctx, 'create', { ip: '2001:db8:48:2::1', body: { text: 'x' } });
	assert.equal(b.status, 429, b.body.toString());
	assert.equal(b.json.code, 'RATE_LIMIT_EXCEEDED');
	assert.match(b.json.hint, /\/48/);
	assert.ok(Number(b.headers['retry-after']) >= 1);
	// another /48, an IPv4 client and the /48's other operations are not affected
	for (const ip of ['2001:db8:49:1::1', '192.0.2.48']) {
		const r = await cgi(ctx, 'create', { ip, body: { text: 'x' } });
		assert.equal(r.status, 200, `${ip}: ${r.body}`);
		assert.equal(rl(r).limit, 1000);
	}
	const s = await createSecret(ctx, { text: 'y' }, { ip: '192.0.2.49' });
	const m = await cgi(ctx, 'metadata', { key: s.secretKey, ip: '2001:db8:48:3::1' });
	assert.equal(m.status, 200);
	// the admin tool reads and resets it
	const shown = admin(ctx, '--json', 'limits', 'show', '--ip', '2001:db8:48:9::1');
	assert.equal(shown.code, 0, shown.stderr);
	assert.equal(shown.json.windows.find((w) => w.window === 'create-48').count, 10001);
	const reset = admin(ctx, 'limits', 'set', '--ip', '2001:db8:48:9::1', '--op', 'create-48', '--count', '0');
	assert.equal(reset.code, 0, reset.stderr);
	const c = await cgi(ctx, 'create', { ip: '2001:db8:48:2::1', body: { text: 'x' } });
	assert.equal(c.status, 200, c.body.toString());
}));
