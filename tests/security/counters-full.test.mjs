// counters-full.test.mjs: a full rate-limit table never drops a live count
// (docs/SECURITY.md, "Rate limits fail closed"). An entry lives in one of the
// 64 slots from its home slot on (tests/lib/counters.mjs); when all 64 hold
// live windows, a new entry is refused with 503 RATE_LIMIT_UNAVAILABLE. Giving
// up the window that ends first instead (a minute's passphrase attempts) let
// requests from enough addresses wipe the count that limited a guesser.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { newCtx, cgi, bucket, windowOf, createSecret, inOneWindow, count } from '../limits/helpers.mjs';
import { HEADER, SLOT, SLOTS, PROBE, home, allSlots } from '../lib/counters.mjs';

// Fills every empty or ended slot with a live day-window entry of a random bucket.
function fillTable(file) {
	const data = fs.readFileSync(file);
	const [start, end] = windowOf(86400);
	const now = Math.floor(Date.now() / 1000);
	for (let i = 0; i < SLOTS; i++) {
		const off = HEADER + i * SLOT;
		const e = data.readUInt32LE(off + 20);
		if (e > now) continue;
		crypto.randomFillSync(data, off, 16);
		data.writeUInt32LE(start, off + 16);
		data.writeUInt32LE(end, off + 20);
		data.writeUInt32LE(1, off + 24);
		data.writeUInt32LE(0, off + 28);
	}
	fs.writeFileSync(file, data);
}

// An address whose ip:retrieve entry would have slot `slot` among its 64.
function addressNear(ctx, slot) {
	const [start] = windowOf(86400);
	for (let n = 0; n < 1 << 22; n++) {
		const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
		const h = home(Buffer.from(bucket(ctx, 'ip:retrieve', ip), 'hex'), start);
		if (h <= slot && slot < h + PROBE) return ip;
	}
	throw new Error(`no address near slot ${slot}`);
}

test('a full table refuses a new counter (503) and keeps the passphrase count it would have dropped', () =>
	inOneWindow(60, async () => {
		const ctx = newCtx();
		const guesser = '192.0.2.10';
		const s = await createSecret(ctx, { text: 'the prize', passphrase: 'right horse' });
		for (let i = 0; i < 5; i++) {
			const r = await cgi(ctx, 'retrieve', { key: s.secretKey, ip: guesser, body: { passphrase: `wrong ${i}` } });
			assert.equal(r.status, 403, r.body.toString());
		}
		const sixth = await cgi(ctx, 'retrieve', { key: s.secretKey, ip: guesser, body: { passphrase: 'right horse' } });
		assert.equal(sixth.status, 429, 'the 6th guess of the minute is refused');

		// The guesser's minute window is the only one ending within a minute.
		const minute = allSlots(ctx.limits).filter((x) => x.valid && x.end - x.start === 60);
		assert.equal(minute.length, 1);
		fillTable(ctx.limits);
		const before = fs.readFileSync(ctx.limits);

		// A request whose new entry's 64 slots include the guesser's count.
		const other = addressNear(ctx, minute[0].index);
		const r = await cgi(ctx, 'retrieve', { key: s.secretKey, ip: other, body: { passphrase: 'x' } });
		assert.equal(r.status, 503, r.body.toString());
		assert.equal(r.json.code, 'RATE_LIMIT_UNAVAILABLE');
		assert.equal(r.headers['retry-after'], '60');
		assert.match(r.stderr, /counters table full/);
		// The slots, after the header page (whose metrics' totals count the 503).
		assert.ok(fs.readFileSync(ctx.limits).subarray(4096).equals(before.subarray(4096)),
		    'no slot of the table changed');

		// The guesser is still refused, with the right passphrase too.
		const again = await cgi(ctx, 'retrieve', { key: s.secretKey, ip: guesser, body: { passphrase: 'right horse' } });
		assert.equal(again.status, 429, again.body.toString());
		assert.equal(again.json.code, 'TOO_MANY_ATTEMPTS');
	}));
