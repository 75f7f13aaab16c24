// burnlink errors: each API error class, network failures, timeouts, usage
// errors; one line on stderr and the documented exit code.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { srv, URL_OPT, send, meta, assertApiError, assertUsage, near, sql, admin, runOnTerminal, hasScript } from './fixture.mjs';
import { ROOT, run, splitLink, apiJson, retrieveRaw, createRaw, tmpDir, errorLine } from './helpers.mjs';
import { countersPath, inOneWindow } from '../lib/counters.mjs';


/* ---------- errors and exit codes ---------- */

// A passphrase with a NUL character: what the CLI leaves to the server.
test('400 from the API: a passphrase with a NUL character', async () => {
	const f = path.join(tmpDir(), 'nul-passphrase');
	fs.writeFileSync(f, 'abcd\0efgh');
	try {
		assertApiError(await run([...URL_OPT, '--passphrase-file', f, 'x']), 'INVALID_PASSPHRASE_FORMAT');
	} finally {
		fs.rmSync(path.dirname(f), { recursive: true, force: true });
	}
});

// --ttl, --views and the passphrase's length are checked against the site's
// GET /api/config first (tests/cli/policy.test.mjs has a site with tighter
// settings).
test('out-of-range --ttl, --views and passphrase: refused before sending, exit 1, the code and the site\'s limits', async () => {
	const cases = [
		[[...URL_OPT, '--passphrase', 'abc', 'x'], 'INVALID_PASSPHRASE_FORMAT', /the passphrase has 3 characters; this site accepts 4 to 256/],
		[[...URL_OPT, '--ttl', '60', 'x'], 'INVALID_TTL', /--ttl from 30m to 90d \(1800 to 7776000 seconds\)/],
		[[...URL_OPT, '--ttl', '91d', 'x'], 'INVALID_TTL', /--ttl from 30m to 90d/],
		[[...URL_OPT, '--views', '0', 'x'], 'INVALID_MAX_VIEWS', /--views from 1 to 999/],
		[[...URL_OPT, '--views', '1000', 'x'], 'INVALID_MAX_VIEWS', /--views from 1 to 999/],
	];
	// Independent runs, so run them at once.
	const results = await Promise.all(cases.map(([args]) => run(args)));
	results.forEach((r, i) => {
		assert.equal(r.code, 1, r.err);
		assert.equal(r.out, '');
		const line = errorLine(r.err);
		assert.ok(line.includes(`(${cases[i][1]}, checked against ${srv.base}/api/config; nothing was sent)`), line);
		assert.match(line, cases[i][2]);
	});
});

test('404 NOT_FOUND for an unknown secret, receipt or burn', async () => {
	const key = crypto.randomBytes(32).toString('base64url');
	const id = crypto.randomBytes(16).toString('base64url');
	assertApiError(await run(['get', `${srv.base}/secret/${id}#key=${key}`]), 'NOT_FOUND');
	assertApiError(await run(['status', `${srv.base}/receipt/${id}`]), 'NOT_FOUND');
	assertApiError(await run(['burn', `${srv.base}/receipt/${id}`]), 'NOT_FOUND');
});

test('410 SECRET_BURNED after burn; status shows the state', async () => {
	const r = await run([...URL_OPT, '--json', 'to burn']);
	const res = JSON.parse(r.out);
	const b = await run(['burn', '--json', res.link]);
	assert.equal(b.code, 0, b.err);
	assert.deepEqual(JSON.parse(b.out), { success: true, state: 'burned' });
	assertApiError(await run(['get', res.link]), 'SECRET_BURNED');
	assertApiError(await run(['burn', res.metadataUrl]), 'SECRET_BURNED');
	const st = await run(['status', res.metadataUrl]);
	assert.equal(st.code, 0, st.err);
	assert.match(st.out, /^state: +burned$/m);
});

test('429 TOO_MANY_ATTEMPTS after repeated wrong passphrases', async () => {
	// Attempts count per clock minute: a run that straddles a minute boundary
	// starts a fresh window, so it is tried once more (no sleeping).
	let last;
	for (let round = 0; round < 2; round++) {
		const minute = Math.floor(Date.now() / 60000);
		const link = await send(['--passphrase', 'right one', 'x']);
		for (let i = 0; i < 6; i++) {
			last = await run(['get', '--passphrase', `wrong ${i}`, link]);
			assert.equal(last.code, 1, last.err);
			if (last.err.includes('TOO_MANY_ATTEMPTS'))
				break;
		}
		if (last.err.includes('TOO_MANY_ATTEMPTS') || Math.floor(Date.now() / 60000) === minute)
			break;
	}
	assertApiError(last, 'TOO_MANY_ATTEMPTS');
	assert.match(last.err, /; retry after \d+ s;/);
});

test('a link whose key was changed into other valid characters is refused before a view is spent (exit 1)', async () => {
	const link = await send(['secret']);
	const { key } = splitLink(link);
	const s = key.toString('base64url');
	// One character changed: still 43 valid characters of a 256-bit key, another key.
	const changed = s.slice(0, 5) + (s[5] === 'A' ? 'B' : 'A') + s.slice(6);
	for (const wrong of [link.replace(/#key=.*/, `#key=${changed}`),
		link.replace(/#key=.*/, `#key=${crypto.randomBytes(32).toString('base64url')}`)]) {
		const r = await run(['get', wrong]);
		assert.equal(r.code, 1);
		assert.match(errorLine(r.err), /the key in the link does not fit this secret .*no view was used/);
		assert.equal(r.out, '');
	}
	const m = await meta(link);
	assert.equal(m.status, 200);
	assert.equal(m.json.viewsRemaining, 1, 'no view was spent');
	const ok = await run(['get', link]);
	assert.equal(ok.code, 0, ok.err);
	assert.equal(ok.out, 'secret');
});

test('a secret stored without a key commitment: the right key works, a wrong one is a decryption error', async () => {
	const older = await createRaw(srv.base, { text: 'no commitment', maxViews: 2 });
	assert.equal((await meta(older.link)).json.keyCommitment, null);
	const ok = await run(['get', older.link]);
	assert.equal(ok.code, 0, ok.err);
	assert.equal(ok.out, 'no commitment');
	const wrong = older.link.replace(/#key=.*/, `#key=${crypto.randomBytes(32).toString('base64url')}`);
	const r = await run(['get', wrong]);
	assert.equal(r.code, 1);
	assert.match(errorLine(r.err), /cannot decrypt/);
});

test('unreachable server: one line, exit 1, no stack trace', async () => {
	const server = net.createServer();
	await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
	const port = server.address().port;
	await new Promise(resolve => server.close(resolve));
	const r = await run(['--url', `http://127.0.0.1:${port}`, 'x']);
	assert.equal(r.code, 1);
	assert.match(errorLine(r.err), /cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
	const g = await run(['get', `http://127.0.0.1:${port}/secret/${'a'.repeat(22)}#key=${'b'.repeat(43)}`]);
	assert.equal(g.code, 1);
	assert.match(errorLine(g.err), /connection refused/);
});

test('a server that never answers: --timeout, exit 1', async () => {
	const sockets = [];
	const server = net.createServer(s => sockets.push(s));
	await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
	try {
		const started = Date.now();
		const r = await run(['--timeout', '.5', '--url', `http://127.0.0.1:${server.address().port}`, 'x']);
		assert.equal(r.code, 1);
		assert.match(errorLine(r.err), /no answer from .* within 0\.5 s/);
		// The site's settings went unanswered: nothing more is sent (no second wait).
		assert.equal(sockets.length, 1, 'one connection: GET /api/config, no POST after it');
		assert.ok(Date.now() - started < 10000);
	} finally {
		sockets.forEach(s => s.destroy());
		await new Promise(resolve => server.close(resolve));
	}
});

test('an answer that is not the API (no JSON) is reported, exit 1', async () => {
	const r = await run(['--url', `${srv.base}/no-such-place`, 'x']);
	assert.equal(r.code, 1);
	assert.match(errorLine(r.err), /unexpected answer .*HTTP \d+/);
});

test('usage errors exit 2 with one line', async () => {
	const cases = [
		[['--bogus'], /unknown option --bogus/],
		[['--ttl', 'soon', 'x'], /--ttl/],
		[['--views', 'many', 'x'], /--views/],
		[['--ttl'], /needs a value/],
		[['--ttl', '1h', '--ttl', '2h', 'x'], /twice/],
		[['two', 'args'], /one argument/],
		[['--url', 'ftp://x', 'x'], /http/],
		[['--timeout', '0', 'x'], /--timeout/],
		[['--timeout', '.', 'x'], /--timeout/],
		[['--timeout', '-1', 'x'], /--timeout/],
		[['--api-key', 'bl_with space', 'x'], /API key/],
		[['--file', '/nonexistent/file', 'x'], /cannot read file/],
		[['--file', '/', 'x'], /not a regular file/],
		[['--passphrase', 'abcd', '--passphrase-file', '/dev/null', 'x'], /not both/],
		[['get'], /exactly one link/],
		[['get', '--ttl', '1h', `${srv.base}/secret/x#key=y`], /--ttl does not apply/],
		[['--output-dir', '/tmp', 'x'], /--output-dir is for "burnlink get"/],
		[['--note', 'n', 'x'], /--note is for "burnlink request"/],
		[['--inbox-file', '/tmp/x', 'x'], /--inbox-file is for "burnlink request"/],
		[['get', `${srv.base}/secret/${'a'.repeat(22)}`], /#key=/],
		[['get', `${srv.base}/secret/${'a'.repeat(22)}#key=short`], /damaged/],
		[['get', `${srv.base}/secret/${'a'.repeat(22)}#key=%zz${'b'.repeat(40)}`], /damaged/],
		[['burn', `${srv.base}/receipt/${'a'.repeat(22)}#key=%`], /damaged/],
		[['get', `${srv.base}/receipt/${'a'.repeat(22)}`], /\/secret\//],
		[['status', 'not a link'], /not a link/],
		[['get', '-o', '/nonexistent/dir', `${srv.base}/secret/${'a'.repeat(22)}#key=${'b'.repeat(43)}`], /output directory/],
	];
	// Independent runs, so run them at once.
	const results = await Promise.all(cases.map(([args]) => run(args)));
	results.forEach((r, i) => assertUsage(r, cases[i][1]));
});

test('--help, --version and package.json', async () => {
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'cli/package.json'), 'utf8'));
	const v = await run(['--version']);
	assert.equal(v.code, 0);
	assert.equal(v.out, `burnlink ${pkg.version}\n`);
	const h = await run(['--help']);
	assert.equal(h.code, 0);
	for (const word of ['--ttl', '--views', '--passphrase', '--api-key', '--json', '--url', '--file',
		'BURNLINK_URL', 'BURNLINK_API_KEY', '"ps"', 'get', 'status', 'burn', 'Exit status'])
		assert.ok(h.out.includes(word), `--help does not mention ${word}`);
	assert.equal(pkg.engines.node, '>=18');
	assert.equal(pkg.bin.burnlink, 'burnlink.mjs');
	assert.equal(pkg.dependencies, undefined);
	assert.ok(fs.readFileSync(path.join(ROOT, 'cli/burnlink.mjs'), 'utf8').startsWith('#!/usr/bin/env node\n'));
});

test('410 SECRET_EXPIRED once the expiry has passed', async () => {
	const r = await run([...URL_OPT, '--json', 'short-lived']);
	const res = JSON.parse(r.out);
	sql("UPDATE secrets SET expires_at = CAST(strftime('%s','now') AS INTEGER) * 1000 - 1000 WHERE id = (SELECT id FROM secrets ORDER BY created_at DESC, id DESC LIMIT 1);");
	assertApiError(await run(['get', res.link]), 'SECRET_EXPIRED');
	const st = await run(['status', res.metadataUrl]);
	assert.equal(st.code, 0, st.err);
	assert.match(st.out, /^state: +expired$/m);
});


test('a valid API key attributes the secret to its account; a revoked one is 401', async () => {
	const account = admin('account', 'create', `cli-${crypto.randomBytes(4).toString('hex')}`);
	const { key } = admin('key', 'issue', String(account.id), '--label', 'cli test');
	assert.match(key, /^bl_[A-Za-z0-9_-]{43}$/);
	let r = await run([...URL_OPT, 'attributed'], { env: { BURNLINK_API_KEY: key } });
	assert.equal(r.code, 0, r.err);
	r = await run([...URL_OPT, '--api-key', key, 'attributed too']);
	assert.equal(r.code, 0, r.err);
	assert.equal(admin('usage', String(account.id)).secrets, 2);
	admin('key', 'revoke', key);
	assertApiError(await run([...URL_OPT, 'x'], { env: { BURNLINK_API_KEY: key } }), 'INVALID_API_KEY');
});

test('429 RATE_LIMIT_EXCEEDED when the daily limit is used up, with Retry-After', () => inOneWindow(86400, async () => {
	// limits set fills today's window: a run that straddles midnight runs again, once
	admin('limits', 'set', '--ip', '127.0.0.1', '--op', 'create', '--count', '1000');
	try {
		const r = await run([...URL_OPT, 'x']);
		assertApiError(r, 'RATE_LIMIT_EXCEEDED');
		assert.match(r.err, /; retry after \d+ s;/);
	} finally {
		admin('limits', 'reset', '--ip', '127.0.0.1');
	}
	const ok = await run([...URL_OPT, 'x']);
	assert.equal(ok.code, 0, ok.err);
}));

test('503 RATE_LIMIT_UNAVAILABLE and STORE_UNAVAILABLE when the stores cannot be used', async () => {
	assert.equal((await run([...URL_OPT, 'first'])).code, 0);
	// The counters live beside the database: x.db -> x-counters, else x-counters.
	const limits = countersPath(srv.db);
	assert.ok(fs.existsSync(limits), 'no rate-limit counters file beside the database');
	const mode = fs.statSync(limits).mode & 0o777;
	fs.chmodSync(limits, 0);
	try {
		const r = await run([...URL_OPT, 'x']);
		assertApiError(r, 'RATE_LIMIT_UNAVAILABLE');
		assert.match(r.err, /HTTP 503/);
	} finally {
		fs.chmodSync(limits, mode);
	}
	const dbMode = fs.statSync(srv.db).mode & 0o777;
	fs.chmodSync(srv.db, 0);
	try {
		const r = await run([...URL_OPT, 'x']);
		assertApiError(r, 'STORE_UNAVAILABLE');
		assert.match(r.err, /HTTP 503\); hint: .*; retry after \d+ s;/);
	} finally {
		fs.chmodSync(srv.db, dbMode);
	}
	const ok = await run([...URL_OPT, 'x']);
	assert.equal(ok.code, 0, ok.err);
});
