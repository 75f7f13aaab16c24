// docs.test.mjs: docs/metrics/: the alert rules pass promtool check rules and
// fire when they should (promtool test rules, alerts.test.yml), and every
// metric the rules and the Grafana dashboard name is one the programs expose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, newContext } from '../lib/cgi.mjs';
import { newToken, writeSettings, samples, promtoolCheckRules } from './helpers.mjs';

const RULES = path.join(ROOT, 'docs/metrics/alerts.yml');
const DASHBOARD = path.join(ROOT, 'docs/metrics/grafana-dashboard.json');

test('promtool check rules passes on docs/metrics/alerts.yml', () => {
	const r = promtoolCheckRules(RULES);
	assert.equal(r.status, 0, r.out);
	assert.match(r.out, /SUCCESS: \d+ rules found/);
});

test('the alert rules fire when cleanup stops, the outbox backs up, the limiter fills (promtool test rules)', () => {
	const r = spawnSync('promtool', ['test', 'rules', 'alerts.test.yml'], {
		cwd: path.join(ROOT, 'tests/metrics'), encoding: 'utf8',
	});
	assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

// Every burnlink_* name in the rules and the dashboard, from a scrape of a real instance.
test('every metric docs/metrics/ names is exposed by GET /api/metrics', async () => {
	const token = newToken();
	const ctx = newContext();
	try {
		ctx.env.BURNLINK_CONFIG = writeSettings(ctx.dir, `metrics_token = ${token}\n`);
		await ctx.createOk({ text: 'x' });
		assert.equal((await ctx.cleanup()).code, 0);	// the cleanup record's gauges
		const r = await ctx.run('metrics', { method: 'GET', noHeaderCheck: true,
			env: { HTTP_AUTHORIZATION: `Bearer ${token}` } });
		assert.equal(r.status, 200);
		const exposed = new Set(Object.keys(samples(r.body.toString())).map((k) => k.split('{')[0]));
		const dash = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8'));
		const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr));
		const text = `${fs.readFileSync(RULES, 'utf8')}\n${exprs.join('\n')}`;
		const named = new Set(text.match(/burnlink_[a-z_]+/g));
		for (const n of named)
			if (!process.env.BURNLINK_TEST_PG || n !== 'burnlink_ratelimit_capacity')
				assert.ok(exposed.has(n), `${n} (docs/metrics/) is not exposed`);
		assert.ok(named.size >= 10);
	} finally {
		ctx.remove();
	}
});
