// counters.test.mjs: a FastCGI responder compares the counters file's path
// with the file it holds once per batch (lib/counters.c, lock()), not under
// every lock. A table that another process replaces in the middle of a batch
// (rebuild(): the new table renamed over the path, the old file emptied)
// loses no count: the responder's next read of the emptied file comes back
// short, and it counts again in the file the path names.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, newContext } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';

const HEADER = 4096;

// 1 once the counters file holds a count (a slot that is not all zeros).
function counted(file) {
	let b;
	try {
		b = fs.readFileSync(file);
	} catch {
		return false;
	}
	for (let i = HEADER; i < b.length; i += 4096)
		if (b.subarray(i, Math.min(i + 4096, b.length)).some((x) => x !== 0)) return true;
	return false;
}

test('FastCGI: the counters table replaced in the middle of a batch: no count lost, none refused', { timeout: 60000 }, async (t) => {
	const ctx = newContext();
	const file = path.join(ctx.dir, 'burnlink-counters');
	const rsp = await startResponder(t, 'create', ctx.dir, {}, { exe: path.join(ROOT, 'cgi-bin', 'create') });
	const env = { BURNLINK_DB: ctx.db, REQUEST_URI: '/api/secrets' };
	// One batch: a create with a passphrase (counted first, then scrypt's
	// ~0.1 s, during which the table is replaced), then a plain one.
	const a = await rsp.send({ body: { text: 'slow', passphrase: 'a long enough passphrase' }, env });
	const b = await rsp.send({ body: { text: 'after the swap' }, env });
	rsp.go();
	// The first request's count is in the file: replace the table as
	// rebuild() does, under its lock (a copy renamed over the path, the old
	// file emptied through a descriptor opened before).
	for (let i = 0; i < 5000 && !counted(file); i++)
		await new Promise((resolve) => setImmediate(resolve));
	assert.ok(counted(file), 'the first request was counted');
	execFileSync('sh', ['-c', 'exec 3<>"$1"; flock 3; cp "$1" "$1.swap"; mv "$1.swap" "$1"; : > /proc/$$/fd/3', 'sh', file]);
	const ra = await a.answer, rb = await b.answer;
	assert.equal(ra.status, 200, ra.body?.toString());
	assert.equal(rb.status, 200, rb.body?.toString());
	const left = (r) => Number(r.headers['x-ratelimit-remaining']);
	assert.equal(left(rb), left(ra) - 1);
	// the next batch finds the second count in the file the path names
	const rc = await (await rsp.send({ body: { text: 'next batch' }, env })).answer;
	assert.equal(rc.status, 200, rc.body?.toString());
	assert.equal(left(rc), left(rb) - 1, 'no count was lost in the replaced file');
	assert.equal(fs.statSync(file).size, HEADER + 131072 * 32);
	await rsp.stop();
});
