// powerloss.test.mjs: creates, retrieves and burns killed with SIGKILL at
// random moments, round after round, on one database. After every round the
// database passes PRAGMA integrity_check; every create that was answered 200
// stays retrievable (or was legitimately used up or burned); no secret ever
// served more views than it allows; an acknowledged burn stays burned.
// (SIGKILL loses the process, not the page cache; the fsync side of power
// loss is SQLite's WAL with synchronous=FULL, see docs/SECURITY.md.)
// BURNLINK_POWERLOSS_ROUNDS sets the number of rounds (default 25).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newContext, sqlite, sha256hex } from '../lib/cgi.mjs';
import { integrity } from './helpers.mjs';

const ROUNDS = Number(process.env.BURNLINK_POWERLOSS_ROUNDS) || 25;

test(`${ROUNDS} rounds of creates, retrieves and burns killed at random moments`, async (t) => {
	const ctx = newContext();
	const known = new Map();	// secretKey -> { maxViews, served, receiptKey, burned }
	let acked = 0, killedCreates = 0, served = 0, burns = 0;
	let ip = 0;
	const env = () => ({ env: { REMOTE_ADDR: `10.77.${(ip >> 8) & 255}.${ip++ & 255}` } });
	const rnd = (n) => Math.floor(Math.random() * n);

	for (let round = 0; round < ROUNDS; round++) {
		const jobs = [];
		// Creates, some killed.
		for (let i = 0; i < 3; i++) {
			const maxViews = 1 + rnd(3);
			const kill = rnd(3) === 0 ? undefined : rnd(25);
			jobs.push(ctx.create({ text: `round ${round} secret ${i}`, maxViews }, { ...env(), killAfterMs: kill, noHeaderCheck: true })
				.then((r) => {
					if (r.status === 200 && r.json?.success) {
						acked++;
						known.set(r.json.metadata.secretKey, { maxViews, served: 0, receiptKey: r.json.metadata.key, burned: false });
					} else if (r.killed) killedCreates++;
				}));
		}
		// Retrieves and burns of what earlier rounds created, some killed.
		const keys = [...known.keys()];
		for (let i = 0; i < 4 && keys.length; i++) {
			const k = keys[rnd(keys.length)];
			const kill = rnd(2) === 0 ? undefined : rnd(25);
			jobs.push(ctx.retrieve(k, undefined, { ...env(), killAfterMs: kill, noHeaderCheck: true }).then((r) => {
				if (r.status === 200 && r.json?.success) {
					known.get(k).served++;
					served++;
				}
			}));
		}
		if (keys.length && rnd(2) === 0) {
			const k = keys[rnd(keys.length)];
			jobs.push(ctx.burn(known.get(k).receiptKey, undefined, { ...env(), killAfterMs: rnd(25), noHeaderCheck: true }).then((r) => {
				if (r.status === 200 && r.json?.success) {
					known.get(k).burned = true;
					burns++;
				}
			}));
		}
		await Promise.all(jobs);
		assert.equal(integrity(ctx.db), 'ok', `round ${round}`);
	}

	// Every acknowledged create is there, in a state its history explains.
	for (const [k, s] of known) {
		const row = sqlite(ctx.db, `SELECT state, view_count, max_views FROM secrets WHERE secret_hash = x'${sha256hex(k)}'`).trim();
		assert.notEqual(row, '', `acknowledged secret ${k} is gone`);
		const [state, views, max] = row.split('|').map(Number);
		assert.equal(max, s.maxViews);
		assert.ok(views <= s.maxViews, `${k}: ${views} views counted, ${s.maxViews} allowed`);
		assert.ok(s.served <= s.maxViews, `${k}: served ${s.served} times, ${s.maxViews} allowed`);
		assert.ok(views >= s.served, `${k}: served ${s.served} but only ${views} counted`);
		if (s.burned) assert.equal(state, 2, `${k}: an acknowledged burn did not last`);
		if (state === 0) {
			const m = await ctx.metadata(k);
			assert.equal(m.status, 200, `${k}: active but metadata says ${m.status}`);
		}
		if (state === 3) assert.equal(views, s.maxViews);
	}
	t.diagnostic(`${acked} creates acknowledged (${killedCreates} killed), ${served} views served, ${burns} burns acknowledged`);
});
