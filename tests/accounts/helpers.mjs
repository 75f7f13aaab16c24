// helpers.mjs: the accounts suite's clients. A Browser keeps a cookie jar the
// way a browser does and sends what a page of the site sends (Origin, the
// CSRF token), through the real CGI programs run by tests/lib/cgi.mjs.
//
//   const ctx = accountsContext();             // sign-up open, fresh database
//   const b = new Browser(ctx);
//   await b.signup('alice@example.org', 'a long password');
//   const res = await b.req('keys', { method: 'POST', body: { name: 'ci' } });

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { newContext, ROOT } from '../lib/cgi.mjs';
import { countersPath, seedCounter as writeCounter } from '../lib/counters.mjs';

export const HOST = 'burnlink.test';
export const ORIGIN = `https://${HOST}`;
export const PASSWORD = 'correct horse battery';

// A fresh database with sign-up open (unless env says otherwise).
export function accountsContext(env = {}) {
	return newContext({ BURNLINK_SIGNUP: 'open', ...env });
}

// Parses one Set-Cookie value: {name, value, attrs: {lower-cased name: value or true}}.
export function parseSetCookie(h) {
	const [pair, ...rest] = h.split(';').map((s) => s.trim());
	const i = pair.indexOf('=');
	const attrs = {};
	for (const a of rest) {
		const j = a.indexOf('=');
		if (j < 0) attrs[a.toLowerCase()] = true;
		else attrs[a.slice(0, j).toLowerCase()] = a.slice(j + 1);
	}
	return { name: pair.slice(0, i), value: pair.slice(i + 1), attrs };
}

/*
 * A browser of one person: a cookie jar (one session cookie), the CSRF token of
 * the last session answer, and the request headers a page of the site sends.
 *   opts.ip      REMOTE_ADDR (default 192.0.2.10)
 *   opts.host    HTTP_HOST (default burnlink.test)
 *   opts.https   HTTPS on (default true)
 */
export class Browser {
	constructor(ctx, opts = {}) {
		this.ctx = ctx;
		this.ip = opts.ip || '192.0.2.10';
		this.host = opts.host || HOST;
		this.https = opts.https !== false;
		this.cookies = new Map();
		this.csrf = null;
		this.account = null;
	}

	get origin() {
		return `${this.https ? 'https' : 'http'}://${this.host}`;
	}

	cookieHeader() {
		return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
	}

	/*
	 * One request to program. opts: method, pathInfo, body, env (more CGI
	 * variables; null removes one), origin (false: none; a string: that
	 * Origin), csrf (false: no token; a string: that token).
	 */
	async req(program, opts = {}) {
		const env = {
			HTTP_HOST: this.host,
			HTTPS: this.https ? 'on' : undefined,
			REMOTE_ADDR: this.ip,
			REQUEST_URI: `/api/${program}${opts.pathInfo || ''}`,
		};
		const method = opts.method || (opts.body !== undefined ? 'POST' : 'GET');
		if (this.cookies.size) env.HTTP_COOKIE = this.cookieHeader();
		if (method !== 'GET' && method !== 'HEAD') {
			if (opts.origin !== false) env.HTTP_ORIGIN = typeof opts.origin === 'string' ? opts.origin : this.origin;
			const token = opts.csrf === undefined ? this.csrf : opts.csrf;
			if (token) env.HTTP_X_CSRF_TOKEN = token;
		}
		Object.assign(env, opts.env || {});
		const res = await this.ctx.run(program, { method, pathInfo: opts.pathInfo, body: opts.body, env, noHeaderCheck: opts.noHeaderCheck });
		const sc = res.headers['set-cookie'];
		if (sc) {
			const c = parseSetCookie(sc);
			if (c.value === '' || c.attrs['max-age'] === '0') this.cookies.delete(c.name);
			else this.cookies.set(c.name, c.value);
		}
		if (res.json && typeof res.json === 'object' && 'signedIn' in res.json) {
			this.csrf = res.json.csrfToken || null;
			this.account = res.json.account || null;
		}
		return res;
	}

	signup(email, password = PASSWORD, opts = {}) {
		return this.req('signup', { method: 'POST', body: { email, password }, ...opts });
	}

	signin(email, password = PASSWORD, opts = {}) {
		return this.req('session', { method: 'POST', body: { email, password }, ...opts });
	}

	me() {
		return this.req('session');
	}

	signout(opts = {}) {
		return this.req('session', { method: 'DELETE', ...opts });
	}

	// POST /api/secrets from the create page (session attribution).
	create(body = { text: 'hello' }, opts = {}) {
		return this.req('create', { method: 'POST', body, env: { REQUEST_URI: '/api/secrets' }, ...opts });
	}
}

// A browser signed up (and so signed in) as email; asserts success.
export async function signedUp(ctx, email, opts = {}) {
	const b = new Browser(ctx, opts);
	const res = await b.signup(email);
	if (res.status !== 200) throw new Error(`sign-up of ${email}: ${res.status} ${res.body}`);
	return b;
}

// POST /api/secrets with an API key (as curl or the CLI would: no cookie, no Origin).
export function createWithKey(ctx, key, body = { text: 'from a key' }) {
	return ctx.run('create', { method: 'POST', body, env: { HTTP_AUTHORIZATION: `Bearer ${key}` } });
}

// Runs tools/burnlink-admin on the context's database; {code, stdout, stderr, json}.
export function admin(ctx, args, input) {
	const base = path.resolve(ROOT, process.env.BURNLINK_BIN || '.');
	let prog = path.join(base, 'tools', 'burnlink-admin');
	if (!fs.existsSync(prog)) prog = path.join(base, '..', 'tools', 'burnlink-admin');
	// a context on PostgreSQL (tests/pg/hook.mjs) names its database in BURNLINK_DB
	const db = ctx.env.BURNLINK_DB === ctx.db ? ['--db', ctx.db] : [];
	const r = spawnSync(prog, [...db, ...args], {
		input, encoding: 'utf8', env: { PATH: process.env.PATH, ...ctx.env },
	});
	let json;
	try { json = JSON.parse(r.stdout); } catch { json = undefined; }
	return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

// Makes a session look idle for ms, or signed in ms ago (moves its times back).
export function ageSessions(ctx, { idleMs = 0, createdMs = 0 } = {}) {
	if (idleMs) ctx.sql(`UPDATE sessions SET seen_at = seen_at - ${Math.trunc(idleMs)}`);
	if (createdMs) ctx.sql(`UPDATE sessions SET created_at = created_at - ${Math.trunc(createdMs)}`);
}

// Sets a rate-limit counter in its current window, as the limiter keys it:
// HMAC-SHA-256(install secret, name NUL subject). The install secret exists
// once a program has run. subject: string or Buffer.
export function seedCounter(ctx, name, subject, windowSec, count) {
	const key = fs.readFileSync(path.join(ctx.dir, 'secret.key'));
	const b = crypto.createHmac('sha256', key)
		.update(Buffer.concat([Buffer.from(name + '\0'), Buffer.from(subject)])).digest('hex');
	const now = Math.floor(Date.now() / 1000);
	const start = now - (now % windowSec);
	writeCounter(countersPath(ctx.db), b, start, windowSec, count);
}

// Rows in a table, 0 when the database (or the table) does not exist yet: a
// request refused before it needed the database never creates it.
export function rows(ctx, table) {
	if (!fs.existsSync(ctx.db)) return 0;
	const r = spawnSync('sqlite3', ['-cmd', '.timeout 10000', ctx.db, `SELECT count(*) FROM ${table}`], { encoding: 'utf8' });
	return r.status === 0 ? Number(r.stdout.trim()) : 0;
}
