/* store_sql.c (layer: storage): the statements of enum bl_stmt (lib/store.h), in the SQL both backends speak. */
#include "internal.h"
#include "store.h"

#define ACCOUNT_COLUMNS "a.id, a.name, a.created_at, " \
	"(SELECT count(*) FROM api_keys k WHERE k.account_id = a.id AND " \
	"k.revoked_at IS NULL), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id AND s.state = 0) FROM accounts a"
#define KEY_COLUMNS "id, account_id, prefix, label, created_at, last_used_at, " \
	"revoked_at FROM api_keys"

/*
 * Parameters are $1, $2, ... in both: PostgreSQL's own, and for SQLite named
 * parameters that lib/store_sqlite.c binds by name. A backend's dialect
 * replaces the statements it speaks otherwise (struct bl_store_ops).
 */
const char *const bl_sql[ST__MAX] = {
	[ST_INSERT_SECRET] = "INSERT INTO secrets (secret_hash, receipt_hash, "
	    "created_at, expires_at, max_views, deletable, pass_hash, server_side, "
	    "account_id, text_ct, text_iv, key_commit) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,"
	    "$10,$11,$12) "
	    "RETURNING id",
	[ST_INSERT_FILE] = "INSERT INTO attachments (secret_id, idx, name, name_iv, "
	    "mime, mime_iv, data, data_iv) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
	[ST_KEY_USED] = "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
	[ST_LOOKUP] = "SELECT " BL_ROW_COLUMNS ", receipt_hash = $1 FROM secrets "
	    "WHERE secret_hash = $1 OR receipt_hash = $1",
	[ST_LOCK] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE id = $1",
	[ST_LOCK_TEXT] = "SELECT " BL_ROW_COLUMNS ", false, text_ct, text_iv FROM secrets "
	    "WHERE id = $1",
	[ST_SECRET_GET] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE id = $1",
	[ST_SELECT_FILES] = "SELECT name, name_iv, mime, mime_iv, data, data_iv "
	    "FROM attachments WHERE secret_id = $1 ORDER BY idx",
	[ST_DELETE_FILES] = "DELETE FROM attachments WHERE secret_id = $1",
	[ST_SET_STATE] = "UPDATE secrets SET state = $2, text_ct = NULL, "
	    "text_iv = NULL WHERE id = $1",
	[ST_VIEW] = "UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = $2 WHERE id = $1",
	[ST_CLEAN_FILES] = "DELETE FROM attachments WHERE secret_id IN "
	    "(SELECT id FROM secrets WHERE expires_at <= $1)",
	[ST_CLEAN_ROWS] = "DELETE FROM secrets WHERE expires_at <= $1",
	[ST_ACCOUNT_SECRETS] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE "
	    "account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
	[ST_ACCOUNT_INSERT] = "INSERT INTO accounts (name, created_at) VALUES ($1,$2) "
	    "RETURNING id",
	[ST_ACCOUNT_GET] = "SELECT " ACCOUNT_COLUMNS " WHERE a.id = $1 OR a.name = $2",
	[ST_ACCOUNT_LIST] = "SELECT " ACCOUNT_COLUMNS " ORDER BY a.id",
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
	[ST_PASSWORD_GET] = "SELECT pass_hash FROM account_passwords WHERE account_id = $1",
	[ST_PASSWORD_SET] = "INSERT INTO account_passwords (account_id, pass_hash, "
	    "changed_at) VALUES ($1,$2,$3) ON CONFLICT (account_id) DO UPDATE SET "
	    "pass_hash = excluded.pass_hash, changed_at = excluded.changed_at",
	[ST_SESSION_INSERT] = "INSERT INTO sessions (session_hash, account_id, "
	    "created_at, seen_at) VALUES ($1,$2,$3,$3)",
	[ST_SESSION_FIND] = "SELECT id, account_id, created_at, seen_at FROM sessions "
	    "WHERE session_hash = $1",
	[ST_SESSION_TOUCH] = "UPDATE sessions SET seen_at = $2 WHERE id = $1",
	[ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = $1",
	[ST_SESSION_END_ALL] = "DELETE FROM sessions WHERE account_id = $1",
	[ST_SESSION_PRUNE] = "DELETE FROM sessions WHERE seen_at <= $1 OR created_at <= $2",
	[ST_RQ_INSERT] = "INSERT INTO requests (request_hash, inbox_hash, created_at, "
	    "expires_at, allow_files, public_key, note_ct, note_iv) VALUES "
	    "($1,$2,$3,$4,$5,$6,$7,$8)",
	[ST_RQ_LOOKUP] = "SELECT " BL_RQ_COLUMNS ", inbox_hash = $1, note_ct, note_iv "
	    "FROM requests WHERE request_hash = $1 OR inbox_hash = $1",
	[ST_RQ_LOCK] = "SELECT " BL_RQ_COLUMNS ", false FROM requests WHERE id = $1",
	[ST_RQ_ANSWER] = "UPDATE requests SET state = 1, answered_at = $2, answer_id = $3, "
	    "answer_key = $4, note_ct = NULL, note_iv = NULL WHERE id = $1",
	[ST_RQ_READ] = "UPDATE requests SET state = 2, read_at = $2, answer_key = NULL, "
	    "public_key = NULL WHERE id = $1",
	[ST_RQ_END] = "UPDATE requests SET state = $2, note_ct = NULL, note_iv = NULL, "
	    "answer_key = NULL, public_key = NULL WHERE id = $1",
	[ST_RQ_CLEAN] = "DELETE FROM requests WHERE expires_at <= $1",
};
