// Sign-in through the web server against a real OpenID provider: oidc-provider
// (npm) on loopback with test users and groups, Apache with Debian's
// mod_auth_openidc in front of the real programs, configured by the shipped
// conf/apache-signin-openidc.conf.in. In Chromium a person signs in at the
// provider's login page, creates a secret, sees it in "my secrets", creates an
// API key; another person in a fresh browser reads the link without signing
// in; curl's request with the key creates; a user outside the allowed groups
// sees why they are refused; signing out ends both sessions (burnlink's and
// the module's, and the provider's).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { missing, launch, newContext, createSecret, shown, openLink, axeViolations, ROOT } from './helpers.mjs';

const require = createRequire(path.join(ROOT, 'package.json'));
const MODULE = '/usr/lib/apache2/modules/mod_auth_openidc.so';
function why() {
	const m = missing();
	if (m) return m;
	if (!fs.existsSync(MODULE)) return `${MODULE} is missing (sh scripts/deps.sh browser)`;
	try {
		require.resolve('oidc-provider');
	} catch {
		return 'oidc-provider is missing (npm ci)';
	}
	return null;
}
const skip = why();

// The provider's people: the login is the account id; any password is taken
// (the provider's development login form), the groups decide.
const PEOPLE = {
	alice: { email: 'alice@example.org', groups: ['staff', 'users'] },
	bob: { email: 'bob@example.org', groups: ['users'] },
};
const OPEN_PAGE = '/secret/AAAAAAAAAAAAAAAAAAAAAA';

describe('sign-in with an OpenID provider through mod_auth_openidc', { skip: skip || false }, () => {
	let srv, browser, idp, dir;

	before(async () => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-oidc-'));
		fs.chmodSync(dir, 0o755);
		// The provider's server listens first, on a port of its own choosing
		// (a port found free and bound later may be taken in between); it
		// answers once the provider below is made, before anyone asks it.
		let idpHandler = (req, res) => { res.statusCode = 503; res.end(); };
		idp = http.createServer((req, res) => idpHandler(req, res));
		await new Promise((resolve) => idp.listen(0, '127.0.0.1', resolve));
		const idpPort = idp.address().port;
		const issuer = `http://127.0.0.1:${idpPort}`;
		const clientSecret = crypto.randomBytes(24).toString('base64url');
		const snippet = execFileSync('sh', [path.join(ROOT, 'scripts/genconf.sh'), path.join(ROOT, 'conf/apache-signin-openidc.conf.in')], {
			env: {
				...process.env,
				BL_OIDC_METADATA: `${issuer}/.well-known/openid-configuration`,
				BL_OIDC_CLIENT_ID: 'burnlink',
				BL_OIDC_CLIENT_SECRET: clientSecret,
				BL_OIDC_REDIRECT: '/oidc/redirect',
				BL_OIDC_REDIRECT_PATH: '/oidc/redirect',
				BL_OIDC_PASSPHRASE: crypto.randomBytes(24).toString('base64url'),
			},
		}).toString();
		const settings = path.join(dir, 'burnlink.conf');
		const modules = ['authn_core', 'authz_user'].map((m) => `LoadModule ${m}_module @APACHE_MODDIR@/mod_${m}.so`).join('\n');
		srv = await startServer({
			server: 'apache',
			apacheExtra: `${modules}\nLoadModule auth_openidc_module ${MODULE}\n${snippet}`,
			env: { BURNLINK_CONFIG: settings },
		});
		fs.writeFileSync(settings, ['signin_webserver = yes', 'webserver_create = yes', 'create = accounts',
			'signin_password = no', 'webserver_email_var = OIDC_CLAIM_email', 'webserver_groups_var = OIDC_CLAIM_groups',
			'allowed_groups = staff',
			`webserver_logout = /oidc/redirect?logout=${encodeURIComponent(srv.base + OPEN_PAGE)}`, ''].join('\n'), { mode: 0o644 });

		const { default: Provider } = await import('oidc-provider');
		const provider = new Provider(issuer, {
			clients: [{
				client_id: 'burnlink', client_secret: clientSecret,
				redirect_uris: [`${srv.base}/oidc/redirect`],
				post_logout_redirect_uris: [srv.base + OPEN_PAGE],
				response_types: ['code'], grant_types: ['authorization_code'],
			}],
			claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
			scopes: ['openid', 'email', 'profile', 'groups'],
			conformIdTokenClaims: false,
			pkce: { required: () => false },
			cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
			features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
			async findAccount(ctx, id) {
				const p = PEOPLE[id];
				if (!p) return undefined;
				return { accountId: id, claims: async () => ({ sub: id, name: id, email: p.email, email_verified: true, groups: p.groups }) };
			},
		});
		idpHandler = provider.callback();
		browser = await launch();
	});
	after(async () => {
		await browser?.close();
		await srv?.stop();
		if (idp) await new Promise((resolve) => idp.close(resolve));
		if (dir) fs.rmSync(dir, { recursive: true, force: true });
	});

	// At the provider's login page (its development interactions): login, then consent.
	async function providerLogin(page, login) {
		await page.locator('input[name="login"]').waitFor({ state: 'visible' });
		await page.fill('input[name="login"]', login);
		await page.fill('input[name="password"]', 'any password');
		await page.click('button[type="submit"]');
		const consent = page.locator('button[type="submit"]:has-text("Continue")');
		await consent.waitFor({ state: 'visible' });
		await consent.click();
	}

	test('sign in at the provider, create, "my secrets", an API key; a fresh browser reads; curl creates; sign-out ends both sessions', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		assert.ok(page.url().startsWith(`http://127.0.0.1:${idp.address().port}/`), `sent to the provider: ${page.url()}`);
		await providerLogin(page, 'alice');
		await page.waitForURL((u) => u.pathname === '/dashboard');
		await shown(page, 'dashboard-view');
		assert.equal(await page.textContent('#account-email'), 'alice@example.org');
		assert.equal(await page.isVisible('#totp-card'), false, 'the provider asks for the second factor');
		// the provider's address is the account's, verified: mail receipts need nothing more
		assert.deepEqual(await page.evaluate(async () => (await fetch('/api/email')).json()),
			{ email: 'alice@example.org', verified: true });
		assert.equal(await page.isVisible('#address-form'), false, 'no form that asks for a password this person has not');
		assert.equal(await page.isVisible('#address-provider'), true, 'the page says where the address comes from');
		assert.deepEqual(await axeViolations(page), [], 'dashboard');

		const made = await createSecret(page, srv.base, { text: 'from the organisation' });
		await page.goto(srv.base + '/dashboard');
		await shown(page, 'dashboard-view');
		await page.waitForFunction(() => document.querySelectorAll('#secrets-body tr').length === 1);
		await page.fill('#key-name', 'ci');
		await page.click('#key-create');
		await page.locator('#new-key').waitFor({ state: 'visible' });
		const key = await page.inputValue('#new-key-value');

		const other = await newContext(browser);
		const reader = await other.newPage();
		await openLink(reader, made.link);
		await reader.click('#reveal-button');
		await shown(reader, 'secret-view');
		assert.equal(await reader.textContent('#secret-text'), 'from the organisation');
		await other.close();

		const curl = await fetch(`${srv.base}/api/secrets`, { method: 'POST',
			headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: JSON.stringify({ text: 'ci' }) });
		assert.equal(curl.status, 200, await curl.clone().text());
		const anon = await fetch(`${srv.base}/api/secrets`, { method: 'POST',
			headers: { 'Content-Type': 'application/json', 'Remote-User': 'alice@example.org', 'OIDC_CLAIM_email': 'alice@example.org' },
			body: JSON.stringify({ text: 'x' }) });
		assert.equal(anon.status, 401);
		assert.equal((await anon.json()).code, 'NOT_SIGNED_IN');
		// nor does a claimed user sign in: without the module's session REMOTE_USER is empty
		for (const q of ['', '?REMOTE_USER=alice%40example.org']) {
			const spoof = await fetch(`${srv.base}/api/session${q}`, { method: 'POST',
				headers: { 'Content-Type': 'application/json', Origin: srv.base, 'Remote-User': 'alice@example.org',
					'X-Remote-User': 'alice@example.org', Cookie: 'REMOTE_USER=alice@example.org' },
				body: JSON.stringify({ webServer: true }) });
			assert.equal(spoof.status, 401);
			assert.equal((await spoof.json()).code, 'NOT_SIGNED_IN');
			assert.equal(spoof.headers.get('set-cookie'), null);
		}

		// sign-out: burnlink's session, then the module's logout, then the provider's
		await page.click('#signout-button');
		const yes = page.locator('button[value="yes"]');
		await yes.waitFor({ state: 'visible' });
		await yes.click();
		await page.waitForURL((u) => u.pathname === OPEN_PAGE);
		assert.equal((await ctx.request.get(srv.base + '/api/my/secrets')).status(), 401, 'burnlink\'s session ended');
		await page.goto(srv.base + '/dashboard');
		await page.locator('input[name="login"]').waitFor({ state: 'visible' });
		assert.ok(page.url().startsWith(`http://127.0.0.1:${idp.address().port}/`), 'the module and the provider ask again');
		await ctx.close();
	});

	test('a person outside the allowed groups is refused with a page that says why', async () => {
		const ctx = await newContext(browser);
		const page = await ctx.newPage();
		await page.goto(srv.base + '/dashboard');
		await providerLogin(page, 'bob');
		await page.waitForURL((u) => u.pathname === '/dashboard');
		await shown(page, 'signin-view');
		const box = page.locator('#webserver-message');
		await box.waitFor({ state: 'visible' });
		assert.match(await box.textContent(), /not accepted here/);
		assert.match(await box.textContent(), /none of the groups/);
		assert.deepEqual(await axeViolations(page), [], 'refused');
		await ctx.close();
	});
});
