// docs/openapi.yaml is a valid OpenAPI 3.1 document, and the check that the
// shared request helpers run on every response (tests/lib/openapi.mjs) fails
// on answers it does not allow: a wrong shape, an unknown field, a code the
// operation cannot answer, a missing header, a status it does not list. Also
// through the hooks themselves: fetch() and rawRequest() of tests/lib/server.mjs
// and runCgi() of tests/lib/cgi.mjs reject such an answer.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { responseProblems, checkResponse, SPEC_PATH } from '../lib/openapi.mjs';
import { checkResponsesOf, rawRequest } from '../lib/server.mjs';
import { runCgi } from '../lib/cgi.mjs';
import { server, create, meta, randomKey } from './helpers.mjs';

test('docs/openapi.yaml is a valid OpenAPI 3.1 document', async () => {
	const v = new Validator();
	// parsed here: the validator's own YAML parse stops at 100 aliases (the spec has more)
	const { default: YAML } = await import('yaml');
	const r = await v.validate(YAML.parse(fs.readFileSync(SPEC_PATH, 'utf8'), { maxAliasCount: -1 }));
	assert.equal(v.version, '3.1');
	assert.ok(r.valid, JSON.stringify(r.errors, null, 1));
});

test('every error code docs/openapi.yaml lets an operation answer is named in docs/API.md', async () => {
	const { default: YAML } = await import('yaml');
	const spec = YAML.parse(fs.readFileSync(SPEC_PATH, 'utf8'), { maxAliasCount: -1 });
	const api = fs.readFileSync(path.join(path.dirname(SPEC_PATH), 'API.md'), 'utf8');
	const codes = new Set();
	(function walk(o) {
		if (o === null || typeof o !== 'object') return;
		if (o.code && Array.isArray(o.code.enum)) o.code.enum.forEach((c) => codes.add(c));
		if (o.code && typeof o.code.const === 'string') codes.add(o.code.const);
		Object.values(o).forEach(walk);
	})(spec);
	assert.ok(codes.size > 40, `codes found: ${codes.size}`);
	assert.deepEqual([...codes].filter((c) => !new RegExp(`\\b${c}\\b`).test(api)), []);
});

// A real answer as the checker sees it: { method, path, status, headers, body }.
async function captured(r, method, p) {
	const headers = {};
	r.headers.forEach((v, k) => { headers[k] = v; });
	return { method, path: p, status: r.status, headers, body: r.text };
}

test('the check passes real answers and fails altered ones', async (t) => {
	const srv = await server();
	t.after(() => srv.stop());

	const ok = await captured(await create(srv, { text: 'shape' }), 'POST', '/api/secrets');
	assert.equal(ok.status, 200);
	assert.deepEqual(responseProblems(ok), []);
	const body = JSON.parse(ok.body);
	const altered = (b, more = {}) => ({ ...ok, body: JSON.stringify(b), ...more });
	const fails = (res, re) => {
		const problems = responseProblems(res);
		assert.ok(problems.some((p) => re.test(p)), `expected ${re}: ${JSON.stringify(problems)}`);
		assert.throws(() => checkResponse(res), /does not match docs\/openapi\.yaml/);
	};

	// the body's shape
	const { success, ...noSuccess } = body;
	assert.equal(success, true);
	fails(altered(noSuccess), /must have required property 'success'/);
	fails(altered({ ...body, extra: 1 }), /must NOT have additional properties.*extra/);
	fails(altered({ ...body, metadata: { ...body.metadata, secretKey: 'short' } }), /secretKey must match pattern/);
	fails(altered({ ...body, metadata: { ...body.metadata, maxViews: 0 } }), /maxViews/);
	fails({ ...ok, body: 'not json' }, /the body is not JSON/);
	// headers
	const { 'x-ratelimit-remaining': _r, ...noRemaining } = ok.headers;
	fails({ ...ok, headers: noRemaining }, /header X-RateLimit-Remaining is missing/);
	fails({ ...ok, headers: { ...ok.headers, 'cache-control': 'public' } }, /header Cache-Control/);
	fails({ ...ok, headers: { ...ok.headers, 'x-ratelimit-limit': 'many' } }, /header X-RateLimit-Limit/);
	fails({ ...ok, headers: { ...ok.headers, 'content-type': 'text/html' } }, /Content-Type "text\/html"/);
	// statuses and codes by operation
	fails({ ...ok, status: 201 }, /status 201 is not one of/);
	const nf = await captured(await meta(srv, randomKey()), 'GET', `/api/secrets/${randomKey()}`);
	assert.equal(nf.status, 404);
	assert.deepEqual(responseProblems(nf), []);
	const err = JSON.parse(nf.body);
	fails({ ...nf, body: JSON.stringify({ ...err, code: 'INVALID_TTL' }) }, /code must be equal to constant/);
	fails({ ...nf, body: JSON.stringify({ ...err, requestId: 'req_short' }) }, /requestId must match pattern/);
	const { hint, ...noHint } = err;
	assert.equal(typeof hint, 'string');
	fails({ ...nf, body: JSON.stringify(noHint) }, /must have required property 'hint'/);
	// HEAD is checked without a body; a method the path does not serve is the 405 of x-burnlink-other-methods
	assert.deepEqual(responseProblems({ ...nf, method: 'HEAD', body: '' }), []);
	fails({ ...nf, method: 'PUT' }, /status 404 is not one of 405/);
	// paths the description does not name are not checked
	assert.deepEqual(responseProblems({ ...ok, path: '/secret/abc', status: 999 }), []);
});

test('the request helpers reject an answer the description does not allow', async (t) => {
	// A stand-in server that answers every request with a wrong shape.
	const fake = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			const body = JSON.stringify({ secretUrl: 'http://x/secret/AAAAAAAAAAAAAAAAAAAAAA' });
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
			res.end(body);
		});
	});
	await new Promise((resolve) => fake.listen(0, '127.0.0.1', resolve));
	t.after(() => new Promise((resolve) => fake.close(resolve)));
	const base = `http://127.0.0.1:${fake.address().port}`;
	checkResponsesOf(base);

	await assert.rejects(fetch(`${base}/api/secrets`, { method: 'POST', body: '{}' }),
		/POST \/api\/secrets → 200: .*must have required property 'success'/s);
	await assert.rejects(rawRequest(base, { method: 'POST', path: '/api/secrets', body: '{}' }),
		/POST \/api\/secrets → 200: header X-Request-Id is missing/);
	const unchecked = await rawRequest(base, { method: 'POST', path: '/api/secrets', body: '{}', noSpecCheck: true });
	assert.equal(unchecked.status, 200);
	// not an API path: through unchanged
	assert.equal((await fetch(`${base}/robots.txt`)).status, 200);
});

test('runCgi rejects a program whose answer the description does not allow', async (t) => {
	// A stand-in "create" that answers 200 without the body's fields.
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-openapi-'));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	fs.mkdirSync(path.join(dir, 'cgi-bin'));
	fs.writeFileSync(path.join(dir, 'cgi-bin', 'create'),
		'#!/bin/sh\nprintf \'Status: 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 2\\r\\n\\r\\n{}\'\n',
		{ mode: 0o755 });
	const saved = process.env.BURNLINK_BIN;
	process.env.BURNLINK_BIN = dir;
	t.after(() => {
		if (saved === undefined) delete process.env.BURNLINK_BIN;
		else process.env.BURNLINK_BIN = saved;
	});
	await assert.rejects(runCgi('create', { method: 'POST', body: { text: 'x' } }),
		/create .*does not match docs\/openapi\.yaml.*must have required property 'success'/s);
	const r = await runCgi('create', { method: 'POST', body: { text: 'x' }, noSpecCheck: true });
	assert.equal(r.status, 200);
});

test('GET /api/config and GET /api/health: real answers pass, altered ones fail', async (t) => {
	const srv = await server();
	t.after(() => srv.stop());
	const fails = (res, re) => {
		const problems = responseProblems(res);
		assert.ok(problems.some((p) => re.test(p)), `expected ${re}: ${JSON.stringify(problems)}`);
	};

	// fetch()'s answer with its text, as the helpers give it
	const get = async (p) => {
		const r = await fetch(srv.base + p);
		return captured({ status: r.status, headers: r.headers, text: await r.text() }, 'GET', p);
	};
	const c = await get('/api/config');
	assert.equal(c.status, 200);
	assert.equal(c.headers['cache-control'], 'public, max-age=300');
	assert.deepEqual(responseProblems(c), []);
	const cb = JSON.parse(c.body);
	const cfg = (b, more = {}) => ({ ...c, body: JSON.stringify(b), ...more });
	fails({ ...c, headers: { ...c.headers, 'cache-control': 'no-store' } }, /header Cache-Control/);
	fails(cfg({ ...cb, extra: 1 }), /must NOT have additional properties.*extra/);
	const { choices, ...noChoices } = cb.limits.ttl;
	assert.ok(Array.isArray(choices));
	fails(cfg({ ...cb, limits: { ...cb.limits, ttl: noChoices } }), /must have required property 'choices'/);
	fails(cfg({ ...cb, limits: { ...cb.limits, ttl: { ...cb.limits.ttl, max: 7776001 } } }), /ttl\/max must be <= 7776000/);
	fails(cfg({ ...cb, limits: { ...cb.limits, maxViews: { ...cb.limits.maxViews, forced: true, unlimited: true } } }),
		/maxViews\/unlimited must be equal to constant/);
	fails(cfg({ ...cb, create: 'nobody' }), /create must be equal to one of the allowed values/);
	fails(cfg({ ...cb, branding: { ...cb.branding, accentColor: 'red' } }), /accentColor/);

	// the test server's cleanup has not run: fine while the installation is
	// new; made older than two hours (its install secret), 503 naming
	// cleanup, as described
	const young = await get('/api/health');
	assert.equal(young.status, 200, young.body);
	assert.deepEqual(responseProblems(young), []);
	const key = srv.db ? path.join(path.dirname(srv.db), 'secret.key') : '';
	assert.ok(key && fs.existsSync(key), `the install secret beside the database (${key})`);
	const then = new Date(Date.now() - 3 * 3600e3);
	fs.utimesSync(key, then, then);
	const h = await get('/api/health');
	assert.equal(h.status, 503, h.body);
	assert.deepEqual(responseProblems(h), []);
	const hb = JSON.parse(h.body);
	assert.deepEqual(hb.failed, ['cleanup']);
	const health = (b, more = {}) => ({ ...h, body: JSON.stringify(b), ...more });
	fails(health({ ...hb, status: 'ok' }), /status must be equal to constant/);
	const { version, ...noVersion } = hb;
	assert.match(version, /^[A-Za-z0-9._+~-]+$/);
	fails(health(noVersion), /must have required property 'version'/);
	fails(health({ ...hb, failed: [] }), /failed must NOT have fewer than 1 items/);
	fails(health({ ...hb, checks: { ...hb.checks, cleanup: { ok: false, lastRun: null } } }), /must have required property 'error'/);
	const { code, ...noCode } = hb;
	assert.equal(code, 'UNHEALTHY');
	fails(health(noCode), /must have required property 'code'/);
	// as a 200: a healthy body passes; one with a failed check does not
	const okBody = { status: 'ok', version: hb.version, host: hb.host, checks: { ...hb.checks, cleanup: { ok: true, lastRun: new Date().toISOString() } }, failed: [] };
	assert.deepEqual(responseProblems(health(okBody, { status: 200 })), []);
	fails(health({ ...okBody, checks: { ...okBody.checks, database: { ok: false, error: 'STORE_UNAVAILABLE: x' } } }, { status: 200 }),
		/database\/ok must be equal to constant/);
});
