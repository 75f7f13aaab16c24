// Which address is counted: REMOTE_ADDR, X-Forwarded-For only from trusted
// proxies (IPs and CIDRs, IPv4 and IPv6), IPv6 per /64.
import test from 'node:test';
import assert from 'node:assert/strict';
import { newCtx, cgi, admin, rl, inOneWindow } from './helpers.mjs';

// Today's metadata count of a client address, through the admin command.
function counted(ctx, ip) {
	const r = admin(ctx, '--json', 'limits', 'show', '--ip', ip);
	assert.equal(r.code, 0, r.stderr);
	return r.json.windows.find((w) => w.window === 'metadata').count;
}

const KEY = 'A'.repeat(22);	// unknown: 404, counted all the same
const hit = (ctx, opts) => cgi(ctx, 'metadata', { key: KEY, ...opts });

test('without BURNLINK_TRUSTED_PROXIES, X-Forwarded-For is ignored', () => inOneWindow(86400, async () => {
	const ctx = newCtx();
	const a = await hit(ctx, { ip: '192.0.2.5', xff: '203.0.113.1' });
	const b = await hit(ctx, { ip: '192.0.2.5', xff: '203.0.113.2' });
	assert.equal(rl(a).remaining, 999);
	assert.equal(rl(b).remaining, 998, 'one counter for the peer, whatever the header says');
	assert.equal(counted(ctx, '192.0.2.5'), 2);
	assert.equal(counted(ctx, '203.0.113.1'), 0);
}));

test('a trusted proxy (CIDR) forwards the client; the proxy itself is not counted', () => inOneWindow(86400, async () => {
	const ctx = newCtx({ BURNLINK_TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::/32 192.168.1.1' });
	await hit(ctx, { ip: '10.1.2.3', xff: '203.0.113.5' });
	await hit(ctx, { ip: '192.168.1.1', xff: '203.0.113.5' });
	assert.equal(counted(ctx, '203.0.113.5'), 2);
	assert.equal(counted(ctx, '10.1.2.3'), 0);
	assert.equal(counted(ctx, '192.168.1.1'), 0);
}));

test('a spoofed X-Forwarded-For is ignored: only untrusted peers and the rightmost untrusted hop count', () => inOneWindow(86400, async () => {
	const ctx = newCtx({ BURNLINK_TRUSTED_PROXIES: '10.0.0.0/8' });
	// an untrusted peer sends the header itself
	await hit(ctx, { ip: '198.51.100.7', xff: '203.0.113.50' });
	assert.equal(counted(ctx, '198.51.100.7'), 1);
	assert.equal(counted(ctx, '203.0.113.50'), 0);
	// the client prepends a fake hop; the proxy appends the real peer
	await hit(ctx, { ip: '10.0.0.1', xff: '203.0.113.50, 198.51.100.8' });
	assert.equal(counted(ctx, '198.51.100.8'), 1);
	assert.equal(counted(ctx, '203.0.113.50'), 0);
	// a chain of trusted proxies is skipped from the right
	await hit(ctx, { ip: '10.0.0.1', xff: '198.51.100.9, 10.5.5.5, 10.6.6.6' });
	assert.equal(counted(ctx, '198.51.100.9'), 1);
	// a malformed hop ends the walk at the proxy that passed it on
	await hit(ctx, { ip: '10.0.0.2', xff: 'not-an-ip' });
	assert.equal(counted(ctx, '10.0.0.2'), 1);
	await hit(ctx, { ip: '10.0.0.3', xff: '198.51.100.10, <script>, 10.7.7.7' });
	assert.equal(counted(ctx, '10.7.7.7'), 1);
	assert.equal(counted(ctx, '198.51.100.10'), 0);
	// ports and brackets as some proxies write them
	await hit(ctx, { ip: '10.0.0.1', xff: '198.51.100.11:4711' });
	assert.equal(counted(ctx, '198.51.100.11'), 1);
	await hit(ctx, { ip: '10.0.0.1', xff: '[2001:db8:ffff:1::9]:443' });
	assert.equal(counted(ctx, '2001:db8:ffff:1::1'), 1);
}));

test('a chain of trusted proxies is walked for at most 32 hops', () => inOneWindow(86400, async () => {
	const ctx = newCtx({ BURNLINK_TRUSTED_PROXIES: '10.0.0.0/8' });
	const chain = (n) => Array.from({ length: n }, (_, i) => `10.2.${i >> 8}.${i & 255}`);
	await hit(ctx, { ip: '10.0.0.1', xff: ['198.51.100.31', ...chain(31)].join(', ') });
	assert.equal(counted(ctx, '198.51.100.31'), 1, '31 trusted hops, then the client');
	await hit(ctx, { ip: '10.0.0.1', xff: ['198.51.100.40', ...chain(40)].join(', ') });
	assert.equal(counted(ctx, '198.51.100.40'), 0, 'not reached');
	assert.equal(counted(ctx, '10.2.0.8'), 1, 'the 32nd hop from the right is counted');
}));

test('IPv6 proxies and CIDRs; IPv6 clients are counted per /64', () => inOneWindow(86400, async () => {
	const ctx = newCtx({ BURNLINK_TRUSTED_PROXIES: '2001:db8:cafe::/48' });
	await hit(ctx, { ip: '2001:db8:cafe::1', xff: '2a00:1450:4001:81c::200e' });
	await hit(ctx, { ip: '2001:db8:cafe:1::2', xff: '2a00:1450:4001:81c:ffff:1:2:3' });
	assert.equal(counted(ctx, '2a00:1450:4001:81c::'), 2, 'one /64, one counter');
	assert.equal(counted(ctx, '2001:db8:cafe::1'), 0);
	await hit(ctx, { ip: '2001:db8:cafe::1', xff: '2a00:1450:4001:81d::1' });
	assert.equal(counted(ctx, '2a00:1450:4001:81d::1'), 1, 'the next /64 is another client');
	assert.equal(counted(ctx, '2a00:1450:4001:81c::1'), 2);
}));

test('REMOTE_ADDR IPv6 per /64; IPv4-mapped IPv6 is the IPv4 address; zones ignored', () => inOneWindow(86400, async () => {
	const ctx = newCtx();
	const a = await hit(ctx, { ip: '2001:db8:1:2:aaaa::1' });
	const b = await hit(ctx, { ip: '2001:db8:1:2:bbbb::2' });
	const c = await hit(ctx, { ip: '2001:db8:1:3::1' });
	assert.equal(rl(a).remaining, 999);
	assert.equal(rl(b).remaining, 998);
	assert.equal(rl(c).remaining, 999);
	await hit(ctx, { ip: '::ffff:192.0.2.33' });
	await hit(ctx, { ip: '192.0.2.33' });
	assert.equal(counted(ctx, '192.0.2.33'), 2);
	await hit(ctx, { ip: 'fe80::1%eth0' });
	assert.equal(counted(ctx, 'fe80::5'), 1);
}));

test('a malformed trusted-proxies entry is logged and trusts nothing', () => inOneWindow(86400, async () => {
	const ctx = newCtx({ BURNLINK_TRUSTED_PROXIES: '10.0.0.0/99, nonsense' });
	const r = await hit(ctx, { ip: '10.0.0.1', xff: '203.0.113.77' });
	assert.match(r.stderr, /BURNLINK_TRUSTED_PROXIES: ignoring the malformed entry "10.0.0.0\/99"/);
	assert.equal(counted(ctx, '10.0.0.1'), 1);
	assert.equal(counted(ctx, '203.0.113.77'), 0);
}));

test('an unusable REMOTE_ADDR is counted as one shared "unknown" client', () => inOneWindow(86400, async () => {
	const ctx = newCtx();
	const a = await hit(ctx, { ip: 'garbage' });
	const b = await hit(ctx, { env: { REMOTE_ADDR: null } });
	assert.equal(rl(a).remaining, 999);
	assert.equal(rl(b).remaining, 998);
}));
