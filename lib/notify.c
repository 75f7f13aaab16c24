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
#define RUN_HOOKS	5			/* webhook POSTs per account per run (5 x 15 s) */
#define NEXT_RUN_MS	(60 * 1000LL)		/* a row left for the next run */
#define MAIL_BATCH	4			/* account mails per claim between webhooks */
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
	{ "account.changed", "The e-mail address of your account was changed",
	    "The e-mail address of your account was changed to another one at" },
	{ "account.reset", "Reset your password",
	    "Open this link within an hour to choose a new password (it signs you out "
	    "everywhere). If you did not ask for it, ignore this mail:" },
};
#define TXT_VIEWS_LEFT	"Views left:"
#define TXT_UNLIMITED	"unlimited until it expires"
#define TXT_BURNED_BY	"Burned with:"
#define TXT_RECEIPT	"Receipt:"
#define TXT_FOOTER	"This mail holds nothing of the secret itself."
#define TXT_CHANGED	"This address no longer receives the account's mail or its password " \
			"resets. If you did not change it, your password is known to someone " \
			"else: ask the site's operator to lock the account."

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
	struct bl_claim			 mail;		/* account mail between webhooks */
	struct per_account {
		int64_t	 id;
		int	 hooks;				/* webhook POSTs this run */
	}				*per;
	size_t				 nper;		/* of RUN_MAX */
	char				 refused[256];	/* why refuse_cb() refused */
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

/*
 * 0 if a webhook may connect to sa (an operator's network of
 * BURNLINK_NOTIFY_ALLOW, or an address bl_net_refused() lets through),
 * else -1 and why.
 */
static int
refuse_addr(const struct run *r, const struct sockaddr *sa, char *why, size_t len)
{
	const unsigned char	*a;
	int			 family = sa->sa_family;
	size_t			 i;

	if (family == AF_INET)
		a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (family == AF_INET6)
		a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
	else {
		snprintf(why, len, "not an IP address");
		return -1;
	}
	for (i = 0; i < r->nallow; i++)
		if (r->allow[i].family == family &&
		    bl_net_prefix_eq(a, r->allow[i].a, r->allow[i].bits))
			return 0;
	return bl_net_refused(family, a, why, len);
}

/* bl_webpost()'s check of each address the host has. */
static const char *
refuse_cb(void *arg, const struct sockaddr *sa)
{
	struct run	*r = arg;

	/* bl_webpost() says "address not allowed (<this>)" */
	if (refuse_addr(r, sa, r->refused, sizeof(r->refused)) == 0)
		return NULL;
	return r->refused;
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
	if (strcmp(it->kind, "account.changed") == 0)
		fprintf(f, "%s %s.\n\n%s\n", m->text, bl_iso8601(it->occurred_ms, when),
		    TXT_CHANGED);
	else if (strncmp(it->kind, "account.", 8) == 0)
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

/*
 * What the account is shown of a failed webhook POST (GET /api/webhooks/<id>,
 * docs/NOTIFY.md "Outcomes"): the receiver's status, a fault of the URL
 * itself, or "unreachable" for everything between (the name not found, an
 * address not allowed, no connection, TLS, the time limit), so that an
 * account learns nothing of the server's DNS or network. The detail goes
 * to the operator's log only.
 */
static const char *
outcome(const char *why, int64_t status, char *buf, size_t len)
{
	static const char *const own[] = { "not https", "not a URL", "host name too long" };
	size_t	 i;

	if (status > 0) {
		snprintf(buf, len, "HTTP status %lld", (long long)status);
		return buf;
	}
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(why, own[i]) == 0)
			return why;
	return strcmp(why, "out of memory") == 0 ? "server error" : "unreachable";
}

/*
 * Settles one row of claim and logs what happened (ids only: nothing of the
 * secret): why in the log; shown (NULL: why) is what the row records.
 */
static void
settle_as(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it,
    int state, int64_t status, const char *why, const char *shown, int64_t next)
{
	static const char *const words[] = { "retry", "sent", "dropped" };
	enum bl_err	 e;

	e = bl_store_outbox_finish(r->c->store, claim, it->id, state, status,
	    shown != NULL ? shown : why, r->c->now_ms, next);
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

/* Settles one row, recording why as the log says it. */
static void
settle(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it, int state,
    int64_t status, const char *why, int64_t next)
{
	settle_as(r, claim, it, state, status, why, NULL, next);
}

/*
 * Gives a row back untried until next (no attempt counted), and logs why;
 * the row records shown (NULL: why).
 */
static void
defer(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it,
    const char *why, const char *shown, int64_t next)
{
	if (bl_store_outbox_defer(r->c->store, claim, it->id, shown != NULL ? shown : why,
	    next) != BL_OK)
		bl_log_id(r->c->log_id, "notify: evt_%lld: cannot record it: %s",
		    (long long)it->id, bl_store_error(r->c->store));
	bl_log_id(r->c->log_id, "notify: evt_%lld %s %s %lld: waits: %s", (long long)it->id,
	    it->kind, it->channel == 1 ? "mail to account" : "webhook",
	    (long long)(it->channel == 1 ? it->account_id : it->webhook_id), why);
	r->st->retried++;
}

/* The webhook POSTs this run made for an account (NULL when the table is full). */
static struct per_account *
per_account(struct run *r, int64_t account_id)
{
	size_t	 i;

	for (i = 0; i < r->nper; i++)
		if (r->per[i].id == account_id)
			return &r->per[i];
	if (r->nper == RUN_MAX)
		return NULL;
	r->per[r->nper].id = account_id;
	r->per[r->nper].hooks = 0;
	return &r->per[r->nper++];
}

/*
 * Whether a notification (not account mail) may be tried now: 0, or -1
 * when it was given back for later. A webhook is tried at most RUN_HOOKS
 * times an account in a run; every attempt, whatever its outcome, counts
 * against the account's hourly cap (BL_LIM_NOTIFY_HOUR, a fixed UTC hour).
 */
static int
take_attempt(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it)
{
	struct per_account	*pa = NULL;
	struct bl_usage		 u;
	char			 id[24];
	int			 n;

	if (it->channel == 2 && ((pa = per_account(r, it->account_id)) == NULL ||
	    pa->hooks >= RUN_HOOKS)) {
		defer(r, claim, it, "the account's share of this run is used", NULL,
		    r->c->now_ms + NEXT_RUN_MS);
		return -1;
	}
	n = snprintf(id, sizeof(id), "%lld", (long long)it->account_id);
	if (bl_limit_count(r->c, BL_LIM_NOTIFY_HOUR, id, (size_t)n, &u) != BL_OK) {
		defer(r, claim, it, "cannot count the hourly cap", "server error",
		    r->c->now_ms + BACKOFF_MS);
		return -1;
	}
	if (u.count > r->c->cfg.limits.f[BL_F_NOTIFY_HOUR].max) {
		defer(r, claim, it, "the account's hourly cap is reached", NULL, u.reset * 1000);
		return -1;
	}
	if (pa != NULL)
		pa->hooks++;
	return 0;
}

/*
 * A failed delivery: retried after a backoff that doubles per attempt, up to
 * an hour; the row records shown (NULL: bad).
 */
static void
retry_later(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it,
    int64_t status, const char *bad, const char *shown)
{
	int64_t	 back;
	int	 k;

	for (back = BACKOFF_MS, k = 1; k < it->attempts && back < BACKOFF_MAX_MS; k++)
		back *= 2;
	if (back > BACKOFF_MAX_MS)
		back = BACKOFF_MAX_MS;
	settle_as(r, claim, it, 0, status, bad, shown, r->c->now_ms + back);
}

/*
 * A request for a password-reset mail (POST /api/token {email}: account 0,
 * the address in detail): finds the account that has the address verified,
 * makes a token unless a reset link mailed earlier is still valid, and mails
 * it; the token is in no row, only in the mail. A mail that fails voids its
 * token, and the retry makes another (docs/ACCOUNTS.md).
 */
static void
reset_mail(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *req)
{
	struct bl_outbox_item	 it = *req;
	unsigned char		 raw[32], hash[BL_HASH_BYTES];
	char			*token = NULL, *msg = NULL, why[192] = "";
	const char		*bad = NULL;
	size_t			 len = 0;
	int64_t			 status = -1;
	enum bl_err		 e;

	/*
	 * With sign-in through the web server on, an account without a password
	 * signs in there: a password of its own, by mail, would let it in past
	 * the identity provider (its second factor, its groups). Such an account
	 * gets a password from the operator only (docs/ACCOUNTS.md).
	 */
	e = bl_store_email_find(r->c->store, req->detail, r->c->cfg.policy.signin_webserver,
	    &it.account_id);
	if (e == BL_ERR_NOT_FOUND) {
		settle(r, claim, &it, 2, -1, r->c->cfg.policy.signin_webserver ? "no account "
		    "with a password has this address verified" : "no account has this address "
		    "verified", r->c->now_ms);
		goto out;
	}
	if (e != BL_OK || bl_random(raw, sizeof(raw)) != 0 ||
	    (token = bl_b64url_encode(raw, sizeof(raw), &len)) == NULL ||
	    bl_sha256(token, len, hash) != 0) {
		retry_later(r, claim, &it, -1, "cannot make the reset link", NULL);
		goto out;
	}
	e = bl_store_reset_issue(r->c->store, it.account_id, hash,
	    r->c->now_ms + BL_TOKEN_TTL * 1000LL, r->c->now_ms);
	if (e == BL_ERR_EXISTS || e == BL_ERR_NOT_FOUND) {
		settle(r, claim, &it, 2, -1, e == BL_ERR_EXISTS ? "a reset link mailed earlier is "
		    "still valid" : "no account has this address verified", r->c->now_ms);
		goto out;
	}
	if (e != BL_OK) {
		retry_later(r, claim, &it, -1, "cannot record the reset link", NULL);
		goto out;
	}
	snprintf(it.detail, sizeof(it.detail), "%s", token);
	if ((msg = mail_text(r, &it, req->detail)) == NULL)
		bad = "cannot write this mail (address or kind)";
	else
		bad = sendmail(r, msg, &status, why, sizeof(why));
	if (bad == NULL) {
		settle(r, claim, &it, 1, status, NULL, r->c->now_ms);
		goto out;
	}
	if (bl_store_reset_void(r->c->store, it.account_id) != BL_OK)
		bl_log_id(r->c->log_id, "notify: evt_%lld: cannot void the unsent reset link: %s",
		    (long long)it.id, bl_store_error(r->c->store));
	retry_later(r, claim, &it, status, bad, NULL);
out:
	bl_wipe(raw, sizeof(raw));
	bl_wipe(it.detail, sizeof(it.detail));
	if (token != NULL)
		bl_free_wipe(token, len);
	if (msg != NULL)
		bl_free_wipe(msg, strlen(msg));
}

/* Delivers one claimed row. */
static void
deliver(struct run *r, const struct bl_claim *claim, const struct bl_outbox_item *it)
{
	char		 why[256] = "", shown[64];
	const char	*bad = NULL, *to;
	char		*msg;
	int64_t		 status = -1, now = r->c->now_ms;
	int		 account_mail = strncmp(it->kind, "account.", 8) == 0;

	if (now - it->occurred_ms >= WINDOW_MS) {
		settle(r, claim, it, 2, -1, "undelivered for 24 hours", now);
		return;
	}
	if (it->channel == 2 && it->url[0] == '\0') {
		settle(r, claim, it, 2, -1, "the webhook was deleted", now);
		return;
	}
	if (strcmp(it->kind, "account.reset") == 0 && it->account_id == 0) {
		reset_mail(r, claim, it);
		return;
	}
	/* the address replaced is in the row; every other mail goes to the account's */
	to = strcmp(it->kind, "account.changed") == 0 ? it->detail : it->email;
	if (it->channel == 1 && (to[0] == '\0' || (!account_mail && !it->verified))) {
		settle(r, claim, it, 2, -1, "the account has no verified address", now);
		return;
	}
	if (!account_mail && take_attempt(r, claim, it) != 0)
		return;
	if (it->channel == 2)
		bad = post(r, it, &status, why, sizeof(why));
	else {
		if ((msg = mail_text(r, it, to)) == NULL) {
			settle(r, claim, it, 2, -1, "cannot write this mail (address or kind)", now);
			return;
		}
		bad = sendmail(r, msg, &status, why, sizeof(why));
		bl_free_wipe(msg, strlen(msg));
	}
	if (bad == NULL) {
		settle(r, claim, it, 1, status, NULL, now);
		return;
	}
	retry_later(r, claim, it, status, bad, it->channel == 2 ? outcome(bad, status, shown,
	    sizeof(shown)) : NULL);
}

/*
 * Delivers the account mail (verification, reset) that is due, before the
 * next webhook: a slow receiver never holds it longer than one POST.
 * 0, or -1 with err set if the store failed.
 */
static int
account_mail(struct run *r, char *err, size_t errlen)
{
	enum bl_err	 e;
	size_t		 i;

	do {
		r->c->now_ms = bl_now_ms();
		if ((e = bl_store_outbox_claim(r->c->store, r->c->now_ms, LEASE_MS,
		    &r->mail)) != BL_OK) {
			snprintf(err, errlen, "%s: %s", bl_error_info(e)->code,
			    bl_store_error(r->c->store));
			return -1;
		}
		for (i = 0; i < r->mail.n; i++)
			deliver(r, &r->mail, &r->mail.items[i]);
	} while (r->mail.n == r->mail.max);
	return 0;
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
	if ((r.claim.items = calloc(BATCH, sizeof(*r.claim.items))) == NULL ||
	    (r.mail.items = calloc(MAIL_BATCH, sizeof(*r.mail.items))) == NULL ||
	    (r.per = calloc(RUN_MAX, sizeof(*r.per))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	r.claim.max = BATCH;
	r.mail.max = MAIL_BATCH;
	r.mail.mail_only = 1;
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
		for (i = 0; i < r.claim.n; i++) {
			if (r.claim.items[i].channel == 2 && account_mail(&r, err, errlen) != 0)
				goto out;
			deliver(&r, &r.claim, &r.claim.items[i]);
		}
		total += r.claim.n;
		/* deliveries take time: later claims see it */
		c->now_ms = bl_now_ms();
	}
	rc = 0;
out:
	bl_metrics_events(c);	/* webhook.failing (burnlink_events_total) */
	if (r.claim.items != NULL)
		bl_wipe(r.claim.items, BATCH * sizeof(*r.claim.items));
	if (r.mail.items != NULL)
		bl_wipe(r.mail.items, MAIL_BATCH * sizeof(*r.mail.items));
	free(r.claim.items);
	free(r.mail.items);
	free(r.per);
	return rc;
}
