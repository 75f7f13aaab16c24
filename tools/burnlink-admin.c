/* burnlink-admin: accounts, API keys and rate-limit counters, for operators without a dashboard. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "burnlink.h"

/* Exit codes. */
#define EX_OK		0
#define EX_FAIL		1	/* the database or the limiter could not be used */
#define EX_USAGE	2	/* bad command line */
#define EX_NOTFOUND	3	/* no such account or key */
#define EX_EXISTS	4	/* the account name is taken */

static const char usage_text[] =
"usage: burnlink-admin [--db PATH] [--json] COMMAND [ARGUMENTS]\n"
"\n"
"Accounts and API keys:\n"
"  account create NAME            create an account (NAME: 1-128 bytes, e.g. an e-mail)\n"
"  account list                   list accounts with their keys and secrets\n"
"  account show ACCOUNT           one account and its usage (same as: usage ACCOUNT)\n"
"  account password ACCOUNT       set the dashboard sign-in password (8-256 characters,\n"
"                                 one line on standard input); ends the account's sessions\n"
"  account email ACCOUNT ADDRESS  set the account's e-mail address, verified (mail\n"
"                                 receipts and password resets go to it)\n"
"  account 2fa-reset ACCOUNT      remove the account's second factor and recovery codes\n"
"  account admin ACCOUNT on|off   give or take the admin role (the page /admin)\n"
"  account disable ACCOUNT        refuse the account's sign-in, sessions and API keys\n"
"  account enable ACCOUNT         let a disabled account in again\n"
"  usage ACCOUNT                  secrets stored and creation counts in the current windows\n"
"  key issue ACCOUNT [--label T]  issue an API key; it is printed once, only its SHA-256 is kept\n"
"  key list [ACCOUNT]             list keys (prefix, label, created, last used, revoked)\n"
"  key revoke KEY                 revoke a key, given by its id or the whole key (bl_...)\n"
"\n"
"Rate-limit counters (the current UTC window):\n"
"  limits show --ip ADDR                      requests of an address today, per operation\n"
"  limits show --account ACCOUNT              the account's creation windows\n"
"  limits set --ip ADDR --op OP --count N     OP: create, metadata, retrieve, burn,\n"
"                                             create-48 (IPv6: its /48) or all\n"
"  limits set --account ACCOUNT --window W --count N\n"
"                                             W: key-hour, hour (signed-in), day (signed-in)\n"
"                                             or notify-hour (notifications tried)\n"
"  limits reset --ip ADDR | --account ACCOUNT  clear the current windows (unblock)\n"
"\n"
"Audit trail (docs/ADMIN.md, \"Audit trail\"; newest first):\n"
"  audit [--since T] [--until T] [--account ACCOUNT] [--kind KIND] [--receipt RCP]\n"
"        [--limit N] [--format ndjson|csv|table]\n"
"                                 the events (T: ISO 8601, e.g. 2026-11-27 or\n"
"                                 2026-11-27T10:00:00Z, or a time ago: 30m, 12h, 7d;\n"
"                                 --limit 1-1000000, default 1000; default format table)\n"
"  audit kinds                    the kinds of event, with what each means\n"
"\n"
"The instance:\n"
"  config check [FILE]            check the settings file (default: BURNLINK_CONFIG, else\n"
"                                 burnlink.conf beside the database); names file and line\n"
"  config show                    the limits and choices in force (as GET /api/config)\n"
"  health                         database, counters, settings, files, last cleanup, routes,\n"
"                                 kind of host (as GET /api/health)\n"
"  routes check [FILE...]         whether the web server's configuration files were made\n"
"                                 for these programs' routes (default: this tree's\n"
"                                 htdocs/.htaccess and etc/ configurations); 1 when one was\n"
"                                 made for other programs or does not say (after an upgrade)\n"
"\n"
"ACCOUNT is an account id or name. The database is BURNLINK_DB (or --db PATH), the\n"
"install secret BURNLINK_SECRET_FILE, as for the web programs; run as root, the\n"
"command becomes the owner of the database first. --json prints JSON on stdout.\n"
"\n"
"Exit status: 0 done, 1 the database or the limiter failed (or a health check, or\n"
"the settings file is invalid), 2 usage error, 3 no such account or key, 4 the\n"
"account name is taken.\n";

static int	 json_out;

static int	 usage_error(const char *, ...) __attribute__((format(printf, 1, 2)));

/* Prints a usage error and returns EX_USAGE. */
static int
usage_error(const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "burnlink-admin: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun burnlink-admin --help for the commands.\n");
	return EX_USAGE;
}

/* Maps a library error to a message on stderr and an exit status. */
static int
failed(enum bl_err e, const char *what)
{
	switch (e) {
	case BL_ERR_NOT_FOUND:
		fprintf(stderr, "burnlink-admin: %s: not found\n", what);
		return EX_NOTFOUND;
	case BL_ERR_EXISTS:
		fprintf(stderr, "burnlink-admin: %s: an account with this name exists\n", what);
		return EX_EXISTS;
	case BL_ERR_INVALID_TEXT:
		fprintf(stderr, "burnlink-admin: %s: names and labels are at most %d bytes of "
		    "UTF-8 without control characters (a name is not empty)\n", what, BL_NAME_MAX);
		return EX_USAGE;
	default:
		fprintf(stderr, "burnlink-admin: %s: %s (%s)\n", what,
		    bl_error_info(e)->message, bl_error_info(e)->code);
		return EX_FAIL;
	}
}

static const char *
when(int64_t ms, char buf[64])
{
	return ms < 0 ? "-" : bl_iso8601(ms, buf);
}

static json_object *
jtime(int64_t ms)
{
	char	 buf[64];

	return ms < 0 ? NULL : json_object_new_string(bl_iso8601(ms, buf));
}

static void
print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static json_object *
account_json(const struct bl_account *a)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(a->id));
	json_object_object_add(o, "name", json_object_new_string(a->name));
	json_object_object_add(o, "createdAt", jtime(a->created_ms));
	json_object_object_add(o, "activeKeys", json_object_new_int64(a->keys_active));
	json_object_object_add(o, "secrets", json_object_new_int64(a->secrets));
	json_object_object_add(o, "activeSecrets", json_object_new_int64(a->secrets_active));
	json_object_object_add(o, "admin", json_object_new_boolean(a->admin != BL_ADMIN_NONE));
	json_object_object_add(o, "disabledAt", a->disabled_ms >= 0 ? jtime(a->disabled_ms) : NULL);
	return o;
}

static json_object *
key_json(const struct bl_api_key *k)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(k->id));
	json_object_object_add(o, "accountId", json_object_new_int64(k->account_id));
	json_object_object_add(o, "prefix", json_object_new_string(k->prefix));
	json_object_object_add(o, "label", json_object_new_string(k->label));
	json_object_object_add(o, "createdAt", jtime(k->created_ms));
	json_object_object_add(o, "lastUsedAt", jtime(k->last_used_ms));
	json_object_object_add(o, "revokedAt", jtime(k->revoked_ms));
	return o;
}

static int
list_account(void *arg, const struct bl_account *a)
{
	char	 t[64];

	if (arg != NULL) {
		json_object_array_add(arg, account_json(a));
		return 0;
	}
	printf("%-6lld %-32s %-24s %5lld %8lld %8lld\n", (long long)a->id, a->name,
	    when(a->created_ms, t), (long long)a->keys_active, (long long)a->secrets,
	    (long long)a->secrets_active);
	return 0;
}

static int
list_key(void *arg, const struct bl_api_key *k)
{
	char	 t1[64], t2[64], t3[64];

	if (arg != NULL) {
		json_object_array_add(arg, key_json(k));
		return 0;
	}
	printf("%-6lld %-8lld %-14s %-24s %-24s %-24s %s\n", (long long)k->id,
	    (long long)k->account_id, k->prefix, when(k->created_ms, t1),
	    when(k->last_used_ms, t2), when(k->revoked_ms, t3),
	    k->label[0] != '\0' ? k->label : "-");
	return 0;
}

/* The account's three creation windows, for usage and limits show. */
static const struct {
	enum bl_limit	 lim;
	const char	*window;	/* the name limits set --window takes */
	const char	*what;
} account_windows[] = {
	{BL_LIM_KEY_HOUR, "key-hour", "API keys, this hour"},
	{BL_LIM_SESSION_HOUR, "hour", "signed-in, this hour"},
	{BL_LIM_SESSION_DAY, "day", "signed-in, today"},
	{BL_LIM_NOTIFY_HOUR, "notify-hour", "notifications tried, this hour"},
};
#define N_ACCOUNT_WINDOWS (sizeof(account_windows) / sizeof(account_windows[0]))


static json_object *
usage_json(const char *name, const struct bl_usage *u)
{
	json_object	*o = json_object_new_object();
	char		 t[64];

	json_object_object_add(o, "window", json_object_new_string(name));
	json_object_object_add(o, "limit", json_object_new_int64(u->limit));
	json_object_object_add(o, "count", json_object_new_int64(u->count));
	json_object_object_add(o, "remaining", json_object_new_int64(
	    u->count >= u->limit ? 0 : u->limit - u->count));
	json_object_object_add(o, "reset", json_object_new_int64(u->reset));
	json_object_object_add(o, "resetAt", json_object_new_string(bl_iso8601(u->reset * 1000, t)));
	return o;
}

static void
usage_line(const char *what, const struct bl_usage *u)
{
	char	 t[64];

	printf("  %-22s %6lld of %-5lld used, resets %s\n", what, (long long)u->count,
	    (long long)u->limit, bl_iso8601(u->reset * 1000, t));
}

/* The counters of an account's creation windows; json gets them if not NULL. */
static int
account_windows_show(struct bl_ctx *c, const struct bl_account *a, json_object *arr)
{
	struct bl_usage	 u;
	char		 id[24];
	size_t		 i;
	enum bl_err	 e;

	snprintf(id, sizeof(id), "%lld", (long long)a->id);
	for (i = 0; i < N_ACCOUNT_WINDOWS; i++) {
		if ((e = bl_limit_usage(c, account_windows[i].lim, id, strlen(id), &u)) != BL_OK)
			return failed(e, "rate-limit counters");
		if (arr != NULL)
			json_object_array_add(arr, usage_json(account_windows[i].window, &u));
		else
			usage_line(account_windows[i].what, &u);
	}
	return EX_OK;
}

static int
cmd_account_show(struct bl_ctx *c, const char *which)
{
	struct bl_account	 a;
	json_object		*o = NULL, *w = NULL;
	enum bl_err		 e;
	char			 t[64];
	int			 rc;

	if ((e = bl_account_find(c, which, &a)) != BL_OK)
		return failed(e, which);
	if (json_out) {
		o = account_json(&a);
		w = json_object_new_array();
		json_object_object_add(o, "windows", w);
	} else {
		printf("account %lld: %s\n", (long long)a.id, a.name);
		printf("  created                %s\n", when(a.created_ms, t));
		printf("  admin role             %s\n", a.admin == BL_ADMIN_OPERATOR ? "yes" :
		    a.admin == BL_ADMIN_GROUP ? "yes (admin_groups)" : "no");
		if (a.disabled_ms >= 0)
			printf("  disabled               %s\n", when(a.disabled_ms, t));
		printf("  active API keys        %lld\n", (long long)a.keys_active);
		printf("  secrets stored         %lld (%lld active)\n", (long long)a.secrets,
		    (long long)a.secrets_active);
		printf("creation counts:\n");
	}
	rc = account_windows_show(c, &a, w);
	if (o != NULL) {
		if (rc == EX_OK)
			print_json(o);
		else
			json_object_put(o);
	}
	return rc;
}

/*
 * Sets an account's sign-in password from one line of standard input (not
 * echoed on a terminal), which ends the account's browser sessions.
 */
static int
cmd_account_password(struct bl_ctx *c, const char *which)
{
	struct bl_account	 a;
	struct termios		 t, quiet;
	char			*line = NULL;
	size_t			 cap = 0, len;
	ssize_t			 n;
	int			 tty = isatty(STDIN_FILENO), echo_off = 0, rc;
	enum bl_err		 e;

	if ((e = bl_account_find(c, which, &a)) != BL_OK)
		return failed(e, which);
	if (tty) {
		fprintf(stderr, "New password for %s: ", a.name);
		if (tcgetattr(STDIN_FILENO, &t) == 0) {
			quiet = t;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			echo_off = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
		}
	}
	n = getline(&line, &cap, stdin);
	if (echo_off) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t);
		fputc('\n', stderr);
	}
	len = n > 0 ? (size_t)n : 0;
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	e = n > 0 ? bl_account_set_password(c, a.id, line, len) : BL_ERR_INVALID_PASSWORD;
	if (line != NULL)
		bl_free_wipe(line, cap);
	if (e == BL_ERR_INVALID_PASSWORD)
		rc = usage_error("account password: the password must be one line of %d to %d "
		    "characters on standard input", BL_PASSWORD_MIN, BL_PASSWORD_MAX);
	else if (e != BL_OK)
		rc = failed(e, which);
	else {
		if (json_out)
			print_json(account_json(&a));
		else
			printf("password set for account %lld: %s\n", (long long)a.id, a.name);
		rc = EX_OK;
	}
	return rc;
}

/*
 * Sets an account's e-mail address, verified: an account made here has none,
 * so no mail receipt or password reset reaches it until one is set
 * (docs/ADMIN.md).
 */
static int
cmd_account_email(struct bl_ctx *c, const char *which, const char *address)
{
	struct bl_account	 a;
	enum bl_err		 e;

	if ((e = bl_account_find(c, which, &a)) != BL_OK)
		return failed(e, which);
	if ((e = bl_account_set_email(c, a.id, address)) == BL_ERR_INVALID_EMAIL)
		return usage_error("account email: ADDRESS is not an e-mail address (3-254 bytes, "
		    "one @, no white space or control characters)");
	if (e != BL_OK)
		return failed(e, which);
	if (json_out)
		print_json(account_json(&a));
	else
		printf("e-mail address set, verified, for account %lld: %s\n", (long long)a.id,
		    a.name);
	return EX_OK;
}

/*
 * account admin ACCOUNT on|off (which 0) and account disable|enable ACCOUNT
 * (which 1): the admin role, or whether the account may come in (docs/ADMIN.md).
 */
static int
cmd_account_flag(struct bl_ctx *c, const char *which, int disable, int on)
{
	static const char *const said[2][2] = {
		{"admin role taken from", "admin role given to"},
		{"enabled", "disabled"},
	};
	struct bl_account	 a;
	enum bl_err		 e;

	if ((e = bl_account_find(c, which, &a)) != BL_OK)
		return failed(e, which);
	e = disable ? bl_account_set_disabled(c, a.id, on) :
	    bl_account_set_admin(c, a.id, on ? BL_ADMIN_OPERATOR : BL_ADMIN_NONE);
	if (e != BL_OK || (e = bl_account_find(c, which, &a)) != BL_OK)
		return failed(e, which);
	if (json_out)
		print_json(account_json(&a));
	else
		printf("%s account %lld: %s\n", said[disable][on], (long long)a.id, a.name);
	return EX_OK;
}

static int
cmd_account(struct bl_ctx *c, int argc, char **argv)
{
	struct bl_account	 a;
	json_object		*arr = NULL;
	enum bl_err		 e;

	if (argc < 1)
		return usage_error("account: expected create, list, show, password, email, 2fa-reset, "
		    "admin, disable or enable");
	if (strcmp(argv[0], "create") == 0) {
		if (argc != 2)
			return usage_error("account create: expected one NAME");
		if ((e = bl_account_create(c, argv[1], &a)) != BL_OK)
			return failed(e, argv[1]);
		if (json_out)
			print_json(account_json(&a));
		else
			printf("created account %lld: %s\n", (long long)a.id, a.name);
		return EX_OK;
	}
	if (strcmp(argv[0], "list") == 0) {
		if (argc != 1)
			return usage_error("account list: no arguments expected");
		if (json_out)
			arr = json_object_new_array();
		else
			printf("%-6s %-32s %-24s %5s %8s %8s\n", "ID", "NAME", "CREATED", "KEYS",
			    "SECRETS", "ACTIVE");
		if ((e = bl_account_list(c, list_account, arr)) != BL_OK) {
			json_object_put(arr);
			return failed(e, "accounts");
		}
		if (arr != NULL)
			print_json(arr);
		return EX_OK;
	}
	if (strcmp(argv[0], "show") == 0) {
		if (argc != 2)
			return usage_error("account show: expected one ACCOUNT");
		return cmd_account_show(c, argv[1]);
	}
	if (strcmp(argv[0], "2fa-reset") == 0) {
		if (argc != 2)
			return usage_error("account 2fa-reset: expected one ACCOUNT");
		if ((e = bl_account_find(c, argv[1], &a)) != BL_OK)
			return failed(e, argv[1]);
		if ((e = bl_account_totp_reset(c, a.id)) != BL_OK)
			return failed(e, argv[1]);
		if (json_out)
			print_json(account_json(&a));
		else
			printf("second factor removed for account %lld: %s\n", (long long)a.id, a.name);
		return EX_OK;
	}
	if (strcmp(argv[0], "admin") == 0) {
		if (argc != 3 || (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0))
			return usage_error("account admin: expected ACCOUNT and on or off");
		return cmd_account_flag(c, argv[1], 0, strcmp(argv[2], "on") == 0);
	}
	if (strcmp(argv[0], "disable") == 0 || strcmp(argv[0], "enable") == 0) {
		if (argc != 2)
			return usage_error("account %s: expected one ACCOUNT", argv[0]);
		return cmd_account_flag(c, argv[1], 1, strcmp(argv[0], "disable") == 0);
	}
	if (strcmp(argv[0], "password") == 0) {
		if (argc != 2)
			return usage_error("account password: expected one ACCOUNT (the password "
			    "is read from standard input)");
		return cmd_account_password(c, argv[1]);
	}
	if (strcmp(argv[0], "email") == 0) {
		if (argc != 3)
			return usage_error("account email: expected ACCOUNT and ADDRESS");
		return cmd_account_email(c, argv[1], argv[2]);
	}
	return usage_error("account: unknown subcommand \"%s\"", argv[0]);
}

static int
cmd_key(struct bl_ctx *c, int argc, char **argv)
{
	struct bl_account	 a;
	struct bl_api_key	 k;
	char			 key[BL_API_KEY_LEN + 1], t[64];
	const char		*label = "";
	json_object		*arr = NULL, *o;
	enum bl_err		 e;
	int			 i;

	if (argc < 1)
		return usage_error("key: expected issue, list or revoke");
	if (strcmp(argv[0], "issue") == 0) {
		const char *acct = NULL;
		for (i = 1; i < argc; i++) {
			if (strcmp(argv[i], "--label") == 0 && i + 1 < argc)
				label = argv[++i];
			else if (argv[i][0] == '-')
				return usage_error("key issue: unknown option %s", argv[i]);
			else if (acct == NULL)
				acct = argv[i];
			else
				return usage_error("key issue: unexpected argument %s", argv[i]);
		}
		if (acct == NULL)
			return usage_error("key issue: expected ACCOUNT");
		if ((e = bl_account_find(c, acct, &a)) != BL_OK)
			return failed(e, acct);
		if ((e = bl_key_issue(c, a.id, label, key, &k)) != BL_OK)
			return failed(e, "key issue");
		if (json_out) {
			o = key_json(&k);
			json_object_object_add(o, "key", json_object_new_string(key));
			print_json(o);
		} else {
			printf("%s\n", key);
			fflush(stdout);
			fprintf(stderr, "Issued API key %lld (%s...) for account %lld (%s).\n"
			    "It is shown only this once: only its SHA-256 is kept. Send it as\n"
			    "Authorization: Bearer <key>; revoke it with: burnlink-admin key revoke %lld\n",
			    (long long)k.id, k.prefix, (long long)a.id, a.name, (long long)k.id);
		}
		bl_wipe(key, sizeof(key));
		return EX_OK;
	}
	if (strcmp(argv[0], "list") == 0) {
		int64_t id = 0;
		if (argc > 2)
			return usage_error("key list: at most one ACCOUNT");
		if (argc == 2) {
			if ((e = bl_account_find(c, argv[1], &a)) != BL_OK)
				return failed(e, argv[1]);
			id = a.id;
		}
		if (json_out)
			arr = json_object_new_array();
		else
			printf("%-6s %-8s %-14s %-24s %-24s %-24s %s\n", "ID", "ACCOUNT",
			    "PREFIX", "CREATED", "LAST USED", "REVOKED", "LABEL");
		if ((e = bl_key_list(c, id, list_key, arr)) != BL_OK) {
			json_object_put(arr);
			return failed(e, "keys");
		}
		if (arr != NULL)
			print_json(arr);
		return EX_OK;
	}
	if (strcmp(argv[0], "revoke") == 0) {
		if (argc != 2)
			return usage_error("key revoke: expected one KEY (id or bl_...)");
		if ((e = bl_key_find(c, argv[1], &k)) != BL_OK)
			return failed(e, argv[1][0] == 'b' ? "that key" : argv[1]);
		if (k.revoked_ms >= 0) {
			if (json_out)
				print_json(key_json(&k));
			else
				printf("key %lld (%s...) was already revoked at %s\n",
				    (long long)k.id, k.prefix, when(k.revoked_ms, t));
			return EX_OK;
		}
		if ((e = bl_key_revoke(c, k.id)) != BL_OK)
			return failed(e, "key revoke");
		if ((e = bl_key_find(c, argv[1], &k)) != BL_OK)
			return failed(e, "key revoke");
		if (json_out)
			print_json(key_json(&k));
		else
			printf("revoked key %lld (%s...) of account %lld\n", (long long)k.id,
			    k.prefix, (long long)k.account_id);
		return EX_OK;
	}
	return usage_error("key: unknown subcommand \"%s\"", argv[0]);
}

/* Parses a count for limits set: 0 to 10^9. */
static int
parse_count(const char *s, int64_t *out)
{
	int64_t	 v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v > 1000000000)
		return -1;
	*out = v;
	return 0;
}

/* One counter of limits --ip: a JSON item of arg (an array), else a line. */
static int
client_usage(void *arg, const char *op, const struct bl_usage *u)
{
	if (arg != NULL)
		json_object_array_add(arg, usage_json(op, u));
	else
		usage_line(op, u);
	return 0;
}

static int
cmd_limits(struct bl_ctx *c, int argc, char **argv)
{
	const char		*ip = NULL, *acct = NULL, *op = NULL, *win = NULL, *cnt = NULL;
	char			 canon[BL_IP_TEXT], id[24];
	struct bl_account	 a;
	json_object		*o = NULL, *arr = NULL;
	int64_t			 count = 0;
	enum bl_err		 e;
	int			 i, set, reset, done = 0;
	size_t			 j;

	if (argc < 1)
		return usage_error("limits: expected show, set or reset");
	set = strcmp(argv[0], "set") == 0;
	reset = strcmp(argv[0], "reset") == 0;
	if (!set && !reset && strcmp(argv[0], "show") != 0)
		return usage_error("limits: unknown subcommand \"%s\"", argv[0]);
	for (i = 1; i < argc; i++) {
		const char **slot = NULL;
		if (strcmp(argv[i], "--ip") == 0)
			slot = &ip;
		else if (strcmp(argv[i], "--account") == 0)
			slot = &acct;
		else if (strcmp(argv[i], "--op") == 0 && set)
			slot = &op;
		else if (strcmp(argv[i], "--window") == 0 && set)
			slot = &win;
		else if (strcmp(argv[i], "--count") == 0 && set)
			slot = &cnt;
		if (slot == NULL || i + 1 >= argc)
			return usage_error("limits: unexpected argument %s", argv[i]);
		*slot = argv[++i];
	}
	if ((ip == NULL) == (acct == NULL))
		return usage_error("limits: give either --ip ADDR or --account ACCOUNT");
	if (set && (cnt == NULL || parse_count(cnt, &count) != 0))
		return usage_error("limits set: --count N is required, N from 0 to 1000000000");
	if (ip != NULL) {
		if (bl_ip_canon(ip, canon) != 0)
			return usage_error("limits: \"%s\" is not an IPv4 or IPv6 address", ip);
		if (set && (op == NULL || win != NULL))
			return usage_error("limits set --ip: --op create|metadata|retrieve|burn|create-48|all is required");
		if (json_out) {
			o = json_object_new_object();
			json_object_object_add(o, "client", json_object_new_string(canon));
			json_object_object_add(o, "windows", arr = json_object_new_array());
		} else
			printf("client %s (IPv6 is counted per /64), requests today:\n", canon);
		if ((e = bl_client_limits(c, canon, op, set || reset ? BL_CLIENT_SET : BL_CLIENT_SHOW,
		    reset ? 0 : count, client_usage, arr, &done)) != BL_OK)
			goto fail;
		if (done == 0) {
			json_object_put(o);
			return usage_error("limits set: unknown --op %s", op);
		}
		if (o != NULL)
			print_json(o);
		return EX_OK;
	}
	if (set && (win == NULL || op != NULL))
		return usage_error("limits set --account: --window key-hour|hour|day|notify-hour is required");
	if ((e = bl_account_find(c, acct, &a)) != BL_OK)
		return failed(e, acct);
	snprintf(id, sizeof(id), "%lld", (long long)a.id);
	for (j = 0; j < N_ACCOUNT_WINDOWS; j++) {
		if (!set && !reset)
			break;
		if (set && strcmp(win, account_windows[j].window) != 0)
			continue;
		done++;
		if ((e = bl_limit_set(c, account_windows[j].lim, id, strlen(id),
		    reset ? 0 : count)) != BL_OK)
			goto fail;
	}
	if (set && done == 0)
		return usage_error("limits set: unknown --window %s (key-hour, hour, day or notify-hour)", win);
	if (json_out) {
		o = json_object_new_object();
		json_object_object_add(o, "accountId", json_object_new_int64(a.id));
		json_object_object_add(o, "windows", arr = json_object_new_array());
	} else
		printf("account %lld (%s), creation counts:\n", (long long)a.id, a.name);
	if (account_windows_show(c, &a, arr) != EX_OK) {
		json_object_put(o);
		return EX_FAIL;
	}
	if (o != NULL)
		print_json(o);
	return EX_OK;
fail:
	json_object_put(o);
	return failed(e, "rate-limit counters");
}

/* config check | config show: the settings file, checked or in force. */
static int
cmd_config(struct bl_ctx *c, int argc, char **argv)
{
	const struct bl_policy	*pol = &c->cfg.policy;
	json_object		*o;

	if (argc != 1 || (strcmp(argv[0], "check") != 0 && strcmp(argv[0], "show") != 0))
		return usage_error("usage: config check [FILE] | config show");
	if (pol->err[0] != '\0') {
		fprintf(stderr, "burnlink-admin: %s\n", pol->err);
		/* the same check POST /api/setup answers (docs/ADMIN.md) */
		if (json_out && strcmp(argv[0], "check") == 0 &&
		    (o = bl_settings_check_json(&c->cfg)) != NULL)
			print_json(o);
		return EX_FAIL;
	}
	if (strcmp(argv[0], "show") == 0) {
		if ((o = bl_config_json(&c->cfg)) == NULL)
			return failed(BL_ERR_INTERNAL, "config show");
		print_json(o);
	} else if (json_out) {
		if ((o = bl_settings_check_json(&c->cfg)) == NULL)
			return failed(BL_ERR_INTERNAL, "config check");
		print_json(o);
	} else if (pol->loaded)
		printf("%s: ok\n", c->cfg.settings_path);
	else
		printf("%s: no such file: docs/API.md's limits apply\n", c->cfg.settings_path);
	return EX_OK;
}

/* health: what GET /api/health checks, its count taken as "burnlink-admin". */
/* One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
static void
csv_field(const char *v, int last)
{
	if (strpbrk(v, ",\"\r\n") != NULL) {
		putchar('"');
		for (; *v != '\0'; v++) {
			if (*v == '"')
				putchar('"');
			putchar(*v);
		}
		putchar('"');
	} else
		fputs(v, stdout);
	putchar(last ? '\n' : ',');
}

enum audit_format { AF_TABLE, AF_NDJSON, AF_CSV };

struct audit_out {
	enum audit_format	 format;
	int64_t			 left;		/* events still to print */
	int64_t			 last_id;	/* the cursor of the next page */
	int64_t			 n;
};

/* bl_audit_list()'s callback: one event, in the chosen format. */
static int
audit_row(void *arg, const struct bl_audit_event *ev)
{
	struct audit_out	*o = arg;
	json_object		*j;
	char			 t[64], a[24] = "", k[24] = "", ow[24] = "", ob[24] = "", id[24];

	o->last_id = ev->id;
	o->n++;
	if (o->left-- <= 0)
		return 1;
	if (o->format == AF_NDJSON) {
		if ((j = bl_audit_json(ev)) == NULL)
			return -1;
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
		return 0;
	}
	snprintf(id, sizeof(id), "%lld", (long long)ev->id);
	if (ev->account_id > 0)
		snprintf(a, sizeof(a), "%lld", (long long)ev->account_id);
	if (ev->api_key_id > 0)
		snprintf(k, sizeof(k), "%lld", (long long)ev->api_key_id);
	if (ev->owner_id > 0)
		snprintf(ow, sizeof(ow), "%lld", (long long)ev->owner_id);
	if (ev->object_id > 0)
		snprintf(ob, sizeof(ob), "%lld", (long long)ev->object_id);
	bl_iso8601(ev->at_ms, t);
	if (o->format == AF_CSV) {
		const char	*f[] = { id, t, ev->kind, a, k, ev->operator_name, ev->client, ow,
				    ob, ev->receipt_id, ev->outcome, ev->detail };
		size_t		 i;

		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			csv_field(f[i], i + 1 == sizeof(f) / sizeof(f[0]));
		return 0;
	}
	printf("%-7s %-24s %-26s %-14s %-27s %-6s %-7s %-27s %-8s %s\n", id, t, ev->kind,
	    ev->operator_name[0] != '\0' ? ev->operator_name : a[0] != '\0' ? a : "-",
	    ev->client[0] != '\0' ? ev->client : "-", ow[0] != '\0' ? ow : "-",
	    ob[0] != '\0' ? ob : "-", ev->receipt_id[0] != '\0' ? ev->receipt_id : "-",
	    ev->outcome, ev->detail[0] != '\0' ? ev->detail : "-");
	return 0;
}

/* burnlink-admin audit: the events that match, newest first, page by page. */
static int
cmd_audit(struct bl_ctx *c, int argc, char **argv)
{
	struct bl_audit_filter	 f;
	struct bl_account	 a;
	struct audit_out	 o = { AF_TABLE, 1000, 0, 0 };
	enum bl_err		 e;
	int64_t			 now = c->now_ms;
	int			 i, k;

	if (argc == 1 && strcmp(argv[0], "kinds") == 0) {
		for (k = 1; k < bl_event_kinds(); k++) {
			const struct bl_event_kind	*ek = bl_event_kind(k);

			if (json_out)
				printf("{\"kind\":\"%s\",\"object\":\"%s\"}\n", ek->name,
				    ek->object);
			else
				printf("%-26s %-8s %s\n", ek->name, ek->object[0] ? ek->object : "-",
				    ek->what);
		}
		return EX_OK;
	}
	memset(&f, 0, sizeof(f));
	if (json_out)
		o.format = AF_NDJSON;
	for (i = 0; i < argc; i++) {
		const char	*opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			return usage_error("audit: %s needs a value", opt);
		i++;
		if (strcmp(opt, "--since") == 0 || strcmp(opt, "--until") == 0) {
			if (bl_parse_when(v, now, opt[2] == 's' ? &f.since_ms : &f.until_ms) != 0)
				return usage_error("audit: %s: \"%s\" is neither ISO 8601 (e.g. "
				    "2026-11-27T10:00:00Z) nor a time ago (e.g. 7d, 12h, 30m)", opt, v);
		} else if (strcmp(opt, "--account") == 0) {
			if ((e = bl_account_find(c, v, &a)) != BL_OK)
				return failed(e, v);
			f.account_id = a.id;
		} else if (strcmp(opt, "--kind") == 0) {
			if ((f.kind = bl_event_find(v)) == 0)
				return usage_error("audit: --kind: no kind \"%s\" (burnlink-admin "
				    "audit kinds lists them)", v);
		} else if (strcmp(opt, "--receipt") == 0) {
			f.receipt_id = v;
		} else if (strcmp(opt, "--limit") == 0) {
			if (parse_count(v, &o.left) != 0 || o.left < 1 || o.left > 1000000)
				return usage_error("audit: --limit: a whole number from 1 to 1000000");
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(v, "ndjson") == 0)
				o.format = AF_NDJSON;
			else if (strcmp(v, "csv") == 0)
				o.format = AF_CSV;
			else if (strcmp(v, "table") == 0)
				o.format = AF_TABLE;
			else
				return usage_error("audit: --format: ndjson, csv or table");
		} else
			return usage_error("audit: unknown option %s", opt);
	}
	if (o.format == AF_CSV)
		puts("id,at,kind,accountId,apiKeyId,operator,client,ownerId,objectId,receiptId,"
		    "outcome,detail");
	else if (o.format == AF_TABLE)
		printf("%-7s %-24s %-26s %-14s %-27s %-6s %-7s %-27s %-8s %s\n", "ID", "AT",
		    "KIND", "ACTOR", "CLIENT", "OWNER", "OBJECT", "RECEIPT", "OUTCOME", "DETAIL");
	/* pages of 1000 by the cursor, so that any number is printed */
	do {
		f.limit = 1000;
		f.before_id = o.last_id;
		o.n = 0;
		if ((e = bl_audit_list(c, &f, audit_row, &o)) != BL_OK)
			return failed(e, "audit");
	} while (o.n == 1000 && o.left > 0);
	return EX_OK;
}

static int
cmd_health(struct bl_ctx *c)
{
	struct bl_usage	 u;
	json_object	*o, *checks, *v;
	enum bl_err	 counted;
	int		 healthy;

	counted = bl_limit_count(c, BL_LIM_IP_HEALTH, "burnlink-admin", 14, &u);
	if (counted == BL_ERR_RATE_LIMIT_EXCEEDED)
		counted = BL_OK;	/* it was counted: the store is writable */
	if ((o = bl_health(c, counted, &healthy)) == NULL)
		return failed(BL_ERR_INTERNAL, "health");
	if (!json_out) {
		printf("status: %s\n", healthy ? "ok" : "fail");
		json_object_object_get_ex(o, "checks", &checks);
		json_object_object_foreach(checks, k, chk) {
			printf("%-9s ", k);
			if (json_object_object_get_ex(chk, "error", &v))
				printf("FAIL %s", json_object_get_string(v));
			else
				printf("ok");
			if (json_object_object_get_ex(chk, "lastRun", &v))
				printf(" (last run: %s)", v != NULL ? json_object_get_string(v) : "never");
			if (json_object_object_get_ex(chk, "stamped", &v) && !json_object_get_boolean(v))
				printf(" (the web server's configuration is not seen from here: "
				    "burnlink-admin routes check)");
			printf("\n");
		}
		if (json_object_object_get_ex(o, "host", &checks) &&
		    json_object_object_get_ex(checks, "runsAs", &v))
			printf("host      runs as %s; data private: %s\n",
			    strcmp(json_object_get_string(v), "owner") == 0 ?
			    "the owner of its files" : "a web-server user shared with other sites",
			    json_object_object_get_ex(checks, "dataPrivate", &v) &&
			    json_object_get_boolean(v) ? "yes" : "no");
		json_object_put(o);
	} else
		print_json(o);
	if (c->cfg.policy.err[0] != '\0')
		fprintf(stderr, "burnlink-admin: %s\n", c->cfg.policy.err);
	if (c->cfg.exposed != NULL)
		fprintf(stderr, "burnlink-admin: %s\n", c->cfg.exposed_err);
	return healthy ? EX_OK : EX_FAIL;
}

/*
 * The routes' digest a configuration file was made for: the first
 * BURNLINK_ROUTES on a line that is not a comment, followed by ':', '"',
 * '=', '>' or blanks, then 16 hex digits (as scripts/routes-gen.c writes it
 * for Apache, the .htaccess, lighttpd and nginx). 1 found (into out), 0 not
 * said, -1 unreadable.
 */
static int
routes_of(const char *file, char out[17])
{
	char	 line[4096], *p;
	FILE	*f;
	size_t	 n;
	int	 found = 0;

	if ((f = fopen(file, "r")) == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '#' || (p = strstr(p, "BURNLINK_ROUTES")) == NULL)
			continue;
		p += strlen("BURNLINK_ROUTES");
		p += strspn(p, ":\"=> \t");
		n = strspn(p, "0123456789abcdef");
		if (n == 16) {
			memcpy(out, p, 16);
			out[16] = '\0';
			found = 1;
		}
	}
	if (ferror(f))
		found = -1;
	fclose(f);
	return found;
}

/*
 * routes check [FILE...]: whether each web server configuration was made for
 * the routes these programs serve (the digest compiled in, docs/API.md's
 * BURNLINK_ROUTES); without FILE, this tree's htdocs/.htaccess and
 * etc/{lighttpd,apache-vhost,nginx}.conf that exist.
 */
static int
cmd_routes(int argc, char *argv[])
{
	static const char *const mine[] = { "htdocs/.htaccess", "etc/lighttpd.conf",
	    "etc/apache-vhost.conf", "etc/nginx.conf" };
	const char	*own = bl_routes_own(), *state, *files[16];
	char		 exe[PATH_MAX - 64], paths[4][PATH_MAX], got[17], *slash;
	json_object	*o = NULL, *arr = NULL, *one;
	ssize_t		 len;
	size_t		 i, nfiles = 0;
	int		 rc = EX_OK, r;

	if (argc < 1 || strcmp(argv[0], "check") != 0)
		return usage_error("routes: expected check [FILE...]");
	if (own == NULL) {
		fprintf(stderr, "burnlink-admin: built without the routes' digest (make)\n");
		return EX_FAIL;
	}
	for (i = 1; i < (size_t)argc && nfiles < sizeof(files) / sizeof(files[0]); i++)
		files[nfiles++] = argv[i];
	if ((size_t)argc > sizeof(files) / sizeof(files[0]) + 1)
		return usage_error("routes check: at most 16 files");
	/* The tree this program was installed in: bin/../ */
	if (nfiles == 0 && (len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[len] = '\0';
		for (i = 0; i < 2 && (slash = strrchr(exe, '/')) != NULL; i++)
			*slash = '\0';
		for (i = 0; i < 4; i++) {
			snprintf(paths[i], sizeof(paths[i]), "%s/%s", exe, mine[i]);
			if (access(paths[i], F_OK) == 0)
				files[nfiles++] = paths[i];
		}
	}
	if (nfiles == 0)
		return usage_error("routes check: no htdocs/.htaccess or etc/*.conf beside this "
		    "program: name the web server's configuration files");
	if (json_out && ((o = json_object_new_object()) == NULL ||
	    json_object_object_add(o, "routes", json_object_new_string(own)) != 0 ||
	    json_object_object_add(o, "files", arr = json_object_new_array()) != 0)) {
		json_object_put(o);
		return failed(BL_ERR_INTERNAL, "routes check");
	}
	for (i = 0; i < nfiles; i++) {
		r = routes_of(files[i], got);
		state = r < 0 ? "unreadable" : r == 0 ? "unknown" :
		    bl_routes_differ(got) ? "other" : "current";
		if (strcmp(state, "current") != 0)
			rc = EX_FAIL;
		if (json_out) {
			one = json_object_new_object();
			json_object_object_add(one, "file", json_object_new_string(files[i]));
			json_object_object_add(one, "state", json_object_new_string(state));
			json_object_object_add(one, "routes", r == 1 ?
			    json_object_new_string(got) : NULL);
			json_object_array_add(arr, one);
		} else if (r < 0)
			printf("%s: cannot read: %s\n", files[i], strerror(errno));
		else if (r == 0)
			printf("%s: does not say which routes it was made for (made by hand, or "
			    "by an older release): generate it again (INSTALL section 12)\n",
			    files[i]);
		else if (strcmp(state, "other") == 0)
			printf("%s: made for other programs (routes %s; these serve %s): install "
			    "the new configuration (INSTALL section 12)\n", files[i], got, own);
		else
			printf("%s: made for these programs (routes %s)\n", files[i], own);
	}
	if (json_out)
		print_json(o);
	return rc;
}

/*
 * Records a command that changes something (admin.command, with the
 * operator as its actor) once it ran: its first two words only, never an
 * argument (a whole API key may be one), and how it ended.
 */
static void
audit_command(struct bl_ctx *c, int argc, char **argv, int rc)
{
	static const char *const changing[] = { "account create", "account password",
	    "account email", "account 2fa-reset", "account admin", "account disable",
	    "account enable", "key issue", "key revoke", "limits set",
	    "limits reset" };
	char		 cmd[64];
	size_t		 i;
	enum bl_err	 e;

	if (argc < 2 || rc == EX_USAGE)
		return;
	snprintf(cmd, sizeof(cmd), "%s %s", argv[0], argv[1]);
	for (i = 0; i < sizeof(changing) / sizeof(changing[0]); i++)
		if (strcmp(cmd, changing[i]) == 0)
			break;
	if (i == sizeof(changing) / sizeof(changing[0]))
		return;
	if ((e = bl_audit_admin(c, cmd, 0, 0, rc)) != BL_OK)
		fprintf(stderr, "burnlink-admin: the audit trail could not record \"%s\": %s\n",
		    cmd, bl_error_info(e)->message);
}

int
main(int argc, char *argv[])
{
	struct bl_ctx	 ctx;
	char		 err[512];
	int		 i, j, rc, exists;

	/* --json may come anywhere; the other options come before the command. */
	for (i = j = 1; i < argc; i++)
		if (strcmp(argv[i], "--json") == 0)
			json_out = 1;
		else
			argv[j++] = argv[i];
	argc = j;
	argv[argc] = NULL;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage_text, stdout);
			return EX_OK;
		} else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			if (setenv("BURNLINK_DB", argv[++i], 1) != 0) {
				perror("burnlink-admin: setenv");
				return EX_FAIL;
			}
		} else
			return usage_error("unknown option %s", argv[i]);
	}
	if (i >= argc)
		return usage_error("no command given");
	if (strcmp(argv[i], "help") == 0) {
		fputs(usage_text, stdout);
		return EX_OK;
	}
	/* The web server's configuration files: no database. */
	if (strcmp(argv[i], "routes") == 0)
		return cmd_routes(argc - i - 1, argv + i + 1);
	if (strcmp(argv[i], "account") != 0 && strcmp(argv[i], "key") != 0 &&
	    strcmp(argv[i], "usage") != 0 && strcmp(argv[i], "limits") != 0 &&
	    strcmp(argv[i], "config") != 0 && strcmp(argv[i], "health") != 0 &&
	    strcmp(argv[i], "audit") != 0)
		return usage_error("unknown command \"%s\"", argv[i]);
	/* config check FILE: that file, as BURNLINK_CONFIG would name it. */
	if (strcmp(argv[i], "config") == 0 && argc - i == 3 &&
	    strcmp(argv[i + 1], "check") == 0) {
		if (setenv("BURNLINK_CONFIG", argv[i + 2], 1) != 0) {
			perror("burnlink-admin: setenv");
			return EX_FAIL;
		}
		argc--;
	}
	/* The domain, with a context from the process environment: no request. */
	if (bl_ctx_init(&ctx, NULL, NULL) != 0) {
		fprintf(stderr, "burnlink-admin: out of memory\n");
		return EX_FAIL;
	}
	/* the actor of its audit events: the operator, before it becomes the data's owner */
	bl_audit_operator(&ctx);
	/* Run as root: as the data directory's owner, never through a link. */
	if (bl_config_become_owner(&ctx.cfg, &exists, err, sizeof(err)) != 0) {
		fprintf(stderr, "burnlink-admin: %s: %s\n", bl_config_db_name(&ctx.cfg), err);
		bl_ctx_free(&ctx);
		return EX_FAIL;
	}
	if (strcmp(argv[i], "account") == 0)
		rc = cmd_account(&ctx, argc - i - 1, argv + i + 1);
	else if (strcmp(argv[i], "key") == 0)
		rc = cmd_key(&ctx, argc - i - 1, argv + i + 1);
	else if (strcmp(argv[i], "config") == 0)
		rc = cmd_config(&ctx, argc - i - 1, argv + i + 1);
	else if (strcmp(argv[i], "health") == 0)
		rc = argc - i == 1 ? cmd_health(&ctx) : usage_error("usage: health");
	else if (strcmp(argv[i], "usage") == 0)
		rc = argc - i == 2 ? cmd_account_show(&ctx, argv[i + 1]) :
		    usage_error("usage: expected one ACCOUNT");
	else if (strcmp(argv[i], "audit") == 0)
		rc = cmd_audit(&ctx, argc - i - 1, argv + i + 1);
	else
		rc = cmd_limits(&ctx, argc - i - 1, argv + i + 1);
	audit_command(&ctx, argc - i, argv + i, rc);
	bl_ctx_free(&ctx);
	return rc;
}
