/* netaddr.c (layer: base): which IP addresses a webhook may reach: the IANA special-purpose address registries as data (docs/NOTIFY.md). */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "burnlink.h"

#define V4(a, b, c, d)	{ 0,0,0,0, 0,0,0,0, 0,0,0,0, a, b, c, d }
#define V6(...)		{ __VA_ARGS__ }

/*
 * The table: every row of the IANA IPv4 Special-Purpose Address Registry
 * and of the IANA IPv6 Special-Purpose Address Registry (iana.org/assignments/
 * iana-ipv4-special-registry, iana-ipv6-special-registry), each with its
 * "Globally Reachable" column (BL_NET_GLOBAL, BL_NET_LOCAL, or BL_NET_NA
 * for "N/A"), then a few rows the registries leave out and a webhook must
 * not reach either (marked "not in the registry"). The most specific row
 * that holds an address decides (the registries' more specific entries,
 * such as 192.0.0.9/32 inside 192.0.0.0/24, say so too). IPv4 addresses are
 * stored in the last four bytes. An address in no row is public.
 */
static const struct bl_net_row rows[] = {
	/* IANA IPv4 Special-Purpose Address Registry */
	{ 4, V4(0, 0, 0, 0), 8, "This network", "RFC 791, Section 3.2", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(0, 0, 0, 0), 32, "This host on this network", "RFC 1122, Section 3.2.1.3",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(10, 0, 0, 0), 8, "Private-Use", "RFC 1918", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(100, 64, 0, 0), 10, "Shared Address Space", "RFC 6598", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(127, 0, 0, 0), 8, "Loopback", "RFC 1122, Section 3.2.1.3", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(169, 254, 0, 0), 16, "Link Local", "RFC 3927", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(172, 16, 0, 0), 12, "Private-Use", "RFC 1918", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 0), 24, "IETF Protocol Assignments", "RFC 6890, Section 2.1",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 0), 29, "IPv4 Service Continuity Prefix", "RFC 7335", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 8), 32, "IPv4 dummy address", "RFC 7600", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 9), 32, "Port Control Protocol Anycast", "RFC 7723", BL_NET_GLOBAL,
	    BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 10), 32, "Traversal Using Relays around NAT Anycast", "RFC 8155",
	    BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 170), 32, "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, Section 2.2",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 0, 171), 32, "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, Section 2.2",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 0, 2, 0), 24, "Documentation (TEST-NET-1)", "RFC 5737", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(192, 31, 196, 0), 24, "AS112-v4", "RFC 7535", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 4, V4(192, 52, 193, 0), 24, "AMT", "RFC 7450", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 4, V4(192, 88, 99, 0), 24, "Deprecated (6to4 Relay Anycast)", "RFC 7526", BL_NET_NA,
	    BL_EMBED_NONE },
	{ 4, V4(192, 88, 99, 2), 32, "6a44-relay anycast address", "RFC 6751", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(192, 168, 0, 0), 16, "Private-Use", "RFC 1918", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(192, 175, 48, 0), 24, "Direct Delegation AS112 Service", "RFC 7534", BL_NET_GLOBAL,
	    BL_EMBED_NONE },
	{ 4, V4(198, 18, 0, 0), 15, "Benchmarking", "RFC 2544", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(198, 51, 100, 0), 24, "Documentation (TEST-NET-2)", "RFC 5737", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(203, 0, 113, 0), 24, "Documentation (TEST-NET-3)", "RFC 5737", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 4, V4(240, 0, 0, 0), 4, "Reserved", "RFC 1112, Section 4", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 4, V4(255, 255, 255, 255), 32, "Limited Broadcast", "RFC 8190, RFC 919, Section 7",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	/* not in the registry: multicast (the IPv4 Multicast Address Space Registry) */
	{ 4, V4(224, 0, 0, 0), 4, "Multicast", "RFC 5771 (not in the registry)", BL_NET_LOCAL,
	    BL_EMBED_NONE },

	/* IANA IPv6 Special-Purpose Address Registry */
	{ 6, V6(0), 128, "Unspecified Address", "RFC 4291", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,1), 128, "Loopback Address", "RFC 4291",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0,0,0,0, 0,0,0,0, 0,0,0xff,0xff), 96, "IPv4-mapped Address", "RFC 4291",
	    BL_NET_LOCAL, BL_EMBED_LAST32 },
	{ 6, V6(0,0x64,0xff,0x9b), 96, "IPv4-IPv6 Translat.", "RFC 6052", BL_NET_GLOBAL,
	    BL_EMBED_LAST32 },
	{ 6, V6(0,0x64,0xff,0x9b,0,1), 48, "IPv4-IPv6 Translat.", "RFC 8215", BL_NET_LOCAL,
	    BL_EMBED_NAT64_48 },
	{ 6, V6(0x01,0), 64, "Discard-Only Address Block", "RFC 6666", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 6, V6(0x01,0, 0,0, 0,0, 0,1), 64, "Dummy IPv6 Prefix", "RFC 9780", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 6, V6(0x20,0x01), 23, "IETF Protocol Assignments", "RFC 2928", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 6, V6(0x20,0x01), 32, "TEREDO", "RFC 4380, RFC 8190", BL_NET_NA, BL_EMBED_TEREDO },
	{ 6, V6(0x20,0x01,0,1, 0,0,0,0, 0,0,0,0, 0,0,0,1), 128, "Port Control Protocol Anycast",
	    "RFC 7723", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,1, 0,0,0,0, 0,0,0,0, 0,0,0,2), 128,
	    "Traversal Using Relays around NAT Anycast", "RFC 8155", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,1, 0,0,0,0, 0,0,0,0, 0,0,0,3), 128, "DNS-SD Service Registration "
	    "Protocol Anycast Address", "RFC 9665", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,2, 0,0), 48, "Benchmarking", "RFC 5180, RFC Errata 1752",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,3), 32, "AMT", "RFC 7450", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,4, 0x01,0x12), 48, "AS112-v6", "RFC 7535", BL_NET_GLOBAL,
	    BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,0x10), 28, "Deprecated (previously ORCHID)", "RFC 4843", BL_NET_NA,
	    BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,0x20), 28, "ORCHIDv2", "RFC 7343", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0,0x30), 28, "Drone Remote ID Protocol Entity Tags (DETs) Prefix",
	    "RFC 9374", BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x01,0x0d,0xb8), 32, "Documentation", "RFC 3849", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 6, V6(0x20,0x02), 16, "6to4", "RFC 3056", BL_NET_NA, BL_EMBED_6TO4 },
	{ 6, V6(0x26,0x20,0,0x4f, 0x80,0), 48, "Direct Delegation AS112 Service", "RFC 7534",
	    BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0x3f,0xff), 20, "Documentation", "RFC 9637", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0x5f,0x00), 16, "Segment Routing (SRv6) SIDs", "RFC 9602", BL_NET_LOCAL,
	    BL_EMBED_NONE },
	{ 6, V6(0xfc,0x00), 7, "Unique-Local", "RFC 4193, RFC 8190", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0xfe,0x80), 10, "Link-Local Unicast", "RFC 4291", BL_NET_LOCAL, BL_EMBED_NONE },
	/* not in the registry: the address space outside global unicast, and within it */
	{ 6, V6(0), 0, "Reserved (not global unicast)",
	    "RFC 4291, Section 2.4 (not in the registry)", BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0x20,0x00), 3, "Global Unicast", "RFC 4291, Section 2.4 (not in the registry)",
	    BL_NET_GLOBAL, BL_EMBED_NONE },
	{ 6, V6(0), 96, "IPv4-compatible Address (deprecated)",
	    "RFC 4291, Section 2.5.5.1 (not in the registry)", BL_NET_LOCAL, BL_EMBED_LAST32 },
	{ 6, V6(0,0,0,0, 0,0,0,0, 0xff,0xff,0,0), 96, "IPv4-translated Address",
	    "RFC 2765, Section 2.1 (not in the registry)", BL_NET_LOCAL, BL_EMBED_LAST32 },
	{ 6, V6(0xfe,0xc0), 10, "Site-Local (deprecated)", "RFC 3879 (not in the registry)",
	    BL_NET_LOCAL, BL_EMBED_NONE },
	{ 6, V6(0xff,0x00), 8, "Multicast", "RFC 4291, Section 2.7 (not in the registry)",
	    BL_NET_LOCAL, BL_EMBED_NONE },
};

/* The table above and its number of rows. */
const struct bl_net_row *
bl_net_rows(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

/* 1 if the first bits of a and b are equal. */
int
bl_net_prefix_eq(const unsigned char *a, const unsigned char *b, int bits)
{
	int	 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full) != 0)
		return 0;
	return rest == 0 || ((a[full] ^ b[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

/* The most specific row that holds a (16 bytes; IPv4 in the last four), or NULL. */
const struct bl_net_row *
bl_net_row_of(int version, const unsigned char *a)
{
	const struct bl_net_row	*best = NULL;
	size_t			 i;
	int			 off = version == 4 ? 12 : 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].version == version && (best == NULL || rows[i].bits > best->bits) &&
		    bl_net_prefix_eq(a + off, rows[i].prefix + off, rows[i].bits))
			best = &rows[i];
	return best;
}

/* The IPv4 address a row's prefix embeds in a (RFC 6052, RFC 3056, RFC 4380, RFC 4291). */
static void
embedded(const struct bl_net_row *r, const unsigned char *a, unsigned char v4[4])
{
	int	 i;

	switch (r->embed) {
	case BL_EMBED_NAT64_48:		/* RFC 6052 Section 2.2: bits 48-63, then 72-87 */
		v4[0] = a[6];
		v4[1] = a[7];
		v4[2] = a[9];
		v4[3] = a[10];
		break;
	case BL_EMBED_6TO4:		/* 2002:V4ADDR::/48 */
		memcpy(v4, a + 2, 4);
		break;
	case BL_EMBED_TEREDO:		/* the client's address, its bits inverted */
		for (i = 0; i < 4; i++)
			v4[i] = (unsigned char)~a[12 + i];
		break;
	default:			/* mapped, compatible, translated, NAT64 /96 */
		memcpy(v4, a + 12, 4);
		break;
	}
}

/*
 * 0 if a webhook may connect to the address a (AF_INET: 4 bytes, AF_INET6:
 * 16), else -1 with why (the row that refuses it, and its source). An
 * address is refused when its row is not globally reachable, or when it
 * embeds an IPv4 address that is refused.
 */
int
bl_net_refused(int family, const unsigned char *a, char *why, size_t len)
{
	const struct bl_net_row	*r, *in;
	unsigned char		 full[16], v4[16];
	char			 text[INET_ADDRSTRLEN];

	memset(full, 0, sizeof(full));
	if (family == AF_INET)
		memcpy(full + 12, a, 4);
	else if (family == AF_INET6)
		memcpy(full, a, 16);
	else {
		snprintf(why, len, "not an IP address");
		return -1;
	}
	if ((r = bl_net_row_of(family == AF_INET ? 4 : 6, full)) == NULL)
		return 0;
	if (r->embed == BL_EMBED_NONE) {
		if (r->global == BL_NET_GLOBAL)
			return 0;
		snprintf(why, len, "%s (%s)", r->name, r->source);
		return -1;
	}
	memset(v4, 0, sizeof(v4));
	embedded(r, full, v4 + 12);
	in = bl_net_row_of(4, v4);
	if (r->global != BL_NET_LOCAL && (in == NULL || in->global == BL_NET_GLOBAL))
		return 0;
	inet_ntop(AF_INET, v4 + 12, text, sizeof(text));
	snprintf(why, len, "%s (%s) of %s%s%s%s%s", r->name, r->source, text,
	    in != NULL ? ": " : "", in != NULL ? in->name : "", in != NULL ? ", " : "",
	    in != NULL ? in->source : "");
	return -1;
}
