// wire.js: the client side of the wire format of docs/API.md, one module for
// the page, the CLI and the tests. AES-256-GCM through WebCrypto: one key for
// every item of a secret, a fresh 12-byte IV per item, the 16-byte tag after
// the ciphertext, no additional data; items are {ciphertext, iv} in canonical
// standard base64; the key travels as 43 url-safe base64 characters in the
// link's #key= fragment. A plain ES module: the page loads it from
// www/assets/ (same origin), the CLI and the tests import it (Node 18+).

import { LIMITS } from './limits.js';

export { LIMITS };
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

// The browser's WebCrypto, or Node's (global from Node 19, node:crypto's in 18).
const wc = globalThis.crypto && globalThis.crypto.subtle
	? globalThis.crypto : (await import('node:crypto')).webcrypto;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const NodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : null;

// Why an item could not be opened: reason "malformed" (not an item, bad
// base64, a wrong IV length, shorter than the tag) or "key" (the key does not
// open it: another key, or altered data); what names the item, part the member.
export class WireError extends Error {
	constructor(reason, message, what, part) {
		super(what ? `${what}: ${message}` : message);
		this.name = 'WireError';
		this.reason = reason;
		this.what = what;
		this.part = part;
	}
}

// A Uint8Array of a string (UTF-8), an ArrayBuffer or a view (not copied).
export function toBytes(x) {
	if (typeof x === 'string')
		return new TextEncoder().encode(x);
	if (x instanceof Uint8Array)
		return x;
	if (ArrayBuffer.isView(x))
		return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
	if (x instanceof ArrayBuffer)
		return new Uint8Array(x);
	throw new TypeError('expected a string or bytes');
}

/* Base64 */

// Standard base64 with padding. Linear in the size: Node's Buffer, else
// btoa over pieces joined once (a 2 MiB file is 64 pieces, not 2M appends).
export function b64encode(bytes) {
	const b = toBytes(bytes);
	if (NodeBuffer)
		return NodeBuffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
	const parts = [];
	for (let i = 0; i < b.length; i += 0x8000)
		parts.push(String.fromCharCode.apply(null, b.subarray(i, i + 0x8000)));
	return btoa(parts.join(''));
}

// The bytes of any base64 string the checks before let through.
function decodeChecked(s) {
	if (NodeBuffer) {
		const buf = NodeBuffer.from(s, 'base64');
		return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
	}
	const bin = atob(s);
	const out = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++)
		out[i] = bin.charCodeAt(i);
	return out;
}

// 1 if s is canonical standard base64: the alphabet, padding to a multiple
// of 4, and no stray bits in the last character (re-encoding gives s again).
export function isCanonicalB64(s) {
	if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s))
		return false;
	if (s.endsWith('=='))
		return (ALPHABET.indexOf(s[s.length - 3]) & 15) === 0;
	if (s.endsWith('='))
		return (ALPHABET.indexOf(s[s.length - 2]) & 3) === 0;
	return true;
}

// The bytes of canonical standard base64; throws WireError on anything else.
export function b64decode(s, what, part) {
	if (!isCanonicalB64(s))
		throw new WireError('malformed', 'not canonical base64', what, part);
	return decodeChecked(s);
}

/* The key */

// A new random 256-bit key (wipe it with fill(0) once used).
export function newKey() {
	return wc.getRandomValues(new Uint8Array(KEY_BYTES));
}

// The key as the link carries it: url-safe base64 without padding (43 characters).
export function encodeKey(raw) {
	return b64encode(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// The 32 key bytes of a link's key value (url-safe or standard alphabet,
// padding optional), or null when it is not a 256-bit key.
export function decodeKey(value) {
	if (typeof value !== 'string' || !/^[A-Za-z0-9_+/-]{43}=?$/.test(value))
		return null;
	const bytes = decodeChecked(value.replace(/=$/, '').replace(/-/g, '+').replace(/_/g, '/') + '=');
	return bytes.length === KEY_BYTES ? bytes : null;
}

/* The key commitment (docs/API.md "Key commitment") */

// AES-GCM is not key-committing: another key fails only once a view is spent.
// The secret's metadata carries base64url(HMAC-SHA-256(key, this label)), 43
// characters, so a client can refuse a wrong key before it spends a view.
export const COMMITMENT_LABEL = 'burnlink key commitment v1';
export const COMMITMENT_LENGTH = 43;

function encodeCommitment(mac) {
	return encodeKey(mac);
}

// The key commitment of raw key bytes: 43 url-safe base64 characters.
export async function keyCommitment(raw) {
	const k = await wc.subtle.importKey('raw', toBytes(raw), { name: 'HMAC', hash: 'SHA-256' },
		false, ['sign']);
	return encodeCommitment(new Uint8Array(await wc.subtle.sign('HMAC', k, toBytes(COMMITMENT_LABEL))));
}

// Checks raw key bytes against the keyCommitment of a secret's metadata:
// 'match', 'mismatch' (the key cannot open the secret: do not spend a view),
// or 'unchecked' when the metadata has none (a secret stored before
// commitments, or sent without one): then only decryption can tell.
export async function checkKey(raw, commitment) {
	if (commitment === null || commitment === undefined)
		return 'unchecked';
	return typeof commitment === 'string' && commitment === await keyCommitment(raw)
		? 'match' : 'mismatch';
}

// A WebCrypto key of raw key bytes, for seal() and open() (which also take the bytes).
export function importKey(raw) {
	return wc.subtle.importKey('raw', toBytes(raw), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

function asKey(key) {
	return key instanceof ArrayBuffer || ArrayBuffer.isView(key) ? importKey(key) : key;
}

/* Items */

// The item of an IV and sealed bytes (the ciphertext with its tag).
export function toItem(iv, sealed) {
	return { ciphertext: b64encode(sealed), iv: b64encode(iv) };
}

// {iv, sealed} of an item, checked: canonical base64, a 12-byte IV, at least
// the tag long. Throws WireError("malformed").
export function fromItem(item, what) {
	if (!item || typeof item !== 'object')
		throw new WireError('malformed', 'not an encrypted item {ciphertext, iv}', what, 'item');
	const iv = b64decode(item.iv, what, 'iv');
	const sealed = b64decode(item.ciphertext, what, 'ciphertext');
	if (iv.length !== IV_BYTES)
		throw new WireError('malformed', `the IV is not ${IV_BYTES} bytes`, what, 'item');
	if (sealed.length < TAG_BYTES)
		throw new WireError('malformed', `the ciphertext is shorter than the ${TAG_BYTES}-byte tag`, what, 'item');
	return { iv, sealed };
}

// {ciphertext, iv} of a string (UTF-8) or bytes under key, with a fresh IV.
export async function seal(key, plain) {
	const k = await asKey(key);
	const iv = wc.getRandomValues(new Uint8Array(IV_BYTES));
	const sealed = await wc.subtle.encrypt({ name: 'AES-GCM', iv }, k, toBytes(plain));
	return toItem(iv, new Uint8Array(sealed));
}

// The plaintext bytes of an item; throws WireError ("key" when the key does not open it).
export async function open(key, item, what) {
	const { iv, sealed } = fromItem(item, what);
	const k = await asKey(key);
	let plain;
	try {
		plain = await wc.subtle.decrypt({ name: 'AES-GCM', iv }, k, sealed);
	} catch {
		throw new WireError('key', 'the key does not open it', what, 'ciphertext');
	}
	return new Uint8Array(plain);
}

// A filename or mimeType as retrieved: a plain string as it is, nothing as
// '', an item opened and read as UTF-8.
export async function openString(key, value, what) {
	if (typeof value === 'string')
		return value;
	if (value === null || value === undefined)
		return '';
	return new TextDecoder('utf-8').decode(await open(key, value, what));
}

/* Requests and answers */

// {text?, files?, keyCommitment?} of a create request, every item sealed
// under key: text (a string or bytes; left out when empty) and files [{name,
// type, data}], where data is bytes or an async function giving them (bytes
// got that way are wiped once sealed); each file's name and type are sealed
// too (type application/octet-stream when empty). onFile(i) is called before
// file i. keyCommitment when key is raw bytes (a CryptoKey cannot give it).
export async function sealCreate(key, { text, files = [] }, { onFile } = {}) {
	const k = await asKey(key);
	const body = {};
	if (text !== undefined && text !== null && toBytes(text).length > 0)
		body.text = await seal(k, text);
	if (files.length)
		body.files = [];
	for (let i = 0; i < files.length; i++) {
		const f = files[i];
		if (onFile)
			onFile(i);
		const read = typeof f.data === 'function';
		const bytes = read ? await f.data() : f.data;
		try {
			body.files.push({
				filename: await seal(k, f.name),
				mimeType: await seal(k, f.type || 'application/octet-stream'),
				data: await seal(k, bytes),
			});
		} finally {
			if (read)
				bytes.fill(0);
		}
	}
	if (k !== key)
		body.keyCommitment = await keyCommitment(key);
	return body;
}

// The content of a retrieval answer, every item opened with key before
// anything is returned: {text (bytes or null), files [{name, type, data}],
// viewsRemaining}. Throws WireError naming the item (text, file name, file
// type, file).
export async function openAnswer(key, answer) {
	const k = await asKey(key);
	const text = answer.text ? await open(k, answer.text, 'text') : null;
	const files = [];
	for (const f of Array.isArray(answer.files) ? answer.files : []) {
		files.push({
			name: await openString(k, f.filename, 'file name'),
			type: await openString(k, f.mimeType, 'file type'),
			data: await open(k, f.data, 'file'),
		});
	}
	return { text, files, viewsRemaining: answer.viewsRemaining };
}

/* Synchronous, for callers that cannot wait */

// seal() and open() over node:crypto's AES-256-GCM (pass the module), with
// the same items, and keyCommitment() over its HMAC: the tests' helpers build
// request bodies synchronously.
// Both return and take Buffers; seal takes an IV to repeat one on purpose.
export function nodeSync(nodeCrypto) {
	return {
		seal(key, plain, iv = nodeCrypto.randomBytes(IV_BYTES)) {
			const c = nodeCrypto.createCipheriv('aes-256-gcm', key, iv);
			return toItem(iv, NodeBuffer.concat([c.update(toBytes(plain)), c.final(), c.getAuthTag()]));
		},
		keyCommitment(key) {
			return encodeCommitment(nodeCrypto.createHmac('sha256', key).update(COMMITMENT_LABEL).digest());
		},
		open(key, item, what) {
			const { iv, sealed } = fromItem(item, what);
			const d = nodeCrypto.createDecipheriv('aes-256-gcm', key, iv);
			d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
			try {
				return NodeBuffer.concat([d.update(sealed.subarray(0, sealed.length - TAG_BYTES)), d.final()]);
			} catch {
				throw new WireError('key', 'the key does not open it', what, 'ciphertext');
			}
		},
	};
}

/* Secret requests (docs/API.md, "Secret requests: wire format") */

// ECDH over P-256; public keys travel as the uncompressed SEC1 point (65
// bytes: 0x04 || X || Y) in url-safe base64 without padding (87 characters);
// the inbox link's fragment holds d || X || Y || the note key (128 bytes)
// || its check (8 bytes): 136 bytes, 182 characters. Links made before the
// check have the 128 bytes alone (171 characters).
export const POINT_BYTES = 65;
export const SCALAR_BYTES = 32;
export const INBOX_BYTES = 128;
export const INBOX_CHECK_BYTES = 8;
export const ANSWER_INFO = 'burnlink request answer v1';
const EC = { name: 'ECDH', namedCurve: 'P-256' };

function b64u(bytes) {
	return b64encode(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// The bytes of url-safe base64 without padding of exactly n bytes, or null.
export function fromB64u(s, n) {
	if (typeof s !== 'string' || !/^[A-Za-z0-9_-]*$/.test(s) || s.length !== Math.ceil(n * 4 / 3))
		return null;
	const std = s.replace(/-/g, '+').replace(/_/g, '/');
	const padded = std + '='.repeat((4 - std.length % 4) % 4);
	if (!isCanonicalB64(padded))
		return null;
	const b = decodeChecked(padded);
	return b.length === n ? b : null;
}

// A public key (87 characters) of a 65-byte uncompressed point.
export function encodePoint(raw) {
	return b64u(raw);
}

// The 65 bytes of a public key, or null when it is not an uncompressed point's encoding.
export function decodePoint(s) {
	const b = fromB64u(s, POINT_BYTES);
	return b && b[0] === 4 ? b : null;
}

// The check of an inbox link's 128 bytes (d || X || Y || note key): the
// first 8 bytes of their SHA-256. A changed character anywhere in the link's
// key, the note key too, which nothing else can check before the answer is
// read (and so deleted), makes it differ (docs/API.md, "Secret requests:
// keys and links").
export async function inboxCheck(bytes128) {
	const h = new Uint8Array(await wc.subtle.digest('SHA-256', toBytes(bytes128).subarray(0, INBOX_BYTES)));
	return h.slice(0, INBOX_CHECK_BYTES);
}

// A new request: {publicKey (87 characters, for the server), inboxSecret (182
// characters, for the inbox link's fragment only), noteKey (43 characters,
// for the request link's fragment only)}.
export async function newRequestKeys() {
	const pair = await wc.subtle.generateKey(EC, true, ['deriveBits']);
	const jwk = await wc.subtle.exportKey('jwk', pair.privateKey);
	const pub = new Uint8Array(await wc.subtle.exportKey('raw', pair.publicKey));
	const unb = (v) => fromB64u(v, SCALAR_BYTES);
	const nk = newKey();
	const secret = new Uint8Array(INBOX_BYTES + INBOX_CHECK_BYTES);
	secret.set(unb(jwk.d), 0);
	secret.set(pub.subarray(1), SCALAR_BYTES);
	secret.set(nk, SCALAR_BYTES * 3);
	secret.set(await inboxCheck(secret), INBOX_BYTES);
	const inboxSecret = b64u(secret);
	secret.fill(0);
	const noteKey = encodeKey(nk);
	nk.fill(0);
	return { publicKey: encodePoint(pub), inboxSecret, noteKey };
}

// The note of a request, sealed under the note key (raw bytes or the link's
// 43 characters) with the requester's public point (65 bytes) as additional
// data: a sender who opens it knows that the public key the server handed
// out is the requester's (another key, or a swapped note, does not open).
// Always sent, an empty note as the empty string.
export async function sealNote(noteKey, publicKey, text) {
	const point = decodePoint(publicKey);
	if (!point)
		throw new WireError('malformed', 'not a P-256 public key', 'public key', 'publicKey');
	const raw = typeof noteKey === 'string' ? decodeKey(noteKey) : toBytes(noteKey);
	const k = await importKey(raw);
	const iv = wc.getRandomValues(new Uint8Array(IV_BYTES));
	const sealed = await wc.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: point }, k, toBytes(text));
	return toItem(iv, new Uint8Array(sealed));
}

// The note's text (a string); throws WireError ("key" when the note key or
// the public key does not match: the link is damaged, or the server changed
// the key).
export async function openNote(noteKey, publicKey, item) {
	const point = decodePoint(publicKey);
	if (!point)
		throw new WireError('malformed', 'not a P-256 public key', 'public key', 'publicKey');
	const { iv, sealed } = fromItem(item, 'note');
	const raw = typeof noteKey === 'string' ? decodeKey(noteKey) : toBytes(noteKey);
	if (!raw)
		throw new WireError('key', 'the note key is damaged', 'note', 'key');
	const k = await importKey(raw);
	try {
		return new TextDecoder('utf-8').decode(await wc.subtle.decrypt({ name: 'AES-GCM', iv,
		    additionalData: point }, k, sealed));
	} catch {
		throw new WireError('key', 'the note does not open with this link and public key', 'note', 'ciphertext');
	}
}

// {privateKey (a WebCrypto key), publicRaw (65 bytes), noteKey (32 bytes)}
// of an inbox link's key value, or null when it is not 128 bytes of a P-256
// key pair and a note key followed by their check (182 characters), or the
// 128 bytes alone (171 characters: a link made before the check, whose note
// key only the answer's decryption can check). Reads nothing from the
// server: a client calls it before it reads the answer.
export async function importInboxSecret(value) {
	const checked = typeof value === 'string' && value.length === Math.ceil((INBOX_BYTES + INBOX_CHECK_BYTES) * 4 / 3);
	const b = fromB64u(value, checked ? INBOX_BYTES + INBOX_CHECK_BYTES : INBOX_BYTES);
	if (!b)
		return null;
	if (checked) {
		const want = await inboxCheck(b);
		let diff = 0;
		for (let i = 0; i < INBOX_CHECK_BYTES; i++)
			diff |= want[i] ^ b[INBOX_BYTES + i];
		if (diff !== 0) {
			b.fill(0);
			return null;
		}
	}
	const jwk = {
		kty: 'EC', crv: 'P-256', ext: false,
		d: b64u(b.subarray(0, 32)), x: b64u(b.subarray(32, 64)), y: b64u(b.subarray(64, 96)),
	};
	const publicRaw = new Uint8Array(POINT_BYTES);
	publicRaw[0] = 4;
	publicRaw.set(b.subarray(32, 96), 1);
	const noteKey = b.slice(96, 128);
	b.fill(0);
	try {
		const privateKey = await wc.subtle.importKey('jwk', jwk, EC, false, ['deriveBits']);
		return { privateKey, publicRaw, noteKey };
	} catch {
		return null;
	}
}

// The 32-byte AES-256-GCM key of an answer: HKDF-SHA-256 with IKM = the
// ECDH shared secret (the X coordinate, 32 bytes) || the note key (32 bytes:
// only a holder of the request link can make an answer that opens), salt =
// the ephemeral public point || the requester's public point (130 bytes),
// info = ANSWER_INFO.
export async function answerKey(privateKey, peerRaw, ephemeralRaw, requesterRaw, noteKey) {
	const peer = await wc.subtle.importKey('raw', toBytes(peerRaw), EC, false, []);
	const z = new Uint8Array(await wc.subtle.deriveBits({ name: 'ECDH', public: peer }, privateKey, 256));
	const ikmBytes = new Uint8Array(64);
	ikmBytes.set(z, 0);
	ikmBytes.set(toBytes(noteKey), 32);
	z.fill(0);
	const salt = new Uint8Array(POINT_BYTES * 2);
	salt.set(toBytes(ephemeralRaw), 0);
	salt.set(toBytes(requesterRaw), POINT_BYTES);
	const ikm = await wc.subtle.importKey('raw', ikmBytes, 'HKDF', false, ['deriveBits']);
	ikmBytes.fill(0);
	const bits = await wc.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt,
	    info: toBytes(ANSWER_INFO) }, ikm, 256);
	return new Uint8Array(bits);
}

// The body of POST /requests/<requestKey>: {ephemeralKey, text?, files?},
// sealed for the requester's public key (87 characters) and the request
// link's note key (its 43 characters, or the bytes) like a secret
// (sealCreate) under the key answerKey() derives; options as sealCreate's.
export async function sealAnswer(publicKey, noteKey, content, options) {
	const requester = decodePoint(publicKey);
	if (!requester)
		throw new WireError('malformed', 'not a P-256 public key', 'public key', 'publicKey');
	const nk = typeof noteKey === 'string' ? decodeKey(noteKey) : toBytes(noteKey);
	if (!nk)
		throw new WireError('key', 'the note key is damaged', 'note key', 'key');
	const eph = await wc.subtle.generateKey(EC, true, ['deriveBits']);
	const ephRaw = new Uint8Array(await wc.subtle.exportKey('raw', eph.publicKey));
	const key = await answerKey(eph.privateKey, requester, ephRaw, requester, nk);
	try {
		const body = await sealCreate(key, content, options);
		return { ephemeralKey: encodePoint(ephRaw), ...body };
	} finally {
		key.fill(0);
	}
}

// The content of an answer read from the inbox (POST /requests/<inboxKey>),
// opened with the inbox link's key value: as openAnswer().
export async function openRequestAnswer(inboxSecret, answer) {
	const me = await importInboxSecret(inboxSecret);
	if (!me)
		throw new WireError('malformed', 'the inbox secret is not a P-256 key pair', 'inbox secret', 'key');
	const eph = decodePoint(answer && answer.ephemeralKey);
	if (!eph)
		throw new WireError('malformed', 'not a P-256 public key', 'ephemeral key', 'ephemeralKey');
	let key;
	try {
		key = await answerKey(me.privateKey, eph, eph, me.publicRaw, me.noteKey);
	} catch {
		throw new WireError('key', 'the ephemeral key is not a point of P-256', 'ephemeral key', 'ephemeralKey');
	} finally {
		me.noteKey.fill(0);
	}
	try {
		return await openAnswer(key, answer);
	} finally {
		key.fill(0);
	}
}
