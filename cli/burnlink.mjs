#!/usr/bin/env node
// burnlink: command-line client of the burnlink API (send, get, status, burn).
// Node.js 18 or later, no dependencies. Encryption happens here; the server
// only ever sees ciphertext, and the key travels in the link's #fragment.

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import tty from 'node:tty';
import { fileURLToPath } from 'node:url';

// The wire format and the limits (www/assets/wire.js and limits.js): beside
// this file in the cli/ package (its prepack copies them), else the page's own
// in a clone of the project.
const wire = await import(fs.existsSync(new URL('./wire/wire.js', import.meta.url))
	? './wire/wire.js' : '../www/assets/wire.js');

export const VERSION = '0.1.0';

const DEFAULT_URL = 'http://127.0.0.1:8080';
const DEFAULT_TIMEOUT_S = 30;
const MAX_PLAINTEXT = wire.LIMITS.content.max;   // text and file bytes together
const MAX_FILES = wire.LIMITS.files.max;
const MAX_RESPONSE = 16 * 1024 * 1024;  // a retrieval of 2 MiB is ~3 MiB of JSON

const EXIT_OK = 0;
const EXIT_FAIL = 1;    // API, network, decryption or file-writing failure
const EXIT_USAGE = 2;   // bad command line or unreadable input

const HELP = `burnlink ${VERSION}: share a secret through a one-time link.

Usage:
  burnlink [OPTIONS] [TEXT | -]       send TEXT (or standard input) and print the link
  burnlink get [OPTIONS] LINK         open a secret link: text to stdout, files to a directory
  burnlink status [OPTIONS] RECEIPT   show the state of a secret from its receipt link
  burnlink burn [OPTIONS] LINK        destroy a secret now (receipt link or secret link)
  burnlink config [--url URL]         what the site allows (its GET /api/config)
  burnlink request [OPTIONS]          ask someone for a secret: print a request link
                                      (to send) and an inbox link (to keep)
  burnlink answer [OPTIONS] REQUEST_LINK [TEXT | -]
                                      answer a request link once (TEXT, standard
                                      input and/or --file)
  burnlink get [OPTIONS] INBOX_LINK   read the answer to your request, once

Sending:
  With no TEXT (or with "-") the secret is read from standard input, byte for
  byte, trailing newline included. With --file and no TEXT, only the files are
  sent unless "-" asks for standard input too. The text, the file contents and
  the file names and types are encrypted here with AES-256-GCM under a new
  random key; the server receives only ciphertext. The key is put in the
  link's #key=... fragment, which browsers never send to the server. Exactly
  one line is printed on standard output: the link.
  To send text that looks like a command (e.g. "get"), write: burnlink -- get

  --ttl SECONDS          lifetime: seconds, or a number with s, m, h or d
                         (1800 to 7776000 s = 30m to 90d; default 1 day;
                         a site may allow less: burnlink config)
  --views N|unlimited    how many times the link can be opened (1 to 999,
                         default 1); "unlimited" = until it expires
                         --ttl, --views, files, size and passphrase are
                         checked against the site's GET /api/config
                         before anything is sent
  -p, --passphrase P     also require passphrase P to open the link
                         ("-" = prompt without echo on the terminal; a
                         passphrase on the command line shows in "ps")
  --passphrase-file F    read the passphrase from file F (one trailing
                         newline is removed)
  -f, --file PATH        attach a file (repeatable, at most 20; 2 MiB in
                         total with the text)
  --undeletable          recipients cannot burn the link (the receipt can)
  --notify WHERE         tell your account when it is viewed, burned or
                         expires: email, webhook or email,webhook (needs
                         an API key)
  --api-key KEY          attribute the secret to your account (prefer the
                         BURNLINK_API_KEY variable: options are visible to
                         other users in "ps")
  --url URL              the burnlink site (default: $BURNLINK_URL, else
                         ${DEFAULT_URL}); the API is at URL/api
  --json                 print the API's create response, plus "link" (the
                         full link with its key), as JSON

Receiving (get):
  -o, --output-dir DIR   where attached files are written (default: the
                         current directory). Names are reduced to a plain file
                         name inside DIR; an existing file is never replaced:
                         the new one is saved as "name (1).ext" instead
  --force                replace existing regular files (never follows symlinks)
  --raw                  write the text to a terminal as it is; by default a
                         terminal is shown control characters as escapes
                         (\x1b, \u009b) so that a secret cannot retitle,
                         clear or drive it (a pipe or a file always gets the
                         exact bytes)
  -p, --passphrase P     passphrase, if the secret has one (asked on the
  --passphrase-file F    terminal when missing and a terminal is available)
  --json                 print {text, files, viewsRemaining} as JSON
  The metadata is checked first (it costs no view), and with it the link's
  key: a key that does not fit the secret is refused before any view is
  used. Then the secret is retrieved, which uses up one view, decrypted, and
  the text is written to standard output exactly as it was sent.

Secret requests (request, answer, get INBOX_LINK, status and burn):
  request makes a P-256 key pair here; the server gets only the public key
  and the note sealed under a key that travels in the request link's
  #key=... fragment. The inbox link's #key=... holds the private key: keep it
  to yourself. The answer is sealed for your public key (ECDH, HKDF-SHA-256,
  AES-256-GCM; docs/API.md) and can be read once, with the inbox link.
  --note TEXT            a note the sender sees ("the VPN password, please")
  --ttl SECONDS          lifetime of the request and its answer (as above)
  --files                the answer may carry files (default: text only)
  --inbox-file PATH      write the inbox link to a new file PATH (mode 0600)
                         instead of printing it
  answer prints the request's note on standard error and sends TEXT (or
  standard input) and the --file attachments. get, status and burn take the
  inbox link; burn takes the request link too.

status, burn and config:
  --json                 print the API's response as JSON
  burn with a secret link that has a passphrase needs it (-p, --passphrase-file
  or the prompt); the receipt link needs none.

Common:
  --timeout SECONDS      give up on a request after this long (default ${DEFAULT_TIMEOUT_S})
  -h, --help             this help
  -V, --version          print the version

Environment:
  BURNLINK_URL           default for --url
  BURNLINK_API_KEY       API key for sending (safer than --api-key)

Exit status: 0 success, 1 API, network or decryption error, 2 usage error.
Errors are one line on standard error with the API's code, hint and requestId.
`;

/* ---------- errors ---------- */

class CliError extends Error {
	constructor(message, exitCode = EXIT_FAIL) {
		super(message);
		this.exitCode = exitCode;
	}
}

class UsageError extends CliError {
	constructor(message) {
		super(message, EXIT_USAGE);
	}
}

// An error body from the API: {error, code, hint, requestId}.
class ApiError extends CliError {
	constructor(status, body, retryAfter) {
		super(oneLine(body.error || `HTTP ${status}`));
		this.status = status;
		this.code = body.code;
		this.hint = body.hint;
		this.requestId = body.requestId;
		this.retryAfter = retryAfter;
	}
}

// A value the site's settings refuse, found before anything was sent (GET /api/config).
class PolicyError extends CliError {
	constructor(code, message, hint, site) {
		super(message);
		this.code = code;
		this.hint = hint;
		this.site = site;
	}
}

// What the API's own limits refuse (docs/API.md: at most 20 files, 2 MiB of
// text and files), found before anything was sent: exit 1 with the code the
// server would answer, as the site's settings' refusals (PolicyError).
class LimitError extends CliError {
	constructor(code, message, hint) {
		super(message);
		this.code = code;
		this.hint = hint;
	}
}

// The secret is over the API's size limit.
function tooLarge(message) {
	return new LimitError('INVALID_CONTENT_SIZE', message, `at most ${MAX_PLAINTEXT} bytes of text and files together`);
}

// Replaces control characters so that a message stays on one line.
function oneLine(s) {
	return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

function formatError(err) {
	if (err instanceof ApiError) {
		let line = `burnlink: error: ${err.message} (${err.code ? oneLine(err.code) + ', ' : ''}HTTP ${err.status})`;
		if (err.hint) line += `; hint: ${oneLine(err.hint)}`;
		if (err.retryAfter) line += `; retry after ${oneLine(err.retryAfter)} s`;
		if (err.requestId) line += `; requestId: ${oneLine(err.requestId)}`;
		return line;
	}
	if (err instanceof PolicyError)
		return `burnlink: error: ${oneLine(err.message)} (${err.code}, checked against ` +
			`${oneLine(err.site)}/api/config; nothing was sent); hint: ${oneLine(err.hint)}`;
	if (err instanceof LimitError)
		return `burnlink: error: ${oneLine(err.message)} (${err.code}, the API's limit; nothing was sent); hint: ${oneLine(err.hint)}`;
	if (err instanceof UsageError)
		return `burnlink: usage: ${oneLine(err.message)} (see burnlink --help)`;
	return `burnlink: error: ${oneLine(err.message)}`;
}

/* ---------- command line ---------- */

// Every option: its name, whether it takes a value, and the commands that accept it.
const SEND = 'send', GET = 'get', STATUS = 'status', BURN = 'burn', CONFIG = 'config';
const REQUEST = 'request', ANSWER = 'answer';
const OPTIONS = {
	'ttl':             { value: true,  cmds: [SEND, REQUEST] },
	'note':            { value: true,  cmds: [REQUEST] },
	'files':           { value: false, cmds: [REQUEST] },
	'inbox-file':      { value: true,  cmds: [REQUEST] },
	'views':           { value: true,  cmds: [SEND] },
	'passphrase':      { value: true,  cmds: [SEND, GET, BURN], short: 'p' },
	'passphrase-file': { value: true,  cmds: [SEND, GET, BURN] },
	'file':            { value: true,  cmds: [SEND, ANSWER], short: 'f', repeat: true },
	'undeletable':     { value: false, cmds: [SEND] },
	'notify':          { value: true,  cmds: [SEND] },
	'api-key':         { value: true,  cmds: [SEND, REQUEST] },
	'url':             { value: true,  cmds: [SEND, REQUEST, CONFIG] },
	'json':            { value: false, cmds: [SEND, GET, STATUS, BURN, REQUEST, ANSWER, CONFIG] },
	'output-dir':      { value: true,  cmds: [GET], short: 'o' },
	'force':           { value: false, cmds: [GET] },
	'raw':             { value: false, cmds: [GET] },
	'timeout':         { value: true,  cmds: [SEND, GET, STATUS, BURN, REQUEST, ANSWER, CONFIG] },
	'help':            { value: false, cmds: [SEND, GET, STATUS, BURN, REQUEST, ANSWER, CONFIG], short: 'h' },
	'version':         { value: false, cmds: [SEND, GET, STATUS, BURN, REQUEST, ANSWER, CONFIG], short: 'V' },
};
const SHORT = Object.fromEntries(Object.entries(OPTIONS)
	.filter(([, o]) => o.short).map(([name, o]) => [o.short, name]));

// Parses argv into {cmd, opts, args}; throws UsageError.
export function parseArgs(argv) {
	const opts = {};
	const args = [];
	let cmd = null;
	let endOfOptions = false;
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (endOfOptions || a === '-' || !a.startsWith('-')) {
			if (cmd === null && !endOfOptions && args.length === 0 &&
			    [GET, STATUS, BURN, REQUEST, ANSWER, CONFIG].includes(a))
				cmd = a;
			else
				args.push(a);
			continue;
		}
		if (a === '--') {
			endOfOptions = true;
			continue;
		}
		let name, value;
		if (a.startsWith('--')) {
			const eq = a.indexOf('=');
			name = eq < 0 ? a.slice(2) : a.slice(2, eq);
			if (eq >= 0)
				value = a.slice(eq + 1);
		} else {
			name = SHORT[a[1]];
			if (!name)
				throw new UsageError(`unknown option ${a}`);
			if (a.length > 2)
				value = a.slice(2);
		}
		const spec = Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : null;
		if (!spec)
			throw new UsageError(`unknown option --${oneLine(name)}`);
		if (spec.value) {
			if (value === undefined) {
				if (i + 1 >= argv.length)
					throw new UsageError(`--${name} needs a value`);
				value = argv[++i];
			}
		} else if (value !== undefined) {
			throw new UsageError(`--${name} takes no value`);
		} else {
			value = true;
		}
		if (spec.repeat)
			(opts[name] ||= []).push(value);
		else if (name in opts && name !== 'help' && name !== 'version')
			throw new UsageError(`--${name} given twice`);
		else
			opts[name] = value;
	}
	cmd ||= SEND;
	if (opts.help || opts.version)
		return { cmd, opts, args };
	for (const name of Object.keys(opts))
		if (!OPTIONS[name].cmds.includes(cmd))
			throw new UsageError(cmd === SEND
				? `--${name} is for ${OPTIONS[name].cmds.map(c => `"burnlink ${c}"`).join(' and ')}`
				: `--${name} does not apply to "burnlink ${cmd}"`);
	if (opts.passphrase !== undefined && opts['passphrase-file'] !== undefined)
		throw new UsageError('give --passphrase or --passphrase-file, not both');
	if (cmd === SEND && args.length > 1)
		throw new UsageError('give the secret as one argument (quote it), or on standard input');
	if (cmd === CONFIG && args.length !== 0)
		throw new UsageError('"burnlink config" takes no argument (the site is --url or BURNLINK_URL)');
	if (cmd === REQUEST && args.length !== 0)
		throw new UsageError('"burnlink request" takes no argument (the note is --note TEXT)');
	if (cmd === ANSWER && (args.length < 1 || args.length > 2))
		throw new UsageError('"burnlink answer" takes the request link and, optionally, the secret (quote it) or "-"');
	if (cmd !== SEND && cmd !== CONFIG && cmd !== REQUEST && cmd !== ANSWER && args.length !== 1)
		throw new UsageError(`"burnlink ${cmd}" takes exactly one link`);
	return { cmd, opts, args };
}

// "3600", "30m", "12h", "7d" → seconds.
function parseTtl(s) {
	const m = /^(\d{1,10})([smhd]?)$/i.exec(s);
	if (!m)
		throw new UsageError(`--ttl must be a whole number of seconds, or a number with s, m, h or d (got "${oneLine(s)}")`);
	const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2].toLowerCase()];
	return Number(m[1]) * unit;
}

function parseViews(s) {
	if (/^unlimited$/i.test(s))
		return null;
	if (!/^\d{1,10}$/.test(s))
		throw new UsageError(`--views must be a whole number or "unlimited" (got "${oneLine(s)}")`);
	return Number(s);
}

function parseTimeout(s) {
	if (s === undefined)
		return DEFAULT_TIMEOUT_S * 1000;
	if (!/^(\d{1,6}(\.\d*)?|\.\d+)$/.test(s) || Number(s) <= 0)
		throw new UsageError(`--timeout must be a positive number of seconds (got "${oneLine(s)}")`);
	return Math.ceil(Number(s) * 1000);
}

// The site URL from --url, BURNLINK_URL or the default, without a trailing slash.
function siteUrl(opt) {
	const raw = opt ?? (process.env.BURNLINK_URL || DEFAULT_URL);
	let u;
	try {
		u = new URL(raw);
	} catch {
		throw new UsageError(`not a URL: "${oneLine(raw)}"`);
	}
	if (u.protocol !== 'http:' && u.protocol !== 'https:')
		throw new UsageError(`the URL must start with http:// or https:// (got "${oneLine(raw)}")`);
	if (u.search || u.hash || u.username || u.password)
		throw new UsageError(`the URL must be the site address only, e.g. https://burnlink.example (got "${oneLine(raw)}")`);
	return (u.origin + u.pathname).replace(/\/+$/, '');
}

// Splits a link {site}/secret/<key>#key=..., {site}/receipt/<key>,
// {site}/request/<key>#key=... or {site}/inbox/<key>#key=... into its parts.
export function parseLink(link, kinds) {
	let u;
	try {
		u = new URL(link);
	} catch {
		throw new UsageError(`not a link: "${oneLine(link)}"`);
	}
	if (u.protocol !== 'http:' && u.protocol !== 'https:')
		throw new UsageError(`the link must start with http:// or https://`);
	const m = /^(.*)\/(secret|receipt|request|inbox)\/([A-Za-z0-9_-]+)\/?$/.exec(u.pathname);
	if (!m || !kinds.includes(m[2]))
		throw new UsageError(`expected a ${kinds.map(k => `/${k}/…`).join(' or ')} link, got "${oneLine(link)}"`);
	let fragmentKey = null;
	for (const part of u.hash.replace(/^#/, '').split('&')) {
		if (!part.startsWith('key='))
			continue;
		try {
			fragmentKey = decodeURIComponent(part.slice(4));
		} catch {
			throw new UsageError('the #key=… part of the link is damaged; copy the whole link');
		}
	}
	return { site: u.origin + m[1], kind: m[2], id: m[3], fragmentKey };
}

/* ---------- encoding and encryption (www/assets/wire.js) ---------- */

// Decodes the link key: url-safe (or standard) base64 of 32 bytes, padding optional.
export function decodeKey(s) {
	if (typeof s !== 'string' || !/^[A-Za-z0-9_\-+/]{43}=?$/.test(s))
		throw new UsageError('the #key=… part of the link is damaged (expected 43 base64 characters); copy the whole link');
	const key = wire.decodeKey(s);
	if (key === null)
		throw new UsageError('the #key=… part of the link is damaged; copy the whole link');
	return key;
}

// A Buffer over the bytes of a Uint8Array (not copied).
function asBuffer(u8) {
	return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

// The content of a retrieval answer, opened with key; the wire module's
// errors in the CLI's words.
async function openAnswer(key, res) {
	try {
		const out = await wire.openAnswer(key, res);
		return {
			text: out.text === null ? null : asBuffer(out.text),
			files: out.files.map(f => ({ ...f, data: asBuffer(f.data) })),
		};
	} catch (err) {
		if (!(err instanceof wire.WireError))
			throw err;
		if (err.reason === 'key')
			throw new CliError(`cannot decrypt the ${err.what}: the key in the link does not match (was the link copied completely?)`);
		throw new CliError(`the server sent a malformed ${err.what}${err.part === 'iv' ? ' IV' : ''}`);
	}
}

const MIME_TYPES = {
	txt: 'text/plain', text: 'text/plain', log: 'text/plain', md: 'text/markdown',
	csv: 'text/csv', html: 'text/html', htm: 'text/html', css: 'text/css',
	js: 'text/javascript', mjs: 'text/javascript', json: 'application/json',
	xml: 'application/xml', yaml: 'application/yaml', yml: 'application/yaml',
	pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip',
	tar: 'application/x-tar', '7z': 'application/x-7z-compressed',
	png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif',
	webp: 'image/webp', svg: 'image/svg+xml',
	pem: 'application/x-pem-file', crt: 'application/x-x509-ca-cert',
	doc: 'application/msword',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	odt: 'application/vnd.oasis.opendocument.text',
	mp3: 'audio/mpeg', mp4: 'video/mp4',
};

export function mimeTypeOf(name) {
	const ext = path.extname(name).slice(1).toLowerCase();
	return MIME_TYPES[ext] || 'application/octet-stream';
}

// Reduces a name chosen by the sender to a plain file name: no directories,
// no control or bidirectional-override characters, no leading dots, not empty,
// at most 255 bytes.
export function safeFileName(name, index) {
	let s = String(name).normalize('NFC');
	s = s.split(/[/\\]/).pop();
	s = s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '_');
	s = s.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
	if (s === '')
		s = `file-${index + 1}`;
	while (Buffer.byteLength(s) > 255) {
		const ext = path.extname(s);
		const stem = s.slice(0, s.length - ext.length);
		s = stem.length > 1 ? [...stem].slice(0, -1).join('') + ext : [...s].slice(0, -1).join('');
	}
	return s;
}

/* ---------- HTTP ---------- */

const NET_ERRORS = {
	ECONNREFUSED: 'connection refused',
	ECONNRESET: 'connection reset',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'host name lookup failed',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
	ETIMEDOUT: 'connection timed out',
	EPIPE: 'connection closed by the server',
};

// One HTTP request with a deadline; resolves {status, headers, body}.
function httpRequest(method, url, { headers = {}, body = null, timeoutMs }) {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const mod = u.protocol === 'https:' ? https : http;
		const ac = new AbortController();
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			ac.abort();
		}, timeoutMs);
		const fail = err => {
			clearTimeout(timer);
			if (timedOut) {
				const e = new CliError(`no answer from ${u.origin} within ${timeoutMs / 1000} s (use --timeout to wait longer)`);
				e.timedOut = true;
				reject(e);
			}
			else if (err instanceof CliError)
				reject(err);
			else {
				const why = NET_ERRORS[err.code] || (/CERT|SSL|TLS/.test(err.code || '')
					? `TLS certificate problem (${err.code})` : err.message || String(err));
				reject(new CliError(`cannot reach ${u.origin}: ${why}`));
			}
		};
		const h = { 'Accept': 'application/json', 'User-Agent': `burnlink-cli/${VERSION}`, ...headers };
		if (body !== null)
			h['Content-Length'] = Buffer.byteLength(body);
		let req;
		try {
			req = mod.request(u, { method, headers: h, signal: ac.signal }, res => {
				const chunks = [];
				let size = 0;
				res.on('data', c => {
					size += c.length;
					if (size > MAX_RESPONSE)
						req.destroy(new CliError(`the answer from ${u.origin} is too large`));
					else
						chunks.push(c);
				});
				res.on('error', fail);
				res.on('end', () => {
					clearTimeout(timer);
					if (!res.complete)
						return fail(new CliError(`the connection to ${u.origin} broke off`));
					resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
				});
			});
		} catch (err) {
			return fail(err);
		}
		req.on('error', fail);
		req.end(body === null ? undefined : body);
	});
}

// Calls the API; returns the parsed JSON of a 2xx answer, throws ApiError otherwise.
async function api(method, url, { json, apiKey, timeoutMs }) {
	const headers = {};
	let body = null;
	if (json !== undefined) {
		headers['Content-Type'] = 'application/json';
		body = JSON.stringify(json);
	}
	if (apiKey)
		headers['Authorization'] = `Bearer ${apiKey}`;
	const res = await httpRequest(method, url, { headers, body, timeoutMs });
	let parsed = null;
	try {
		parsed = JSON.parse(res.body.toString('utf8'));
	} catch {
		/* not JSON: reported below */
	}
	if (res.status >= 200 && res.status < 300 && parsed && typeof parsed === 'object')
		return parsed;
	if (parsed && typeof parsed === 'object' && (parsed.code || parsed.error))
		throw new ApiError(res.status, parsed, res.headers['retry-after']);
	throw new CliError(`unexpected answer from ${url}: HTTP ${res.status}${parsed ? '' : ', not JSON'} (is this a burnlink site?)`);
}

/* ---------- input ---------- */

async function readStdin() {
	if (process.stdin.isTTY)
		process.stderr.write('burnlink: type the secret, then press Ctrl-D on a new line\n');
	const chunks = [];
	let size = 0;
	for await (const c of process.stdin) {
		size += c.length;
		if (size > MAX_PLAINTEXT)
			throw tooLarge(`the secret is larger than ${MAX_PLAINTEXT} bytes (2 MiB)`);
		chunks.push(c);
	}
	return Buffer.concat(chunks);
}

function readInputFile(p, what) {
	try {
		const st = fs.statSync(p);
		if (!st.isFile())
			throw new UsageError(`${what} "${oneLine(p)}" is not a regular file`);
		if (st.size > MAX_PLAINTEXT) {
			const m = `${what} "${oneLine(p)}" is larger than ${MAX_PLAINTEXT} bytes (2 MiB)`;
			// an attached file is part of the secret; a passphrase file is only input
			throw what === 'file' ? tooLarge(m) : new UsageError(m);
		}
		return fs.readFileSync(p);
	} catch (err) {
		if (err instanceof CliError)
			throw err;
		throw new UsageError(`cannot read ${what} "${oneLine(p)}": ${err.code || err.message}`);
	}
}

// Reads a line from the terminal without echo. Returns null when no terminal exists.
function promptHidden(question) {
	let fd;
	try {
		fd = fs.openSync('/dev/tty', 'r+');
	} catch {
		return null;
	}
	return new Promise((resolve, reject) => {
		const input = new tty.ReadStream(fd);
		input.setRawMode(true);
		input.setEncoding('utf8');
		fs.writeSync(fd, question);
		let answer = '';
		const finish = (value, err) => {
			input.setRawMode(false);
			input.removeAllListeners('data');
			fs.writeSync(fd, '\n');
			input.destroy();
			if (err)
				reject(err);
			else
				resolve(value);
		};
		input.on('data', chunk => {
			for (const ch of chunk) {
				if (ch === '\r' || ch === '\n')
					return finish(answer);
				if (ch === '\u0003')
					return finish(null, new CliError('interrupted', 130));
				if (ch === '\u0004') {
					if (answer === '')
						return finish(null, new CliError('no passphrase entered', EXIT_USAGE));
					return finish(answer);
				}
				if (ch === '\u007f' || ch === '\b')
					answer = [...answer].slice(0, -1).join('');
				else if (ch === '\u0015')
					answer = '';
				else if (ch >= ' ')
					answer += ch;
			}
		});
	});
}

// The passphrase from -p, --passphrase-file or a prompt ("-p -"); undefined if none.
async function passphraseFrom(opts, { confirm }) {
	if (opts['passphrase-file'] !== undefined) {
		const s = readInputFile(opts['passphrase-file'], 'passphrase file').toString('utf8').replace(/\r?\n$/, '');
		if (s === '')
			throw new UsageError('the passphrase file is empty');
		return s;
	}
	if (opts.passphrase === '-')
		return askPassphrase(confirm);
	if (opts.passphrase === '')
		throw new UsageError('the passphrase is empty');
	return opts.passphrase;
}

async function askPassphrase(confirm, noTerminal = 'no terminal to ask for the passphrase on; use --passphrase-file') {
	const p = await promptHidden('Passphrase: ');
	if (p === null)
		throw new UsageError(noTerminal);
	if (p === '')
		throw new UsageError('no passphrase entered');
	if (confirm && (await promptHidden('Passphrase (again): ')) !== p)
		throw new UsageError('the two passphrases differ');
	return p;
}

function warnIfClear(url, what, verb = 'travels') {
	const u = new URL(url);
	const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(u.hostname);
	if (u.protocol === 'http:' && !loopback)
		process.stderr.write(`burnlink: warning: ${u.origin} is not HTTPS; the ${what} ${verb} unencrypted\n`);
}

// The length of the well-formed UTF-8 character at buf[i], or 0.
function utf8Length(buf, i) {
	const b = buf[i];
	const [len, lo, hi] = b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf]
		: b === 0xe0 ? [3, 0xa0, 0xbf] : b === 0xed ? [3, 0x80, 0x9f]
		: b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf]
		: b === 0xf0 ? [4, 0x90, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f]
		: b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : [0, 0, 0];
	if (len === 0 || i + len > buf.length || buf[i + 1] < lo || buf[i + 1] > hi)
		return 0;
	for (let k = 2; k < len; k++)
		if ((buf[i + k] & 0xc0) !== 0x80)
			return 0;
	return len;
}

// What a terminal is shown of a secret (docs/CLI.md, "Terminal output"): C0
// controls but newline and tab (and CR before LF), DEL as \xNN; C1 controls
// (U+0080-U+009F) as \u00NN; a byte that is not UTF-8 as \xNN. Returns
// {text, escaped}.
export function escapeControls(buf) {
	const hex = (n) => n.toString(16).padStart(2, '0');
	const parts = [];
	let start = 0, escaped = 0;
	for (let i = 0; i < buf.length;) {
		const b = buf[i];
		let len = 1, esc = null;
		if (b < 0x80) {
			if ((b < 0x20 && b !== 0x0a && b !== 0x09 && !(b === 0x0d && buf[i + 1] === 0x0a)) || b === 0x7f)
				esc = `\\x${hex(b)}`;
		} else if ((len = utf8Length(buf, i)) === 0) {
			len = 1;
			esc = `\\x${hex(b)}`;
		} else if (b === 0xc2 && buf[i + 1] <= 0x9f) {
			esc = `\\u00${hex(buf[i + 1])}`;
		}
		if (esc !== null) {
			parts.push(buf.subarray(start, i), Buffer.from(esc));
			start = i + len;
			escaped++;
		}
		i += len;
	}
	parts.push(buf.subarray(start));
	return { text: Buffer.concat(parts), escaped };
}

/* ---------- the site's settings (GET /api/config) ---------- */

// "30m", "1h", "7d": seconds in the largest whole unit of --ttl.
function ttlText(s) {
	for (const [secs, unit] of [[86400, 'd'], [3600, 'h'], [60, 'm']])
		if (s % secs === 0)
			return `${s / secs}${unit}`;
	return `${s}s`;
}

// The site's GET /api/config, or null when it has none (an older server) or
// cannot be reached: the server checks everything again anyway. A site whose
// settings are broken is an error, and so is one that does not answer within
// the timeout (sending would only wait as long again).
async function siteConfig(site, timeoutMs) {
	try {
		const c = await api('GET', `${site}/api/config`, { timeoutMs });
		return c && typeof c.limits === 'object' && c.limits ? c : null;
	} catch (err) {
		if ((err instanceof ApiError && err.code === 'CONFIG_INVALID') || err.timedOut)
			throw err;
		return null;
	}
}

// What --ttl and --views accept on this site, as one hint.
function ttlHint(t) {
	const offered = Array.isArray(t.choices) && t.choices.length ? `; offered: ${t.choices.map(ttlText).join(', ')}` : '';
	return `--ttl from ${ttlText(t.min)} to ${ttlText(t.max)} (${t.min} to ${t.max} seconds), ` +
		`default ${ttlText(t.default)}${offered}`;
}

function viewsHint(v) {
	if (v.forced)
		return `this site allows only --views ${v.max} (leave --views out)`;
	return `--views from ${v.min} to ${v.max}, default ${v.default}` +
		(v.unlimited ? ', or unlimited' : '; unlimited is not allowed on this site');
}

// What a passphrase must be on this site, as one hint.
function passphraseHint(p) {
	return `a passphrase of ${p.min} to ${p.max} characters: --passphrase - (asked on the terminal) or --passphrase-file FILE`;
}

// Throws PolicyError when what is about to be sent is not what the site
// allows (docs/API.md, POST /secrets: the codes the server would answer):
// ttl and maxViews, files and the plaintext's size (what has files and
// total bytes), a passphrase the site requires (willAsk: one is coming), and
// who may create.
function checkPolicy(config, body, site, what = {}) {
	const { ttl, maxViews, files, content, passphrase } = config.limits;
	if (config.create === 'accounts' && what.anonymous)
		throw new PolicyError('NOT_SIGNED_IN', 'this site lets only its accounts create secrets',
			'give an API key with --api-key or BURNLINK_API_KEY', site);
	if (files && what.files > 0 && !files.allowed)
		throw new PolicyError('INVALID_FILES', 'this site does not accept files', 'send the text alone', site);
	if (files && what.files > files.max)
		throw new PolicyError('INVALID_FILES', `this site accepts at most ${files.max} file${files.max === 1 ? '' : 's'} per secret`,
			`attach at most ${files.max}, or pack them into one archive`, site);
	if (content && what.total > content.max)
		throw new PolicyError('INVALID_CONTENT_SIZE', `the secret is ${what.total} bytes; this site accepts at most ${content.max}`,
			`at most ${content.max} bytes of text and files together`, site);
	if (passphrase && passphrase.required && what.willAsk === false)
		throw new PolicyError('INVALID_PASSPHRASE_FORMAT', 'this site requires a passphrase', passphraseHint(passphrase), site);
	if (ttl && body.ttl !== undefined && (body.ttl < ttl.min || body.ttl > ttl.max))
		throw new PolicyError('INVALID_TTL', `--ttl ${ttlText(body.ttl)} is not allowed by this site`, ttlHint(ttl), site);
	if (maxViews && body.maxViews !== undefined) {
		const v = body.maxViews;
		if (v === null ? !maxViews.unlimited : (v < maxViews.min || v > maxViews.max))
			throw new PolicyError('INVALID_MAX_VIEWS',
				`--views ${v === null ? 'unlimited' : v} is not allowed by this site`, viewsHint(maxViews), site);
	}
}

// The site's settings as lines for "burnlink config" and --help.
function describeConfig(c) {
	const l = c.limits || {};
	const rows = [];
	const row = (k, v) => rows.push(`  ${k.padEnd(14)} ${v}`);
	if (l.ttl)
		row('--ttl', ttlHint(l.ttl).replace(/^--ttl /, ''));
	if (l.maxViews)
		row('--views', viewsHint(l.maxViews).replace(/^--views /, ''));
	if (l.passphrase)
		row('passphrase', `${l.passphrase.required ? 'required' : 'optional'}, ${l.passphrase.min} to ${l.passphrase.max} characters`);
	if (l.files && l.content)
		row('files', l.files.allowed ? `at most ${l.files.max}; ${l.content.max} bytes in total with the text` : 'not allowed');
	row('who creates', c.create === 'accounts' ? 'signed-in users and API keys only (--api-key)' : 'anyone');
	if (c.features)
		row('sign-up', c.features.signup ? 'open' : 'closed');
	if (c.branding && c.branding.siteName)
		row('site name', oneLine(c.branding.siteName));
	row('API version', String(c.apiVersion));
	return rows.join('\n') + '\n';
}

async function cmdConfig(opts) {
	const site = siteUrl(opts.url);
	const c = await api('GET', `${site}/api/config`, { timeoutMs: parseTimeout(opts.timeout) });
	if (opts.json)
		return writeOut(JSON.stringify(c, null, 2) + '\n');
	return writeOut(`${site}:\n${describeConfig(c)}`);
}

// --help, and with a site configured (--url or BURNLINK_URL) what it allows.
async function help(opts) {
	if (opts.url === undefined && !process.env.BURNLINK_URL)
		return writeOut(HELP);
	const site = siteUrl(opts.url);
	let c = null;
	try {
		c = await siteConfig(site, 5000);
	} catch {
		c = null;
	}
	return writeOut(HELP + (c ? `\nThis site (${site}):\n${describeConfig(c)}`
		: `\nThis site (${site}): its limits could not be read (GET /api/config).\n`));
}

/* ---------- commands ---------- */

// What a send or an answer carries: the --file files, and the text from arg
// (given: the argument was there; "-" or none: standard input, which is read
// only when there are no files or "-" asks for it). Refuses more than the
// API's limits and an empty secret.
async function readSecret(opts, arg, given) {
	const files = (opts.file || []).map(p => ({ name: path.basename(p), data: readInputFile(p, 'file') }));
	if (files.length > MAX_FILES)
		throw new LimitError('INVALID_FILES', `at most ${MAX_FILES} files can be attached (got ${files.length})`,
			`attach at most ${MAX_FILES}, or pack them into one archive`);
	let text = null;
	if (given && arg !== '-')
		text = Buffer.from(arg, 'utf8');
	else if (given || files.length === 0)
		text = await readStdin();
	const total = (text ? text.length : 0) + files.reduce((n, f) => n + f.data.length, 0);
	if (total > MAX_PLAINTEXT)
		throw tooLarge(`the secret is larger than ${MAX_PLAINTEXT} bytes (2 MiB) in total`);
	if ((!text || text.length === 0) && files.length === 0)
		throw new UsageError('the secret is empty');
	return { files, text, total };
}

async function cmdSend(opts, args) {
	const timeoutMs = parseTimeout(opts.timeout);
	const site = siteUrl(opts.url);
	const body = {};
	if (opts.ttl !== undefined)
		body.ttl = parseTtl(opts.ttl);
	if (opts.views !== undefined)
		body.maxViews = parseViews(opts.views);
	if (opts.undeletable)
		body.deletable = false;
	const apiKey = (opts['api-key'] ?? process.env.BURNLINK_API_KEY ?? '').trim();
	if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey))
		throw new UsageError('the API key contains characters an API key cannot have');
	if (opts.notify !== undefined) {
		// docs/NOTIFY.md: "email", "webhook" or both, comma-separated
		const where = [...new Set(opts.notify.split(',').map(s => s.trim()))];
		if (where.some(w => w !== 'email' && w !== 'webhook'))
			throw new UsageError('--notify takes email, webhook or email,webhook');
		if (!apiKey)
			throw new UsageError('--notify needs an API key (BURNLINK_API_KEY or --api-key)');
		body.notify = where;
	}

	const { files, text, total } = await readSecret(opts, args[0], args.length === 1);

	// What the site's settings refuse, before anything is sent (the server
	// checks it all again; an older server without GET /api/config is not asked)
	const config = await siteConfig(site, timeoutMs);
	const willAsk = opts.passphrase !== undefined || opts['passphrase-file'] !== undefined;
	if (config)
		checkPolicy(config, body, site, { files: files.length, total, willAsk, anonymous: !apiKey });

	const passphrase = await passphraseFrom(opts, { confirm: true });
	if (passphrase !== undefined)
		body.passphrase = passphrase;
	const rule = config && config.limits.passphrase;
	if (rule && passphrase !== undefined) {
		const n = [...passphrase].length;
		if (n < rule.min || n > rule.max)
			throw new PolicyError('INVALID_PASSPHRASE_FORMAT', `the passphrase has ${n} characters; this site accepts ${rule.min} to ${rule.max}`,
				passphraseHint(rule), site);
	}
	if (passphrase !== undefined || apiKey)
		warnIfClear(site, passphrase !== undefined ? 'passphrase' : 'API key');

	const key = wire.newKey();
	Object.assign(body, await wire.sealCreate(key, {
		text,
		files: files.map(f => ({ name: f.name, type: mimeTypeOf(f.name), data: f.data })),
	}));

	const fragment = `#key=${wire.encodeKey(key)}`;
	key.fill(0);
	const res = await api('POST', `${site}/api/secrets`, { json: body, apiKey, timeoutMs });
	if (typeof res.secretUrl !== 'string')
		throw new CliError('the server answered without a secretUrl');
	return { res, link: res.secretUrl.replace(/#.*$/, '') + fragment };
}

async function runSend(opts, args) {
	const out = await cmdSend(opts, args);
	if (opts.json)
		await writeOut(JSON.stringify({ ...out.res, link: out.link }, null, 2) + '\n');
	else
		await writeOut(out.link + '\n');
	if (!opts.json && process.stderr.isTTY && typeof out.res.metadataUrl === 'string')
		process.stderr.write(`burnlink: receipt (for "burnlink status" and "burnlink burn"): ${out.res.metadataUrl}\n`);
}

// The directory of --output-dir, checked to be a writable directory.
function outputDir(opts) {
	const outDir = path.resolve(opts['output-dir'] ?? '.');
	try {
		if (!fs.statSync(outDir).isDirectory())
			throw new Error('ENOTDIR');
		fs.accessSync(outDir, fs.constants.W_OK);
	} catch {
		throw new UsageError(`the output directory "${oneLine(outDir)}" does not exist or is not writable`);
	}
	return outDir;
}

async function cmdGet(opts, args) {
	const timeoutMs = parseTimeout(opts.timeout);
	const link = parseLink(args[0], ['secret', 'inbox']);
	if (link.fragmentKey === null)
		throw new UsageError('the link has no #key=… part; copy the whole link');
	if (link.kind === 'inbox')
		return getInbox(opts, link, timeoutMs);
	const key = decodeKey(link.fragmentKey);
	const outDir = outputDir(opts);
	let passphrase = await passphraseFrom(opts, { confirm: false });
	const url = `${link.site}/api/secrets/${link.id}`;
	warnIfClear(link.site, "link's id (enough to use up its views) and any passphrase", 'travel');

	const meta = await api('GET', url, { timeoutMs });
	// A key that does not fit is refused before a view is spent (docs/API.md
	// "Key commitment"); an older secret without a commitment is not checked.
	if (await wire.checkKey(key, meta.keyCommitment) === 'mismatch')
		throw new CliError('the key in the link does not fit this secret (was the link changed when it was copied?); no view was used');
	let prompted = false;
	if (meta.hasPassphrase && passphrase === undefined) {
		passphrase = await askPassphrase(false, 'this secret needs a passphrase: use --passphrase or --passphrase-file');
		prompted = true;
	}
	let res;
	for (let attempt = 1; ; attempt++) {
		try {
			res = await api('POST', url, {
				json: meta.hasPassphrase ? { passphrase } : {}, timeoutMs,
			});
			break;
		} catch (err) {
			if (!(prompted && err instanceof ApiError && err.code === 'INVALID_PASSPHRASE' && attempt < 3))
				throw err;
			process.stderr.write('burnlink: wrong passphrase, try again\n');
			passphrase = await askPassphrase(false);
		}
	}

	// Decrypt everything before writing anything.
	const opened = await openAnswer(key, res);
	key.fill(0);
	const left = res.viewsRemaining;
	return emitContent(opts, outDir, opened, { viewsRemaining: left ?? null },
		left === 0 ? 'that was the last view: the secret is now deleted from the server'
		: left === null || left === undefined ? 'the link keeps working until it expires'
		: `${left} more view${left === 1 ? '' : 's'} left`);
}

// Writes the files of opened content to outDir and its text to standard
// output (escaped on a terminal unless --raw), or all as JSON (--json, with
// extra's members); then the footer line on a terminal's standard error.
async function emitContent(opts, outDir, opened, extra, footer) {
	const text = opened.text;
	const files = opened.files.map((f, i) => ({
		original: f.name,
		name: safeFileName(f.name, i),
		mimeType: f.type,
		data: f.data,
	}));

	const written = files.map(f => {
		const where = writeFileSafely(outDir, f.name, f.data, !!opts.force);
		if (f.name !== f.original)
			process.stderr.write(`burnlink: the file name "${oneLine(f.original)}" was unsafe; using "${f.name}"\n`);
		if (path.basename(where) !== f.name)
			process.stderr.write(`burnlink: "${f.name}" exists; saved as "${path.basename(where)}"\n`);
		process.stderr.write(`burnlink: wrote ${where} (${f.data.length} bytes)\n`);
		return { filename: f.original, path: where, mimeType: f.mimeType, size: f.data.length };
	});

	const terminal = process.stdout.isTTY && !opts.raw;
	let lineOpen = process.stdout.isTTY && text !== null && text.length > 0 && text[text.length - 1] !== 0x0a;
	if (opts.json) {
		const json = JSON.stringify({
			text: text === null ? null : text.toString('utf8'),
			files: written,
			...extra,
		}, null, 2) + '\n';
		// JSON.stringify escapes C0 controls only; the same value, C1 and DEL escaped too.
		await writeOut(terminal ? json.replace(/[\u007f-\u009f]/g, c => `\\u00${c.charCodeAt(0).toString(16)}`) : json);
	} else if (text !== null && terminal) {
		const shown = escapeControls(text);
		await writeOut(shown.text);
		if (shown.escaped > 0)
			process.stderr.write(`${lineOpen ? '\n' : ''}burnlink: ${shown.escaped} control character${
				shown.escaped === 1 ? ' is' : 's are'} shown escaped (\\x1b, \\u009b); use --raw, or redirect to a file, for the exact text\n`);
		lineOpen = lineOpen && shown.escaped === 0;
	} else if (text !== null) {
		await writeOut(text);
	}
	if (process.stderr.isTTY && !opts.json)
		process.stderr.write(`${lineOpen ? '\n' : ''}burnlink: ${footer}\n`);
}

/* ---------- secret requests (docs/API.md, "Secret requests") ---------- */

// The inbox secret of an inbox link's #key=… (182 characters), checked: a
// key pair that does not fit together, or a note key or check changed, is refused here, before the answer is
// read (and deleted) in vain.
async function inboxSecret(link) {
	const me = link.fragmentKey === null ? null : await wire.importInboxSecret(link.fragmentKey);
	if (me === null)
		throw new UsageError('the #key=… part of the inbox link is damaged (expected 182 base64 characters: a P-256 key pair, the note key and their check); copy the whole link');
	me.noteKey.fill(0);
	return link.fragmentKey;
}

// Creates path with mode 0600, never replacing anything; returns its fd.
function createPrivateFile(p) {
	try {
		return fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
		    (fs.constants.O_NOFOLLOW || 0), 0o600);
	} catch (err) {
		throw new UsageError(`cannot create ${oneLine(p)}: ${err.code === 'EEXIST' ? 'it exists (not replaced)' : err.code || err.message}`);
	}
}

async function cmdRequest(opts) {
	const timeoutMs = parseTimeout(opts.timeout);
	const site = siteUrl(opts.url);
	const apiKey = (opts['api-key'] ?? process.env.BURNLINK_API_KEY ?? '').trim();
	if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey))
		throw new UsageError('the API key contains characters an API key cannot have');
	const note = opts.note === undefined ? '' : opts.note;
	if (Buffer.byteLength(note) > wire.LIMITS.note.max)
		throw new UsageError(`the note is longer than ${wire.LIMITS.note.max} bytes`);
	const keys = await wire.newRequestKeys();
	const body = { publicKey: keys.publicKey, allowFiles: !!opts.files };
	if (opts.ttl !== undefined)
		body.ttl = parseTtl(opts.ttl);
	body.note = await wire.sealNote(keys.noteKey, keys.publicKey, note);
	// The inbox file before the request: a name that is taken must not leave
	// a request on the server whose inbox link nobody has.
	if (apiKey)
		warnIfClear(site, 'API key');
	const toFile = opts['inbox-file'] !== undefined;
	const fd = toFile ? createPrivateFile(opts['inbox-file']) : null;
	let res, requestLink, inboxLink;
	try {
		res = await api('POST', `${site}/api/requests`, { json: body, apiKey, timeoutMs });
		if (typeof res.requestUrl !== 'string' || typeof res.inboxUrl !== 'string')
			throw new CliError('the server answered without a requestUrl and an inboxUrl');
		requestLink = `${res.requestUrl.replace(/#.*$/, '')}#key=${keys.noteKey}`;
		inboxLink = `${res.inboxUrl.replace(/#.*$/, '')}#key=${keys.inboxSecret}`;
		if (fd !== null)
			fs.writeSync(fd, inboxLink + '\n');
	} catch (err) {
		if (fd !== null)
			fs.unlinkSync(opts['inbox-file']);
		throw err;
	} finally {
		if (fd !== null)
			fs.closeSync(fd);
	}
	if (opts.json)
		return writeOut(JSON.stringify({ ...res, requestLink, ...(toFile ? {} : { inboxLink }) }, null, 2) + '\n');
	await writeOut(requestLink + '\n' + (toFile ? '' : inboxLink + '\n'));
	if (process.stderr.isTTY)
		process.stderr.write(`burnlink: send the first link to the person who has the secret; ${
			toFile ? `the inbox link is in ${opts['inbox-file']}` : 'keep the second (the inbox) to yourself'}, then "burnlink get INBOX_LINK"\n`);
}

async function cmdAnswer(opts, args) {
	const timeoutMs = parseTimeout(opts.timeout);
	const link = parseLink(args[0], ['request']);
	if (link.fragmentKey === null)
		throw new UsageError('the link has no #key=… part; copy the whole link');
	const noteKey = decodeKey(link.fragmentKey);
	const { files, text } = await readSecret(opts, args[1], args.length === 2);

	const url = `${link.site}/api/requests/${link.id}`;
	const q = await api('GET', url, { timeoutMs });
	if (files.length > 0 && q.allowFiles === false)
		throw new UsageError('this request accepts text only (the requester did not allow files)');
	// The note vouches for the public key: it opens only with the key the requester made.
	let note;
	try {
		note = await wire.openNote(noteKey, q.publicKey, q.note);
	} catch (err) {
		if (!(err instanceof wire.WireError))
			throw err;
		throw new CliError('the request does not match its link: the link is damaged, or the server changed the requester\'s key; nothing was sent');
	}
	if (note.length > 0)
		process.stderr.write(`burnlink: the request says: ${escapeControls(Buffer.from(note)).text.toString()}\n`);
	let body;
	try {
		body = await wire.sealAnswer(q.publicKey, noteKey, {
			text,
			files: files.map(f => ({ name: f.name, type: mimeTypeOf(f.name), data: f.data })),
		});
	} catch (err) {
		if (err instanceof wire.WireError)
			throw new CliError('the server sent a malformed public key');
		throw err;
	}
	noteKey.fill(0);
	const res = await api('POST', url, { json: body, timeoutMs });
	return writeOut(opts.json ? JSON.stringify(res, null, 2) + '\n' : 'answered\n');
}

// get INBOX_LINK: the answer, read once, opened with the inbox link's private key.
async function getInbox(opts, link, timeoutMs) {
	const secret = await inboxSecret(link);
	const outDir = outputDir(opts);
	const url = `${link.site}/api/requests/${link.id}`;
	warnIfClear(link.site, "link's id (enough to read the answer once, and so delete it)", 'travels');
	const st = await api('GET', url, { timeoutMs });
	if (st.state === 'waiting')
		throw new CliError('no answer yet (the request is waiting); try again later');
	const res = await api('POST', url, { json: {}, timeoutMs });
	let opened;
	try {
		const out = await wire.openRequestAnswer(secret, res);
		opened = {
			text: out.text === null ? null : asBuffer(out.text),
			files: out.files.map(f => ({ ...f, data: asBuffer(f.data) })),
		};
	} catch (err) {
		if (!(err instanceof wire.WireError))
			throw err;
		throw new CliError(err.reason === 'key'
			? `cannot decrypt the ${err.what}: the inbox link's key does not match (was it copied completely?)`
			: `the server sent a malformed ${err.what}`);
	}
	return emitContent(opts, outDir, opened, { state: 'read' },
		'the answer was read: it is now deleted from the server');
}

// Creates dir/name without following symlinks and without replacing anything
// (unless force, and then only a regular file); on a clash, tries "name (n).ext".
// Returns the path written.
export function writeFileSafely(dir, name, data, force) {
	const ext = path.extname(name);
	const stem = name.slice(0, name.length - ext.length);
	const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW } = fs.constants;
	for (let n = 0; n < 1000; n++) {
		const candidate = n === 0 ? name : `${stem} (${n})${ext}`;
		const target = path.join(dir, candidate);
		if (path.dirname(target) !== dir)
			throw new CliError(`refusing to write outside ${dir}`);
		let fd;
		try {
			fd = fs.openSync(target, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW || 0), 0o600);
		} catch (err) {
			if (err.code !== 'EEXIST')
				throw new CliError(`cannot write ${target}: ${err.code || err.message}`);
			if (force && n === 0) {
				const st = fs.lstatSync(target);
				if (st.isFile()) {
					try {
						fd = fs.openSync(target, O_WRONLY | O_TRUNC | (O_NOFOLLOW || 0));
					} catch {
						fd = undefined;
					}
				}
			}
			if (fd === undefined)
				continue;
		}
		try {
			fs.writeSync(fd, data);
		} catch (err) {
			throw new CliError(`cannot write ${target}: ${err.code || err.message}`);
		} finally {
			fs.closeSync(fd);
		}
		return target;
	}
	throw new CliError(`cannot find a free name for "${name}" in ${dir}`);
}

async function cmdStatus(opts, args) {
	const timeoutMs = parseTimeout(opts.timeout);
	const link = parseLink(args[0], ['receipt', 'secret', 'inbox']);
	if (link.kind === 'inbox') {
		const st = await api('GET', `${link.site}/api/requests/${link.id}`, { timeoutMs });
		if (opts.json)
			return writeOut(JSON.stringify(st, null, 2) + '\n');
		const rows = [['state', st.state], ['created', st.createdAt], ['expires', st.expiresAt],
			['answered', st.answeredAt ?? 'not yet'], ['read', st.readAt ?? 'not yet'],
			['files', st.allowFiles ? 'allowed' : 'not allowed']];
		return writeOut(rows.map(([l, v]) => oneLine(`${(l + ':').padEnd(16)}${v}`)).join('\n') + '\n');
	}
	const meta = await api('GET', `${link.site}/api/secrets/${link.id}`, { timeoutMs });
	if (opts.json)
		return writeOut(JSON.stringify(meta, null, 2) + '\n');
	const yesNo = v => (v ? 'yes' : 'no');
	const lines = [];
	const row = (label, value) => lines.push(`${(label + ':').padEnd(16)}${value}`);
	row('state', meta.state ?? (meta.exists ? 'active' : 'gone'));
	if (meta.createdAt)
		row('created', meta.createdAt);
	row('expires', meta.expiresAt ?? 'unknown');
	const limit = meta.maxViews === null ? 'unlimited' : meta.maxViews;
	if (meta.viewCount !== undefined)
		row('views', `${meta.viewCount} of ${limit}` +
			(meta.viewsRemaining === null || meta.viewsRemaining === undefined ? '' : ` (${meta.viewsRemaining} left)`));
	else
		row('views left', meta.viewsRemaining === null ? 'unlimited' : `${meta.viewsRemaining} of ${limit}`);
	if (meta.lastViewedAt !== undefined)
		row('last viewed', meta.lastViewedAt ?? 'never');
	row('passphrase', yesNo(meta.hasPassphrase));
	if (meta.deletable !== undefined)
		row('recipient burn', meta.deletable ? 'allowed' : 'not allowed');
	return writeOut(lines.map(oneLine).join('\n') + '\n');
}

async function cmdBurn(opts, args) {
	const timeoutMs = parseTimeout(opts.timeout);
	const link = parseLink(args[0], ['receipt', 'secret', 'request', 'inbox']);
	if (link.kind === 'request' || link.kind === 'inbox') {
		warnIfClear(link.site, "link's id (enough to burn it)", 'travels');
		const res = await api('DELETE', `${link.site}/api/requests/${link.id}`, { timeoutMs });
		return writeOut(opts.json ? JSON.stringify(res, null, 2) + '\n' : 'burned\n');
	}
	const url = `${link.site}/api/secrets/${link.id}`;
	let passphrase = await passphraseFrom(opts, { confirm: false });
	warnIfClear(link.site, "link's id and any passphrase", 'travel');
	if (link.kind === 'secret' && passphrase === undefined) {
		const meta = await api('GET', url, { timeoutMs });
		if (meta.hasPassphrase) {
			passphrase = await askPassphrase(false, 'this secret has a passphrase: burning it with the secret link needs --passphrase or --passphrase-file (the receipt link needs none)');
		}
	}
	const res = await api('DELETE', url, {
		json: passphrase === undefined ? undefined : { passphrase }, timeoutMs,
	});
	return writeOut(opts.json ? JSON.stringify(res, null, 2) + '\n' : 'burned\n');
}

/* ---------- output and main ---------- */

function writeOut(data) {
	return new Promise((resolve, reject) => {
		process.stdout.write(data, err => (err ? reject(err) : resolve()));
	});
}

export async function main(argv) {
	const { cmd, opts, args } = parseArgs(argv);
	if (opts.help)
		return help(opts);
	if (opts.version)
		return writeOut(`burnlink ${VERSION}\n`);
	switch (cmd) {
	case CONFIG: return cmdConfig(opts);
	case GET: return cmdGet(opts, args);
	case STATUS: return cmdStatus(opts, args);
	case BURN: return cmdBurn(opts, args);
	case REQUEST: return cmdRequest(opts);
	case ANSWER: return cmdAnswer(opts, args);
	default: return runSend(opts, args);
	}
}

const isMain = (() => {
	try {
		return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
	} catch {
		return false;
	}
})();

if (isMain) {
	process.stdout.on('error', err => {
		if (err.code === 'EPIPE')
			process.exit(EXIT_OK);
	});
	main(process.argv.slice(2)).then(
		() => { process.exitCode = EXIT_OK; },
		err => {
			process.stderr.write(formatError(err) + '\n');
			process.exitCode = err instanceof CliError ? err.exitCode : EXIT_FAIL;
		});
}
