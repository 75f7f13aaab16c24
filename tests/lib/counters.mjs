// counters.mjs: the rate-limit counters file of the SQLite backend, for tests.
//
// The file beside the database (x.db or x -> x-counters) is a 4096-byte header
// ("BLCTR01\n", slot count N, slot size 32, rest zero) and N slots of 32 bytes
// (N a power of two from 131072 = SLOTS to 2^26; the programs double it when
// an entry finds no free slot, and cron/cleanup shrinks it again):
// bucket (the first 16 bytes of HMAC-SHA-256(install secret, name NUL subject)),
// window start, window end, count, reserved zero; little-endian uint32. An
// entry lives in one of the 64 slots from its home slot on:
//   home = ((le32(bucket[0..3]) + start * 2654435761) mod 2^32) mod (N - 63).
// A slot is valid when end > start, end - start is 60, 3600 or 86400 and start
// is a multiple of it. The programs lock the file with flock(LOCK_EX) for each
// operation; these helpers do not (seed before requests run, read after).

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';

export const MAGIC = Buffer.from('BLCTR01\n', 'latin1');
export const HEADER = 4096;
export const SLOTS = 131072;
export const SLOT = 32;
export const PROBE = 64;
export const SIZE = HEADER + SLOTS * SLOT; // 4198400, the size of a new file
export const MAX_SLOTS = 2 ** 26;
export const sizeOf = (slots) => HEADER + slots * SLOT;
const LENGTHS = new Set([60, 3600, 86400]);

// x.db -> x-counters; anything else -> <path>-counters.
export function countersPath(dbPath) {
	return /\.db$/.test(dbPath) ? dbPath.replace(/\.db$/, '-counters') : `${dbPath}-counters`;
}

export function header(slots = SLOTS) {
	const h = Buffer.alloc(HEADER);
	MAGIC.copy(h, 0);
	h.writeUInt32LE(slots, 8);
	h.writeUInt32LE(SLOT, 12);
	return h;
}

// The first slot an entry of (bucket, window start) can be in, in a table of slots slots.
export function home(bucket16, start, slots = SLOTS) {
	const h = (bucket16.readUInt32LE(0) + Math.imul(start >>> 0, 2654435761 | 0)) >>> 0;
	return h % (slots - PROBE + 1);
}

// The slot count of a counters file (from its header; its size must match).
export function slotsOf(file) {
	const fd = fs.openSync(file, 'r');
	try {
		const h = Buffer.alloc(16);
		fs.readSync(fd, h, 0, 16, 0);
		const n = h.readUInt32LE(8);
		const size = fs.fstatSync(fd).size;
		if (!h.subarray(0, 8).equals(MAGIC) || size !== sizeOf(n))
			throw new Error(`${file}: ${size} bytes, not a counters file`);
		return n;
	} finally {
		fs.closeSync(fd);
	}
}

function bucketBytes(bucketHex) {
	const b = Buffer.isBuffer(bucketHex) ? bucketHex : Buffer.from(bucketHex, 'hex');
	if (b.length < 16) throw new Error(`bucket ${bucketHex}: fewer than 16 bytes`);
	return b.subarray(0, 16);
}

function decode(buf, off) {
	return {
		bucket: buf.subarray(off, off + 16),
		start: buf.readUInt32LE(off + 16),
		end: buf.readUInt32LE(off + 20),
		count: buf.readUInt32LE(off + 24),
		zero: buf.readUInt32LE(off + 28),
	};
}

export function isEmpty(s) {
	return s.start === 0 && s.end === 0 && s.count === 0 && s.zero === 0 && s.bucket.every((x) => x === 0);
}

export function isValid(s) {
	const len = s.end - s.start;
	return s.end > s.start && LENGTHS.has(len) && s.start % len === 0 && s.zero === 0;
}

// Creates the file (mode 0600) or initialises an empty / all-zero one; checks it otherwise.
export function ensureFile(file) {
	const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
	try {
		let size = fs.fstatSync(fd).size;
		if (size === 0) fs.ftruncateSync(fd, size = SIZE);
		const slots = (size - HEADER) / SLOT;
		if (size < SIZE || !Number.isInteger(slots) || (slots & (slots - 1)) !== 0)
			throw new Error(`${file}: ${size} bytes, not a counters file`);
		const h = Buffer.alloc(16);
		fs.readSync(fd, h, 0, 16, 0);
		const want = header(slots).subarray(0, 16);
		if (h.equals(want)) return;
		if (!h.every((x) => x === 0)) throw new Error(`${file}: unknown header`);
		fs.writeSync(fd, want, 0, 16, 0);
	} finally {
		fs.closeSync(fd);
	}
}

// The 64 slots from home, as a buffer.
function readProbe(fd, first) {
	const buf = Buffer.alloc(PROBE * SLOT);
	const n = fs.readSync(fd, buf, 0, buf.length, HEADER + first * SLOT);
	if (n !== buf.length) throw new Error('short read of the counters file');
	return buf;
}

/*
 * Sets the count of (bucket, window start) to count, window end start + len
 * (inserting or updating; an ended window too). count 0 clears the entry.
 * Inserting takes the first slot that is empty, invalid or ended (nowS), else
 * the one whose window ends first, as the programs do.
 */
export function seedCounter(file, bucketHex, windowStart, windowLen, count, nowS = Math.floor(Date.now() / 1000)) {
	ensureFile(file);
	const b = bucketBytes(bucketHex);
	const first = home(b, windowStart, slotsOf(file));
	const fd = fs.openSync(file, 'r+');
	try {
		const buf = readProbe(fd, first);
		let at = -1, free = -1, oldest = -1, oldestEnd = Infinity;
		for (let i = 0; i < PROBE; i++) {
			const s = decode(buf, i * SLOT);
			if (isValid(s) && s.start === windowStart && s.bucket.equals(b)) { at = i; break; }
			if (!isValid(s) || s.end <= nowS) { if (free < 0) free = i; continue; }
			if (s.end < oldestEnd) { oldestEnd = s.end; oldest = i; }
		}
		if (at < 0) {
			if (count === 0) return;
			at = free >= 0 ? free : oldest;
		}
		const slot = Buffer.alloc(SLOT);
		if (count !== 0) {
			b.copy(slot, 0);
			slot.writeUInt32LE(windowStart >>> 0, 16);
			slot.writeUInt32LE((windowStart + windowLen) >>> 0, 20);
			slot.writeUInt32LE(count >>> 0, 24);
		}
		fs.writeSync(fd, slot, 0, SLOT, HEADER + (first + at) * SLOT);
	} finally {
		fs.closeSync(fd);
	}
}

// The count of (bucket, window start), ended or not; 0 when absent or no file.
export function readCounter(file, bucketHex, windowStart) {
	if (!fs.existsSync(file)) return 0;
	const b = bucketBytes(bucketHex);
	const fd = fs.openSync(file, 'r');
	try {
		const buf = readProbe(fd, home(b, windowStart, slotsOf(file)));
		for (let i = 0; i < PROBE; i++) {
			const s = decode(buf, i * SLOT);
			if (isValid(s) && s.start === windowStart && s.bucket.equals(b)) return s.count;
		}
		return 0;
	} finally {
		fs.closeSync(fd);
	}
}

// Every slot that is not all zero: { index, bucket (hex), start, end, count, valid }.
export function allSlots(file) {
	const slots = slotsOf(file);
	const data = fs.readFileSync(file);
	const out = [];
	for (let i = 0; i < slots; i++) {
		const s = decode(data, HEADER + i * SLOT);
		if (isEmpty(s)) continue;
		out.push({ index: i, bucket: Buffer.from(s.bucket).toString('hex'), start: s.start, end: s.end,
			count: s.count, valid: isValid(s) });
	}
	return out;
}

// Valid slots whose window has not ended at nowS; 0 when there is no file.
export function countLive(file, nowS = Math.floor(Date.now() / 1000)) {
	if (!fs.existsSync(file)) return 0;
	const slots = slotsOf(file);
	const data = fs.readFileSync(file);
	let n = 0;
	for (let i = 0; i < slots; i++) {
		const s = decode(data, HEADER + i * SLOT);
		if (isValid(s) && s.end > nowS) n++;
	}
	return n;
}

// Slots that are not empty (valid or not, ended or not); 0 when there is no file.
export function countUsed(file) {
	if (!fs.existsSync(file)) return 0;
	return allSlots(file).length;
}

// Ends every entry's window (moves it back by its length a number of times so it
// stays aligned) — the counterpart of "UPDATE counters SET expires = 0".
export function expireAll(file, nowS = Math.floor(Date.now() / 1000)) {
	const slots = slotsOf(file);
	const data = fs.readFileSync(file);
	let n = 0;
	const fd = fs.openSync(file, 'r+');
	try {
		for (let i = 0; i < slots; i++) {
			const off = HEADER + i * SLOT;
			const s = decode(data, off);
			if (!isValid(s) || s.end <= nowS) continue;
			const len = s.end - s.start;
			const back = Math.ceil((s.end - nowS) / len) * len;
			const slot = Buffer.from(data.subarray(off, off + SLOT));
			slot.writeUInt32LE(s.start - back, 16);
			slot.writeUInt32LE(s.end - back, 20);
			fs.writeSync(fd, slot, 0, SLOT, off);
			n++;
		}
	} finally {
		fs.closeSync(fd);
	}
	return n;
}

/*
 * Writes a new counters file of slots slots holding n live entries of random
 * buckets (every slot taken when n >= slots), each placed as the programs place it, in the windows of len
 * seconds that contain nowS, each with count: a table far fuller than any test
 * could make it through requests. Also places the entries of extra
 * ([{ bucket (hex), start, len, count }]). Returns the number placed.
 */
export function fillTable(file, slots, n, { len = 86400, count = 1, extra = [], nowS = Math.floor(Date.now() / 1000) } = {}) {
	const data = Buffer.alloc(sizeOf(slots));
	header(slots).copy(data, 0);
	const start = nowS - (nowS % len);
	let placed = 0;
	const put = (b, st, l, c) => {
		const first = home(b, st, slots);
		for (let j = 0; j < PROBE; j++) {
			const off = HEADER + (first + j) * SLOT;
			if (data.readUInt32LE(off + 20) !== 0) continue;
			b.copy(data, off, 0, 16);
			data.writeUInt32LE(st >>> 0, off + 16);
			data.writeUInt32LE((st + l) >>> 0, off + 20);
			data.writeUInt32LE(c >>> 0, off + 24);
			placed++;
			return true;
		}
		return false;
	};
	for (const e of extra)
		if (!put(bucketBytes(e.bucket), e.start, e.len, e.count)) throw new Error('no room for an extra entry');
	if (n >= slots - extra.length) {
		// every slot: a bucket made to have its home at the slot (or, for
		// the last 63, at the last home), so that no slot is left free; in
		// a larger table its home is as random as any other's
		const K = 2654435761 | 0;
		const b = Buffer.alloc(16);
		for (let i = 0; i < slots; i++) {
			const off = HEADER + i * SLOT;
			if (data.readUInt32LE(off + 20) !== 0) continue;
			crypto.randomFillSync(b);
			const h = Math.min(i, slots - PROBE), m = slots - PROBE + 1;
			const x = h + m * Math.floor(Math.random() * Math.floor((2 ** 32 - 1 - h) / m));
			b.writeUInt32LE((x - Math.imul(start >>> 0, K)) >>> 0, 0);
			if (!put(b, start, len, count)) throw new Error(`slot ${i} not reached`);
		}
		fs.writeFileSync(file, data, { mode: 0o600 });
		return placed;
	}
	const rnd = crypto.randomBytes(16 * 65536);
	for (let i = 0; placed < n + extra.length; i++) {
		if (i % 65536 === 0 && i > 0) crypto.randomFillSync(rnd);
		put(rnd.subarray((i % 65536) * 16, (i % 65536) * 16 + 16), start, len, count);
		if (i > 4 * (n + extra.length)) throw new Error(`only ${placed} entries fitted in ${slots} slots`);
	}
	fs.writeFileSync(file, data, { mode: 0o600 });
	return placed;
}

/*
 * Holds flock(LOCK_EX) on the file from another process (util-linux flock)
 * until the returned release() is called; resolves once the lock is held.
 */
export async function holdLock(file) {
	const p = spawn('flock', ['-x', file, 'sh', '-c', 'echo locked; exec cat >/dev/null'],
		{ stdio: ['pipe', 'pipe', 'inherit'] });
	const closed = new Promise((resolve) => p.on('close', resolve));
	await new Promise((resolve, reject) => {
		let out = '';
		p.stdout.on('data', (c) => { out += c; if (out.includes('locked')) resolve(); });
		p.on('error', reject);
		p.on('exit', (code) => reject(new Error(`flock exited (${code}) before locking ${file}`)));
	});
	return () => { p.stdin.end(); return closed; };
}

// Current window [start, end) in Unix seconds for a window length.
export function windowOf(len, nowS = Math.floor(Date.now() / 1000)) {
	const start = nowS - (nowS % len);
	return [start, start + len];
}

/*
 * Runs fn, and once more if it failed while the window of len seconds rolled
 * over (a test of fixed windows that straddles a boundary sees two windows).
 * fn must make its own fresh context. No sleeping: the retry starts in a new
 * window with all of it ahead.
 */
export async function inOneWindow(len, fn) {
	const before = windowOf(len)[0];
	try {
		return await fn();
	} catch (e) {
		if (windowOf(len)[0] === before) throw e;
		// said in the test's output, so that a log shows which runs straddled
		console.log(`# inOneWindow: the ${len} s window of ${new Date(before * 1000).toISOString()} ended during the run ` +
			`(${String(e?.message ?? e).split('\n')[0].slice(0, 160)}); running again, once`);
		return fn();
	}
}
