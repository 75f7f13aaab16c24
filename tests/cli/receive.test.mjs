// burnlink get, status and burn against a real server: files, unsafe file
// names, symlinks, receipts, the passphrase prompt, npm install.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { srv, URL_OPT, send, meta, assertApiError, assertUsage, near, sql, runOnTerminal, hasScript } from './fixture.mjs';
import { ROOT, run, splitLink, apiJson, retrieveRaw, createRaw, tmpDir, errorLine } from './helpers.mjs';


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
		'sub/dir/nested.txt', '..', '.', '', '.hidden', 'a\u0000b\nc.txt', '\u202etxt.exe', 'arabic\u061cmark.txt', 'ok.txt', 'report. '];
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
		assert.doesNotMatch(n, /[/\\\u0000-\u001f\u061c\u202e]/);
		assert.ok(fs.lstatSync(path.join(out, n)).isFile());
	}
	assert.ok(names.includes('escape.txt'));
	assert.ok(names.includes('nested.txt'));
	assert.ok(names.includes('hidden'));
	assert.ok(names.includes('ok.txt'));
	assert.ok(names.includes('arabic_mark.txt'));
	assert.ok(names.includes('report'), 'trailing dots and spaces are removed');
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
	// The text, then (on a terminal) a line on the views left.
	assert.match(got.out, /\r\nprompted secret\r\nburnlink: that was the last view/);
	assert.ok(!got.out.includes('typed pass'));
	// Two different answers when sending: usage error, nothing sent.
	const differ = await runOnTerminal([...URL_OPT, '-p', '-', 'x'], ['one pass', 'two pass']);
	assert.equal(differ.code, 2);
	assert.match(differ.out, /differ/);
});


/* ---------- terminal safety ---------- */

// A title change, a screen clear, a clipboard write (OSC 52), a CSI in its C1
// form, a carriage return that would hide the line before it, a DEL.
const HOSTILE = 'before\x1b]0;owned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07 \u009b31m x\ry\r\n\x7fend\tok\n';

test('get on a terminal shows control characters escaped; --raw and a pipe give the exact bytes', { skip: !hasScript() && 'script (util-linux) is missing' }, async () => {
	const link = await send(['--views', '3', HOSTILE]);
	const shown = await runOnTerminal(['get', link], []);
	assert.equal(shown.code, 0, shown.out);
	assert.ok(!/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f]/.test(shown.out.replace(/\r\n/g, '\n')), JSON.stringify(shown.out));
	assert.ok(shown.out.includes('before\\x1b]0;owned\\x07\\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07 \\u009b31m x\\x0dy'), JSON.stringify(shown.out));
	assert.ok(shown.out.includes('\\x7fend\tok'), JSON.stringify(shown.out));
	assert.match(shown.out, /burnlink: 8 control characters are shown escaped/);
	// --raw: as sent (the terminal's own line discipline turns \n into \r\n).
	const raw = await runOnTerminal(['get', '--raw', link], []);
	assert.equal(raw.code, 0, raw.out);
	assert.ok(raw.out.includes('before\x1b]0;owned\x07\x1b[2J'), JSON.stringify(raw.out));
	// Not a terminal: the exact bytes, no notice.
	const piped = await run(['get', link]);
	assert.equal(piped.code, 0, piped.err);
	assert.equal(piped.out, HOSTILE);
	assert.doesNotMatch(piped.err, /escaped/);
});

test('get --json on a terminal escapes C1 controls and DEL too (same JSON value)', { skip: !hasScript() && 'script (util-linux) is missing' }, async () => {
	const link = await send([HOSTILE]);
	const shown = await runOnTerminal(['get', '--json', link], []);
	assert.equal(shown.code, 0, shown.out);
	assert.ok(!/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f]/.test(shown.out), JSON.stringify(shown.out));
	const json = JSON.parse(shown.out.replace(/\r\n/g, '\n'));
	assert.equal(json.text, HOSTILE);
});

test('get and burn warn when the link is plain http to a host that is not loopback', async () => {
	// 0.0.0.0 reaches this machine's server but is not a loopback name.
	const link = (await send(['--views', '2', 'warned'])).replace('//127.0.0.1:', '//0.0.0.0:');
	const got = await run(['get', link]);
	assert.equal(got.code, 0, got.err);
	assert.match(got.err, /^burnlink: warning: http:\/\/0\.0\.0\.0:\d+ is not HTTPS; /m);
	const burnt = await run(['burn', link]);
	assert.equal(burnt.code, 0, burnt.err);
	assert.match(burnt.err, /^burnlink: warning: http:\/\/0\.0\.0\.0:\d+ is not HTTPS; /m);
	// loopback: no warning
	const quiet = await run(['status', (await send(['x'])).replace('/secret/', '/secret/')]);
	assert.doesNotMatch(quiet.err, /warning/);
});
