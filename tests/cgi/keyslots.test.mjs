// keyslots.test.mjs: the pool of keys made ahead (lib/keyslots.c). A create
// takes a key that is on disk already, and the writes of its taking (the
// header's list, the slot's owner) are not synced: a power cut could undo
// them, leaving a key that a committed secret uses listed as free. So the
// list is trusted only in the boot it was made in. The tests undo a taking by
// hand, as a power cut could, and move the header to another boot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { newContext } from '../lib/cgi.mjs';
import { capture, problems } from '../lib/shred.mjs';

const HEADER = 4096, SLOT = 64;

// A pooled key's expiry: when it was made plus KS_POOL_TTL (90 days, BL_TTL_MAX, and two).
const POOL_TTL = (7776000 + 2 * 86400) * 1000;

// Undoes the taking of slot (numbered from 1) as a lost page cache would:
// owner 0 and a pooled key's expiry again (the check rewritten), and the slot
// back on the header's list.
function untake(db, slot) {
	const f = `${db}-keys`;
	const b = fs.readFileSync(f);
	const at = HEADER + (slot - 1) * SLOT;
	b.writeBigUInt64LE(BigInt(Date.now() + POOL_TTL), at + 32);
	b.writeBigUInt64LE(0n, at + 40);
	const idx = Buffer.alloc(8);
	idx.writeBigUInt64LE(BigInt(slot - 1));
	crypto.createHash('sha256').update(Buffer.concat([idx, b.subarray(at, at + 48)])).digest()
		.copy(b, at + 48, 0, 16);
	const count = b.readUInt32LE(32);
	b.writeUInt32LE(slot - 1, 64 + 4 * count);
	b.writeUInt32LE(count + 1, 32);
	fs.writeFileSync(f, b);
}

// As after a reboot: the header's list names another boot.
function reboot(db) {
	const f = `${db}-keys`;
	const b = fs.readFileSync(f);
	b.fill(0xaa, 16, 32);
	fs.writeFileSync(f, b);
}

test('control: within one boot, a key put back on the list is handed out again', async () => {
	const ctx = newContext();
	const a = await ctx.createOk({ text: 'a ' + crypto.randomBytes(8).toString('hex') });
	const sa = capture(ctx.db, a.secretKey).slot;
	assert.ok(sa > 0);
	untake(ctx.db, sa);
	const b = await ctx.createOk({ text: 'b' });
	assert.equal(capture(ctx.db, b.secretKey).slot, sa, 'the list is what the next create takes from');
});

test('after a reboot a listed key is never handed out, and the secret that took it before still opens, once', async () => {
	const ctx = newContext();
	const text = 'a ' + crypto.randomBytes(8).toString('hex');
	const a = await ctx.createOk({ text });
	const capA = capture(ctx.db, a.secretKey);
	untake(ctx.db, capA.slot);
	reboot(ctx.db);
	const made = [];
	for (let i = 0; i < 3; i++) made.push(capture(ctx.db, (await ctx.createOk({ text: `b${i}` })).secretKey).slot);
	assert.ok(!made.includes(capA.slot), `a slot taken before the reboot was handed out again: ${made}`);
	assert.notDeepEqual(fs.readFileSync(`${ctx.db}-keys`).subarray(16, 32), Buffer.alloc(16, 0xaa), 'the list was made again, in this boot');
	const r = await ctx.retrieve(a.secretKey);
	assert.equal(r.status, 200, r.body.toString());
	assert.equal(r.json.viewsRemaining, 0);
	assert.equal((await ctx.retrieve(a.secretKey)).status, 410);
	assert.deepEqual(problems(ctx.dir, [capA], [['plaintext', Buffer.from(text)]]), []);
});

// A keys file of KS_MIN_SLOTS (4096) whose first quarter is taken, one
// packed run of valid keys (as taking the first free slot of a window leaves
// them), and the rest free.
function quarterTaken(db) {
	const n = 4096, b = Buffer.alloc(HEADER + n * SLOT);
	b.write('BLKEYS1\n', 0, 'latin1');
	b.writeBigUInt64LE(BigInt(SLOT), 8);
	for (let i = 0; i < n / 4; i++) {
		const at = HEADER + i * SLOT;
		crypto.randomBytes(32).copy(b, at);
		b.writeBigUInt64LE(BigInt(Date.now() + 86400000), at + 32);
		b.writeBigUInt64LE(1n, at + 40);
		const idx = Buffer.alloc(8);
		idx.writeBigUInt64LE(BigInt(i));
		crypto.createHash('sha256').update(Buffer.concat([idx, b.subarray(at, at + 48)])).digest()
			.copy(b, at + 48, 0, 16);
	}
	fs.writeFileSync(`${db}-keys`, b, { mode: 0o600 });
	return b.length;
}

// A claim that found its first window full doubled the file: a quarter of
// the windows are full here, and filling the pool looks for 64 free slots,
// so the file doubled nearly every time (the benchmark's 60,000 keys took 4 M
// slots). Now 16 windows in a row must be full (4^-16 here).
test('a keys file a quarter full does not grow: a full window is followed by others before the file doubles', async () => {
	const ctx = newContext();
	await ctx.createOk({ text: 'first' });	// the database and its schema
	const size = quarterTaken(ctx.db);
	for (let i = 0; i < 3; i++) await ctx.createOk({ text: `s${i}` });
	assert.equal(fs.statSync(`${ctx.db}-keys`).size, size, 'the keys file grew while three quarters of it were free');
});
