// vanished-host.mjs: run by failover.test.mjs inside a network namespace of
// its own (unshare -n), where it may change the routing: a PostgreSQL
// server on 127.0.0.1 that stops answering without a word, as a host that is
// powered off or cut from the network does (nothing refuses, nothing resets:
// what is sent is never acknowledged). A FastCGI responder holds a kept
// connection to it; the route to the server's port is then made a blackhole
// (an `ip rule` ahead of the local table), a create is sent, the route
// restored, and a create sent again. Prints one JSON line: what each create
// was answered and after how long.
import { execFileSync } from 'node:child_process';
import * as cluster from './cluster.mjs';

process.env.BURNLINK_BIN ||= 'build/pg';
const { startServer } = await import('../lib/server.mjs');

const ip = (...args) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

async function create(base, text) {
	const t0 = Date.now();
	try {
		const res = await fetch(`${base}/api/secrets`, {
			// a connection of its own: lighttpd may close an idle kept-alive one as it is reused
			method: 'POST', headers: { Connection: 'close', 'Content-Type': 'application/json' },
			body: JSON.stringify({ text }), signal: AbortSignal.timeout(Number(process.env.HANG_MS || 60000)),
		});
		const body = await res.json();
		return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after'), ms: Date.now() - t0 };
	} catch (e) {
		return { status: 0, error: `${e} ${e.cause ?? ''}`, ms: Date.now() - t0 };
	}
}

ip('link', 'set', 'lo', 'up');
// on a port found free (again on another one if it was taken meanwhile)
const { port, value: pg } = await cluster.onFreePort((p) => cluster.newCluster({ tcpPort: p }));
const db = pg.createDatabase();
const srv = await startServer({ server: 'lighttpd-fastcgi', env: { BURNLINK_DB: `postgresql://burnlink@127.0.0.1:${port}/${db}` } });
const out = {};
try {
	out.before = await create(srv.base, 'before');	// the create responder keeps its connection
	// Packets to the server's port go nowhere; every other address and port still works.
	ip('rule', 'add', 'pref', '100', 'lookup', 'local');
	ip('rule', 'del', 'pref', '0');
	ip('rule', 'add', 'pref', '10', 'to', '127.0.0.1', 'ipproto', 'tcp', 'dport', String(port), 'blackhole');
	out.vanished = await create(srv.base, 'vanished');
	ip('rule', 'del', 'pref', '10');
	out.back = await create(srv.base, 'back');
	out.log = srv.errorLog().split('\n').filter((l) => l.startsWith('burnlink:')).map((l) => l.replace(/^burnlink: req_[^:]*: /, ''));
} finally {
	await srv.stop();
	pg.remove();
}
console.log(JSON.stringify(out));
