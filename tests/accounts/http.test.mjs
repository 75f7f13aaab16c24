// The account endpoints and /dashboard through real servers (lighttpd, Apache,
// Apache with only the .htaccess files, and nginx where installed): routing of
// every path and method, the cookie and the CSRF header reaching the programs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

import { startServer } from '../lib/server.mjs';

function have(bin) {
	try {
		execFileSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

const servers = ['lighttpd', 'apache', 'htaccess'];
if (have('nginx') && have('fcgiwrap')) servers.push('nginx');

for (const kind of servers) {
	describe(`accounts over ${kind}`, { skip: kind !== 'lighttpd' && kind !== 'nginx' && !have('apache2') ? 'apache2 is not installed' : false }, () => {
		let srv;
		before(async () => { srv = await startServer({ server: kind, env: { BURNLINK_SIGNUP: 'open' } }); });
		after(async () => { if (srv) await srv.stop(); });

		test('sign up, key, create with it, my secrets, burn, revoke, sign out; /dashboard', async () => {
			let cookie = '', token = '';
			const call = async (method, path, body, extra = {}) => {
				const headers = { Origin: srv.base, ...extra };
				if (cookie) headers.Cookie = cookie;
				if (token && method !== 'GET') headers['X-CSRF-Token'] = token;
				if (body !== undefined) headers['Content-Type'] = 'application/json';
				const res = await fetch(srv.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
				const sc = res.headers.get('set-cookie');
				if (sc) cookie = /Max-Age=0/.test(sc) ? '' : sc.split(';')[0];
				const json = await res.json().catch(() => null);
				if (json && json.csrfToken) token = json.csrfToken;
				return { status: res.status, json, headers: res.headers };
			};
			const up = await call('POST', '/api/signup', { email: 'kim@example.org', password: 'long enough pw' });
			assert.equal(up.status, 200, JSON.stringify(up.json));
			assert.match(cookie, /^burnlink_session=[A-Za-z0-9_-]{43}$/);
			assert.match(up.headers.get('x-ratelimit-limit'), /^\d+$/);
			assert.match(up.headers.get('x-request-id'), /^req_/);
			assert.equal((await call('GET', '/api/session')).json.signedIn, true);

			const k = await call('POST', '/api/keys', { name: 'http' });
			assert.equal(k.status, 200, JSON.stringify(k.json));
			const made = await fetch(srv.base + '/api/secrets', {
				method: 'POST',
				headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${k.json.key}` },
				body: JSON.stringify({ text: 'over http' }),
			});
			assert.equal(made.status, 200);
			assert.equal((await call('POST', '/api/secrets', { text: 'signed in' })).status, 200);
			const list = await call('GET', '/api/my/secrets');
			assert.equal(list.json.secrets.length, 2);
			assert.equal((await call('DELETE', `/api/my/secrets/${list.json.secrets[0].id}`)).json.state, 'burned');
			assert.equal((await call('DELETE', `/api/keys/${k.json.apiKey.id}`)).status, 200);
			assert.equal((await call('GET', '/api/keys')).json.keys[0].active, false);
			assert.equal((await call('POST', '/api/password', { currentPassword: 'wrong one!', newPassword: 'whatever123' })).status, 401);
			const bad = await call('PUT', '/api/keys');
			assert.equal(bad.status, 405);
			assert.equal(bad.headers.get('allow'), 'GET, HEAD, POST');
			assert.equal((await call('DELETE', '/api/keys/abc')).status, 404);
			assert.equal((await call('POST', '/api/keys', { name: 'x' }, { Origin: 'https://evil.example' })).json.code, 'CSRF_REJECTED');
			assert.equal((await call('DELETE', '/api/session')).json.signedIn, false);
			assert.equal(cookie, '');
			assert.equal((await call('GET', '/api/my/secrets')).json.code, 'NOT_SIGNED_IN');

			const page = await fetch(srv.base + '/dashboard');
			assert.equal(page.status, 200);
			assert.match(page.headers.get('content-type'), /text\/html/);
			assert.match(page.headers.get('content-security-policy') || '', /script-src 'self'/);
			assert.match(await page.text(), /assets\/dashboard\.js/);
		});
	});
}
