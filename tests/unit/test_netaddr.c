/* test_netaddr.c: the webhook address classifier (lib/netaddr.c): an address in every row of the table, and the embedded IPv4 addresses. */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <stdlib.h>

#include "burnlink.h"
#include "unit.h"

/*
 * One address inside each row (and in no more specific one), with what a
 * webhook gets: 1 allowed, 0 refused. Written here from the registries, not
 * from the table, so a wrong row or a missing one fails.
 */
static const struct {
	const char	*addr;
	int		 allowed;
	const char	*row;		/* the deciding row's prefix */
} cases[] = {
	/* IPv4 special-purpose registry */
	{ "0.1.2.3", 0, "0.0.0.0/8" },
	{ "0.0.0.0", 0, "0.0.0.0/32" },
	{ "10.1.2.3", 0, "10.0.0.0/8" },
	{ "100.64.0.1", 0, "100.64.0.0/10" },
	{ "100.127.255.254", 0, "100.64.0.0/10" },
	{ "127.0.0.1", 0, "127.0.0.0/8" },
	{ "127.255.0.9", 0, "127.0.0.0/8" },
	{ "169.254.169.254", 0, "169.254.0.0/16" },
	{ "172.16.0.1", 0, "172.16.0.0/12" },
	{ "172.31.255.1", 0, "172.16.0.0/12" },
	{ "192.0.0.200", 0, "192.0.0.0/24" },
	{ "192.0.0.1", 0, "192.0.0.0/29" },
	{ "192.0.0.8", 0, "192.0.0.8/32" },
	{ "192.0.0.9", 1, "192.0.0.9/32" },
	{ "192.0.0.10", 1, "192.0.0.10/32" },
	{ "192.0.0.170", 0, "192.0.0.170/32" },
	{ "192.0.0.171", 0, "192.0.0.171/32" },
	{ "192.0.2.1", 0, "192.0.2.0/24" },
	{ "192.31.196.1", 1, "192.31.196.0/24" },
	{ "192.52.193.1", 1, "192.52.193.0/24" },
	{ "192.88.99.1", 0, "192.88.99.0/24" },
	{ "192.88.99.2", 0, "192.88.99.2/32" },
	{ "192.168.1.1", 0, "192.168.0.0/16" },
	{ "192.175.48.1", 1, "192.175.48.0/24" },
	{ "198.18.0.1", 0, "198.18.0.0/15" },
	{ "198.19.255.1", 0, "198.18.0.0/15" },
	{ "198.51.100.7", 0, "198.51.100.0/24" },
	{ "203.0.113.7", 0, "203.0.113.0/24" },
	{ "240.0.0.1", 0, "240.0.0.0/4" },
	{ "255.255.255.255", 0, "255.255.255.255/32" },
	{ "224.0.0.1", 0, "224.0.0.0/4" },
	{ "239.255.255.250", 0, "224.0.0.0/4" },
	/* public IPv4: in no row */
	{ "8.8.8.8", 1, NULL },
	{ "172.32.0.1", 1, NULL },
	{ "198.20.0.1", 1, NULL },
	{ "100.128.0.1", 1, NULL },
	{ "192.0.1.1", 1, NULL },

	/* IPv6 special-purpose registry */
	{ "::", 0, "::/128" },
	{ "::1", 0, "::1/128" },
	{ "::ffff:127.0.0.1", 0, "::ffff:0.0.0.0/96" },
	{ "::ffff:8.8.8.8", 0, "::ffff:0.0.0.0/96" },
	{ "64:ff9b::a9fe:a9fe", 0, "64:ff9b::/96" },		/* 169.254.169.254 */
	{ "64:ff9b::7f00:1", 0, "64:ff9b::/96" },		/* 127.0.0.1 */
	{ "64:ff9b::c612:1", 0, "64:ff9b::/96" },		/* 198.18.0.1 */
	{ "64:ff9b::808:808", 1, "64:ff9b::/96" },		/* 8.8.8.8 */
	{ "64:ff9b:1::", 0, "64:ff9b:1::/48" },
	{ "64:ff9b:1:a9fe:a9:fe00::", 0, "64:ff9b:1::/48" },	/* 169.254.169.254 */
	{ "64:ff9b:1:808:8:800::", 0, "64:ff9b:1::/48" },	/* 8.8.8.8: the block is local */
	{ "100::1", 0, "100::/64" },
	{ "100:0:0:1::1", 0, "100:0:0:1::/64" },
	{ "2001:100::1", 0, "2001::/23" },
	{ "2001::1", 0, "2001::/32" },				/* client 255.255.255.254 */
	{ "2001:0:4136:e378:8000:63bf:f7f7:f7f7", 1, "2001::/32" },	/* client 8.8.8.8 */
	{ "2001:0:4136:e378:8000:63bf:80ff:fffe", 0, "2001::/32" },	/* client 127.0.0.1 */
	{ "2001:0:4136:e378:8000:63bf:f5ff:fffe", 0, "2001::/32" },	/* client 10.0.0.1 */
	{ "2001:1::1", 1, "2001:1::1/128" },
	{ "2001:1::2", 1, "2001:1::2/128" },
	{ "2001:1::3", 1, "2001:1::3/128" },
	{ "2001:1::4", 0, "2001::/23" },
	{ "2001:2::1", 0, "2001:2::/48" },
	{ "2001:3::1", 1, "2001:3::/32" },
	{ "2001:4:112::1", 1, "2001:4:112::/48" },
	{ "2001:10::1", 0, "2001:10::/28" },
	{ "2001:20::1", 1, "2001:20::/28" },
	{ "2001:30::1", 1, "2001:30::/28" },
	{ "2001:db8::1", 0, "2001:db8::/32" },
	{ "2002:a9fe:a9fe::1", 0, "2002::/16" },		/* 169.254.169.254 */
	{ "2002:7f00:1::1", 0, "2002::/16" },			/* 127.0.0.1 */
	{ "2002:c0a8:101::1", 0, "2002::/16" },			/* 192.168.1.1 */
	{ "2002:808:808::1", 1, "2002::/16" },			/* 8.8.8.8 */
	{ "2620:4f:8000::1", 1, "2620:4f:8000::/48" },
	{ "3fff::1", 0, "3fff::/20" },
	{ "5f00::1", 0, "5f00::/16" },
	{ "fc00::1", 0, "fc00::/7" },
	{ "fd12:3456::1", 0, "fc00::/7" },
	{ "fe80::1", 0, "fe80::/10" },
	/* the rows the registries leave out */
	{ "4000::1", 0, "::/0" },
	{ "2a00:1450::1", 1, "2000::/3" },
	{ "::7f00:1", 0, "::/96" },				/* IPv4-compatible 127.0.0.1 */
	{ "::808:808", 0, "::/96" },
	{ "::ffff:0:a9fe:a9fe", 0, "::ffff:0:0:0/96" },		/* IPv4-translated */
	{ "fec0::1", 0, "fec0::/10" },
	{ "ff02::1", 0, "ff00::/8" },
};

/* Parses "addr/bits" into 16 bytes (IPv4 in the last four), its version and bits. */
static int
parse_prefix(const char *s, unsigned char a[16], int *version, int *bits)
{
	char	 buf[64], *slash;

	snprintf(buf, sizeof(buf), "%s", s);
	if ((slash = strchr(buf, '/')) == NULL)
		return -1;
	*slash = '\0';
	*bits = atoi(slash + 1);
	memset(a, 0, 16);
	if (inet_pton(AF_INET, buf, a + 12) == 1)
		*version = 4;
	else if (inet_pton(AF_INET6, buf, a) == 1)
		*version = 6;
	else
		return -1;
	return 0;
}

int
main(void)
{
	const struct bl_net_row	*rows, *r;
	unsigned char		 a[16], p[16];
	size_t			 n, i, j;
	char			 why[256];
	int			 fam, version, bits, *hit;

	rows = bl_net_rows(&n);
	if ((hit = calloc(n, sizeof(*hit))) == NULL)
		return 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(a, 0, sizeof(a));
		fam = strchr(cases[i].addr, ':') != NULL ? AF_INET6 : AF_INET;
		if (inet_pton(fam, cases[i].addr, fam == AF_INET ? a + 12 : a) != 1) {
			fprintf(stderr, "not an address: %s\n", cases[i].addr);
			CHECK(0);
			continue;
		}
		why[0] = '\0';
		if ((bl_net_refused(fam, fam == AF_INET ? a + 12 : a, why, sizeof(why)) == 0) !=
		    cases[i].allowed) {
			fprintf(stderr, "%s: want %s, got %s (%s)\n", cases[i].addr,
			    cases[i].allowed ? "allowed" : "refused",
			    cases[i].allowed ? "refused" : "allowed", why);
			CHECK(0);
		} else
			CHECK(1);
		if (!cases[i].allowed)
			CHECK(why[0] != '\0' && strstr(why, "RFC ") != NULL);
		r = bl_net_row_of(fam == AF_INET ? 4 : 6, a);
		if (cases[i].row == NULL) {
			CHECK(r == NULL);
			continue;
		}
		if (parse_prefix(cases[i].row, p, &version, &bits) != 0 || r == NULL ||
		    r->version != version || r->bits != bits || memcmp(r->prefix, p, 16) != 0) {
			fprintf(stderr, "%s: want row %s, got %s\n", cases[i].addr, cases[i].row,
			    r != NULL ? r->name : "none");
			CHECK(0);
			continue;
		}
		CHECK(1);
		hit[r - rows]++;
	}
	/* every row of the table decides for at least one address above */
	for (j = 0; j < n; j++) {
		if (hit[j] == 0)
			fprintf(stderr, "row %zu (%s, %s) has no case\n", j, rows[j].name,
			    rows[j].source);
		CHECK(hit[j] > 0);
		CHECK(rows[j].source != NULL && strncmp(rows[j].source, "RFC ", 4) == 0);
	}
	/* both registries are there whole: 27 IPv4 rows (26 and multicast), 31 IPv6 */
	for (i = 0, j = 0; i < n; i++)
		j += rows[i].version == 4;
	CHECK(j == 27);
	CHECK(n - j == 31);
	/* not an IP address */
	CHECK(bl_net_refused(AF_UNIX, a, why, sizeof(why)) != 0);
	free(hit);
	UNIT_END("netaddr");
}
