// server.mjs: lighttpd with the programs as FastCGI responders (mod_fastcgi),
// for the tests of this directory. One responder per program unless said
// otherwise, so concurrent requests wait on its socket and are answered in
// batches (group commit, lib/fcgi.c).

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(ROOT, process.env.BURNLINK_BIN || 'cgi-bin');
const PROGRAMS = ['create', 'metadata', 'retrieve', 'delete'];

function freePort() {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.once('error', reject);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

function lighttpd() {
	for (const d of ['/usr/sbin', '/usr/bin', '/usr/local/sbin']) {
		if (fs.existsSync(path.join(d, 'lighttpd'))) return path.join(d, 'lighttpd');
	}
	throw new Error('lighttpd is not installed');
}

// Starts lighttpd in the foreground on a free loopback port with the
// configuration conf(port) written to DIR/lighttpd.conf, and waits for its
// first answer (DIR/www/robots.txt). The port is found free, then let go:
// another process may bind it before lighttpd does, which then exits; it is
// started again on another port (5 tries). The wait ends at that answer or at
// lighttpd's exit (60 s: a bound only a server that never comes up reaches).
// Returns { port, base, server } (server: the detached process; kill -pid).
export async function startLighttpd(dir, conf) {
	for (let attempt = 1; ; attempt++) {
		const port = await freePort();
		const base = `http://127.0.0.1:${port}`;
		fs.writeFileSync(path.join(dir, 'lighttpd.conf'), conf(port));
		const server = spawn(lighttpd(), ['-D', '-f', path.join(dir, 'lighttpd.conf')], { stdio: 'ignore', detached: true });
		const exited = new Promise((r) => server.once('exit', () => r('exited')));
		const t0 = Date.now();
		let state;
		for (;;) {
			state = await Promise.race([exited, fetch(`${base}/robots.txt`, { signal: AbortSignal.timeout(2000) })
				.then((r) => r.arrayBuffer()).then(() => 'up', () => 'down')]);
			if (state !== 'down' || Date.now() - t0 > 60000) break;
			await Promise.race([exited, new Promise((r) => setTimeout(r, 20))]);
		}
		if (state === 'up' && server.exitCode === null && server.signalCode === null) return { port, base, server };
		try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ }
		if (state !== 'exited' || attempt >= 5) throw new Error(`lighttpd did not start (${state}, port ${port}); see ${dir}/log/error.log`);
	}
}

// Starts lighttpd; dataDir (default: a new directory) holds burnlink.db.
// selfWork: the responders do the cron jobs' due work themselves (lib/work.c;
// cron/cleanup and cron/notify are copied beside the programs, as bin/ holds
// them in an installed tree), else BURNLINK_SELF_WORK=off. env: more settings.
// Returns { base, dir, dataDir, api, stop }.
export async function startFastcgi({ dataDir, procs = 1, selfWork = false, env = {} } = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-fastcgi-'));
	fs.chmodSync(dir, 0o755);
	dataDir = dataDir || path.join(dir, 'data');
	const binDir = path.join(dir, 'bin');
	for (const d of [dataDir, binDir, path.join(dir, 'run'), path.join(dir, 'log'), path.join(dir, 'www')]) {
		fs.mkdirSync(d, { recursive: true });
	}
	for (const p of PROGRAMS) fs.copyFileSync(path.join(BIN, p), path.join(binDir, p));
	for (const p of PROGRAMS) fs.chmodSync(path.join(binDir, p), 0o755);
	if (selfWork) {
		for (const p of ['cleanup', 'notify']) {
			fs.copyFileSync(path.join(BIN, '..', 'cron', p), path.join(binDir, p));
			fs.chmodSync(path.join(binDir, p), 0o755);
		}
	}
	const settings = { BURNLINK_SELF_WORK: selfWork ? 'on' : 'off', ...env };
	fs.writeFileSync(path.join(dir, 'www', 'robots.txt'), 'ok\n');
	const asRoot = process.getuid && process.getuid() === 0;
	let user = '';
	if (asRoot) {
		try {
			execFileSync('id', ['-u', 'www-data'], { stdio: 'ignore' });
			user = 'www-data';
		} catch { /* run as root */ }
	}
	if (user) {
		for (const d of [dataDir, path.join(dir, 'run'), path.join(dir, 'log')]) execFileSync('chown', ['-R', `${user}:${user}`, d]);
	}
	const { base, server } = await startLighttpd(dir, (port) => {
		const fcgi = PROGRAMS.map((p) => `\t"/cgi-bin/${p}" => (( "socket" => "${dir}/run/${p}.sock", "bin-path" => "${binDir}/${p}", "max-procs" => ${procs}, "check-local" => "disable" )),`).join('\n');
		return `server.modules = ( "mod_access", "mod_alias", "mod_rewrite", "mod_setenv", "mod_fastcgi" )
server.bind = "127.0.0.1"
server.port = ${port}
server.document-root = "${dir}/www"
server.errorlog = "${dir}/log/error.log"
server.pid-file = "${dir}/run/lighttpd.pid"
server.max-request-size = 4100
${user ? `server.username = "${user}"\nserver.groupname = "${user}"` : ''}
setenv.add-environment = (
	"BURNLINK_DB" => "${dataDir}/burnlink.db",
	"BURNLINK_SECRET_FILE" => "${dataDir}/secret.key",
	"BURNLINK_SITE_URL" => "https://burnlink.test",
${Object.entries(settings).map(([k, v]) => `\t"${k}" => "${v}",`).join('\n')}
)
$HTTP["request-method"] == "POST" {
	url.rewrite-once = ( "^/api/secrets$" => "/cgi-bin/create", "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/retrieve/$1" )
}
else $HTTP["request-method"] == "DELETE" {
	url.rewrite-once = ( "^/api/secrets$" => "/cgi-bin/create", "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/delete/$1" )
}
else {
	url.rewrite-once = ( "^/api/secrets$" => "/cgi-bin/create", "^/api/secrets/([A-Za-z0-9_-]+)$" => "/cgi-bin/metadata/$1" )
}
fastcgi.server = (
${fcgi}
)
`;
	});

	async function api(method, p, json) {
		const init = { method, headers: {} };
		if (json !== undefined) {
			init.body = typeof json === 'string' ? json : JSON.stringify(json);
			init.headers['Content-Type'] = 'application/json';
		}
		const res = await fetch(base + p, init);
		const text = await res.text();
		let body = null;
		try { body = JSON.parse(text); } catch { /* not JSON */ }
		return { status: res.status, headers: res.headers, body, text };
	}

	async function stop() {
		try {
			process.kill(-server.pid, 'SIGTERM');
		} catch { /* gone */ }
		await new Promise((r) => { server.once('exit', r); setTimeout(r, 3000).unref(); });
		if (!process.env.BURNLINK_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
	}

	return { base, dir, dataDir, api, stop };
}
