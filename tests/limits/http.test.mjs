// The same behaviours over HTTP through real servers: the rate-limit headers,
// API keys passed through (Apache hides Authorization from CGI by default), and
// X-Forwarded-For honoured only from a trusted proxy.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startServer, rawRequest } from '../lib/server.mjs';
import { admin, sql, inOneWindow } from './helpers.mjs';

const SERVERS = (process.env.BURNLINK_LIMITS_SERVERS || 'lighttpd apache htaccess').split(/\s+/).filter(Boolean);

// POST /api/secrets on a new connection each time (a kept-alive one may be
// closed by the server while a slow admin command runs in between); the answer
// is checked against docs/openapi.yaml by rawRequest.
async function post(srv, headers = {}) {
	const body = JSON.stringify({ text: 'over http' });
	const res = await rawRequest(srv.base, {
		method: 'POST', path: '/api/secrets', body,
		headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
	});
	const h = res.headers;
	return {
		status: res.status, json: res.json(),
		limit: Number(h['x-ratelimit-limit']),
		remaining: Number(h['x-ratelimit-remaining']),
		reset: Number(h['x-ratelimit-reset']),
	};
}

for (const server of SERVERS) {
	// The counts are per UTC day: a run that straddles midnight runs again,
	// once, on a new server.
	test(`${server}: headers, API keys and X-Forwarded-For over HTTP`, (t) => inOneWindow(86400, async () => {
		let srv;
		try {
			srv = await startServer({ server });
		} catch (e) {
			t.skip(`${server} unavailable: ${e.message}`);
			return;
		}
		try {
			const ctx = { db: srv.db, dir: srv.db.replace(/\/[^/]*$/, ''), env: {} };
			const anon = await post(srv);
			assert.equal(anon.status, 200);
			assert.equal(anon.limit, 1000);
			assert.equal(anon.remaining, 999);
			assert.ok(anon.reset > Date.now() / 1000);
			// not trusted: a forged header changes nothing, the peer is counted
			const forged = await post(srv, { 'x-forwarded-for': '203.0.113.9' });
			assert.equal(forged.remaining, 998);

			assert.equal(admin(ctx, 'account', 'create', 'http-user').code, 0);
			const issued = admin(ctx, 'key', 'issue', 'http-user');
			assert.equal(issued.code, 0, issued.stderr);
			const key = issued.stdout.trim();
			const keyed = await post(srv, { authorization: `Bearer ${key}` });
			assert.equal(keyed.status, 200, JSON.stringify(keyed.json));
			assert.equal(sql(srv.db, `SELECT count(*) FROM secrets WHERE account_id = 1`), '1',
				'the Authorization header reached the program');
			const bad = await post(srv, { authorization: 'Bearer bl_nope' });
			assert.equal(bad.status, 401);
			assert.equal(bad.json.code, 'INVALID_API_KEY');
			assert.equal(bad.remaining, 996, "the bad key was counted against the address");
		} finally {
			await srv.stop();
		}
	}));
}

test('lighttpd behind a trusted proxy: X-Forwarded-For names the client', (t) => inOneWindow(86400, async () => {
	let srv;
	try {
		srv = await startServer({ server: 'lighttpd', env: { BURNLINK_TRUSTED_PROXIES: '127.0.0.0/8, ::1' } });
	} catch (e) {
		t.skip(`lighttpd unavailable: ${e.message}`);
		return;
	}
	try {
		const a = await post(srv, { 'x-forwarded-for': '203.0.113.21' });
		const b = await post(srv, { 'x-forwarded-for': '203.0.113.22' });
		const c = await post(srv, { 'x-forwarded-for': '198.51.100.1, 203.0.113.21' });
		assert.deepEqual([a.remaining, b.remaining, c.remaining], [999, 999, 998]);
	} finally {
		await srv.stop();
	}
}));
