// spool.test.mjs: a request body never reaches persistent disk. A web server
// may keep a large body in a temporary file before the program reads it
// (lighttpd above 64 KiB, nginx above client_body_buffer_size, mod_fcgid above
// FcgidMaxRequestInMem); a server-side create holds plaintext, and an unlinked
// temporary file is never overwritten. The shipped configurations keep bodies
// in memory or in a 0700 directory on a tmpfs (docs/SECURITY.md).
//
// For each server the harness starts (lighttpd with mod_cgi and with
// mod_fastcgi, Apache with mod_cgi and with mod_cgid, nginx with fcgiwrap),
// a server-side create of 200 KB (a valid secret) and one of 6 MiB (over the
// API's limit: refused, but the server has read it) are sent with their last
// bytes held back; once the server has read everything it was sent, every
// file the server's processes hold open (deleted ones included) is read, and
// one holding the plaintext must be on a tmpfs. After the response, the
// default spool directories (/var/tmp, /tmp) and the server's own directory
// must hold no file with the plaintext.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../lib/server.mjs';

const KINDS = (process.env.BURNLINK_SPOOL_SERVERS || 'lighttpd lighttpd-fastcgi apache apache-cgid nginx').split(/\s+/).filter(Boolean);
const HELD = 16;	// bytes of the body held back while the server's files are read

// The devices of the tmpfs mounts (st_dev of their files).
function tmpfsDevices() {
	const devs = new Set();
	for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
		const f = line.split(' ');
		const dash = f.indexOf('-');
		if (dash < 0 || f[dash + 1] !== 'tmpfs') continue;
		try {
			devs.add(fs.statSync(f[4]).dev);
		} catch {
			// not reachable from here
		}
	}
	return devs;
}

// The processes of a process group (the server, its workers and programs).
function groupPids(pgid) {
	const pids = [];
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(f[2]) === pgid) pids.push(Number(d));
		} catch {
			// gone
		}
	}
	return pids;
}

// Every regular file the group holds open that contains needle: [{ where, dev }].
function openFilesWith(pgid, needle) {
	const found = [];
	for (const pid of groupPids(pgid)) {
		let fds = [];
		try {
			fds = fs.readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		for (const fd of fds) {
			const p = `/proc/${pid}/fd/${fd}`;
			try {
				const st = fs.statSync(p);
				// only regular files: reading a pipe or socket would take its data
				if (!st.isFile() || st.size === 0 || st.size > 64 * 1024 * 1024) continue;
				if (fs.readFileSync(p).includes(needle))
					found.push({ where: `${pid}:${fd} -> ${fs.readlinkSync(p)}`, dev: st.dev });
			} catch {
				// closed meanwhile
			}
		}
	}
	return found;
}

// Regular files under dir (depth levels deep) changed since t0 that contain needle.
function filesWith(dir, needle, t0, depth) {
	const found = [];
	let entries = [];
	try {
		entries = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return found;
	}
	for (const e of entries) {
		const p = path.join(dir, e.name);
		try {
			if (e.isDirectory() && depth > 0) found.push(...filesWith(p, needle, t0, depth - 1));
			else if (e.isFile()) {
				const st = fs.statSync(p);
				if (st.mtimeMs >= t0 - 1000 && st.size <= 64 * 1024 * 1024 && fs.readFileSync(p).includes(needle)) found.push(p);
			}
		} catch {
			// removed meanwhile
		}
	}
	return found;
}

// The send and receive queues of the loopback TCP connection from port a to port b.
function queues(a, b) {
	const hex = (port) => port.toString(16).toUpperCase().padStart(4, '0');
	const q = { tx: -1, rx: -1 };
	for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
		const f = line.trim().split(/\s+/);
		if (f.length < 5) continue;
		const [txq, rxq] = f[4].split(':').map((x) => parseInt(x, 16));
		if (f[1].endsWith(`:${hex(a)}`) && f[2].endsWith(`:${hex(b)}`)) q.tx = txq;
		if (f[1].endsWith(`:${hex(b)}`) && f[2].endsWith(`:${hex(a)}`)) q.rx = rxq;
	}
	return q;
}

// Sends a create whose last HELD bytes wait until check() has run, once the
// server has read all the rest (nothing left in either queue) or 10 s passed.
function createHeld(srv, body, check) {
	return new Promise((resolve, reject) => {
		const sock = net.connect(srv.port, srv.host);
		const chunks = [];
		sock.on('data', (c) => chunks.push(c));
		sock.on('error', reject);
		sock.on('end', () => {
			sock.end();
			const text = Buffer.concat(chunks).toString('latin1');
			resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]), text });
		});
		sock.on('connect', () => {
			sock.write(`POST /api/secrets HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\nContent-Type: application/json\r\n` +
				`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
			sock.write(body.subarray(0, body.length - HELD), async () => {
				const t0 = Date.now();
				for (;;) {
					const q = queues(sock.localPort, srv.port);
					if ((q.tx === 0 && q.rx === 0) || Date.now() - t0 > 10000) break;
					await new Promise((r) => setTimeout(r, 20));
				}
				try {
					check();
				} catch (e) {
					sock.destroy();
					reject(e);
					return;
				}
				// not end(): nginx takes a half-closed connection for an abort
				sock.write(body.subarray(body.length - HELD));
			});
		});
	});
}

for (const kind of KINDS) {
	describe(`${kind}: request bodies stay off persistent disk`, () => {
		let srv;
		const tmpfs = tmpfsDevices();
		before(async () => {
			const saved = process.env.BURNLINK_APACHE_CGI;
			if (kind === 'apache-cgid') process.env.BURNLINK_APACHE_CGI = 'cgid';
			try {
				srv = await startServer({ server: kind === 'apache-cgid' ? 'apache' : kind });
			} finally {
				if (saved === undefined) delete process.env.BURNLINK_APACHE_CGI;
				else process.env.BURNLINK_APACHE_CGI = saved;
			}
		});
		after(async () => { if (srv) await srv.stop(); });

		for (const [label, size, status] of [['200 KB', 200 * 1000, 200], ['6 MiB', 6 * 1024 * 1024, 413]]) {
			test(`a server-side create of ${label}: its plaintext is in no file on disk, during or after the request`, async () => {
				const t0 = Date.now();
				const marker = `spool-marker-${crypto.randomBytes(12).toString('hex')}`;
				const head = `{"text":"${marker} `;
				const body = Buffer.from(head + 'x'.repeat(size - head.length - 2) + '"}');
				let during = [];
				const res = await createHeld(srv, body, () => { during = openFilesWith(srv.pid, marker); });
				assert.equal(res.status, status, res.text.slice(0, 300));
				const onDisk = during.filter((f) => !tmpfs.has(f.dev)).map((f) => f.where);
				assert.deepEqual(onDisk, [], 'the body was in a file on persistent disk while the request ran');
				const after = openFilesWith(srv.pid, marker).filter((f) => !tmpfs.has(f.dev)).map((f) => f.where);
				assert.deepEqual(after, [], 'a file on persistent disk with the body is still open');
				const left = [...filesWith('/var/tmp', marker, t0, 0), ...filesWith(os.tmpdir(), marker, t0, 0),
					...filesWith(srv.dir, marker, t0, 4)];
				assert.deepEqual(left, [], 'a file with the body was left behind');
			});
		}
	});
}
