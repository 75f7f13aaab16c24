/* notify.c (layer: domain): what cron/notify does: claims the outbox's due rows and delivers them, by webhook (lib/webpost.c) or e-mail (a sendmail command) (docs/NOTIFY.md). */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define WINDOW_MS	(24 * 3600 * 1000LL)	/* retried this long after the event, then dropped */
#define LEASE_MS	(5 * 60 * 1000LL)	/* a claim's hold; a dead run's rows return after it */
#define BATCH		16			/* rows per claim (16 x 15 s < the lease) */
#define RUN_MAX		2000			/* rows per run at most */
#define BACKOFF_MS	(60 * 1000LL)		/* the first retry; doubled each time ... */
#define BACKOFF_MAX_MS	(3600 * 1000LL)		/* ... up to an hour */
#define CAP_DELAY_MS	(10 * 60 * 1000LL)	/* the hourly cap reached: again in 10 minutes */
#define HTTP_TIMEOUT	15L			/* seconds of a webhook POST, all in */
#define ALLOW_MAX	32			/* networks of BURNLINK_NOTIFY_ALLOW */
#define ARGV_MAX	16			/* words of BURNLINK_SENDMAIL */
#define DEFAULT_SENDMAIL "/usr/sbin/sendmail -t -i"

/*
 * Every word a notification mail says, in one place (subject, then the
 * sentence before the time); the account mails say what their link does.
 */
static const struct mail_text {
	const char	*kind;
	const char	*subject;
	const char	*text;
} mail_texts[] = {
	{ "secret.viewed", "Your secret was viewed", "Your secret was viewed at" },
	{ "secret.exhausted", "Your secret was viewed for the last time",
	    "Your secret was viewed for the last time, and deleted, at" },
	{ "secret.burned", "Your secret was burned", "Your secret was burned, unread or not, at" },
	{ "secret.expired", "Your secret expired unread", "Your secret expired, never viewed, at" },
	{ "account.verify", "Confirm your e-mail address",
	    "Open this link within an hour to confirm this address for your account:" },
	{ "account.reset", "Reset your password",
	    "Open this link within an hour to choose a new password (it signs you out "
	    "everywhere). If you did not ask for it, ignore this mail:" },
};
#define TXT_VIEWS_LEFT	"Views left:"
#define TXT_UNLIMITED	"unlimited until it expires"
#define TXT_BURNED_BY	"Burned with:"
#define TXT_RECEIPT	"Receipt:"
#define TXT_FOOTER	"This mail holds nothing of the secret itself."

/* A network of BURNLINK_NOTIFY_ALLOW. */
struct net {
	int		 family;
	unsigned char	 a[16];
	int		 bits;
};

struct run {
	struct bl_ctx			*c;
	const struct bl_notify_opts	*o;
	struct bl_notify_stats		*st;
	struct net			 allow[ALLOW_MAX];
	size_t				 nallow;
	int				 http;		/* plain http allowed too */
	struct bl_claim			 claim;
};

/* Parses BURNLINK_NOTIFY_ALLOW: "http", addresses and CIDR networks, by spaces or commas. */
static int
parse_allow(struct run *r, const char *list)
{
	char		 tok[64], *slash;
	const char	*p = list;
	size_t		 n;
	long		 bits;
	struct net	*nt;

	while (p != NULL && *p != '\0') {
		p += strspn(p, " ,\t");
		if ((n = strcspn(p, " ,\t")) == 0)
			break;
		if (n >= sizeof(tok) || r->nallow == ALLOW_MAX)
			return -1;
		memcpy(tok, p, n);
		tok[n] = '\0';
		p += n;
		if (strcmp(tok, "http") == 0) {
			r->http = 1;
			continue;
		}
		nt = &r->allow[r->nallow];
		bits = -1;
		if ((slash = strchr(tok, '/')) != NULL) {
			char *end;
			*slash = '\0';
			errno = 0;
			bits = strtol(slash + 1, &end, 10);
			if (errno != 0 || *end != '\0' || end == slash + 1 || bits < 0)
				return -1;
		}
		if (inet_pton(AF_INET, tok, nt->a) == 1)
			nt->family = AF_INET;
		else if (inet_pton(AF_INET6, tok, nt->a) == 1)
			nt->family = AF_INET6;
		else
			return -1;
		if (bits > (nt->family == AF_INET ? 32 : 128))
			return -1;
		nt->bits = bits < 0 ? (nt->family == AF_INET ? 32 : 128) : (int)bits;
		r->nallow++;
	}
	return 0;
}

/* 1 if the first bits of a and b are equal. */
static int
prefix_eq(const unsigned char *a, const unsigned char *b, int bits)
{
	int	 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full) != 0)
		return 0;
	return rest == 0 || ((a[full] ^ b[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

/* The reason an address is not for webhooks (loopback, private, ...), or NULL. */
static const char *
forbidden(int family, const unsigned char *a)
{
	static const unsigned char zero[16];

	if (family == AF_INET) {
		if (a[0] == 0)
			return "unspecified";
		if (a[0] == 127)
			return "loopback";
		if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) ||
		    (a[0] == 192 && a[1] == 168) || (a[0] == 100 && (a[1] & 0xc0) == 64))
			return "private";
		if (a[0] == 169 && a[1] == 254)
			return "link-local";
		if (a[0] >= 224)
			return "multicast or reserved";
		return NULL;
	}
	if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
		return a[15] == 0 ? "unspecified" : "loopback";
	if (memcmp(a, zero, 10) == 0 && a[10] == 0xff && a[11] == 0xff)
		return "IPv4-mapped";
	if (memcmp(a, zero, 12) == 0)
		return "IPv4-compatible";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local";
	if ((a[0] & 0xfe) == 0xfc)
		return "private";
	if (a[0] == 0xff)
		return "multicast";
	return NULL;
}

/* NULL if a webhook may connect to sa, else why not. */
static const char *
refuse_addr(const struct run *r, const struct sockaddr *sa)
{
	const unsigned char	*a;
	int			 family = sa->sa_family;
	size_t			 i;

	if (family == AF_INET)
		a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (family == AF_INET6)
		a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
	else
		return "not an IP address";
	for (i = 0; i < r->nallow; i++)
		if (r->allow[i].family == family && prefix_eq(a, r->allow[i].a, r->allow[i].bits))
			return NULL;
	return forbidden(family, a);
}

/* bl_webpost()'s check of each address the host has. */
static const char *
refuse_cb(void *arg, const struct sockaddr *sa)
{
	return refuse_addr(arg, sa);
}

/* The JSON body of a webhook: the event, its times, views left, the receipt's id. */
static char *
webhook_body(const struct bl_outbox_item *it)
{
	json_object	*o;
	char		 id[32], *out = NULL;
	const char	*s;

	snprintf(id, sizeof(id), "evt_%lld", (long long)it->id);
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "id", json_object_new_string(id)) ||
	    bl_json_add(o, "type", json_object_new_string(it->kind)) ||
	    bl_json_add_time(o, "occurredAt", it->occurred_ms) ||
	    (it->receipt_id[0] != '\0' && (bl_json_add(o, "receiptId",
	    json_object_new_string(it->receipt_id)) ||
	    (it->views_left >= 0 ? bl_json_add(o, "viewsLeft",
	    json_object_new_int64(it->views_left)) : bl_json_add_null(o, "viewsLeft")))) ||
	    (it->detail[0] != '\0' && bl_json_add(o, "burnedBy",
	    json_object_new_string(it->detail))) ||
	    bl_json_add(o, "attempt", json_object_new_int64(it->attempts)) ||
	    (s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE)) == NULL)
		goto out;
	out = strdup(s);
out:
	json_object_put(o);
	return out;
}

/*
 * The signature header: t=<unix seconds>,v1=<hex HMAC-SHA-256 under the
 * webhook's secret of "<t>.<body>"> (docs/NOTIFY.md shows how to check it).
 */
static int
signature(const char *secret, const char *body, int64_t now_ms, char *out, size_t len)
{
	unsigned char	 mac[BL_HASH_BYTES];
	char		*msg = NULL, hex[2 * BL_HASH_BYTES + 1];
	long long	 t = (long long)(now_ms / 1000);
	size_t		 i;
	int		 n;

	if ((n = asprintf(&msg, "%lld.%s", t, body)) < 0)
		return -1;
	if (bl_hmac_sha256((const unsigned char *)secret, strlen(secret), msg, (size_t)n,
	    mac) != 0) {
		free(msg);
		return -1;
	}
	free(msg);
	for (i = 0; i < sizeof(mac); i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	snprintf(out, len, "Burnlink-Signature: t=%lld,v1=%s", t, hex);
	return 0;
}

/* POSTs one event; sets *status (HTTP, or -1) and returns NULL for a 2xx, else why not. */
static const char *
post(struct run *r, const struct bl_outbox_item *it, int64_t *status, char *why, size_t len)
{
	struct bl_webpost	 p;
	const char		*hdrs[5];
	char			*body = NULL, sig[128], idh[64];
	const char		*bad = NULL;
	long			 code = -1;

	*status = -1;
	snprintf(idh, sizeof(idh), "Burnlink-Event-Id: evt_%lld", (long long)it->id);
	if ((body = webhook_body(it)) == NULL ||
	    signature(it->secret, body, r->c->now_ms, sig, sizeof(sig)) != 0) {
		free(body);
		return "out of memory";
	}
	hdrs[0] = "Content-Type: application/json";
	hdrs[1] = "User-Agent: burnlink-notify";
	hdrs[2] = idh;
	hdrs[3] = sig;
	memset(&p, 0, sizeof(p));
	p.url = it->url;
	p.headers = hdrs;
	p.nheaders = 4;
	p.body = body;
	p.ca = r->o->ca;
	p.allow_http = r->http;
	p.timeout_s = HTTP_TIMEOUT;
	p.refuse = refuse_cb;
	p.arg = r;
	bad = bl_webpost(&p, &code, why, len);
	*status = code;
	if (bad == NULL && (code < 200 || code > 299)) {
		snprintf(why, len, "HTTP status %ld", code);
		bad = why;
	}
	free(body);
	return bad;
}

/* 1 if s can stand in a To: header as it is (no spaces, controls or specials). */
static int
plain_address(const char *s)
{
	const char	*at = strchr(s, '@');

	if (at == NULL || at == s || at[1] == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s <= ' ' || *s >= 0x7f || strchr("<>()[],;:\\\"", *s) != NULL)
			return 0;
	return 1;
}

/* The mail of one event: headers and a plain-text body, nothing of the secret. */
static char *
mail_text(struct run *r, const struct bl_outbox_item *it, const char *to)
{
	const struct mail_text	*m = NULL;
	const char		*site = r->c->cfg.site_url != NULL ? r->c->cfg.site_url : "";
	const char		*from = r->o->from != NULL && r->o->from[0] != '\0' ?
				    r->o->from : "burnlink@localhost";
	char			*out = NULL, when[64], date[64];
	size_t			 i, len = 0;
	time_t			 t = (time_t)(r->c->now_ms / 1000);
	struct tm		 tm;
	FILE			*f;

	for (i = 0; i < sizeof(mail_texts) / sizeof(mail_texts[0]); i++)
		if (strcmp(mail_texts[i].kind, it->kind) == 0)
			m = &mail_texts[i];
	if (m == NULL || !plain_address(to) || !plain_address(from) ||
	    gmtime_r(&t, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm) == 0 ||
	    (f = open_memstream(&out, &len)) == NULL)
		return NULL;
	fprintf(f, "From: %s\nTo: %s\nSubject: %s\nDate: %s\nAuto-Submitted: auto-generated\n"
	    "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: 8bit\n\n", from, to, m->subject, date);
	if (strncmp(it->kind, "account.", 8) == 0)
		fprintf(f, "%s\n\n%s/dashboard#%s=%s\n", m->text, site,
		    strcmp(it->kind, "account.reset") == 0 ? "reset" : "verify", it->detail);
	else {
		fprintf(f, "%s %s.\n", m->text, bl_iso8601(it->occurred_ms, when));
		if (it->views_left >= 0)
			fprintf(f, "%s %lld\n", TXT_VIEWS_LEFT, (long long)it->views_left);
		else
			fprintf(f, "%s %s\n", TXT_VIEWS_LEFT, TXT_UNLIMITED);
		if (it->detail[0] != '\0')
			fprintf(f, "%s %s\n", TXT_BURNED_BY, it->detail);
		fprintf(f, "%s %s/dashboard#%s\n\n%s\n", TXT_RECEIPT, site, it->receipt_id,
		    TXT_FOOTER);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * Runs BURNLINK_SENDMAIL (split on spaces, no shell) with the message on its
 * standard input. NULL when it exits 0, else why not (*status its exit status).
 */
static const char *
sendmail(struct run *r, const char *msg, int64_t *status, char *why, size_t len)
{
	const char	*cmd = r->o->sendmail != NULL && r->o->sendmail[0] != '\0' ?
			    r->o->sendmail : DEFAULT_SENDMAIL;
	char		*copy, *argv[ARGV_MAX + 1], *save = NULL, *w;
	size_t		 argc = 0, n = strlen(msg), off = 0;
	ssize_t		 k;
	int		 fd[2], ws;
	pid_t		 pid;

	*status = -1;
	if ((copy = strdup(cmd)) == NULL)
		return "out of memory";
	for (w = strtok_r(copy, " ", &save); w != NULL && argc < ARGV_MAX;
	    w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (argc == 0 || pipe(fd) != 0) {
		free(copy);
		return argc == 0 ? "BURNLINK_SENDMAIL is empty" : "cannot make a pipe";
	}
	if ((pid = fork()) == 0) {
		close(fd[1]);
		if (dup2(fd[0], 0) < 0)
			_exit(127);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	free(copy);
	close(fd[0]);
	while (pid > 0 && off < n && (k = write(fd[1], msg + off, n - off)) > 0)
		off += (size_t)k;
	close(fd[1]);
	if (pid < 0)
		return "cannot start the mailer";
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return "cannot wait for the mailer";
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && off == n) {
		*status = 0;
		return NULL;
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	snprintf(why, len, "the mailer failed (status %lld)", (long long)*status);
	return why;
}

/* Settles one row and logs what happened (ids only: nothing of the secret). */
static void
settle(struct run *r, const struct bl_outbox_item *it, int state, int64_t status,
    const char *why, int64_t next)
{
	static const char *const words[] = { "retry", "sent", "dropped" };
	enum bl_err	 e;

	e = bl_store_outbox_finish(r->c->store, &r->claim, it->id, state, status, why,
	    r->c->now_ms, next);
	bl_log_id(r->c->log_id, "notify: evt_%lld %s %s %lld (attempt %lld): %s%s%s",
	    (long long)it->id, it->kind, it->channel == 1 ? "mail to account" : "webhook",
	    (long long)(it->channel == 1 ? it->account_id : it->webhook_id),
	    (long long)it->attempts, words[state], why != NULL ? ": " : "",
	    why != NULL ? why : "");
	if (e != BL_OK)
		bl_log_id(r->c->log_id, "notify: evt_%lld: cannot record it: %s",
		    (long long)it->id, bl_store_error(r->c->store));
	if (state == 1)
		r->st->sent++;
	else if (state == 2)
		r->st->dropped++;
	else
		r->st->retried++;
}

/* Delivers one claimed row. */
static void
deliver(struct run *r, const struct bl_outbox_item *it)
{
	char		 why[192] = "";
	const char	*bad = NULL;
	char		*msg;
	int64_t		 status = -1, sent = 0, back, now = r->c->now_ms;
	int		 account_mail = strncmp(it->kind, "account.", 8) == 0, k;

	if (now - it->occurred_ms >= WINDOW_MS) {
		settle(r, it, 2, -1, "undelivered for 24 hours", now);
		return;
	}
	if (!account_mail) {
		if (bl_store_outbox_sent(r->c->store, it->account_id, now - 3600 * 1000LL,
		    &sent) != BL_OK) {
			settle(r, it, 0, -1, "cannot count the hourly cap", now + BACKOFF_MS);
			return;
		}
		if (sent >= r->c->cfg.limits.f[BL_F_NOTIFY_HOUR].max) {
			settle(r, it, 0, -1, "the account's hourly cap is reached",
			    now + CAP_DELAY_MS);
			return;
		}
	}
	if (it->channel == 2) {
		if (it->url[0] == '\0') {
			settle(r, it, 2, -1, "the webhook was deleted", now);
			return;
		}
		bad = post(r, it, &status, why, sizeof(why));
	} else {
		if (it->email[0] == '\0' || (!account_mail && !it->verified)) {
			settle(r, it, 2, -1, "the account has no verified address", now);
			return;
		}
		if ((msg = mail_text(r, it, it->email)) == NULL) {
			settle(r, it, 2, -1, "cannot write this mail (address or kind)", now);
			return;
		}
		bad = sendmail(r, msg, &status, why, sizeof(why));
		bl_free_wipe(msg, strlen(msg));
	}
	if (bad == NULL) {
		settle(r, it, 1, status, NULL, now);
		return;
	}
	for (back = BACKOFF_MS, k = 1; k < it->attempts && back < BACKOFF_MAX_MS; k++)
		back *= 2;
	if (back > BACKOFF_MAX_MS)
		back = BACKOFF_MAX_MS;
	settle(r, it, 0, status, bad, now + back);
}

/*
 * One delivery run at the context's clock: claims due rows a batch at a time
 * and delivers each. 0 on success (deliveries that failed are retried later,
 * not a failure of the run), -1 with err set if the store failed.
 */
int
bl_notify_run(struct bl_ctx *c, const struct bl_notify_opts *o, struct bl_notify_stats *st,
    char *err, size_t errlen)
{
	struct run	 r;
	enum bl_err	 e;
	size_t		 i, total = 0;
	int		 rc = -1;

	memset(st, 0, sizeof(*st));
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.o = o;
	r.st = st;
	if (parse_allow(&r, o->allow) != 0) {
		snprintf(err, errlen, "BURNLINK_NOTIFY_ALLOW: not a list of addresses, "
		    "networks (address/bits) and \"http\"");
		return -1;
	}
	if ((r.claim.items = calloc(BATCH, sizeof(*r.claim.items))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r.claim.max = BATCH;
	if (bl_ctx_store(c) != BL_OK) {
		snprintf(err, errlen, "cannot open the database");
		goto out;
	}
	while (total < RUN_MAX) {
		if ((e = bl_store_outbox_claim(c->store, c->now_ms, LEASE_MS, &r.claim)) != BL_OK) {
			snprintf(err, errlen, "%s: %s", bl_error_info(e)->code,
			    bl_store_error(c->store));
			goto out;
		}
		if (r.claim.n == 0)
			break;
		for (i = 0; i < r.claim.n; i++)
			deliver(&r, &r.claim.items[i]);
		total += r.claim.n;
		/* deliveries take time: later claims see it */
		c->now_ms = bl_now_ms();
	}
	rc = 0;
out:
	bl_wipe(r.claim.items, BATCH * sizeof(*r.claim.items));
	free(r.claim.items);
	return rc;
}
