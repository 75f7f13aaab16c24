/* fields.c: the table of validated inputs and their limits, and hints formatted from it. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * One row per field of a request body (and per limit an error hint names).
 * Validation reads the bounds from struct bl_limits, which starts as these;
 * scripts/limits-gen.c prints them as www/assets/limits.js for the page and
 * the CLI (make limits).
 *
 * A row ends with its error: the code's enum value, and when the error is
 * this field's alone, its row of the error table (status, code, message,
 * hint naming the bounds as ${id.min}, ${id.max}; bl_error_info() reads it
 * here); an error several rows or checks share has its row in lib/error.c.
 *
 * A new limit: its number in burnlink.h's block of limits, a row here, the
 * check through bl_field_*() or r->ctx->cfg.limits.f[...] (never the number), its
 * hint naming it as ${id.max} (or :time, :size; in its row here, or in
 * lib/error.c when its error is shared), then
 * `make limits` and commit www/assets/limits.js (tests/cli/wire.test.mjs
 * fails until then). The page and the CLI read it from LIMITS.
 */
static const struct bl_field_info fields[BL_F__MAX] = {
	[BL_F_CONTENT] = {"content", NULL, BL_FT_SIZE,
	    {0, BL_MAX_PLAINTEXT, 0}, BL_NULL_INVALID, BL_ERR_INVALID_CONTENT_SIZE},
	[BL_F_BODY] = {"body", NULL, BL_FT_SIZE,
	    {0, BL_MAX_BODY, 0}, BL_NULL_INVALID, BL_ERR_PAYLOAD_TOO_LARGE},
	[BL_F_TTL] = {"ttl", "ttl", BL_FT_INTEGER,
	    {BL_TTL_MIN, BL_TTL_MAX, BL_TTL_DEFAULT}, BL_NULL_DEFAULT, BL_ERR_INVALID_TTL,
	    {400, "INVALID_TTL",
	    "The ttl is invalid.",
	    "ttl must be a whole number of seconds from ${ttl.min} to ${ttl.max} (${ttl.min:time} to ${ttl.max:time})."}},
	[BL_F_MAX_VIEWS] = {"maxViews", "maxViews", BL_FT_INTEGER,
	    {BL_VIEWS_MIN, BL_VIEWS_MAX, BL_VIEWS_DEFAULT}, BL_NULL_UNLIMITED,
	    BL_ERR_INVALID_MAX_VIEWS,
	    {400, "INVALID_MAX_VIEWS",
	    "maxViews is invalid.",
	    "maxViews must be a whole number from ${maxViews.min} to ${maxViews.max}, or null for unlimited views until expiry."}},
	[BL_F_PASSPHRASE] = {"passphrase", "passphrase", BL_FT_STRING,
	    {BL_PASS_MIN, BL_PASS_MAX, 0}, BL_NULL_NONE, BL_ERR_INVALID_PASSPHRASE_FORMAT,
	    {400, "INVALID_PASSPHRASE_FORMAT",
	    "The passphrase is invalid.",
	    "passphrase must be a string of ${passphrase.min} to ${passphrase.max} characters without NUL."}},
	[BL_F_DELETABLE] = {"deletable", "deletable", BL_FT_BOOLEAN,
	    {0, 1, 1}, BL_NULL_DEFAULT, BL_ERR_INVALID_DELETABLE,
	    {400, "INVALID_DELETABLE",
	    "deletable is invalid.",
	    "deletable must be true or false."}},
	[BL_F_FILES] = {"files", "files", BL_FT_ARRAY,
	    {0, BL_MAX_FILES, 0}, BL_NULL_NONE, BL_ERR_INVALID_FILES},
	[BL_F_FILENAME] = {"filename", "filename", BL_FT_BYTES,
	    {1, BL_META_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_FILES},
	[BL_F_MIME_TYPE] = {"mimeType", "mimeType", BL_FT_BYTES,
	    {0, BL_META_MAX, 0}, BL_NULL_DEFAULT, BL_ERR_INVALID_FILES},
	[BL_F_SEALED_META] = {"sealedMeta", NULL, BL_FT_SIZE,
	    {0, BL_META_SEALED_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_CONTENT_SIZE},
	[BL_F_KEY_COMMITMENT] = {"keyCommitment", "keyCommitment", BL_FT_BYTES,
	    {BL_COMMIT_LEN, BL_COMMIT_LEN, 0}, BL_NULL_NONE, BL_ERR_INVALID_KEY_COMMITMENT,
	    {400, "INVALID_KEY_COMMITMENT",
	    "The keyCommitment is invalid.",
	    "keyCommitment must be ${keyCommitment.max} url-safe base64 characters without padding: HMAC-SHA-256 keyed with the 32-byte key over \"burnlink key commitment v1\" (docs/API.md), in client-side mode only; or leave it out."}},
	[BL_F_EMAIL] = {"email", "email", BL_FT_BYTES,
	    {3, BL_EMAIL_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_EMAIL,
	    {400, "INVALID_EMAIL",
	    "The e-mail address is invalid.",
	    "email must be an address such as name@example.org, at most ${email.max} bytes."}},
	[BL_F_PASSWORD] = {"password", "password", BL_FT_STRING,
	    {BL_PASSWORD_MIN, BL_PASSWORD_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_PASSWORD,
	    {400, "INVALID_PASSWORD",
	    "The password is invalid.",
	    "A password must be a string of ${password.min} to ${password.max} characters."}},
	[BL_F_KEY_NAME] = {"keyName", "name", BL_FT_BYTES,
	    {1, BL_NAME_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_NAME,
	    {400, "INVALID_NAME",
	    "The name is invalid.",
	    "name must be a string of ${keyName.min} to ${keyName.max} bytes without control characters."}},
	[BL_F_ATTEMPTS] = {"attempts", NULL, BL_FT_COUNT,
	    {0, BL_ATTEMPTS_PER_MIN, 0}, BL_NULL_INVALID, BL_ERR_TOO_MANY_ATTEMPTS},
	[BL_F_KEYS] = {"keys", NULL, BL_FT_COUNT,
	    {0, BL_KEYS_MAX, 0}, BL_NULL_INVALID, BL_ERR_KEY_LIMIT},
	[BL_F_SESSION_IDLE] = {"sessionIdle", NULL, BL_FT_SECONDS,
	    {0, BL_SESSION_IDLE, 0}, BL_NULL_INVALID, BL_ERR_NOT_SIGNED_IN},
	[BL_F_SESSION_MAX] = {"sessionMax", NULL, BL_FT_SECONDS,
	    {0, BL_SESSION_MAX, 0}, BL_NULL_INVALID, BL_ERR_NOT_SIGNED_IN},
	[BL_F_NOTE] = {"note", NULL, BL_FT_SIZE,
	    {0, BL_NOTE_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_NOTE,
	    {400, "INVALID_NOTE",
	    "The note is not a sealed item of the allowed size.",
	    "note must be {ciphertext, iv} under the request link's key with the public key as additional data, at most ${note.max} bytes of plaintext."}},
	[BL_F_ALLOW_FILES] = {"allowFiles", "allowFiles", BL_FT_BOOLEAN,
	    {0, 1, 1}, BL_NULL_DEFAULT, BL_ERR_INVALID_ALLOW_FILES,
	    {400, "INVALID_ALLOW_FILES",
	    "allowFiles is not a boolean.",
	    "allowFiles must be true, false or null (true: the answer may carry files)."}},
	[BL_F_NOTIFY] = {"notify", "notify", BL_FT_ARRAY,
	    {0, 2, 0}, BL_NULL_NONE, BL_ERR_INVALID_NOTIFY,
	    {400, "INVALID_NOTIFY",
	    "notify is invalid.",
	    "notify must be an array of \"email\" and/or \"webhook\", sent with an API key or while signed in (docs/NOTIFY.md)."}},
	[BL_F_WEBHOOK_URL] = {"webhookUrl", "url", BL_FT_BYTES,
	    {12, BL_WEBHOOK_URL_MAX, 0}, BL_NULL_INVALID, BL_ERR_INVALID_WEBHOOK},
	[BL_F_WEBHOOKS] = {"webhooks", NULL, BL_FT_COUNT,
	    {0, BL_WEBHOOKS_MAX, 0}, BL_NULL_INVALID, BL_ERR_WEBHOOK_LIMIT},
	[BL_F_NOTIFY_HOUR] = {"notifyHour", NULL, BL_FT_COUNT,
	    {0, BL_NOTIFY_HOUR, 0}, BL_NULL_INVALID, BL_ERR_RATE_LIMIT_EXCEEDED},
	[BL_F_WEBHOOK_EVENTS] = {"webhookEvents", "events", BL_FT_ARRAY,
	    {1, 4, 4}, BL_NULL_NONE, BL_ERR_INVALID_WEBHOOK},
	/* the operator's API (docs/API.md, "The operator's API") */
	[BL_F_ADMIN_PAGE] = {"adminPage", "limit", BL_FT_INTEGER,
	    {1, BL_ADMIN_PAGE_MAX, BL_ADMIN_PAGE_DEFAULT}, BL_NULL_DEFAULT, BL_ERR_INVALID_ADMIN_ACTION},
	[BL_F_ADMIN_QUERY] = {"adminQuery", "q", BL_FT_BYTES,
	    {0, BL_ADMIN_QUERY_MAX, 0}, BL_NULL_DEFAULT, BL_ERR_INVALID_ADMIN_ACTION},
	[BL_F_ADMIN_FRESH] = {"adminFresh", NULL, BL_FT_SECONDS,
	    {0, BL_ADMIN_FRESH, 0}, BL_NULL_INVALID, BL_ERR_REAUTH_REQUIRED},
};

/* The row of f (f must be a field). */
const struct bl_field_info *
bl_field_info(enum bl_field f)
{
	return (unsigned)f < BL_F__MAX ? &fields[f] : NULL;
}

/* Sets lim to the limits of docs/API.md. */
void
bl_limits_init(struct bl_limits *lim)
{
	size_t	 i;

	for (i = 0; i < BL_F__MAX; i++)
		lim->f[i] = fields[i].spec;
}

/*
 * Applies an instance's own bounds for f: they may only tighten docs/API.md's
 * (min not lower, max not higher, the default between them). 0 when applied,
 * -1 (and lim unchanged) otherwise.
 */
int
bl_limits_tighten(struct bl_limits *lim, enum bl_field f, const struct bl_bounds *b)
{
	const struct bl_bounds	*spec;

	if ((unsigned)f >= BL_F__MAX)
		return -1;
	spec = &fields[f].spec;
	if (b->min < spec->min || b->max > spec->max || b->min > b->max ||
	    b->dflt < b->min || b->dflt > b->max)
		return -1;
	lim->f[f] = *b;
	return 0;
}

/* Appends s to buf (of len) at *at; always NUL-terminated, truncated if it must. */
static void
put(char *buf, size_t len, size_t *at, const char *s)
{
	size_t	 n = strlen(s);

	if (*at + 1 >= len)
		return;
	if (n > len - *at - 1)
		n = len - *at - 1;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

/* "30 minutes", "2 hours", "90 days": seconds in the largest whole unit. */
static void
format_time(int64_t s, char *out, size_t len)
{
	static const struct { int64_t secs; const char *unit; } units[] = {
		{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"},
	};
	size_t	 i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++)
		if (s != 0 && s % units[i].secs == 0)
			break;
	s /= units[i].secs;
	snprintf(out, len, "%lld %s%s", (long long)s, units[i].unit, s == 1 ? "" : "s");
}

/* "2 MiB", "1 KiB", "100 bytes": bytes in the largest whole binary unit. */
static void
format_size(int64_t n, char *out, size_t len)
{
	if (n != 0 && n % (1024 * 1024) == 0)
		snprintf(out, len, "%lld MiB", (long long)(n / (1024 * 1024)));
	else if (n != 0 && n % 1024 == 0)
		snprintf(out, len, "%lld KiB", (long long)(n / 1024));
	else
		snprintf(out, len, "%lld bytes", (long long)n);
}

/*
 * Formats one reference "id.bound" or "id.bound:format" (bound: min, max or
 * default; format: time or size) into out; -1 when it names nothing.
 */
static int
format_ref(const struct bl_limits *lim, const char *ref, size_t reflen, char *out,
    size_t len)
{
	const char	*dot = memchr(ref, '.', reflen), *colon, *bound;
	size_t		 i, idlen, blen;
	int64_t		 v;

	if (dot == NULL)
		return -1;
	idlen = (size_t)(dot - ref);
	bound = dot + 1;
	colon = memchr(bound, ':', reflen - idlen - 1);
	blen = colon != NULL ? (size_t)(colon - bound) : reflen - idlen - 1;
	for (i = 0; i < BL_F__MAX; i++)
		if (strlen(fields[i].id) == idlen && memcmp(fields[i].id, ref, idlen) == 0)
			break;
	if (i == BL_F__MAX)
		return -1;
	if (blen == 3 && memcmp(bound, "min", 3) == 0)
		v = lim->f[i].min;
	else if (blen == 3 && memcmp(bound, "max", 3) == 0)
		v = lim->f[i].max;
	else if (blen == 7 && memcmp(bound, "default", 7) == 0)
		v = lim->f[i].dflt;
	else
		return -1;
	if (colon == NULL)
		snprintf(out, len, "%lld", (long long)v);
	else if ((size_t)(ref + reflen - colon) == 5 && memcmp(colon, ":time", 5) == 0)
		format_time(v, out, len);
	else if ((size_t)(ref + reflen - colon) == 5 && memcmp(colon, ":size", 5) == 0)
		format_size(v, out, len);
	else
		return -1;
	return 0;
}

/*
 * Writes tmpl into buf (of len, NUL-terminated, truncated if it must), each
 * ${id.bound} or ${id.bound:format} replaced by that bound of lim. A
 * reference that names nothing is copied as it is (the unit tests look for
 * them). Returns the length written.
 */
size_t
bl_hint_format(const struct bl_limits *lim, const char *tmpl, char *buf, size_t len)
{
	const char	*p = tmpl, *ref, *end;
	char		 one[2] = {0, 0}, val[64];
	size_t		 at = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	while (*p != '\0') {
		if (p[0] == '$' && p[1] == '{' && (end = strchr(p + 2, '}')) != NULL) {
			ref = p + 2;
			if (format_ref(lim, ref, (size_t)(end - ref), val, sizeof(val)) == 0) {
				put(buf, len, &at, val);
				p = end + 1;
				continue;
			}
		}
		one[0] = *p++;
		put(buf, len, &at, one);
	}
	return at;
}
