// cgi.test.mjs: GET /api/metrics as a CGI program: the format (promtool),
// what it counts, the counters monotonic across a cleanup, the settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newContext, checkError } from '../lib/cgi.mjs';
import { newToken, writeSettings, samples, counterFamilies, promtoolCheckMetrics } from './helpers.mjs';

function setup(extra = '') {
	const token = newToken();
	const ctx = newContext();
	const conf = writeSettings(ctx.dir, `metrics_token = ${token}\n${extra}`);
	ctx.env.BURNLINK_CONFIG = conf;
	// Not JSON: the common headers but Content-Type are checked here.
	const get = (method = 'GET') => ctx.run('metrics', { method, noHeaderCheck: true,
		env: { HTTP_AUTHORIZATION: `Bearer ${token}` } });
	const scrape = async () => {
		const r = await get();
		assert.equal(r.status, 200, r.body.toString());
		return r.body.toString('utf8');
	};
	return { ctx, token, conf, get, scrape };
}

test('the answer is the Prometheus text format, and promtool check metrics passes', async () => {
	const { ctx, get, scrape } = setup();
	try {
		const r = await get();
		assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
		assert.equal(r.headers['cache-control'], 'no-store');
		assert.equal(r.headers['x-content-type-options'], 'nosniff');
		assert.equal(r.headers['referrer-policy'], 'no-referrer');
		assert.match(r.headers['x-request-id'], /^req_[A-Za-z0-9_-]{20}$/);
		const text = await scrape();
		const check = promtoolCheckMetrics(text);
		assert.equal(check.status, 0, `promtool check metrics:\n${check.out}\n${text}`);
		const backend = process.env.BURNLINK_TEST_PG ? 'postgresql' : 'sqlite';
		assert.match(text, new RegExp(`^burnlink_build_info\\{version="[^"]+",api_version="1",backend="${backend}"\\} 1$`, 'm'));
		for (const name of ['burnlink_http_requests_total', 'burnlink_rate_limited_total', 'burnlink_events_total',
			'burnlink_cleanup_runs_total'])
			assert.ok(counterFamilies(text).includes(name), `${name} is a counter`);
		for (const g of ['burnlink_secrets{state="active"}', 'burnlink_secret_requests{state="waiting"}',
			'burnlink_accounts', 'burnlink_api_keys{state="valid"}', 'burnlink_outbox_pending',
			'burnlink_outbox_oldest_age_seconds', 'burnlink_database_size_bytes', 'burnlink_ratelimit_entries'])
			assert.ok(g in samples(text), `${g} is there`);
		assert.ok(samples(text).burnlink_database_size_bytes > 0);
		const head = await get('HEAD');
		assert.equal(head.status, 200);
		assert.equal(head.body.length, 0);
	} finally {
		ctx.remove();
	}
});

test('secrets created, viewed and burned show in the gauges and the totals', async () => {
	const { ctx, scrape } = setup();
	try {
		const a = await ctx.createOk({ text: 'one', maxViews: 2 });
		const b = await ctx.createOk({ text: 'two' });
		await ctx.createOk({ text: 'three' });
		assert.equal((await ctx.retrieve(a.secretKey, {})).status, 200);
		assert.equal((await ctx.burn(b.secretKey)).status, 200);
		checkError(assert, await ctx.metadata('AAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
		const s = samples(await scrape());
		assert.equal(s['burnlink_secrets{state="active"}'], 2);
		assert.equal(s['burnlink_secrets{state="burned"}'], 1);
		assert.equal(s['burnlink_events_total{kind="secret.created"}'], 3);
		assert.equal(s['burnlink_events_total{kind="secret.viewed"}'], 1);
		assert.equal(s['burnlink_events_total{kind="secret.burned"}'], 1);
		assert.equal(s['burnlink_http_requests_total{endpoint="create",code="2xx"}'], 3);
		assert.equal(s['burnlink_http_requests_total{endpoint="metadata",code="4xx"}'], 1);
		assert.ok(s.burnlink_ratelimit_entries >= 1);
		// The counters file has a fixed size; PostgreSQL's table has none.
		if (!process.env.BURNLINK_TEST_PG) assert.equal(s.burnlink_ratelimit_capacity, 131072);
		// The scrape counts itself for the next one.
		const again = samples(await scrape());
		assert.equal(again['burnlink_http_requests_total{endpoint="metrics",code="2xx"}'], 1);
	} finally {
		ctx.remove();
	}
});

test('every counter is monotonic across a cleanup that removes rows and prunes counter windows', async () => {
	const { ctx, scrape } = setup();
	try {
		const a = await ctx.createOk({ text: 'old' });
		await ctx.createOk({ text: 'new' });
		await ctx.retrieve(a.secretKey, {});
		const before = await scrape();
		ctx.age(a.secretKey, 1000);
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		const after = await scrape();
		const b = samples(before), n = samples(after);
		for (const fam of counterFamilies(before)) {
			for (const [k, v] of Object.entries(b)) {
				if (!k.startsWith(`${fam}{`) && k !== fam) continue;
				assert.ok(n[k] >= v, `${k}: ${v} before the cleanup, ${n[k]} after`);
			}
		}
		assert.equal(n.burnlink_cleanup_runs_total, b.burnlink_cleanup_runs_total + 1);
		assert.equal(n['burnlink_cleanup_removed_total{what="secrets"}'], 1);
		assert.equal(n['burnlink_events_total{kind="secret.created"}'], 2);
		assert.equal(n['burnlink_secrets{state="active"}'], 1);
		assert.ok(n.burnlink_cleanup_last_run_timestamp_seconds > Date.now() / 1000 - 3600);
		assert.ok(n.burnlink_cleanup_last_duration_seconds >= 0);
	} finally {
		ctx.remove();
	}
});

test('every kind the audit trail records is counted once it commits: a refused passphrase, the cleanup\'s expiries and removals', async () => {
	const { ctx, scrape } = setup();
	try {
		const p = await ctx.createOk({ text: 'locked', passphrase: 'correct horse' });
		const gone = await ctx.createOk({ text: 'never read' });
		const b = samples(await scrape());
		assert.equal(b['burnlink_events_total{kind="secret.passphrase_refused"}'], 0);
		assert.equal(b['burnlink_events_total{kind="secret.expired"}'], 0);
		assert.equal(b['burnlink_events_total{kind="secret.removed"}'], 0);
		checkError(assert, await ctx.retrieve(p.secretKey, { passphrase: 'wrong' }), 403, 'INVALID_PASSPHRASE');
		checkError(assert, await ctx.retrieve(p.secretKey, { passphrase: 'wrong again' }), 403, 'INVALID_PASSPHRASE');
		const m = samples(await scrape());
		assert.equal(m['burnlink_events_total{kind="secret.passphrase_refused"}'], 2);
		// the answer's event is not counted a second time beside the audit trail's
		assert.equal(m['burnlink_events_total{kind="secret.created"}'], 2);
		ctx.age(gone.secretKey, 30 * 86400 * 1000);
		const c = await ctx.cleanup();
		assert.equal(c.code, 0, c.stderr);
		const n = samples(await scrape());
		assert.equal(n['burnlink_events_total{kind="secret.expired"}'], 1);
		assert.equal(n['burnlink_events_total{kind="secret.removed"}'], 1);
		for (const [k, v] of Object.entries(m))
			if (k.startsWith('burnlink_events_total{')) assert.ok(n[k] >= v, `${k}: ${v}, then ${n[k]}`);
		// a second cleanup finds nothing: nothing more is counted
		assert.equal((await ctx.cleanup()).code, 0);
		const o = samples(await scrape());
		assert.equal(o['burnlink_events_total{kind="secret.expired"}'], 1);
		assert.equal(o['burnlink_events_total{kind="secret.removed"}'], 1);
	} finally {
		ctx.remove();
	}
});

test('a bad metrics_token or metrics_allow is a settings error naming the key', async () => {
	for (const [line, key] of [['metrics_token = short', 'metrics_token'],
		[`metrics_token = ${'x'.repeat(31)}!`, 'metrics_token'],
		['metrics_allow = 127.0.0.1/33', 'metrics_allow'],
		['metrics_allow = example.org', 'metrics_allow'],
		['metrics_allow = 10.0.0.0/8,', 'metrics_allow']]) {
		const ctx = newContext();
		try {
			ctx.env.BURNLINK_CONFIG = writeSettings(ctx.dir, `${line}\n`);
			const r = await ctx.run('health', { method: 'GET' });
			assert.equal(r.status, 503, line);
			// publicly the line's number only; the key in the error log (docs/API.md, GET /health)
			assert.match(r.json.checks.settings.error, /^line 1 of the settings file is not valid/, line);
			assert.match(r.stderr, new RegExp(`:1: ${key} = `), line);
			if (key === 'metrics_token') {
				assert.ok(!r.body.toString().includes(line.split(' = ')[1]), 'a token, even a bad one, is not shown');
				assert.ok(!r.stderr.includes(line.split(' = ')[1]), 'nor logged');
			}
		} finally {
			ctx.remove();
		}
	}
});
