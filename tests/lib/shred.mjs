// shred.mjs: the scan of a data directory that proves a deleted secret is gone
// for good on SQLite (docs/SECURITY.md, "Gone for good"), where each secret's
// stored content is sealed (AES-256-GCM) under a key of its own in a slot of
// <db>-keys (lib/keyslots.c), and deleting it overwrites that slot.
//
//   const cap = capture(db, secretKey)   // while the secret is active: its
//                                        // row's slot and its sealed items
//   opens(key, cap.probe)                // does a 32-byte key open it?
//   slotKey(db, cap)                     // the key its slot holds now, or null
//   problems(dir, db, [cap...], needles) // what the scan finds; [] when gone
//
// What problems() checks, for each captured secret:
//   1. no candidate key opens its sealed content: the candidates are the 32
//      key bytes of every non-zero slot of the keys file (whatever its check
//      says) and every 32-byte window, at every 8-byte offset, of every other
//      file of the data directory (SQLite's database, WAL, shared memory and
//      journal, the counters, the install secret, ...): a key left anywhere
//      in the directory is found. Every item of a secret is sealed under the
//      same key, so a key that opens none of the smallest item (the probe)
//      opens none of them.
//   2. none of the needles (the plaintext, and the bytes as they were sent or
//      returned: the client's or the server's ciphertext) appears in any file
//      of the directory, in 16-byte windows.
// The sealed bytes themselves may remain (a WAL frame, a free page): without
// a key they are noise. capture() is the control: while the secret is active
// its probe opens under its slot's key (tests call opens(slotKey(...))).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sqlite, sha256hex } from './cgi.mjs';

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

// Every 32-byte window at an 8-byte offset of buf, and the key of every non-zero slot of a keys file.
function* candidates(file, buf) {
	if (file.endsWith('-keys')) {
		for (let at = HEADER; at + SLOT <= buf.length; at += SLOT) {
			const s = buf.subarray(at, at + SLOT);
			if (!s.every((x) => x === 0)) yield s.subarray(0, 32);
		}
		return;
	}
	for (let at = 0; at + 32 <= buf.length; at += 8) yield buf.subarray(at, at + 32);
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

// What the scan finds (see the top of this file): [{file, what, offset?}]; [] when every capture is gone.
export function problems(dir, caps, needles = []) {
	const found = [];
	const probes = caps.filter((c) => c.probe);
	for (const f of files(dir)) {
		const bytes = fs.readFileSync(f);
		const name = path.basename(f);
		// a window of zeros or of one byte repeated is no key worth trying
		for (const k of candidates(name, bytes)) {
			if (k[0] === k[31] && k.every((x) => x === k[0])) continue;
			for (const c of probes)
				if (opens(k, c.probe)) found.push({ file: name, what: `a key that opens ${c.secretKey}'s ${c.probe.what}` });
		}
		for (const [what, buf] of needles)
			for (let i = 0; i + 16 <= buf.length; i += 16)
				if (bytes.includes(buf.subarray(i, i + 16))) {
					found.push({ file: name, what, offset: bytes.indexOf(buf.subarray(i, i + 16)) });
					break;
				}
	}
	return found;
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
