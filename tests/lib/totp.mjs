// totp.mjs: an authenticator app for the tests of the second factor
// (docs/ACCOUNTS.md): RFC 4648 base32 and the RFC 6238 code of a step,
// written apart from lib/ so that the programs are checked against it.
import crypto from 'node:crypto';

export function base32Decode(s) {
	const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
	let bits = 0, v = 0;
	const out = [];
	for (const c of s.replace(/ /g, '')) {
		v = (v << 5) | abc.indexOf(c);
		bits += 5;
		if (bits >= 8) {
			out.push((v >>> (bits - 8)) & 255);
			bits -= 8;
		}
	}
	return Buffer.from(out);
}

// The 6-digit code of a base32 secret for time step `step` (Unix time / 30).
export function totpCode(secret, step) {
	const msg = Buffer.alloc(8);
	msg.writeBigUInt64BE(BigInt(step));
	const mac = crypto.createHmac('sha1', base32Decode(secret)).update(msg).digest();
	return String((mac.readUInt32BE(mac[19] & 15) & 0x7fffffff) % 1e6).padStart(6, '0');
}

// The current time step.
export const nowStep = () => Math.floor(Date.now() / 30000);
