// prometheus.test.mjs: GET /api/metrics through lighttpd: who may read it (the
// token, the networks; everyone else gets exactly the 404 of a path that is no
// endpoint), and a real Prometheus server on loopback scraping it with the
// bearer token, read back through Prometheus' HTTP API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startServer, rawRequest, freePort, ROOT } from '../lib/server.mjs';
import { newToken, writeSettings, tmpDir } from './helpers.mjs';

const KIND = process.env.BURNLINK_SERVER || 'lighttpd';
let srv, token, confDir, conf;

before(async () => {
	token = newToken();
	confDir = tmpDir('burnlink-metrics-conf-');
	conf = writeSettings(confDir, `metrics_token = ${token}\n`);
	srv = await startServer({ server: KIND, env: { BURNLINK_CONFIG: conf } });
});
after(async () => {
	await srv?.stop();
	fs.rmSync(confDir, { recursive: true, force: true });
});

function settings(text) {
	fs.writeFileSync(conf, text);
}

// The parts of an answer that must not tell a hidden endpoint from none.
function shape(r) {
	const h = { ...r.headers };
	delete h['x-request-id'];
	delete h.date;
	delete h['x-ratelimit-remaining'];
	// The framing: Apache sends a CGI program's answer with Content-Length when
	// the whole of it was read before the headers went out, chunked otherwise
	// (a matter of timing on a busy machine); the body is compared whole below.
	delete h['content-length'];
	delete h['transfer-encoding'];
	const body = r.json();
	delete body.requestId;
	return { status: r.status, headers: Object.keys(h).sort(), contentType: h['content-type'], body };
}

async function get(p, headers = {}) {
	return rawRequest(srv.base, { method: 'GET', path: p, headers });
}

test(`${KIND}: without the token, with a wrong one, or from another network: the 404 of no endpoint`, async () => {
	// The same request to a path that is no endpoint answers the same (headers
	// a server adds for a request header, e.g. Apache's Vary, included).
	const same = async (what, headers) => {
		const none = shape(await get('/api/no-such-endpoint', headers));
		assert.equal(none.status, 404);
		assert.deepEqual(shape(await get('/api/metrics', headers)), none, what);
	};
	for (const [what, headers] of [
		['no token', {}],
		['a wrong token', { Authorization: `Bearer ${newToken()}` }],
		['the token as Basic', { Authorization: `Basic ${token}` }],
		['the token with a byte more', { Authorization: `Bearer ${token}x` }],
		['a forged X-Forwarded-For', { 'X-Forwarded-For': '127.0.0.1' }],
	])
		await same(what, headers);
	// An allowed network that is not the client's: still nothing.
	settings(`metrics_token = ${token}\nmetrics_allow = 10.0.0.0/8, fd00::/8\n`);
	try {
		await same('another network', { 'X-Forwarded-For': '10.1.2.3' });
		const post = (p) => rawRequest(srv.base, { method: 'POST', path: p,
			headers: { 'Content-Type': 'application/json' }, body: '{}' });
		assert.deepEqual(shape(await post('/api/metrics')), shape(await post('/api/no-such-endpoint')), 'POST');
	} finally {
		settings(`metrics_token = ${token}\n`);
	}
});

test(`${KIND}: the token, or the client's network, reads the metrics`, async () => {
	const ok = await get('/api/metrics', { Authorization: `Bearer ${token}` });
	assert.equal(ok.status, 200, ok.text);
	assert.equal(ok.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
	assert.match(ok.text, /^burnlink_build_info\{/m);
	const head = await rawRequest(srv.base, { method: 'HEAD', path: '/api/metrics', headers: { Authorization: `bearer ${token}` } });
	assert.equal(head.status, 200);
	settings('metrics_allow = 127.0.0.0/8, ::1/128\n');
	try {
		const net = await get('/api/metrics');
		assert.equal(net.status, 200, net.text);
		assert.match(net.text, /^# TYPE burnlink_secrets gauge$/m);
	} finally {
		settings(`metrics_token = ${token}\n`);
	}
});

// ---- a real Prometheus ---------------------------------------------------------

// Starts prometheus on a free loopback port scraping srv every second with the token.
// The port is found free and let go before prometheus binds it: another process
// may take it in between, and prometheus then exits; it is started again on
// another port (5 tries).
async function startPrometheus() {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startPrometheusOnce();
		} catch (e) {
			if (!/address already in use/i.test(e.message) || attempt >= 5) throw e;
		}
	}
}

async function startPrometheusOnce() {
	const dir = tmpDir('burnlink-prometheus-');
	const port = await freePort();
	const target = new URL(srv.base).host;
	fs.writeFileSync(path.join(dir, 'token'), token, { mode: 0o600 });
	fs.writeFileSync(path.join(dir, 'prometheus.yml'), [
		'global:',
		'  scrape_interval: 1s',
		'  scrape_timeout: 1s',
		'scrape_configs:',
		'  - job_name: burnlink',
		'    metrics_path: /api/metrics',
		'    authorization:',
		'      type: Bearer',
		`      credentials_file: ${path.join(dir, 'token')}`,
		'    static_configs:',
		`      - targets: ['${target}']`,
		'',
	].join('\n'));
	const child = spawn('prometheus', [
		`--config.file=${path.join(dir, 'prometheus.yml')}`,
		`--storage.tsdb.path=${path.join(dir, 'data')}`,
		`--web.listen-address=127.0.0.1:${port}`,
		'--log.level=warn',
	], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
	let log = '';
	child.stderr.on('data', (c) => { log += c; });
	const base = `http://127.0.0.1:${port}`;
	const prom = {
		base, log: () => log,
		async stop() {
			if (child.exitCode === null) {
				const gone = new Promise((r) => child.once('exit', r));
				process.kill(-child.pid, 'SIGTERM');
				await gone;
			}
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	process.once('exit', () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } });
	// Ready when its HTTP API answers /-/ready (polled; its exit ends the wait).
	for (;;) {
		if (child.exitCode !== null) {
			fs.rmSync(dir, { recursive: true, force: true });
			throw new Error(`prometheus exited:\n${log}`);
		}
		try {
			if ((await fetch(`${base}/-/ready`)).status === 200) return prom;
		} catch { /* not listening yet */ }
		await new Promise((r) => setTimeout(r, 100));
	}
}

// The value of an instant query's single series, or undefined when none.
async function query(prom, q) {
	const r = await fetch(`${prom.base}/api/v1/query?query=${encodeURIComponent(q)}`);
	const j = await r.json();
	assert.equal(j.status, 'success', JSON.stringify(j));
	return j.data.result.length === 1 ? Number(j.data.result[0].value[1]) : undefined;
}

// Polls q until pred(value) holds (scrapes come every second), failing after
// 60 s with what was last seen: a bound on the wait, not a timing assertion.
async function until(prom, q, pred) {
	const end = Date.now() + 60000;
	let v;
	for (;;) {
		v = await query(prom, q);
		if (v !== undefined && pred(v)) return v;
		if (Date.now() > end) assert.fail(`${q}: last ${v}; prometheus log:\n${prom.log()}`);
		await new Promise((r) => setTimeout(r, 200));
	}
}

async function api(method, p, json) {
	const r = await fetch(srv.base + p, {
		method, headers: json ? { 'Content-Type': 'application/json' } : {},
		body: json ? JSON.stringify(json) : undefined,
	});
	return { status: r.status, body: await r.json() };
}

test(`${KIND}: a real Prometheus scrapes the instance with the token and sees secrets created, viewed and burned`, async () => {
	const prom = await startPrometheus();
	try {
		// The target is up (a scrape succeeded through lighttpd with the token).
		await until(prom, 'up{job="burnlink"}', (v) => v === 1);
		const before = await until(prom, 'burnlink_events_total{kind="secret.created"}', () => true);
		const keys = [];
		for (let i = 0; i < 3; i++) {
			const c = await api('POST', '/api/secrets', { text: `metrics ${i}`, maxViews: 2 });
			assert.equal(c.status, 200);
			keys.push(c.body.metadata.secretKey);
		}
		assert.equal((await api('POST', `/api/secrets/${keys[0]}`, {})).status, 200);
		assert.equal((await api('DELETE', `/api/secrets/${keys[1]}`)).status, 200);
		await until(prom, 'burnlink_events_total{kind="secret.created"}', (v) => v === before + 3);
		await until(prom, 'burnlink_events_total{kind="secret.viewed"}', (v) => v >= 1);
		await until(prom, 'burnlink_events_total{kind="secret.burned"}', (v) => v >= 1);
		await until(prom, 'burnlink_secrets{state="burned"}', (v) => v >= 1);
		await until(prom, 'burnlink_http_requests_total{endpoint="create",code="2xx"}', (v) => v >= 3);
		// Prometheus' own view of the counter: its increase is what was done.
		await until(prom, 'sum(burnlink_http_requests_total{endpoint="metrics",code="2xx"})', (v) => v >= 1);
		await until(prom, 'burnlink_build_info', (v) => v === 1);
		// Every query of the example dashboard is one Prometheus accepts.
		const dash = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/metrics/grafana-dashboard.json'), 'utf8'));
		for (const p of dash.panels) {
			for (const t of p.targets) {
				const q = t.expr.replaceAll('$job', 'burnlink').replaceAll('$instance', '.*')
					.replaceAll('$__rate_interval', '1m');
				const r = await (await fetch(`${prom.base}/api/v1/query?query=${encodeURIComponent(q)}`)).json();
				assert.equal(r.status, 'success', `${p.title}: ${q}: ${JSON.stringify(r)}`);
			}
		}
	} finally {
		await prom.stop();
	}
});
