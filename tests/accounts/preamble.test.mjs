// preamble.test.mjs: every account endpoint counts the request before it
// checks the method (docs/API.md, "Every response"): a 405 is counted and
// carries the rate-limit headers, as on the secret endpoints.
import test from 'node:test';
import assert from 'node:assert/strict';

import { checkError } from '../lib/cgi.mjs';
import { accountsContext, Browser } from './helpers.mjs';
import { inOneWindow } from '../lib/counters.mjs';

const ENDPOINTS = [
	['session', 'PUT', undefined],
	['signup', 'GET', undefined],
	['password', 'GET', undefined],
	['keys', 'PUT', undefined],
	['keys', 'GET', '/1'],
	['mysecrets', 'POST', undefined],
	['mysecrets', 'GET', '/1'],
];

for (const [program, method, pathInfo] of ENDPOINTS) {
	test(`${program} ${method} ${pathInfo || ''}: the 405 is counted and carries X-RateLimit-*`, () => inOneWindow(86400, async () => {
		// the count is per UTC day: a run that straddles midnight runs again, once
		const b = new Browser(accountsContext());
		const first = await b.req(program, { method, pathInfo });
		checkError(assert, first, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(first.headers['x-ratelimit-limit'], '1000');
		assert.equal(first.headers['x-ratelimit-remaining'], '999');
		assert.match(first.headers['x-ratelimit-reset'], /^\d+$/);
		const second = await b.req(program, { method, pathInfo });
		checkError(assert, second, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(second.headers['x-ratelimit-remaining'], '998');
	}));
}
