// docroot.test.mjs: a FastCGI responder resolves the document root and the
// data files' paths once (lib/config.c, check_exposed_once()) and again when
// one of them changes: a request whose DOCUMENT_ROOT holds the database is
// refused (503 CONFIG_INVALID) by a responder that answered another document
// root before, and the other one is answered again after.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newContext } from '../lib/cgi.mjs';
import { haveDyn, startResponder } from '../faults/fcgi.mjs';

test('one responder, the document root changing between requests: each answered for its own', { timeout: 60000 }, async (t) => {
	if (!haveDyn('metadata'))
		return t.skip('build/dyn is missing: make dyn');
	const ctx = newContext();
	const made = await ctx.createOk({ text: 'docroot' });
	const outside = path.join(ctx.dir, 'htdocs');
	fs.mkdirSync(outside);
	const rsp = await startResponder(t, 'metadata', ctx.dir, {});
	let started = false;
	const ask = async (root) => {
		const env = { BURNLINK_DB: ctx.db, DOCUMENT_ROOT: root };
		const sent = await rsp.send({ method: 'GET', key: made.receiptKey, env });
		if (!started) rsp.go();
		started = true;
		return sent.answer;
	};
	const ok = await ask(outside);
	assert.equal(ok.status, 200, ok.body?.toString());
	// the directory that holds the database, as a document root: refused
	const bad = await ask(path.dirname(ctx.db));
	assert.equal(bad.status, 503, bad.body?.toString());
	assert.equal(bad.json.code, 'CONFIG_INVALID');
	assert.match(rsp.stderr(), /the database \(.*\) lies under the document root/);
	// asked again: still refused; the first root: answered again
	assert.equal((await ask(path.dirname(ctx.db))).status, 503);
	assert.equal((await ask(outside)).status, 200);
	await rsp.stop();
});
