// Helpers for the CLI tests: run burnlink as a child process, and a small
// independent API client (fetch + node:crypto) to check what the CLI did.

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRequest } from '../lib/server.mjs';
import { nodeSync, decodeKey } from '../../www/assets/wire.js';

const wire = nodeSync(crypto);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'cli', 'burnlink.mjs');
// BURNLINK_TEST_NODE runs the CLI under another node (e.g. a Node 18 binary).
const NODE = process.env.BURNLINK_TEST_NODE || process.execPath;

// Runs the CLI; resolves {code, stdout (Buffer), out (string), err (string)}.
// input: Buffer/string written to stdin then closed; input === null leaves
// stdin open (to prove the CLI does not wait for it).
// timeoutMs: a bound for a CLI that never ends, as the CGI runner's
// (BURNLINK_TEST_TIMEOUT_MS, 60 s): a run that ends is never cut short by it,
// and on a loaded machine a send that encrypts files may take more than 20 s.
const RUN_TIMEOUT_MS = Number(process.env.BURNLINK_TEST_TIMEOUT_MS) || 60000;
export function run(args, { input = '', env = {}, cwd = ROOT, timeoutMs = RUN_TIMEOUT_MS } = {}) {
	return new Promise((resolve, reject) => {
		const childEnv = { ...process.env };
		delete childEnv.BURNLINK_URL;
		delete childEnv.BURNLINK_API_KEY;
		Object.assign(childEnv, env);
		const child = spawn(NODE, [CLI, ...args], { cwd, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
		const out = [], err = [];
		child.stdout.on('data', c => out.push(c));
		child.stderr.on('data', c => err.push(c));
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`burnlink ${args.join(' ')} did not finish in ${timeoutMs} ms`));
		}, timeoutMs);
		child.on('error', reject);
		child.on('close', code => {
			clearTimeout(timer);
			const stdout = Buffer.concat(out);
			resolve({ code, stdout, out: stdout.toString('utf8'), err: Buffer.concat(err).toString('utf8') });
		});
		child.stdin.on('error', () => {});
		if (input !== null)
			child.stdin.end(input);
	});
}

// Splits a printed link into {site, id, key}.
export function splitLink(link) {
	const m = /^(https?:\/\/[^/]+(?:\/.*)?)\/secret\/([A-Za-z0-9_-]{22})#key=([A-Za-z0-9_-]{43})$/.exec(link.trim());
	if (!m)
		throw new Error(`not a secret link: ${JSON.stringify(link)}`);
	return { site: m[1], id: m[2], key: Buffer.from(decodeKey(m[3])) };
}

// A fresh connection for each call (rawRequest): no kept-alive socket that the
// server may have closed in between (seen as "other side closed" under load).
export async function apiJson(method, url, body, headers = {}) {
	const u = new URL(url);
	const h = { ...headers };
	let data = body === undefined ? undefined : JSON.stringify(body);
	if (data !== undefined) h['Content-Type'] = 'application/json';
	else if (method !== 'GET' && method !== 'HEAD') data = '';
	const res = await rawRequest(u.origin, { method, path: u.pathname + u.search, headers: h, body: data });
	let json = null;
	try { json = JSON.parse(res.text); } catch { /* not JSON */ }
	return { status: res.status, json, headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])) };
}

// The wire format (www/assets/wire.js), synchronously.
export function seal(key, plain) {
	return wire.seal(key, plain);
}

export function unseal(key, item) {
	return wire.open(key, item);
}

// Retrieves a secret through the API directly (consumes a view) and decrypts it.
export async function retrieveRaw(link, passphrase) {
	const { site, id, key } = splitLink(link);
	const r = await apiJson('POST', `${site}/api/secrets/${id}`, passphrase === undefined ? {} : { passphrase });
	if (r.status !== 200)
		throw new Error(`retrieve: HTTP ${r.status} ${JSON.stringify(r.json)}`);
	const str = v => (typeof v === 'string' ? v : unseal(key, v).toString('utf8'));
	return {
		raw: r.json,
		text: r.json.text ? unseal(key, r.json.text) : null,
		files: (r.json.files || []).map(f => ({ filename: str(f.filename), mimeType: str(f.mimeType), data: unseal(key, f.data) })),
	};
}

// Creates a client-side secret through the API directly; returns the full link.
export async function createRaw(base, { text, files = [], ...rest }) {
	const key = crypto.randomBytes(32);
	const body = { ...rest };
	if (text !== undefined)
		body.text = seal(key, Buffer.from(text));
	if (files.length)
		body.files = files.map(f => ({
			filename: seal(key, Buffer.from(f.filename, 'utf8')),
			mimeType: seal(key, Buffer.from(f.mimeType || 'application/octet-stream')),
			data: seal(key, Buffer.from(f.data)),
		}));
	const r = await apiJson('POST', `${base}/api/secrets`, body);
	if (r.status !== 200)
		throw new Error(`create: HTTP ${r.status} ${JSON.stringify(r.json)}`);
	return { link: `${r.json.secretUrl}#key=${key.toString('base64url')}`, res: r.json };
}

export function tmpDir(prefix = 'burnlink-cli-') {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// The one error line: burnlink: error: ... (CODE, HTTP n); hint: ...; requestId: req_...
export function errorLine(err) {
	const lines = err.split('\n').filter(Boolean);
	if (lines.length !== 1)
		throw new Error(`expected one stderr line, got: ${JSON.stringify(err)}`);
	if (/\n\s+at |node:internal/.test(err))
		throw new Error(`stack trace on stderr: ${err}`);
	return lines[0];
}
