/* store_sql.c (layer: storage): the statements of enum bl_stmt (lib/store.h), in the SQL both backends speak. */
#include "internal.h"
#include "store.h"

#define ACCOUNT_COLUMNS "a.id, a.name, a.created_at, " \
	"(SELECT count(*) FROM api_keys k WHERE k.account_id = a.id AND " \
	"k.revoked_at IS NULL), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id AND s.state = 0), a.admin, a.disabled_at FROM accounts a"
/* A secret's notifications (lib/outbox.c): its last event and receipt id, NULL without. */
#define NOTIFY_COLUMNS "(SELECT n.last_event FROM secret_notify n WHERE n.secret_id = " \
	"secrets.id), (SELECT n.last_event_at FROM secret_notify n WHERE n.secret_id = " \
	"secrets.id), (SELECT n.receipt_id FROM secret_notify n WHERE n.secret_id = secrets.id)"
/* The outbox rows of an event: one for the e-mail, one per webhook that wants it. */
#define EVENT_INTO "INSERT INTO outbox (account_id, receipt_id, kind, channel, " \
	"webhook_id, views_left, detail, occurred_at, next_at) "
#define KEY_COLUMNS "id, account_id, prefix, label, created_at, last_used_at, " \
	"revoked_at, (SELECT a.disabled_at FROM accounts a WHERE a.id = " \
	"api_keys.account_id) FROM api_keys"

/*
 * Parameters are $1, $2, ... in both: PostgreSQL's own, and for SQLite named
 * parameters that lib/store_sqlite.c binds by name. A backend's dialect
 * replaces the statements it speaks otherwise (struct bl_store_ops).
 */
const char *const bl_sql[ST__MAX] = {
	[ST_INSERT_SECRET] = "INSERT INTO secrets (" BL_NEW_COLUMNS ") VALUES ("
	    BL_NEW_VALUES ") RETURNING id",	/* lib/store.h: BL_NEW_COLS */
	[ST_INSERT_FILE] = "INSERT INTO attachments (secret_id, idx, name, name_iv, "
	    "mime, mime_iv, data, data_iv) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
	[ST_KEY_USED] = "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
	/*
	 * Under what the key carries ($2, lib/crypto.c bl_new_key_at()), else
	 * among the rows stored before version 8 (lookup_at 0, keys without
	 * it): four probes of the two unique indexes, two into their part of
	 * 0, which is empty once those rows have expired. Written as two terms
	 * with IN rather than four: the same plan, 19 K instructions fewer to
	 * prepare in a CGI process (docs/PERFORMANCE.md, "Per-process costs,
	 * second round").
	 */
	[ST_LOOKUP] = "SELECT " BL_ROW_COLUMNS ", receipt_hash = $1 FROM secrets "
	    "WHERE (lookup_at IN ($2, 0) AND secret_hash = $1) OR "
	    "(lookup_at IN ($2, 0) AND receipt_hash = $1)",
	[ST_LOCK] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE id = $1",
	[ST_LOCK_TEXT] = "SELECT " BL_ROW_COLUMNS ", false, text_ct, text_iv, EXISTS "
	    "(SELECT 1 FROM attachments WHERE secret_id = $1) FROM secrets WHERE id = $1",
	[ST_SECRET_GET] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE id = $1",
	[ST_SELECT_FILES] = "SELECT name, name_iv, mime, mime_iv, data, data_iv "
	    "FROM attachments WHERE secret_id = $1 ORDER BY idx",
	[ST_DELETE_FILES] = "DELETE FROM attachments WHERE secret_id = $1",
	[ST_SET_STATE] = "UPDATE secrets SET state = $2, text_ct = NULL, "
	    "text_iv = NULL WHERE id = $1",
	[ST_VIEW] = "UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = $2 WHERE id = $1",
	[ST_VIEW_LAST] = "UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = $2, state = $3, text_ct = NULL, text_iv = NULL WHERE id = $1",
	/* SQLite takes every view the whole way: lib/store_pg.c says why */
	[ST_VIEW_TAKE] = BL_SQL_NONE,
	/* SQLite: a host's cleanups exclude each other by a file lock (lib/cleanup.c) */
	[ST_CLEAN_LOCK] = BL_SQL_NONE,
	[ST_CLEAN_CUT] = "SELECT expires_at, id FROM secrets WHERE expires_at <= $1 "
	    "ORDER BY expires_at, id LIMIT 1 OFFSET $2",
	[ST_CLEAN_FILES] = "DELETE FROM attachments WHERE secret_id IN "
	    "(SELECT id FROM secrets s WHERE " BL_CLEAN_STEP ")",
	[ST_CLEAN_ROWS] = "DELETE FROM secrets AS s WHERE " BL_CLEAN_STEP,
	[ST_CLEAN_SLOTS] = "SELECT key_slot, created_at FROM secrets s WHERE " BL_CLEAN_STEP
	    " AND key_slot IS NOT NULL",
	[ST_ACCOUNT_SECRETS] = "SELECT " BL_ROW_COLUMNS ", false, " NOTIFY_COLUMNS
	    " FROM secrets WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
	[ST_ACCOUNT_INSERT] = "INSERT INTO accounts (name, created_at) VALUES ($1,$2) "
	    "RETURNING id",
	[ST_ACCOUNT_GET] = "SELECT " ACCOUNT_COLUMNS " WHERE a.id = $1 OR a.name = $2",
	[ST_ACCOUNT_LIST] = "SELECT " ACCOUNT_COLUMNS " WHERE a.deleted_at IS NULL ORDER BY a.id",
	/* $1 a LIKE pattern of the lower-cased name ('' any), after id $2, at most $3 */
	[ST_ACCOUNT_PAGE] = "SELECT " ACCOUNT_COLUMNS " WHERE a.deleted_at IS NULL AND "
	    "($1 = '' OR lower(a.name) LIKE $1 ESCAPE '\\') AND a.id > $2 ORDER BY a.id LIMIT $3",
	[ST_ACCOUNT_ADMIN] = "UPDATE accounts SET admin = $2 WHERE id = $1 AND deleted_at IS NULL",
	[ST_ACCOUNT_ADMINS] = "SELECT count(*) FROM accounts WHERE admin <> 0 AND deleted_at IS NULL",
	[ST_ACCOUNT_DISABLE] = "UPDATE accounts SET disabled_at = $2 WHERE id = $1 AND "
	    "deleted_at IS NULL",
	[ST_ACCOUNT_TOMBSTONE] = "UPDATE accounts SET name = $2, deleted_at = $3, "
	    "disabled_at = coalesce(disabled_at, $3), admin = 0 WHERE id = $1",
	[ST_ACCOUNT_ACTIVE] = "SELECT id FROM secrets WHERE account_id = $1 AND state = 0 "
	    "AND id > $2 ORDER BY id LIMIT 100",
	[ST_KEY_REVOKE_ALL] = "UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND "
	    "revoked_at IS NULL",
	[ST_WEBHOOK_DELETE_ALL] = "UPDATE webhooks SET url = '', secret = '', events = 0 "
	    "WHERE account_id = $1",
	[ST_OUTBOX_UNQUEUE_ACCOUNT] = "DELETE FROM outbox WHERE account_id = $1 AND state = 0",
	[ST_WEBHOOK_OWNER] = "SELECT account_id FROM webhooks WHERE id = $1 AND events <> 0",
	[ST_PASSWORD_DELETE] = "DELETE FROM account_passwords WHERE account_id = $1",
	[ST_EMAIL_DELETE] = "DELETE FROM account_emails WHERE account_id = $1",
	[ST_ACCOUNT_BY_EMAIL] = "SELECT " ACCOUNT_COLUMNS " WHERE lower(a.name) = $1 "
	    "ORDER BY a.id LIMIT 1",
	[ST_KEY_INSERT] = "INSERT INTO api_keys (account_id, key_hash, prefix, label, "
	    "created_at) VALUES ($1,$2,$3,$4,$5) RETURNING id",
	[ST_KEY_FIND] = "SELECT " KEY_COLUMNS " WHERE key_hash = $1",
	[ST_KEY_GET] = "SELECT " KEY_COLUMNS " WHERE id = $1",
	[ST_KEY_LIST] = "SELECT " KEY_COLUMNS " WHERE $1 = 0 OR account_id = $1 "
	    "ORDER BY id",
	[ST_KEY_REVOKE] = "UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND "
	    "revoked_at IS NULL",
	[ST_KEY_DELETE] = "DELETE FROM api_keys WHERE id = $1 AND account_id = $2 AND "
	    "last_used_at IS NULL",
	[ST_PASSWORD_GET] = "SELECT pass_hash FROM account_passwords WHERE account_id = $1",
	[ST_PASSWORD_SET] = "INSERT INTO account_passwords (account_id, pass_hash, "
	    "changed_at) VALUES ($1,$2,$3) ON CONFLICT (account_id) DO UPDATE SET "
	    "pass_hash = excluded.pass_hash, changed_at = excluded.changed_at",
	[ST_SESSION_INSERT] = "INSERT INTO sessions (session_hash, account_id, "
	    "created_at, seen_at, via) VALUES ($1,$2,$3,$3,$4) RETURNING id",
	[ST_SESSION_FIND] = "SELECT id, account_id, created_at, seen_at, via FROM sessions "
	    "WHERE session_hash = $1",
	[ST_SESSION_TOUCH] = "UPDATE sessions SET seen_at = $2 WHERE id = $1",
	[ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = $1",
	[ST_SESSION_END_ALL] = "DELETE FROM sessions WHERE account_id = $1",
	[ST_SESSION_PRUNE] = "DELETE FROM sessions WHERE seen_at <= $1 OR created_at <= $2",
	[ST_RQ_INSERT] = "INSERT INTO requests (request_hash, inbox_hash, created_at, "
	    "expires_at, allow_files, public_key, note_ct, note_iv) VALUES "
	    "($1,$2,$3,$4,$5,$6,$7,$8) RETURNING id",
	[ST_RQ_LOOKUP] = "SELECT " BL_RQ_COLUMNS ", inbox_hash = $1, note_ct, note_iv "
	    "FROM requests WHERE request_hash = $1 OR inbox_hash = $1",
	[ST_RQ_LOCK] = "SELECT " BL_RQ_COLUMNS ", false FROM requests WHERE id = $1",
	[ST_RQ_ANSWER] = "UPDATE requests SET state = 1, answered_at = $2, answer_id = $3, "
	    "answer_key = $4, note_ct = NULL, note_iv = NULL WHERE id = $1",
	[ST_RQ_READ] = "UPDATE requests SET state = 2, read_at = $2, answer_key = NULL, "
	    "public_key = NULL WHERE id = $1",
	[ST_RQ_END] = "UPDATE requests SET state = $2, note_ct = NULL, note_iv = NULL, "
	    "answer_key = NULL, public_key = NULL WHERE id = $1",
	[ST_RQ_CLEAN] = "DELETE FROM requests WHERE id IN (SELECT id FROM requests "
	    "WHERE expires_at <= $1 ORDER BY id LIMIT $2)",
	[ST_NOTIFY_INSERT] = "INSERT INTO secret_notify (secret_id, account_id, receipt_id, "
	    "channels) VALUES ($1,$2,$3,$4)",
	[ST_EVENT] = EVENT_INTO "SELECT n.account_id, n.receipt_id, $2, 1, NULL, $3, $4, $5, $5 "
	    "FROM secret_notify n WHERE n.secret_id = $1 AND (n.channels & 1) <> 0 "
	    "UNION ALL SELECT n.account_id, n.receipt_id, $2, 2, w.id, $3, $4, $5, $5 "
	    "FROM secret_notify n JOIN webhooks w ON w.account_id = n.account_id "
	    "WHERE n.secret_id = $1 AND (n.channels & 2) <> 0 AND (w.events & $6) <> 0 "
	    "ON CONFLICT DO NOTHING",
	[ST_EVENT_LAST] = "UPDATE secret_notify SET last_event = $2, last_event_at = $3 "
	    "WHERE secret_id = $1",
	[ST_EVENT_EXPIRED] = EVENT_INTO "SELECT n.account_id, n.receipt_id, 'secret.expired', 1, "
	    "NULL, CASE WHEN s.max_views IS NULL THEN NULL ELSE 0 END, NULL, s.expires_at, $1 "
	    "FROM secrets s JOIN secret_notify n ON n.secret_id = s.id WHERE s.state = 0 AND "
	    BL_CLEAN_STEP " AND s.view_count = 0 AND (n.channels & 1) <> 0 "
	    "UNION ALL SELECT n.account_id, n.receipt_id, 'secret.expired', 2, w.id, "
	    "CASE WHEN s.max_views IS NULL THEN NULL ELSE 0 END, NULL, s.expires_at, $1 "
	    "FROM secrets s JOIN secret_notify n ON n.secret_id = s.id JOIN webhooks w ON "
	    "w.account_id = n.account_id WHERE s.state = 0 AND " BL_CLEAN_STEP " AND "
	    "s.view_count = 0 AND (n.channels & 2) <> 0 AND (w.events & 8) <> 0 "
	    "ON CONFLICT DO NOTHING",
	/* before the rows: their ids are found through them */
	[ST_CLEAN_NOTIFY] = "DELETE FROM secret_notify WHERE secret_id IN (SELECT id FROM "
	    "secrets s WHERE " BL_CLEAN_STEP ")",
	[ST_OUTBOX_PRUNE] = "DELETE FROM outbox WHERE state <> 0 AND done_at <= $1",
	[ST_OUTBOX_CLAIM] = "UPDATE outbox SET lease_until = $2, lease_token = $3, "
	    "attempts = attempts + 1 WHERE id IN (SELECT id FROM outbox WHERE state = 0 "
	    "AND next_at <= $1 AND lease_until <= $1 AND ($5 = 0 OR kind LIKE 'account.%') "
	    "ORDER BY CASE WHEN kind LIKE 'account.%' THEN 0 ELSE 1 END, id LIMIT $4) "
	    "AND state = 0 AND lease_until <= $1",
	[ST_OUTBOX_LEASED] = "SELECT o.id, o.account_id, o.receipt_id, o.kind, o.channel, "
	    "o.webhook_id, o.views_left, o.detail, o.occurred_at, o.attempts, w.url, w.secret, "
	    "e.email, e.verified_at FROM outbox o LEFT JOIN webhooks w ON w.id = o.webhook_id "
	    "LEFT JOIN account_emails e ON e.account_id = o.account_id "
	    "WHERE o.lease_token = $1 ORDER BY CASE WHEN o.kind LIKE 'account.%' THEN 0 ELSE 1 "
	    "END, o.id",
	[ST_OUTBOX_FINISH] = "UPDATE outbox SET state = $3, last_status = $4, last_error = $5, "
	    "done_at = $6, next_at = $7, lease_until = 0, lease_token = NULL, detail = CASE "
	    "WHEN $3 <> 0 AND receipt_id IS NULL THEN NULL ELSE detail END "
	    "WHERE id = $1 AND lease_token = $2",
	[ST_OUTBOX_SENT] = "SELECT count(*) FROM outbox WHERE account_id = $1 AND state = 1 "
	    "AND done_at > $2",
	[ST_OUTBOX_DEFER] = "UPDATE outbox SET attempts = attempts - 1, last_error = $3, "
	    "next_at = $4, lease_until = 0, lease_token = NULL WHERE id = $1 AND lease_token = $2",
	[ST_OUTBOX_ADD] = "INSERT INTO outbox (account_id, kind, channel, webhook_id, detail, "
	    "occurred_at, next_at) VALUES ($1,$2,$3,$4,$5,$6,$6) RETURNING id",
	[ST_WEBHOOK_INSERT] = "INSERT INTO webhooks (account_id, url, events, secret, "
	    "created_at) VALUES ($1,$2,$3,$4,$5) RETURNING id",
	[ST_WEBHOOK_LIST] = "SELECT w.id, w.url, w.events, w.created_at, (SELECT o.last_status "
	    "FROM outbox o WHERE o.webhook_id = w.id AND o.account_id = w.account_id AND "
	    "o.attempts > 0 ORDER BY o.id DESC LIMIT 1) FROM webhooks w WHERE w.account_id = $1 "
	    "AND w.events <> 0 ORDER BY w.id",
	/* SQLite: one writer at a time already; PostgreSQL locks the account's row */
	[ST_WEBHOOK_LOCK] = BL_SQL_NONE,
	[ST_WEBHOOK_COUNT] = "SELECT count(*) FROM webhooks WHERE account_id = $1 AND events <> 0",
	/*
	 * A deleted webhook becomes a tombstone (no URL, no secret, no events)
	 * and ST_WEBHOOK_PRUNE removes every tombstone but the newest row: the
	 * highest id stays taken, so SQLite never hands an id out again.
	 */
	[ST_WEBHOOK_DELETE] = "UPDATE webhooks SET url = '', secret = '', events = 0 "
	    "WHERE id = $1 AND account_id = $2 AND events <> 0",
	[ST_WEBHOOK_PRUNE] = "DELETE FROM webhooks WHERE events = 0 AND id < (SELECT max(id) "
	    "FROM webhooks)",
	[ST_WEBHOOK_UNQUEUE] = "DELETE FROM outbox WHERE webhook_id = $1 AND state = 0",
	[ST_DELIVERIES] = "SELECT id, kind, receipt_id, state, attempts, last_status, "
	    "last_error, occurred_at, done_at, next_at FROM outbox WHERE webhook_id = $1 AND "
	    "account_id = $2 ORDER BY id DESC LIMIT $3",
	[ST_EMAIL_GET] = "SELECT email, verified_at, token_kind, token_expires FROM "
	    "account_emails WHERE account_id = $1",
	[ST_EMAIL_SET] = "INSERT INTO account_emails (account_id, email, verified_at, "
	    "token_hash, token_kind, token_expires) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT "
	    "(account_id) DO UPDATE SET email = excluded.email, verified_at = "
	    "excluded.verified_at, token_hash = excluded.token_hash, token_kind = "
	    "excluded.token_kind, token_expires = excluded.token_expires",
	[ST_EMAIL_TOKEN] = "SELECT account_id, token_kind, email FROM account_emails WHERE "
	    "token_hash = $1 AND token_expires > $2",
	[ST_EMAIL_USED] = "UPDATE account_emails SET token_hash = NULL, token_kind = NULL, "
	    "token_expires = NULL, verified_at = coalesce($2, verified_at) WHERE account_id = $1 "
	    "AND token_hash = $3",
	[ST_RESET_ISSUE] = "UPDATE account_emails SET token_hash = $2, token_kind = 2, "
	    "token_expires = $3 WHERE account_id = $1 AND verified_at IS NOT NULL AND NOT "
	    "(coalesce(token_kind, 0) = 2 AND coalesce(token_expires, 0) > $4)",
	[ST_RESET_END] = "UPDATE account_emails SET token_hash = NULL, token_kind = NULL, "
	    "token_expires = NULL WHERE account_id = $1 AND token_kind = 2",
	[ST_TOTP_GET] = "SELECT secret_ct, secret_iv, confirmed_at, last_step FROM account_totp "
	    "WHERE account_id = $1",
	[ST_TOTP_PUT] = "INSERT INTO account_totp (account_id, secret_ct, secret_iv, created_at) "
	    "VALUES ($1,$2,$3,$4) ON CONFLICT (account_id) DO UPDATE SET secret_ct = "
	    "excluded.secret_ct, secret_iv = excluded.secret_iv, created_at = excluded.created_at, "
	    "confirmed_at = NULL, last_step = -1",
	[ST_TOTP_CONFIRM] = "UPDATE account_totp SET confirmed_at = $2, last_step = $3 WHERE "
	    "account_id = $1 AND confirmed_at IS NULL RETURNING account_id",
	[ST_TOTP_STEP] = "UPDATE account_totp SET last_step = $2 WHERE account_id = $1 AND "
	    "last_step < $2 RETURNING account_id",
	[ST_TOTP_DELETE] = "DELETE FROM account_totp WHERE account_id = $1",
	[ST_RECOVERY_DELETE] = "DELETE FROM account_recovery WHERE account_id = $1",
	[ST_RECOVERY_INSERT] = "INSERT INTO account_recovery (account_id, code_hash) VALUES ($1,$2)",
	[ST_RECOVERY_USE] = "UPDATE account_recovery SET used_at = $3 WHERE account_id = $1 AND "
	    "code_hash = $2 AND used_at IS NULL RETURNING id",
	[ST_RECOVERY_LEFT] = "SELECT count(*) FROM account_recovery WHERE account_id = $1 AND "
	    "used_at IS NULL",
	[ST_EMAIL_FIND] = "SELECT e.account_id FROM account_emails e WHERE lower(e.email) = $1 "
	    "AND e.verified_at IS NOT NULL AND ($2 = 0 OR EXISTS (SELECT 1 FROM "
	    "account_passwords p WHERE p.account_id = e.account_id)) ORDER BY e.account_id "
	    "LIMIT 1",
	[ST_EMAIL_TAKEN] = "SELECT count(*) FROM account_emails WHERE lower(email) = $1 AND "
	    "verified_at IS NOT NULL AND account_id <> $2",
	[ST_AUDIT_INSERT] = BL_AUDIT_INTO "VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
	[ST_AUDIT_SECRET] = BL_AUDIT_INTO "VALUES ($1,$2,$3,$4,$5,$6,$7,$8,(SELECT n.receipt_id "
	    "FROM secret_notify n WHERE n.secret_id = $8),$9,$10)",
	[ST_AUDIT_KEY_USED] = BL_AUDIT_INTO "SELECT $2, 'apikey.used', account_id, id, NULL, $3, "
	    "account_id, id, NULL, 'ok', NULL FROM api_keys WHERE id = $1 AND "
	    "(last_used_at IS NULL OR last_used_at / 86400000 < $2 / 86400000)",
	[ST_AUDIT_WEBHOOK_FAIL] = BL_AUDIT_INTO "SELECT $3, 'webhook.failing', NULL, NULL, NULL, "
	    "NULL, account_id, webhook_id, receipt_id, 'failed', $4 FROM outbox WHERE id = $1 AND "
	    "lease_token = $2 AND channel = 2 AND webhook_id IS NOT NULL",
	[ST_AUDIT_ANON] = "INSERT INTO audit_events (at, kind, client, object_id, outcome, detail) "
	    "VALUES ($1,$2,$3,$4,$5,$6)",
	[ST_AUDIT_LIST] = "SELECT " BL_AUDIT_COLUMNS " FROM audit_events WHERE "
	    "($1 IS NULL OR at >= $1) AND ($2 IS NULL OR at < $2) AND ($3 IS NULL OR kind = $3) "
	    "AND ($4 IS NULL OR owner_id = $4) AND ($5 IS NULL OR "
	    "receipt_id = $5) AND ($6 IS NULL OR id < $6) ORDER BY id DESC LIMIT $7",
	/* the oldest ids first (ids ascend with time): no index on at */
	[ST_AUDIT_PRUNE] = "DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events "
	    "ORDER BY id LIMIT $2) AND at < $1",
	[ST_AUDIT_EXPIRED] = BL_AUDIT_INTO "SELECT $1, 'secret.expired', NULL, NULL, NULL, NULL, "
	    "s.account_id, s.id, (SELECT n.receipt_id FROM secret_notify n WHERE n.secret_id = s.id), "
	    "'ok', 'by=cleanup' FROM secrets s WHERE s.state = 0 AND " BL_CLEAN_STEP,
	[ST_AUDIT_CLEAN] = BL_AUDIT_INTO "SELECT $1, 'secret.removed', NULL, NULL, NULL, NULL, "
	    "s.account_id, s.id, (SELECT n.receipt_id FROM secret_notify n WHERE n.secret_id = s.id), "
	    "'ok', CASE s.state WHEN 2 THEN 'state=burned' WHEN 3 THEN 'state=exhausted' "
	    "ELSE 'state=expired' END FROM secrets s WHERE " BL_CLEAN_STEP,
	[ST_AUDIT_RQ_CLEAN] = BL_AUDIT_INTO "SELECT $1, 'request.removed', NULL, NULL, NULL, NULL, "
	    "NULL, id, NULL, 'ok', NULL FROM requests WHERE id IN (SELECT id FROM requests "
	    "WHERE expires_at <= $1 ORDER BY id LIMIT $2)",
	[ST_AUDIT_LAST] = "SELECT coalesce(max(id), 0) FROM audit_events",
	[ST_AUDIT_SINCE] = "SELECT " BL_AUDIT_COLUMNS " FROM audit_events WHERE id > $1 AND "
	    "at = $2 AND (kind = $3 OR kind = $4) AND ($5 IS NULL OR object_id = $5) ORDER BY id",
	[ST_M_SECRETS] = "SELECT state, CASE WHEN state = 0 AND expires_at <= $1 THEN 1 ELSE 0 END, "
	    "count(*) FROM secrets GROUP BY 1, 2",
	[ST_M_REQUESTS] = "SELECT state, CASE WHEN state < 2 AND expires_at <= $1 THEN 1 ELSE 0 END, "
	    "count(*) FROM requests GROUP BY 1, 2",
	[ST_M_ACCOUNTS] = "SELECT (SELECT count(*) FROM accounts), "
	    "(SELECT count(*) FROM api_keys WHERE revoked_at IS NULL), "
	    "(SELECT count(*) FROM api_keys WHERE revoked_at IS NOT NULL)",
	[ST_M_OUTBOX] = "SELECT count(*), min(occurred_at) FROM outbox WHERE state = 0",
	/* PostgreSQL: pg_database_size() (lib/store_pg.c) */
	[ST_M_DBSIZE] = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
};
