/* error.c (layer: base): the error table (HTTP status, machine code, message, hint); the errors of states. */
#include "internal.h"

#define BL_STR_(x)	#x
#define BL_STR(x)	BL_STR_(x)

/*
 * A hint may name a limit as ${id.bound} or ${id.bound:format} (lib/fields.c,
 * bl_hint_format()): the number comes from the limits the request enforces,
 * never from the text here. The 400 of one field alone (INVALID_TTL ...) is
 * not here: its row is the field's, in lib/fields.c.
 */
static const struct bl_error_info errors[BL_ERR__MAX] = {
	[BL_OK] = {200, "OK", "OK", ""},
	[BL_ERR_INVALID_JSON] = {400, "INVALID_JSON",
	    "The request body is not a JSON object.",
	    "Send a JSON object, e.g. {\"text\": \"...\"}, with Content-Type: application/json."},
	[BL_ERR_INVALID_TEXT] = {400, "INVALID_TEXT",
	    "The text field is invalid.",
	    "text must be a string (server-side mode) or an object {ciphertext, iv} (client-side mode); send text or the legacy secret, not both."},
	[BL_ERR_INVALID_CONTENT] = {400, "INVALID_CONTENT",
	    "The secret has no content.",
	    "Send a non-empty text, or at least one file."},
	[BL_ERR_INVALID_CONTENT_SIZE] = {400, "INVALID_CONTENT_SIZE",
	    "The secret is too large.",
	    "Text and files together may hold at most ${content.max:size} (${content.max} bytes) of plaintext."},
	[BL_ERR_INVALID_FILES] = {400, "INVALID_FILES",
	    "The files field is invalid.",
	    "files must be an array of at most ${files.max} items, each {filename, mimeType, data}."},
	[BL_ERR_INVALID_CIPHERTEXT] = {400, "INVALID_CIPHERTEXT",
	    "A ciphertext is invalid.",
	    "ciphertext must be canonical standard base64 (with padding) of the AES-256-GCM output including its " BL_STR(BL_TAG_BYTES) "-byte tag."},
	[BL_ERR_INVALID_IV] = {400, "INVALID_IV",
	    "An IV is invalid.",
	    "iv must be canonical standard base64 of exactly " BL_STR(BL_IV_BYTES) " bytes."},
	[BL_ERR_INVALID_ENCRYPTION_MODE] = {400, "INVALID_ENCRYPTION_MODE",
	    "The request mixes encryption modes.",
	    "Send every item either as plaintext (server-side mode) or as {ciphertext, iv} (client-side mode), not both."},
	[BL_ERR_INVALID_API_KEY] = {401, "INVALID_API_KEY",
	    "The API key is invalid or revoked.",
	    "Send Authorization: Bearer bl_... with an active key, or no Authorization header to create anonymously."},
	[BL_ERR_INVALID_PASSPHRASE] = {403, "INVALID_PASSPHRASE",
	    "The passphrase is wrong.",
	    "This secret is protected by a passphrase: send {\"passphrase\": \"...\"}. No view was used."},
	[BL_ERR_DELETION_NOT_ALLOWED] = {403, "DELETION_NOT_ALLOWED",
	    "The sender does not allow this secret to be burned.",
	    "Only the sender can burn it, with the receipt link."},
	[BL_ERR_NOT_FOUND] = {404, "NOT_FOUND",
	    "No such secret.",
	    "Check the link; secrets are removed after they expire."},
	[BL_ERR_METHOD_NOT_ALLOWED] = {405, "METHOD_NOT_ALLOWED",
	    "Method not allowed.",
	    "See the Allow header for the methods this path accepts."},
	[BL_ERR_PAYLOAD_TOO_LARGE] = {413, "PAYLOAD_TOO_LARGE",
	    "The request body is too large.",
	    "The JSON body may be at most ${body.max:size} (${body.max} bytes)."},
	[BL_ERR_UNSUPPORTED_MEDIA_TYPE] = {415, "UNSUPPORTED_MEDIA_TYPE",
	    "The request body must be JSON.",
	    "Send the body as UTF-8 with Content-Type: application/json (a charset parameter, if any, utf-8)."},
	[BL_ERR_SECRET_EXPIRED] = {410, "SECRET_EXPIRED",
	    "This secret has expired.",
	    "Ask the sender for a new link."},
	[BL_ERR_SECRET_BURNED] = {410, "SECRET_BURNED",
	    "This secret was burned.",
	    "It was deleted on purpose; ask the sender for a new link."},
	[BL_ERR_MAX_VIEWS_REACHED] = {410, "MAX_VIEWS_REACHED",
	    "This secret has been viewed as many times as allowed.",
	    "Its content is gone; ask the sender for a new link."},
	[BL_ERR_RATE_LIMIT_EXCEEDED] = {429, "RATE_LIMIT_EXCEEDED",
	    "Too many requests.",
	    "Wait until the time in X-RateLimit-Reset (see Retry-After) and try again."},
	[BL_ERR_TOO_MANY_ATTEMPTS] = {429, "TOO_MANY_ATTEMPTS",
	    "Too many passphrase attempts.",
	    "At most ${attempts.max} attempts a minute are allowed for one secret; wait for the seconds in Retry-After."},
	[BL_ERR_INTERNAL] = {500, "INTERNAL_ERROR",
	    "Internal server error.",
	    "Try again later; if it persists, give the operator the requestId."},
	[BL_ERR_STORE_BUSY] = {503, "STORE_BUSY",
	    "The database is busy.",
	    "Nothing was changed; try again in a few seconds (see Retry-After)."},
	[BL_ERR_STORE_UNAVAILABLE] = {503, "STORE_UNAVAILABLE",
	    "The database cannot be opened or written.",
	    "Nothing was changed; the operator should check BURNLINK_DB, the data directory's permissions and free disk space."},
	[BL_ERR_RATE_LIMIT_UNAVAILABLE] = {503, "RATE_LIMIT_UNAVAILABLE",
	    "The rate limiter is unavailable, so the request was refused.",
	    "Nothing was changed; try again in a minute (see Retry-After)."},
	[BL_ERR_EXISTS] = {409, "ALREADY_EXISTS",
	    "The name is already taken.",
	    "Choose another name."},
	[BL_ERR_INVALID_CREDENTIALS] = {401, "INVALID_CREDENTIALS",
	    "The e-mail address or the password is wrong.",
	    "Check both and try again; attempts are limited per account and address."},
	[BL_ERR_NOT_SIGNED_IN] = {401, "NOT_SIGNED_IN",
	    "You are not signed in.",
	    "Sign in on the dashboard; sessions end after ${sessionIdle.max:time} without use and ${sessionMax.max:time} after sign-in."},
	[BL_ERR_CSRF_REJECTED] = {403, "CSRF_REJECTED",
	    "The request did not come from this site's pages.",
	    "Send the X-CSRF-Token header from GET /api/session, from a page of this site (same Origin)."},
	[BL_ERR_SIGNUP_CLOSED] = {403, "SIGNUP_CLOSED",
	    "Sign-up is closed on this server.",
	    "Ask the operator for an account (burnlink-admin account create)."},
	[BL_ERR_SIGNIN_OFF] = {403, "SIGNIN_METHOD_OFF",
	    "This way of signing in is switched off on this server.",
	    "GET /api/config says which sign-in methods are on (signIn)."},
	[BL_ERR_ACCOUNT_DISABLED] = {401, "ACCOUNT_DISABLED",
	    "This account is disabled.",
	    "The operator disabled this account: its sign-in, sessions and API keys are refused until they enable it again."},
	[BL_ERR_NOT_ADMIN] = {403, "NOT_ADMIN",
	    "This account is not an administrator.",
	    "The operator gives the admin role: burnlink-admin account admin NAME on, or an admin_groups group at web-server sign-in."},
	[BL_ERR_REAUTH_REQUIRED] = {401, "REAUTH_REQUIRED",
	    "This action needs your password again.",
	    "Send currentPassword, your password; a session the web server signed in must be at most ${adminFresh.max:time} old: sign in again."},
	[BL_ERR_ACCOUNT_NOT_FOUND] = {404, "NOT_FOUND",
	    "There is no such account.",
	    "Find the account's id with GET /api/admin/accounts?q=NAME."},
	[BL_ERR_INVALID_ADMIN_ACTION] = {400, "INVALID_ADMIN_ACTION",
	    "The request is not one this endpoint takes.",
	    "See docs/API.md, \"The operator's API\", for the fields and values of each /api/admin/ endpoint."},
	[BL_ERR_SIGNIN_REFUSED] = {403, "SIGNIN_REFUSED",
	    "The web server signed you in, but this site does not let you in.",
	    "Ask the operator of this site to let you in."},
	[BL_ERR_TOTP_REQUIRED] = {401, "TOTP_REQUIRED",
	    "This account signs in with a second factor.",
	    "Send the code of your authenticator app (or a recovery code) as code, with email and password."},
	[BL_ERR_INVALID_CODE] = {401, "INVALID_CODE",
	    "The code is wrong.",
	    "Send the current 6-digit code of your authenticator app, or an unused recovery code; attempts are limited as sign-ins are."},
	[BL_ERR_TOTP_ENABLED] = {409, "TOTP_ENABLED",
	    "The second factor is on already.",
	    "Turn it off first (DELETE /api/totp with a code) to enrol another authenticator."},
	[BL_ERR_TOTP_NOT_ENABLED] = {409, "TOTP_NOT_ENABLED",
	    "This account has no second factor.",
	    "Enrol one with POST /api/totp {\"password\": \"...\"}."},
	[BL_ERR_ACCOUNT_EXISTS] = {409, "ACCOUNT_EXISTS",
	    "An account with this e-mail address exists.",
	    "Sign in instead, or use another address."},
	[BL_ERR_KEY_NOT_FOUND] = {404, "NOT_FOUND",
	    "No such API key.",
	    "The key id is not one of your valid keys; list them with GET /api/keys."},
	[BL_ERR_KEY_LIMIT] = {409, "KEY_LIMIT_REACHED",
	    "This account has as many API keys as allowed.",
	    "Revoke a key you no longer use (at most ${keys.max} valid keys per account)."},
	[BL_ERR_CONFIG_INVALID] = {503, "CONFIG_INVALID",
	    "The server's configuration is invalid, so nothing is served.",
	    "Nothing was changed; the operator should read the error log (it names the file and what is wrong) and run burnlink-admin config check, or, without a shell, open /setup with the setup code (docs/ADMIN.md)."},
	[BL_ERR_UNHEALTHY] = {503, "UNHEALTHY",
	    "A health check failed.",
	    "checks names what failed; the operator should look at the error log and burnlink-admin health."},
	[BL_ERR_INVALID_PUBLIC_KEY] = {400, "INVALID_PUBLIC_KEY",
	    "The public key is not an uncompressed P-256 point.",
	    "publicKey and ephemeralKey are the 65-byte point 0x04 || X || Y as url-safe base64 without padding (87 characters)."},
	[BL_ERR_FILES_NOT_ALLOWED] = {400, "FILES_NOT_ALLOWED",
	    "This request does not accept files.",
	    "Send the answer as text only: the requester chose allowFiles false."},
	[BL_ERR_REQUEST_ANSWERED] = {409, "REQUEST_ANSWERED",
	    "This request has been answered already.",
	    "A request is answered once; ask the requester for a new request link if the answer was wrong."},
	[BL_ERR_REQUEST_WAITING] = {409, "REQUEST_WAITING",
	    "This request has no answer yet.",
	    "Wait for the sender to answer; GET /api/requests/<inboxKey> shows the state without using the answer."},
	[BL_ERR_ANSWER_READ] = {410, "ANSWER_READ",
	    "The answer to this request was read and deleted.",
	    "An answer is read once; make a new request to get the secret again."},
	[BL_ERR_REQUEST_EXPIRED] = {410, "REQUEST_EXPIRED",
	    "This request has expired.",
	    "Make a new request (ttl up to ${ttl.max:time})."},
	[BL_ERR_REQUEST_BURNED] = {410, "REQUEST_BURNED",
	    "This request was burned.",
	    "The requester or the sender burned it; make a new request."},
	[BL_ERR_INVALID_WEBHOOK] = {400, "INVALID_WEBHOOK",
	    "The webhook is invalid.",
	    "url must be an https:// URL of ${webhookUrl.min} to ${webhookUrl.max} bytes; events an array of \"secret.viewed\", \"secret.exhausted\", \"secret.burned\", \"secret.expired\"."},
	[BL_ERR_WEBHOOK_NOT_FOUND] = {404, "NOT_FOUND",
	    "No such webhook.",
	    "The webhook id is not one of yours; list them with GET /api/webhooks."},
	[BL_ERR_WEBHOOK_LIMIT] = {409, "WEBHOOK_LIMIT_REACHED",
	    "This account has as many webhooks as allowed.",
	    "Delete a webhook you no longer use (at most ${webhooks.max} per account)."},
	[BL_ERR_INVALID_TOKEN] = {400, "INVALID_TOKEN",
	    "The link is invalid or has expired.",
	    "Links from our e-mails work once, for one hour: ask for a new one."},
	[BL_ERR_REQUEST_NOT_FOUND] = {404, "NOT_FOUND",
	    "No such secret request.",
	    "Check the link; requests are removed once they expire, are burned or their answer is read."},
	[BL_ERR_ENDPOINT_NOT_FOUND] = {404, "NOT_FOUND",
	    "No such API endpoint.",
	    "The API's paths are listed in GET /api/openapi.yaml; none ends in a slash."},
	[BL_ERR_INVALID_QUERY] = {400, "INVALID_QUERY",
	    "A query parameter is unknown or not valid.",
	    "GET /api/my/events takes kind (an event kind, e.g. secret.viewed), cursor (the nextCursor of the page before) and limit (1 to 100), each at most once."},
	[BL_ERR_SCHEMA_TOO_NEW] = {503, "SCHEMA_TOO_NEW",
	    "The database was made by a newer release of burnlink, so nothing is served.",
	    "Nothing was changed; the operator should install that release again or restore the backup made before the upgrade (INSTALL section 12, Upgrades)."},
	[BL_ERR_SETUP_CLOSED] = {404, "SETUP_CLOSED",
	    "Setup is closed on this server.",
	    "Setup is open only while no account has the admin role and a file burnlink-setup, "
	    "at most 24 hours old, lies in the data directory beside the database "
	    "(docs/ADMIN.md, \"Setting up without a shell\"); upload a new one to open it."},
	[BL_ERR_INVALID_SETUP_CODE] = {403, "INVALID_SETUP_CODE",
	    "The setup code is wrong.",
	    "Send the first line of the file burnlink-setup in the data directory as code; "
	    "after 5 wrong codes the file is deleted and a new one must be uploaded."},
};

/*
 * Returns the table entry for e: its row here, or, for the error of one
 * field alone, that field's row of lib/fields.c (INTERNAL_ERROR for anything
 * out of range).
 */
const struct bl_error_info *
bl_error_info(enum bl_err e)
{
	const struct bl_field_info	*fi;
	int				 f;

	if ((unsigned)e >= BL_ERR__MAX)
		return &errors[BL_ERR_INTERNAL];
	if (errors[e].code != NULL)
		return &errors[e];
	for (f = 0; f < BL_F__MAX; f++)
		if ((fi = bl_field_info((enum bl_field)f)) != NULL && fi->err == e &&
		    fi->error.code != NULL)
			return &fi->error;
	return &errors[BL_ERR_INTERNAL];
}

/* The error of a state that is not active (BL_OK for an active one). */
enum bl_err
bl_state_err(enum bl_state st)
{
	switch (st) {
	case BL_ST_EXPIRED:
		return BL_ERR_SECRET_EXPIRED;
	case BL_ST_BURNED:
		return BL_ERR_SECRET_BURNED;
	case BL_ST_EXHAUSTED:
		return BL_ERR_MAX_VIEWS_REACHED;
	default:
		return BL_OK;
	}
}

/* The name of a state as the API shows it. */
const char *
bl_state_name(enum bl_state st)
{
	static const char *const names[] = {"active", "expired", "burned", "exhausted"};

	return (unsigned)st < 4 ? names[st] : "unknown";
}

/* The hint of e with the limits of lim in it, written to buf; returns buf. */
const char *
bl_error_hint(enum bl_err e, const struct bl_limits *lim, char *buf, size_t len)
{
	struct bl_limits	 spec;

	if (lim == NULL) {
		bl_limits_init(&spec);
		lim = &spec;
	}
	bl_hint_format(lim, bl_error_info(e)->hint, buf, len);
	return buf;
}
