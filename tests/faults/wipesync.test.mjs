// wipesync.test.mjs: a FastCGI responder's wiped keys are synced after the
// answers (lib/store_sqlite.c, commit(), sq_settle(); docs/SECURITY.md, "Gone
// for good"). A one-time read wipes its key in the keys file before the
// COMMIT (the page cache: every process reads it there, and a crash of the
// responder keeps it) and the answer goes out after the WAL's sync alone;
// the keys file is synced once the responder has no request waiting (or,
// under load, once the oldest unsynced wipe is 100 ms old, at a commit).
//
// The responder (build/dyn/cgi-bin/retrieve) runs under holdsync.so with
// HOLDSYNC_FILE=-keys: it is held at the first sync of the keys file after
// the write of the marked row's page (the COMMIT that spends it). Before,
// that sync came before the COMMIT, the marked write after it, and no keys
// sync followed: nothing was held and these tests failed waiting for it.
// While it is held the answer has gone out, and the scan of the data
// directory (tests/lib/shred.mjs) finds no key that opens the content; then
// the sync is let go, failed, or the responder killed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { newContext, newKey, encryptItem, decryptItem, sha256hex } from '../lib/cgi.mjs';
import { build, haveDyn, startResponder } from './fcgi.mjs';
import { integrity } from './helpers.mjs';
import { capture, problems } from '../lib/shred.mjs';

// A responder that has answered a one-time read of a marked secret and is
// held at the keys file's sync that follows.
async function held(t) {
	const ctx = newContext();
	const key = newKey();
	const z = await ctx.createOk({ text: encryptItem('read once', key), maxViews: 1 });
	const w = await ctx.createOk({ text: encryptItem('the next one', key), maxViews: 1 });
	const cap = capture(ctx.db, z.secretKey);
	const fifo = path.join(ctx.dir, 'hold.fifo');
	execFileSync('mkfifo', [fifo]);
	const rsp = await startResponder(t, 'retrieve', ctx.dir, {
		LD_PRELOAD: build('holdsync', true), HOLDSYNC_MARKER_HEX: sha256hex(z.secretKey),
		HOLDSYNC_FIFO: fifo, HOLDSYNC_FILE: '-keys',
	});
	const env = { BURNLINK_DB: ctx.db };
	const a = await rsp.send({ key: z.secretKey, body: {}, env });
	rsp.go();
	const r = await a.answer;
	assert.equal(r.status, 200, String(r.body));
	assert.equal(decryptItem(r.json.text, key).toString(), 'read once');
	await rsp.waitStderr(/holdsync: held/);
	// Answered, the wipe not yet synced: in the files as every process reads them, gone.
	assert.deepEqual(problems(ctx.dir, [cap]), [], 'the read row\'s key is gone from the files');
	return { ctx, key, z, w, cap, fifo, rsp, env };
}

// The responder goes on serving: the next one-time read is answered, the database intact.
async function servesNext(h) {
	const b = await h.rsp.send({ key: h.w.secretKey, body: {}, env: h.env });
	const rb = await b.answer;
	assert.equal(rb.status, 200, String(rb.body));
	assert.equal(decryptItem(rb.json.text, h.key).toString(), 'the next one');
	assert.equal(integrity(h.ctx.db), 'ok');
}

test('a one-time read is answered before its key\'s wipe is synced, which follows once nothing waits', async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t);
	execFileSync('sh', ['-c', 'printf s > "$1"', 'sh', h.fifo]);
	await h.rsp.waitStderr(/holdsync: synced/);
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
	await servesNext(h);
});

test('a failed sync of the wiped keys is logged, the wipes stay due, and the responder goes on serving', async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t);
	execFileSync('sh', ['-c', 'printf f > "$1"', 'sh', h.fifo]);
	await h.rsp.waitStderr(/holdsync: failing fdatasync/);
	await h.rsp.waitStderr(/-keys: sync: Input\/output error/);
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
	// The wipes stay due (synced by a later commit or the next idle moment;
	// the shim holds one sync only).
	await servesNext(h);
});

test('a responder killed before its wiped keys are synced leaves no key that opens the content', async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t);
	process.kill(h.rsp.pid(), 'SIGKILL');
	// The page cache keeps the wipe: a crash of the process is not a power cut.
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
	const again = await h.ctx.retrieve(h.z.secretKey);
	assert.notEqual(again.status, 200, 'served once');
	assert.equal(integrity(h.ctx.db), 'ok');
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
});
