// tokens.test.mjs: a mail token (docs/ACCOUNTS.md: verify an address, reset
// the password) works once on PostgreSQL even when two requests redeem it at
// the same moment. Under READ COMMITTED both could read the row before
// either wrote it; a psql session holding the row makes both requests wait
// at the same point, and is let go once the database shows both waiting.
// Runs the programs of `make pg` (build/pg), on the cluster of
// BURNLINK_TEST_PG (tests/run.sh pg) or on one of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import * as cluster from './cluster.mjs';

process.env.BURNLINK_BIN ||= 'build/pg';
const shared = process.env.BURNLINK_TEST_PG ? null : cluster.newCluster();
process.env.BURNLINK_TEST_PG ||= shared.dir;
const pgDir = process.env.BURNLINK_TEST_PG;
const { accountsContext, signedUp, Browser, PASSWORD } = await import('../accounts/helpers.mjs');

// A psql session that holds every row of account_emails until release().
async function holdEmails(db) {
	const holder = spawn('psql', ['-X', '-q', '-h', cluster.socketDir(pgDir), '-p', String(cluster.portOf(pgDir)),
		'-U', 'postgres', '-d', db], { stdio: ['pipe', 'pipe', 'pipe'] });
	let out = '';
	const locked = new Promise((resolve, reject) => {
		holder.stdout.on('data', (d) => { out += d; if (out.includes('lock-held')) resolve(); });
		holder.on('close', () => reject(new Error(`psql ended: ${out}`)));
	});
	holder.stdin.write("BEGIN; SELECT account_id FROM account_emails FOR UPDATE; SELECT 'lock-held';\n");
	await locked;
	return {
		async release() {
			if (holder.exitCode !== null) return;
			const closed = new Promise((r) => holder.on('close', r));
			holder.stdin.end('ROLLBACK;\n');
			await closed;
		},
	};
}

// Resolves once n sessions of database db wait for a lock (what the database
// itself reports, not a guess at how long the requests take).
async function waiting(db, n) {
	for (;;) {
		const k = Number(cluster.sql(pgDir, 'postgres', `SELECT count(*) FROM pg_stat_activity WHERE datname = '${db}' ` +
			"AND wait_event_type = 'Lock'").trim());
		if (k >= n) return;
		await new Promise((r) => setTimeout(r, 20));
	}
}

// Gives the account a live token of kind (1 verify, 2 reset), as a mail would.
function plantToken(ctx, kind) {
	const token = crypto.randomBytes(32).toString('base64url');
	const hash = crypto.createHash('sha256').update(token).digest('hex');
	ctx.sql(`UPDATE account_emails SET token_hash = x'${hash}', token_kind = ${kind}, ` +
		`token_expires = ${Date.now() + 3600 * 1000}`);
	return token;
}

test('two reset requests with one token at the same moment: exactly one sets the password', async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'alice@example.org');
	ctx.sql('UPDATE account_emails SET verified_at = 1');
	const token = plantToken(ctx, 2);
	const held = await holdEmails(ctx.pgDatabase);
	let answers;
	try {
		const racing = ['first new password', 'second new password'].map((password, i) =>
			new Browser(ctx, { ip: `192.0.2.${60 + i}` }).req('token', { method: 'POST', body: { token, password } })
				.then((r) => ({ password, r })));
		await waiting(ctx.pgDatabase, 2);
		await held.release();
		answers = await Promise.all(racing);
	} finally {
		await held.release().catch(() => {});
	}
	const won = answers.filter((a) => a.r.status === 200);
	const lost = answers.filter((a) => a.r.status !== 200);
	assert.equal(won.length, 1, answers.map((a) => `${a.r.status} ${a.r.body}`).join('; '));
	assert.equal(lost[0].r.status, 400);
	assert.equal(lost[0].r.json.code, 'INVALID_TOKEN');
	assert.equal((await new Browser(ctx).signin('alice@example.org', won[0].password)).status, 200);
	assert.equal((await new Browser(ctx).signin('alice@example.org', lost[0].password)).status, 401);
	assert.equal((await new Browser(ctx).signin('alice@example.org', PASSWORD)).status, 401);
});

test('two verifications with one token at the same moment: one 200, one INVALID_TOKEN', async () => {
	const ctx = accountsContext();
	await signedUp(ctx, 'bob@example.org');
	const token = plantToken(ctx, 1);
	const held = await holdEmails(ctx.pgDatabase);
	let answers;
	try {
		const racing = [0, 1].map((i) => new Browser(ctx, { ip: `192.0.2.${70 + i}` }).req('token', { method: 'POST', body: { token } }));
		await waiting(ctx.pgDatabase, 2);
		await held.release();
		answers = await Promise.all(racing);
	} finally {
		await held.release().catch(() => {});
	}
	assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400], answers.map((r) => r.body).join('; '));
	assert.equal(answers.find((r) => r.status === 400).json.code, 'INVALID_TOKEN');
	assert.equal(ctx.sql('SELECT count(*) FROM account_emails WHERE verified_at IS NOT NULL AND token_hash IS NULL').trim(), '1');
});
