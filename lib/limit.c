/* limit.c (layer: domain): rate limits: the client address (trusted proxies, IPv6 /64) and the counters. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Every rate limit of docs/API.md. A window is fixed and aligned to the UTC epoch, so
 * the day window is the UTC day. The request that makes a count exceed limit
 * is refused (the 1001st of 1000), and so is every later one in the window.
 */
static const struct bl_limit_info limits[BL_LIM__MAX] = {
	[BL_LIM_IP_CREATE] = {"ip:create", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_METADATA] = {"ip:metadata", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_RETRIEVE] = {"ip:retrieve", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_BURN] = {"ip:burn", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_PASSPHRASE] = {"passphrase", 60, BL_ATTEMPTS_PER_MIN,
	    BL_ERR_TOO_MANY_ATTEMPTS},
	[BL_LIM_SESSION_HOUR] = {"account:hour", 3600, 100, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_SESSION_DAY] = {"account:day", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_KEY_HOUR] = {"apikey:hour", 3600, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_SESSION] = {"ip:session", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_SIGNUP] = {"ip:signup", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_PASSWORD] = {"ip:password", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_KEYS] = {"ip:keys", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_MYSECRETS] = {"ip:mysecrets", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_SIGNIN] = {"signin", 3600, 10, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_SIGNIN_IP] = {"signin:ip", 3600, 100, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_SIGNUP] = {"signup", 3600, 10, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_HEALTH] = {"ip:health", 60, 60, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_PASSPHRASE_SECRET] = {"passphrase:secret", 3600, BL_ATTEMPTS_PER_HOUR,
	    BL_ERR_TOO_MANY_ATTEMPTS},
	[BL_LIM_IP_WEBHOOKS] = {"ip:webhooks", 86400, 1000, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_IP_EMAIL] = {"ip:email", 86400, 100, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_EMAIL] = {"email", 3600, 5, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_NOTIFY_HOUR] = {"notify:hour", 3600, BL_NOTIFY_HOUR, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_LIM_SIGNIN_ACCOUNT] = {"signin:account", 3600, 30, BL_ERR_RATE_LIMIT_EXCEEDED},
	/*
	 * A site is usually given a /48: without this, its 65,536 /64s could
	 * each store 1000 secrets of up to 2 MiB a day (docs/API.md, "Rate
	 * limits"; docs/PERFORMANCE.md, "What one /48 can do").
	 */
	[BL_LIM_NET48_CREATE] = {"net48:create", 86400, 10000, BL_ERR_RATE_LIMIT_EXCEEDED},
	/* the operator's page (docs/ADMIN.md): a day of busy use, not a scraper's */
	[BL_LIM_IP_ADMIN] = {"ip:admin", 86400, 5000, BL_ERR_RATE_LIMIT_EXCEEDED},
	/* the first operator's account (docs/ADMIN.md, "Setting up without a shell") */
	[BL_LIM_IP_SETUP] = {"ip:setup", 86400, 100, BL_ERR_RATE_LIMIT_EXCEEDED},
	/* counted per setup file: the 5th wrong code deletes the file (lib/account.c) */
	[BL_LIM_SETUP_FAIL] = {"setup:fail", 86400, 4, BL_ERR_INVALID_SETUP_CODE},
};

const struct bl_limit_info *
bl_limit_info(enum bl_limit l)
{
	return (unsigned)l < BL_LIM__MAX ? &limits[l] : NULL;
}

/* An address: IPv4 in a[0..3] (v6 == 0) or IPv6 in a[0..15]. */
struct addr {
	int		 v6;
	unsigned char	 a[16];
};

/*
 * Parses one address as it appears in REMOTE_ADDR or X-Forwarded-For: plain
 * IPv4 or IPv6, "[v6]" or "[v6]:port", "v4:port", with an IPv6 zone ignored.
 * An IPv4-mapped IPv6 address counts as the IPv4 address. 0 on success.
 */
static int
addr_parse(const char *s, size_t len, struct addr *out)
{
	char		 buf[BL_IP_TEXT];
	const char	*colon;
	char		*p;

	while (len > 0 && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL)
		return -1;
	p = buf;
	if (*p == '[') {
		char *end = strchr(p, ']');
		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return -1;
		*end = '\0';
		p++;
	} else if ((colon = strchr(p, ':')) != NULL && strchr(colon + 1, ':') == NULL &&
	    strchr(p, '.') != NULL)
		buf[colon - buf] = '\0';	/* "v4:port" */
	if ((colon = strchr(p, '%')) != NULL)
		p[colon - p] = '\0';		/* IPv6 zone */
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, p, out->a) == 1)
		return 0;
	if (inet_pton(AF_INET6, p, out->a) != 1)
		return -1;
	out->v6 = 1;
	if (memcmp(out->a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
		memmove(out->a, out->a + 12, 4);
		memset(out->a + 4, 0, 12);
		out->v6 = 0;
	}
	return 0;
}

/* 1 if the first bits of a and b agree (same family). */
static int
prefix_match(const struct addr *a, const struct addr *b, int bits)
{
	int	 bytes = bits / 8, rest = bits % 8;

	if (a->v6 != b->v6)
		return 0;
	if (memcmp(a->a, b->a, (size_t)bytes) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a->a[bytes] ^ b->a[bytes]) & (0xff00 >> rest) & 0xff) == 0;
}

/*
 * 1 if a is in the list p (BURNLINK_TRUSTED_PROXIES, metrics_allow):
 * addresses and CIDR blocks, IPv4 or IPv6, separated by commas or white
 * space. A malformed entry is logged (as what's) and matches nothing.
 */
static int
listed(struct bl_ctx *c, const char *p, const char *what, const struct addr *a)
{
	const char	*end, *slash;
	struct addr	 net;
	long		 bits;
	char		*ep;
	size_t		 n;

	if (p == NULL)
		return 0;
	for (; *p != '\0'; p = end) {
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		end = p + strcspn(p, ", \t");
		n = (size_t)(end - p);
		slash = memchr(p, '/', n);
		if (addr_parse(p, slash != NULL ? (size_t)(slash - p) : n, &net) != 0)
			goto bad;
		bits = net.v6 ? 128 : 32;
		if (slash != NULL) {
			if (slash + 1 == end || slash[1] < '0' || slash[1] > '9')
				goto bad;
			bits = strtol(slash + 1, &ep, 10);
			if (ep != end || bits > (net.v6 ? 128 : 32))
				goto bad;
		}
		if (prefix_match(a, &net, (int)bits))
			return 1;
		continue;
bad:
		bl_log_id(c->log_id, "%s: ignoring the malformed entry \"%.*s\"", what,
		    (int)(n > 64 ? 64 : n), p);
	}
	return 0;
}

static int
trusted(struct bl_ctx *c, const struct addr *a)
{
	return listed(c, c->cfg.trusted_proxies, "BURNLINK_TRUSTED_PROXIES", a);
}

/* The canonical text of a counted address: IPv4 as is, IPv6 as its /64. */
static void
addr_text(const struct addr *a, char out[BL_IP_TEXT])
{
	unsigned char	 net[16];
	char		 buf[INET6_ADDRSTRLEN];

	if (!a->v6) {
		inet_ntop(AF_INET, a->a, out, BL_IP_TEXT);
		return;
	}
	memcpy(net, a->a, 8);
	memset(net + 8, 0, 8);
	inet_ntop(AF_INET6, net, buf, sizeof(buf));
	snprintf(out, BL_IP_TEXT, "%s/64", buf);
}

/*
 * The network a passphrase attempt is counted for (docs/API.md, "Passphrases"):
 * an IPv4 client as is, an IPv6 one (canonical "<net>/64", from addr_text) as
 * its /48, the block one site is usually given: its 65,536 /64s are one client.
 */
void
bl_client_net48(const char *client_ip, char out[BL_IP_TEXT])
{
	struct addr	 a;
	const char	*slash = strchr(client_ip, '/');
	char		 buf[INET6_ADDRSTRLEN];

	snprintf(out, BL_IP_TEXT, "%s", client_ip);
	if (slash == NULL || addr_parse(client_ip, (size_t)(slash - client_ip), &a) != 0 ||
	    !a.v6)
		return;
	memset(a.a + 6, 0, 10);
	inet_ntop(AF_INET6, a.a, buf, sizeof(buf));
	snprintf(out, BL_IP_TEXT, "%s/48", buf);
}

/* The canonical form of an address an operator typed; 0 on success. */
int
bl_ip_canon(const char *s, char out[BL_IP_TEXT])
{
	struct addr	 a;

	if (addr_parse(s, strlen(s), &a) != 0)
		return -1;
	addr_text(&a, out);
	return 0;
}

/* No real chain of proxies is longer; a longer header is not walked further. */
#define BL_MAX_PROXY_HOPS	32

/*
 * The client address (out): REMOTE_ADDR, unless that peer is a trusted proxy; then
 * X-Forwarded-For is read from the right, skipping trusted proxies, and the
 * first address not trusted is the client (a malformed entry, or the end of
 * BL_MAX_PROXY_HOPS trusted ones, ends the walk at the last hop reached).
 * IPv6 clients are reduced to their /64; "unknown" without a valid peer.
 */
static int
client_addr(struct bl_ctx *c, const char *peer, const char *xff, struct addr *out)
{
	struct addr	 client, hop;
	size_t		 end, start;
	int		 hops = 0;

	if (peer == NULL || addr_parse(peer, strlen(peer), &client) != 0)
		return -1;
	if (xff != NULL && c->cfg.trusted_proxies != NULL && trusted(c, &client)) {
		end = strlen(xff);
		while (end > 0 && hops++ < BL_MAX_PROXY_HOPS) {
			start = end;
			while (start > 0 && xff[start - 1] != ',')
				start--;
			if (addr_parse(xff + start, end - start, &hop) != 0)
				break;
			client = hop;
			if (!trusted(c, &hop))
				break;
			end = start > 0 ? start - 1 : 0;
		}
	}
	*out = client;
	return 0;
}

void
bl_client_ip(struct bl_ctx *c, const char *peer, const char *xff, char out[BL_IP_TEXT])
{
	struct addr	 client;

	snprintf(out, BL_IP_TEXT, "unknown");
	if (client_addr(c, peer, xff, &client) == 0)
		addr_text(&client, out);
}

/*
 * 1 if the client (the whole address, after the trusted proxies as
 * bl_client_ip() finds it) is in list (metrics_allow).
 */
int
bl_client_listed(struct bl_ctx *c, const char *peer, const char *xff, const char *list)
{
	struct addr	 client;

	return client_addr(c, peer, xff, &client) == 0 &&
	    listed(c, list, "metrics_allow", &client);
}

/* The bucket of a limit and subject: HMAC-SHA-256(install secret, name NUL subject). */
static enum bl_err
bucket(struct bl_ctx *c, enum bl_limit which, const void *subject, size_t len,
    unsigned char out[BL_HASH_BYTES])
{
	const char	*name = limits[which].name;
	size_t		 nlen = strlen(name) + 1;
	unsigned char	 msg[64 + BL_HASH_BYTES + BL_IP_TEXT];
	enum bl_err	 e;

	if (len > sizeof(msg) - nlen)
		return BL_ERR_INTERNAL;
	if ((e = bl_ctx_install_key(c)) != BL_OK)
		return e == BL_ERR_STORE_UNAVAILABLE && c->hint_err == e ? e :
		    BL_ERR_RATE_LIMIT_UNAVAILABLE;
	memcpy(msg, name, nlen);
	memcpy(msg + nlen, subject, len);
	if (bl_hmac_sha256(c->install_key, sizeof(c->install_key), msg, nlen + len, out) != 0)
		return BL_ERR_INTERNAL;
	return BL_OK;
}

/* Start and end (Unix seconds) of the current window of a limit. */
static void
window(const struct bl_ctx *c, enum bl_limit which, int64_t *start, int64_t *end)
{
	int64_t	 now = c->now_ms / 1000;

	*start = now - now % limits[which].window;
	*end = *start + limits[which].window;
}

/* What counter() does to a counter in its current window. */
enum counter_op {
	COUNT_ADD,	/* one more */
	COUNT_GET,
	COUNT_SET	/* to u->count */
};

/*
 * Runs op on the counter of a limit for subject in its current window, through
 * the counters interface (struct bl_counter_ops): u gets the limit, the count
 * and the end of the window. RATE_LIMIT_UNAVAILABLE (logged) when the counter
 * cannot be read or written; STORE_UNAVAILABLE when its database cannot be
 * reached (PostgreSQL, whose counters live in the database itself).
 */
static enum bl_err
counter(struct bl_ctx *c, enum bl_limit which, const void *subject, size_t len,
    enum counter_op op, struct bl_usage *u)
{
	unsigned char	 b[BL_HASH_BYTES];
	int64_t		 start, end;
	enum bl_err	 e;

	if ((unsigned)which >= BL_LIM__MAX || (op == COUNT_SET && u->count < 0))
		return BL_ERR_INTERNAL;
	if ((e = bucket(c, which, subject, len, b)) != BL_OK ||
	    (e = bl_ctx_counters(c)) != BL_OK)
		return e;
	window(c, which, &start, &end);
	u->limit = limits[which].limit;
	u->reset = end;
	if (op == COUNT_ADD)
		e = bl_counter_add(c->counters, b, start, end, &u->count);
	else if (op == COUNT_GET)
		e = bl_counter_get(c->counters, b, start, &u->count);
	else
		e = bl_counter_set(c->counters, b, start, end, u->count);
	if (e != BL_OK) {
		bl_log_id(c->log_id, "rate limiter: %s", bl_store_error(c->counters));
		if (e == BL_ERR_SCHEMA_TOO_NEW) {
			bl_ctx_hint(c, e, bl_store_error(c->counters));
			return e;
		}
		/* PostgreSQL out of reach is the database's failure (lib/store_pg.c, ctr_run()). */
		if (e == BL_ERR_STORE_UNAVAILABLE)
			return e;
		return bl_ctx_unreachable(c, BL_ERR_RATE_LIMIT_UNAVAILABLE);
	}
	return BL_OK;
}

/*
 * Counts one more request against a limit for subject: u gets the limit, the
 * count with this one and the end of the window. Whether the count is past
 * the limit is the caller's to judge (bl_limit_take(), lib/http.c).
 */
enum bl_err
bl_limit_count(struct bl_ctx *c, enum bl_limit which, const void *subject, size_t len,
    struct bl_usage *u)
{
	return counter(c, which, subject, len, COUNT_ADD, u);
}

/* An operator's view of one counter in its current window. */
enum bl_err
bl_limit_usage(struct bl_ctx *c, enum bl_limit which, const void *subject, size_t len,
    struct bl_usage *u)
{
	return counter(c, which, subject, len, COUNT_GET, u);
}

/* Sets one counter in its current window (0 clears it): an operator's correction. */
enum bl_err
bl_limit_set(struct bl_ctx *c, enum bl_limit which, const void *subject, size_t len,
    int64_t count)
{
	struct bl_usage	 u;

	memset(&u, 0, sizeof(u));
	u.count = count;
	return counter(c, which, subject, len, COUNT_SET, &u);
}

/*
 * The per-address counters an operator sees and corrects (burnlink-admin
 * limits --ip, GET and POST /api/admin/clients, docs/ADMIN.md): a client's
 * requests today per operation, and for IPv6 its /48's creations.
 */
static const struct {
	enum bl_limit	 lim;
	const char	*op;
} client_ops[] = {
	{BL_LIM_IP_CREATE, "create"},
	{BL_LIM_IP_METADATA, "metadata"},
	{BL_LIM_IP_RETRIEVE, "retrieve"},
	{BL_LIM_IP_BURN, "burn"},
	{BL_LIM_NET48_CREATE, "create-48"},	/* IPv6 only: the client's /48 */
};

/*
 * For the canonical address canon (bl_ip_canon()): sets (BL_CLIENT_SET, to
 * count; 0 unblocks) or only reads (BL_CLIENT_SHOW) the counter of operation
 * op (NULL or "all": every one), then hands each counter read to cb. *done
 * is the number of counters named: 0 for an unknown op.
 */
enum bl_err
bl_client_limits(struct bl_ctx *c, const char *canon, const char *op, int set, int64_t count,
    int (*cb)(void *, const char *op, const struct bl_usage *), void *arg, int *done)
{
	char		 net[BL_IP_TEXT];
	const char	*subject;
	struct bl_usage	 u;
	size_t		 j;
	enum bl_err	 e;

	*done = 0;
	for (j = 0; j < sizeof(client_ops) / sizeof(client_ops[0]); j++) {
		if (op != NULL && strcmp(op, "all") != 0 && strcmp(op, client_ops[j].op) != 0)
			continue;
		subject = canon;
		if (client_ops[j].lim == BL_LIM_NET48_CREATE) {
			bl_client_net48(canon, net);
			if (strcmp(net, canon) == 0)
				continue;	/* IPv4 has no /48 */
			subject = net;
		}
		(*done)++;
		if (set == BL_CLIENT_SET && (e = bl_limit_set(c, client_ops[j].lim, subject,
		    strlen(subject), count)) != BL_OK)
			return e;
		if ((e = bl_limit_usage(c, client_ops[j].lim, subject, strlen(subject), &u)) != BL_OK)
			return e;
		if (cb != NULL && cb(arg, client_ops[j].op, &u) != 0)
			return BL_ERR_INTERNAL;
	}
	return BL_OK;
}
