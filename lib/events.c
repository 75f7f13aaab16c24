/* events.c (layer: base): the kinds of event, one row each: the audit trail's, the metrics' and the docs' one list (docs/ADMIN.md, "Audit trail"). */
#include <string.h>

#include "internal.h"

/*
 * One row per kind: its name, what its object id names, and what it means
 * (docs/ADMIN.md's table says the same; tests/cgi/audit.test.mjs compares
 * them). The number of a kind (enum bl_event) is its slot of
 * burnlink_events_total: new kinds go at the end.
 */
static const struct bl_event_kind kinds[BL_EV__MAX] = {
	[BL_EV_NONE] = {NULL, NULL, NULL},
	[BL_EV_SECRET_CREATED] = {"secret.created", "secret", "a secret was created"},
	[BL_EV_SECRET_VIEWED] = {"secret.viewed", "secret",
	    "a secret was opened and has views left (detail: views_left=N, none when unlimited)"},
	[BL_EV_SECRET_BURNED] = {"secret.burned", "secret",
	    "a secret was burned (detail: by=receipt, recipient, dashboard or operator)"},
	[BL_EV_REQUEST_CREATED] = {"request.created", "request", "a secret request was created"},
	[BL_EV_REQUEST_ANSWERED] = {"request.answered", "request", "a secret request was answered"},
	[BL_EV_REQUEST_READ] = {"request.read", "request", "a secret request's answer was read"},
	[BL_EV_REQUEST_BURNED] = {"request.burned", "request", "a secret request was burned"},
	[BL_EV_SIGNED_IN] = {"account.signed_in", "account",
	    "an account signed in (detail: via=password or via=webserver)"},
	[BL_EV_SIGNIN_REFUSED] = {"account.signin_refused", "account",
	    "a sign-in was refused (outcome: refused or limited; detail: 2fa for its second factor)"},
	[BL_EV_SIGNED_OUT] = {"account.signed_out", "account", "an account signed out"},
	[BL_EV_SIGNED_UP] = {"account.created", "account", "an account was created"},
	[BL_EV_PASSWORD_CHANGED] = {"account.password_changed", "account",
	    "an account's password was changed or reset"},
	[BL_EV_KEY_CREATED] = {"apikey.created", "apikey", "an API key was created"},
	[BL_EV_KEY_REVOKED] = {"apikey.revoked", "apikey", "an API key was revoked"},
	[BL_EV_SECRET_EXHAUSTED] = {"secret.exhausted", "secret",
	    "a secret's last view was taken; its content is gone"},
	[BL_EV_SECRET_PASS_REFUSED] = {"secret.passphrase_refused", "secret",
	    "a view or burn of a secret gave a wrong or missing passphrase"},
	[BL_EV_SECRET_LIMITED] = {"secret.limited", "secret",
	    "a client reached the passphrase attempts of a secret (429)"},
	[BL_EV_SECRET_EXPIRED] = {"secret.expired", "secret",
	    "an active secret was found past its expiry (detail: by=cleanup when the cleanup found it)"},
	[BL_EV_SECRET_REMOVED] = {"secret.removed", "secret",
	    "the cleanup removed a secret's row (detail: the state it had)"},
	[BL_EV_REQUEST_REMOVED] = {"request.removed", "request",
	    "the cleanup removed a secret request past its expiry"},
	[BL_EV_EMAIL_CHANGED] = {"account.email_changed", "account",
	    "an account's e-mail address was set, changed or verified (detail: pending, "
	    "verified, or provider: the identity provider's; outcome refused: its address "
	    "is another account's)"},
	[BL_EV_TOTP_CHANGED] = {"account.2fa_changed", "account",
	    "an account's second factor was turned on, off or reset (detail: on or off)"},
	[BL_EV_ACCOUNT_DISABLED] = {"account.disabled", "account", "an account was disabled"},
	[BL_EV_KEY_USED] = {"apikey.used", "apikey", "an API key's first use in a UTC day"},
	[BL_EV_WEBHOOK_CREATED] = {"webhook.created", "webhook", "a webhook was added"},
	[BL_EV_WEBHOOK_DELETED] = {"webhook.deleted", "webhook", "a webhook was deleted"},
	[BL_EV_WEBHOOK_FAILING] = {"webhook.failing", "webhook",
	    "a webhook delivery failed (detail: the coarse reason, as the dashboard shows it)"},
	[BL_EV_ADMIN] = {"admin.command", "",
	    "a burnlink-admin command that changes something (detail: the command; actor: the operator)"},
};

int
bl_event_kinds(void)
{
	return BL_EV__MAX;
}

/* The row of kind, or NULL for none. */
const struct bl_event_kind *
bl_event_kind(int kind)
{
	return kind > 0 && kind < BL_EV__MAX ? &kinds[kind] : NULL;
}

/* The kind named name, or 0 (BL_EV_NONE). */
int
bl_event_find(const char *name)
{
	int	 i;

	for (i = 1; name != NULL && i < BL_EV__MAX; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return i;
	return BL_EV_NONE;
}
