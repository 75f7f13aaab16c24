// shredscan.test.mjs: the scan of tests/lib/shred.mjs (problems(), done by
// tests/lib/shredscan.c) finds exactly what the search in node it replaced
// found: keys planted in a data directory where the scan must find them (a
// window at an 8-byte offset, the last one of a file, a slot of the keys
// file, a file in a subdirectory) and where it must not (an offset between
// two windows, the keys file's header, a slot's second half, a partial slot,
// one byte repeated, a symbolic link), and needles' 16-byte windows at any
// offset, each entry in the order and with the offset the old search gave. The scan behind every "gone for good" test
// (docs/SECURITY.md) is only as good as this.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { problems, opens } from '../lib/shred.mjs';

const iv = (n) => {
	const b = Buffer.alloc(12);
	b.writeUInt32BE(n, 8);
	return b;
};

// An item sealed as lib/secret.c seals item n: ciphertext, then the tag.
function sealed(key, n, plain) {
	const c = crypto.createCipheriv('aes-256-gcm', key, iv(n));
	return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

// The search as shred.mjs did it in node before shredscan.c.
function reference(dir, caps, needles = []) {
	const files = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? files(path.join(d, e.name)) : e.isFile() ? [path.join(d, e.name)] : []);
	function* candidates(file, buf) {
		if (file.endsWith('-keys')) {
			for (let at = 4096; at + 64 <= buf.length; at += 64) {
				const s = buf.subarray(at, at + 64);
				if (!s.every((x) => x === 0)) yield s.subarray(0, 32);
			}
			return;
		}
		for (let at = 0; at + 32 <= buf.length; at += 8) yield buf.subarray(at, at + 32);
	}
	const found = [];
	const probes = caps.filter((c) => c.probe);
	for (const f of files(dir)) {
		const bytes = fs.readFileSync(f);
		const name = path.basename(f);
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

test('the scan finds a planted key exactly where the search in node\'s crypto did, and nowhere else', () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-shredscan-'));
	try {
		const k1 = crypto.randomBytes(32);
		const k2 = crypto.randomBytes(32);
		const same = Buffer.alloc(32, 0x41);
		const a = { secretKey: 'A', probe: { what: 'text', n: 0, buf: sealed(k1, 0, Buffer.from('the text of A')) } };
		const b = { secretKey: 'B', probe: { what: 'files[1].name', n: 4, buf: sealed(k2, 4, Buffer.alloc(0)) } };
		const c = { secretKey: 'C', probe: { what: 'text', n: 0, buf: sealed(same, 0, Buffer.from('under one byte repeated')) } };
		assert.ok(opens(k1, a.probe) && opens(k2, b.probe) && opens(same, c.probe), 'control: each probe opens under its key');
		assert.ok(!opens(k2, a.probe) && !opens(k1, b.probe), 'control: and under no other');

		const db = crypto.randomBytes(20000);
		k1.copy(db, 800);                 // a window: found
		k2.copy(db, 1204);                // between two windows: not a candidate
		same.copy(db, 2400);              // one byte repeated: not tried
		k2.copy(db, db.length - 32);      // the last window: found
		fs.writeFileSync(path.join(dir, 'burnlink.db'), db);

		const keys = Buffer.concat([crypto.randomBytes(4096), Buffer.alloc(64 * 5), Buffer.alloc(40)]);
		k1.copy(keys, 64);                // the header: not a candidate
		k2.copy(keys, 4096 + 64);         // slot 2's key: found
		k1.copy(keys, 4096 + 2 * 64 + 32); // slot 3's second half: not a candidate
		same.copy(keys, 4096 + 3 * 64);   // slot 4, one byte repeated: not tried
		k1.copy(keys, 4096 + 4 * 64);     // slot 5: found
		k2.copy(keys, 4096 + 5 * 64);     // a partial slot at the end: not a candidate
		fs.writeFileSync(path.join(dir, 'burnlink.db-keys'), keys);

		fs.mkdirSync(path.join(dir, 'sub'));
		const wal = crypto.randomBytes(4096);
		k1.copy(wal, 0);                  // the first window of a file below: found
		k2.copy(wal, 32);                 // the window after it: found
		fs.writeFileSync(path.join(dir, 'sub', 'x.db-wal'), wal);
		fs.symlinkSync(path.join(dir, 'burnlink.db'), path.join(dir, 'link.db')); // not a regular file

		const needles = [['the text', Buffer.from('0123456789abcdef')], ['absent', crypto.randomBytes(32)]];
		fs.writeFileSync(path.join(dir, 'plain'), Buffer.concat([Buffer.alloc(7, 1), needles[0][1]]));

		const caps = [a, b, c, { secretKey: 'D', probe: undefined }];
		const got = problems(dir, caps, needles);
		const want = reference(dir, caps, needles);
		assert.deepEqual(got, want);
		assert.deepEqual(got.map((r) => `${r.file}: ${r.what}${r.offset === undefined ? '' : ` @${r.offset}`}`).sort(), [
			'burnlink.db-keys: a key that opens A\'s text',
			'burnlink.db-keys: a key that opens B\'s files[1].name',
			'burnlink.db: a key that opens A\'s text',
			'burnlink.db: a key that opens B\'s files[1].name',
			'plain: the text @7',
			'x.db-wal: a key that opens A\'s text',
			'x.db-wal: a key that opens B\'s files[1].name',
		]);
		// no captures: only the needles are looked for
		assert.deepEqual(problems(dir, [], needles), reference(dir, [], needles));
		assert.deepEqual(problems(dir, [], needles).map((r) => r.what), ['the text']);
		// needles: any offset; the first window found (in the needle's
		// order) at its first offset; a short tail or needle has no window
		const n1 = crypto.randomBytes(16 * 5 + 7);
		const n2 = Buffer.concat([crypto.randomBytes(16), n1.subarray(32, 48), crypto.randomBytes(16)]);
		const n3 = Buffer.concat([Buffer.alloc(16, 9), Buffer.alloc(16, 9), crypto.randomBytes(16)]);
		const hay = crypto.randomBytes(9000);
		n1.copy(hay, 8001, 48, 64);       // n1's window 3, at an odd offset
		n1.copy(hay, 3, 32, 48);          // its window 2, found first (by order) at 3, again at 5003
		n1.copy(hay, 5003, 32, 48);
		n1.copy(hay, 7000, 80, 87);       // its short tail: no window
		Buffer.alloc(16, 9).copy(hay, 6000); // n3's first window, twice over in n3
		hay[5999] = 0;                    // not a 9 (1 in 256 by chance): the run starts at 6000
		fs.writeFileSync(path.join(dir, 'hay'), hay);
		const more = [['n1', n1], ['n2', n2], ['n3', n3], ['short', hay.subarray(100, 115)], ['empty', Buffer.alloc(0)]];
		assert.deepEqual(problems(dir, [], more), reference(dir, [], more));
		assert.deepEqual(problems(dir, [], more).filter((r) => r.file === 'hay'),
			[{ file: 'hay', what: 'n1', offset: 3 }, { file: 'hay', what: 'n2', offset: 3 }, { file: 'hay', what: 'n3', offset: 6000 }]);
		// a key repeated in one file is reported once per place, as before
		k1.copy(db, 5000);
		fs.writeFileSync(path.join(dir, 'burnlink.db'), db);
		assert.deepEqual(problems(dir, [a]), reference(dir, [a]));
		assert.equal(problems(dir, [a]).filter((r) => r.file === 'burnlink.db').length, 2);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});
