// batch.test.mjs: a FastCGI batch whose final commit fails (docs/SECURITY.md,
// "Group commit"). A request with a passphrase flushes the batch so far
// before its scrypt (bl_store_batch_flush): that commit makes the earlier
// requests' writes durable. If the batch's final commit then fails, only the
// answers whose writes it held may become 503 "nothing was stored or used";
// an answer whose view the flush already spent must go out as it was.
//
// The responder (build/dyn/cgi-bin/retrieve, for LD_PRELOAD) is started on a
// Unix socket by fcgi_listen only once three requests wait there, so it takes
// them as one batch in order: A the last view of X, B a view of Y with its
// passphrase (the flush), C a view of Z. Z's stored ciphertext carries a
// marker, and failsync.so fails the sync that follows the write of the page
// holding it: the final commit, which holds B's and C's views.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, newContext, newKey, encryptItem, decryptItem, parseCgi, sqlite, sha256hex } from '../lib/cgi.mjs';
import { DYN, dynProgram } from './helpers.mjs';

const OUT = path.join(ROOT, 'build', 'faults');

// Builds the shim and the launcher when missing or older than their sources.
function build(name, shared) {
	const src = path.join(ROOT, 'tests', 'faults', `${name}.c`);
	const out = path.join(OUT, shared ? `${name}.so` : name);
	const st = fs.existsSync(out) ? fs.statSync(out).mtimeMs : 0;
	if (st < fs.statSync(src).mtimeMs) {
		fs.mkdirSync(OUT, { recursive: true });
		execFileSync(process.env.CC || 'cc', ['-O1', '-g', '-Wall', '-Wextra', '-Werror',
			...(shared ? ['-shared', '-fPIC'] : []), '-o', out, src, ...(shared ? ['-ldl'] : [])],
		{ stdio: 'inherit' });
	}
	return out;
}

// One FastCGI record.
function record(type, id, content = Buffer.alloc(0)) {
	const h = Buffer.alloc(8);
	h.writeUInt8(1, 0);
	h.writeUInt8(type, 1);
	h.writeUInt16BE(id, 2);
	h.writeUInt16BE(content.length, 4);
	return Buffer.concat([h, content]);
}

function nameValue(k, v) {
	const len = (n) => (n < 128 ? Buffer.from([n]) : (() => { const b = Buffer.alloc(4); b.writeUInt32BE(n | 0x80000000); return b; })());
	return Buffer.concat([len(Buffer.byteLength(k)), len(Buffer.byteLength(v)), Buffer.from(k), Buffer.from(v)]);
}

// A whole FastCGI responder request (id 1): BEGIN_REQUEST, PARAMS, STDIN.
function fcgiRequest(params, body) {
	const parts = [record(1, 1, Buffer.from([0, 1, 0, 0, 0, 0, 0, 0]))];
	const p = Buffer.concat(Object.entries(params).map(([k, v]) => nameValue(k, v)));
	for (let i = 0; i < p.length; i += 65535) parts.push(record(4, 1, p.subarray(i, i + 65535)));
	parts.push(record(4, 1));
	for (let i = 0; i < body.length; i += 65535) parts.push(record(5, 1, body.subarray(i, i + 65535)));
	parts.push(record(5, 1));
	return Buffer.concat(parts);
}

/*
 * Connects to the responder's socket and sends one retrieve; resolves once
 * connected to { answer }, a promise of the parsed CGI answer (STDOUT records
 * up to END_REQUEST).
 */
function send(sock, db, key, body) {
	const b = Buffer.from(JSON.stringify(body));
	const params = {
		GATEWAY_INTERFACE: 'CGI/1.1', SERVER_PROTOCOL: 'HTTP/1.1', SERVER_NAME: 'burnlink.test',
		SERVER_PORT: '80', SCRIPT_NAME: '/cgi-bin/retrieve', REQUEST_METHOD: 'POST',
		HTTP_HOST: 'burnlink.test', REMOTE_ADDR: '192.0.2.10', REQUEST_URI: `/api/secrets/${key}`,
		PATH_INFO: `/${key}`, CONTENT_LENGTH: String(b.length), CONTENT_TYPE: 'application/json',
		BURNLINK_DB: db,
	};
	return new Promise((resolve, reject) => {
		const c = net.createConnection(sock);
		const chunks = [];
		const answer = new Promise((res, rej) => {
			c.on('data', (d) => chunks.push(d));
			c.on('error', rej);
			c.on('close', () => {
				const all = Buffer.concat(chunks);
				const out = [];
				for (let off = 0; off + 8 <= all.length;) {
					const type = all[off + 1], len = all.readUInt16BE(off + 4), pad = all[off + 6];
					if (type === 6) out.push(all.subarray(off + 8, off + 8 + len));
					off += 8 + len + pad;
				}
				try { res(parseCgi(Buffer.concat(out))); } catch (e) { rej(e); }
			});
		});
		c.once('error', reject);
		c.once('connect', () => c.write(fcgiRequest(params, b), () => resolve({ answer })));
	});
}

// Client-side text whose stored ciphertext is the marker, repeated, and a tag.
function marked(marker) {
	const item = encryptItem('x', newKey());
	const ct = Buffer.concat([Buffer.from(marker.repeat(8)), Buffer.alloc(16, 7)]);
	return { ciphertext: ct.toString('base64'), iv: item.iv };
}

test('a failed final commit does not take back an answer whose view an earlier flush made durable', async (t) => {
	if (!fs.existsSync(path.join(DYN, 'cgi-bin', 'retrieve')))
		return t.skip('build/dyn is missing: make dyn');
	const shim = build('failsync', true), launcher = build('fcgi_listen', false);
	const ctx = newContext();
	const marker = `FAILSYNC-${process.pid}-${Date.now()}`;
	const key = newKey();
	// Z first, then rows enough to keep X's and Y's on other pages than Z's.
	const z = await ctx.createOk({ text: marked(marker), maxViews: 5 });
	for (let i = 0; i < 12; i++) await ctx.createOk({ text: encryptItem('f'.repeat(1500), key) });
	const x = await ctx.createOk({ text: encryptItem('the last view', key), maxViews: 1 });
	const y = await ctx.createOk({ text: encryptItem('locked', key), passphrase: 'open sesame', maxViews: 3 });

	const sock = path.join(ctx.dir, 'retrieve.sock');
	const child = spawn(launcher, [sock, dynProgram('retrieve')], {
		env: { PATH: '/usr/bin:/bin', LD_PRELOAD: shim, FAILSYNC_MARKER: marker },
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	let stderr = '';
	child.stderr.on('data', (d) => { stderr += d; });
	t.after(() => child.kill('SIGKILL'));
	await new Promise((resolve, reject) => {
		child.stdout.once('data', resolve);
		child.once('exit', (code) => reject(new Error(`fcgi_listen exited (${code}): ${stderr}`)));
	});

	// Queued in this order before the responder runs: one batch, A B C.
	const a = await send(sock, ctx.db, x.secretKey, {});
	const b = await send(sock, ctx.db, y.secretKey, { passphrase: 'open sesame' });
	const c = await send(sock, ctx.db, z.secretKey, {});
	child.stdin.write('go\n');
	const [ra, rb, rc] = await Promise.all([a.answer, b.answer, c.answer]);

	assert.match(stderr, /failsync: failing f(data)?sync/, 'the final commit was made to fail');
	assert.equal(rc.status, 503, rc.body.toString());
	assert.equal(rc.json.code, 'STORE_UNAVAILABLE');
	assert.equal(rb.status, 503, rb.body.toString());
	// A's view was made durable by B's flush: it is answered, not "nothing was used".
	assert.equal(ra.status, 200, `A: ${ra.body}`);
	assert.equal(decryptItem(ra.json.text, key).toString(), 'the last view');
	assert.equal(ra.json.viewsRemaining, 0);

	// And it was spent: the database says so, and so does the responder.
	const row = sqlite(ctx.db, `SELECT state, view_count, text_ct IS NULL FROM secrets WHERE secret_hash = x'${sha256hex(x.secretKey)}'`).trim();
	assert.equal(row, '3|1|1', 'X exhausted, its content gone');
	const again = await send(sock, ctx.db, x.secretKey, {});
	assert.equal((await again.answer).status, 410);
});
