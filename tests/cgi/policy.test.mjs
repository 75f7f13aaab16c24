// policy.test.mjs: the operator's settings file (docs/ADMIN.md, "The settings
// file"): each setting enforced by POST /api/secrets with its INVALID_* code and
// a hint naming the instance's limit, and reflected in GET /api/config; a bad
// file answers 503 CONFIG_INVALID from every program, logged with file and
// line, with nothing created or consumed.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newContext, checkError, ROOT } from '../lib/cgi.mjs';

const ctx = newContext();
let nfile = 0;

// A settings file with these lines; the env that names it (BURNLINK_CONFIG).
function settings(text) {
	const f = path.join(ctx.dir, `settings-${++nfile}.conf`);
	fs.writeFileSync(f, text);
	return { BURNLINK_CONFIG: f };
}

async function config(env = {}) {
	const res = await ctx.run('config', { method: 'GET', env, noHeaderCheck: true });
	assert.equal(res.status, 200, res.body.toString());
	assert.equal(res.headers['cache-control'], 'public, max-age=300');
	return res.json;
}

async function refused(env, body, code) {
	const res = await ctx.create(body, { env });
	return checkError(assert, res, 400, code);
}

async function accepted(env, body) {
	const res = await ctx.create(body, { env });
	assert.equal(res.status, 200, res.body.toString());
	return res.json;
}

// A create that is accepted with a lifetime of ttl seconds: its expiresAt lies
// ttl after the request's start and answer (whole seconds: a second either
// side), not within a few seconds of a clock read after a slow answer.
async function assertTtl(env, body, ttl) {
	const t0 = Date.now();
	const j = await accepted(env, body);
	const t1 = Date.now();
	const exp = Date.parse(j.metadata.expiresAt);
	assert.ok(exp >= t0 + ttl * 1000 - 1000 && exp <= t1 + ttl * 1000 + 1000,
		`expiresAt ${j.metadata.expiresAt}: not ${ttl} s after ${new Date(t0).toISOString()}..${new Date(t1).toISOString()}`);
}

const DEFAULT_CHOICES = [1800, 3600, 14400, 43200, 86400, 259200, 604800, 1209600, 2592000, 7776000];

describe('GET /api/config', () => {
	test('without a settings file: the limits of docs/API.md, cacheable, not counted', async () => {
		const res = await ctx.run('config', { method: 'GET', noHeaderCheck: true });
		assert.equal(res.status, 200);
		assert.equal(res.headers['cache-control'], 'public, max-age=300');
		assert.equal(res.headers['x-content-type-options'], 'nosniff');
		assert.match(res.headers['content-type'], /^application\/json/);
		assert.equal(res.headers['x-ratelimit-limit'], undefined, 'not counted');
		assert.deepEqual(res.json, {
			apiVersion: 1,
			create: 'anyone',
			limits: {
				ttl: { min: 1800, max: 7776000, default: 86400, choices: DEFAULT_CHOICES },
				maxViews: { min: 1, max: 999, default: 1, unlimited: true, forced: false },
				passphrase: { min: 4, max: 256, required: false },
				content: { min: 0, max: 2097152 },
				files: { min: 0, max: 20, allowed: true },
				body: { min: 0, max: 4194304 },
			},
			features: { accounts: true, signup: false, notifications: true, requests: true },
			signIn: { password: true, webServer: false, logoutUrl: null },
			branding: { siteName: null, accentColor: null, logoUrl: null, imprintUrl: null, footerText: null },
		});
	});

	test('HEAD answers as GET without the body; POST is 405 with Allow: GET, HEAD', async () => {
		const head = await ctx.run('config', { method: 'HEAD', noHeaderCheck: true });
		assert.equal(head.status, 200);
		assert.equal(head.body.length, 0);
		const post = await ctx.run('config', { method: 'POST', body: {} });
		checkError(assert, post, 405, 'METHOD_NOT_ALLOWED');
		assert.equal(post.headers.allow, 'GET, HEAD');
	});

	test('branding and sign-up are reflected', async () => {
		const env = settings([
			'# the page',
			'site_name = Acme secrets',
			'accent_color = #0b6e4f',
			'logo_url = /assets/acme.svg',
			'imprint_url = https://acme.example/imprint',
			'footer_text = Run by Acme IT — ask us.',
			'signup = open',
			'',
		].join('\n'));
		const j = await config(env);
		assert.deepEqual(j.branding, {
			siteName: 'Acme secrets', accentColor: '#0b6e4f', logoUrl: '/assets/acme.svg',
			imprintUrl: 'https://acme.example/imprint', footerText: 'Run by Acme IT — ask us.',
		});
		assert.equal(j.features.signup, true);
	});
});

describe('expiry', () => {
	const env = settings('expiry_choices = 1h, 1d, 7d\n');
	test('the choices are offered; the maximum is the largest choice', async () => {
		const j = await config(env);
		assert.deepEqual(j.limits.ttl, { min: 1800, max: 604800, default: 86400, choices: [3600, 86400, 604800] });
	});
	test('a ttl above the maximum is INVALID_TTL, the hint names 7 days', async () => {
		const e = await refused(env, { text: 'x', ttl: 604801 }, 'INVALID_TTL');
		assert.match(e.hint, /604800/);
		assert.match(e.hint, /7 days/);
	});
	test('the maximum itself is accepted', async () => {
		await assertTtl(env, { text: 'x', ttl: 604800 }, 604800);
	});
	test('expiry_default and expiry_max: the default applies to a create without ttl', async () => {
		const e2 = settings('expiry_choices = 30m, 1h, 2d\nexpiry_default = 1h\nexpiry_max = 3d\n');
		const j = await config(e2);
		assert.deepEqual(j.limits.ttl, { min: 1800, max: 259200, default: 3600, choices: [1800, 3600, 172800] });
		await assertTtl(e2, { text: 'x' }, 3600);
		await assertTtl(e2, { text: 'x', ttl: null }, 3600);
		await refused(e2, { text: 'x', ttl: 259201 }, 'INVALID_TTL');
	});
	test('expiry_max alone trims the default choices and always offers itself', async () => {
		const j = await config(settings('expiry_max = 2d\n'));
		assert.deepEqual(j.limits.ttl.choices, [1800, 3600, 14400, 43200, 86400, 172800]);
		assert.equal(j.limits.ttl.max, 172800);
	});
});

describe('views', () => {
	const env = settings('views_max = 5\nviews_default = 2\nviews_unlimited = no\n');
	test('reflected in /api/config', async () => {
		assert.deepEqual((await config(env)).limits.maxViews,
			{ min: 1, max: 5, default: 2, unlimited: false, forced: false });
	});
	test('above views_max is INVALID_MAX_VIEWS, the hint names 5 and no unlimited', async () => {
		const e = await refused(env, { text: 'x', maxViews: 6 }, 'INVALID_MAX_VIEWS');
		assert.match(e.hint, /from 1 to 5/);
		assert.match(e.hint, /unlimited/);
	});
	test('null (unlimited) is refused when unlimited views are off', async () => {
		const e = await refused(env, { text: 'x', maxViews: null }, 'INVALID_MAX_VIEWS');
		assert.match(e.hint, /does not allow unlimited/);
	});
	test('the default applies without maxViews; the maximum is accepted', async () => {
		assert.equal((await accepted(env, { text: 'x' })).metadata.maxViews, 2);
		assert.equal((await accepted(env, { text: 'x', maxViews: 5 })).metadata.maxViews, 5);
	});
	test('views_forced: only that value', async () => {
		const f = settings('views_forced = 1\n');
		assert.deepEqual((await config(f)).limits.maxViews,
			{ min: 1, max: 1, default: 1, unlimited: false, forced: true });
		const e = await refused(f, { text: 'x', maxViews: 2 }, 'INVALID_MAX_VIEWS');
		assert.match(e.hint, /only maxViews 1/);
		await refused(f, { text: 'x', maxViews: null }, 'INVALID_MAX_VIEWS');
		assert.equal((await accepted(f, { text: 'x' })).metadata.maxViews, 1);
	});
	test('without settings, null is still unlimited', async () => {
		assert.equal((await accepted({}, { text: 'x', maxViews: null })).metadata.maxViews, null);
	});
});

describe('passphrase', () => {
	const env = settings('passphrase_required = yes\npassphrase_min = 12\n');
	test('reflected in /api/config', async () => {
		assert.deepEqual((await config(env)).limits.passphrase, { min: 12, max: 256, required: true });
	});
	test('none sent is INVALID_PASSPHRASE_FORMAT, the hint says it is required and names 12', async () => {
		const e = await refused(env, { text: 'x' }, 'INVALID_PASSPHRASE_FORMAT');
		assert.match(e.hint, /requires a passphrase/);
		assert.match(e.hint, /12 to 256/);
		await refused(env, { text: 'x', passphrase: null }, 'INVALID_PASSPHRASE_FORMAT');
	});
	test('11 characters are too short, the hint names 12; 12 are accepted', async () => {
		const e = await refused(env, { text: 'x', passphrase: 'elevenchars' }, 'INVALID_PASSPHRASE_FORMAT');
		assert.match(e.hint, /12 to 256/);
		assert.equal((await accepted(env, { text: 'x', passphrase: 'twelve chars' })).metadata.hasPassphrase, true);
	});
});

describe('content and files', () => {
	test('content_max: the hint names 1 KiB', async () => {
		const env = settings('content_max = 1KiB\n');
		assert.deepEqual((await config(env)).limits.content, { min: 0, max: 1024 });
		const e = await refused(env, { text: 'x'.repeat(1025) }, 'INVALID_CONTENT_SIZE');
		assert.match(e.hint, /1 KiB \(1024 bytes\)/);
		await accepted(env, { text: 'x'.repeat(1024) });
	});
	const file = (n) => ({ filename: `f${n}.txt`, mimeType: 'text/plain', data: 'data:text/plain;base64,aGk=' });
	test('files_max: the hint names 2', async () => {
		const env = settings('files_max = 2\n');
		assert.deepEqual((await config(env)).limits.files, { min: 0, max: 2, allowed: true });
		const e = await refused(env, { text: 'x', files: [file(1), file(2), file(3)] }, 'INVALID_FILES');
		assert.match(e.hint, /At most 2 files/);
		await accepted(env, { text: 'x', files: [file(1), file(2)] });
	});
	test('files_allowed = no: any file is INVALID_FILES; text alone is fine', async () => {
		const env = settings('files_allowed = no\n');
		assert.deepEqual((await config(env)).limits.files, { min: 0, max: 0, allowed: false });
		const e = await refused(env, { text: 'x', files: [file(1)] }, 'INVALID_FILES');
		assert.match(e.hint, /does not accept files/);
		await accepted(env, { text: 'x', files: [] });
	});
});

describe('who may create, sign-up', () => {
	test('create = accounts: anonymous creation is 401 NOT_SIGNED_IN, an API key creates', async () => {
		const env = settings('create = accounts\n');
		assert.equal((await config(env)).create, 'accounts');
		const n = Number(ctx.sql('SELECT count(*) FROM secrets'));
		const e = checkError(assert, await ctx.create({ text: 'x' }, { env }), 401, 'NOT_SIGNED_IN');
		assert.match(e.hint, /only signed-in users and API keys/);
		assert.equal(Number(ctx.sql('SELECT count(*) FROM secrets')), n, 'nothing stored');
		// an account and a key, made through the sign-up endpoint and the dashboard's key endpoint
		const open = { ...settings('create = accounts\nsignup = open\n') };
		const web = { HTTP_HOST: 'burnlink.test', HTTPS: 'on', REMOTE_ADDR: '192.0.2.7', HTTP_ORIGIN: 'https://burnlink.test' };
		const su = await ctx.run('signup', { method: 'POST', body: { email: 'op@example.org', password: 'a long password' }, env: { ...open, ...web } });
		assert.equal(su.status, 200, su.body.toString());
		const cookie = su.headers['set-cookie'].split(';')[0];
		const key = await ctx.run('keys', { method: 'POST', body: { name: 'ci' }, env: { ...open, ...web, HTTP_COOKIE: cookie, HTTP_X_CSRF_TOKEN: su.json.csrfToken } });
		assert.equal(key.status, 200, key.body.toString());
		const made = await ctx.create({ text: 'x' }, { env: { ...env, HTTP_AUTHORIZATION: `Bearer ${key.json.key}` } });
		assert.equal(made.status, 200, made.body.toString());
	});
	test('signup = open opens sign-up; BURNLINK_SIGNUP=closed overrides the file', async () => {
		const env = settings('signup = open\n');
		const web = { HTTP_HOST: 'burnlink.test', HTTPS: 'on', REMOTE_ADDR: '192.0.2.8', HTTP_ORIGIN: 'https://burnlink.test' };
		assert.equal((await ctx.run('session', { method: 'GET', env })).json.signup, 'open');
		const closed = { ...env, BURNLINK_SIGNUP: 'closed' };
		assert.equal((await config(closed)).features.signup, false);
		checkError(assert, await ctx.run('signup', { method: 'POST', body: { email: 'x@example.org', password: 'a long password' }, env: { ...closed, ...web } }), 403, 'SIGNUP_CLOSED');
		const ok = await ctx.run('signup', { method: 'POST', body: { email: 'y@example.org', password: 'a long password' }, env: { ...env, ...web } });
		assert.equal(ok.status, 200, ok.body.toString());
	});
	test('BURNLINK_SIGNUP=open still opens sign-up without a file', async () => {
		assert.equal((await config({ BURNLINK_SIGNUP: 'open' })).features.signup, true);
	});
});

describe('a settings file that is not allowed', () => {
	const cases = [
		['an unknown key', 'views_max = 5\nmax_views = 5\n', 2, /unknown setting "max_views"/],
		['a bad value', '# c\nviews_max = 1000\n', 2, /views_max = 1000: allowed: a whole number from 1 to 999/],
		['a looser expiry', 'expiry_max = 100d\n', 1, /expiry_max = 100d: allowed/],
		['a looser passphrase minimum', 'passphrase_min = 3\n', 1, /passphrase_min = 3: allowed/],
		['a looser content size', 'content_max = 3MiB\n', 1, /content_max = 3MiB: allowed/],
		['more files', 'files_max = 21\n', 1, /files_max = 21: allowed/],
		['a key set twice', 'views_max = 5\n\nviews_max = 6\n', 3, /set twice \(first on line 1\)/],
		['a default above the maximum', 'views_max = 5\nviews_default = 7\n', 2, /views_default: must be at most views_max/],
		['a default not among the choices', 'expiry_choices = 1h, 1d\nexpiry_default = 2d\n', 2, /expiry_default: must be one of/],
		['choices out of order', 'expiry_choices = 1d, 1h\n', 1, /expiry_choices = 1h: allowed/],
		['views forced with a maximum', 'views_max = 3\nviews_forced = 1\n', 2, /views_forced: leave/],
		['a line without =', 'views_max 5\n', 1, /not "key = value"/],
		['a logo on another site', 'logo_url = https://cdn.example/logo.png\n', 1, /logo_url = .*: allowed: a path on this site/],
		['a colour that is not one', 'accent_color = red\n', 1, /accent_color = red: allowed/],
		['a C1 control in the site name', 'site_name = Acme\u0085secrets\n', 1, /site_name = .*: allowed: 1 to 64 bytes of text without control characters/],
	];
	for (const [name, text, line, re] of cases) {
		test(`${name}: 503 CONFIG_INVALID, logged with file and line`, async () => {
			const env = settings(text);
			const res = await ctx.create({ text: 'x' }, { env });
			checkError(assert, res, 503, 'CONFIG_INVALID');
			assert.ok(res.stderr.includes(`settings: ${env.BURNLINK_CONFIG}:${line}: `), res.stderr);
			assert.match(res.stderr, re);
		});
	}
	test('a BURNLINK_CONFIG that does not exist is an error, not "no settings"', async () => {
		const f = path.join(ctx.dir, 'no-such.conf');
		const res = await ctx.create({ text: 'x' }, { env: { BURNLINK_CONFIG: f } });
		checkError(assert, res, 503, 'CONFIG_INVALID');
		assert.ok(res.stderr.includes(`${f}: cannot open the settings file`), res.stderr);
	});

	test('every program answers 503 and nothing is created, consumed or burned', async () => {
		const s = await ctx.createOk({ text: 'kept', maxViews: 2 });
		const env = settings('views_max = 5\nbogus = 1\n');
		const before = ctx.sql('SELECT count(*), sum(view_count), group_concat(state) FROM secrets');
		const runs = [
			['create', { method: 'POST', body: { text: 'x' } }],
			['metadata', { method: 'GET', pathInfo: `/${s.secretKey}` }],
			['retrieve', { method: 'POST', pathInfo: `/${s.secretKey}` }],
			['delete', { method: 'DELETE', pathInfo: `/${s.receiptKey}` }],
			['session', { method: 'GET' }],
			['signup', { method: 'POST', body: { email: 'z@example.org', password: 'a long password' } }],
			['password', { method: 'POST', body: {} }],
			['keys', { method: 'GET' }],
			['mysecrets', { method: 'GET' }],
			['config', { method: 'GET' }],
		];
		for (const [prog, opts] of runs) {
			const res = await ctx.run(prog, { ...opts, env });
			checkError(assert, res, 503, 'CONFIG_INVALID');
			assert.equal(res.headers['x-ratelimit-limit'], undefined, `${prog}: not even counted`);
			assert.ok(res.stderr.includes(`${env.BURNLINK_CONFIG}:2: unknown setting "bogus"`), `${prog}: ${res.stderr}`);
		}
		assert.equal(ctx.sql('SELECT count(*), sum(view_count), group_concat(state) FROM secrets'), before);
		const m = await ctx.metadata(s.secretKey);
		assert.equal(m.json.viewsRemaining, 2, 'no view used');
	});
});

test('every setting of conf/burnlink.conf.example is valid once uncommented', async () => {
	const lines = fs.readFileSync(path.join(ROOT, 'conf/burnlink.conf.example'), 'utf8').split('\n');
	const keys = lines.filter((l) => /^# [a-z_]+ = /.test(l)).map((l) => l.slice(2));
	assert.ok(keys.length >= 19, `${keys.length} settings in the example`);
	// views_forced excludes the other views settings: checked on its own
	const forced = keys.filter((l) => l.startsWith('views_forced'));
	const rest = keys.filter((l) => !l.startsWith('views_forced'));
	for (const text of [rest.join('\n'), forced.join('\n')]) {
		const res = await ctx.run('config', { method: 'GET', env: settings(text + '\n'), noHeaderCheck: true });
		assert.equal(res.status, 200, `${text}\n${res.stderr}`);
	}
});
