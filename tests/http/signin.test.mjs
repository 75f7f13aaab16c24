// signin.test.mjs: "sign in to create, anyone can read" with lighttpd's
// mod_auth and a user file (conf/lighttpd-signin.conf.in; INSTALL, "Sign-in
// through the web server"). The web server asks for the password on the
// create page, the dashboard and /api/session; burnlink turns its REMOTE_USER
// into a session of its own; recipients read without any sign-in; a client
// that claims a user by a header, a parameter or a cookie stays anonymous.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { KIND, start, rawRequest, decrypt, b64urlDecode } from './helpers.mjs';
import { ROOT } from '../lib/server.mjs';

const skip = KIND !== 'lighttpd' && 'lighttpd only (mod_auth); Apache: tests/browser/oidc.test.mjs';
const ALICE = 'Basic ' + Buffer.from('alice@example.org:alice password').toString('base64');
const WRONG = 'Basic ' + Buffer.from('alice@example.org:not it').toString('base64');

let srv, dir;
before(async () => {
	if (skip) return;
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-signin-'));
	fs.chmodSync(dir, 0o755);
	const users = path.join(dir, 'users');
	fs.writeFileSync(users, 'alice@example.org:alice password\nbob:bob password\n', { mode: 0o644 });
	const settings = path.join(dir, 'burnlink.conf');
	fs.writeFileSync(settings, 'signin_webserver = yes\nwebserver_create = yes\ncreate = accounts\nsignin_password = no\n', { mode: 0o644 });
	const extra = execFileSync('sh', [path.join(ROOT, 'scripts/genconf.sh'), path.join(ROOT, 'conf/lighttpd-signin.conf.in')],
		{ env: { ...process.env, BL_USERFILE: users } }).toString();
	srv = await start({ lighttpdExtra: extra, env: { BURNLINK_CONFIG: settings } });
});
after(async () => {
	await srv?.stop();
	if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// A request as a page of the site sends it; {status, headers, json, text}.
async function req(method, p, { auth, cookie, csrf, body, headers = {}, spec = true } = {}) {
	const h = { ...headers };
	if (auth) h.Authorization = auth;
	if (cookie) h.Cookie = cookie;
	if (csrf) h['X-CSRF-Token'] = csrf;
	if (body !== undefined) {
		h['Content-Type'] = 'application/json';
		h.Origin = srv.base;
	}
	const r = await rawRequest(srv.base, { method, path: p, headers: h, body: body === undefined ? undefined : JSON.stringify(body), noSpecCheck: !spec });
	let json = null;
	try { json = r.json(); } catch { /* a page, or the server's own 401 */ }
	return { ...r, json };
}

function sessionCookie(r) {
	const sc = [].concat(r.headers['set-cookie'] || []).find((c) => /burnlink_session=/.test(c));
	assert.ok(sc, 'a session cookie');
	return sc.split(';')[0];
}

test('the pages that create, the dashboard and /api/session ask the web server\'s password; the rest is open', { skip }, async () => {
	for (const p of ['/', '/dashboard', '/ask', '/api/session'])
		assert.equal((await req('GET', p, { spec: false })).status, 401, p);
	assert.equal((await req('GET', '/dashboard', { auth: WRONG, spec: false })).status, 401);
	assert.equal((await req('GET', '/dashboard', { auth: ALICE, spec: false })).status, 200);
	for (const p of ['/secret/AAAAAAAAAAAAAAAAAAAAAA', '/receipt/AAAAAAAAAAAAAAAAAAAAAA', '/assets/burnlink.css', '/api/config'])
		assert.equal((await req('GET', p, { spec: false })).status, 200, p);
	const cfg = await req('GET', '/api/config');
	assert.deepEqual(cfg.json.signIn, { password: false, webServer: true, logoutUrl: null });
});

test('signed in by the web server: create as the account; anyone reads the link; spoofing stays anonymous', { skip }, async () => {
	const me = await req('GET', '/api/session', { auth: ALICE });
	assert.equal(me.json.signedIn, false);
	assert.equal(me.json.webServerUser, true);
	const signin = await req('POST', '/api/session', { auth: ALICE, body: { webServer: true } });
	assert.equal(signin.status, 200, signin.text);
	assert.equal(signin.json.via, 'webServer');
	assert.equal(signin.json.account.email, 'alice@example.org');
	const cookie = sessionCookie(signin);
	const csrf = signin.json.csrfToken;

	// the page's creation: the session's cookie and token (the browser also sends the Basic credentials)
	const made = await req('POST', '/api/secrets', { auth: ALICE, cookie, csrf, body: { text: 'for the team', maxViews: 2 } });
	assert.equal(made.status, 200, made.text);
	const mine = await req('GET', '/api/my/secrets', { cookie });
	assert.equal(mine.json.secrets.length, 1);
	const key = await req('POST', '/api/keys', { cookie, csrf, body: { name: 'ci' } });
	assert.equal(key.status, 200, key.text);

	// anyone reads, without signing in
	const url = new URL(made.json.secretUrl);
	const read = await req('POST', url.pathname.replace('/secret/', '/api/secrets/'), { body: {} });
	assert.equal(read.status, 200, read.text);
	assert.equal(await decrypt(read.json.text, b64urlDecode(url.hash.replace('#key=', ''))), 'for the team');

	// an API key creates without any sign-in of the web server
	const withKey = await req('POST', '/api/secrets', { body: { text: 'from ci' }, headers: { Authorization: `Bearer ${key.json.key}` } });
	assert.equal(withKey.status, 200, withKey.text);

	// anonymous, and every claim of a user a client can make: 401 NOT_SIGNED_IN
	const claims = [
		{},
		{ headers: { 'Remote-User': 'alice@example.org' } },
		{ headers: { 'X-Remote-User': 'alice@example.org' } },
		{ headers: { 'X-Forwarded-User': 'alice@example.org', 'OIDC_CLAIM_email': 'alice@example.org' } },
		{ cookie: 'REMOTE_USER=alice@example.org' },
	];
	for (const c of claims) {
		const r = await req('POST', '/api/secrets', { ...c, body: { text: 'x' } });
		assert.equal(r.status, 401, JSON.stringify(c));
		assert.equal(r.json.code, 'NOT_SIGNED_IN');
	}
	const q = await req('POST', '/api/secrets?REMOTE_USER=alice%40example.org', { body: { text: 'x' } });
	assert.equal(q.json.code, 'NOT_SIGNED_IN');
	// /api/session is behind mod_auth: a header there is the server's 401, no session
	const spoofed = await req('POST', '/api/session', { headers: { 'Remote-User': 'alice@example.org' }, body: { webServer: true }, spec: false });
	assert.equal(spoofed.status, 401);
	assert.equal(spoofed.headers['set-cookie'], undefined);
	assert.equal((await req('GET', '/api/my/secrets', { cookie })).json.secrets.length, 2, 'only alice\'s two');

	// sign-out ends burnlink's session (Basic credentials end with the browser)
	const out = await req('DELETE', '/api/session', { auth: ALICE, cookie, csrf, body: {} });
	assert.equal(out.status, 200, out.text);
	assert.equal((await req('GET', '/api/my/secrets', { cookie })).json.code, 'NOT_SIGNED_IN');
});

test('another user of the file gets an account of their own, and does not see alice\'s', { skip }, async () => {
	const bob = 'Basic ' + Buffer.from('bob:bob password').toString('base64');
	const signin = await req('POST', '/api/session', { auth: bob, body: { webServer: true } });
	assert.equal(signin.status, 200, signin.text);
	assert.equal(signin.json.account.email, 'bob');
	const list = await req('GET', '/api/my/secrets', { cookie: sessionCookie(signin) });
	assert.deepEqual(list.json.secrets, []);
});

// Every server of the suite, with no authentication module: web-server
// sign-in on, and every claim of a user a client can make. A Basic
// Authorization header is the trap nginx sets for a stock fastcgi_params
// ($remote_user is the name in any Basic header, checked or not): the
// shipped configuration never passes REMOTE_USER (INSTALL, section 16).
test(`${KIND}: without an authentication module, no header, parameter or cookie signs anyone in`, async () => {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-spoof-'));
	fs.chmodSync(d, 0o755);
	const settings = path.join(d, 'burnlink.conf');
	fs.writeFileSync(settings, 'signin_webserver = yes\nwebserver_create = yes\ncreate = accounts\n', { mode: 0o644 });
	const s = await start({ env: { BURNLINK_CONFIG: settings } });
	try {
		const claims = [
			{ 'Remote-User': 'alice@example.org' },
			{ 'X-Remote-User': 'alice@example.org' },
			{ 'X-Forwarded-User': 'alice@example.org', 'X-Auth-Request-User': 'alice@example.org' },
			{ Authorization: 'Basic ' + Buffer.from('alice@example.org:anything').toString('base64') },
			{ Cookie: 'REMOTE_USER=alice@example.org' },
		];
		const send = (p, headers, body) => rawRequest(s.base, { method: 'POST', path: p,
			headers: { 'Content-Type': 'application/json', Origin: s.base, ...headers }, body: JSON.stringify(body) });
		for (const h of claims) {
			for (const p of ['/api/session', '/api/session?REMOTE_USER=alice%40example.org']) {
				const r = await send(p, h, { webServer: true });
				assert.equal(r.status, 401, `${p} ${JSON.stringify(h)}: ${r.text}`);
				assert.equal(r.json().code, 'NOT_SIGNED_IN');
				assert.equal(r.headers['set-cookie'], undefined);
			}
			const c = await send('/api/secrets', h, { text: 'x' });
			assert.equal(c.status, 401, JSON.stringify(h));
			assert.equal(c.json().code, 'NOT_SIGNED_IN');
		}
	} finally {
		await s.stop();
		fs.rmSync(d, { recursive: true, force: true });
	}
});

// Shared hosting (.htaccess only; INSTALL, section 16): HTTP Basic from the
// .htaccess files, around the pages that create and the session program.
// Signed-in create, anonymous read; a claimed user is not signed in.
test('htaccess: Basic authentication from .htaccess alone signs in to create; anyone reads', { skip: KIND !== 'htaccess' && 'the .htaccess tree only' }, async () => {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-htauth-'));
	fs.chmodSync(d, 0o755);
	const users = path.join(d, 'users');
	const hash = execFileSync('openssl', ['passwd', '-apr1', 'carol password']).toString().trim();
	fs.writeFileSync(users, `carol@example.org:${hash}\n`, { mode: 0o644 });
	const settings = path.join(d, 'burnlink.conf');
	fs.writeFileSync(settings, 'signin_webserver = yes\nwebserver_create = yes\ncreate = accounts\n', { mode: 0o644 });
	const modules = ['auth_basic', 'authn_file', 'authn_core', 'authz_user']
		.map((m) => `LoadModule ${m}_module @APACHE_MODDIR@/mod_${m}.so`).join('\n');
	const s = await start({ apacheExtra: modules, env: { BURNLINK_CONFIG: settings } });
	const basic = () => `AuthType Basic\n\tAuthName "burnlink"\n\tAuthUserFile ${users}\n\tRequire valid-user`;
	fs.appendFileSync(path.join(s.docroot, '.htaccess'), `\n<FilesMatch "^(index|ask|dashboard)\\.html$">\n\t${basic()}\n</FilesMatch>\n`);
	fs.appendFileSync(path.join(s.cgiBin, '.htaccess'), `\n<Files "session">\n\t${basic()}\n</Files>\n`);
	const CAROL = 'Basic ' + Buffer.from('carol@example.org:carol password').toString('base64');
	const send = (method, p, { headers = {}, body, spec = true } = {}) => rawRequest(s.base, { method, path: p,
		headers: { ...(body !== undefined ? { 'Content-Type': 'application/json', Origin: s.base } : {}), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body), noSpecCheck: !spec });
	try {
		assert.equal((await send('GET', '/', { spec: false })).status, 401);
		assert.equal((await send('GET', '/dashboard', { spec: false })).status, 401);
		assert.equal((await send('GET', '/dashboard', { headers: { Authorization: CAROL }, spec: false })).status, 200);
		assert.equal((await send('GET', '/secret/AAAAAAAAAAAAAAAAAAAAAA', { spec: false })).status, 200, 'the reveal page is open');
		const spoof = await send('POST', '/api/session', { headers: { 'Remote-User': 'carol@example.org' }, body: { webServer: true }, spec: false });
		assert.equal(spoof.status, 401);
		assert.equal(spoof.headers['set-cookie'], undefined);
		const signin = await send('POST', '/api/session', { headers: { Authorization: CAROL }, body: { webServer: true } });
		assert.equal(signin.status, 200, signin.text);
		assert.equal(signin.json().via, 'webServer');
		assert.equal(signin.json().account.email, 'carol@example.org');
		const cookie = [].concat(signin.headers['set-cookie'])[0].split(';')[0];
		const made = await send('POST', '/api/secrets', { headers: { Cookie: cookie, 'X-CSRF-Token': signin.json().csrfToken }, body: { text: 'shared hosting' } });
		assert.equal(made.status, 200, made.text);
		const url = new URL(made.json().secretUrl);
		const read = await send('POST', url.pathname.replace('/secret/', '/api/secrets/'), { body: {} });
		assert.equal(await decrypt(read.json().text, b64urlDecode(url.hash.replace('#key=', ''))), 'shared hosting');
		const anon = await send('POST', '/api/secrets', { headers: { 'Remote-User': 'carol@example.org' }, body: { text: 'x' } });
		assert.equal(anon.status, 401);
		assert.equal(anon.json().code, 'NOT_SIGNED_IN');
	} finally {
		await s.stop();
		fs.rmSync(d, { recursive: true, force: true });
	}
});

// Under FastCGI REMOTE_USER is a parameter of each request: the session
// program as a FastCGI responder (one process, so the requests follow each
// other through it) signs in the person of a checked request, and the next
// request, which the web server did not authenticate, is nobody: nothing of
// the previous request's parameters is left.
// The session program of the build under test (BURNLINK_BIN: a build tree or a program directory).
function sessionProgram() {
	let d = path.resolve(ROOT, process.env.BURNLINK_BIN || 'cgi-bin');
	if (fs.existsSync(path.join(d, 'cgi-bin', 'session'))) d = path.join(d, 'cgi-bin');
	return path.join(d, 'session');
}

test('FastCGI: REMOTE_USER is the request\'s own parameter, never the previous request\'s', { skip }, async () => {
	const sock = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-fcgi-signin-'));
	fs.chmodSync(sock, 0o777);
	const users = path.join(dir, 'users');
	const settings = path.join(dir, 'burnlink.conf');
	const extra = `server.modules += ( "mod_auth", "mod_authn_file" )
auth.backend = "plain"
auth.backend.plain.userfile = "${users}"
$REQUEST_HEADER["X-Test-Auth"] == "1" {
	auth.require = ( "" => ( "method" => "basic", "realm" => "burnlink", "require" => "valid-user" ) )
}
fastcgi.server += ( "/cgi-bin/session" => (( "socket" => "${sock}/session.sock",
	"bin-path" => "${sessionProgram()}",
	"max-procs" => 1, "check-local" => "disable" )) )`;
	const s = await start({ server: 'lighttpd-fastcgi', lighttpdExtra: extra, env: { BURNLINK_CONFIG: settings } });
	const send = (headers) => rawRequest(s.base, { method: 'POST', path: '/api/session',
		headers: { 'Content-Type': 'application/json', Origin: s.base, ...headers }, body: JSON.stringify({ webServer: true }) });
	try {
		for (let i = 0; i < 3; i++) {
			const alice = await send({ 'X-Test-Auth': '1', Authorization: ALICE });
			assert.equal(alice.status, 200, alice.text);
			assert.equal(alice.json().account.email, 'alice@example.org');
			const next = await send({ 'Remote-User': 'alice@example.org' });
			assert.equal(next.status, 401, next.text);
			assert.equal(next.json().code, 'NOT_SIGNED_IN');
			assert.equal(next.headers['set-cookie'], undefined);
		}
		assert.match(fs.readdirSync(sock).join(' '), /session\.sock/, 'the session program ran as a FastCGI responder');
	} finally {
		await s.stop();
		fs.rmSync(sock, { recursive: true, force: true });
	}
});
