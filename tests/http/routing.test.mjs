// routing.test.mjs: method routing, 405, 413 and 404 for odd paths, HEAD and
// OPTIONS, through the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
	KIND, start, api, assertError, create, rawRequest, UNKNOWN_KEY,
} from './helpers.mjs';
import { routeTable } from '../lib/openapi.mjs';

let srv;
let c;	// one secret, created first
before(async () => {
	srv = await start();
	c = await create(srv, { maxViews: 5 });
});
after(async () => {
	await srv?.stop();
});

function allowList(res) {
	return (res.headers.get ? res.headers.get('allow') : res.headers.allow || '')
		.split(',').map((s) => s.trim()).filter(Boolean).sort();
}

test(`${KIND}: GET, POST and DELETE on /api/secrets/<key> reach metadata, retrieve and delete`, async () => {
	const sk = c.metadata.secretKey;
	let r = await api(srv, 'GET', `/api/secrets/${sk}`);
	assert.equal(r.status, 200);
	assert.equal(r.body.viewsRemaining, 5);		// metadata: no view used
	r = await api(srv, 'POST', `/api/secrets/${sk}`, { json: {} });
	assert.equal(r.status, 200);
	assert.equal(r.body.viewsRemaining, 4);		// retrieve: one view used
	const d = await create(srv);
	r = await api(srv, 'DELETE', `/api/secrets/${d.metadata.key}`);
	assert.equal(r.status, 200);
	assert.equal(r.body.state, 'burned');		// delete
});

test(`${KIND}: a query string does not change the route`, async () => {
	const r = await api(srv, 'GET', `/api/secrets/${c.metadata.secretKey}?x=1&y=/../`);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.body.type, 'secret');
});

test(`${KIND}: 405 with Allow for other methods on /api/secrets`, async () => {
	for (const m of ['GET', 'PUT', 'DELETE', 'PATCH']) {
		const r = await api(srv, m, '/api/secrets');
		assertError(r, 405, 'METHOD_NOT_ALLOWED');
		assert.deepEqual(allowList(r.res), ['POST']);
	}
});

test(`${KIND}: 405 with Allow for other methods on /api/secrets/<key>`, async () => {
	for (const m of ['PUT', 'PATCH', 'PROPFIND']) {
		const r = await rawRequest(srv.base, { method: m, path: `/api/secrets/${c.metadata.secretKey}`, headers: { 'Content-Length': '0' } });
		assert.equal(r.status, 405, `${m}: ${r.text}`);
		assert.equal(r.json().code, 'METHOD_NOT_ALLOWED');
		assert.deepEqual(allowList(r), ['DELETE', 'GET', 'HEAD', 'POST']);
	}
});

test(`${KIND}: OPTIONS is answered by the program: 405 with Allow, no CORS`, async () => {
	let r = await rawRequest(srv.base, { method: 'OPTIONS', path: '/api/secrets' });
	assert.equal(r.status, 405, r.text);
	assert.equal(r.json().code, 'METHOD_NOT_ALLOWED');
	assert.deepEqual(allowList(r), ['POST']);
	r = await rawRequest(srv.base, {
		method: 'OPTIONS', path: `/api/secrets/${c.metadata.secretKey}`,
		headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'DELETE' },
	});
	assert.equal(r.status, 405, r.text);
	assert.deepEqual(allowList(r), ['DELETE', 'GET', 'HEAD', 'POST']);
	assert.equal(r.headers['access-control-allow-origin'], undefined);
});

test(`${KIND}: HEAD answers as GET without a body and uses no view`, async () => {
	const sk = c.metadata.secretKey;
	const get = await rawRequest(srv.base, { method: 'GET', path: `/api/secrets/${sk}` });
	const head = await rawRequest(srv.base, { method: 'HEAD', path: `/api/secrets/${sk}` });
	assert.equal(head.status, 200);
	assert.equal(head.body.length, 0);
	assert.equal(head.headers['content-type'], get.headers['content-type']);
	assert.equal(head.headers['cache-control'], 'no-store');
	const m = await api(srv, 'GET', `/api/secrets/${sk}`);
	assert.equal(m.body.viewsRemaining, get.json().viewsRemaining);
	const miss = await rawRequest(srv.base, { method: 'HEAD', path: `/api/secrets/${UNKNOWN_KEY}` });
	assert.equal(miss.status, 404);
	assert.equal(miss.body.length, 0);
});

test(`${KIND}: 413 PAYLOAD_TOO_LARGE from the program just above 4 MiB`, async () => {
	const body = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
	const r = await api(srv, 'POST', '/api/secrets', { body, headers: { 'Content-Type': 'application/json' } });
	assertError(r, 413, 'PAYLOAD_TOO_LARGE');
	// Exactly 4 MiB is not too large (it is just not a valid request).
	const ok = await api(srv, 'POST', '/api/secrets', { body: body.subarray(1), headers: { 'Content-Type': 'application/json' } });
	assertError(ok, 400, 'INVALID_JSON');
});

test(`${KIND}: a 6 MiB body gets the API's JSON 413, not the server's page`, async () => {
	// The servers' own limit is 64 MiB, far above the API's 4 MiB, so the
	// program answers (and reads the rest of the body, for streaming servers).
	const body = Buffer.alloc(6 * 1024 * 1024, 0x20);
	const r = await api(srv, 'POST', '/api/secrets', { body, headers: { 'Content-Type': 'application/json' } });
	assertError(r, 413, 'PAYLOAD_TOO_LARGE');
	// And the server still serves.
	const m = await api(srv, 'GET', `/api/secrets/${c.metadata.secretKey}`);
	assert.equal(m.status, 200);
});

// With only a .htaccess, Apache maps the path to a file before the rewrite
// rules are read, and a path segment longer than a file name (255 bytes) is
// 403 there. Keys are 22 characters; anything that long is refused either way.
const LONG_SEGMENT = KIND === 'htaccess' ? [404, 403] : [404];

test(`${KIND}: 404 for odd API paths`, async () => {
	for (const [p, ok = [404]] of [
		['/api/secrets/../x'],
		// above the root: refused as a bad request by some servers
		['/api/secrets/../../../../etc/passwd', [404, 400]],
		['/api/secrets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd', [404, 400]],
		['/api/secrets/%2e%2e/x'],
		['/api/secrets/a%2Fb'],
		[`/api/secrets/${UNKNOWN_KEY}%2F..`],
		[`/api/secrets/${UNKNOWN_KEY}%00`, [404, 400]],
		[`/api/secrets/${UNKNOWN_KEY}/`],
		[`/api/secrets/${UNKNOWN_KEY}/extra`],
		[`/api/secrets/${UNKNOWN_KEY.slice(1)}`],
		[`/api/secrets/${UNKNOWN_KEY}A`],
		[`/api/secrets/${UNKNOWN_KEY}=`],
		[`/api/secrets/${'A'.repeat(200)}`],
		[`/api/secrets/${'A'.repeat(2000)}`, LONG_SEGMENT],
		['/api/secrets/'],
		['/api/secrets//x'],
		['/api/secret'],
		['/api/'],
		['/api'],
		['/api/x'],
		['/cgi-bin/create'],
		['/cgi-bin/metadata/AAAAAAAAAAAAAAAAAAAAAA'],
		// the database is outside the document root; such names are also refused
		['/var/burnlink.db', [404, 403]],
		['/burnlink.db', [404, 403]],
		['/.htaccess', [404, 403]],
	]) {
		const r = await rawRequest(srv.base, { method: 'GET', path: p });
		assert.ok(ok.includes(r.status), `${p}: ${r.status} ${r.text.slice(0, 200)}`);
		if ((r.headers['content-type'] || '').startsWith('application/json')) {
			assert.equal(r.json().code, 'NOT_FOUND', p);
		}
	}
});

test(`${KIND}: every other path under /api/ is the API's JSON 404, whatever the method`, async () => {
	// With only a .htaccess, /api is the folder of openapi.yaml: the server's 404.
	const paths = [...(KIND === 'htaccess' ? [] : ['/api']), '/api/', '/api/x', '/api/foo/bar', '/api/secret', '/api/config/',
		'/api/health/', '/api/session/', '/api/totp/', '/api/config/x', '/api/keys/+2', '/api/webhooks/1/',
		'/api/my/secrets/', '/api/openapi.yaml/', '/api/x?y=1'];
	for (const p of paths) {
		for (const method of ['GET', 'POST', 'DELETE', 'PUT']) {
			const r = await rawRequest(srv.base, {
				method, path: p, headers: { 'Content-Type': 'application/json' },
				body: method === 'GET' ? undefined : '{}',
			});
			assert.equal(r.status, 404, `${method} ${p}: ${r.status} ${r.text.slice(0, 200)}`);
			assert.match(r.headers['content-type'] || '', /^application\/json/, `${method} ${p}`);
			const j = r.json();
			assert.equal(j.code, 'NOT_FOUND', `${method} ${p}`);
			assert.equal(j.error, 'No such API endpoint.', `${method} ${p}`);
			assert.match(j.hint, /openapi\.yaml/);
			assert.equal(r.headers['cache-control'], 'no-store');
		}
	}
	// The endpoints themselves still answer.
	assert.equal((await api(srv, 'GET', '/api/config')).status, 200);
	assertError(await api(srv, 'GET', '/api/keys'), 401, 'NOT_SIGNED_IN');
	// the second factor's program (docs/API.md, "/totp"), routed by every server
	assertError(await api(srv, 'GET', '/api/totp'), 401, 'NOT_SIGNED_IN');
	assertError(await api(srv, 'DELETE', '/api/totp', { json: { code: '123456' } }), 401, 'NOT_SIGNED_IN');
	assertError(await api(srv, 'PUT', '/api/totp', { json: {} }), 405, 'METHOD_NOT_ALLOWED');
	assertError(await api(srv, 'GET', '/api/totp/1'), 404, 'NOT_FOUND');
});

// The server's routing is generated from the route table (lib/route.c,
// scripts/routes-gen.c): every route's URL reaches its program, whose 405
// names the methods of that route.
test(`${KIND}: every route of the table reaches its program`, async () => {
	const key = 'A'.repeat(22);
	for (const rt of routeTable()) {
		const paths = [];
		if (rt.path !== 'key') paths.push([rt.url, rt.allow]);
		if (rt.path === 'key') paths.push([`${rt.url}/${key}`, rt.allow]);
		if (rt.path === 'item' || rt.path === 'key_item') paths.push([`${rt.url}/${key}`, rt.allowItem]);
		for (const [p, allow] of paths) {
			const r = await rawRequest(srv.base, { method: 'PUT', path: p, headers: { 'Content-Length': '0' } });
			if (rt.hidden) {
				// its program answers the 404 of no endpoint to whom it does not
				// serve (tests/metrics reaches it through every server)
				assert.equal(r.status, 404, `${rt.name}: PUT ${p}: ${r.status}`);
				assert.equal(r.json().code, 'NOT_FOUND');
				continue;
			}
			assert.equal(r.status, 405, `${rt.name}: PUT ${p}: ${r.status} ${r.text.slice(0, 200)}`);
			assert.equal(r.json().code, 'METHOD_NOT_ALLOWED');
			assert.deepEqual(allowList(r), allow.split(', ').sort(), `${rt.name}: PUT ${p}`);
		}
	}
});

test(`${KIND}: a very long key is refused, not served`, async () => {
	const r = await rawRequest(srv.base, { method: 'GET', path: `/api/secrets/${'A'.repeat(20000)}` });
	assert.ok([404, 414, 431, 400, 403].includes(r.status), `got ${r.status}`);
	for (const m of ['POST', 'DELETE', 'GET']) {
		const p = await rawRequest(srv.base, { method: m, path: `/api/secrets/${'A'.repeat(6000)}`, headers: { 'Content-Type': 'application/json' }, body: '{}' });
		assert.ok(LONG_SEGMENT.includes(p.status), `${m}: got ${p.status}`);
	}
});

test(`${KIND}: the pages answer GET and HEAD; only exact page paths exist`, async () => {
	for (const p of ['/', `/secret/${c.metadata.secretKey}`, `/receipt/${c.metadata.key}`]) {
		const g = await rawRequest(srv.base, { method: 'GET', path: p });
		assert.equal(g.status, 200, p);
		assert.match(g.headers['content-type'], /^text\/html/);
		const h = await rawRequest(srv.base, { method: 'HEAD', path: p });
		assert.equal(h.status, 200, p);
		assert.equal(h.body.length, 0);
	}
	for (const p of ['/secret/', '/secret', '/receipt/', `/secret/${c.metadata.secretKey}/x`]) {
		const r = await rawRequest(srv.base, { method: 'GET', path: p });
		assert.equal(r.status, 404, p);
	}
});
