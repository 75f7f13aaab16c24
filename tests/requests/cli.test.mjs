// cli.test.mjs: `burnlink request`, `burnlink answer`, `burnlink get
// INBOX_LINK`, status and burn (docs/CLI.md) against a real server: text and
// files byte for byte, the inbox link in a 0600 file, answered once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import net from 'node:net';
import { execFileSync } from 'node:child_process';
import { startServer } from '../lib/server.mjs';
import { run, tmpDir } from '../cli/helpers.mjs';
import { wire } from './helpers.mjs';
import * as pgCluster from '../pg/cluster.mjs';

let srv;
before(async () => { srv = await startServer({ server: 'lighttpd' }); });
after(async () => { await srv?.stop(); });

const cli = (args, opts = {}) => run(args, { ...opts, env: { BURNLINK_URL: srv.base, ...(opts.env || {}) } });

test('request, answer with text and files, get the answer once: byte for byte', async () => {
	const r = await cli(['request', '--note', 'the API token, please', '--files', '--ttl', '2h']);
	assert.equal(r.code, 0, r.err);
	const [requestLink, inboxLink] = r.out.trim().split('\n');
	assert.match(requestLink, /\/request\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{43}$/);
	assert.match(inboxLink, /\/inbox\/[A-Za-z0-9_-]{22}#key=[A-Za-z0-9_-]{182}$/);
	let s = await cli(['status', inboxLink]);
	assert.match(s.out, /^state:\s+waiting$/m);
	s = await cli(['get', inboxLink]);
	assert.equal(s.code, 1);
	assert.match(s.err, /waiting/);

	const dir = tmpDir();
	const bin = crypto.randomBytes(50000);
	fs.writeFileSync(path.join(dir, 'key.bin'), bin);
	const secret = Buffer.concat([Buffer.from('tok\u00e9n\n'), Buffer.from([0, 1, 0xff])]);
	const a = await cli(['answer', requestLink, '-', '-f', path.join(dir, 'key.bin')], { input: secret });
	assert.equal(a.code, 0, a.err);
	assert.equal(a.out, 'answered\n');
	assert.match(a.err, /the request says: the API token, please/);
	const again = await cli(['answer', requestLink, 'second']);
	assert.equal(again.code, 1);
	assert.match(again.err, /REQUEST_ANSWERED/);

	const out = tmpDir();
	const g = await cli(['get', inboxLink, '-o', out]);
	assert.equal(g.code, 0, g.err);
	assert.ok(g.stdout.equals(secret), 'the text byte for byte');
	assert.ok(fs.readFileSync(path.join(out, 'key.bin')).equals(bin), 'the file byte for byte');
	const g2 = await cli(['get', inboxLink, '-o', out]);
	assert.equal(g2.code, 1);
	assert.match(g2.err, /ANSWER_READ/);
	s = await cli(['status', '--json', inboxLink]);
	assert.equal(JSON.parse(s.out).state, 'read');
});

test('--inbox-file writes the inbox link to a new 0600 file; text only refuses files; burn by either link', async () => {
	const dir = tmpDir();
	const f = path.join(dir, 'inbox');
	const r = await cli(['request', '--inbox-file', f]);
	assert.equal(r.code, 0, r.err);
	assert.equal(r.out.trim().split('\n').length, 1, 'only the request link is printed');
	assert.equal(fs.statSync(f).mode & 0o777, 0o600);
	const inboxLink = fs.readFileSync(f, 'utf8').trim();
	assert.match(inboxLink, /\/inbox\//);
	assert.ok(!r.out.includes(inboxLink.split('#')[1]), 'the private key is not printed');
	const exists = await cli(['request', '--inbox-file', f]);
	assert.equal(exists.code, 2, 'an existing file is never replaced');

	const requestLink = r.out.trim();
	fs.writeFileSync(path.join(dir, 'x'), 'x');
	const a = await cli(['answer', requestLink, 'text', '-f', path.join(dir, 'x')]);
	assert.equal(a.code, 2);
	assert.match(a.err, /text only/);
	const b = await cli(['burn', requestLink]);
	assert.equal(b.code, 0, b.err);
	const s = await cli(['status', inboxLink]);
	assert.match(s.out, /^state:\s+burned$/m);

	const r2 = await cli(['request']);
	const [req2, inbox2] = r2.out.trim().split('\n');
	assert.equal((await cli(['answer', req2, 'x'])).code, 0);
	assert.equal((await cli(['burn', inbox2])).code, 0);
	const g = await cli(['get', inbox2]);
	assert.match(g.err, /REQUEST_BURNED/);
});

// The number of requests in the server's database (read as the server's user,
// so that no file of the database ends up owned by another).
// The requests the server's database holds (SQLite, or PostgreSQL under BURNLINK_TEST_PG).
function requestRows() {
	if (process.env.BURNLINK_TEST_PG) {
		const name = decodeURIComponent(/^postgresql:\/\/[^@]*@\/([^?]+)/.exec(srv.dbUrl)[1]);
		return Number(pgCluster.sql(process.env.BURNLINK_TEST_PG, name, 'SELECT count(*) FROM requests').trim());
	}
	const q = ['sqlite3', srv.db, 'SELECT count(*) FROM requests'];
	const argv = process.getuid?.() === 0 && srv.user !== 'root' ? ['runuser', '-u', srv.user, '--', ...q] : q;
	return Number(execFileSync(argv[0], argv.slice(1)).toString().trim());
}

test('--inbox-file: a name that is taken, or a request that fails, leaves no request on the server and no file', async () => {
	const dir = tmpDir();
	const taken = path.join(dir, 'taken');
	fs.writeFileSync(taken, 'mine');
	const rows = requestRows();
	const r = await cli(['request', '--inbox-file', taken]);
	assert.equal(r.code, 2, r.err);
	assert.match(r.err, /exists \(not replaced\)/);
	assert.equal(fs.readFileSync(taken, 'utf8'), 'mine');
	assert.equal(requestRows(), rows, 'no request was made for links nobody gets');

	// A port nothing listens on: the request fails, and the new file goes again.
	const closed = net.createServer();
	await new Promise(resolve => closed.listen(0, '127.0.0.1', resolve));
	const port = closed.address().port;
	await new Promise(resolve => closed.close(resolve));
	const fresh = path.join(dir, 'fresh');
	const down = await cli(['request', '--inbox-file', fresh], { env: { BURNLINK_URL: `http://127.0.0.1:${port}` } });
	assert.equal(down.code, 1, down.err);
	assert.match(down.err, /cannot reach/);
	assert.ok(!fs.existsSync(fresh), 'no empty inbox file is left behind');
});

test('get with an inbox link whose key pair, note key or check was changed in transit refuses before the answer is read', async () => {
	const r = await cli(['request']);
	const [requestLink, inboxLink] = r.out.trim().split('\n');
	assert.equal((await cli(['answer', requestLink, 'kept for the right link'])).code, 0);
	// One character of the private scalar, one of the public point, one of
	// the note key (issue 29, item 10: its only check was the answer's
	// decryption, after the read) and one of the check, changed into other
	// valid ones: still 182 base64 characters.
	const at = inboxLink.indexOf('#key=') + 5;
	const change = (i) => inboxLink.slice(0, at + i) + (inboxLink[at + i] === 'A' ? 'B' : 'A') + inboxLink.slice(at + i + 1);
	for (const damaged of [change(1), change(60), change(150), change(175)]) {
		const g = await cli(['get', damaged]);
		assert.equal(g.code, 2, g.err);
		assert.match(g.err, /inbox link is damaged/);
	}
	const s = await cli(['status', inboxLink]);
	assert.match(s.out, /^state:\s+answered$/m, 'the answer was not read');
	const g = await cli(['get', inboxLink]);
	assert.equal(g.code, 0, g.err);
	assert.equal(g.out, 'kept for the right link');
});

test('request warns when its API key goes over plain http to a host that is not loopback', async () => {
	// 0.0.0.0 reaches this machine's server but is not a loopback name.
	const clear = srv.base.replace('//127.0.0.1:', '//0.0.0.0:');
	const r = await cli(['request', '--api-key', `bl_${'x'.repeat(43)}`], { env: { BURNLINK_URL: clear } });
	assert.match(r.err, /^burnlink: warning: http:\/\/0\.0\.0\.0:\d+ is not HTTPS; the API key travels unencrypted$/m);
	const quiet = await cli(['request', '--api-key', `bl_${'x'.repeat(43)}`]);
	assert.doesNotMatch(quiet.err, /warning/);
});

test('get and burn of inbox and request links warn when the link is plain http to a host that is not loopback', async () => {
	const r = await cli(['request']);
	const [requestLink, inboxLink] = r.out.trim().split('\n').map((l) => l.replace('//127.0.0.1:', '//0.0.0.0:'));
	const warning = /^burnlink: warning: http:\/\/0\.0\.0\.0:\d+ is not HTTPS; /m;
	const g = await cli(['get', inboxLink]);
	assert.equal(g.code, 1, 'the request is waiting');
	assert.match(g.err, warning);
	const b = await cli(['burn', requestLink]);
	assert.equal(b.code, 0, b.err);
	assert.match(b.err, warning);
	const r2 = await cli(['request']);
	const b2 = await cli(['burn', r2.out.trim().split('\n')[1].replace('//127.0.0.1:', '//0.0.0.0:')]);
	assert.equal(b2.code, 0, b2.err);
	assert.match(b2.err, warning);
	// loopback: no warning
	const r3 = await cli(['request']);
	const quiet = await cli(['burn', r3.out.trim().split('\n')[1]]);
	assert.doesNotMatch(quiet.err, /warning/);
});

test('the CLI answers a request the wire module made, and reads an answer the wire module sealed', async () => {
	const keys = await wire.newRequestKeys();
	const res = await fetch(`${srv.base}/api/requests`, { method: 'POST', headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ publicKey: keys.publicKey, allowFiles: true,
			note: await wire.sealNote(keys.noteKey, keys.publicKey, '') }) });
	const q = await res.json();
	const a = await cli(['answer', `${q.requestUrl}#key=${keys.noteKey}`, 'from the CLI']);
	assert.equal(a.code, 0, a.err);
	const read = await (await fetch(`${srv.base}/api/requests/${q.inboxKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
	assert.equal(Buffer.from((await wire.openRequestAnswer(keys.inboxSecret, read)).text).toString(), 'from the CLI');
});

test('answer refuses a request whose note does not open with the link (damaged link or swapped key); nothing is sent', async () => {
	const r = await cli(['request', '--note', 'n']);
	const [requestLink, inboxLink] = r.out.trim().split('\n');
	const other = wire.encodeKey(new Uint8Array(32).fill(7));
	const a = await cli(['answer', requestLink.replace(/#key=.*$/, `#key=${other}`), 'secret']);
	assert.equal(a.code, 1);
	assert.match(a.err, /does not match its link/);
	const s = await cli(['status', inboxLink]);
	assert.match(s.out, /^state:\s+waiting$/m);
});
