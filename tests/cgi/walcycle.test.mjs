// walcycle.test.mjs: the WAL a CGI process leaves behind stays short (issue 36).
// A process that finds no other one using the database rebuilds the WAL index
// from every frame of the WAL (a read and ~6.6 K instructions a frame), so the
// commit that brings the WAL to WAL_PAGES (32) pages checkpoints and truncates
// it (lib/store_sqlite.c; docs/PERFORMANCE.md, "The one-time read under CGI").
// Counted here: after each of a sequence of one-time reads, the frames left in
// the WAL (its size: a 32-byte header, then 24 + 4,096 bytes a frame). With
// WAL_PAGES 64 they reached 60 and more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newContext } from '../lib/cgi.mjs';

const PG = !!process.env.BURNLINK_TEST_PG;
const WAL_PAGES = 32;

function walFrames(db) {
	const wal = `${db}-wal`;
	if (!fs.existsSync(wal))
		return 0;
	const size = fs.statSync(wal).size;
	return size <= 32 ? 0 : (size - 32) / (24 + 4096);
}

test(`one-time reads in sequence leave fewer than ${WAL_PAGES} frames in the WAL, truncated as they reach it`, { skip: PG && 'an SQLite WAL' }, async () => {
	const ctx = newContext();
	const keys = [];
	for (let i = 0; i < 40; i++)
		keys.push((await ctx.createOk({ text: `walcycle ${i}`, maxViews: 1 })).secretKey);
	const seen = [];
	for (const key of keys) {
		const res = await ctx.retrieve(key, {});
		assert.equal(res.status, 200, res.body.toString());
		seen.push(walFrames(ctx.db));
	}
	assert.ok(seen.every((n) => Number.isInteger(n)), `whole frames: ${seen}`);
	assert.ok(Math.max(...seen) < WAL_PAGES, `frames after each read: ${seen}`);
	assert.ok(seen.some((n, i) => i > 0 && n < seen[i - 1]), `truncated at least once: ${seen}`);
	ctx.remove();
});
