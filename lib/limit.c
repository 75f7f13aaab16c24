/* limit.c: rate limits: the client address (trusted proxies, IPv6 /64) and the counters. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Every limit of SPEC.md. A window is fixed and aligned to the UTC epoch, so
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
 * 1 if a is in BURNLINK_TRUSTED_PROXIES: addresses and CIDR blocks, IPv4 or
 * IPv6, separated by commas or white space. A malformed entry is logged and
 * trusts nothing.
 */
static int
trusted(struct bl_req *r, const struct addr *a)
{
	const char	*p = r->cfg.trusted_proxies, *end, *slash;
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
		bl_log(r, "BURNLINK_TRUSTED_PROXIES: ignoring the malformed entry \"%.*s\"",
		    (int)(n > 64 ? 64 : n), p);
	}
	return 0;
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
 * Sets r->client_ip: REMOTE_ADDR, unless that peer is a trusted proxy; then
 * X-Forwarded-For is read from the right, skipping trusted proxies, and the
 * first address not trusted is the client (a malformed entry, or the end of
 * BL_MAX_PROXY_HOPS trusted ones, ends the walk at the last hop reached).
 * IPv6 clients are reduced to their /64.
 */
void
bl_client_ip(struct bl_req *r)
{
	const char	*xff = bl_req_env(r, "HTTP_X_FORWARDED_FOR");
	const char	*peer = bl_req_env(r, "REMOTE_ADDR");
	struct addr	 client, hop;
	size_t		 end, start;
	int		 hops = 0;

	snprintf(r->client_ip, sizeof(r->client_ip), "unknown");
	if (peer == NULL || addr_parse(peer, strlen(peer), &client) != 0)
		return;
	if (xff != NULL && r->cfg.trusted_proxies != NULL && trusted(r, &client)) {
		end = strlen(xff);
		while (end > 0 && hops++ < BL_MAX_PROXY_HOPS) {
			start = end;
			while (start > 0 && xff[start - 1] != ',')
				start--;
			if (addr_parse(xff + start, end - start, &hop) != 0)
				break;
			client = hop;
			if (!trusted(r, &hop))
				break;
			end = start > 0 ? start - 1 : 0;
		}
	}
	addr_text(&client, r->client_ip);
}

/* The bucket of a limit and subject: HMAC-SHA-256(install secret, name NUL subject). */
static enum bl_err
bucket(struct bl_req *r, enum bl_limit which, const void *subject, size_t len,
    unsigned char out[BL_HASH_BYTES])
{
	const char	*name = limits[which].name;
	size_t		 nlen = strlen(name) + 1;
	unsigned char	 msg[64 + BL_HASH_BYTES + BL_IP_TEXT];

	if (len > sizeof(msg) - nlen)
		return BL_ERR_INTERNAL;
	if (bl_req_install_key(r) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	memcpy(msg, name, nlen);
	memcpy(msg + nlen, subject, len);
	if (bl_hmac_sha256(r->install_key, sizeof(r->install_key), msg, nlen + len, out) != 0)
		return BL_ERR_INTERNAL;
	return BL_OK;
}

/* The counters store of the request, without the secrets database. */
static enum bl_err
counters(struct bl_req *r)
{
	if (r->counters != NULL)
		return BL_OK;
	return bl_store_open_counters(&r->counters, &r->cfg);
}

/* Start and end (Unix seconds) of the current window of a limit. */
static void
window(const struct bl_req *r, enum bl_limit which, int64_t *start, int64_t *end)
{
	int64_t	 now = r->now_ms / 1000;

	*start = now - now % limits[which].window;
	*end = *start + limits[which].window;
}

/* Keeps in r->rl the window with the fewest requests left (the later reset on a tie). */
static void
note(struct bl_req *r, int64_t limit, int64_t left, int64_t reset)
{
	if (r->rl.set && (left > r->rl.remaining ||
	    (left == r->rl.remaining && reset <= r->rl.reset)))
		return;
	r->rl.set = 1;
	r->rl.limit = limit;
	r->rl.remaining = left;
	r->rl.reset = reset;
}

/*
 * Counts one request against a limit for subject. Returns BL_OK while the
 * count is within the limit (and the requests left in *remaining, if not NULL),
 * the limit's error with Retry-After once it is exceeded, and
 * RATE_LIMIT_UNAVAILABLE when the counter cannot be read or written.
 */
enum bl_err
bl_limit_take(struct bl_req *r, enum bl_limit which, const void *subject, size_t len,
    int64_t *remaining)
{
	const struct bl_limit_info	*li = &limits[which];
	unsigned char			 b[BL_HASH_BYTES];
	int64_t				 start, end, count, left;
	enum bl_err			 e;

	if ((e = bucket(r, which, subject, len, b)) != BL_OK)
		return e;
	if ((e = counters(r)) != BL_OK)
		return e;
	window(r, which, &start, &end);
	if (bl_counter_add(r->counters, b, start, end, &count) != BL_OK) {
		bl_log(r, "rate limiter: %s", bl_store_error(r->counters));
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	left = count >= li->limit ? 0 : li->limit - count;
	note(r, li->limit, left, end);
	if (remaining != NULL)
		*remaining = left;
	if (count <= li->limit)
		return BL_OK;
	r->retry_after = (long)(r->rl.reset - r->now_ms / 1000);
	if (r->retry_after < 1)
		r->retry_after = 1;
	if (which == BL_LIM_PASSPHRASE)
		return bl_req_fail(r, li->err, "At most %lld passphrase attempts a minute "
		    "are allowed for this secret; try again in %ld seconds.",
		    (long long)li->limit, r->retry_after);
	if (which == BL_LIM_SIGNIN || which == BL_LIM_SIGNIN_IP || which == BL_LIM_SIGNUP)
		return bl_req_fail(r, li->err, "At most %lld %s an hour are allowed %s; "
		    "try again in %ld seconds.", (long long)li->limit,
		    which == BL_LIM_SIGNUP ? "sign-ups" : "sign-in attempts",
		    which == BL_LIM_SIGNIN ? "for this account from this address" :
		    "from this address", r->retry_after);
	return bl_req_fail(r, li->err, "%s allows %lld requests per %s; try again in "
	    "%ld seconds (see Retry-After and X-RateLimit-Reset).",
	    which == BL_LIM_KEY_HOUR ? "This account's API keys" :
	    which <= BL_LIM_IP_BURN || strncmp(li->name, "ip:", 3) == 0 ?
	    "This address" : "This account",
	    (long long)li->limit, li->window == 60 ? "minute" : li->window == 3600 ?
	    "hour" : "day", r->retry_after);
}

/* Counts the request against the per-IP daily limit of its operation. */
enum bl_err
bl_limit_request(struct bl_req *r, enum bl_limit which)
{
	return bl_limit_take(r, which, r->client_ip, strlen(r->client_ip), NULL);
}

/*
 * Counts a creation attributed to an account: with an API key against the
 * account's shared hourly key limit, else (a signed-in session) against the
 * account's hourly and daily limits. Anonymous creation (account 0) is free.
 */
enum bl_err
bl_limit_creator(struct bl_req *r, int64_t account_id, int by_key)
{
	char		 id[24];
	int		 n;
	enum bl_err	 e;

	if (account_id <= 0)
		return BL_OK;
	n = snprintf(id, sizeof(id), "%lld", (long long)account_id);
	if (by_key)
		return bl_limit_take(r, BL_LIM_KEY_HOUR, id, (size_t)n, NULL);
	if ((e = bl_limit_take(r, BL_LIM_SESSION_HOUR, id, (size_t)n, NULL)) != BL_OK)
		return e;
	return bl_limit_take(r, BL_LIM_SESSION_DAY, id, (size_t)n, NULL);
}

/* An operator's view of one counter in its current window. */
enum bl_err
bl_limit_usage(struct bl_req *r, enum bl_limit which, const void *subject, size_t len,
    struct bl_usage *u)
{
	unsigned char	 b[BL_HASH_BYTES];
	int64_t		 start, end;
	enum bl_err	 e;

	if ((unsigned)which >= BL_LIM__MAX)
		return BL_ERR_INTERNAL;
	if ((e = bucket(r, which, subject, len, b)) != BL_OK ||
	    (e = counters(r)) != BL_OK)
		return e;
	window(r, which, &start, &end);
	u->limit = limits[which].limit;
	u->reset = end;
	if (bl_counter_get(r->counters, b, start, &u->count) != BL_OK) {
		bl_log(r, "rate limiter: %s", bl_store_error(r->counters));
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	return BL_OK;
}

/* Sets one counter in its current window (0 clears it): an operator's correction. */
enum bl_err
bl_limit_set(struct bl_req *r, enum bl_limit which, const void *subject, size_t len,
    int64_t count)
{
	unsigned char	 b[BL_HASH_BYTES];
	int64_t		 start, end;
	enum bl_err	 e;

	if ((unsigned)which >= BL_LIM__MAX || count < 0)
		return BL_ERR_INTERNAL;
	if ((e = bucket(r, which, subject, len, b)) != BL_OK ||
	    (e = counters(r)) != BL_OK)
		return e;
	window(r, which, &start, &end);
	if (bl_counter_set(r->counters, b, start, end, count) != BL_OK) {
		bl_log(r, "rate limiter: %s", bl_store_error(r->counters));
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	return BL_OK;
}
