// shred.test.mjs: a crash at any durable point of a one-time read, a burn, an
// expiry seen by a request or a cron/cleanup never lets a secret be read twice
// nor leaves a copy anyone could open (docs/SECURITY.md, "Gone for good").
//
// The programs of build/dyn run under crashsync.so, which kills the process
// (SIGKILL: what it wrote stays in the page cache, as after any crash of a
// process) just before, or just after, its Nth fsync/fdatasync, for every N
// the operation reaches: the keys file's sync (the wipe), the WAL's commit,
// and what follows. After each crash, and again after a later read of the
// same secret by the normal programs: the content was served at most once,
// and once the row is no longer active (or gone) the scan of tests/lib/shred.mjs
// (no key anywhere in the data directory opens the sealed content captured
// while the secret was active) finds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import crypto from 'node:crypto';
import { ROOT, newContext, sqlite, sha256hex } from '../lib/cgi.mjs';
import { runDyn } from './helpers.mjs';
import { build } from './fcgi.mjs';
import { capture, problems } from '../lib/shred.mjs';

let SHIM;

// The row's state (0 active ... 3 exhausted), or null once the row is gone.
function stateOf(ctx, secretKey) {
	const s = sqlite(ctx.db, `SELECT state FROM secrets WHERE secret_hash = x'${sha256hex(secretKey)}'`).trim();
	return s === '' ? null : Number(s);
}

// Runs program of build/dyn against ctx's database, killed at sync n (when: BEFORE or AFTER).
function crashed(ctx, program, when, n, opts = {}) {
	return runDyn(program, {
		...opts,
		env: { BURNLINK_DB: ctx.db, LD_PRELOAD: SHIM, [`CRASHSYNC_${when}`]: String(n), ...(opts.env || {}) },
	});
}

const OPS = {
	// a one-time secret read
	'one-time read': (ctx, s, when, n) => crashed(ctx, 'retrieve', when, n, { method: 'POST', pathInfo: `/${s.secretKey}` }),
	// a burn by receipt key
	burn: (ctx, s, when, n) => crashed(ctx, 'delete', when, n, { method: 'DELETE', pathInfo: `/${s.receiptKey}` }),
	// the first request after its expiry
	'expiry seen by a read': (ctx, s, when, n) => {
		ctx.age(s.secretKey);
		return crashed(ctx, 'retrieve', when, n, { method: 'POST', pathInfo: `/${s.secretKey}` });
	},
	// cron/cleanup of the expired secret
	'cron/cleanup': async (ctx, s, when, n) => {
		ctx.age(s.secretKey);
		const p = path.join(ROOT, 'build', 'dyn', 'cron', 'cleanup');
		try {
			execFileSync(p, [], { env: { PATH: process.env.PATH, BURNLINK_DB: ctx.db, LD_PRELOAD: SHIM, [`CRASHSYNC_${when}`]: String(n) }, stdio: 'pipe' });
			return { signal: null, res: null };
		} catch (e) {
			return { signal: e.signal, res: null };
		}
	},
};

for (const [name, op] of Object.entries(OPS)) {
	test(`${name}: a crash before or after each sync serves the content at most once and leaves no key that opens it`, async (t) => {
		SHIM = build('crashsync', true);
		const ctx = newContext();
		let crashes = 0, lost = 0;
		for (const when of ['BEFORE', 'AFTER']) {
			for (let n = 1; n <= 5; n++) {
				const text = `shred ${name} ${when} ${n} ` + crypto.randomBytes(24).toString('hex');
				const s = await ctx.createOk({ text, maxViews: 1 });
				const cap = capture(ctx.db, s.secretKey);
				assert.ok(cap.slot > 0 && cap.probe, 'control: the secret is sealed');
				const r = await op(ctx, s, when, n);
				if (r.signal === 'SIGKILL') crashes++;
				let served = r.res?.status === 200 && r.res.json?.text ? 1 : 0;
				const after = stateOf(ctx, s.secretKey);
				if (after !== 0)
					assert.deepEqual(problems(ctx.dir, [cap]), [], `${when} sync ${n}: the row ended (state ${after}) but a key opens its content`);
				// a later read by the normal programs
				const again = await ctx.retrieve(s.secretKey);
				if (again.status === 200) served++;
				else if (after === 0 && again.json?.code === 'SECRET_BURNED') lost++;
				assert.ok(served <= 1, `${when} sync ${n}: the content was served ${served} times`);
				const last = stateOf(ctx, s.secretKey);
				assert.notEqual(last, 0, `${when} sync ${n}: the secret is still active after its read`);
				assert.deepEqual(problems(ctx.dir, [cap], [['plaintext', Buffer.from(text)]]), [],
					`${when} sync ${n}: after the later read`);
			}
		}
		assert.ok(crashes > 0, 'control: some runs were killed at a sync');
		t.diagnostic(`${crashes} of 10 runs killed at a sync; ${lost} secrets lost (their key wiped by a crashed consumption that never committed: gone, never readable)`);
	});
}
