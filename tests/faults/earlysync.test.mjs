// earlysync.test.mjs: a FastCGI responder's early lock release
// (lib/store_sqlite.c, wal_sync(); docs/PERFORMANCE.md, "Early lock
// release"). Its COMMIT writes the WAL without syncing it, it lets both write
// locks go (SQLite's, and the responders' <db>-lock), and only then syncs the
// WAL; the batch's answers go out once that sync succeeded.
//
// The responder (build/dyn/cgi-bin/retrieve, for LD_PRELOAD) runs under
// holdsync.so, which stops it at the first sync after the write of the page
// that holds a marked row (its key's SHA-256: the stored content is sealed,
// lib/keyslots.c): the commit that spends the row. While it is held there:
//   - another writer takes both locks at once (flock -n on <db>-lock, a
//     sqlite3 BEGIN IMMEDIATE with no busy timeout, a CGI create), and no
//     answer has gone out (before, the sync was made inside COMMIT, locks
//     held: all three failed);
//   - the test lets the sync succeed (the answer is the content), fail (the
//     answer is 503 STORE_UNAVAILABLE with the hint that the request may have
//     taken effect, and the next batch is served), or kills the responder
//     (SIGKILL: no answer at all, the database intact, the content served at
//     most once and no key left that opens it).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { newContext, newKey, encryptItem, decryptItem, sqlite, sha256hex } from '../lib/cgi.mjs';
import { build, haveDyn, startResponder } from './fcgi.mjs';
import { integrity } from './helpers.mjs';
import { capture, problems } from '../lib/shred.mjs';

// A responder with a one-time read of a marked secret queued, held at its WAL
// sync; batched: after a request that opens the store, so that the read joins
// the batch's transaction (lib/fcgi.c; the first request of a responder
// commits on its own).
async function held(t, batched) {
	const ctx = newContext();
	const key = newKey();
	// V (the batch's first read) on other pages than Z's, which carry the marker.
	const v = await ctx.createOk({ text: encryptItem('opens the store', key), maxViews: 5 });
	for (let i = 0; i < 12; i++) await ctx.createOk({ text: encryptItem('f'.repeat(1500), key) });
	const z = await ctx.createOk({ text: encryptItem('held at the sync', key), maxViews: 1 });
	const w = await ctx.createOk({ text: encryptItem('the next batch', key), maxViews: 1 });
	const cap = capture(ctx.db, z.secretKey);
	const fifo = path.join(ctx.dir, 'hold.fifo');
	execFileSync('mkfifo', [fifo]);
	const rsp = await startResponder(t, 'retrieve', ctx.dir, {
		LD_PRELOAD: build('holdsync', true), HOLDSYNC_MARKER_HEX: sha256hex(z.secretKey), HOLDSYNC_FIFO: fifo,
	});
	const env = { BURNLINK_DB: ctx.db };
	let first = null;
	if (batched) {
		first = (await rsp.send({ key: v.secretKey, body: {}, env })).answer;
		first.catch(() => {});	// killed: no answer
	}
	const a = await rsp.send({ key: z.secretKey, body: {}, env });
	let answered = false;
	const answer = a.answer.then((r) => { answered = true; return r; },
		(e) => { answered = true; return { error: e }; });
	rsp.go();
	await rsp.waitStderr(/holdsync: held/);
	return { ctx, key, z, w, cap, fifo, rsp, env, first, answer, answered: () => answered };
}

// Checks, while the responder is held at its sync, that another writer goes ahead.
async function othersWrite(h) {
	assert.equal(h.answered(), false, 'no answer before the WAL is synced');
	// The responders' lock: flock -n fails at once while another holds it.
	execFileSync('flock', ['-n', `${h.ctx.db}-lock`, 'true']);
	// SQLite's write lock: no busy timeout, so SQLITE_BUSY at once while it is held.
	execFileSync('sqlite3', [h.ctx.db, 'BEGIN IMMEDIATE; ROLLBACK;'], { stdio: 'pipe' });
	// And a whole write: a create by the CGI program, answered meanwhile.
	await h.ctx.createOk({ text: encryptItem('written meanwhile', h.key) });
	assert.equal(h.answered(), false, 'still no answer before the WAL is synced');
}

for (const batched of [false, true])
test(`${batched ? 'in a batch' : 'alone'}: the WAL is synced after the write locks are let go, and the answer only after that`, async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t, batched);
	await othersWrite(h);
	execFileSync('sh', ['-c', 'printf s > "$1"', 'sh', h.fifo]);
	const r = await h.answer;
	assert.match(h.rsp.stderr(), /holdsync: synced/);
	assert.equal(r.status, 200, String(r.body));
	assert.equal(decryptItem(r.json.text, h.key).toString(), 'held at the sync');
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), [], 'the read row\'s key is gone');
});

for (const batched of [false, true])
test(`${batched ? 'in a batch' : 'alone'}: a WAL sync that fails after the locks are let go answers 503, and the next batch is served`, async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t, batched);
	await othersWrite(h);
	execFileSync('sh', ['-c', 'printf f > "$1"', 'sh', h.fifo]);
	const r = await h.answer;
	assert.match(h.rsp.stderr(), /holdsync: failing f(data)?sync/);
	assert.equal(r.status, 503, String(r.body));
	assert.equal(r.json.code, 'STORE_UNAVAILABLE');
	// Committed, visible and perhaps not durable: the hint does not say "nothing was used".
	assert.match(r.json.hint, /may or may not have taken effect/);
	if (batched) {
		// The batch's commit (lib/fcgi.c) failed, not the request's own.
		assert.match(h.rsp.stderr(), /the batch's commit failed: answering 503/);
		// The responder's first request committed on its own (no store to
		// batch yet), synced before the batch ended: its view is not taken back.
		const rf = await h.first;
		assert.equal(rf.status, 200, `the first request: ${rf.body}`);
		assert.equal(decryptItem(rf.json.text, h.key).toString(), 'opens the store');
	}
	// The commit is visible: the read was spent (its content never sent), and its key is gone.
	const row = sqlite(h.ctx.db, `SELECT state, text_ct IS NULL FROM secrets WHERE secret_hash = x'${sha256hex(h.z.secretKey)}'`).trim();
	assert.equal(row, '3|1', 'spent by the commit whose sync failed');
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
	// The next batch is served, and made durable by its own sync.
	const b = await h.rsp.send({ key: h.w.secretKey, body: {}, env: h.env });
	const rb = await b.answer;
	assert.equal(rb.status, 200, String(rb.body));
	assert.equal(decryptItem(rb.json.text, h.key).toString(), 'the next batch');
	assert.equal(integrity(h.ctx.db), 'ok');
});

test('a responder killed between its COMMIT and the WAL\'s sync sends no answer, and leaves the data consistent', async (t) => {
	if (!haveDyn('retrieve'))
		return t.skip('build/dyn is missing: make dyn');
	const h = await held(t, true);
	assert.equal(h.answered(), false);
	process.kill(h.rsp.pid(), 'SIGKILL');
	const r = await h.answer;
	assert.ok(r.error || r.status === undefined, `no answer was sent: ${JSON.stringify(r.status)}`);
	assert.equal(integrity(h.ctx.db), 'ok');
	// The content is served at most once (here: never), and once the row is
	// no longer active no key in the data directory opens it.
	const state = Number(sqlite(h.ctx.db, `SELECT state FROM secrets WHERE secret_hash = x'${sha256hex(h.z.secretKey)}'`).trim());
	if (state !== 0)
		assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
	const again = await h.ctx.retrieve(h.z.secretKey);
	assert.notEqual(again.status, 200, 'its key was wiped before the COMMIT: never served');
	assert.deepEqual(problems(h.ctx.dir, [h.cap]), []);
});
