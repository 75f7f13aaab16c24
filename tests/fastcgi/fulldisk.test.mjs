// fulldisk.test.mjs: group commit when the disk fills up. The responders
// answer waiting requests in batches with one commit; when that commit (or a
// create deferred to it) fails for want of space, every request of the batch
// that had succeeded must be answered 503 instead: a 200 means stored, always.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFastcgi } from './server.mjs';
import { sha256hex } from '../lib/cgi.mjs';

const isRoot = process.getuid && process.getuid() === 0;
const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-fcgi-full-'));
let mounted = false, srv;

after(async () => {
	if (srv) await srv.stop();
	if (mounted) execFileSync('umount', ['-l', mnt]);
	fs.rmSync(mnt, { recursive: true, force: true });
});

function sqlite(db, q) {
	return execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, q], { encoding: 'utf8' }).trim();
}

test('concurrent creates on a filling disk, in batches: each answer is 200 and stored, or 503 and not', { skip: !isRoot && 'needs root to mount a small tmpfs' }, async (t) => {
	try {
		execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'tmpfs', mnt]);
		mounted = true;
	} catch (e) {
		return t.skip(`cannot mount a tmpfs: ${e.message}`);
	}
	srv = await startFastcgi({ dataDir: mnt });
	// A filler file holds back space; a round whose requests were all refused
	// at once (the disk full before any batch could commit) gives back 48 KiB
	// of it, so that the space ends again, at another point of a batch.
	const filler = path.join(mnt, 'filler');
	fs.writeFileSync(filler, Buffer.alloc(1024 * 1024));
	let held = 1024 * 1024;
	const ok = [], refused = {};
	// 40 KiB secrets (inserted when their batch commits), 16 at a time, until
	// both ways of running out of space were seen: a write that fails inside
	// the batch (refused at once) and a batch whose commit fails (every
	// request of it refused); which comes first depends on where the space ends.
	for (let round = 0; round < 40 && ((refused.STORE_UNAVAILABLE || 0) < 16 || !refused.batch); round++) {
		const res = await Promise.all(Array.from({ length: 16 }, (_, i) =>
			srv.api('POST', '/api/secrets', { text: `${round}.${i} `.padEnd(40 * 1024, 'z') })));
		if (res.every((r) => r.status !== 200) && held > 0) {
			held = Math.max(0, held - 48 * 1024);
			fs.truncateSync(filler, held);
		}
		for (const r of res) {
			if (r.status === 200) {
				ok.push(r.body.metadata.secretKey);
				continue;
			}
			assert.equal(r.status, 503, r.text);
			assert.ok(['STORE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE'].includes(r.body?.code), r.text);
			refused[r.body.code] = (refused[r.body.code] || 0) + 1;
			if (/could not commit/.test(r.body.hint)) refused.batch = (refused.batch || 0) + 1;
			else refused.hints = [...new Set([...(refused.hints || []), r.body.hint])];
		}
	}
	t.diagnostic(`${ok.length} stored, refused: ${JSON.stringify(refused)}`);
	assert.ok((refused.STORE_UNAVAILABLE || 0) > 0, 'the disk filled up and creates were refused');
	assert.ok((refused.batch || 0) > 0, 'some were refused when their batch could not commit');
	const db = path.join(mnt, 'burnlink.db');
	assert.equal(Number(sqlite(db, 'SELECT count(*) FROM secrets')), ok.length, 'one row per 200, none for a 503');
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
	// Every 200 names a stored secret (the API itself may now be refused: the
	// counters file cannot grow on the full disk either).
	const hashes = ok.map((k) => `x'${sha256hex(k)}'`).join(',');
	assert.equal(Number(sqlite(db, `SELECT count(*) FROM secrets WHERE secret_hash IN (${hashes})`)), ok.length);
});
