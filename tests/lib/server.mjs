// server.mjs: start a real web server (lighttpd or Apache) over the burnlink tree
// for a test, on a free loopback port, from configuration generated into a
// temporary directory, with a fresh database; stop it (and everything it
// started) afterwards, also when the test process exits or is interrupted.
//
//   import { startServer } from '../lib/server.mjs';
//   const srv = await startServer({ server: 'lighttpd' });  // or 'apache', 'htaccess'
//   const res = await fetch(srv.base + '/api/secrets', { method: 'POST', ... });
//   srv.accessLog();  // the access log text, read now
//   await srv.stop();
//
// Options:
//   server  'lighttpd' | 'apache' | 'htaccess' (Apache, AllowOverride All over a
//           tree laid out by scripts/install.sh, serving through its .htaccess
//           files alone) | 'nginx' (with fcgiwrap) | 'lighttpd-fastcgi' (the
//           same lighttpd configuration, with the four secret programs run as
//           FastCGI responders by mod_fastcgi, one per program, so concurrent
//           requests are answered in batches). Default: $BURNLINK_SERVER,
//           else 'lighttpd'.
//   env     extra environment variables for the programs (e.g.
//           BURNLINK_TRUSTED_PROXIES, BURNLINK_SITE_URL).
//   binDir  the directory holding the programs (create, metadata, retrieve,
//           delete), or a build tree holding cgi-bin/ (build/asan). Relative to
//           the repository. Default: $BURNLINK_BIN, else the repository's cgi-bin/.
//   wwwDir  the document root. Default: the repository's www/.
//   (Apache runs the prefork MPM with mod_cgi; BURNLINK_APACHE_CGI=cgid in the
//   environment selects the event MPM with mod_cgid instead.)
//   tree    with 'htaccess': serve this tree (laid out like `make install`, e.g.
//           an unpacked `make dist` tarball) instead of installing a fresh one.
//   apacheWithout  with 'apache' or 'htaccess': modules whose LoadModule line
//           is left out (['headers']: a host without mod_headers).
//   lighttpdExtra  lighttpd: configuration text appended to the site's.
//   apacheExtra    Apache: configuration text appended to httpd.conf (server
//           level: it applies to the site too); @APACHE_MODDIR@ is the modules' directory.
//   db      an explicit database path (its directory must be writable by the
//           server's user; see `user`). Not used with 'htaccess', whose
//           database is the installed tree's var/burnlink.db.
//
// Returned: { base, port, host, server, dir, db, docroot, cgiBin, user, pid,
//             errorLogPath, accessLogPath, accessLog(), errorLog(), stop(),
//             dbUrl }: dbUrl is the BURNLINK_DB the programs get (db, or a
//             PostgreSQL conninfo under BURNLINK_TEST_PG).
// stop() resolves once the whole process group is gone (the port is closed).
// When the tests run as root the server (and so the programs) run as www-data,
// and the database directory is given to that user.
//
// Every response from a server started here (or registered with
// checkResponsesOf()) is checked against docs/openapi.yaml
// (tests/lib/openapi.mjs): fetch() is wrapped once, on import, so that a
// request to such a server rejects when its answer is not one the description
// allows; rawRequest() checks its answers the same way ({ noSpecCheck: true }
// skips one). Requests to any other address go through unchanged.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResponse } from './openapi.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// BURNLINK_TEST_PG (tests/run.sh pg): each server on a fresh PostgreSQL database.
const pgHook = process.env.BURNLINK_TEST_PG ? await import('../pg/hook.mjs') : null;

const KINDS = new Set(['lighttpd', 'lighttpd-fastcgi', 'apache', 'htaccess', 'nginx']);
const PROGRAMS = ['create', 'metadata', 'retrieve', 'delete'];
// How long a server may take to answer its first request: a bound for a server
// that never comes up, reached only by one (the wait ends at the first answer),
// so as long as a loaded machine may need (the CGI runner's limit).
const START_TIMEOUT_MS = 60000;
// A free port is found by binding port 0 and letting it go; another process
// (a parallel test file, another program) may bind it before the server does.
// The server then exits saying so, and is started again on another port.
const START_ATTEMPTS = 5;
const PORT_TAKEN_RE = /Address already in use|could not bind|still could not bind/i;
const STOP_TIMEOUT_MS = 5000;
// Passed through to the programs when set, so the sanitizer build can be steered.
const PASS_THROUGH = ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TZ'];

const live = new Set();
// The origins whose responses are checked against docs/openapi.yaml, each
// with the path the site is served under ('' at the root, '/burnlink' for a
// site under a sub-path: the API's paths are checked without it).
const checkedOrigins = new Map();
const tmpDirs = new Set();
let hooksInstalled = false;

// A free TCP port on the loopback interface (bound, then released).
export function freePort(host = '127.0.0.1') {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.unref();
		s.once('error', reject);
		s.listen(0, host, () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

// Checks the responses of the server at base (its origin) against
// docs/openapi.yaml from now on: for a server not started here (an external
// one under test). startServer() does this itself.
export function checkResponsesOf(base) {
	const u = new URL(base);
	checkedOrigins.set(u.origin, u.pathname.replace(/\/+$/, ''));
}

// The API path of a URL path on a checked origin (its sub-path taken off).
function apiPath(origin, p) {
	const prefix = checkedOrigins.get(origin) || '';
	return prefix && p.startsWith(prefix + '/') ? p.slice(prefix.length) : p;
}

// fetch(), with the answers of the servers above checked before they are
// returned. The body is read from a clone: the caller reads it as usual.
// Each request to them goes on a connection of its own (Connection: close,
// unless the caller chose): Node's fetch may send a request on a kept
// connection the server is closing that moment (nodejs/undici#3492), which
// fails it with "other side closed"; Apache's event MPM closes idle
// connections early when it is busy.
const plainFetch = globalThis.fetch;
globalThis.fetch = async function checkedFetch(input, init = {}) {
	const url = new URL(input instanceof Request ? input.url : String(input));
	if (!checkedOrigins.has(url.origin)) return plainFetch(input, init);
	const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
	if (!headers.has('connection')) headers.set('connection', 'close');
	const res = await plainFetch(input, { ...init, headers });
	const method = (init.method || (input instanceof Request ? input.method : 'GET')).toUpperCase();
	const body = method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(await res.clone().arrayBuffer());
	checkResponse({ method, path: apiPath(url.origin, url.pathname), status: res.status, headers: res.headers, body });
	return res;
};

// One HTTP request sent exactly as given (no URL normalisation, so paths such as
// "/api/secrets/../x" reach the server unchanged), under base's path when it
// has one (a site under a sub-path). Resolves to
// { status, headers, body (Buffer), text, json() }; rejects when the answer is
// not one docs/openapi.yaml allows (unless noSpecCheck).
export function rawRequest(base, { method = 'GET', path: p = '/', headers = {}, body, noSpecCheck = false } = {}) {
	const u = new URL(base);
	const prefix = u.pathname.replace(/\/+$/, '');
	return new Promise((resolve, reject) => {
		const req = http.request({
			host: u.hostname, port: u.port, method, path: prefix + p, headers, agent: false,
		}, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const buf = Buffer.concat(chunks);
				if (!noSpecCheck && checkedOrigins.has(u.origin)) {
					try {
						checkResponse({ method, path: p, status: res.statusCode, headers: res.headers, body: buf });
					} catch (e) {
						reject(e);
						return;
					}
				}
				resolve({
					status: res.statusCode,
					headers: res.headers,
					rawHeaders: res.rawHeaders,
					body: buf,
					text: buf.toString('utf8'),
					json: () => JSON.parse(buf.toString('utf8')),
				});
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		req.setTimeout(30000, () => req.destroy(new Error(`${method} ${p}: timeout`)));
		if (body !== undefined) req.end(body); else req.end();
	});
}

function userExists(name) {
	try {
		execFileSync('id', ['-u', name], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

function idOf(name) {
	return {
		uid: Number(execFileSync('id', ['-u', name]).toString().trim()),
		gid: Number(execFileSync('id', ['-g', name]).toString().trim()),
	};
}

function readText(p) {
	try {
		return fs.readFileSync(p, 'utf8');
	} catch {
		return '';
	}
}

function killGroup(pgid, sig) {
	try {
		process.kill(-pgid, sig);
		return true;
	} catch {
		return false;
	}
}

// Whether any live (not zombie) process is left in the process group. A zombie
// holds no port or file; init reaps the orphaned ones in its own time.
export function processGroupAlive(pgid) {
	try {
		process.kill(-pgid, 0);
	} catch (e) {
		return e.code === 'EPERM';
	}
	if (!fs.existsSync('/proc/self/stat')) return true;
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		let stat;
		try {
			stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
		} catch {
			continue;
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses
		const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X') return true;
	}
	return false;
}

function installHooks() {
	if (hooksInstalled) return;
	hooksInstalled = true;
	process.on('exit', () => {
		for (const s of live) s.killNow();
		if (process.env.BURNLINK_KEEP_TMP) return;
		for (const d of tmpDirs) {
			try {
				fs.rmSync(d, { recursive: true, force: true });
			} catch {
				// best effort
			}
		}
	});
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(sig, () => {
			for (const s of live) s.killNow();
			process.kill(process.pid, sig);
		});
	}
}

function genconf(template, vars, out) {
	const text = execFileSync('sh', [path.join(ROOT, 'scripts/genconf.sh'), path.join(ROOT, 'conf', template)], {
		env: { PATH: process.env.PATH, ...vars },
		encoding: 'utf8',
	});
	fs.writeFileSync(out, text);
}

function findApacheModDir() {
	for (const d of ['/usr/lib/apache2/modules', '/usr/lib64/httpd/modules', '/usr/lib/httpd/modules', '/usr/libexec/apache2']) {
		if (fs.existsSync(path.join(d, 'mod_rewrite.so'))) return d;
	}
	throw new Error('server.mjs: Apache modules not found (is apache2 installed?)');
}

function findBinary(names) {
	for (const n of names) {
		for (const d of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/sbin']) {
			const p = path.join(d, n);
			if (fs.existsSync(p)) return p;
		}
	}
	throw new Error(`server.mjs: ${names[0]} not found (run: sh scripts/deps.sh test)`);
}

// Start one server; resolves once it answers HTTP.
export async function startServer(opts = {}) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startOnce(opts);
		} catch (e) {
			if (!e.portTaken || attempt >= START_ATTEMPTS) throw e;
		}
	}
}

async function startOnce(opts) {
	const kind = opts.server || process.env.BURNLINK_SERVER || 'lighttpd';
	if (!KINDS.has(kind)) throw new Error(`server.mjs: unknown server ${kind}`);
	installHooks();

	let binDir = path.resolve(ROOT, opts.binDir || process.env.BURNLINK_BIN || 'cgi-bin');
	// BURNLINK_BIN may name a build tree (build/asan, holding cgi-bin/) or the
	// program directory itself.
	if (fs.existsSync(path.join(binDir, 'cgi-bin', 'create'))) binDir = path.join(binDir, 'cgi-bin');
	for (const p of PROGRAMS) {
		if (!fs.existsSync(path.join(binDir, p))) {
			throw new Error(`server.mjs: ${path.join(binDir, p)} is missing (run make)`);
		}
	}
	const host = '127.0.0.1';
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `burnlink-${kind}-`));
	tmpDirs.add(dir);
	const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const user = asRoot && userExists('www-data') ? 'www-data' : '';
	const logDir = path.join(dir, 'log');
	const runDir = path.join(dir, 'run');
	const confDir = path.join(dir, 'conf');
	for (const d of [logDir, runDir, confDir]) fs.mkdirSync(d);
	fs.chmodSync(dir, 0o755);
	for (const d of [logDir, runDir, confDir]) fs.chmodSync(d, 0o755);
	const own = (p) => {
		if (!user) return;
		const { uid, gid } = idOf(user);
		fs.chownSync(p, uid, gid);
	};

	// lighttpd opens its logs after dropping privileges.
	own(logDir);
	// Where the server may keep a request body it buffers: a 0700 directory
	// of its user on a tmpfs, never persistent disk (tests/security/spool.test.mjs).
	let uploadDir = path.join(dir, 'upload');	// no tmpfs: the spool test says so
	if (fs.existsSync('/dev/shm')) {
		uploadDir = fs.mkdtempSync('/dev/shm/burnlink-upload-');
		tmpDirs.add(uploadDir);
	} else {
		fs.mkdirSync(uploadDir);
	}
	fs.chmodSync(uploadDir, 0o700);
	own(uploadDir);

	// The program environment.
	// The programs' own cron work (lib/work.c): off unless a test turns it on (opts.env).
	const progEnv = { BURNLINK_SELF_WORK: 'off' };
	for (const k of PASS_THROUGH) if (process.env[k] !== undefined) progEnv[k] = process.env[k];

	let docroot, cgiBin, db, siteTemplate;
	if (kind === 'htaccess') {
		const prefix = opts.tree ? path.resolve(opts.tree) : path.join(dir, 'site');
		if (!opts.tree) execFileSync('sh', [path.join(ROOT, 'scripts/install.sh'), '', prefix], {
			cwd: ROOT,
			env: {
				...process.env,
				BURNLINK_BIN: binDir,
				BURNLINK_WWW: path.resolve(ROOT, opts.wwwDir || 'www'),
				BURNLINK_USER: user,
				BURNLINK_QUIET: '1',
				BURNLINK_INSTALL_LINK: '1',
			},
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		docroot = path.join(prefix, 'htdocs');
		cgiBin = path.join(prefix, 'cgi-bin');
		db = path.join(prefix, 'var', 'burnlink.db');
		siteTemplate = 'apache-test-htaccess.conf.in';
		Object.assign(progEnv, opts.env || {});
		delete progEnv.BURNLINK_DB;
		delete progEnv.BURNLINK_SECRET_FILE;
	} else {
		docroot = path.resolve(ROOT, opts.wwwDir || 'www');
		cgiBin = binDir;
		const dataDir = path.join(dir, 'data');
		fs.mkdirSync(dataDir, { mode: 0o700 });
		own(dataDir);
		db = opts.db ? path.resolve(opts.db) : path.join(dataDir, 'burnlink.db');
		if (opts.db && user && path.resolve(path.dirname(db)).startsWith(os.tmpdir() + path.sep)) {
			own(path.dirname(db));
		}
		Object.assign(progEnv, {
			BURNLINK_DB: pgHook && !opts.db ? pgHook.serverDatabase() : db,
			BURNLINK_SECRET_FILE: path.join(dataDir, 'secret.key'),
		}, opts.env || {});
		siteTemplate = 'apache-vhost.conf.in';
	}

	const port = await freePort(host);
	const vars = {
		BL_HOST: host,
		BL_PORT: String(port),
		BL_VHOST: `${host}:${port}`,
		BL_SERVERNAME: host,
		BL_DOCROOT: docroot,
		BL_CGIBIN: cgiBin,
		BL_DATADIR: path.dirname(db),
		BL_LOGDIR: logDir,
		// A piped logger: lighttpd writes each line at once (a log file is buffered).
		BL_ACCESSLOG: `|exec cat >> ${path.join(logDir, 'access.log')}`,
		BL_RUNDIR: runDir,
		BL_UPLOADDIR: uploadDir,
		BL_USER: user,
		BL_PASSENV: Object.keys(progEnv).join(' '),
		...progEnv,
	};

	let argv, bin, fcgiSocket;
	if (kind === 'lighttpd' || kind === 'lighttpd-fastcgi') {
		const conf = path.join(confDir, 'lighttpd.conf');
		genconf('lighttpd.conf.in', vars, conf);
		if (kind === 'lighttpd-fastcgi') {
			// mod_fastcgi ahead of mod_cgi takes the secret programs' URLs; the
			// account programs stay CGI. The responders' sockets are in runDir.
			own(runDir);
			const fcgi = PROGRAMS.map((p) => `\t"/cgi-bin/${p}" => (( "socket" => "${runDir}/${p}.sock", ` +
				`"bin-path" => "${cgiBin}/${p}", "max-procs" => 1, "check-local" => "disable" )),`).join('\n');
			let text = fs.readFileSync(conf, 'utf8');
			if (!text.includes('\t"mod_cgi",')) throw new Error('server.mjs: lighttpd.conf.in has no mod_cgi line');
			text = text.replace('\t"mod_cgi",', '\t"mod_fastcgi",\n\t"mod_cgi",');
			fs.writeFileSync(conf, `${text}\nfastcgi.server = (\n${fcgi}\n)\n`);
		}
		// More configuration after the site's (a test's conf/lighttpd-signin.conf.in).
		if (opts.lighttpdExtra) fs.appendFileSync(conf, `\n${opts.lighttpdExtra}\n`);
		bin = findBinary(['lighttpd']);
		argv = ['-D', '-f', conf];
	} else if (kind === 'nginx') {
		// nginx and fcgiwrap (as the programs' user) in one process group.
		const sockDir = path.join(dir, 'fcgi');
		fs.mkdirSync(sockDir, { mode: 0o755 });
		own(sockDir);
		fcgiSocket = path.join(sockDir, 'fcgiwrap.sock');
		const site = path.join(confDir, 'site.conf');
		const conf = path.join(confDir, 'nginx.conf');
		const params = path.join(confDir, 'fastcgi-params');
		genconf('nginx-fastcgi-params.in', { ...vars, BL_NGINX_HTTP_HOST: '$host:$server_port' }, params);
		genconf('nginx.conf.in', {
			...vars,
			BL_NGINX_LISTEN: `${host}:${port}`,
			BL_NGINX_PARAMS: params,
			BL_FCGIWRAP_SOCKET: fcgiSocket,
		}, site);
		genconf('nginx-main.conf.in', { ...vars, BL_SITE_CONF: site }, conf);
		const nginx = findBinary(['nginx']);
		const fcgiwrap = findBinary(['fcgiwrap']);
		const drop = user ? `setpriv --reuid=${user} --regid=${user} --init-groups ` : '';
		bin = '/bin/sh';
		argv = ['-c', `${drop}${fcgiwrap} -c 4 -s unix:${fcgiSocket} & exec ${nginx} -e ${logDir}/error.log -p ${runDir} -c ${conf}`];
	} else {
		const site = path.join(confDir, 'site.conf');
		const conf = path.join(confDir, 'httpd.conf');
		genconf(siteTemplate, vars, site);
		const cgid = process.env.BURNLINK_APACHE_CGI === 'cgid';
		genconf('apache-httpd.conf.in', {
			...vars,
			BL_SITE_CONF: site,
			BL_APACHE_MODDIR: findApacheModDir(),
			BL_APACHE_MPM: cgid ? 'event' : 'prefork',
			BL_APACHE_CGI: cgid ? 'cgid' : 'cgi',
		}, conf);
		// A host without some module (apacheWithout: ['headers']).
		for (const m of opts.apacheWithout || []) {
			const text = fs.readFileSync(conf, 'utf8');
			const line = new RegExp(`^LoadModule ${m}_module .*\n`, 'm');
			if (!line.test(text)) throw new Error(`server.mjs: no LoadModule ${m}_module to leave out`);
			fs.writeFileSync(conf, text.replace(line, ''));
		}
		// More server configuration (a test's modules and conf/apache-signin-openidc.conf.in).
		if (opts.apacheExtra) fs.appendFileSync(conf, `\n${opts.apacheExtra.replaceAll('@APACHE_MODDIR@', findApacheModDir())}\n`);
		bin = findBinary(['apache2', 'httpd']);
		argv = ['-d', runDir, '-f', conf, '-DFOREGROUND'];
	}

	const outPath = path.join(logDir, 'stdout.log');
	const out = fs.openSync(outPath, 'a');
	const child = spawn(bin, argv, {
		cwd: dir,
		detached: true,	// its own process group: stop() ends the programs too
		stdio: ['ignore', out, out],
		env: { PATH: process.env.PATH || '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' },
	});
	fs.closeSync(out);
	// The server does not keep the test process alive: a test file that forgets
	// stop() still ends (and the exit hook then kills the server).
	child.unref();
	const pgid = child.pid;
	let exited = false;
	let exitInfo = null;
	const exitPromise = new Promise((resolve) => {
		child.once('exit', (code, signal) => {
			exited = true;
			exitInfo = { code, signal };
			resolve();
		});
		child.once('error', (err) => {
			exited = true;
			exitInfo = { error: err.message };
			resolve();
		});
	});

	const errorLogPath = path.join(logDir, 'error.log');
	const accessLogPath = path.join(logDir, 'access.log');
	const base = `http://${host}:${port}`;
	checkResponsesOf(base);
	let stopped = false;

	const srv = {
		base, port, host, server: kind, dir, db, docroot, cgiBin, user: user || os.userInfo().username,
		dbUrl: progEnv.BURNLINK_DB ?? db,
		pid: pgid,	// the server's process, leader of its own process group
		errorLogPath, accessLogPath,
		accessLog: () => readText(accessLogPath),
		errorLog: () => readText(errorLogPath) + readText(outPath),
		killNow() {
			if (!stopped) killGroup(pgid, 'SIGKILL');
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			child.ref();
			if (!exited) killGroup(pgid, 'SIGTERM');
			const t0 = Date.now();
			await Promise.race([exitPromise, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS).unref())]);
			// Whatever is left of the group (CGI programs, cgid, workers) goes now.
			while (processGroupAlive(pgid)) {
				if (!exited || Date.now() - t0 > 1000) killGroup(pgid, 'SIGKILL');
				if (Date.now() - t0 > STOP_TIMEOUT_MS * 2) throw new Error(`server.mjs: process group ${pgid} will not die`);
				await new Promise((r) => setTimeout(r, 20));
			}
			live.delete(srv);
			// The directory (logs included) stays until the process exits.
		},
	};
	live.add(srv);

	// Wait until it answers (or dies).
	const t0 = Date.now();
	for (;;) {
		if (exited) {
			const log = srv.errorLog();
			live.delete(srv);
			stopped = true;
			const err = new Error(`server.mjs: ${kind} exited during start-up (${JSON.stringify(exitInfo)}); config in ${confDir}\n${log}`);
			err.portTaken = PORT_TAKEN_RE.test(log);
			throw err;
		}
		try {
			const res = await fetch(base + '/robots.txt', { signal: AbortSignal.timeout(2000) });
			await res.arrayBuffer();
			if (!fcgiSocket || fs.existsSync(fcgiSocket)) break;
		} catch {
			// not listening yet
		}
		if (Date.now() - t0 > START_TIMEOUT_MS) {
			const log = srv.errorLog();
			await srv.stop().catch(() => {});
			throw new Error(`server.mjs: ${kind} did not answer within ${START_TIMEOUT_MS} ms\n${log}`);
		}
		await Promise.race([exitPromise, new Promise((r) => setTimeout(r, 25))]);
	}
	return srv;
}
