// metrics.test.mjs: a FastCGI responder adds the metrics' totals of a whole
// batch at once, after its commit and before its answers leave (lib/metrics.c,
// bl_metrics_flush()): every answer is counted, with its own status class,
// however the batch mixes them, and a client that has its answer finds it
// counted (the scrape is a CGI process reading the counters file).
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, newContext } from '../lib/cgi.mjs';
import { startResponder } from '../faults/fcgi.mjs';
import { newToken, writeSettings, samples } from '../metrics/helpers.mjs';

test('FastCGI: a batch\'s answers are all counted, each in its class, before they leave', { timeout: 60000 }, async (t) => {
	const token = newToken();
	const ctx = newContext();
	const conf = writeSettings(ctx.dir, `metrics_token = ${token}\n`);
	ctx.env.BURNLINK_CONFIG = conf;
	const a = await ctx.createOk({ text: 'one' });
	const b = await ctx.createOk({ text: 'two' });
	const count = async (code) => {
		const r = await ctx.run('metrics', { method: 'GET', noHeaderCheck: true,
			env: { HTTP_AUTHORIZATION: `Bearer ${token}` } });
		assert.equal(r.status, 200, r.body.toString());
		return samples(r.body.toString('utf8'))[`burnlink_http_requests_total{endpoint="metadata",code="${code}"}`] ?? 0;
	};
	const ok0 = await count('2xx'), missing0 = await count('4xx');
	const rsp = await startResponder(t, 'metadata', ctx.dir, {}, { exe: path.join(ROOT, 'cgi-bin', 'metadata') });
	const env = { BURNLINK_DB: ctx.db, BURNLINK_CONFIG: conf };
	// one batch: two answers of 200 and one of 404 between them
	const sent = [];
	for (const key of [a.receiptKey, 'AAAAAAAAAAAAAAAAAAAAAA', b.receiptKey])
		sent.push(await rsp.send({ method: 'GET', key, env }));
	rsp.go();
	const answers = await Promise.all(sent.map((s) => s.answer));
	assert.deepEqual(answers.map((r) => r.status), [200, 404, 200]);
	assert.equal(await count('2xx'), ok0 + 2);
	assert.equal(await count('4xx'), missing0 + 1);
	// a batch of one, counted before its answer arrives
	const one = await (await rsp.send({ method: 'GET', key: a.receiptKey, env })).answer;
	assert.equal(one.status, 200);
	assert.equal(await count('2xx'), ok0 + 3);
	await rsp.stop();
});
