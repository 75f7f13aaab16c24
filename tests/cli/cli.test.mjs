// burnlink CLI against a real server (lighttpd + the CGI programs): input
// byte-exactness, every option, --json, errors and exit codes, files, get/status/burn.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer } from '../lib/server.mjs';
import {
	ROOT, CLI, run, splitLink, apiJson, retrieveRaw, createRaw, tmpDir, errorLine,
} from './helpers.mjs';

let srv;
let URL_OPT;

before(async () => {
	srv = await startServer({ server: 'lighttpd' });
	URL_OPT = ['--url', srv.base];
});

after(async () => {
	await srv?.stop();
});

async function send(args, opts = {}) {
	const r = await run([...URL_OPT, ...args], opts);
	assert.equal(r.code, 0, `burnlink ${args.join(' ')} failed: ${r.err}`);
	return r.out.trim();
}

async function meta(link) {
	const { site, id } = splitLink(link);
	const r = await apiJson('GET', `${site}/api/secrets/${id}`);
	return r;
}

// Asserts an API error: exit 1, one stderr line with code, hint and requestId.
function assertApiError(r, code) {
	assert.equal(r.code, 1, `expected exit 1, got ${r.code}: ${r.err}`);
	const line = errorLine(r.err);
	assert.match(line, /^burnlink: error: /);
	assert.ok(line.includes(`(${code}, HTTP `), line);
	assert.match(line, /; hint: \S/);
	assert.match(line, /; requestId: req_[A-Za-z0-9_-]{20}$/);
	assert.equal(r.out, '');
}

function assertUsage(r, re) {
	assert.equal(r.code, 2, `expected exit 2, got ${r.code}: ${r.err}`);
	const line = errorLine(r.err);
	assert.match(line, /^burnlink: usage: /);
	if (re)
		assert.match(line, re);
	assert.equal(r.out, '');
}

/* ---------- sending: input ---------- */

test('an argument is sent as its UTF-8 bytes and one link line is printed', async () => {
	const text = '  héllo wörld ✓ 🔥\ttabs\n\nand trailing spaces   \n';
	const r = await run([...URL_OPT, text]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.err, '');
	assert.match(r.out, /^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{43}\n$/);
	assert.ok(r.out.startsWith(`${srv.base}/secret/`));
	const got = await retrieveRaw(r.out);
	assert.deepEqual(got.text, Buffer.from(text, 'utf8'));
	assert.deepEqual(got.files, []);
});

test('standard input is sent byte for byte, trailing newline included', async () => {
	const all = Buffer.alloc(256);
	for (let i = 0; i < 256; i++)
		all[i] = i;
	const input = Buffer.concat([Buffer.from('line1\r\nline2\n\0nul\xff\xfe'), all, Buffer.from('\n\n')]);
	const link = await send([], { input });
	assert.deepEqual((await retrieveRaw(link)).text, input);
});

test('"-" reads standard input; "--" sends text that looks like a command', async () => {
	let link = await send(['-'], { input: 'from stdin\n' });
	assert.equal((await retrieveRaw(link)).text.toString(), 'from stdin\n');
	link = await send(['--', 'get']);
	assert.equal((await retrieveRaw(link)).text.toString(), 'get');
	link = await send(['--', '--json']);
	assert.equal((await retrieveRaw(link)).text.toString(), '--json');
});

test('1 MiB of binary-ish input round-trips exactly through burnlink get', async () => {
	const input = crypto.randomBytes(1024 * 1024);
	input.write('text at the start\n', 0);
	const link = await send([], { input });
	const r = await run(['get', link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.stdout.length, input.length);
	assert.ok(r.stdout.equals(input));
});

test('only ciphertext reaches the server: no plaintext or key in the database or logs', async () => {
	const marker = `plaintext-marker-${crypto.randomBytes(8).toString('hex')}`;
	const dir = tmpDir();
	const fname = `name-marker-${crypto.randomBytes(6).toString('hex')}.txt`;
	fs.writeFileSync(path.join(dir, fname), `file-${marker}`);
	const link = await send(['--file', path.join(dir, fname), marker]);
	const { key } = splitLink(link);
	const keyText = key.toString('base64url');
	const stores = [srv.db, `${srv.db}-wal`].filter(f => fs.existsSync(f)).map(f => fs.readFileSync(f));
	for (const buf of stores) {
		assert.equal(buf.indexOf(marker), -1, 'plaintext found in the database');
		assert.equal(buf.indexOf(fname), -1, 'file name found in the database');
		assert.equal(buf.indexOf(keyText), -1, 'key found in the database');
		assert.equal(buf.indexOf(key), -1, 'raw key found in the database');
	}
	assert.ok(!srv.accessLog().includes(keyText), 'key found in the access log');
	const got = await retrieveRaw(link);
	assert.equal(got.text.toString(), marker);
	assert.equal(got.files[0].filename, fname);
	assert.equal(got.files[0].mimeType, 'text/plain');
});

test('an empty secret is a usage error and nothing is created', async () => {
	assertUsage(await run([...URL_OPT], { input: '' }), /empty/);
	assertUsage(await run([...URL_OPT, '']), /empty/);
});

/* ---------- sending: options ---------- */

function near(iso, secondsFromNow) {
	const t = Date.parse(iso);
	assert.ok(Math.abs(t - (Date.now() + secondsFromNow * 1000)) < 60000, `${iso} is not about ${secondsFromNow} s from now`);
}

test('defaults: one view, one day', async () => {
	const link = await send(['x']);
	const m = await meta(link);
	assert.equal(m.status, 200);
	assert.equal(m.json.maxViews, 1);
	assert.equal(m.json.viewsRemaining, 1);
	assert.equal(m.json.hasPassphrase, false);
	near(m.json.expiresAt, 86400);
});

test('--ttl in seconds and with a unit reaches the API', async () => {
	near((await meta(await send(['--ttl', '3600', 'x']))).json.expiresAt, 3600);
	near((await meta(await send(['--ttl=2h', 'x']))).json.expiresAt, 7200);
	near((await meta(await send(['--ttl', '90d', 'x']))).json.expiresAt, 7776000);
});

test('--views N and --views unlimited reach the API', async () => {
	let m = await meta(await send(['--views', '3', 'x']));
	assert.equal(m.json.maxViews, 3);
	assert.equal(m.json.viewsRemaining, 3);
	m = await meta(await send(['--views', 'unlimited', 'x']));
	assert.equal(m.json.maxViews, null);
	assert.equal(m.json.viewsRemaining, null);
});

test('--views 2 lets the link open twice, then 410 MAX_VIEWS_REACHED', async () => {
	const link = await send(['--views', '2', 'twice']);
	for (let i = 0; i < 2; i++) {
		const r = await run(['get', link]);
		assert.equal(r.code, 0, r.err);
		assert.equal(r.out, 'twice');
	}
	assertApiError(await run(['get', link]), 'MAX_VIEWS_REACHED');
});

test('--passphrase protects the secret; get needs it and a wrong one is 403', async () => {
	const link = await send(['--passphrase', 'correct horse', 'guarded']);
	assert.equal((await meta(link)).json.hasPassphrase, true);
	// No passphrase and no terminal: usage error, no view consumed.
	assertUsage(await run(['get', link]), /passphrase/);
	assertApiError(await run(['get', '--passphrase', 'wrong one', link]), 'INVALID_PASSPHRASE');
	assert.equal((await meta(link)).json.viewsRemaining, 1);
	const r = await run(['get', '-p', 'correct horse', link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'guarded');
});

test('--passphrase-file reads the passphrase without its trailing newline', async () => {
	const dir = tmpDir();
	fs.writeFileSync(path.join(dir, 'pp'), 'from a file\n');
	const link = await send(['--passphrase-file', path.join(dir, 'pp'), 'guarded']);
	assertApiError(await run(['get', '--passphrase', 'from a file\n', link]), 'INVALID_PASSPHRASE');
	const r = await run(['get', '--passphrase-file', path.join(dir, 'pp'), link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'guarded');
});

test('--undeletable: recipients cannot burn (403 DELETION_NOT_ALLOWED), the receipt can', async () => {
	const r = await run([...URL_OPT, '--json', '--undeletable', 'keep']);
	assert.equal(r.code, 0, r.err);
	const res = JSON.parse(r.out);
	assertApiError(await run(['burn', res.link]), 'DELETION_NOT_ALLOWED');
	const st = await run(['status', '--json', res.metadataUrl]);
	assert.equal(JSON.parse(st.out).deletable, false);
	const b = await run(['burn', res.metadataUrl]);
	assert.equal(b.code, 0, b.err);
	assert.equal(b.out, 'burned\n');
});

test('--api-key and BURNLINK_API_KEY are sent as a Bearer key (an unknown key is 401)', async () => {
	const bogus = `bl_${'A'.repeat(43)}`;
	assertApiError(await run([...URL_OPT, '--api-key', bogus, 'x']), 'INVALID_API_KEY');
	assertApiError(await run([...URL_OPT, 'x'], { env: { BURNLINK_API_KEY: bogus } }), 'INVALID_API_KEY');
	// The option wins over the variable.
	assertApiError(await run([...URL_OPT, '--api-key', bogus, 'x'], { env: { BURNLINK_API_KEY: '' } }), 'INVALID_API_KEY');
});

test('BURNLINK_URL and a --url with a trailing slash both work', async () => {
	let r = await run(['via env'], { env: { BURNLINK_URL: srv.base } });
	assert.equal(r.code, 0, r.err);
	assert.equal((await retrieveRaw(r.out)).text.toString(), 'via env');
	r = await run(['--url', `${srv.base}/`, 'slash']);
	assert.equal(r.code, 0, r.err);
	assert.equal((await retrieveRaw(r.out)).text.toString(), 'slash');
	// --url wins over BURNLINK_URL.
	r = await run(['--url', srv.base, 'both'], { env: { BURNLINK_URL: 'http://127.0.0.1:1' } });
	assert.equal(r.code, 0, r.err);
});

test('--json prints the create response with the full link', async () => {
	const r = await run([...URL_OPT, '--json', '--views', '5', '--ttl', '7200', 'json me']);
	assert.equal(r.code, 0, r.err);
	const j = JSON.parse(r.out);
	assert.equal(j.success, true);
	assert.match(j.secretUrl, /\/secret\/[A-Za-z0-9_-]{22}$/);
	assert.match(j.metadataUrl, /\/receipt\/[A-Za-z0-9_-]{22}$/);
	assert.equal(typeof j.metadata.key, 'string');
	assert.equal(typeof j.metadata.secretKey, 'string');
	assert.equal(j.metadata.maxViews, 5);
	near(j.metadata.expiresAt, 7200);
	assert.ok(j.link.startsWith(`${j.secretUrl}#key=`));
	assert.ok(j.secretUrl.endsWith(j.metadata.secretKey));
	assert.equal((await retrieveRaw(j.link)).text.toString(), 'json me');
});

/* ---------- errors and exit codes ---------- */

test('400 from the API: out-of-range --ttl and --views, short passphrase', async () => {
	assertApiError(await run([...URL_OPT, '--ttl', '60', 'x']), 'INVALID_TTL');
	assertApiError(await run([...URL_OPT, '--ttl', '91d', 'x']), 'INVALID_TTL');
	assertApiError(await run([...URL_OPT, '--views', '0', 'x']), 'INVALID_MAX_VIEWS');
	assertApiError(await run([...URL_OPT, '--views', '1000', 'x']), 'INVALID_MAX_VIEWS');
	assertApiError(await run([...URL_OPT, '--passphrase', 'abc', 'x']), 'INVALID_PASSPHRASE_FORMAT');
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
	const link = await send(['--passphrase', 'right one', 'x']);
	let last;
	for (let i = 0; i < 6; i++) {
		last = await run(['get', '--passphrase', `wrong ${i}`, link]);
		assert.equal(last.code, 1, last.err);
		if (last.err.includes('TOO_MANY_ATTEMPTS'))
			break;
	}
	assertApiError(last, 'TOO_MANY_ATTEMPTS');
});

test('a wrong key in the link is a clear decryption error (exit 1)', async () => {
	const link = await send(['secret']);
	const wrong = link.replace(/#key=.*/, `#key=${crypto.randomBytes(32).toString('base64url')}`);
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
		const r = await run(['--timeout', '0.5', '--url', `http://127.0.0.1:${server.address().port}`, 'x']);
		assert.equal(r.code, 1);
		assert.match(errorLine(r.err), /no answer from .* within 0\.5 s/);
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
	assertUsage(await run(['--bogus']), /unknown option --bogus/);
	assertUsage(await run(['--ttl', 'soon', 'x']), /--ttl/);
	assertUsage(await run(['--views', 'many', 'x']), /--views/);
	assertUsage(await run(['--ttl']), /needs a value/);
	assertUsage(await run(['--ttl', '1h', '--ttl', '2h', 'x']), /twice/);
	assertUsage(await run(['two', 'args']), /one argument/);
	assertUsage(await run(['--url', 'ftp://x', 'x']), /http/);
	assertUsage(await run(['--timeout', '0', 'x']), /--timeout/);
	assertUsage(await run(['--file', '/nonexistent/file', 'x']), /cannot read file/);
	assertUsage(await run(['--file', '/', 'x']), /not a regular file/);
	assertUsage(await run(['--passphrase', 'abcd', '--passphrase-file', '/dev/null', 'x']), /not both/);
	assertUsage(await run(['get']), /exactly one link/);
	assertUsage(await run(['get', '--ttl', '1h', `${srv.base}/secret/x#key=y`]), /--ttl does not apply/);
	assertUsage(await run(['get', `${srv.base}/secret/${'a'.repeat(22)}`]), /#key=/);
	assertUsage(await run(['get', `${srv.base}/secret/${'a'.repeat(22)}#key=short`]), /damaged/);
	assertUsage(await run(['get', `${srv.base}/receipt/${'a'.repeat(22)}`]), /\/secret\//);
	assertUsage(await run(['status', 'not a link']), /not a link/);
	assertUsage(await run(['get', '-o', '/nonexistent/dir', `${srv.base}/secret/${'a'.repeat(22)}#key=${'b'.repeat(43)}`]), /output directory/);
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

/* ---------- files ---------- */

test('files round trip: names, types and bytes; text to stdout, files to --output-dir', async () => {
	const src = tmpDir();
	const bin = crypto.randomBytes(70000);
	fs.writeFileSync(path.join(src, 'data.bin'), bin);
	fs.writeFileSync(path.join(src, 'résumé ✓.PDF'), 'pdf-ish\n');
	const link = await send(['-f', path.join(src, 'data.bin'), '--file', path.join(src, 'résumé ✓.PDF'), 'see attached\n']);
	const raw = await retrieveRaw(link);
	assert.deepEqual(raw.files.map(f => [f.filename, f.mimeType]),
		[['data.bin', 'application/octet-stream'], ['résumé ✓.PDF', 'application/pdf']]);
	for (const f of raw.raw.files) {
		assert.equal(typeof f.filename, 'object', 'file name sent in clear');
		assert.equal(typeof f.mimeType, 'object', 'mime type sent in clear');
	}

	const link2 = await send(['--views', '2', '-f', path.join(src, 'data.bin'), '--file', path.join(src, 'résumé ✓.PDF'), 'see attached\n']);
	const out = tmpDir();
	const r = await run(['get', '--output-dir', out, link2]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'see attached\n');
	assert.deepEqual(fs.readdirSync(out).sort(), ['data.bin', 'résumé ✓.PDF']);
	assert.ok(fs.readFileSync(path.join(out, 'data.bin')).equals(bin));
	assert.equal(fs.readFileSync(path.join(out, 'résumé ✓.PDF'), 'utf8'), 'pdf-ish\n');
	assert.equal(fs.statSync(path.join(out, 'data.bin')).mode & 0o777, 0o600);

	// Second view into the same directory: nothing is replaced, new names are used.
	fs.writeFileSync(path.join(out, 'data.bin'), 'mine');
	const r2 = await run(['get', '-o', out, '--json', link2]);
	assert.equal(r2.code, 0, r2.err);
	assert.equal(fs.readFileSync(path.join(out, 'data.bin'), 'utf8'), 'mine');
	assert.ok(fs.readFileSync(path.join(out, 'data (1).bin')).equals(bin));
	assert.ok(fs.readFileSync(path.join(out, 'résumé ✓ (1).PDF')).equals(Buffer.from('pdf-ish\n')));
	const j = JSON.parse(r2.out);
	assert.equal(j.text, 'see attached\n');
	assert.equal(j.viewsRemaining, 0);
	assert.deepEqual(j.files.map(f => [f.filename, path.basename(f.path), f.size]),
		[['data.bin', 'data (1).bin', bin.length], ['résumé ✓.PDF', 'résumé ✓ (1).PDF', 8]]);
});

test('files only: stdin is not read, no text is sent', async () => {
	const src = tmpDir();
	fs.writeFileSync(path.join(src, 'only.txt'), 'only a file');
	const r = await run([...URL_OPT, '--file', path.join(src, 'only.txt')], { input: null });
	assert.equal(r.code, 0, r.err);
	const raw = await retrieveRaw(r.out);
	assert.equal(raw.text, null);
	assert.equal(raw.files[0].data.toString(), 'only a file');
});

test('--force replaces a regular file but never follows a symlink', async () => {
	const src = tmpDir();
	fs.writeFileSync(path.join(src, 'a.txt'), 'new content');
	fs.writeFileSync(path.join(src, 'link.txt'), 'via symlink?');
	const link = await send(['-f', path.join(src, 'a.txt'), '-f', path.join(src, 'link.txt')]);
	const out = tmpDir();
	const outside = tmpDir();
	fs.writeFileSync(path.join(out, 'a.txt'), 'old');
	fs.writeFileSync(path.join(outside, 'target'), 'untouched');
	fs.symlinkSync(path.join(outside, 'target'), path.join(out, 'link.txt'));
	const r = await run(['get', '--force', '-o', out, link]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, '');
	assert.equal(fs.readFileSync(path.join(out, 'a.txt'), 'utf8'), 'new content');
	assert.equal(fs.readFileSync(path.join(outside, 'target'), 'utf8'), 'untouched');
	assert.ok(fs.lstatSync(path.join(out, 'link.txt')).isSymbolicLink());
	assert.equal(fs.readFileSync(path.join(out, 'link (1).txt'), 'utf8'), 'via symlink?');
});

test('get never writes outside --output-dir, whatever the file names say', async () => {
	const nasty = ['../escape.txt', '../../etc/escape2', '/tmp/abs-escape.txt', '..\\win-escape.txt',
		'sub/dir/nested.txt', '..', '.', '', '.hidden', 'a\u0000b\nc.txt', '\u202etxt.exe', 'ok.txt'];
	const { link } = await createRaw(srv.base, {
		text: 'nasty names',
		files: nasty.map((filename, i) => ({ filename, data: `content ${i}` })),
	});
	const parent = tmpDir();
	const out = path.join(parent, 'out');
	fs.mkdirSync(out);
	const r = await run(['get', '-o', out, link], { cwd: out });
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out, 'nasty names');
	assert.deepEqual(fs.readdirSync(parent), ['out']);
	const names = fs.readdirSync(out).sort();
	assert.equal(names.length, nasty.length);
	for (const n of names) {
		assert.ok(!n.startsWith('.'), n);
		assert.doesNotMatch(n, /[/\\\u0000-\u001f\u202e]/);
		assert.ok(fs.lstatSync(path.join(out, n)).isFile());
	}
	assert.ok(names.includes('escape.txt'));
	assert.ok(names.includes('nested.txt'));
	assert.ok(names.includes('hidden'));
	assert.ok(names.includes('ok.txt'));
	assert.ok(!fs.existsSync('/tmp/abs-escape.txt') || fs.readFileSync('/tmp/abs-escape.txt', 'utf8') !== 'content 2');
	// Each content landed once.
	const contents = names.map(n => fs.readFileSync(path.join(out, n), 'utf8')).sort();
	assert.deepEqual(contents, nasty.map((_, i) => `content ${i}`).sort());
	assert.match(r.err, /unsafe/);
});

/* ---------- get, status, burn ---------- */

test('get opens a server-side-mode secret too (key in secretUrl, encrypted names)', async () => {
	const data = Buffer.from('server side file');
	const r = await apiJson('POST', `${srv.base}/api/secrets`, {
		text: 'server side text\n',
		files: [{ filename: 'srv.txt', mimeType: 'text/plain', data: `data:text/plain;base64,${data.toString('base64')}` }],
	});
	assert.equal(r.status, 200, JSON.stringify(r.json));
	assert.match(r.json.secretUrl, /#key=/);
	const out = tmpDir();
	const g = await run(['get', '-o', out, r.json.secretUrl]);
	assert.equal(g.code, 0, g.err);
	assert.equal(g.out, 'server side text\n');
	assert.equal(fs.readFileSync(path.join(out, 'srv.txt'), 'utf8'), 'server side file');
});

test('get checks metadata first: a missing passphrase costs no view', async () => {
	const link = await send(['--views', '1', '-p', 'open sesame', 'x']);
	assertUsage(await run(['get', link]), /passphrase/);
	assertUsage(await run(['get', link]), /passphrase/);
	assert.equal((await meta(link)).json.viewsRemaining, 1);
});

test('status shows a receipt before and after the view', async () => {
	const r = await run([...URL_OPT, '--json', '--views', '2', '-p', 'pass phrase', 'x']);
	const res = JSON.parse(r.out);
	let st = await run(['status', res.metadataUrl]);
	assert.equal(st.code, 0, st.err);
	assert.match(st.out, /^state: +active$/m);
	assert.match(st.out, /^views: +0 of 2 \(2 left\)$/m);
	assert.match(st.out, /^last viewed: +never$/m);
	assert.match(st.out, /^passphrase: +yes$/m);
	const g = await run(['get', '-p', 'pass phrase', res.link]);
	assert.equal(g.code, 0, g.err);
	st = await run(['status', '--json', res.metadataUrl]);
	const j = JSON.parse(st.out);
	assert.equal(j.type, 'receipt');
	assert.equal(j.state, 'active');
	assert.equal(j.viewCount, 1);
	assert.equal(j.viewsRemaining, 1);
	assert.equal(typeof j.lastViewedAt, 'string');
	assert.equal(j.secretKey, undefined);
	// status also takes the secret link (no view consumed).
	st = await run(['status', res.link]);
	assert.equal(st.code, 0, st.err);
	assert.match(st.out, /^views left: +1 of 2$/m);
});

test('burn with a secret link that has a passphrase needs it', async () => {
	const link = await send(['-p', 'burn pass', 'x']);
	assertUsage(await run(['burn', link]), /passphrase/);
	assertApiError(await run(['burn', '-p', 'not it!', link]), 'INVALID_PASSPHRASE');
	const b = await run(['burn', '-p', 'burn pass', link]);
	assert.equal(b.code, 0, b.err);
	assert.equal(b.out, 'burned\n');
	assertApiError(await run(['get', '-p', 'burn pass', link]), 'SECRET_BURNED');
});

test('npm install -g ./cli installs a working burnlink command', async () => {
	const prefix = tmpDir('burnlink-npm-');
	const { execFileSync } = await import('node:child_process');
	execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(ROOT, 'cli')],
		{ stdio: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false' } });
	const bin = path.join(prefix, 'bin', 'burnlink');
	const out = execFileSync(bin, ['--url', srv.base, 'installed'], { encoding: 'utf8' });
	assert.equal((await retrieveRaw(out)).text.toString(), 'installed');
});

/* ---------- expiry and the passphrase prompt ---------- */

// Runs SQL on the server's database as the user the server runs as (so that
// no file of the database ends up owned by someone else).
function sql(statement) {
	const asOther = process.getuid?.() === 0 && srv.user !== 'root';
	const argv = asOther ? ['runuser', '-u', srv.user, '--', 'sqlite3', srv.db, statement] : ['sqlite3', srv.db, statement];
	execFileSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

test('410 SECRET_EXPIRED once the expiry has passed', async () => {
	const r = await run([...URL_OPT, '--json', 'short-lived']);
	const res = JSON.parse(r.out);
	sql("UPDATE secrets SET expires_at = CAST(strftime('%s','now') AS INTEGER) * 1000 - 1000 WHERE id = (SELECT max(id) FROM secrets);");
	assertApiError(await run(['get', res.link]), 'SECRET_EXPIRED');
	const st = await run(['status', res.metadataUrl]);
	assert.equal(st.code, 0, st.err);
	assert.match(st.out, /^state: +expired$/m);
});

// Runs burnlink on a pseudo-terminal (util-linux script), answering each
// prompt when it appears; resolves {code, out} (out is the terminal's text).
function runOnTerminal(args, answers) {
	return new Promise((resolve, reject) => {
		const quoted = [process.env.BURNLINK_TEST_NODE || process.execPath, CLI, ...args]
			.map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
		const child = spawn('script', ['-qec', quoted, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
		let out = '';
		let seen = 0;
		child.stdout.on('data', d => {
			out += d;
			const prompts = out.match(/Passphrase( \(again\))?: /g) || [];
			while (seen < prompts.length && seen < answers.length)
				child.stdin.write(answers[seen++] + '\r');
		});
		child.on('error', reject);
		child.on('close', code => resolve({ code, out }));
	});
}

test('--passphrase - asks on the terminal without echo, twice when sending', { skip: !hasScript() && 'script (util-linux) is missing' }, async () => {
	const made = await runOnTerminal([...URL_OPT, '-p', '-', 'prompted secret'], ['typed pass', 'typed pass']);
	assert.equal(made.code, 0, made.out);
	assert.ok(!made.out.includes('typed pass'), 'the passphrase was echoed');
	const link = /(http:\S+#key=\S+)/.exec(made.out)[1];
	assert.equal((await meta(link)).json.hasPassphrase, true);
	// get asks when the secret needs one; a wrong answer is asked again.
	const got = await runOnTerminal(['get', link], ['wrong pass', 'typed pass']);
	assert.equal(got.code, 0, got.out);
	assert.match(got.out, /wrong passphrase, try again/);
	assert.ok(got.out.endsWith('prompted secret'), JSON.stringify(got.out));
	assert.ok(!got.out.includes('typed pass'));
	// Two different answers when sending: usage error, nothing sent.
	const differ = await runOnTerminal([...URL_OPT, '-p', '-', 'x'], ['one pass', 'two pass']);
	assert.equal(differ.code, 2);
	assert.match(differ.out, /differ/);
});

function hasScript() {
	try {
		execFileSync('script', ['--version'], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}
