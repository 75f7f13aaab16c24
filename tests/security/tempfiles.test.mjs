// tempfiles.test.mjs: deleted content never passes through a temporary file
// (docs/SECURITY.md, "Deleted data"). Unless temp_store=MEMORY, SQLite keeps
// a statement journal that outgrows its memory (a savepoint of a FastCGI
// batch whose request frees a large secret's pages) in an etilqs_* file,
// created and unlinked at once: the ciphertext a last view, a burn or an
// expiry deletes then reaches the disk outside the database, where
// secure_delete cannot overwrite it.
//
// Every program runs under strace (-f: open, openat, openat2, creat), with
// SQLITE_TMPDIR and TMPDIR naming a fresh empty directory that inotify
// watches (fs.watch reports a file even when it is unlinked at once). The
// paths where SQLite may want temporary space, with ~1.5 MB secrets
// (server-side and client-side, text and a file): CGI creates and a CGI view;
// in FastCGI batches with other requests, last views (and a passphrase's
// flush), burns, creates into freed pages, and expiries found by metadata;
// a CGI burn and a CGI last view; cron/cleanup removing several expired ones.
// Nothing may appear in the watched directory, and no open may create
// (O_CREAT, O_TMPFILE, creat) a file other than the database, its -wal,
// -shm and -keys (the sealed content's keys), a FastCGI responder's -lock
// (the responders' write lock: empty, never written), the counters file (and its grown copy, -counters.new, renamed over
// it), the runs' records, cleanup's lock file and the data directory's deny-all
// .htaccess (no content). The database and the install
// secret are made first, unobserved (the first request also creates a
// rollback journal and a temporary name for the secret, before any content).
//
// The programs are the real ones (BURNLINK_BIN, default the static programs
// with their seccomp filter); the FastCGI responders run under
// tests/faults/fcgi_listen, which starts them once their batch is queued.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newContext, programPath, encryptItem, decryptItem, newKey, sqlite, sha256hex } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';

const SIZE = 750 * 1024;	// text and file each: ~1.5 MB of content per secret
const TRACED = 'open,openat,openat2,creat';

// strace works here (it may be missing, or ptrace refused in a container).
let straceOk = false;
before(() => {
	try {
		execFileSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${TRACED}`, 'true'], { stdio: 'ignore' });
		straceOk = true;
	} catch {
		straceOk = false;
	}
});

/*
 * One observed run: a fresh temporary directory (SQLITE_TMPDIR, TMPDIR)
 * under inotify, and a directory for strace's per-process output.
 */
function observe(t, name) {
	const base = fs.mkdtempSync(path.join(os.tmpdir(), `burnlink-temp-${name}-`));
	t.after(() => fs.rmSync(base, { recursive: true, force: true }));
	const tmp = path.join(base, 'tmp');
	const traces = path.join(base, 'strace');
	fs.mkdirSync(tmp, { mode: 0o700 });
	fs.mkdirSync(traces);
	const seen = new Set();
	let waiting = null;
	const watcher = fs.watch(tmp, (event, file) => {
		if (file === '.sync' && waiting) waiting();
		else seen.add(file);
	});
	t.after(() => watcher.close());
	if (!straceOk) t.diagnostic('strace cannot run here: only the temporary directory is watched');
	const wrap = straceOk ? ['strace', '-f', '-ff', '-qq', '-s', '4096', '-e', `trace=execve,${TRACED}`,
		'-o', path.join(traces, 't')] : [];
	// runCgi and runProgram (tests/lib/cgi.mjs) run every program under BURNLINK_WRAP.
	const saved = process.env.BURNLINK_WRAP;
	process.env.BURNLINK_WRAP = wrap.join(' ');
	t.after(() => {
		if (saved === undefined) delete process.env.BURNLINK_WRAP;
		else process.env.BURNLINK_WRAP = saved;
	});
	return {
		env: { SQLITE_TMPDIR: tmp, TMPDIR: tmp },
		wrap,
		// What was created: in the watched directory (inotify, in order, so
		// a file of ours seen last means every earlier event is in) and by
		// any traced open outside the expected files of the database dir.
		async created(dbDir) {
			const synced = new Promise((resolve) => { waiting = resolve; });
			fs.writeFileSync(path.join(tmp, '.sync'), '');
			await synced;
			const opens = [];
			let dbOpened = false;
			for (const f of straceOk ? fs.readdirSync(traces) : []) {
				const progs = [];
				for (const line of fs.readFileSync(path.join(traces, f), 'utf8').split('\n')) {
					const x = /^execve\("([^"]*)".* = 0$/.exec(line);
					if (x) progs.push(path.basename(x[1]));
					const m = /^(open|openat|openat2|creat)\((?:(AT_FDCWD|\d+), )?"((?:[^"\\]|\\.)*)"(.*)$/.exec(line);
					if (!m) continue;
					const file = path.resolve(m[3]);
					if (file === path.join(dbDir, 'burnlink.db')) dbOpened = true;
					if (m[1] !== 'creat' && !/O_CREAT|O_TMPFILE/.test(m[4])) continue;
					if ((m[2] && m[2] !== 'AT_FDCWD') || path.dirname(file) !== dbDir ||
					    !/^(burnlink(\.db(-wal|-shm|-keys|-lock)?|-counters(\.new)?|-cleanup\.lock|-(cleanup|notify)(\.[A-Za-z0-9]{6})?)|\.htaccess)$/.test(path.basename(file)))
						opens.push(`${progs.join(' > ')}: ${line}`);
				}
			}
			if (straceOk)
				assert.ok(dbOpened, `strace saw the programs open the database (${fs.readdirSync(traces).length} traces)`);
			return { watched: [...seen].sort(), opens };
		},
	};
}

// A fresh database and install secret, made before anything is observed
// (creating them is not the subject: no content exists yet).
async function fresh() {
	const ctx = newContext();
	await ctx.createOk({ text: 'first' });
	return ctx;
}

function check(what, got) {
	assert.deepEqual({ inTmpdir: got.watched, created: got.opens }, { inTmpdir: [], created: [] },
		`${what}: files created in SQLITE_TMPDIR (inotify) and outside the database's own (strace)`);
}

const big = (c) => crypto.randomBytes(SIZE / 2).toString('hex') + c;
const dataUrl = (b) => `data:application/octet-stream;base64,${b.toString('base64')}`;

// A ~1.5 MB server-side secret (text and a file); returns its create answer.
function serverSide(ctx, env, extra = {}) {
	return ctx.createOk({ text: big('s'), files: [{ filename: 'big.bin', data: dataUrl(crypto.randomBytes(SIZE)) }], ...extra }, { env });
}

// A ~1.5 MB client-side secret, with the key it was encrypted under.
async function clientSide(ctx, env, extra = {}) {
	const key = newKey();
	const s = await ctx.createOk({
		text: encryptItem(big('c'), key),
		files: [{ filename: encryptItem('big.bin', key), mimeType: encryptItem('application/octet-stream', key),
			data: encryptItem(crypto.randomBytes(SIZE), key) }],
		...extra,
	}, { env });
	return { ...s, key };
}

// The row of a secret: "state|text gone|attachments left".
function row(ctx, secretKey) {
	return sqlite(ctx.db, `SELECT state, text_ct IS NULL, (SELECT count(*) FROM attachments WHERE secret_id = id)
		FROM secrets WHERE secret_hash = x'${sha256hex(secretKey)}'`).trim();
}

const env = (ctx, o) => ({ BURNLINK_DB: ctx.db, ...o.env });

test('the last views of 1.5 MB secrets in a FastCGI batch create no temporary file', async (t) => {
	const ctx = await fresh();
	const o = observe(t, 'views');
	const e = env(ctx, o);
	const small = await ctx.createOk({ text: 'small', maxViews: 3 }, { env: e });
	const sA = await serverSide(ctx, e, { maxViews: 2 });
	const cA = await clientSide(ctx, e);
	const locked = await ctx.createOk({ text: 'locked', passphrase: 'open sesame', maxViews: 2 }, { env: e });
	const sB = await serverSide(ctx, e);
	// A first view, by CGI: the batch then takes sA's last.
	const first = await ctx.retrieve(sA.secretKey, undefined, { env: e });
	assert.equal(first.status, 200, first.body.toString());

	const rsp = await startResponder(t, 'retrieve', ctx.dir, o.env,
		{ exe: programPath('retrieve'), wrap: o.wrap });
	const sent = [];
	for (const [key, body] of [[small.secretKey, {}], [sA.secretKey, {}], [cA.secretKey, {}],
		['AAAAAAAAAAAAAAAAAAAAAA', {}], [locked.secretKey, { passphrase: 'open sesame' }],
		[small.secretKey, {}], [sB.secretKey, {}]])
		sent.push(await rsp.send({ key, body, env: { BURNLINK_DB: ctx.db } }));
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	await rsp.stop();

	assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 404, 200, 200, 200], rsp.stderr());
	assert.equal(answers[1].json.viewsRemaining, 0);
	assert.equal(decryptItem(answers[1].json.text, sA.key).toString().slice(-1), 's');
	assert.equal(decryptItem(answers[2].json.text, cA.key).toString().slice(-1), 'c');
	assert.equal(decryptItem(answers[6].json.files[0].data, sB.key).length, SIZE);
	for (const s of [sA, cA, sB])
		assert.equal(row(ctx, s.secretKey), '3|1|0', 'exhausted, content deleted');
	check('creates, a CGI view and a batch of last views', await o.created(ctx.dir));
});

test('burns of 1.5 MB secrets in a FastCGI batch and by CGI create no temporary file', async (t) => {
	const ctx = await fresh();
	const o = observe(t, 'burns');
	const e = env(ctx, o);
	const small = await ctx.createOk({ text: 'small', maxViews: 3 }, { env: e });
	const s1 = await serverSide(ctx, e, { maxViews: 5 });
	const c1 = await clientSide(ctx, e, { maxViews: 5 });
	const s2 = await serverSide(ctx, e);
	const c2 = await clientSide(ctx, e);

	const rsp = await startResponder(t, 'delete', ctx.dir, o.env,
		{ exe: programPath('delete'), wrap: o.wrap });
	const sent = [];
	for (const key of [small.secretKey, s1.receiptKey, 'AAAAAAAAAAAAAAAAAAAAAA', c1.secretKey])
		sent.push(await rsp.send({ method: 'DELETE', key, env: { BURNLINK_DB: ctx.db } }));
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	await rsp.stop();
	assert.deepEqual(answers.map((a) => a.status), [200, 200, 404, 200], rsp.stderr());

	// By CGI: a burn and a last view.
	const burn = await ctx.burn(s2.secretKey, undefined, { env: e });
	assert.equal(burn.status, 200, burn.body.toString());
	const last = await ctx.retrieve(c2.secretKey, undefined, { env: e });
	assert.equal(last.status, 200, last.body.toString());
	assert.equal(decryptItem(last.json.text, c2.key).toString().slice(-1), 'c');
	for (const s of [s1, c1, s2])
		assert.equal(row(ctx, s.secretKey), '2|1|0', 'burned, content deleted');
	assert.equal(row(ctx, c2.secretKey), '3|1|0');

	// Creates in a batch, into the pages those deletions freed.
	const crs = await startResponder(t, 'create', ctx.dir, o.env,
		{ exe: programPath('create'), wrap: o.wrap });
	const key = newKey();
	const bodies = [
		{ text: big('s'), files: [{ filename: 'big.bin', data: dataUrl(crypto.randomBytes(SIZE)) }] },
		{ text: 'small' },
		{ text: encryptItem(big('c'), key), files: [{ filename: encryptItem('big.bin', key),
			data: encryptItem(crypto.randomBytes(SIZE), key) }] },
	];
	const made = [];
	for (const body of bodies)
		made.push(await crs.send({ body, env: { BURNLINK_DB: ctx.db }, connected: true }));
	crs.go();
	const created = await Promise.all(made.map((s) => s.answer));
	await crs.stop();
	assert.deepEqual(created.map((a) => a.status), [200, 200, 200], crs.stderr());
	check('a batch of burns, a CGI burn, a CGI last view and a batch of creates', await o.created(ctx.dir));
});

test('expiry in a FastCGI batch and cleanup of several expired 1.5 MB secrets create no temporary file', async (t) => {
	const ctx = await fresh();
	const o = observe(t, 'expiry');
	const e = env(ctx, o);
	const gone = [];
	for (let i = 0; i < 3; i++) {
		gone.push(await serverSide(ctx, e, { maxViews: 3 }));
		gone.push(await clientSide(ctx, e, { maxViews: 3 }));
	}
	const kept = await serverSide(ctx, e);
	for (const s of gone) ctx.age(s.secretKey);

	// The first request after expiry deletes the content: two in a metadata batch.
	const rsp = await startResponder(t, 'metadata', ctx.dir, o.env,
		{ exe: programPath('metadata'), wrap: o.wrap });
	const sent = [];
	for (const key of [kept.secretKey, gone[0].secretKey, gone[1].receiptKey])
		sent.push(await rsp.send({ method: 'GET', key, env: { BURNLINK_DB: ctx.db } }));
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	await rsp.stop();
	assert.deepEqual(answers.map((a) => a.status), [200, 410, 200], rsp.stderr());
	assert.equal(answers[2].json.state, 'expired');
	for (const s of gone.slice(0, 2)) assert.equal(row(ctx, s.secretKey), '1|1|0', 'expired, content deleted');

	// cron/cleanup removes the rows whose expiry passed, the other four with their content.
	const r = await ctx.cleanup(e);
	assert.equal(r.code, 0, r.stderr);
	for (const s of gone) assert.equal(row(ctx, s.secretKey), '', 'the expired rows are removed');
	assert.equal(row(ctx, kept.secretKey), '0|0|1', 'the live one stays');
	assert.equal(sqlite(ctx.db, 'SELECT count(*) FROM attachments').trim(), '1', 'only its file is left');
	check('a batch of expiries and cleanup', await o.created(ctx.dir));
});
