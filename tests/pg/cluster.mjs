// cluster.mjs: a throwaway PostgreSQL cluster for the tests and the benchmark:
// initdb and pg_ctl in a temporary directory, listening only on a unix socket
// in that directory, trust authentication, torn down afterwards.
//
//   import { newCluster } from './cluster.mjs';
//   const pg = newCluster();          // initdb + start (stopped and removed on exit)
//   const db = pg.createDatabase();   // a fresh database owned by role burnlink
//   pg.conninfo(db)                   // postgresql://burnlink@/<db>?host=<socket dir>
//   pg.sql(db, 'SELECT 1')            // psql as the superuser, unaligned output
//   pg.restart(); pg.stop();
//
// Replication (tests/pg/failover.test.mjs): a primary listening on TCP and a
// streaming standby of it, the test playing the failover manager:
//   const primary = newCluster({ tcpPort: p1 });
//   const standby = newStandby(primary, { tcpPort: p2 });  // pg_basebackup -R, started
//   primary.replicateSynchronously();   // waits until the standby is "sync"
//   primary.kill();                     // SIGKILL the postmaster and every backend
//   standby.promote();                  // pg_ctl promote -w: read-write now
//
// From the shell (tests/run.sh, bench/run.sh):
//   node tests/pg/cluster.mjs start DIR   -> creates and starts a cluster in DIR
//   node tests/pg/cluster.mjs stop DIR    -> stops it and removes DIR
//
// initdb refuses to run as root: as root, the server runs as the postgres user
// (Debian's postgresql package creates it) and DIR is given to that user. The
// directory is world-traversable so that a web server's user reaches the socket.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROLE = 'burnlink';	// the role the programs connect as in the tests (owns each database)

// The directory of initdb, pg_ctl and postgres.
export function binDir() {
	try {
		const d = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
		if (fs.existsSync(path.join(d, 'initdb'))) return d;
	} catch { /* fall through */ }
	const root = '/usr/lib/postgresql';
	if (fs.existsSync(root)) {
		const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions.length) return path.join(root, versions[0], 'bin');
	}
	throw new Error('cluster.mjs: initdb not found (run: sh scripts/deps.sh pg)');
}

export const available = (() => { try { binDir(); return true; } catch { return false; } })();

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

// Runs a PostgreSQL server program as the cluster's owner.
function asOwner(dir, prog, args, opts = {}) {
	const bin = path.join(binDir(), prog);
	const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
	const r = spawnSync(cmd, argv, { cwd: dir, encoding: 'utf8', ...opts });
	if (r.status !== 0)
		throw new Error(`cluster.mjs: ${prog} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
	return r.stdout;
}

export function socketDir(dir) {
	return path.join(dir, 'sock');
}

// The port of the cluster (also in the socket's name): 5432 unless it listens on TCP.
export function portOf(dir) {
	try {
		return Number(fs.readFileSync(path.join(dir, 'port'), 'utf8'));
	} catch {
		return 5432;
	}
}

// The conninfo of database db for role user, as BURNLINK_DB takes it.
export function conninfo(dir, db, user = ROLE) {
	const port = portOf(dir) === 5432 ? '' : `&port=${portOf(dir)}`;
	return `postgresql://${user}@/${db}?host=${encodeURIComponent(socketDir(dir))}${port}`;
}

// Runs SQL through psql as the superuser; returns stdout (unaligned, tuples only).
export function sql(dir, db, q, { user = 'postgres' } = {}) {
	return execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', socketDir(dir),
		'-p', String(portOf(dir)), '-U', user, '-d', db, '-c', q], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Creates the cluster in dir (which must be empty or missing) and starts it;
// with tcpPort it also listens on 127.0.0.1 at that port.
export function initCluster(dir, { tcpPort } = {}) {
	fs.mkdirSync(dir, { recursive: true });
	fs.mkdirSync(socketDir(dir));
	if (asRoot) {
		const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
		const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
		fs.chownSync(dir, uid, gid);
		fs.chownSync(socketDir(dir), uid, gid);
	}
	fs.chmodSync(dir, 0o755);
	fs.chmodSync(socketDir(dir), 0o755);
	asOwner(dir, 'initdb', ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust',
		'-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
	// A test cluster: no fsync (a clean restart loses nothing; only a power cut would).
	if (tcpPort) fs.writeFileSync(path.join(dir, 'port'), String(tcpPort));
	fs.appendFileSync(path.join(dir, 'data', 'postgresql.conf'), [
		tcpPort ? `listen_addresses = '127.0.0.1'\nport = ${tcpPort}` : "listen_addresses = ''",
		`unix_socket_directories = '${socketDir(dir)}'`,
		'max_connections = 300',
		'shared_buffers = 32MB',
		'fsync = off',
		'full_page_writes = off',
		'synchronous_commit = on',
		'log_min_messages = warning',
		'',
	].join('\n'));
	startCluster(dir);
	sql(dir, 'postgres', `CREATE ROLE ${ROLE} LOGIN`);
}

export function startCluster(dir) {
	try {
		asOwner(dir, 'pg_ctl', ['-D', path.join(dir, 'data'), '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
	} catch (e) {
		// pg_ctl says only "could not start server": the reason is in the log
		let log = '';
		try { log = fs.readFileSync(path.join(dir, 'server.log'), 'utf8').split('\n').slice(-20).join('\n'); } catch { /* none */ }
		e.message += `\nserver.log:\n${log}`;
		e.portTaken = /could not bind|already in use|could not create any TCP\/IP sockets/i.test(log);
		throw e;
	}
}

// A TCP port found free by binding port 0 and letting it go.
function freePort() {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.unref();
		s.once('error', reject);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

// make(port) on a port found free, e.g. (p) => newCluster({ tcpPort: p }); the
// port may be taken by another process before the server binds it, which then
// does not start: made again on another port (5 tries). avoid: ports not to use.
export async function onFreePort(make, avoid = []) {
	for (let attempt = 1; ; attempt++) {
		let port;
		do port = await freePort(); while (avoid.includes(port));
		try {
			return { port, value: make(port) };
		} catch (e) {
			if (!e.portTaken || attempt >= 5) throw e;
		}
	}
}

// Stops the server: mode 'fast' (clients disconnected, clean shutdown) or 'immediate' (a crash).
export function stopCluster(dir, mode = 'fast') {
	asOwner(dir, 'pg_ctl', ['-D', path.join(dir, 'data'), '-w', '-t', '60', '-m', mode, 'stop']);
}

export function running(dir) {
	const r = spawnSync(path.join(binDir(), 'pg_isready'), ['-h', socketDir(dir), '-p', String(portOf(dir)), '-q']);
	return r.status === 0;
}

// SIGKILLs the server of dir and every process it started: a crash of the
// host as the clients see it (their connections closed, nothing shut down).
export function killCluster(dir) {
	const pid = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
	const children = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
		} catch {
			return false;
		}
	}).map(Number);
	for (const p of [pid, ...children]) {
		try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
	}
	// Gone once nothing answers on the socket and the postmaster's process is no more.
	while (running(dir) || fs.existsSync(`/proc/${pid}/stat`) &&
	    !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')))
		pause(10);
}

// Ends recovery on the standby in dir and waits until it accepts writes.
export function promoteCluster(dir) {
	asOwner(dir, 'pg_ctl', ['-D', path.join(dir, 'data'), '-w', '-t', '60', 'promote']);
}

/*
 * Makes the standby(s) of the primary in dir synchronous (every commit waits
 * for one of them to flush its WAL: synchronous_commit = on) or, with
 * names '', asynchronous; waits until pg_stat_replication says so.
 */
export function setSynchronous(dir, names = '*') {
	sql(dir, 'postgres', `ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
	sql(dir, 'postgres', 'SELECT pg_reload_conf()');
	const want = names ? 'sync' : 'async';
	for (let i = 0; ; i++) {
		if (sql(dir, 'postgres', 'SELECT sync_state FROM pg_stat_replication').trim() === want) return;
		if (i > 3000) throw new Error(`cluster.mjs: the standby did not become ${want}`);
		pause(10);
	}
}

/*
 * A streaming standby of the primary in primaryDir (which listens on TCP) in
 * dir: pg_basebackup -R (primary_conninfo and standby.signal), then its own
 * port and socket; started, and streaming before this returns.
 */
export function initStandby(dir, primaryDir, { tcpPort }) {
	fs.mkdirSync(dir, { recursive: true });
	fs.mkdirSync(socketDir(dir));
	if (asRoot) {
		const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
		const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
		fs.chownSync(dir, uid, gid);
		fs.chownSync(socketDir(dir), uid, gid);
	}
	fs.chmodSync(dir, 0o755);
	fs.chmodSync(socketDir(dir), 0o755);
	asOwner(dir, 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(portOf(primaryDir)), '-U', 'postgres',
		'-D', path.join(dir, 'data'), '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
	fs.writeFileSync(path.join(dir, 'port'), String(tcpPort));
	// The primary's file, copied: the lines added here come later and win.
	fs.appendFileSync(path.join(dir, 'data', 'postgresql.conf'), [
		`port = ${tcpPort}`,
		`unix_socket_directories = '${socketDir(dir)}'`,
		'',
	].join('\n'));
	startCluster(dir);
	for (let i = 0; ; i++) {
		if (sql(primaryDir, 'postgres', 'SELECT count(*) FROM pg_stat_replication WHERE state = \'streaming\'').trim() !== '0') return;
		if (i > 3000) throw new Error('cluster.mjs: the standby does not stream');
		pause(10);
	}
}

// Blocks the (synchronous) helpers between two looks at a condition they wait on.
function pause(ms) {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let counter = 0;

// A fresh, empty database owned by the test role; returns its name.
export function createDatabase(dir, owner = ROLE) {
	const name = `t_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
	sql(dir, 'postgres', `CREATE DATABASE ${name} OWNER ${owner} TEMPLATE template0 STRATEGY file_copy`);
	return name;
}

const live = new Set();
let hooked = false;

/*
 * A cluster of the test process's own, in a new temporary directory, stopped
 * and removed when the process exits.
 */
export function newCluster(opts = {}) {
	const c = handle(fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-pg-')));
	initCluster(c.dir, opts);
	return c;
}

// A standby of primary (a cluster of newCluster({ tcpPort })), as newCluster() gives one.
export function newStandby(primary, { tcpPort }) {
	const c = handle(fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-pgstandby-')));
	initStandby(c.dir, primary.dir, { tcpPort });
	return c;
}

// The object of a cluster in dir, stopped and removed when the process exits.
function handle(dir) {
	const c = {
		dir,
		socket: socketDir(dir),
		conninfo: (db, user) => conninfo(dir, db, user),
		sql: (db, q, opts) => sql(dir, db, q, opts),
		createDatabase: (owner) => createDatabase(dir, owner),
		start: () => startCluster(dir),
		stop: (mode) => stopCluster(dir, mode),
		restart: (mode) => { stopCluster(dir, mode); startCluster(dir); },
		running: () => running(dir),
		kill: () => killCluster(dir),
		promote: () => promoteCluster(dir),
		replicateSynchronously: (names) => setSynchronous(dir, names),
		remove() {
			if (running(dir)) {
				try { stopCluster(dir, 'immediate'); } catch { /* gone */ }
			}
			fs.rmSync(dir, { recursive: true, force: true });
			live.delete(c);
		},
	};
	live.add(c);
	if (!hooked) {
		hooked = true;
		process.on('exit', () => { for (const x of live) x.remove(); });
	}
	return c;
}

// The command-line form, for shell scripts.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [cmd, dir] = process.argv.slice(2);
	if (cmd === 'start' && dir) {
		initCluster(path.resolve(dir));
	} else if (cmd === 'stop' && dir) {
		const d = path.resolve(dir);
		if (fs.existsSync(path.join(d, 'data', 'postmaster.pid'))) stopCluster(d, 'fast');
		fs.rmSync(d, { recursive: true, force: true });
	} else if (cmd === 'conninfo' && dir) {
		console.log(conninfo(path.resolve(dir), process.argv[4] ? process.argv[4] : createDatabase(path.resolve(dir))));
	} else {
		console.error('usage: node tests/pg/cluster.mjs start DIR | stop DIR | conninfo DIR [DB]');
		process.exit(2);
	}
}
