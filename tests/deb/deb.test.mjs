// deb.test.mjs: the Debian packages as an operator meets them (docs/ADMIN.md,
// "The Debian package"). tests/run.sh builds them first (scripts/deb.sh, which
// also fails on any lintian error or warning) into build/deb-out/. Then:
// lintian on the packages themselves, a second build that must give the same
// bytes, the manual pages, piuparts' install-purge test in a clean Debian 12
// chroot, and in a chroot of our own: install, a secret stored, an upgrade
// that keeps it and the edited settings, Apache (a2enconf burnlink) and
// lighttpd (lighttpd-enable-mod burnlink) serving the conformance suite, the
// cron line running the cleanup (and standing down under systemd), remove,
// and purge overwriting the data (seen by strace) and leaving nothing behind.
//
// The chroot comes from debootstrap (Debian's packages only, through the
// host's own apt mirror); servers in it listen on loopback ports.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, freePort } from '../lib/server.mjs';

const OUT = path.join(ROOT, 'build', 'deb-out');
const debs = () => fs.readdirSync(OUT).filter((f) => f.endsWith('.deb') && !f.includes('-dbgsym'))
	.map((f) => path.join(OUT, f));
const serverDeb = () => debs().find((f) => path.basename(f).startsWith('burnlink_'));
const cliDeb = () => debs().find((f) => path.basename(f).startsWith('burnlink-cli_'));
const sha = (f) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');

function run(cmd, args, opts = {}) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
	if (r.status !== 0 && !opts.allowFail) {
		throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
	}
	return r;
}

// The host's Debian mirror (the chroot uses the same one), or debootstrap's default.
function mirror() {
	const dir = '/etc/apt/sources.list.d';
	for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
		if (!f.endsWith('.sources')) continue;
		const text = fs.readFileSync(path.join(dir, f), 'utf8');
		for (const stanza of text.split(/\n\s*\n/)) {
			if (/^Suites:.*\bbookworm\b/m.test(stanza) && !/security/.test(stanza)) {
				const m = /^URIs:\s*(\S+)/m.exec(stanza);
				if (m) return m[1];
			}
		}
	}
	if (fs.existsSync('/etc/apt/sources.list')) {
		const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(fs.readFileSync('/etc/apt/sources.list', 'utf8'));
		if (m) return m[1];
	}
	return null;
}

// A clean Debian 12 (minbase), made once per run, kept as a tarball for piuparts.
let base;
// BURNLINK_DEB_BASE names a tarball of one made before (to rerun by hand).
function baseTarball() {
	if (base) return base;
	if (process.env.BURNLINK_DEB_BASE && fs.existsSync(process.env.BURNLINK_DEB_BASE)) {
		return (base = process.env.BURNLINK_DEB_BASE);
	}
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-deb-base.'));
	// the tarball (14 MB) goes with the run, unless kept to rerun by hand
	if (!process.env.BURNLINK_KEEP_TMP)
		process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
	const root = path.join(dir, 'root');
	const m = mirror();
	run('debootstrap', ['--variant=minbase', 'bookworm', root, ...(m ? [m] : [])]);
	// nothing in the chroot starts a service of its own
	fs.writeFileSync(path.join(root, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
	base = path.join(dir, 'base.tgz');
	run('tar', ['-C', root, '-czf', base, '.']);
	fs.rmSync(root, { recursive: true, force: true });
	return base;
}

describe('the Debian packages', () => {
	test('are built: the server, the CLI', () => {
		assert.ok(serverDeb(), 'build/deb-out has burnlink_*.deb (scripts/deb.sh)');
		assert.ok(cliDeb(), 'build/deb-out has burnlink-cli_*.deb');
		// the packages carry the build's version (VERSION, scripts/version.sh)
		const version = fs.readFileSync(path.join(ROOT, 'VERSION'), 'utf8').trim();
		assert.equal(run('dpkg-deb', ['-f', serverDeb(), 'Version']).stdout.trim(), version);
		assert.equal(run('dpkg-deb', ['-f', cliDeb(), 'Version']).stdout.trim(), version);
		const info = run('dpkg-deb', ['-f', cliDeb(), 'Architecture', 'Depends']).stdout;
		assert.match(info, /^Architecture: all$/m);
		assert.match(info, /nodejs/);
	});

	test('lintian reports no error and no warning', () => {
		const r = run('lintian', ['--fail-on', 'error,warning', ...debs()], { allowFail: true });
		const lines = (r.stdout + r.stderr).split('\n').filter((l) => /^[EW]: /.test(l));
		assert.deepEqual(lines, []);
		assert.equal(r.status, 0, r.stdout + r.stderr);
	});

	test('files go where Debian policy puts them', () => {
		const list = run('dpkg-deb', ['-c', serverDeb()]).stdout;
		for (const p of ['./usr/lib/burnlink/cgi-bin/create', './usr/lib/burnlink/bin/cleanup',
			'./usr/lib/burnlink/bin/notify', './usr/sbin/burnlink-admin',
			'./usr/share/burnlink/www/index.html', './usr/share/burnlink/www/api/openapi.yaml',
			'./etc/burnlink/burnlink.conf', './etc/apache2/conf-available/burnlink.conf',
			'./etc/lighttpd/conf-available/50-burnlink.conf', './etc/nginx/sites-available/burnlink',
			'./etc/cron.d/burnlink', './lib/systemd/system/burnlink-cleanup.timer',
			'./lib/systemd/system/burnlink-notify.timer', './var/lib/burnlink/',
			'./usr/share/man/man8/burnlink-admin.8.gz', './usr/share/man/man5/burnlink.conf.5.gz']) {
			assert.ok(list.split('\n').some((l) => l.endsWith(' ' + p)), `${p} in the package`);
		}
		const conffiles = run('dpkg-deb', ['-I', serverDeb(), 'conffiles']).stdout;
		assert.match(conffiles, /^\/etc\/burnlink\/burnlink\.conf$/m);
		const cli = run('dpkg-deb', ['-c', cliDeb()]).stdout;
		assert.match(cli, /\.\/usr\/bin\/burnlink -> /);
		assert.match(cli, /\.\/usr\/share\/bash-completion\/completions\/burnlink/);
		assert.match(cli, /\.\/usr\/share\/man\/man1\/burnlink\.1\.gz/);
	});

	test('two builds of one commit give the same bytes', () => {
		const second = path.join(ROOT, 'build', 'deb-out2');
		run('sh', [path.join(ROOT, 'scripts', 'deb.sh'), second], { env: { ...process.env, BURNLINK_DEB_LINT: '0' } });
		const names = (d) => fs.readdirSync(d).filter((f) => f.endsWith('.deb')).sort();
		assert.deepEqual(names(second), names(OUT));
		for (const f of names(OUT)) {
			assert.equal(sha(path.join(second, f)), sha(path.join(OUT, f)), `${f} differs between two builds`);
		}
		fs.rmSync(second, { recursive: true, force: true });
	});

	test('the systemd units are valid', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-units.'));
		run('dpkg-deb', ['-x', serverDeb(), dir]);
		const units = path.join(dir, 'lib/systemd/system');
		const r = run('systemd-analyze', ['verify', '--man=no',
			...fs.readdirSync(units).map((u) => path.join(units, u))], { allowFail: true,
			env: { ...process.env, SYSTEMD_LOG_LEVEL: 'warning' } });
		// verify checks each unit's syntax and that ExecStart exists: on the
		// host the programs are not installed, so only that complaint may remain
		const complaints = (r.stderr || '').split('\n').filter((l) => l.trim() &&
			!/Command \/usr\/lib\/burnlink\/bin\/\w+ is not executable|No such file or directory|Failed to prepare filename|Unit .* has a bad unit file setting/.test(l));
		assert.deepEqual(complaints, []);
		fs.rmSync(dir, { recursive: true, force: true });
	});
});

describe('the manual pages', () => {
	for (const page of ['burnlink.1', 'burnlink-admin.8', 'burnlink.conf.5']) {
		test(`man -l renders ${page} without a warning`, () => {
			const r = run('man', ['-l', '--warnings=w,mac', path.join(ROOT, 'docs', 'man', page)],
				{ env: { ...process.env, MANWIDTH: '80', MAN_KEEP_STDERR: '1' } });
			assert.equal(r.stderr, '');
			assert.match(r.stdout, /NAME/);
			assert.match(r.stdout, /SEE ALSO/);
		});
	}

	test('burnlink-admin(8) names every command of burnlink-admin --help', () => {
		const help = run(path.join(ROOT, 'tools', 'burnlink-admin'), ['--help'], { allowFail: true }).stdout +
			run(path.join(ROOT, 'tools', 'burnlink-admin'), ['--help'], { allowFail: true }).stderr;
		const page = run('man', ['-l', path.join(ROOT, 'docs', 'man', 'burnlink-admin.8')],
			{ env: { ...process.env, MANWIDTH: '200' } }).stdout.replace(/\u2010/g, '-');
		const commands = [...help.matchAll(/^ {2}([a-z0-9][a-z0-9-]*(?: [a-z0-9][a-z0-9-]*)?)(?= )/gm)]
			.map((m) => m[1]);
		assert.ok(commands.length > 10, 'the help lists the commands');
		for (const c of commands) assert.ok(page.includes(c), `burnlink-admin(8) lacks "${c}"`);
	});

	test('burnlink(1) names every option of burnlink --help', () => {
		const help = run('node', [path.join(ROOT, 'cli', 'burnlink.mjs'), '--help']).stdout;
		const page = run('man', ['-l', path.join(ROOT, 'docs', 'man', 'burnlink.1')],
			{ env: { ...process.env, MANWIDTH: '200' } }).stdout.replace(/\u2010/g, '-');
		const options = new Set([...help.matchAll(/(?:^|\s)(--[a-z][a-z-]+)/g)].map((m) => m[1]));
		assert.ok(options.size > 15);
		for (const o of options) assert.ok(page.includes(o), `burnlink(1) lacks ${o}`);
	});
});

describe('piuparts', () => {
	test('installs and purges the packages in a clean Debian 12, nothing left behind', { timeout: 900000 }, () => {
		const tgz = baseTarball();
		const m = mirror();
		const r = run('piuparts', ['--basetgz', tgz, '--distribution', 'bookworm',
			...(m ? ['--mirror', `${m} main`] : []), '--no-upgrade-test', '--skip-logrotatefiles-test',
			serverDeb(), cliDeb()], { allowFail: true });
		assert.equal(r.status, 0, (r.stdout + r.stderr).split('\n').slice(-60).join('\n'));
		assert.match(r.stdout + r.stderr, /PASS: All tests\./);
	});
});

describe('in a Debian 12 chroot', () => {
	let root;
	const mounts = [];
	const inRoot = (args, opts = {}) => run('chroot', [root, ...args], {
		env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' }, ...opts });
	const apt = (...args) => inRoot(['apt-get', '-y', '-q', '-o', 'Dpkg::Options::=--force-confold', ...args]);
	const cgi = (program, env, body = '') => inRoot(['setpriv', '--reuid=www-data', '--regid=www-data',
		'--init-groups', 'env', '-i', ...Object.entries({ GATEWAY_INTERFACE: 'CGI/1.1', REMOTE_ADDR: '127.0.0.1',
			SERVER_NAME: 'localhost', SERVER_PORT: '80', HTTP_HOST: 'localhost', ...env })
		.map(([k, v]) => `${k}=${v}`), `/usr/lib/burnlink/cgi-bin/${program}`], { input: body });
	let secretKey;

	before(() => {
		root = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-deb-root.'));
		run('tar', ['-C', root, '-xzf', baseTarball()]);
		fs.copyFileSync('/etc/resolv.conf', path.join(root, 'etc/resolv.conf'));
		for (const m of ['proc', 'dev/pts']) {
			fs.mkdirSync(path.join(root, m), { recursive: true });
		}
		run('mount', ['-t', 'proc', 'proc', path.join(root, 'proc')]);
		mounts.push(path.join(root, 'proc'));
		// as on a booted system: a tmpfs for the servers' request bodies
		fs.mkdirSync(path.join(root, 'dev/shm'), { recursive: true });
		run('mount', ['-t', 'tmpfs', '-o', 'mode=1777,size=64m', 'tmpfs', path.join(root, 'dev/shm')]);
		mounts.push(path.join(root, 'dev/shm'));
		apt('update');
		// the web servers first, as an operator who has one would
		apt('install', '--no-install-recommends', 'apache2', 'lighttpd', 'sqlite3');
		for (const f of debs()) fs.copyFileSync(f, path.join(root, 'tmp', path.basename(f)));
	});

	after(() => {
		if (!root) return;
		inRoot(['sh', '-c', 'apache2ctl stop; pkill lighttpd; true'], { allowFail: true });
		for (const m of mounts.reverse()) run('umount', ['-l', m], { allowFail: true });
		if (!process.env.BURNLINK_KEEP_TMP) fs.rmSync(root, { recursive: true, force: true });
	});

	test('apt installs the packages: data directory, install secret, modules', () => {
		apt('install', '--no-install-recommends', `/tmp/${path.basename(serverDeb())}`, `/tmp/${path.basename(cliDeb())}`);
		const st = fs.statSync(path.join(root, 'var/lib/burnlink'));
		assert.equal(st.mode & 0o777, 0o700);
		const wwwData = Number(inRoot(['id', '-u', 'www-data']).stdout.trim());
		assert.equal(st.uid, wwwData, '/var/lib/burnlink belongs to www-data');
		const key = fs.statSync(path.join(root, 'var/lib/burnlink/secret.key'));
		assert.equal(key.size, 32);
		assert.equal(key.mode & 0o777, 0o600);
		assert.equal(key.uid, wwwData);
		for (const mod of ['rewrite', 'headers']) {
			assert.ok(fs.existsSync(path.join(root, `etc/apache2/mods-enabled/${mod}.load`)), `mod_${mod} enabled`);
		}
		assert.match(inRoot(['burnlink', '--version']).stdout, /^burnlink \d/);
		assert.equal(inRoot(['burnlink-admin', 'config', 'check']).status, 0);
	});

	test('a secret stored through the installed programs', () => {
		const body = JSON.stringify({ text: 'kept across the upgrade' });
		const r = cgi('create', { REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json',
			CONTENT_LENGTH: String(Buffer.byteLength(body)), PATH_INFO: '' }, body);
		assert.match(r.stdout, /^Status: 200/m, r.stdout);
		const json = JSON.parse(r.stdout.split(/\r?\n\r?\n/).slice(1).join('\n\n'));
		secretKey = /\/secret\/([A-Za-z0-9_-]{22})#/.exec(json.secretUrl)?.[1];
		assert.ok(secretKey, 'the answer names the secret link');
		assert.ok(fs.existsSync(path.join(root, 'var/lib/burnlink/burnlink.db')));
	});

	test('an upgrade keeps the data, the install secret and the edited settings', () => {
		const conf = path.join(root, 'etc/burnlink/burnlink.conf');
		fs.appendFileSync(conf, '\nsite_name = Upgrade test\n');
		const keyBefore = sha(path.join(root, 'var/lib/burnlink/secret.key'));
		// the same package under a higher version, as the next release would be
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-deb-next.'));
		run('dpkg-deb', ['-R', serverDeb(), path.join(dir, 'pkg')]);
		const control = path.join(dir, 'pkg/DEBIAN/control');
		fs.writeFileSync(control, fs.readFileSync(control, 'utf8').replace(/^Version: (.*)$/m, 'Version: $1+next1'));
		run('dpkg-deb', ['--root-owner-group', '-b', path.join(dir, 'pkg'), path.join(root, 'tmp/burnlink_next.deb')]);
		fs.rmSync(dir, { recursive: true, force: true });
		apt('install', '/tmp/burnlink_next.deb');
		assert.match(inRoot(['dpkg-query', '-W', '-f', '${Version}', 'burnlink']).stdout, /\+next1$/);
		assert.match(fs.readFileSync(conf, 'utf8'), /site_name = Upgrade test/);
		assert.equal(sha(path.join(root, 'var/lib/burnlink/secret.key')), keyBefore);
		const r = cgi('metadata', { REQUEST_METHOD: 'GET', PATH_INFO: `/${secretKey}` });
		assert.match(r.stdout, /^Status: 200/m, r.stdout);
		const cfg = cgi('config', { REQUEST_METHOD: 'GET', PATH_INFO: '' });
		assert.match(cfg.stdout, /Upgrade test/);
	});

	async function conformance(base, kind) {
		const db = path.join(root, 'var/lib/burnlink/burnlink.db');
		// a test runner of its own: not this one's child protocol
		const env = { ...process.env, BURNLINK_CONFORMANCE_BASE: base, BURNLINK_CONFORMANCE_DB: db,
			BURNLINK_CONFORMANCE_SERVER: kind };
		delete env.NODE_TEST_CONTEXT;
		const r = spawnSync('node', ['--test', '--test-reporter=tap', ...fs.readdirSync(path.join(ROOT, 'tests/conformance'))
			.filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(ROOT, 'tests/conformance', f))], {
			encoding: 'utf8', maxBuffer: 64 << 20, env,
		});
		assert.equal(r.status, 0, r.stdout.split('\n').filter((l) => /not ok|✖|Error|expected|actual/.test(l)).slice(0, 60).join('\n'));
		assert.match(r.stdout, /^# pass [1-9]\d*$/m);
		assert.match(r.stdout, /^# fail 0$/m);
	}

	// A port found free is bound only when the server starts, and the suites
	// running beside this one start servers of their own: a start refused
	// because the port was taken meanwhile is made again on another port (up
	// to five); any other failure fails the test.
	async function onFreePort(configure, start) {
		for (let tries = 1; ; tries++) {
			const port = await freePort();
			configure(port);
			const r = start();
			if (r.status === 0) return port;
			const out = `${r.stdout}\n${r.stderr}`;
			if (tries === 5 || !/Address already in use/i.test(out))
				throw new Error(`the server did not start on port ${port} (try ${tries}), exit ${r.status}\n${out}`);
			console.log(`# port ${port} was taken before the server bound it: another port`);
		}
	}

	// A fresh database for each server, as a new installation has it: the
	// install secret stays, and counts as new (the conformance suite ages it
	// to see /api/health ask for the cleanup).
	function freshData() {
		inRoot(['sh', '-c', 'cd /var/lib/burnlink && rm -f burnlink.db burnlink.db-wal burnlink.db-shm burnlink-counters burnlink-cleanup && touch secret.key']);
	}

	test('Apache: a2enconf burnlink, reload, and the conformance suite at /burnlink/', { timeout: 600000 }, async () => {
		inRoot(['a2enconf', 'burnlink']);
		freshData();
		const port = await onFreePort((p) => {
			fs.writeFileSync(path.join(root, 'etc/apache2/ports.conf'), `Listen 127.0.0.1:${p}\n`);
			inRoot(['apache2ctl', 'configtest']);
		}, () => inRoot(['apache2ctl', 'start'], { allowFail: true }));
		try {
			const page = await fetch(`http://127.0.0.1:${port}/burnlink/`);
			assert.equal(page.status, 200);
			assert.match(page.headers.get('content-security-policy') || '', /default-src 'none'/);
			await conformance(`http://127.0.0.1:${port}/burnlink`, 'apache');
		} finally {
			inRoot(['apache2ctl', 'stop'], { allowFail: true });
		}
	});

	test('lighttpd: lighttpd-enable-mod burnlink, and the conformance suite at /burnlink/', { timeout: 600000 }, async () => {
		const conf = path.join(root, 'etc/lighttpd/lighttpd.conf');
		const packaged = fs.readFileSync(conf, 'utf8');
		inRoot(['lighttpd-enable-mod', 'burnlink']);
		freshData();
		const port = await onFreePort((p) => {
			fs.writeFileSync(conf, packaged.replace(/^server\.port\s*=.*$/m, `server.port = ${p}\nserver.bind = "127.0.0.1"`));
			inRoot(['lighttpd', '-tt', '-f', '/etc/lighttpd/lighttpd.conf']);
		}, () => inRoot(['lighttpd', '-f', '/etc/lighttpd/lighttpd.conf'], { allowFail: true }));
		try {
			const page = await fetch(`http://127.0.0.1:${port}/burnlink/`);
			assert.equal(page.status, 200);
			await conformance(`http://127.0.0.1:${port}/burnlink`, 'lighttpd');
		} finally {
			inRoot(['sh', '-c', 'kill $(cat /run/lighttpd.pid)'], { allowFail: true });
		}
	});

	test('the cron line runs the cleanup where systemd does not run', () => {
		const line = fs.readFileSync(path.join(root, 'etc/cron.d/burnlink'), 'utf8').split('\n')
			.find((l) => /bin\/cleanup/.test(l) && !l.startsWith('#'));
		const [, user, command] = /^\S+ \S+ \S+ \S+ \S+\s+(\S+)\s+(.*)$/.exec(line);
		assert.equal(user, 'www-data');
		// a database to clean (the cleanup creates none)
		const body = JSON.stringify({ text: 'for the cleanup' });
		assert.match(cgi('create', { REQUEST_METHOD: 'POST', CONTENT_TYPE: 'application/json',
			CONTENT_LENGTH: String(Buffer.byteLength(body)), PATH_INFO: '' }, body).stdout, /^Status: 200/m);
		const stamp = path.join(root, 'var/lib/burnlink/burnlink-cleanup');
		fs.rmSync(stamp, { force: true });
		inRoot(['setpriv', '--reuid=www-data', '--regid=www-data', '--init-groups', 'sh', '-c', command]);
		assert.ok(fs.existsSync(stamp), 'the cleanup recorded its run');
		assert.equal(inRoot(['burnlink-admin', 'health']).status, 0);
	});

	// Where systemd is PID 1 it makes /run/systemd/system, and its timers run
	// the jobs: every line of the cron.d file then stands down (runs nothing).
	test('under systemd, the cron lines stand down: the timers run the jobs', () => {
		const lines = fs.readFileSync(path.join(root, 'etc/cron.d/burnlink'), 'utf8').split('\n')
			.filter((l) => /^[*0-9]/.test(l));
		assert.equal(lines.length, 2, 'cleanup and notify');
		const sd = path.join(root, 'run/systemd/system');
		const stamp = path.join(root, 'var/lib/burnlink/burnlink-cleanup');
		const had = fs.existsSync(path.join(root, 'run/systemd'));
		fs.mkdirSync(sd, { recursive: true });
		try {
			for (const line of lines) {
				const [, user, command] = /^\S+ \S+ \S+ \S+ \S+\s+(\S+)\s+(.*)$/.exec(line);
				fs.rmSync(stamp, { force: true });
				// a command that would run would leave a trace: sh -x shows each command run
				const r = inRoot(['setpriv', '--reuid=www-data', '--regid=www-data', '--init-groups',
					'sh', '-xc', command], { allowFail: true });
				assert.equal(user, 'www-data');
				assert.doesNotMatch(r.stderr, /exec \/usr\/lib\/burnlink/, `${command}: stood down`);
				assert.ok(!fs.existsSync(stamp), 'no cleanup ran');
			}
		} finally {
			fs.rmSync(had ? sd : path.join(root, 'run/systemd'), { recursive: true, force: true });
		}
	});

	test('remove keeps the data and settings; purge leaves nothing behind', () => {
		apt('remove', 'burnlink', 'burnlink-cli');
		assert.ok(fs.existsSync(path.join(root, 'var/lib/burnlink/burnlink.db')), 'remove keeps the data');
		assert.ok(fs.existsSync(path.join(root, 'etc/burnlink/burnlink.conf')), 'remove keeps the settings');
		assert.ok(!fs.existsSync(path.join(root, 'usr/lib/burnlink')), 'the programs are gone');
		assert.ok(!fs.existsSync(path.join(root, 'etc/apache2/conf-enabled/burnlink.conf')), 'Apache no longer includes it');
		assert.ok(!fs.existsSync(path.join(root, 'etc/lighttpd/conf-enabled/50-burnlink.conf')), 'nor lighttpd');
		inRoot(['apache2ctl', 'configtest']);
		// Purge overwrites what held secrets before deleting it: the files'
		// opens for writing and the bytes written to them, seen by strace
		// (the file itself is truncated and gone afterwards, its blocks out of reach).
		const size = fs.statSync(path.join(root, 'var/lib/burnlink/burnlink.db')).size;
		assert.ok(size > 0);
		const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-purge.')), 'strace');
		run('strace', ['-f', '-qq', '-e', 'trace=openat,write', '-s', '0', '-o', trace, 'chroot', root,
			'apt-get', '-y', '-q', '-o', 'Dpkg::Options::=--force-confold', 'purge', 'burnlink', 'burnlink-cli'],
		{ env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' } });
		const open = new Map();
		let written = 0;
		for (const l of fs.readFileSync(trace, 'utf8').split('\n')) {
			let m = /^(\d+)\s+openat\(AT_FDCWD, "\/var\/lib\/burnlink\/burnlink\.db", O_WRONLY[^)]*\)\s+=\s+(\d+)/.exec(l);
			if (m) open.set(m[1], m[2]);
			else if ((m = /^(\d+)\s+write\((\d+), .*\)\s+=\s+(\d+)/.exec(l)) && open.get(m[1]) === m[2])
				written += Number(m[3]);
		}
		fs.rmSync(path.dirname(trace), { recursive: true, force: true });
		assert.ok(open.size > 0, 'purge opened the database to overwrite it');
		assert.ok(written >= size, `purge wrote ${written} bytes over the database's ${size}`);
		for (const p of ['var/lib/burnlink', 'etc/burnlink', 'etc/cron.d/burnlink', 'etc/default/burnlink',
			'etc/apache2/conf-available/burnlink.conf', 'etc/lighttpd/conf-available/50-burnlink.conf',
			'etc/nginx/sites-available/burnlink', 'usr/share/burnlink', 'usr/share/burnlink-cli']) {
			assert.ok(!fs.existsSync(path.join(root, p)), `${p} is gone after purge`);
		}
		const left = run('sh', ['-c', `find "${root}" -xdev -name '*burnlink*' ! -path '*/tmp/*' ! -path '*/var/cache/apt/*' ! -path '*/var/lib/apt/*' ! -path '*/var/log/*' -print`]).stdout.trim();
		assert.equal(left, '');
	});
});
