/* settings.c (layer: base): the operator's settings file (docs/ADMIN.md, "The settings file"), read strictly. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

/*
 * The file is "key = value" lines; a line whose first non-blank character is
 * '#' is a comment (a value may hold '#': "accent_color = #0b6e4f"); a list is
 * comma-separated. It is read with one read() into a buffer on the stack and
 * parsed in place into struct bl_policy and the limits (bl_limits_tighten()):
 * nothing is allocated. Each value can only tighten docs/API.md's limits.
 * The first error stops the parse: "file:line: what is wrong; what is
 * allowed", and the programs answer 503 rather than run on half a policy.
 */
#define SETTINGS_MAX	16384		/* bytes of the file */

/* The expiry choices the page offered before there were settings (docs/API.md). */
static const int64_t default_expiry[] = {
	1800, 3600, 14400, 43200, 86400, 259200, 604800, 1209600, 2592000, 7776000,
};

enum key {
	K_EXPIRY_CHOICES = 0,
	K_EXPIRY_DEFAULT,
	K_EXPIRY_MAX,
	K_VIEWS_DEFAULT,
	K_VIEWS_MAX,
	K_VIEWS_UNLIMITED,
	K_VIEWS_FORCED,
	K_PASSPHRASE_REQUIRED,
	K_PASSPHRASE_MIN,
	K_CONTENT_MAX,
	K_FILES_ALLOWED,
	K_FILES_MAX,
	K_CREATE,
	K_SIGNUP,
	K_SITE_NAME,
	K_ACCENT_COLOR,
	K_LOGO_URL,
	K_IMPRINT_URL,
	K_FOOTER_TEXT,
	K_SITE_URL,
	K_SIGNIN_PASSWORD,
	K_SIGNIN_WEBSERVER,
	K_WEBSERVER_CREATE,
	K_WEBSERVER_EMAIL_VAR,
	K_WEBSERVER_GROUPS_VAR,
	K_ALLOWED_GROUPS,
	K_ADMIN_GROUPS,
	K_ALLOWED_DOMAINS,
	K_WEBSERVER_LOGOUT,
	K_METRICS_TOKEN,
	K_METRICS_ALLOW,
	K_AUDIT_CLIENT,
	K_AUDIT_DAYS,
	K_AUDIT_SYSLOG,
	K_AUDIT_SYSLOG_FACILITY,
	K_AUDIT_SYSLOG_SOCKET,
	/*
	 * The page's languages are not settings: the page chooses one before
	 * any request, from assets/i18n/index.json (INSTALL, section 8).
	 */
	K__MAX
};

/* Each key with what it allows, as an error message says it. */
static const struct {
	const char	*name;
	const char	*allowed;
} keys[K__MAX] = {
	[K_EXPIRY_CHOICES] = {"expiry_choices", "a comma-separated list of up to 16 durations from 30m to 90d, e.g. 1h, 1d, 7d"},
	[K_EXPIRY_DEFAULT] = {"expiry_default", "a duration from 30m to 90d (e.g. 3600, 30m, 12h, 7d), one of expiry_choices"},
	[K_EXPIRY_MAX] = {"expiry_max", "a duration from 30m to 90d (e.g. 3600, 30m, 12h, 7d)"},
	[K_VIEWS_DEFAULT] = {"views_default", "a whole number from 1 to 999, at most views_max"},
	[K_VIEWS_MAX] = {"views_max", "a whole number from 1 to 999"},
	[K_VIEWS_UNLIMITED] = {"views_unlimited", "yes or no"},
	[K_VIEWS_FORCED] = {"views_forced", "a whole number from 1 to 999 (then views_default, views_max and views_unlimited are not set)"},
	[K_PASSPHRASE_REQUIRED] = {"passphrase_required", "yes or no"},
	[K_PASSPHRASE_MIN] = {"passphrase_min", "a whole number of characters from 4 to 256"},
	[K_CONTENT_MAX] = {"content_max", "a size from 1 byte to 2MiB (e.g. 65536, 64KiB, 1MiB)"},
	[K_FILES_ALLOWED] = {"files_allowed", "yes or no"},
	[K_FILES_MAX] = {"files_max", "a whole number from 1 to 20"},
	[K_CREATE] = {"create", "anyone, or accounts (only signed-in users and API keys)"},
	[K_SIGNUP] = {"signup", "open or closed"},
	[K_SITE_NAME] = {"site_name", "1 to 64 bytes of text without control characters"},
	[K_ACCENT_COLOR] = {"accent_color", "a colour #rgb or #rrggbb, e.g. #0b6e4f"},
	[K_LOGO_URL] = {"logo_url", "a path on this site, e.g. /assets/logo.svg (up to 255 bytes of URL characters)"},
	[K_IMPRINT_URL] = {"imprint_url", "an https:// or http:// address, a mailto: link or a path on this site (up to 255 bytes of URL characters)"},
	[K_FOOTER_TEXT] = {"footer_text", "1 to 255 bytes of text without control characters"},
	[K_SITE_URL] = {"site_url", "the site's https:// or http:// address with its sub-path, e.g. https://example.org/burnlink (up to 255 bytes, no ? or #)"},
	[K_SIGNIN_PASSWORD] = {"signin_password", "yes or no"},
	[K_SIGNIN_WEBSERVER] = {"signin_webserver", "yes or no"},
	[K_WEBSERVER_CREATE] = {"webserver_create", "yes or no"},
	[K_WEBSERVER_EMAIL_VAR] = {"webserver_email_var", "the name of a variable the web server's authentication module sets, e.g. OIDC_CLAIM_email (letters, digits, _; not HTTP_..., nor one the request sets)"},
	[K_WEBSERVER_GROUPS_VAR] = {"webserver_groups_var", "the name of a variable the web server's authentication module sets, e.g. OIDC_CLAIM_groups (letters, digits, _; not HTTP_..., nor one the request sets)"},
	[K_ALLOWED_GROUPS] = {"allowed_groups", "a comma-separated list of up to 32 group names (no control characters), at most 1023 bytes"},
	[K_ADMIN_GROUPS] = {"admin_groups", "a comma-separated list of up to 32 group names (no control characters), at most 1023 bytes"},
	[K_ALLOWED_DOMAINS] = {"allowed_domains", "a comma-separated list of up to 32 domains, e.g. example.org, example.com"},
	[K_WEBSERVER_LOGOUT] = {"webserver_logout", "a path on this site or an https:// or http:// address, e.g. /oidc/redirect?logout=https%3A%2F%2Fsecrets.example.org%2F"},
	[K_METRICS_TOKEN] = {"metrics_token", "32 to 128 characters A-Z a-z 0-9 - . _ ~ (e.g. from openssl rand -hex 32)"},
	[K_METRICS_ALLOW] = {"metrics_allow", "a comma-separated list of up to 16 IPv4 or IPv6 addresses or CIDR blocks, e.g. 127.0.0.1/32, ::1/128"},
	[K_AUDIT_CLIENT] = {"audit_client", "hashed (an HMAC of the address under the install secret), clear (the address) or none"},
	[K_AUDIT_DAYS] = {"audit_days", "a whole number of days from 1 to 3650"},
	[K_AUDIT_SYSLOG] = {"audit_syslog", "yes or no"},
	[K_AUDIT_SYSLOG_FACILITY] = {"audit_syslog_facility", "authpriv, auth, daemon, user or local0 to local7"},
	[K_AUDIT_SYSLOG_SOCKET] = {"audit_syslog_socket", "the absolute path of the log daemon's datagram socket, e.g. /dev/log (at most 107 bytes)"},
};

/* The syslog facilities audit_syslog_facility names, with their LOG_* codes. */
static const struct {
	const char	*name;
	int		 code;
} facilities[] = {
	{"authpriv", 10 << 3}, {"auth", 4 << 3}, {"daemon", 3 << 3}, {"user", 1 << 3},
	{"local0", 16 << 3}, {"local1", 17 << 3}, {"local2", 18 << 3}, {"local3", 19 << 3},
	{"local4", 20 << 3}, {"local5", 21 << 3}, {"local6", 22 << 3}, {"local7", 23 << 3},
};

/* The parse of one file: where it is, and the first error. */
struct parse {
	struct bl_config	*cfg;
	const char		*path;
	unsigned		 line;
	unsigned		 seen_line[K__MAX];	/* 0: not set */
	int64_t			 num[K__MAX];	/* the numbers and yes/no values set */
};

/* Records the first error as "file:line: message"; returns -1. */
static int	 fail(struct parse *, const char *, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct parse *p, const char *fmt, ...)
{
	struct bl_policy	*pol = &p->cfg->policy;
	va_list			 ap;
	int			 n;

	if (pol->err[0] != '\0')
		return -1;
	pol->err_line = p->line;
	n = p->line > 0 ? snprintf(pol->err, sizeof(pol->err), "%s:%u: ", p->path, p->line) :
	    snprintf(pol->err, sizeof(pol->err), "%s: ", p->path);
	if (n < 0 || (size_t)n >= sizeof(pol->err))
		return -1;
	va_start(ap, fmt);
	vsnprintf(pol->err + n, sizeof(pol->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A bad value of key k: names it and what it allows. */
static int
bad_value(struct parse *p, enum key k, const char *v, size_t len)
{
	if (k == K_METRICS_TOKEN)	/* a token is never logged, even a bad one */
		return fail(p, "%s = (not shown): allowed: %s", keys[k].name, keys[k].allowed);
	return fail(p, "%s = %.*s: allowed: %s", keys[k].name,
	    (int)(len > 64 ? 64 : len), v, keys[k].allowed);
}

/* Reads digits then an optional unit of units (name, factor; NULL-terminated). */
static int
parse_number(const char *v, size_t len, const char *const *unames, const int64_t *ufactors,
    int64_t max, int64_t *out)
{
	int64_t	 n = 0;
	size_t	 i = 0, j;

	if (len == 0 || v[0] < '0' || v[0] > '9')
		return -1;
	for (; i < len && v[i] >= '0' && v[i] <= '9'; i++) {
		n = n * 10 + (v[i] - '0');
		if (n > max)
			return -1;
	}
	while (i < len && v[i] == ' ')
		i++;
	if (i < len) {
		if (unames == NULL)
			return -1;
		for (j = 0; unames[j] != NULL; j++)
			if (strlen(unames[j]) == len - i && strncmp(unames[j], v + i, len - i) == 0)
				break;
		if (unames[j] == NULL || n > max / ufactors[j])
			return -1;
		n *= ufactors[j];
	}
	if (n > max)
		return -1;
	*out = n;
	return 0;
}

/* A duration: seconds, or with s, m, h, d, w. */
static int
parse_duration(const char *v, size_t len, int64_t *out)
{
	static const char *const names[] = {"s", "m", "h", "d", "w", NULL};
	static const int64_t factors[] = {1, 60, 3600, 86400, 604800};

	return parse_number(v, len, names, factors, BL_TTL_MAX, out) != 0 ||
	    *out < BL_TTL_MIN ? -1 : 0;
}

static int
parse_size(const char *v, size_t len, int64_t *out)
{
	static const char *const names[] = {"B", "KiB", "MiB", NULL};
	static const int64_t factors[] = {1, 1024, 1024 * 1024};

	return parse_number(v, len, names, factors, BL_MAX_PLAINTEXT, out) != 0 ||
	    *out < 1 ? -1 : 0;
}

static int
parse_int(const char *v, size_t len, int64_t min, int64_t max, int64_t *out)
{
	return parse_number(v, len, NULL, NULL, max, out) != 0 || *out < min ? -1 : 0;
}

/* yes/no (true/false, on/off) as 1/0. */
static int
parse_bool(const char *v, size_t len, int64_t *out)
{
	static const char *const yes[] = {"yes", "true", "on"}, *const no[] = {"no", "false", "off"};
	size_t	 i;

	for (i = 0; i < 3; i++) {
		if (strlen(yes[i]) == len && strncmp(v, yes[i], len) == 0)
			return (*out = 1), 0;
		if (strlen(no[i]) == len && strncmp(v, no[i], len) == 0)
			return (*out = 0), 0;
	}
	return -1;
}

/* Copies text (valid UTF-8, no control characters, 1 to max bytes) into out. */
static int
parse_text(const char *v, size_t len, size_t max, char *out)
{
	if (len == 0 || len > max || !bl_text_valid(v, len))
		return -1;
	memcpy(out, v, len);
	out[len] = '\0';
	return 0;
}

/* 1 if c may appear in a URL as written here (RFC 3986 characters, no quotes). */
static int
url_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("-._~:/?#[]@!$&()*+,;=%", c) != NULL);
}

/*
 * A URL of the allowed schemes, or a path on this site ("/x", not "//x"),
 * copied into out (BL_URL_MAX + 1).
 */
static int
parse_url(const char *v, size_t len, int external, char *out)
{
	size_t	 i;

	if (len == 0 || len > BL_URL_MAX)
		return -1;
	for (i = 0; i < len; i++)
		if (!url_char((unsigned char)v[i]))
			return -1;
	if (v[0] == '/' && (len == 1 || v[1] != '/'))
		;
	else if (!external || !((len > 8 && strncmp(v, "https://", 8) == 0) ||
	    (len > 7 && strncmp(v, "http://", 7) == 0) ||
	    (len > 7 && strncmp(v, "mailto:", 7) == 0)))
		return -1;
	memcpy(out, v, len);
	out[len] = '\0';
	return 0;
}

/*
 * The name of a CGI variable that the web server's authentication module sets
 * (mod_auth_openidc's OIDC_CLAIM_email, mod_auth_mellon's MELLON_mail).
 * Refused: a name the client controls. Every request header reaches the
 * program as HTTP_<NAME>, and the request line and body make the others
 * (RFC 3875, 4.1): a client could claim to be anyone through them.
 */
static int
parse_var(const char *v, size_t len, char *out)
{
	static const char *const client[] = {"HTTP_", "CONTENT_", "QUERY_STRING",
	    "PATH_", "REQUEST_", "SCRIPT_", "SERVER_", "DOCUMENT_", "GATEWAY_",
	    "REMOTE_ADDR", "REMOTE_PORT", "REMOTE_HOST", "HTTPS"};
	size_t	 i;

	if (len == 0 || len > BL_VAR_MAX || (v[0] >= '0' && v[0] <= '9'))
		return -1;
	for (i = 0; i < len; i++)
		if (!((v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= 'a' && v[i] <= 'z') ||
		    (v[i] >= '0' && v[i] <= '9') || v[i] == '_'))
			return -1;
	for (i = 0; i < sizeof(client) / sizeof(client[0]); i++)
		if (len >= strlen(client[i]) && strncasecmp(v, client[i], strlen(client[i])) == 0)
			return -1;
	memcpy(out, v, len);
	out[len] = '\0';
	return 0;
}

/* Trims blanks at both ends of [*v, *v + *len). */
static void
trim(const char **v, size_t *len)
{
	while (*len > 0 && (**v == ' ' || **v == '\t'))
		(*v)++, (*len)--;
	while (*len > 0 && ((*v)[*len - 1] == ' ' || (*v)[*len - 1] == '\t' ||
	    (*v)[*len - 1] == '\r'))
		(*len)--;
}

/*
 * Calls item(p, k, v, len, i) for each comma-separated item of a list, at
 * most max of them; -1 (reported) on an empty item or too many.
 */
static int
each_item(struct parse *p, enum key k, const char *v, size_t len, size_t max,
    int (*item)(struct parse *, const char *, size_t, size_t))
{
	const char	*it, *comma;
	size_t		 n = 0, ilen;

	while (len > 0) {
		comma = memchr(v, ',', len);
		it = v;
		ilen = comma != NULL ? (size_t)(comma - v) : len;
		len = comma != NULL ? len - ilen - 1 : 0;
		v = comma != NULL ? comma + 1 : v + ilen;
		trim(&it, &ilen);
		if (ilen == 0 || n == max || item(p, it, ilen, n) != 0)
			return bad_value(p, k, it, ilen);
		n++;
		if (comma != NULL && len == 0)
			return bad_value(p, k, "", 0);	/* a trailing comma */
	}
	return n == 0 ? bad_value(p, k, "", 0) : 0;
}

/* One address or CIDR block of metrics_allow, appended to the policy's list. */
static int
net_item(struct parse *p, const char *v, size_t len, size_t i)
{
	char		*list = p->cfg->policy.metrics_allow, a[64];
	unsigned char	 bin[16];
	const char	*slash = memchr(v, '/', len);
	size_t		 alen = slash != NULL ? (size_t)(slash - v) : len, at = strlen(list);
	int64_t		 bits = 0;
	int		 v6;

	if (alen == 0 || alen >= sizeof(a))
		return -1;
	memcpy(a, v, alen);
	a[alen] = '\0';
	v6 = memchr(a, ':', alen) != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, a, bin) != 1)
		return -1;
	if (slash != NULL && parse_int(slash + 1, len - alen - 1, 0, v6 ? 128 : 32, &bits) != 0)
		return -1;
	if (at + (i > 0) + len >= sizeof(p->cfg->policy.metrics_allow))
		return -1;
	if (i > 0)
		list[at++] = ',';
	memcpy(list + at, v, len);
	list[at + len] = '\0';
	return 0;
}

static int
expiry_item(struct parse *p, const char *v, size_t len, size_t i)
{
	struct bl_policy	*pol = &p->cfg->policy;
	int64_t			 s;

	if (parse_duration(v, len, &s) != 0 || (i > 0 && s <= pol->expiry[i - 1]))
		return -1;	/* ascending, each once */
	pol->expiry[i] = s;
	pol->nexpiry = i + 1;
	return 0;
}

/* Appends an item of a list setting to out ("a,b"): text without control characters or commas. */
static int
list_add(char *out, const char *v, size_t len)
{
	size_t	 at = strlen(out);

	if (!bl_text_valid(v, len) || at + (at > 0) + len > BL_LIST_MAX)
		return -1;
	if (at > 0)
		out[at++] = ',';
	memcpy(out + at, v, len);
	out[at + len] = '\0';
	return 0;
}

static int
group_item(struct parse *p, const char *v, size_t len, size_t i)
{
	(void)i;
	return list_add(p->cfg->policy.groups, v, len);
}

static int
admin_group_item(struct parse *p, const char *v, size_t len, size_t i)
{
	(void)i;
	return list_add(p->cfg->policy.admin_groups, v, len);
}

/* A domain: letters, digits, '-' and '.', stored lower-cased. */
static int
domain_item(struct parse *p, const char *v, size_t len, size_t i)
{
	char	 d[BL_LIST_MAX + 1];
	size_t	 j;

	(void)i;
	if (len > 253 || v[0] == '.' || v[0] == '-')
		return -1;
	for (j = 0; j < len; j++) {
		if (!((v[j] >= 'a' && v[j] <= 'z') || (v[j] >= 'A' && v[j] <= 'Z') ||
		    (v[j] >= '0' && v[j] <= '9') || v[j] == '-' || v[j] == '.'))
			return -1;
		d[j] = (v[j] >= 'A' && v[j] <= 'Z') ? (char)(v[j] - 'A' + 'a') : v[j];
	}
	return list_add(p->cfg->policy.domains, d, len);
}

/* Reads the value of key k into the policy (or p->num); -1 when it is not allowed. */
static int
set_value(struct parse *p, enum key k, const char *v, size_t len)
{
	struct bl_policy	*pol = &p->cfg->policy;
	int64_t			*n = &p->num[k];
	int			 rc = -1;

	switch (k) {
	case K_EXPIRY_CHOICES:
		return each_item(p, k, v, len, BL_EXPIRY_CHOICES_MAX, expiry_item);
	case K_EXPIRY_DEFAULT:
	case K_EXPIRY_MAX:
		rc = parse_duration(v, len, n);
		break;
	case K_VIEWS_DEFAULT:
	case K_VIEWS_MAX:
	case K_VIEWS_FORCED:
		rc = parse_int(v, len, BL_VIEWS_MIN, BL_VIEWS_MAX, n);
		break;
	case K_PASSPHRASE_MIN:
		rc = parse_int(v, len, BL_PASS_MIN, BL_PASS_MAX, n);
		break;
	case K_FILES_MAX:
		rc = parse_int(v, len, 1, BL_MAX_FILES, n);
		break;
	case K_CONTENT_MAX:
		rc = parse_size(v, len, n);
		break;
	case K_VIEWS_UNLIMITED:
	case K_PASSPHRASE_REQUIRED:
	case K_FILES_ALLOWED:
	case K_SIGNIN_PASSWORD:
	case K_SIGNIN_WEBSERVER:
	case K_WEBSERVER_CREATE:
		rc = parse_bool(v, len, n);
		break;
	case K_WEBSERVER_EMAIL_VAR:
		rc = parse_var(v, len, pol->email_var);
		break;
	case K_WEBSERVER_GROUPS_VAR:
		rc = parse_var(v, len, pol->groups_var);
		break;
	case K_ALLOWED_GROUPS:
		return each_item(p, k, v, len, 32, group_item);
	case K_ADMIN_GROUPS:
		return each_item(p, k, v, len, 32, admin_group_item);
	case K_ALLOWED_DOMAINS:
		return each_item(p, k, v, len, 32, domain_item);
	case K_WEBSERVER_LOGOUT:
		rc = parse_url(v, len, 1, pol->logout);
		if (rc == 0 && strncmp(pol->logout, "mailto:", 7) == 0)
			rc = -1;
		break;
	case K_CREATE:
		rc = (len == 6 && strncmp(v, "anyone", 6) == 0) ? (*n = 0) :
		    (len == 8 && strncmp(v, "accounts", 8) == 0) ? (*n = 1, 0) : -1;
		break;
	case K_SIGNUP:
		rc = (len == 4 && strncmp(v, "open", 4) == 0) ? (*n = 1, 0) :
		    (len == 6 && strncmp(v, "closed", 6) == 0) ? (*n = 0) : -1;
		break;
	case K_SITE_NAME:
		rc = parse_text(v, len, BL_SITE_NAME_MAX, pol->site_name);
		break;
	case K_FOOTER_TEXT:
		rc = parse_text(v, len, BL_FOOTER_MAX, pol->footer);
		break;
	case K_ACCENT_COLOR:
		if ((len == 4 || len == 7) && v[0] == '#' &&
		    strspn(v + 1, "0123456789abcdefABCDEF") >= len - 1) {
			memcpy(pol->accent, v, len);
			pol->accent[len] = '\0';
			rc = 0;
		}
		break;
	case K_LOGO_URL:
		rc = parse_url(v, len, 0, pol->logo);
		break;
	case K_SITE_URL:
		if (((len > 8 && strncmp(v, "https://", 8) == 0) ||
		    (len > 7 && strncmp(v, "http://", 7) == 0)) &&
		    memchr(v, '?', len) == NULL && memchr(v, '#', len) == NULL)
			rc = parse_url(v, len, 1, pol->site_url);
		break;
	case K_IMPRINT_URL:
		rc = parse_url(v, len, 1, pol->imprint);
		break;
	case K_METRICS_TOKEN:
		if (len >= 32 && len <= BL_METRICS_TOKEN_MAX && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789-._~") >= len) {
			memcpy(pol->metrics_token, v, len);
			pol->metrics_token[len] = '\0';
			rc = 0;
		}
		break;
	case K_METRICS_ALLOW:
		return each_item(p, k, v, len, 16, net_item);
	case K_AUDIT_CLIENT:
		rc = (len == 6 && strncmp(v, "hashed", 6) == 0) ? (pol->audit_client = BL_AUDIT_HASHED, 0) :
		    (len == 5 && strncmp(v, "clear", 5) == 0) ? (pol->audit_client = BL_AUDIT_CLEAR, 0) :
		    (len == 4 && strncmp(v, "none", 4) == 0) ? (pol->audit_client = BL_AUDIT_NONE, 0) : -1;
		break;
	case K_AUDIT_DAYS:
		if ((rc = parse_int(v, len, 1, 3650, n)) == 0)
			pol->audit_days = (int)*n;
		break;
	case K_AUDIT_SYSLOG:
		if ((rc = parse_bool(v, len, n)) == 0)
			pol->audit_syslog = (int)*n;
		break;
	case K_AUDIT_SYSLOG_FACILITY: {
		size_t	 i;

		for (i = 0; i < sizeof(facilities) / sizeof(facilities[0]); i++)
			if (strlen(facilities[i].name) == len &&
			    strncmp(facilities[i].name, v, len) == 0) {
				pol->audit_facility = facilities[i].code;
				rc = 0;
			}
		break;
	}
	case K_AUDIT_SYSLOG_SOCKET:
		if (len > 1 && len < sizeof(pol->audit_socket) && v[0] == '/' &&
		    bl_text_valid(v, len)) {
			memcpy(pol->audit_socket, v, len);
			pol->audit_socket[len] = '\0';
			rc = 0;
		}
		break;
	default:
		break;
	}
	return rc == 0 ? 0 : bad_value(p, k, v, len);
}

/* One line (without its newline): blank, a comment or "key = value". */
static int
parse_line(struct parse *p, const char *s, size_t len)
{
	const char	*eq, *name, *v;
	size_t		 nlen, vlen;
	int		 k;

	trim(&s, &len);
	if (len == 0 || s[0] == '#')
		return 0;
	if (memchr(s, '\0', len) != NULL)
		return fail(p, "a NUL byte: the file must be text");
	if ((eq = memchr(s, '=', len)) == NULL)
		return fail(p, "not \"key = value\": %.*s", (int)(len > 64 ? 64 : len), s);
	name = s;
	nlen = (size_t)(eq - s);
	v = eq + 1;
	vlen = len - nlen - 1;
	trim(&name, &nlen);
	trim(&v, &vlen);
	for (k = 0; k < K__MAX; k++)
		if (strlen(keys[k].name) == nlen && strncmp(keys[k].name, name, nlen) == 0)
			break;
	if (k == K__MAX)
		return fail(p, "unknown setting \"%.*s\"; the settings are described in "
		    "docs/ADMIN.md and conf/burnlink.conf.example",
		    (int)(nlen > 64 ? 64 : nlen), name);
	if (p->seen_line[k] != 0)
		return fail(p, "%s is set twice (first on line %u)", keys[k].name,
		    p->seen_line[k]);
	p->seen_line[k] = p->line;
	return set_value(p, (enum key)k, v, vlen);
}

/* Reports a rule between two settings at the line of the later-named one. */
static int
conflict(struct parse *p, enum key k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
conflict(struct parse *p, enum key k, const char *fmt, ...)
{
	char	 msg[256];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->line = p->seen_line[k];
	return fail(p, "%s", msg);
}

/* 1 if s is one of the policy's expiry choices. */
static int
is_choice(const struct bl_policy *pol, int64_t s)
{
	size_t	 i;

	for (i = 0; i < pol->nexpiry; i++)
		if (pol->expiry[i] == s)
			return 1;
	return 0;
}

/* The expiry settings, checked together, into the ttl limits and the choices. */
static int
apply_expiry(struct parse *p)
{
	struct bl_policy	*pol = &p->cfg->policy;
	struct bl_bounds	 b = {BL_TTL_MIN, BL_TTL_MAX, BL_TTL_DEFAULT};
	int			 given = pol->nexpiry > 0;
	size_t			 i, n = 0;

	if (p->seen_line[K_EXPIRY_MAX])
		b.max = p->num[K_EXPIRY_MAX];
	else if (given)
		b.max = pol->expiry[pol->nexpiry - 1];
	if (given && pol->expiry[pol->nexpiry - 1] > b.max)
		return conflict(p, K_EXPIRY_CHOICES, "expiry_choices: every choice must be "
		    "at most expiry_max (%lld seconds)", (long long)b.max);
	if (!given) {
		for (i = 0; i < sizeof(default_expiry) / sizeof(default_expiry[0]); i++)
			if (default_expiry[i] <= b.max)
				pol->expiry[n++] = default_expiry[i];
		if (n == 0 || pol->expiry[n - 1] != b.max)
			pol->expiry[n++] = b.max;	/* the maximum is always offered */
		pol->nexpiry = n;
	}
	if (p->seen_line[K_EXPIRY_DEFAULT]) {
		b.dflt = p->num[K_EXPIRY_DEFAULT];
		if (b.dflt > b.max || !is_choice(pol, b.dflt))
			return conflict(p, K_EXPIRY_DEFAULT, "expiry_default: must be one of "
			    "the expiry choices and at most expiry_max (%lld seconds)",
			    (long long)b.max);
	} else if (b.dflt > b.max || !is_choice(pol, b.dflt))
		b.dflt = pol->expiry[0];	/* 1 day is not offered: the first choice */
	return bl_limits_tighten(&p->cfg->limits, BL_F_TTL, &b) == 0 ? 0 :
	    conflict(p, K_EXPIRY_MAX, "expiry: the limits do not fit docs/API.md's");
}

/* The views settings, checked together, into the maxViews limits. */
static int
apply_views(struct parse *p)
{
	struct bl_policy	*pol = &p->cfg->policy;
	struct bl_bounds	 b = {BL_VIEWS_MIN, BL_VIEWS_MAX, BL_VIEWS_DEFAULT};

	pol->views_unlimited = 1;
	if (p->seen_line[K_VIEWS_FORCED]) {
		if (p->seen_line[K_VIEWS_DEFAULT] || p->seen_line[K_VIEWS_MAX] ||
		    p->seen_line[K_VIEWS_UNLIMITED])
			return conflict(p, K_VIEWS_FORCED, "views_forced: leave views_default, "
			    "views_max and views_unlimited unset when the views are forced");
		b.min = b.max = b.dflt = p->num[K_VIEWS_FORCED];
		pol->views_unlimited = 0;
		pol->views_forced = 1;
	} else {
		if (p->seen_line[K_VIEWS_MAX])
			b.max = p->num[K_VIEWS_MAX];
		if (p->seen_line[K_VIEWS_DEFAULT])
			b.dflt = p->num[K_VIEWS_DEFAULT];
		if (b.dflt > b.max)
			return conflict(p, p->seen_line[K_VIEWS_DEFAULT] ? K_VIEWS_DEFAULT :
			    K_VIEWS_MAX, "views_default: must be at most views_max (%lld)",
			    (long long)b.max);
		if (p->seen_line[K_VIEWS_UNLIMITED])
			pol->views_unlimited = (int)p->num[K_VIEWS_UNLIMITED];
	}
	return bl_limits_tighten(&p->cfg->limits, BL_F_MAX_VIEWS, &b);
}

/*
 * The sign-in settings, checked together: at least one way in; the web
 * server's settings only with signin_webserver; allowed groups only with the
 * variable that holds them. Sign-up makes password accounts: it is closed
 * while password sign-in is off.
 */
static int
apply_signin(struct parse *p)
{
	struct bl_policy	*pol = &p->cfg->policy;
	static const enum key	 ws[] = {K_WEBSERVER_CREATE, K_WEBSERVER_EMAIL_VAR,
				    K_WEBSERVER_GROUPS_VAR, K_ALLOWED_GROUPS, K_ADMIN_GROUPS,
				    K_ALLOWED_DOMAINS, K_WEBSERVER_LOGOUT};
	size_t			 i;

	pol->signin_password = !p->seen_line[K_SIGNIN_PASSWORD] || p->num[K_SIGNIN_PASSWORD];
	pol->signin_webserver = (int)p->num[K_SIGNIN_WEBSERVER];
	pol->webserver_create = (int)p->num[K_WEBSERVER_CREATE];
	if (!pol->signin_password && !pol->signin_webserver)
		return conflict(p, K_SIGNIN_PASSWORD, "signin_password: with signin_webserver "
		    "off too, nobody could sign in; set signin_webserver = yes or leave "
		    "signin_password on");
	for (i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (p->seen_line[ws[i]] && !pol->signin_webserver)
			return conflict(p, ws[i], "%s: set signin_webserver = yes for the web "
			    "server's sign-in settings to count", keys[ws[i]].name);
	if (pol->groups[0] != '\0' && pol->groups_var[0] == '\0')
		return conflict(p, K_ALLOWED_GROUPS, "allowed_groups: name the variable that "
		    "holds the groups too (webserver_groups_var, e.g. OIDC_CLAIM_groups)");
	if (pol->admin_groups[0] != '\0' && pol->groups_var[0] == '\0')
		return conflict(p, K_ADMIN_GROUPS, "admin_groups: name the variable that "
		    "holds the groups too (webserver_groups_var, e.g. OIDC_CLAIM_groups)");
	if (!pol->signin_password && pol->signup == 1)
		return conflict(p, K_SIGNUP, "signup: sign-up makes password accounts; "
		    "leave it closed while signin_password = no");
	return 0;
}

/* Everything the lines set, checked together, into the limits and the policy. */
static int
apply(struct parse *p)
{
	struct bl_policy	*pol = &p->cfg->policy;
	struct bl_limits	*lim = &p->cfg->limits;
	struct bl_bounds	 b;

	if (apply_expiry(p) != 0 || apply_views(p) != 0)
		return -1;
	if (p->seen_line[K_PASSPHRASE_MIN]) {
		b = lim->f[BL_F_PASSPHRASE];
		b.min = b.dflt = p->num[K_PASSPHRASE_MIN];	/* it has no default */
		if (bl_limits_tighten(lim, BL_F_PASSPHRASE, &b) != 0)
			return -1;
	}
	pol->passphrase_required = (int)p->num[K_PASSPHRASE_REQUIRED];
	if (p->seen_line[K_CONTENT_MAX]) {
		b = lim->f[BL_F_CONTENT];
		b.max = p->num[K_CONTENT_MAX];
		if (bl_limits_tighten(lim, BL_F_CONTENT, &b) != 0)
			return -1;
	}
	pol->files_allowed = !p->seen_line[K_FILES_ALLOWED] || p->num[K_FILES_ALLOWED];
	if (!pol->files_allowed && p->seen_line[K_FILES_MAX])
		return conflict(p, K_FILES_MAX, "files_max: leave it unset when "
		    "files_allowed = no");
	if (!pol->files_allowed || p->seen_line[K_FILES_MAX]) {
		b = lim->f[BL_F_FILES];
		b.max = pol->files_allowed ? p->num[K_FILES_MAX] : 0;
		if (bl_limits_tighten(lim, BL_F_FILES, &b) != 0)
			return -1;
	}
	pol->create_accounts = (int)p->num[K_CREATE];
	pol->signup = p->seen_line[K_SIGNUP] ? (int)p->num[K_SIGNUP] : -1;
	return apply_signin(p);
}

/*
 * Reads the settings file cfg->settings_path into cfg->policy and
 * cfg->limits (which start as docs/API.md's). No file at the default path is
 * no settings; one named by BURNLINK_CONFIG (explicit) must exist. 0 when
 * the settings are in force; -1 with cfg->policy.err set ("file:line: ...")
 * when they cannot be read or are not allowed: then nothing of them is.
 */
static int
settings_load(struct bl_config *cfg, int explicit, char buf[SETTINGS_MAX + 1], size_t *used)
{
	struct parse	 p;
	const char	*s, *nl, *end;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.path = cfg->settings_path;
	memset(&cfg->policy, 0, sizeof(cfg->policy));
	if ((fd = open(p.path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		if (errno == ENOENT && !explicit)
			return apply(&p);
		return fail(&p, "cannot open the settings file: %s", strerror(errno));
	}
	while (len < SETTINGS_MAX + 1 && (n = read(fd, buf + len, SETTINGS_MAX + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return fail(&p, "cannot read the settings file: %s", strerror(errno));
		}
		len += (size_t)n;
		*used = len;
	}
	close(fd);
	if (len > SETTINGS_MAX)
		return fail(&p, "the settings file is larger than %d bytes", SETTINGS_MAX);
	for (s = buf, end = buf + len; s < end; s = nl + 1) {
		p.line++;
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (parse_line(&p, s, (size_t)(nl - s)) != 0)
			goto bad;
	}
	if (apply(&p) == 0) {
		cfg->policy.loaded = 1;
		return 0;
	}
	p.line = 0;
	fail(&p, "the settings do not fit docs/API.md's limits");	/* unless said already */
bad:
	/* Nothing of a file with an error is in force. */
	bl_limits_init(&cfg->limits);
	bl_wipe(cfg->policy.metrics_token, sizeof(cfg->policy.metrics_token));
	return -1;
}

/*
 * Reads the settings file (settings_load()) through a buffer on the stack,
 * wiped after as far as the file filled it: it held metrics_token (wiping
 * all 16 KiB was 16,000 instructions of every request, with no file too).
 */
int
bl_settings_load(struct bl_config *cfg, int explicit)
{
	char	 buf[SETTINGS_MAX + 1];
	size_t	 used = 0;
	int	 rc;

	rc = settings_load(cfg, explicit, buf, &used);
	bl_wipe(buf, used);
	return rc;
}
