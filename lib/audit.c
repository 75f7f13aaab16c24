/* audit.c (layer: domain): the audit trail: an event per action, written in the action's transaction, listed, pruned, mirrored to syslog (docs/ADMIN.md, "Audit trail"). */
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

#define PRUNE_STEP	2000	/* rows removed per transaction by bl_audit_prune() */
#define LIST_MAX	1000

/*
 * The actor of a request: its account and API key (0: none) and what
 * audit_client keeps of its address: "c_" and 24 hex digits of
 * HMAC-SHA-256(install secret, "audit" NUL address) (hashed: the same
 * client is recognisable, its address is not stored), the address (clear),
 * or nothing (none). Without the install secret, nothing either.
 */
void
bl_audit_who_set(struct bl_ctx *c, int64_t account_id, int64_t api_key_id, const char *ip)
{
	struct bl_audit_who	*w = &c->who;
	unsigned char		 mac[BL_HASH_BYTES], msg[6 + BL_IP_TEXT];
	size_t			 n, i;

	w->account_id = account_id;
	w->api_key_id = api_key_id;
	w->client[0] = '\0';
	w->operator_name[0] = '\0';
	if (ip == NULL || *ip == '\0' || c->cfg.policy.audit_client == BL_AUDIT_NONE)
		return;
	if (c->cfg.policy.audit_client == BL_AUDIT_CLEAR) {
		snprintf(w->client, sizeof(w->client), "%s", ip);
		return;
	}
	if ((n = strlen(ip)) >= BL_IP_TEXT || bl_ctx_install_key(c) != BL_OK)
		return;
	memcpy(msg, "audit", 6);
	memcpy(msg + 6, ip, n);
	if (bl_hmac_sha256(c->install_key, sizeof(c->install_key), msg, 6 + n, mac) != 0)
		return;
	memcpy(w->client, "c_", 2);
	for (i = 0; i < 12; i++) {
		w->client[2 + 2 * i] = "0123456789abcdef"[mac[i] >> 4];
		w->client[3 + 2 * i] = "0123456789abcdef"[mac[i] & 15];
	}
	w->client[26] = '\0';
	bl_wipe(mac, sizeof(mac));
}

/*
 * burnlink-admin's actor: the operator, by the user name of the real uid, or
 * SUDO_USER's when root runs it under sudo (both, "root (sudo: alice)", when
 * they differ); no client.
 */
void
bl_audit_operator(struct bl_ctx *c)
{
	struct passwd	*pw = getpwuid(getuid());
	const char	*sudo = getenv("SUDO_USER");
	char		 uid[24];
	const char	*name;

	bl_audit_syslog_open(c);
	bl_audit_who_set(c, 0, 0, NULL);
	snprintf(uid, sizeof(uid), "uid %ld", (long)getuid());
	name = pw != NULL && pw->pw_name != NULL ? pw->pw_name : uid;
	if (getuid() == 0 && sudo != NULL && *sudo != '\0' && strcmp(sudo, name) != 0)
		snprintf(c->who.operator_name, sizeof(c->who.operator_name), "%s (sudo: %s)",
		    name, sudo);
	else
		snprintf(c->who.operator_name, sizeof(c->who.operator_name), "%s", name);
}

/*
 * Opens the datagram socket of audit_syslog (the log daemon's: /dev/log, or
 * audit_syslog_socket), one per process, before the sandbox forbids it
 * (lib/program.c, lib/fcgi.c; burnlink-admin, cron/cleanup and cron/notify
 * have none), and hands it to the contexts (bl_ctx_syslog(), lib/ctx.c);
 * the events are written to it as syslog(3) would, after their commit
 * (lib/store.c). A log daemon that is absent leaves it closed, logged.
 */
void
bl_audit_syslog_open(struct bl_ctx *c)
{
	const struct bl_policy	*pol = &c->cfg.policy;
	struct sockaddr_un	 sa;
	const char		*path = pol->audit_socket[0] != '\0' ? pol->audit_socket : "/dev/log";
	int			 fd;

	if (pol->audit_syslog && bl_ctx_syslog(-2) < 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0 &&
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			bl_log_id(c->log_id, "audit_syslog: cannot reach the log daemon at %s",
			    path);
			close(fd);
			fd = -1;
		}
		bl_ctx_syslog(fd);
	}
	bl_ctx_who(c);
}

/* One event as JSON: the API's, the CLI's ndjson and the syslog line (docs/API.md). */
json_object *
bl_audit_json(const struct bl_audit_event *ev)
{
	json_object	*o;
	char		 at[64];

	if ((o = json_object_new_object()) == NULL)
		return NULL;
#define ID(k, v)	((v) > 0 ? bl_json_add(o, k, json_object_new_int64(v)) : bl_json_add_null(o, k))
#define TEXT(k, s)	((s)[0] != '\0' ? bl_json_add(o, k, json_object_new_string(s)) : \
			    bl_json_add_null(o, k))
	if (bl_json_add(o, "id", json_object_new_int64(ev->id)) ||
	    bl_json_add(o, "at", json_object_new_string(bl_iso8601(ev->at_ms, at))) ||
	    bl_json_add(o, "kind", json_object_new_string(ev->kind)) ||
	    ID("accountId", ev->account_id) || ID("apiKeyId", ev->api_key_id) ||
	    TEXT("operator", ev->operator_name) || TEXT("client", ev->client) ||
	    ID("ownerId", ev->owner_id) || ID("objectId", ev->object_id) ||
	    TEXT("receiptId", ev->receipt_id) ||
	    bl_json_add(o, "outcome", json_object_new_string(ev->outcome)) ||
	    TEXT("detail", ev->detail)) {
		json_object_put(o);
		return NULL;
	}
#undef ID
#undef TEXT
	return o;
}

/* Queues the syslog line of ev, written in the current transaction. */
static enum bl_err
mirror_event(struct bl_store *s, const struct bl_audit_event *ev)
{
	json_object	*o;
	int		 rc;

	if ((o = bl_audit_json(ev)) == NULL)
		return BL_ERR_INTERNAL;
	json_object_object_del(o, "id");	/* not known before the commit (the others') */
	rc = bl_st_after_commit(s, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return rc == 0 ? BL_OK : BL_ERR_INTERNAL;
}

/* Queues the syslog line of an event written in the current transaction. */
static enum bl_err
mirror(struct bl_store *s, const struct bl_audit_who *w, enum bl_event kind, int64_t owner,
    int64_t object, const char *receipt, const char *outcome, const char *detail)
{
	struct bl_audit_event		 ev;

	if (w == NULL || w->syslog_fd < 0)
		return BL_OK;
	memset(&ev, 0, sizeof(ev));
	ev.at_ms = bl_now_ms();
	snprintf(ev.kind, sizeof(ev.kind), "%s", bl_event_kind(kind)->name);
	ev.account_id = w->account_id;
	ev.api_key_id = w->api_key_id;
	snprintf(ev.operator_name, sizeof(ev.operator_name), "%s", w->operator_name);
	snprintf(ev.client, sizeof(ev.client), "%s", w->client);
	ev.owner_id = owner;
	ev.object_id = object;
	snprintf(ev.receipt_id, sizeof(ev.receipt_id), "%s", receipt != NULL ? receipt : "");
	snprintf(ev.outcome, sizeof(ev.outcome), "%s", outcome);
	snprintf(ev.detail, sizeof(ev.detail), "%s", detail != NULL ? detail : "");
	return mirror_event(s, &ev);
}

/*
 * Inside the caller's transaction: the event kind of object_id (owned by
 * account owner, 0: none; receipt_id NULL: none), by the store's actor,
 * with its outcome ("ok", "refused", "limited", "failed") and detail (NULL:
 * none; never content, a key, a passphrase or a token).
 */
enum bl_err
bl_audit(struct bl_store *s, enum bl_event kind, int64_t owner, int64_t object,
    const char *receipt, const char *outcome, const char *detail)
{
	const struct bl_audit_who	*w = bl_st_who(s);
	static const struct bl_audit_who nobody = { 0, 0, "", "", 0, -1 };
	enum bl_err			 e;

	if (w == NULL)
		w = &nobody;
	if (bl_event_kind(kind) == NULL)
		return BL_ERR_INTERNAL;
	if (owner <= 0)
		owner = w->account_id;	/* what the account did is its own */
	if ((e = bl_st_run(s, ST_AUDIT_INSERT, PARMS(P_INT(bl_now_ms()),
	    P_TEXT(bl_event_kind(kind)->name), P_INT_OR_NULL(w->account_id > 0, w->account_id),
	    P_INT_OR_NULL(w->api_key_id > 0, w->api_key_id),
	    P_TEXT_OR_NULL(w->operator_name[0] != '\0' ? w->operator_name : NULL),
	    P_TEXT_OR_NULL(w->client[0] != '\0' ? w->client : NULL),
	    P_INT_OR_NULL(owner > 0, owner), P_INT_OR_NULL(object > 0, object),
	    P_TEXT_OR_NULL(receipt != NULL && *receipt != '\0' ? receipt : NULL),
	    P_TEXT(outcome), P_TEXT_OR_NULL(detail)), NULL, NULL, NULL)) != BL_OK)
		return e;
	bl_st_event(s, kind, 1);
	return mirror(s, w, kind, owner, object, receipt, outcome, detail);
}

/*
 * The same for a secret (row id, of account owner): its receipt id, where it
 * has one, is read in the statement. who: the actor (NULL: the store's).
 */
enum bl_err
bl_audit_secret(struct bl_store *s, const struct bl_audit_who *who, enum bl_event kind,
    int64_t owner, int64_t id, const char *outcome, const char *detail)
{
	const struct bl_audit_who	*w = who != NULL ? who : bl_st_who(s);
	static const struct bl_audit_who nobody = { 0, 0, "", "", 0, -1 };
	enum bl_err			 e;

	if (w == NULL)
		w = &nobody;
	if (bl_event_kind(kind) == NULL)
		return BL_ERR_INTERNAL;
	/*
	 * An anonymous secret's event by nobody (most views): no receipt id,
	 * no actor, no owner: the shortest statement (docs/PERFORMANCE.md).
	 */
	if (owner <= 0 && w->account_id <= 0 && w->api_key_id <= 0 && w->operator_name[0] == '\0') {
		if ((e = bl_st_run(s, ST_AUDIT_ANON, PARMS(P_INT(bl_now_ms()),
		    P_TEXT(bl_event_kind(kind)->name),
		    P_TEXT_OR_NULL(w->client[0] != '\0' ? w->client : NULL), P_INT(id),
		    P_TEXT(outcome), P_TEXT_OR_NULL(detail)), NULL, NULL, NULL)) != BL_OK)
			return e;
		bl_st_event(s, kind, 1);
		return mirror(s, w, kind, owner, id, NULL, outcome, detail);
	}
	if (owner <= 0)
		owner = w->account_id;
	if ((e = bl_st_run(s, ST_AUDIT_SECRET, PARMS(P_INT(bl_now_ms()),
	    P_TEXT(bl_event_kind(kind)->name), P_INT_OR_NULL(w->account_id > 0, w->account_id),
	    P_INT_OR_NULL(w->api_key_id > 0, w->api_key_id),
	    P_TEXT_OR_NULL(w->operator_name[0] != '\0' ? w->operator_name : NULL),
	    P_TEXT_OR_NULL(w->client[0] != '\0' ? w->client : NULL),
	    P_INT_OR_NULL(owner > 0, owner), P_INT(id), P_TEXT(outcome),
	    P_TEXT_OR_NULL(detail)), NULL, NULL, NULL)) != BL_OK)
		return e;
	bl_st_event(s, kind, 1);
	return mirror(s, w, kind, owner, id, NULL, outcome, detail);
}

/* An event in a transaction of its own (an action that writes nothing else: a refusal). */
enum bl_err
bl_audit_alone(struct bl_store *s, enum bl_event kind, int64_t owner, int64_t object,
    const char *receipt, const char *outcome, const char *detail)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, bl_audit(s, kind, owner, object, receipt, outcome, detail));
}

/* burnlink-admin: one command that changed something, by the operator (bl_audit_operator()). */
enum bl_err
bl_audit_admin(struct bl_ctx *c, const char *command, int64_t account_id, int64_t object_id,
    int exit_status)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	bl_st_set_who(c->store, &c->who);
	return bl_audit_alone(c->store, BL_EV_ADMIN, account_id, object_id, NULL,
	    exit_status == 0 ? "ok" : "failed", command);
}

struct list {
	int	(*fn)(void *, const struct bl_audit_event *);
	void	*arg;
};

static int
event_row(void *arg, const struct bl_row *row)
{
	struct list		*l = arg;
	struct bl_audit_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.id = bl_col_int(row, 0, 0);
	ev.at_ms = bl_col_int(row, 1, 0);
	bl_col_text(row, 2, ev.kind, sizeof(ev.kind));
	ev.account_id = bl_col_int(row, 3, 0);
	ev.api_key_id = bl_col_int(row, 4, 0);
	bl_col_text(row, 5, ev.operator_name, sizeof(ev.operator_name));
	bl_col_text(row, 6, ev.client, sizeof(ev.client));
	ev.owner_id = bl_col_int(row, 7, 0);
	ev.object_id = bl_col_int(row, 8, 0);
	bl_col_text(row, 9, ev.receipt_id, sizeof(ev.receipt_id));
	bl_col_text(row, 10, ev.outcome, sizeof(ev.outcome));
	bl_col_text(row, 11, ev.detail, sizeof(ev.detail));
	return l->fn(l->arg, &ev);
}

enum bl_err
bl_audit_list(struct bl_ctx *c, const struct bl_audit_filter *f,
    int (*fn)(void *, const struct bl_audit_event *), void *arg)
{
	struct list			 l = { fn, arg };
	const struct bl_event_kind	*k = bl_event_kind(f->kind);
	enum bl_err			 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return bl_st_run(c->store, ST_AUDIT_LIST, PARMS(
	    P_INT_OR_NULL(f->since_ms > 0, f->since_ms), P_INT_OR_NULL(f->until_ms > 0, f->until_ms),
	    P_TEXT_OR_NULL(k != NULL ? k->name : NULL),
	    P_INT_OR_NULL(f->account_id > 0, f->account_id),
	    P_TEXT_OR_NULL(f->receipt_id != NULL && *f->receipt_id != '\0' ? f->receipt_id : NULL),
	    P_INT_OR_NULL(f->before_id > 0, f->before_id),
	    P_INT(f->limit > 0 && f->limit <= LIST_MAX ? f->limit : LIST_MAX)),
	    event_row, &l, NULL);
}

/*
 * Removes the events older than audit_days, PRUNE_STEP at a time, each step
 * a short transaction of its own (as the cleanup's, lib/secret.c); the number
 * removed in *removed.
 */
enum bl_err
bl_audit_prune(struct bl_ctx *c, int64_t now_ms, int64_t *removed)
{
	int64_t		 days = c->cfg.policy.audit_days > 0 ? c->cfg.policy.audit_days :
			    BL_AUDIT_DAYS, before = now_ms - days * 86400000LL, n = PRUNE_STEP;
	enum bl_err	 e;

	*removed = 0;
	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	while (n == PRUNE_STEP) {
		if ((e = bl_st_begin(c->store)) != BL_OK)
			return e;
		if ((e = bl_st_end(c->store, bl_st_run(c->store, ST_AUDIT_PRUNE,
		    PARMS(P_INT(before), P_INT(PRUNE_STEP)), NULL, NULL, &n))) != BL_OK)
			return e;
		*removed += n;
	}
	return BL_OK;
}

/*
 * The events one statement writes for many rows (INSERT ... SELECT: the
 * cleanup's secret.expired, secret.removed and request.removed, apikey.used,
 * webhook.failing) are mirrored to syslog by reading them back in their
 * transaction: bl_audit_mark() before the statement, bl_audit_mirror_since()
 * after it. The rows read are those after the mark with the statement's
 * time, kinds and object, not another process's.
 */
static int
last_row(void *arg, const struct bl_row *row)
{
	*(int64_t *)arg = bl_col_int(row, 0, 0);
	return 0;
}

/* The last event's id (0: none), or -1 when nothing is mirrored (audit_syslog off). */
int64_t
bl_audit_mark(struct bl_store *s)
{
	const struct bl_audit_who	*w = bl_st_who(s);
	int64_t				 id = 0;

	if (w == NULL || w->syslog_fd < 0 ||
	    bl_st_run(s, ST_AUDIT_LAST, NULL, 0, last_row, &id, NULL) != BL_OK)
		return -1;
	return id;
}

static int
since_row(void *arg, const struct bl_row *row)
{
	struct bl_store		*s = arg;
	struct bl_audit_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.id = bl_col_int(row, 0, 0);
	ev.at_ms = bl_col_int(row, 1, 0);
	bl_col_text(row, 2, ev.kind, sizeof(ev.kind));
	ev.account_id = bl_col_int(row, 3, 0);
	ev.api_key_id = bl_col_int(row, 4, 0);
	bl_col_text(row, 5, ev.operator_name, sizeof(ev.operator_name));
	bl_col_text(row, 6, ev.client, sizeof(ev.client));
	ev.owner_id = bl_col_int(row, 7, 0);
	ev.object_id = bl_col_int(row, 8, 0);
	bl_col_text(row, 9, ev.receipt_id, sizeof(ev.receipt_id));
	bl_col_text(row, 10, ev.outcome, sizeof(ev.outcome));
	bl_col_text(row, 11, ev.detail, sizeof(ev.detail));
	return mirror_event(s, &ev) == BL_OK ? 0 : -1;
}

/*
 * After the statement, in its transaction: queues the syslog lines of the
 * events of kind a or b (b 0: a only) of object (0: any) written at at_ms
 * since mark (bl_audit_mark(); nothing when it was -1). They go out once the
 * transaction commits, as the others (lib/store.c).
 */
enum bl_err
bl_audit_mirror_since(struct bl_store *s, int64_t mark, enum bl_event a, enum bl_event b,
    int64_t at_ms, int64_t object)
{
	const struct bl_event_kind	*ka = bl_event_kind(a), *kb = bl_event_kind(b);

	if (mark < 0 || ka == NULL)
		return BL_OK;
	return bl_st_run(s, ST_AUDIT_SINCE, PARMS(P_INT(mark), P_INT(at_ms), P_TEXT(ka->name),
	    P_TEXT(kb != NULL ? kb->name : ka->name), P_INT_OR_NULL(object > 0, object)),
	    since_row, s, NULL);
}
