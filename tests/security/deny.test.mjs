// deny.test.mjs: no file the programs write is served, even when it lies in
// the document root (a data directory misplaced there, a copy left behind):
// the database and its -wal, -shm and -journal files, the rate-limit counters
// (x.db -> x-counters, x -> x-counters), the install secret and the temporary
// name it is written under (secret.key.XXXXXX, lib/config.c), the setup
// file the operator uploads (burnlink-setup). (A database
// named without .db, BURNLINK_DB=/x/data, cannot be told from a page by its
// name: only its -wal, -shm, -journal and -counters files are.) Through
// lighttpd, Apache (vhost and .htaccess) and nginx, each with a document root
// of its own that holds such files with a marker inside; a plain file beside
// them is served (the root is the one in use) and a secret key that ends like
// such a name still reaches the API.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, rawRequest, ROOT } from '../lib/server.mjs';

const SERVERS = (process.env.BURNLINK_SECURITY_SERVERS || 'lighttpd apache htaccess nginx').split(/\s+/).filter(Boolean);

// What the programs create beside a database called burnlink.db (or data).
const DATA_FILES = [
	'burnlink.db', 'burnlink.db-wal', 'burnlink.db-shm', 'burnlink.db-journal', 'burnlink-counters',
	'data-wal', 'data-shm', 'data-journal', 'data-counters',
	'secret.key', 'secret.key.a1B2c3', 'secret.key.XyZ901',
	'sub/dir/burnlink.db-wal', 'sub/dir/secret.key.Qw3rTy',
	'burnlink-cleanup', 'burnlink-cleanup.a1B2c3', 'burnlink.conf',
	'burnlink-counters.new', 'burnlink-cleanup.lock', 'data-counters.new',
	'burnlink-setup',	// the setup code the operator uploads (docs/ADMIN.md)
];

for (const kind of SERVERS) {
	describe(`${kind}: the programs' files are never served`, () => {
		let srv, root;
		const marker = `data-marker-${crypto.randomBytes(9).toString('hex')}`;
		before(async () => {
			if (kind !== 'htaccess') {
				root = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-docroot-'));
				fs.cpSync(path.join(ROOT, 'www'), root, { recursive: true });
				fs.chmodSync(root, 0o755);
			}
			srv = await startServer({ server: kind, ...(root ? { wwwDir: root } : {}) });
			for (const f of [...DATA_FILES, 'plain-file.txt']) {
				const p = path.join(srv.docroot, f);
				fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o755 });
				fs.writeFileSync(p, `${marker} ${f}\n`, { mode: 0o644 });
			}
			for (const d of ['sub', 'sub/dir']) fs.chmodSync(path.join(srv.docroot, d), 0o755);
		});
		after(async () => {
			if (srv) await srv.stop();
			if (root) fs.rmSync(root, { recursive: true, force: true });
		});

		test('a plain file beside them is served (the test uses this document root)', async () => {
			const r = await rawRequest(srv.base, { path: '/plain-file.txt' });
			assert.equal(r.status, 200);
			assert.ok(r.text.includes(marker));
		});

		for (const f of DATA_FILES) {
			test(`/${f} is refused`, async () => {
				for (const p of [`/${f}`, `/${f}?x=1`]) {
					const r = await rawRequest(srv.base, { path: p });
					assert.ok([403, 404].includes(r.status), `${p}: ${r.status}`);
					assert.ok(!r.text.includes(marker), `${p}: the file's content was served`);
				}
			});
		}

		test('a secret key ending in -wal, -shm, -journal or -counters still reaches the API', async () => {
			for (const end of ['-wal', '-shm', '-journal', '-counters']) {
				const key = 'A'.repeat(22 - end.length) + end;
				const r = await rawRequest(srv.base, { path: `/api/secrets/${key}` });
				assert.equal(r.status, 404, `${key}: ${r.status}`);
				assert.equal(r.json().code, 'NOT_FOUND', key);
			}
		});
	});
}

// The guard the programs write into their data directory (lib/config.c,
// bl_config_guard): a data directory that a host put under the document root
// is refused whole by Apache, whatever its files are called (a backup copy
// burnlink.db.bak, notes, anything).
if (SERVERS.includes('htaccess')) {
	describe('htaccess: a data directory under the document root is refused whatever its files are called', () => {
		let srv, data;
		const marker = `guard-marker-${crypto.randomBytes(9).toString('hex')}`;
		const NAMES = ['burnlink.db.bak', 'burnlink.db', 'copy-of-db.sqlite', 'notes.txt', 'index.html', 'x.json'];
		before(async () => {
			srv = await startServer({ server: 'htaccess' });
			data = path.join(srv.docroot, 'burnlink-data');
			fs.mkdirSync(data, { mode: 0o777 });
			fs.chmodSync(data, 0o777);
			// The programs' first request makes the install secret and the guard there.
			const { runCgi } = await import('../lib/cgi.mjs');
			const res = await runCgi('create', { body: { text: 'x' }, env: { BURNLINK_DB: path.join(data, 'burnlink.db') } });
			assert.equal(res.status, 200, res.body.toString());
			for (const f of NAMES) fs.writeFileSync(path.join(data, f), `${marker} ${f}\n`, { mode: 0o644 });
		});
		after(async () => { if (srv) await srv.stop(); });

		test('the programs wrote the guard', () => {
			assert.match(fs.readFileSync(path.join(data, '.htaccess'), 'utf8'), /^Require all denied$/m);
		});
		for (const f of [...NAMES, '.htaccess', '']) {
			test(`/burnlink-data/${f} is refused`, async () => {
				const r = await rawRequest(srv.base, { path: `/burnlink-data/${f}` });
				assert.equal(r.status, 403, `${f}: ${r.status}`);
				assert.ok(!r.text.includes(marker), 'the content was not served');
			});
		}
	});
}
