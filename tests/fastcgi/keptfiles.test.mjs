// keptfiles.test.mjs: a FastCGI responder reads the settings file and the
// install secret once and keeps them while they do not change (lib/config.c,
// bl_config_keep()): each request here is a batch of its own, and a settings
// file or install secret changed, replaced, removed or damaged between two
// requests takes effect at the second one, with the same answers and errors
// as a responder that read them for every request.
//
// What is kept is only what was read from a file last modified more than 2 s
// earlier (a newer one is read for every request), so the files here are made
// first and their modification time set a minute back, before any request:
// the requests then meet the kept copies, and each change below is one that a
// comparison of the file's identity must notice (a symbolic link retargeted:
// another inode; a file rewritten in place; one truncated or removed).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, newContext } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';

// Sets the modification time of every file in files a minute back, well past
// lib/config.c's KEEP_RACY_S (2 s): what is read from them may be kept.
function aged(files) {
	const past = new Date(Date.now() - 60000);
	for (const f of files) fs.utimesSync(f, past, past);
}

test('FastCGI: a changed settings file takes effect at the next request', { timeout: 60000 }, async (t) => {
	const ctx = newContext();
	const conf = path.join(ctx.dir, 'burnlink.conf');
	const a = path.join(ctx.dir, 'a.conf'), b = path.join(ctx.dir, 'b.conf');
	fs.writeFileSync(a, 'site_name = Alpha\n');
	fs.writeFileSync(b, 'site_name = Bravo\n');	// the same size: only the inode differs
	fs.symlinkSync('a.conf', conf);
	aged([a, b]);
	const rsp = await startResponder(t, 'config', ctx.dir, {}, { exe: path.join(ROOT, 'cgi-bin', 'config') });
	let started = false;
	const ask = async () => {
		const sent = await rsp.send({ method: 'GET', env: { BURNLINK_DB: ctx.db, REQUEST_URI: '/api/config' } });
		if (!started) rsp.go();
		started = true;
		return sent.answer;
	};
	const name = async () => {
		const r = await ask();
		assert.equal(r.status, 200, r.body?.toString());
		return r.json.branding.siteName;
	};
	assert.equal(await name(), 'Alpha');
	assert.equal(await name(), 'Alpha');
	// the link now names the other file
	fs.unlinkSync(conf);
	fs.symlinkSync('b.conf', conf);
	assert.equal(await name(), 'Bravo');
	// that file rewritten in place
	fs.writeFileSync(b, 'site_name = Carol\n');
	assert.equal(await name(), 'Carol');
	// removed: no settings
	fs.unlinkSync(conf);
	assert.equal(await name(), null);
	// an invalid one: refused, as it is when read for every request
	fs.writeFileSync(conf, 'site_name = Delta\nno_such_setting = 1\n');
	const bad = await ask();
	assert.equal(bad.status, 503, bad.body?.toString());
	assert.equal(bad.json.code, 'CONFIG_INVALID');
	// and put right again
	fs.writeFileSync(conf, 'site_name = Echo\n');
	assert.equal(await name(), 'Echo');
	await rsp.stop();
});

test('FastCGI: a changed, damaged or removed install secret takes effect at the next request', { timeout: 60000 }, async (t) => {
	const ctx = newContext();
	const made = await ctx.createOk({ text: 'kept' });	// makes the install secret
	const secret = path.join(ctx.dir, 'secret.key');
	const other = path.join(ctx.dir, 'other.key');
	fs.writeFileSync(other, Buffer.alloc(32, 7), { mode: 0o600 });
	aged([secret, other]);
	const rsp = await startResponder(t, 'metadata', ctx.dir, {}, { exe: path.join(ROOT, 'cgi-bin', 'metadata') });
	let started = false;
	const ask = async () => {
		const sent = await rsp.send({ method: 'GET', key: made.receiptKey, env: { BURNLINK_DB: ctx.db } });
		if (!started) rsp.go();
		started = true;
		return sent.answer;
	};
	// The address is counted under the install secret (HMAC): the same
	// secret, the same count; another secret, another count.
	const remaining = async () => {
		const r = await ask();
		assert.equal(r.status, 200, r.body?.toString());
		return Number(r.headers['x-ratelimit-remaining']);
	};
	const first = await remaining();
	assert.equal(await remaining(), first - 1);
	// another secret in its place (another inode): counted afresh
	fs.renameSync(other, secret);
	assert.equal(await remaining(), first);
	assert.equal(await remaining(), first - 1);
	// damaged (too short): the error of an unreadable secret
	fs.truncateSync(secret, 16);
	const bad = await ask();
	assert.equal(bad.status, 503, bad.body?.toString());
	assert.equal(bad.json.code, 'RATE_LIMIT_UNAVAILABLE');	// the limiter is the first to need it
	assert.match(rsp.stderr(), /cannot read the install secret .*short file/);
	// removed: a new one is made, as for the first request of an install
	fs.unlinkSync(secret);
	assert.equal(await remaining(), first);
	assert.equal(fs.statSync(secret).size, 32);
	await rsp.stop();
});
