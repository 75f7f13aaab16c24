// shred.mjs: the scan of a data directory that proves a deleted secret is gone
// for good on SQLite (docs/SECURITY.md, "Gone for good"), where each secret's
// stored content is sealed (AES-256-GCM) under a key of its own in a slot of
// <db>-keys (lib/keyslots.c), and deleting it overwrites that slot.
//
//   const cap = capture(db, secretKey)   // while the secret is active: its
//                                        // row's slot and its sealed items
//   opens(key, cap.probe)                // does a 32-byte key open it?
//   slotKey(db, cap)                     // the key its slot holds now, or null
//   problems(dir, [cap...], needles)     // what the scan finds; [] when gone
//
// What problems() checks, for each captured secret:
//   1. no candidate key opens its sealed content: the candidates are the 32
//      key bytes of every non-zero slot of the keys file (whatever its check
//      says) and every 32-byte window, at every 8-byte offset, of every other
//      file of the data directory (SQLite's database, WAL, shared memory and
//      journal, the counters, the install secret, ...): a key left anywhere
//      in the directory is found (a candidate of one byte repeated, zeros
//      included, is not tried). Every item of a secret is sealed under the
//      same key, so a key that opens none of the smallest item (the probe)
//      opens none of them.
//   2. none of the needles (the plaintext, and the bytes as they were sent or
//      returned: the client's or the server's ciphertext) appears in any file
//      of the directory, in 16-byte windows (bytes 16i..16i+15 of a needle, at
//      any offset of a file; a found needle names the first such window's
//      first offset).
// The search runs in C over OpenSSL (tests/lib/shredscan.c, built into
// build/testlib/ on first use): about 1.3 million tries for a 10 MB database,
// a second where node's crypto took minutes. tests/security/shredscan.test.mjs
// holds it to what the search in node did.
// The sealed bytes themselves may remain (a WAL frame, a free page): without
// a key they are noise. capture() is the control: while the secret is active
// its probe opens under its slot's key (tests call opens(slotKey(...))).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, sqlite, sha256hex } from './cgi.mjs';

const SLOT = 64;
const HEADER = 4096;

// The nonce of item n of a sealed content (lib/secret.c, seal_iv()).
function iv(n) {
	const b = Buffer.alloc(12);
	b.writeUInt32BE(n, 8);
	return b;
}

// 1 if key opens the sealed item {n, buf} (its GCM tag verifies).
export function opens(key, item) {
	if (!key || key.length !== 32 || item.buf.length < 16) return false;
	try {
		const d = crypto.createDecipheriv('aes-256-gcm', key, iv(item.n));
		d.setAuthTag(item.buf.subarray(item.buf.length - 16));
		d.update(item.buf.subarray(0, item.buf.length - 16));
		d.final();
		return true;
	} catch {
		return false;
	}
}

const hex = (s) => (s ? Buffer.from(s, 'hex') : null);

// While a secret is active: its slot, owner (created_at) and sealed items. A
// number instead of a key names the row by its id (an answer to a secret
// request, whose key the test never sees).
export function capture(db, secretKey) {
	const where = typeof secretKey === 'number' ? `id = ${secretKey}` : `secret_hash = x'${sha256hex(secretKey)}'`;
	const row = sqlite(db, `SELECT id, key_slot, created_at, hex(text_ct) FROM secrets ` +
		`WHERE ${where}`).trim().split('|');
	const [id, slot, owner, text] = row;
	const items = [];
	if (text) items.push({ what: 'text', n: 0, buf: hex(text) });
	for (const line of sqlite(db, `SELECT idx, hex(name), hex(mime), hex(data) FROM attachments ` +
		`WHERE secret_id = ${Number(id)} ORDER BY idx`).trim().split('\n').filter(Boolean)) {
		const [idx, name, mime, data] = line.split('|');
		const f = Number(idx);
		items.push({ what: `files[${f}].name`, n: 3 * f + 1, buf: hex(name) || Buffer.alloc(0) });
		items.push({ what: `files[${f}].mime`, n: 3 * f + 2, buf: hex(mime) || Buffer.alloc(0) });
		items.push({ what: `files[${f}].data`, n: 3 * f + 3, buf: hex(data) || Buffer.alloc(0) });
	}
	const sized = items.filter((i) => i.buf.length >= 16).sort((a, b) => a.buf.length - b.buf.length);
	return { secretKey, id: Number(id), slot: slot === '' ? 0 : Number(slot), owner: Number(owner), items, probe: sized[0] };
}

// The key bytes slot cap.slot holds now (null: the file or the slot is gone or zero).
export function slotKey(db, cap) {
	const f = `${db}-keys`;
	if (!fs.existsSync(f) || cap.slot < 1) return null;
	const fd = fs.openSync(f, 'r');
	try {
		const b = Buffer.alloc(SLOT);
		if (fs.readSync(fd, b, 0, SLOT, HEADER + (cap.slot - 1) * SLOT) !== SLOT) return null;
		return b.every((x) => x === 0) ? null : b.subarray(0, 32);
	} finally {
		fs.closeSync(fd);
	}
}

// Every regular file under dir (the data directory).
function files(dir) {
	const out = [];
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) out.push(...files(p));
		else if (e.isFile()) out.push(p);
	}
	return out;
}

// The search, tests/lib/shredscan.c, built into build/testlib/ when
// missing or older than its source (beside and renamed: files that run at
// once may build it together).
const SCAN = path.join(ROOT, 'build', 'testlib', 'shredscan');
function scanner() {
	const src = path.join(ROOT, 'tests', 'lib', 'shredscan.c');
	const st = fs.existsSync(SCAN) ? fs.statSync(SCAN).mtimeMs : 0;
	if (st < fs.statSync(src).mtimeMs) {
		fs.mkdirSync(path.dirname(SCAN), { recursive: true });
		const tmp = `${SCAN}.${process.pid}`;
		execFileSync(process.env.CC || 'cc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', tmp, src, '-lcrypto'],
			{ stdio: 'inherit' });
		fs.renameSync(tmp, SCAN);
	}
	return SCAN;
}

const u32 = (n) => {
	const b = Buffer.alloc(4);
	b.writeUInt32LE(n);
	return b;
};

// What problems() finds, as shredscan.c finds it (node's crypto took minutes
// over a 10 MB database; a needle's windows, each looked for by indexOf(),
// as long again): for each file, the candidates that open a probe, then the
// needles found.
export function problems(dir, caps, needles = []) {
	const probes = caps.filter((c) => c.probe);
	const list = files(dir).map((f) => ({ name: path.basename(f), bytes: fs.readFileSync(f) }));
	const parts = [u32(probes.length)];
	for (const { probe } of probes) parts.push(u32(probe.n), u32(probe.buf.length), probe.buf);
	parts.push(u32(needles.length));
	for (const [, buf] of needles) parts.push(u32(buf.length), buf);
	parts.push(u32(list.length));
	for (const { name, bytes } of list) parts.push(u32(name.endsWith('-keys') ? 1 : 0), u32(bytes.length), bytes);
	const out = execFileSync(scanner(), [], { input: Buffer.concat(parts), maxBuffer: 64 << 20, encoding: 'utf8' });
	return out.split('\n').filter(Boolean).map((line) => {
		const [kind, f, i, offset] = line.split(' ');
		const file = list[Number(f)].name;
		if (kind === 'K') {
			const c = probes[Number(i)];
			return { file, what: `a key that opens ${c.secretKey}'s ${c.probe.what}` };
		}
		return { file, what: needles[Number(i)][0], offset: Number(offset) };
	});
}

// Where any of the sealed bytes of caps still lies (diagnostics only: without a key they are noise).
export function sealedLeft(dir, caps) {
	const left = [];
	for (const f of files(dir)) {
		const bytes = fs.readFileSync(f);
		for (const c of caps)
			if (c.probe && bytes.includes(c.probe.buf.subarray(0, Math.min(32, c.probe.buf.length))))
				left.push(`${c.secretKey}'s ${c.probe.what} in ${path.basename(f)}`);
	}
	return left;
}
