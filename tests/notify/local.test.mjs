// local.test.mjs: trying notifications with `make run` (docs/NOTIFY.md,
// "Trying it locally"): scripts/run.sh passes BURNLINK_NOTIFY_ALLOW to the
// programs when it is set (the web programs read its "http"), and the server
// configuration it generates carries it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// A port nothing listens on (so that an old run.sh, which would serve, serves there).
async function freePort() {
	const s = net.createServer();
	await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
	const { port } = s.address();
	await new Promise((resolve) => s.close(resolve));
	return port;
}

function runSh(env) {
	const data = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-run-'));
	try {
		return spawnSync('sh', ['scripts/run.sh', '--passenv'], {
			cwd: ROOT, encoding: 'utf8', timeout: 30000, killSignal: 'SIGKILL',
			env: { PATH: process.env.PATH, BURNLINK_DB: path.join(data, 'burnlink.db'), ...env },
		});
	} finally {
		fs.rmSync(data, { recursive: true, force: true });
	}
}

test('make run passes BURNLINK_NOTIFY_ALLOW to the programs when it is set', async () => {
	const r = runSh({ PORT: String(await freePort()), BURNLINK_NOTIFY_ALLOW: '127.0.0.1/32 http' });
	assert.equal(r.status, 0, `${r.error || ''} ${r.stderr}`);
	assert.ok(r.stdout.trim().split(/\s+/).includes('BURNLINK_NOTIFY_ALLOW'), r.stdout);
	// and the server configuration made from that list holds its value
	const conf = spawnSync('sh', ['scripts/genconf.sh', 'conf/lighttpd.conf.in'], {
		cwd: ROOT, encoding: 'utf8',
		env: { PATH: process.env.PATH, BL_PASSENV: r.stdout.trim(), BURNLINK_DB: '/x.db', BURNLINK_SECRET_FILE: '/x.key',
			BURNLINK_NOTIFY_ALLOW: '127.0.0.1/32 http', BL_HOST: '127.0.0.1', BL_PORT: '1', BL_VHOST: '127.0.0.1:1',
			BL_SERVERNAME: '127.0.0.1', BL_DOCROOT: '/www', BL_CGIBIN: '/cgi-bin', BL_DATADIR: '/', BL_LOGDIR: '/log',
			BL_RUNDIR: '/run', BL_USER: '', BL_UPLOADDIR: '/up', BL_ACCESSLOG: '/dev/null' },
	});
	assert.equal(conf.status, 0, conf.stderr);
	assert.match(conf.stdout, /"BURNLINK_NOTIFY_ALLOW" => "127\.0\.0\.1\/32 http"/);
});

test('make run passes no BURNLINK_NOTIFY_ALLOW when it is not set', async () => {
	const r = runSh({ PORT: String(await freePort()) });
	assert.equal(r.status, 0, `${r.error || ''} ${r.stderr}`);
	assert.ok(!r.stdout.includes('BURNLINK_NOTIFY_ALLOW'), r.stdout);
});
