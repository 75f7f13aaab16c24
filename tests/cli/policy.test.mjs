// burnlink and the site's settings (GET /api/config): --ttl, --views, files,
// size and passphrase checked before anything is sent, `burnlink config`, and --help naming the
// site's limits when a site is configured.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../lib/server.mjs';
import { run, errorLine, apiJson, splitLink } from './helpers.mjs';

let srv, dir, conf, URL_OPT;

function settings(text) {
	fs.writeFileSync(conf, text, { mode: 0o644 });
}

before(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-cli-policy-'));
	fs.chmodSync(dir, 0o755);
	conf = path.join(dir, 'burnlink.conf');
	settings('expiry_choices = 1h, 1d, 7d\nviews_max = 5\nviews_default = 2\nviews_unlimited = no\nsite_name = Acme\n');
	srv = await startServer({ server: 'lighttpd', env: { BURNLINK_CONFIG: conf } });
	URL_OPT = ['--url', srv.base];
});

after(async () => {
	await srv?.stop();
	fs.rmSync(dir, { recursive: true, force: true });
});

// Asserts a refusal before sending: exit 1, the code, the site's limit in the hint.
function refused(r, code, hint) {
	assert.equal(r.code, 1, r.err);
	assert.equal(r.out, '');
	const line = errorLine(r.err);
	assert.ok(line.includes(`(${code}, checked against ${srv.base}/api/config; nothing was sent)`), line);
	assert.match(line, hint);
}

test('--ttl beyond the site\'s maximum is refused before sending, naming 7d', async () => {
	refused(await run([...URL_OPT, '--ttl', '8d', 'x']), 'INVALID_TTL',
		/hint: --ttl from 30m to 7d \(1800 to 604800 seconds\), default 1d; offered: 1h, 1d, 7d/);
	refused(await run([...URL_OPT, '--ttl', '10m', 'x']), 'INVALID_TTL', /from 30m to 7d/);
});

test('--views beyond the site\'s maximum, or unlimited, is refused before sending', async () => {
	refused(await run([...URL_OPT, '--views', '6', 'x']), 'INVALID_MAX_VIEWS',
		/hint: --views from 1 to 5, default 2; unlimited is not allowed on this site/);
	refused(await run([...URL_OPT, '--views', 'unlimited', 'x']), 'INVALID_MAX_VIEWS', /unlimited is not allowed/);
});

test('values the site allows are sent; without --views the site\'s default applies', async () => {
	const r = await run([...URL_OPT, '--ttl', '7d', '--views', '5', 'x']);
	assert.equal(r.code, 0, r.err);
	const m = await apiJson('GET', `${srv.base}/api/secrets/${splitLink(r.out.trim()).id}`);
	assert.equal(m.json.maxViews, 5);
	const d = await run([...URL_OPT, 'x']);
	assert.equal(d.code, 0, d.err);
	const md = await apiJson('GET', `${srv.base}/api/secrets/${splitLink(d.out.trim()).id}`);
	assert.equal(md.json.maxViews, 2);
});

test('a forced view count: any other --views is refused', async () => {
	settings('views_forced = 1\n');
	try {
		refused(await run([...URL_OPT, '--views', '2', 'x']), 'INVALID_MAX_VIEWS', /only --views 1/);
		assert.equal((await run([...URL_OPT, '--views', '1', 'x'])).code, 0);
	} finally {
		settings('expiry_choices = 1h, 1d, 7d\nviews_max = 5\nviews_default = 2\nviews_unlimited = no\nsite_name = Acme\n');
	}
});

test('burnlink config prints the site\'s limits; --json the API\'s answer', async () => {
	const t = await run(['config', ...URL_OPT]);
	assert.equal(t.code, 0, t.err);
	assert.ok(t.out.startsWith(`${srv.base}:\n`), t.out);
	assert.match(t.out, /--ttl\s+from 30m to 7d \(1800 to 604800 seconds\), default 1d; offered: 1h, 1d, 7d/);
	assert.match(t.out, /--views\s+from 1 to 5, default 2; unlimited is not allowed/);
	assert.match(t.out, /site name\s+Acme/);
	const j = await run(['config', '--json', ...URL_OPT]);
	assert.equal(j.code, 0, j.err);
	const c = JSON.parse(j.out);
	assert.deepEqual(c.limits.ttl.choices, [3600, 86400, 604800]);
	assert.equal(c.limits.maxViews.max, 5);
	const bad = await run(['config', 'extra', ...URL_OPT]);
	assert.equal(bad.code, 2);
});

test('--help with a site configured shows what it allows; without, it stays offline', async () => {
	const h = await run(['--help'], { env: { BURNLINK_URL: srv.base } });
	assert.equal(h.code, 0, h.err);
	assert.ok(h.out.includes(`This site (${srv.base}):`), h.out);
	assert.match(h.out, /offered: 1h, 1d, 7d/);
	const plain = await run(['--help']);
	assert.equal(plain.code, 0);
	assert.ok(!plain.out.includes('This site'));
});

test('a site whose settings file is broken: the CLI reports CONFIG_INVALID and sends nothing', async () => {
	settings('views_max = 5\nnot_a_setting = 1\n');
	try {
		const r = await run([...URL_OPT, '--ttl', '1d', 'x']);
		assert.equal(r.code, 1);
		assert.match(errorLine(r.err), /\(CONFIG_INVALID, HTTP 503\)/);
	} finally {
		settings('expiry_choices = 1h, 1d, 7d\nviews_max = 5\nviews_default = 2\nviews_unlimited = no\nsite_name = Acme\n');
	}
});

test('files, size, a required passphrase and its length are refused before sending', async () => {
	settings('passphrase_required = yes\npassphrase_min = 8\nfiles_allowed = no\ncontent_max = 100\n');
	const pass = (p) => { const f = path.join(dir, 'pass'); fs.writeFileSync(f, p); return ['--passphrase-file', f]; };
	const file = path.join(dir, 'a.txt');
	fs.writeFileSync(file, 'attached');
	try {
		refused(await run([...URL_OPT, 'x']), 'INVALID_PASSPHRASE_FORMAT',
			/this site requires a passphrase .*hint: a passphrase of 8 to 256 characters/);
		refused(await run([...URL_OPT, ...pass('short'), 'x']), 'INVALID_PASSPHRASE_FORMAT',
			/the passphrase has 5 characters; this site accepts 8 to 256/);
		refused(await run([...URL_OPT, ...pass('long enough'), '--file', file, 'x']), 'INVALID_FILES',
			/does not accept files/);
		refused(await run([...URL_OPT, ...pass('long enough'), 'y'.repeat(101)]), 'INVALID_CONTENT_SIZE',
			/the secret is 101 bytes; this site accepts at most 100/);
		const ok = await run([...URL_OPT, ...pass('long enough'), 'y'.repeat(100)]);
		assert.equal(ok.code, 0, ok.err);
		const m = await apiJson('GET', `${srv.base}/api/secrets/${splitLink(ok.out.trim()).id}`);
		assert.equal(m.json.hasPassphrase, true);
		settings('files_max = 1\n');
		refused(await run([...URL_OPT, '--file', file, '--file', file, 'x']), 'INVALID_FILES',
			/at most 1 file per secret/);
		settings('create = accounts\n');
		refused(await run([...URL_OPT, 'x']), 'NOT_SIGNED_IN', /give an API key/);
	} finally {
		settings('expiry_choices = 1h, 1d, 7d\nviews_max = 5\nviews_default = 2\nviews_unlimited = no\nsite_name = Acme\n');
	}
});

// docs/CLI.md, "Errors and exit status": what the API's own limits refuse
// (more than 20 files, more than 2 MiB) is exit 1 as the site's refusals are,
// with the code the server would answer; nothing is sent.
test('more than 20 files or more than 2 MiB: exit 1 with the API\'s code, before sending, as the site\'s settings', async () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-cli-limits-'));
	try {
		const small = path.join(tmp, 'small.txt');
		fs.writeFileSync(small, 's');
		const big = path.join(tmp, 'big.bin');
		fs.writeFileSync(big, Buffer.alloc(2 * 1024 * 1024 + 1, 7));
		const full = path.join(tmp, 'full.bin');
		fs.writeFileSync(full, Buffer.alloc(2 * 1024 * 1024, 7));
		const limit = (r, code, what) => {
			assert.equal(r.code, 1, r.err);
			assert.equal(r.out, '');
			const line = errorLine(r.err);
			assert.ok(line.startsWith('burnlink: error: '), line);
			assert.match(line, what);
			assert.ok(line.includes(`(${code}, the API's limit; nothing was sent)`), line);
		};
		const files21 = Array.from({ length: 21 }, () => ['--file', small]).flat();
		limit(await run([...URL_OPT, ...files21, 'x']), 'INVALID_FILES', /at most 20 files can be attached \(got 21\).*hint: attach at most 20/);
		limit(await run([...URL_OPT, '--file', big, 'x']), 'INVALID_CONTENT_SIZE', /is larger than 2097152 bytes.*hint: at most 2097152 bytes/);
		limit(await run([...URL_OPT, '--file', full, 'x']), 'INVALID_CONTENT_SIZE', /larger than 2097152 bytes \(2 MiB\) in total/);
		limit(await run([...URL_OPT], { input: Buffer.alloc(2 * 1024 * 1024 + 1, 0x61) }), 'INVALID_CONTENT_SIZE', /the secret is larger than 2097152 bytes/);
		// the same for an answer to a request that takes files
		const q = await run([...URL_OPT, 'request', '--files']);
		assert.equal(q.code, 0, q.err);
		const requestLink = q.out.split('\n')[0];
		limit(await run(['answer', requestLink, ...files21, 'x']), 'INVALID_FILES', /at most 20 files/);
		const st = await run(['status', q.out.split('\n')[1]]);
		assert.match(st.out, /waiting/, 'the request was not answered');
		// a passphrase file is input, not part of the secret: still a usage error
		const u = await run([...URL_OPT, '--passphrase-file', big, 'x']);
		assert.equal(u.code, 2, u.err);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
});
