// urls.test.mjs: secretUrl and metadataUrl from BURNLINK_SITE_URL or from the
// request, where the server-side key may appear (only in secretUrl's fragment),
// and what never reaches the database or the log (keys, as text or as bytes).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { newContext, encryptItem, newKey, b64urlDecode, dbFiles } from '../lib/cgi.mjs';
import { countersPath } from '../lib/counters.mjs';

const ctx = newContext();

async function createWith(env, body = { text: 'url test' }) {
	const res = await ctx.create(body, { env });
	assert.equal(res.status, 200, res.body.toString());
	return res;
}

describe('site URL', () => {
	test('BURNLINK_SITE_URL is used as given, without its trailing slash', async () => {
		const res = await createWith({ BURNLINK_SITE_URL: 'https://secrets.example.org/base/', HTTP_HOST: 'ignored.test' });
		const j = res.json;
		assert.ok(j.secretUrl.startsWith(`https://secrets.example.org/base/secret/${j.metadata.secretKey}#key=`), j.secretUrl);
		assert.equal(j.metadataUrl, `https://secrets.example.org/base/receipt/${j.metadata.key}`);
	});
	test('without BURNLINK_SITE_URL: http + HTTP_HOST', async () => {
		const j = (await createWith({ HTTP_HOST: 'burn.example.net', REQUEST_URI: '/api/secrets' })).json;
		assert.equal(j.metadataUrl, `http://burn.example.net/receipt/${j.metadata.key}`);
		assert.ok(j.secretUrl.startsWith(`http://burn.example.net/secret/${j.metadata.secretKey}#key=`));
	});
	test('HTTPS=on gives https, with a port in HTTP_HOST kept', async () => {
		const j = (await createWith({ HTTP_HOST: 'burn.example.net:8443', HTTPS: 'on', REQUEST_URI: '/api/secrets' })).json;
		assert.equal(j.metadataUrl, `https://burn.example.net:8443/receipt/${j.metadata.key}`);
	});
	test('HTTPS=off gives http', async () => {
		const j = (await createWith({ HTTP_HOST: 'h.test', HTTPS: 'off' })).json;
		assert.ok(j.metadataUrl.startsWith('http://h.test/receipt/'));
	});
	test('the path before /api/secrets in REQUEST_URI is kept as the install prefix', async () => {
		const j = (await createWith({ HTTP_HOST: 'h.test', REQUEST_URI: '/tools/burn/api/secrets' })).json;
		assert.equal(j.metadataUrl, `http://h.test/tools/burn/receipt/${j.metadata.key}`);
		assert.ok(j.secretUrl.startsWith(`http://h.test/tools/burn/secret/${j.metadata.secretKey}#key=`));
	});
	test('a query string after /api/secrets does not leak into the URLs', async () => {
		const j = (await createWith({ HTTP_HOST: 'h.test', REQUEST_URI: '/api/secrets?x=<y>' })).json;
		assert.equal(j.metadataUrl, `http://h.test/receipt/${j.metadata.key}`);
	});
	test('an HTTP_HOST with characters no host has is not used', async () => {
		const j = (await createWith({ HTTP_HOST: 'evil.test/"><script>', REQUEST_URI: '/api/secrets' })).json;
		assert.ok(!j.secretUrl.includes('<') && !j.secretUrl.includes('"') && !j.secretUrl.includes('evil.test/'), j.secretUrl);
		assert.match(j.metadataUrl, /^https?:\/\/[A-Za-z0-9.:[\]-]+\/receipt\/[A-Za-z0-9_-]{22}$/);
	});
	test('a prefix with characters a path should not have is not used', async () => {
		const j = (await createWith({ HTTP_HOST: 'h.test', REQUEST_URI: '/a"b<c>/api/secrets' })).json;
		assert.equal(j.metadataUrl, `http://h.test/receipt/${j.metadata.key}`);
	});
	test('the settings file\'s site_url (var/burnlink.conf, which an upload never overwrites) when BURNLINK_SITE_URL is unset; the variable wins', async () => {
		const c = newContext();
		fs.writeFileSync(path.join(c.dir, 'burnlink.conf'), 'site_url = https://example.org/burnlink\n');
		const j = (await c.create({ text: 'x' }, { env: { HTTP_HOST: 'ignored.test' } })).json;
		assert.equal(j.metadataUrl, `https://example.org/burnlink/receipt/${j.metadata.key}`);
		const k = (await c.create({ text: 'x' }, { env: { BURNLINK_SITE_URL: 'https://env.example' } })).json;
		assert.equal(k.metadataUrl, `https://env.example/receipt/${k.metadata.key}`);
		fs.writeFileSync(path.join(c.dir, 'burnlink.conf'), 'site_url = https://example.org/x?y\n');
		assert.equal((await c.create({ text: 'x' })).json.code, 'CONFIG_INVALID');
		c.remove();
	});
	test('no HTTP_HOST still gives a well-formed absolute URL', async () => {
		const j = (await createWith({ HTTP_HOST: null })).json;
		assert.match(j.metadataUrl, /^https?:\/\/[^/\s]+\/receipt\/[A-Za-z0-9_-]{22}$/);
	});
});

describe('where the server-side key appears', () => {
	test('only in the fragment of secretUrl, once in the whole response', async () => {
		const res = await createWith({});
		const j = res.json;
		const frag = j.secretUrl.split('#key=')[1];
		assert.match(frag, /^[A-Za-z0-9_-]{43}$/);
		const raw = res.raw.toString('latin1');
		assert.equal(raw.split(frag).length - 1, 1, 'the key appears exactly once');
		assert.ok(!j.metadataUrl.includes(frag));
		assert.ok(!JSON.stringify(j.metadata).includes(frag));
		assert.ok(!res.headLines.join('\n').includes(frag), 'not in a header');
	});
	test('secretUrl carries the path key before the fragment, metadataUrl the receipt key', async () => {
		const j = (await createWith({})).json;
		const u = new URL(j.secretUrl);
		assert.equal(u.pathname.split('/').pop(), j.metadata.secretKey);
		assert.equal(new URL(j.metadataUrl).pathname.split('/').pop(), j.metadata.key);
	});
	test('client-side mode: secretUrl has no fragment', async () => {
		const j = (await createWith({}, { text: encryptItem('zk', newKey()) })).json;
		assert.ok(!j.secretUrl.includes('#'), j.secretUrl);
	});
	test('the retrieve and metadata responses never carry the key', async () => {
		const res = await createWith({}, { text: 'k', maxViews: 2 });
		const j = res.json;
		const frag = j.secretUrl.split('#key=')[1];
		const m = await ctx.metadata(j.metadata.secretKey);
		const r = await ctx.metadata(j.metadata.key);
		const v = await ctx.retrieve(j.metadata.secretKey);
		for (const x of [m, r, v]) assert.ok(!x.raw.toString('latin1').includes(frag));
	});
});

describe('what never reaches the database', () => {
	test('the secretKey, receipt key and decryption key are not stored, as text or as bytes', async () => {
		const c = newContext();
		const made = [];
		const opts = [{ text: 'one' }, { text: 'two', passphrase: 'four four', maxViews: 3 },
			{ text: 'three', files: [{ filename: 'f', data: 'data:text/plain;base64,YWJj' }] }];
		for (const body of opts) {
			const res = await c.create(body);
			assert.equal(res.status, 200);
			made.push(res);
		}
		// Exercise the other programs too (they must not write a key either).
		await c.retrieve(made[0].json.metadata.secretKey);
		await c.metadata(made[2].json.metadata.key);
		await c.retrieve(made[1].json.metadata.secretKey, { passphrase: 'wrong wrong' });
		const needles = [];
		for (const res of made) {
			const j = res.json;
			const frag = j.secretUrl.split('#key=')[1];
			needles.push([j.metadata.secretKey, 'secretKey'], [j.metadata.key, 'receipt key'], [frag, 'decryption key']);
			needles.push([b64urlDecode(j.metadata.secretKey), 'secretKey bytes'], [b64urlDecode(j.metadata.key), 'receipt key bytes'],
				[b64urlDecode(frag), 'decryption key bytes'], [b64urlDecode(frag).toString('base64'), 'decryption key as base64']);
		}
		// Every file in the data directory: database, WAL, counters file.
		const files = fs.readdirSync(c.dir).map((f) => path.join(c.dir, f)).filter((f) => fs.statSync(f).isFile() && !f.endsWith('secret.key'));
		assert.ok(files.includes(c.db));
		assert.ok(files.includes(countersPath(c.db)), 'the counters file is searched too');
		for (const f of files) {
			const bytes = fs.readFileSync(f);
			for (const [n, what] of needles)
				assert.ok(!bytes.includes(Buffer.from(n)), `${path.basename(f)} contains a ${what}`);
		}
		c.remove();
	});
	test('the passphrase is not stored', async () => {
		const c = newContext();
		const pass = 'passphrase-' + crypto.randomBytes(6).toString('hex');
		assert.equal((await c.create({ text: 'x', passphrase: pass })).status, 200);
		for (const f of dbFiles(c.db)) assert.ok(!fs.readFileSync(f).includes(Buffer.from(pass)), f);
		c.remove();
	});
	test('server-side plaintext text and file bytes are not stored', async () => {
		const c = newContext();
		const marker = 'TEXT-' + crypto.randomBytes(24).toString('hex');
		const fileMarker = crypto.randomBytes(64);
		const res = await c.create({ text: marker, files: [{ filename: 'name-' + marker, mimeType: 'text/x-marker', data: `data:text/plain;base64,${fileMarker.toString('base64')}` }] });
		assert.equal(res.status, 200);
		for (const f of dbFiles(c.db)) {
			const bytes = fs.readFileSync(f);
			assert.ok(!bytes.includes(Buffer.from(marker)), `${f} holds the text or filename in clear`);
			assert.ok(!bytes.includes(fileMarker), `${f} holds the file bytes in clear`);
			assert.ok(!bytes.includes(Buffer.from('text/x-marker')), `${f} holds the mimeType in clear`);
		}
		c.remove();
	});
	test('no program writes a key to stderr', async () => {
		const c = newContext();
		const res = await c.create({ text: 'log test' });
		const j = res.json;
		const frag = j.secretUrl.split('#key=')[1];
		const outs = [res.stderr, (await c.retrieve(j.metadata.secretKey)).stderr, (await c.retrieve(j.metadata.secretKey)).stderr,
			(await c.metadata(j.metadata.key)).stderr, (await c.burn(j.metadata.key)).stderr];
		for (const e of outs)
			for (const n of [j.metadata.secretKey, j.metadata.key, frag]) assert.ok(!e.includes(n), `stderr holds a key: ${e}`);
		c.remove();
	});
	test('the per-install secret is created with mode 0600 on first passphrase attempt', async () => {
		const c = newContext();
		const s = await c.createOk({ text: 'x', passphrase: 'abcd' });
		await c.retrieve(s.secretKey);
		const st = fs.statSync(path.join(c.dir, 'secret.key'));
		assert.equal(st.mode & 0o777, 0o600);
		assert.equal(st.size, 32);
		c.remove();
	});
	test('the database files are not readable by others', async () => {
		const c = newContext();
		await c.createOk({ text: 'x' });
		const counters = [countersPath(c.db)].filter((f) => fs.existsSync(f));
		for (const f of [...dbFiles(c.db), ...counters]) assert.equal(fs.statSync(f).mode & 0o077, 0, `${f} mode ${(fs.statSync(f).mode & 0o777).toString(8)}`);
		c.remove();
	});
});
