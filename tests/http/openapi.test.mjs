// The API's OpenAPI description is served at /api/openapi.yaml by every server
// configuration (lighttpd, Apache, .htaccess, nginx): the file of docs/, as
// YAML, for GET and HEAD only.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT } from '../lib/server.mjs';
import { KIND, start, rawRequest } from './helpers.mjs';

const SPEC = fs.readFileSync(path.join(ROOT, 'docs', 'openapi.yaml'));

test(`${KIND}: /api/openapi.yaml is docs/openapi.yaml`, async (t) => {
	const srv = await start();
	t.after(() => srv.stop());

	const res = await fetch(`${srv.base}/api/openapi.yaml`);
	assert.equal(res.status, 200);
	assert.match(res.headers.get('content-type') || '', /^application\/yaml(;|$)/);
	assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
	const body = Buffer.from(await res.arrayBuffer());
	assert.ok(body.equals(SPEC), 'the served file is docs/openapi.yaml, byte for byte');
	assert.equal(YAML.parse(body.toString('utf8'), { maxAliasCount: -1 }).openapi, '3.1.0');

	const head = await rawRequest(srv.base, { method: 'HEAD', path: '/api/openapi.yaml' });
	assert.equal(head.status, 200);
	assert.equal(head.body.length, 0);

	// Not a way into the document root: other methods and near names are not the file.
	const post = await rawRequest(srv.base, { method: 'POST', path: '/api/openapi.yaml', headers: { 'content-length': '0' } });
	assert.ok(post.status === 404 || post.status === 405, `POST: ${post.status}`);
	assert.ok(!post.body.includes('openapi: 3.1.0'));
	for (const p of ['/api/openapi.yml', '/api/openapi.yaml/', '/api/openapi.yaml.bak', '/api/openapi']) {
		const r = await rawRequest(srv.base, { path: p });
		assert.equal(r.status, 404, `${p}: ${r.status}`);
	}
});
