// Conformance: the command-line tool (docs/CLI.md) as a client of a real
// server: one link printed, key in the fragment, only ciphertext sent, options
// --ttl --views --passphrase --json (and --api-key refused when unknown).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { server, retrieve, meta, decrypt, fragmentKey, KEY_RE, ISO_MS_RE } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const CLI = path.join(ROOT, 'cli', 'burnlink.mjs');

let srv;
before(async () => { srv = await server(); });
after(async () => { await srv?.stop(); });

function cli(args, input) {
	const r = spawnSync(process.execPath, [CLI, '--url', srv.base, ...args], {
		input, encoding: 'utf8', timeout: Number(process.env.BURNLINK_TEST_TIMEOUT_MS) || 60000, env: { ...process.env, BURNLINK_API_KEY: '', BURNLINK_URL: '' },
	});
	return r;
}

function keyOf(link) {
	return fragmentKey(link).key;
}

test('CLI: secret as an argument → exactly one link; client-side; decrypts with the fragment key', async () => {
	const r = cli(['hello from the cli']);
	assert.equal(r.status, 0, r.stderr);
	const lines = r.stdout.split('\n').filter(Boolean);
	assert.equal(lines.length, 1, `one line: ${r.stdout}`);
	const link = lines[0];
	const m = new RegExp(`^${srv.base}/secret/([A-Za-z0-9_-]{22})#key=[A-Za-z0-9_-]{43}$`).exec(link);
	assert.ok(m, link);
	const g = await retrieve(srv, m[1]);
	assert.equal(g.status, 200, g.text);
	assert.equal(decrypt(keyOf(link), g.json.text).toString(), 'hello from the cli');
	assert.equal(g.json.viewsRemaining, 0, 'default one view');
});

test('CLI: standard input, byte for byte', async () => {
	const text = '  stdin text\nwith lines\n\n';
	const r = cli([], text);
	assert.equal(r.status, 0, r.stderr);
	const link = r.stdout.trim();
	const sk = /\/secret\/([^#]+)#/.exec(link)[1];
	const g = await retrieve(srv, sk);
	assert.equal(decrypt(keyOf(link), g.json.text).toString(), text);
});

test('CLI: --ttl --views --passphrase --json', async () => {
	const t0 = Date.now();
	const r = cli(['--ttl', '3600', '--views', '3', '--passphrase', 'cli pass', '--json', 'opts']);
	const t1 = Date.now();
	assert.equal(r.status, 0, r.stderr);
	const j = JSON.parse(r.stdout);
	assert.equal(j.success, true);
	assert.match(j.metadata.secretKey, KEY_RE);
	assert.match(j.metadata.expiresAt, ISO_MS_RE);
	const at = Date.parse(j.metadata.expiresAt);
	assert.ok(at >= t0 + 3600e3 - 1000 && at <= t1 + 3600e3 + 1000, j.metadata.expiresAt);
	assert.equal(j.metadata.maxViews, 3);
	const m = await meta(srv, j.metadata.secretKey);
	assert.equal(m.json.hasPassphrase, true);
	assert.equal(m.json.maxViews, 3);
	const link = j.link || j.secretUrl;
	const g = await retrieve(srv, j.metadata.secretKey, { passphrase: 'cli pass' });
	assert.equal(g.status, 200);
	if (/#key=/.test(link)) assert.equal(decrypt(keyOf(link), g.json.text).toString(), 'opts');
});

test('CLI: --api-key with an unknown key fails with the API error, non-zero exit', () => {
	const r = cli(['--api-key', 'bl_' + crypto.randomBytes(32).toString('base64url'), 'x']);
	assert.notEqual(r.status, 0);
	assert.equal(r.stdout, '');
	assert.match(r.stderr, /INVALID_API_KEY|API key/i);
});

test('CLI: out-of-range --ttl and --views are refused', () => {
	assert.notEqual(cli(['--ttl', '60', 'x']).status, 0);
	assert.notEqual(cli(['--views', '1000', 'x']).status, 0);
});
