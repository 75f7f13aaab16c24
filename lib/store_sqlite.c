/* store_sqlite.c (layer: storage): the SQLite backend (lib/store.h): its primitives, over the SQL of lib/store_sql.c (and sq_dialect). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "internal.h"
#include "store.h"
#include "schema.h"	/* generated from schema.sql */

#define BUSY_TIMEOUT_MS		5000
/*
 * WAL policy of the secrets database. A connection that closes does not
 * checkpoint: with SQLite's default, the last connection to close checkpoints
 * and deletes the -wal and -shm files (two fsyncs and two unlinks on every
 * request, and a directory fsync when the next one creates them). The files
 * stay in place instead. A process that opens the database while no other one
 * has it open rebuilds the WAL index by reading the whole WAL, so the WAL is
 * kept short: the connection whose commit brings it to WAL_PAGES pages checkpoints
 * and truncates it (wal_hook()); a PASSIVE checkpoint would not do, since a
 * rebuilt index no longer knows which frames were copied back. 32 pages: a
 * one-time read adds two frames, and a lone process's rebuild costs ~6.6 K
 * instructions and a pread a frame; over a sequence of them
 * (bench/walseq.sh) 64 pages cost 1.57 M instructions and 201 system calls
 * a read, 32 pages 1.49 M and 187, 16 pages 1.45 M and 181, for the
 * checkpoint's two syncs every 16 or 8 reads instead of every 32 (2.11 ->
 * 2.20 or 2.39 fdatasyncs a read). Eight processes at once seldom rebuild
 * anything and pay the syncs alone (2.13 -> 2.27 at 32, 2.47 at 16): 32
 * takes most of the saving for the fewer syncs (docs/PERFORMANCE.md,
 * "Per-process costs, second round"). Commits that
 * delete content checkpoint and truncate at once, waiting up to
 * CHECKPOINT_WAIT_MS for readers (checkpoint()), so no deleted ciphertext
 * stays in the WAL.
 *
 * A FastCGI responder (bl_store_persistent()) keeps its connection, and with
 * it the WAL index, from one request to the next, so the index is not
 * rebuilt and the WAL may be longer: every WAL_PAGES_KEPT pages it is
 * checkpointed (once the batch's answers are out: wal_hook()) by a PASSIVE
 * checkpoint, which copies the pages back and syncs the database without
 * SQLite's write lock, so the other responder's batches go on meanwhile;
 * the next writer starts the WAL over once every frame is copied back and
 * no reader needs it. Where that never happens (the other responder
 * commits while each checkpoint runs), the WAL is bounded at
 * WAL_PAGES_BOUND pages by a RESTART, which takes the write lock (and the
 * responders' one, so the other one sleeps meanwhile) and waits for
 * readers, so that the next writer starts it over. RESTART rather than
 * TRUNCATE, and journal_size_limit at WAL_BYTES_KEPT: the next commits
 * overwrite the file from its start instead of growing it (an fdatasync
 * that must also record a new file size commits the file system's journal
 * too: measured here, a 4 KiB O_DSYNC append 0.19 ms, an overwrite 0.13
 * ms). A process that rebuilds the WAL index (no other one has the database
 * open) reads up to WAL_PAGES_BOUND pages, once. Deletions of content
 * stored unsealed still truncate at once.
 */
#ifndef BL_WAL_PAGES		/* -DBL_WAL_PAGES=N: bench/walseq.sh's variants */
#define BL_WAL_PAGES		32
#endif
#define WAL_PAGES		BL_WAL_PAGES
#define WAL_BYTES		(WAL_PAGES * 4096 + 65536)
#define WAL_PAGES_KEPT		1000
#define WAL_BYTES_KEPT		(WAL_PAGES_KEPT * 4096 + 65536)
#define WAL_PAGES_BOUND		(4 * WAL_PAGES_KEPT)
#define CHECKPOINT_WAIT_MS	50
/*
 * Each connection's page cache (PRAGMA cache_size; negative: KiB), 256 KiB
 * instead of SQLite's 2 MiB. A request touches a few pages, except a large
 * secret's overflow pages: with the default, a 2 MiB secret held 2 MiB more at
 * the peak (measured: create 15.1 -> 13.3 MiB, retrieve 15.7 -> 13.9 MiB); a
 * large write now spills to the WAL before its commit instead.
 */
#define CACHE_SIZE		(-256)

/*
 * The statements that delete a secret request's keys or note, or the token
 * of an account mail once it is sent (ST_OUTBOX_FINISH: docs/ACCOUNTS.md,
 * "Tokens"): the WAL is checkpointed after them. A secret's content is
 * sealed under a key of its own (lib/keyslots.c), which sq_key_shred() wipes
 * instead; only content stored unsealed (before version 7) still asks for
 * the checkpoint (sq_key_shred() of slot 0).
 */
static const unsigned char frees_content[ST__MAX] = {
	[ST_RQ_ANSWER] = 1,
	[ST_RQ_READ] = 1,
	[ST_RQ_END] = 1,
	[ST_OUTBOX_FINISH] = 1,
};

struct sqlite_store {
	sqlite3		*db;
	sqlite3_stmt	*st[ST__MAX];
	char		 err[256];
	int		 content_freed;	/* a commit removed content: checkpoint */
	int		 batch;		/* write transactions join one (group commit) */
	int		 batch_open;	/* that transaction is open */
	int		 batch_lost;	/* ... and SQLite rolled it back */
	int		 busy_ms;	/* how long a lock is waited for */
	int64_t		 busy_start;	/* when the current wait began (ms) */
	int		 bulk;		/* cron/cleanup's: it checkpoints itself (sq_bulk()) */
	int		 ckpt_due;	/* a batch's commit made the WAL's checkpoint due (wal_hook()) */
	int		 ckpt_mode;	/* ... which one: PASSIVE, or RESTART at WAL_PAGES_BOUND */
	int		 ckpt_pages;	/* the WAL's length at the last one */
	struct bl_keyslots *keys;	/* <db>-keys (lib/keyslots.c) */
	char		*wlock_path;	/* <db>-lock, a FastCGI responder's (wlock_take()) */
	int		 wlock_fd;	/* -1 until first needed */
	int		 wlock_held;
	int		 wlock_broken;	/* it could not be opened: SQLite's lock alone */
};

/* Maps an SQLite result to an error, keeping a message for the log. */
static enum bl_err
fail(struct sqlite_store *s, sqlite3 *db, int rc, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s: %s (%d)", what,
	    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc);
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return BL_ERR_STORE_BUSY;
	case SQLITE_NOMEM:
		return BL_ERR_INTERNAL;
	default:
		return BL_ERR_STORE_UNAVAILABLE;
	}
}

static const char *
sq_error(void *arg)
{
	return ((struct sqlite_store *)arg)->err;
}

static int	 busy_wait(void *, int);

/*
 * 1 if a statement that found the database busy outside a transaction may run
 * again (after a short wait, within the busy time limit). SQLite returns
 * SQLITE_BUSY without calling the busy handler in a few WAL cases, e.g. while
 * another connection rebuilds the WAL index (SQLITE_BUSY_RECOVERY).
 */
static int
busy_again(struct sqlite_store *s, sqlite3 *db, int rc, int *n)
{
	if ((rc & 0xff) != SQLITE_BUSY || !sqlite3_get_autocommit(db))
		return 0;
	return busy_wait(s, (*n)++);
}

static enum bl_err
exec(struct sqlite_store *s, sqlite3 *db, const char *sql)
{
	int	 rc, n = 0;

	while ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK)
		if (!busy_again(s, db, rc, &n))
			return fail(s, db, rc, sql);
	return BL_OK;
}

static int
user_version(struct sqlite_store *s, sqlite3 *db)
{
	sqlite3_stmt	*st;
	int		 v = -1, rc, n = 0;

	while ((rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL)) !=
	    SQLITE_OK)
		if (!busy_again(s, db, rc, &n))
			return -1;
	while ((rc = sqlite3_step(st)) != SQLITE_ROW && busy_again(s, db, rc, &n))
		sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The VFS of the secrets database: the default one, except that a WAL file
 * that already exists is opened without SQLITE_OPEN_CREATE. SQLite syncs the
 * directory on the first sync of a WAL it opened with CREATE, in case the file
 * is new: one more fsync in every process that writes. The kept WAL's
 * directory entry was synced when it was created. (Should the file vanish
 * between the check and the open, it is opened with CREATE after all.)
 */
#define KEEPWAL_VFS	"burnlink-keepwal"
static sqlite3_vfs	 keepwal_vfs;
static int		(*base_open)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);

static int
keepwal_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct stat	 st;
	int		 rc;

	if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) && name != NULL &&
	    lstat(name, &st) == 0 && S_ISREG(st.st_mode)) {
		rc = base_open(vfs, name, f, flags & ~SQLITE_OPEN_CREATE, out);
		if (rc != SQLITE_CANTOPEN)
			return rc;
	}
	return base_open(vfs, name, f, flags, out);
}

/* Registers keepwal_vfs once per process; its name, or NULL for the default. */
static const char *
keepwal(void)
{
	sqlite3_vfs	*base;

	if (base_open == NULL) {
		if ((base = sqlite3_vfs_find(NULL)) == NULL)
			return NULL;
		keepwal_vfs = *base;
		keepwal_vfs.zName = KEEPWAL_VFS;
		keepwal_vfs.pNext = NULL;
		keepwal_vfs.xOpen = keepwal_open;
		base_open = base->xOpen;
		if (sqlite3_vfs_register(&keepwal_vfs, 0) != SQLITE_OK) {
			base_open = NULL;
			return NULL;
		}
	}
	return KEEPWAL_VFS;
}

/*
 * Waits for a lock in short steps, up to s->busy_ms. SQLite's own busy handler
 * sleeps up to 100 ms between tries, which under concurrent writers leaves
 * the lock idle while the waiters sleep. A writer holds the lock for its
 * commit's fdatasync (0.1-0.4 ms), so the first 40 tries are 50 us apart (the
 * programs set a 1 us timer slack, bl_sandbox(), so that is what they sleep),
 * then 0.5 ms. Returns 0 to give up.
 */
static int
busy_wait(void *arg, int n)
{
	struct sqlite_store	*s = arg;
	struct timespec	 ts;
	int64_t		 now = bl_now_ms();

	if (n == 0)
		s->busy_start = now;
	if (now - s->busy_start >= s->busy_ms)
		return 0;
	ts.tv_sec = 0;
	ts.tv_nsec = (n < 40 ? 50L : 500L) * 1000;
	nanosleep(&ts, NULL);
	return 1;
}

static int	 persistent;	/* a FastCGI responder: connections are kept */

static void
sq_persistent(int on)
{
	persistent = on;
}

static unsigned long	 wlock_waits;	/* times the lock was found taken */

/* How many times this process found the responders' write lock taken (lib/fcgi.c). */
unsigned long
bl_store_lock_waits(void)
{
	return wlock_waits;
}

/* SIGALRM's handler: it only interrupts the flock (wlock_take()). */
static void
on_alarm(int sig)
{
	(void)sig;
}

/*
 * The FastCGI responders' write lock, <db>-lock (an empty file, mode 0600,
 * beside the database). SQLite has one write lock and no way to wait for it
 * but to poll (busy_wait()): with two responders writing, the one that finds
 * it taken tried again every 50 us while the other held it through its
 * batch's syncs, taking the CPU the holder needed (docs/PERFORMANCE.md, "The
 * one-time read, shredded"). A responder therefore takes this file's flock
 * before it opens a write transaction (or a RESTART checkpoint: sq_idle()),
 * sleeping in the kernel while another responder holds it, and lets it go
 * when the transaction ends (COMMIT or ROLLBACK: wlock_drop()); it is held
 * exactly while SQLite's write lock is wanted or held, no longer. SQLite's lock stays the truth: the CGI
 * programs, cron/cleanup and the tools do not take this one, and a responder
 * that waits for them still polls. A responder that dies lets it go with its
 * file descriptor; one that cannot open the file goes without it. The wait
 * is bounded as SQLite's is (s->busy_ms, by a one-shot timer whose SIGALRM
 * interrupts the flock): a holder stuck in its transaction (a disk that
 * stopped answering) does not hold the others for ever, which then go on
 * without the file lock, to SQLite's busy handler and its time limit.
 */
static void
wlock_take(struct sqlite_store *s)
{
	static int		 alarm_set;
	struct sigaction	 sa;
	struct itimerval	 t;
	int			 rc;

	if (s->wlock_path == NULL || s->wlock_held || s->wlock_broken)
		return;
	if (s->wlock_fd < 0 && (s->wlock_fd = open(s->wlock_path,
	    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		s->wlock_broken = 1;
		return;
	}
	if (flock(s->wlock_fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK || s->busy_ms <= 0)
			return;		/* SQLite's lock alone, this time */
		if (!alarm_set) {
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_alarm;	/* no SA_RESTART: flock fails with EINTR */
			sigemptyset(&sa.sa_mask);
			if (sigaction(SIGALRM, &sa, NULL) != 0)
				return;
			alarm_set = 1;
		}
		memset(&t, 0, sizeof(t));
		t.it_value.tv_sec = s->busy_ms / 1000;
		t.it_value.tv_usec = (s->busy_ms % 1000) * 1000L;
		if (setitimer(ITIMER_REAL, &t, NULL) != 0)
			return;
		rc = flock(s->wlock_fd, LOCK_EX);
		memset(&t, 0, sizeof(t));
		setitimer(ITIMER_REAL, &t, NULL);
		wlock_waits++;
		if (rc != 0)
			return;		/* waited s->busy_ms: SQLite's lock alone */
	}
	s->wlock_held = 1;
}

/* Lets the responders' write lock go, once the write transaction has ended. */
static void
wlock_drop(struct sqlite_store *s)
{
	if (!s->wlock_held)
		return;
	flock(s->wlock_fd, LOCK_UN);
	s->wlock_held = 0;
}

/*
 * The checkpoint of a WAL that reached its length (wal_hook()), mode one of
 * SQLITE_CHECKPOINT_*, not waiting for others; db: s->db, or the
 * connection open_db() is still setting up.
 */
static void
wal_checkpoint(struct sqlite_store *s, sqlite3 *db, int mode)
{
	int	 saved = s->busy_ms;

	s->busy_ms = 0;
	sqlite3_wal_checkpoint_v2(db, NULL, mode, NULL, NULL);
	s->busy_ms = saved;
}

/*
 * After each commit: once the WAL holds WAL_PAGES pages, copies them back and
 * truncates it, without waiting for other connections (a busy WAL is tried
 * again at the next commit; what could be copied back meanwhile is). In a
 * FastCGI responder, every WAL_PAGES_KEPT pages more: a batch's commit only
 * notes it, the batch's answers go out first, then sq_idle() checkpoints,
 * PASSIVE (~1,000 scattered pages copied back and the database synced,
 * while the other responder goes on writing), or RESTART once the WAL
 * reaches WAL_PAGES_BOUND (docs/PERFORMANCE.md, "The one-time read,
 * shredded").
 */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct sqlite_store	*s = arg;

	(void)name;
	if (!persistent) {
		if (pages >= WAL_PAGES && !s->bulk)
			wal_checkpoint(s, db, SQLITE_CHECKPOINT_TRUNCATE);
		return SQLITE_OK;
	}
	if (pages < s->ckpt_pages)
		s->ckpt_pages = 0;	/* the WAL started over */
	if (s->bulk)
		return SQLITE_OK;
	/* At the bound, a RESTART after every commit until the WAL starts over. */
	if (pages >= WAL_PAGES_BOUND)
		s->ckpt_mode = SQLITE_CHECKPOINT_RESTART;
	else if (pages >= s->ckpt_pages + WAL_PAGES_KEPT)
		s->ckpt_mode = SQLITE_CHECKPOINT_PASSIVE;
	else
		return SQLITE_OK;
	s->ckpt_pages = pages;
	if (s->batch)
		s->ckpt_due = 1;
	else
		wal_checkpoint(s, db, s->ckpt_mode);
	return SQLITE_OK;
}

/*
 * SQLite's small allocations in a process that serves one request (CGI, the
 * cron job, the admin tool): taken in turn from an arena and never given back
 * one by one, since the process ends soon. A request makes ~375 of them
 * (schema, statements, values), and in a new process each went through
 * glibc's slow path (no freed chunk to reuse yet): with SQLite's wrappers,
 * 25 % of a metadata request's instructions (callgrind; docs/PERFORMANCE.md).
 * Larger ones (page cache pages, big values) and all of them once the arena is
 * full come from malloc. Each block starts with its size, for xSize and
 * xRealloc. The arena is itself taken from the heap, whose first 132 KiB are
 * mapped at start (lib/prefault.c) and no longer hold those allocations: an
 * arena of its own cost 20 more page faults, as much CPU time as it saved on
 * the benchmark machine. 124 KiB (under the 128 KiB mmap threshold that
 * lib/program.c sets): with schema 8's 15 tables a one-time read filled 96
 * KiB and made 284 more allocations through malloc; at 124 KiB all of
 * them fit, 37 K instructions fewer for 3 more page faults (160 KiB,
 * mmapped: 10 more); docs/PERFORMANCE.md, "Per-process costs, second
 * round". BL_ARENA_KIB may be set at compile time to measure. A FastCGI
 * responder keeps SQLite's default allocator, and so do the builds for
 * valgrind, the allocation-failure tests and the sanitizers, which must see
 * every allocation.
 */
#ifndef BL_ARENA_KIB
#define BL_ARENA_KIB	124
#endif
#define ARENA_BYTES	(BL_ARENA_KIB * 1024)	/* under glibc's mmap threshold: from the heap */
#define ARENA_LARGEST	1024

#if !defined(BL_FREE_AT_EXIT) && !defined(BL_SANITIZED)
#define USE_ARENA	1
static unsigned char	*arena;
static size_t		 arena_used;

static void *
arena_malloc(int n)
{
	size_t		 need = 16 + (((size_t)n + 15) & ~(size_t)15);
	int64_t		*h;

	if (n <= ARENA_LARGEST && arena_used + need <= ARENA_BYTES) {
		h = (int64_t *)(void *)(arena + arena_used);
		arena_used += need;
	} else if ((h = malloc(16 + (size_t)n)) == NULL)
		return NULL;
	h[0] = n;
	return h + 2;
}

static int
in_arena(const void *p)
{
	return (const unsigned char *)p >= arena &&
	    (const unsigned char *)p < arena + ARENA_BYTES;
}

static void
arena_free(void *p)
{
	if (!in_arena(p))
		free((int64_t *)p - 2);
}

static int
arena_size(void *p)
{
	return (int)((int64_t *)p - 2)[0];
}

static void *
arena_realloc(void *p, int n)
{
	int64_t		*h = (int64_t *)p - 2;
	void		*q;

	if (!in_arena(p)) {
		if ((h = realloc(h, 16 + (size_t)n)) == NULL)
			return NULL;
		h[0] = n;
		return h + 2;
	}
	if ((q = arena_malloc(n)) != NULL)
		memcpy(q, p, (size_t)(h[0] < n ? h[0] : n));
	return q;
}

static int
arena_roundup(int n)
{
	return (n + 15) & ~15;
}

static int
arena_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void
arena_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods	 arena_methods = {
	arena_malloc, arena_free, arena_realloc, arena_size, arena_roundup,
	arena_init, arena_shutdown, NULL
};
#endif

/*
 * Process-wide settings, before SQLite's first use. No bulk allocation of page
 * cache pages: SQLite otherwise allocates and links 20 of them (~86 KiB) when a
 * connection first reads, each page touched, while a request reads a few
 * (measured: 45 of a metadata request's 157 page faults). No memory
 * statistics: nothing reads them, and keeping them takes a mutex per malloc.
 * The arena above for a process that serves one request.
 */
static void
configure(void)
{
	static int	 done;

	if (done)
		return;
	done = 1;
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
#ifdef USE_ARENA
	if (!persistent && (arena = malloc(ARENA_BYTES)) != NULL &&
	    sqlite3_config(SQLITE_CONFIG_MALLOC, &arena_methods) != SQLITE_OK) {
		free(arena);
		arena = NULL;
	}
#endif
}

/*
 * Columns a later version added to a table that exists since an earlier one:
 * schema.sql's CREATE TABLE IF NOT EXISTS has them for a new database, and
 * its lines "ALTER TABLE t ADD COLUMN c ...;" (bl_schema_sql_added[], taken
 * out of the file by scripts/sql2c.sh -a) add the ones an older database
 * lacks (NULL in its rows): add_columns() runs each where c is missing.
 */

/* Sets *found to whether table has column. */
static enum bl_err
has_column(struct sqlite_store *s, sqlite3 *db, const char *table, const char *column,
    int *found)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((rc = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE "
	    "name = ?2", -1, &st, NULL)) != SQLITE_OK)
		return fail(s, db, rc, "table_info");
	if ((rc = sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC)) == SQLITE_OK &&
	    (rc = sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC)) == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(s, db, rc, "table_info");
	*found = rc == SQLITE_ROW;
	return BL_OK;
}

/* Inside the schema's transaction: runs each ALTER of bl_schema_sql_added[] whose column a table lacks. */
static enum bl_err
add_columns(struct sqlite_store *s, sqlite3 *db)
{
	const char	*const *a;
	char		 table[64], column[64];
	enum bl_err	 e;
	int		 found = 0;

	for (a = bl_schema_sql_added; *a != NULL; a++) {
		if (sscanf(*a, "ALTER TABLE %63s ADD COLUMN %63s", table, column) != 2) {
			snprintf(s->err, sizeof(s->err), "schema.sql: cannot read \"%s\"", *a);
			return BL_ERR_INTERNAL;
		}
		if ((e = has_column(s, db, table, column, &found)) != BL_OK)
			return e;
		if (!found && (e = exec(s, db, *a)) != BL_OK)
			return e;
	}
	return BL_OK;
}

/*
 * Version 8 (schema.sql): the secrets' key hashes are unique under
 * lookup_at, no longer by themselves, and SQLite cannot drop a column's
 * UNIQUE: the table is made anew and its rows moved (lookup_at 0: stored
 * before, found by the hash alone). Inside the schema's transaction,
 * rebuild_secrets() sets the old table aside before schema.sql makes the new
 * one (its indexes dropped, their names free), and moved_secrets() then
 * copies its rows, every column it has, and drops it (secure_delete
 * overwrites its pages). *aside says whether there was one to move.
 */
static enum bl_err
rebuild_secrets(struct sqlite_store *s, sqlite3 *db, int *aside)
{
	enum bl_err	 e;
	int		 table = 0, moved = 1;

	*aside = 0;
	if ((e = has_column(s, db, "secrets", "id", &table)) != BL_OK || !table ||
	    (e = has_column(s, db, "secrets", "lookup_at", &moved)) != BL_OK || moved)
		return e;
	if ((e = exec(s, db, "DROP INDEX IF EXISTS secrets_expires;"
	    "DROP INDEX IF EXISTS secrets_account;"
	    "ALTER TABLE secrets RENAME TO secrets_v7")) != BL_OK)
		return e;
	*aside = 1;
	return BL_OK;
}

static enum bl_err
moved_secrets(struct sqlite_store *s, sqlite3 *db)
{
	sqlite3_stmt	*st;
	char		*sql = NULL;
	enum bl_err	 e;
	int		 rc;

	if ((rc = sqlite3_prepare_v2(db, "SELECT 'INSERT INTO secrets (' || group_concat(name, "
	    "', ') || ') SELECT ' || group_concat(name, ', ') || ' FROM secrets_v7 ORDER BY id' "
	    "FROM pragma_table_info('secrets_v7')", -1, &st, NULL)) != SQLITE_OK)
		return fail(s, db, rc, "secrets_v7");
	if ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
		sql = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (sql == NULL)
		return rc == SQLITE_ROW ? BL_ERR_INTERNAL : fail(s, db, rc, "secrets_v7");
	if ((e = exec(s, db, sql)) == BL_OK)
		e = exec(s, db, "DROP TABLE secrets_v7");
	free(sql);
	return e;
}

/*
 * Opens the secrets database with the connection settings every request
 * needs, and applies the schema if the file is older than BL_SCHEMA_VERSION
 * (once, in one transaction, re-checked under the write lock).
 */
static enum bl_err
open_db(struct sqlite_store *s, const char *path, sqlite3 **out)
{
	static const char set_version[] = "PRAGMA user_version = " BL_STR(BL_SCHEMA_VERSION);
	sqlite3		*db = NULL;
	enum bl_err	 e;
	int		 rc, v, aside = 0;
	char		 pragmas[256];

	configure();
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, keepwal());
	if (rc != SQLITE_OK) {
		e = fail(s, db, rc, path);
		goto err;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_handler(db, busy_wait, s);
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/*
	 * temp_store=MEMORY: a statement journal (a savepoint inside a FastCGI
	 * batch, a large change) otherwise spills to an etilqs_* temp file,
	 * and with it the ciphertext a burn or last view deletes reaches the
	 * disk outside the database, where secure_delete cannot overwrite it.
	 */
	snprintf(pragmas, sizeof(pragmas), "PRAGMA synchronous=FULL;"
	    "PRAGMA secure_delete=ON;PRAGMA trusted_schema=OFF;PRAGMA temp_store=MEMORY;"
	    "PRAGMA journal_size_limit=%d;PRAGMA cache_size=%d;",
	    persistent ? WAL_BYTES_KEPT : WAL_BYTES,
	    CACHE_SIZE);
	if ((e = exec(s, db, pragmas)) != BL_OK)
		goto err;
	sqlite3_wal_hook(db, wal_hook, s);
	if ((v = user_version(s, db)) < 0) {
		e = fail(s, db, sqlite3_errcode(db), path);
		goto err;
	}
	/* Never served by programs older than it (a rollback): docs/API.md, Upgrades. */
	if (v > BL_SCHEMA_VERSION) {
		bl_schema_newer(s->err, sizeof(s->err), v, BL_SCHEMA_VERSION);
		e = BL_ERR_SCHEMA_TOO_NEW;
		goto err;
	}
	if (v < BL_SCHEMA_VERSION) {
		if ((e = exec(s, db, "PRAGMA journal_mode=WAL")) != BL_OK ||
		    (e = exec(s, db, "BEGIN IMMEDIATE")) != BL_OK)
			goto err;
		if (user_version(s, db) < BL_SCHEMA_VERSION &&
		    ((e = rebuild_secrets(s, db, &aside)) != BL_OK ||
		    (e = exec(s, db, bl_schema_sql)) != BL_OK ||
		    (e = add_columns(s, db)) != BL_OK ||
		    (aside && (e = moved_secrets(s, db)) != BL_OK) ||
		    (e = exec(s, db, set_version)) != BL_OK)) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto err;
		}
		if ((e = exec(s, db, "COMMIT")) != BL_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto err;
		}
	}
	/* A FastCGI responder's commits sync the WAL themselves (wal_sync()). */
	if (persistent && (e = exec(s, db, "PRAGMA synchronous=NORMAL")) != BL_OK)
		goto err;
	*out = db;
	return BL_OK;
err:
	sqlite3_close(db);
	return e;
}

/* Opens the secrets database. */
static enum bl_err
sq_open(void **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct sqlite_store	*s;
	enum bl_err	 e;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return BL_ERR_INTERNAL;
	s->busy_ms = BUSY_TIMEOUT_MS;
	s->wlock_fd = -1;
	umask(077);
	if ((s->keys = bl_keyslots_new(cfg->db_path)) == NULL ||
	    (persistent && asprintf(&s->wlock_path, "%s-lock", cfg->db_path) < 0)) {
		bl_keyslots_free(s->keys);
		free(s);
		return BL_ERR_INTERNAL;
	}
	if ((e = open_db(s, cfg->db_path, &s->db)) != BL_OK) {
		snprintf(err, errlen, "%s", s->err);
		bl_keyslots_free(s->keys);
		free(s->wlock_path);
		free(s);
		return e;
	}
	*out = s;
	return BL_OK;
}

/*
 * Removes what a burn or last view left in the WAL: copies it back (where
 * secure_delete has overwritten it) and truncates the WAL, waiting briefly for
 * readers; if they hold it longer, the next such commit or cleanup does it.
 */
static void
checkpoint(struct sqlite_store *s)
{
	s->busy_ms = CHECKPOINT_WAIT_MS;
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	s->busy_ms = BUSY_TIMEOUT_MS;
}

static void
sq_close(void *arg)
{
	struct sqlite_store	*s = arg;
	int			 i;

	if (s == NULL)
		return;
	if (s->content_freed)
		checkpoint(s);
	for (i = 0; i < ST__MAX; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	bl_keyslots_free(s->keys);
	if (s->wlock_fd >= 0)
		close(s->wlock_fd);	/* and with it the lock, if held */
	free(s->wlock_path);
	free(s);
}

/*
 * Readies a store kept open for the next request (FastCGI): the checkpoint a
 * deletion asked for is done now, and out of a batch the one its commit
 * found due (wal_hook()), every statement is reset and unbound (no
 * pointer into the finished request stays bound) and the error text cleared.
 * 0 if the store can be kept; -1 if a transaction is still open (it should
 * never be), in which case the caller closes it.
 */
static int
sq_idle(void *arg)
{
	struct sqlite_store	*s = arg;
	int			 i;

	if (s->content_freed && !s->batch) {
		checkpoint(s);
		s->content_freed = 0;
	}
	if (s->ckpt_due && !s->batch && sqlite3_get_autocommit(s->db)) {
		/* A RESTART takes the write lock: the other responder sleeps meanwhile. */
		if (s->ckpt_mode == SQLITE_CHECKPOINT_RESTART)
			wlock_take(s);
		wal_checkpoint(s, s->db, s->ckpt_mode);
		wlock_drop(s);
		s->ckpt_due = 0;
	}
	for (i = 0; i < ST__MAX; i++)
		if (s->st[i] != NULL) {
			sqlite3_reset(s->st[i]);
			sqlite3_clear_bindings(s->st[i]);
		}
	s->err[0] = '\0';
	s->busy_ms = BUSY_TIMEOUT_MS;
	if (s->db != NULL && !sqlite3_get_autocommit(s->db) && !s->batch_open)
		return -1;		/* closed, the lock with it */
	if (s->db != NULL && sqlite3_get_autocommit(s->db))
		wlock_drop(s);
	return 0;
}

/*
 * A FastCGI responder with no request waiting (lib/fcgi.c): the wipes left
 * in the page cache by commit() go to the disk now. A failure is logged
 * and the wipes stay due (the next commit tries again).
 */
static void
sq_settle(void *arg)
{
	struct sqlite_store	*s = arg;

	if (bl_keyslots_unsynced(s->keys) && bl_keyslots_sync(s->keys) != BL_OK)
		bl_log(NULL, "%s", bl_keyslots_error(s->keys));
}

/* The prepared statement for id, reset and unbound; NULL on failure. */
static sqlite3_stmt *
stmt(struct sqlite_store *s, enum bl_stmt id, const char *sql)
{
	int	 rc;

	if (s->st[id] == NULL) {
		rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
		    &s->st[id], NULL);
		if (rc != SQLITE_OK) {
			fail(s, s->db, rc, "prepare");
			return NULL;
		}
	} else {
		sqlite3_reset(s->st[id]);
		sqlite3_clear_bindings(s->st[id]);
	}
	return s->st[id];
}

/*
 * Binds parameter i, named $i in the statement (lib/store_sql.c). Nothing is
 * copied (SQLITE_STATIC): the run clears every binding before it returns, so
 * no pointer outlives its caller's data.
 */
static int
bind(sqlite3_stmt *st, int i, const struct bl_parm *p)
{
	char	 name[16];
	int	 col;

	snprintf(name, sizeof(name), "$%d", i);
	if ((col = sqlite3_bind_parameter_index(st, name)) == 0)
		return SQLITE_RANGE;
	if (p->null)
		return sqlite3_bind_null(st, col);
	switch (p->type) {
	case BL_P_INT:
	case BL_P_BOOL:
		return sqlite3_bind_int64(st, col, p->i);
	case BL_P_TEXT:
		return sqlite3_bind_text64(st, col, p->p, p->len, SQLITE_STATIC, SQLITE_UTF8);
	default:
		return sqlite3_bind_blob64(st, col, p->len > 0 ? p->p : "", p->len,
		    SQLITE_STATIC);
	}
}

/*
 * Runs statement id (lib/store.h): binds every parameter and checks each bind
 * (one that failed would leave NULL in its place: a lookup would find
 * nothing, a false 404), steps through its rows (a statement that found the
 * database busy before its first row, outside a transaction, runs again
 * within the busy time limit), and resets and unbinds it.
 */
static enum bl_err
sq_run(void *arg, enum bl_stmt id, const char *sql, const struct bl_parm *p, int n,
    bl_row_fn fn, void *fnarg, int64_t *changes)
{
	struct sqlite_store	*s = arg;
	sqlite3_stmt		*st;
	struct bl_row		 row;
	enum bl_err		 e = BL_OK;
	int			 i, rc = SQLITE_OK, k, rows = 0, tries = 0;

	if ((st = stmt(s, id, sql)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	if (sqlite3_bind_parameter_count(st) != n)
		rc = SQLITE_RANGE;	/* a parameter left NULL, or one too many */
	for (i = 0; i < n && rc == SQLITE_OK; i++)
		rc = bind(st, i + 1, &p[i]);
	if (rc != SQLITE_OK) {
		e = fail(s, s->db, rc, "bind");
		goto out;
	}
	row.ops = &bl_sqlite_ops;
	row.h = st;
	row.i = 0;
	for (;;) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			rows++;
			if (fn == NULL || (k = fn(fnarg, &row)) == 0)
				continue;
			if (k < 0)
				e = BL_ERR_INTERNAL;
			rc = SQLITE_DONE;
		} else if (rows == 0 && busy_again(s, s->db, rc, &tries)) {
			sqlite3_reset(st);
			continue;
		}
		break;
	}
	if (e == BL_OK && rc == SQLITE_CONSTRAINT_UNIQUE) {
		snprintf(s->err, sizeof(s->err), "%s", sqlite3_errmsg(s->db));
		e = BL_ERR_EXISTS;
	} else if (e == BL_OK && rc != SQLITE_DONE)
		e = fail(s, s->db, rc, "step");
	if (e == BL_OK && changes != NULL)
		*changes = sqlite3_changes64(s->db);
	if (e == BL_OK && frees_content[id])
		s->content_freed = 1;
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return e;
}

static int64_t
sq_col_int(const struct bl_row *row, int col, int64_t null)
{
	sqlite3_stmt	*st = row->h;

	return sqlite3_column_type(st, col) == SQLITE_NULL ? null :
	    sqlite3_column_int64(st, col);
}

static int
sq_col_blob(const struct bl_row *row, int col, const void **p, size_t *len)
{
	sqlite3_stmt	*st = row->h;

	*p = NULL;
	*len = 0;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	*p = sqlite3_column_blob(st, col);
	*len = (size_t)sqlite3_column_bytes(st, col);
	if (*p == NULL) {
		if (sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM)
			return -1;
		*p = "";	/* an empty value */
		*len = 0;
	}
	return 0;
}

/*
 * A write transaction. In a batch (sq_batch()), the first one opens the
 * batch's transaction and each one is a savepoint inside it: what it did is
 * durable only when the batch commits.
 */
static enum bl_err
sq_begin(void *arg)
{
	struct sqlite_store	*s = arg;
	enum bl_err		 e;

	if (s->batch && s->batch_lost)
		return BL_ERR_STORE_UNAVAILABLE;
	if (!s->batch || !s->batch_open) {
		wlock_take(s);
		if ((e = exec(s, s->db, "BEGIN IMMEDIATE")) != BL_OK) {
			wlock_drop(s);
			return e;
		}
		if (!s->batch)
			return BL_OK;
		s->batch_open = 1;
	}
	return exec(s, s->db, "SAVEPOINT op");
}

/*
 * COMMIT, after the keys written since the last commit are on disk: a new
 * row never points at a key that a power cut could take back. The keys
 * wiped since then: in a CGI program, cron and the tools, on disk too, so
 * that a consumed row's key is gone from the disk before the consumption is
 * durable. A FastCGI responder leaves a wipe in the page cache (every
 * process reads it there, and a crash of the responder keeps it) and syncs
 * it once the oldest unsynced wipe is WIPE_SYNC_MS old, at a commit, or as
 * soon as it has no request waiting (sq_settle(), lib/fcgi.c), after the
 * answers: a batch of one-time reads then pays one fdatasync (the WAL's)
 * instead of two, and none with the write lock held. The price is a window
 * a power cut (not a crash) could find: the consumption durable, the key
 * still on the disk (docs/SECURITY.md, "Gone for good"). If the keys cannot
 * be synced, nothing commits. In a FastCGI responder the COMMIT writes the
 * WAL without syncing it: the caller lets the write lock go, then makes the
 * commit durable with wal_sync() before any answer that rests on it.
 */
#define WIPE_SYNC_MS	100

static enum bl_err
commit(struct sqlite_store *s)
{
	if ((persistent ? bl_keyslots_sync_due(s->keys, WIPE_SYNC_MS) :
	    bl_keyslots_sync(s->keys)) != BL_OK) {
		snprintf(s->err, sizeof(s->err), "%s", bl_keyslots_error(s->keys));
		return BL_ERR_STORE_UNAVAILABLE;
	}
	return exec(s, s->db, "COMMIT");
}

/*
 * Early lock release (docs/PERFORMANCE.md, "Early lock release"): a FastCGI
 * responder's connection runs with synchronous=NORMAL (open_db()), so its
 * COMMIT appends the transaction's frames to the WAL and ends the write
 * transaction without an fdatasync; once both write locks are let go (SQLite's
 * by the COMMIT, <db>-lock by wlock_drop()), this syncs the WAL, and only
 * then may an answer that rests on the commit go out. The other responder
 * writes meanwhile instead of sleeping through our sync. Why no commit is
 * answered before it is durable:
 *   - the WAL is appended in order and fdatasync covers the whole file, so
 *     this sync covers our frames, whoever wrote after them;
 *   - the WAL starts over (its frames overwritten from the start) only after
 *     a checkpoint copied every frame back, and a checkpoint under NORMAL
 *     syncs the WAL before and the database after it (and a restarted WAL's
 *     header is synced): frames overwritten before this sync were durable
 *     in the database already;
 *   - a commit that read what ours wrote before ours was durable is a write,
 *     whose frames follow ours and whose own sync covers ours; or a read,
 *     which may see a commit that a power cut then takes back (no answer of
 *     the committing request was sent; a consumed secret's key was wiped
 *     before the COMMIT, so nothing is served twice: a power cut that keeps
 *     the key's old value also takes back the consumption, or finds it
 *     durable, never serves the row again);
 *   - the checkpoints (wal_hook(), sq_idle(), checkpoint()) keep their syncs.
 * The WAL's own handle (SQLITE_FCNTL_JOURNAL_POINTER), not a descriptor of
 * <db>-wal of our own: it is the file SQLite writes, even should another
 * program have removed and made the WAL anew, it needs no open in the
 * sandbox, and the sync goes through the VFS as SQLite's own does (fdatasync,
 * and the directory's sync when SQLite created the file). A failed sync fails
 * the request or the batch (503): its commit is visible and perhaps not
 * durable, as after any failed fsync. cron/cleanup's steps (sq_bulk()) stay
 * unsynced, as before. Elsewhere (CGI, cron, tools) COMMIT syncs the WAL
 * itself (synchronous=FULL), as before: such a process has nothing else to
 * do meanwhile, and letting the lock go first was not measured there.
 */
static unsigned long	 wal_sync_failures;

/* How many of this process's WAL syncs after a commit failed (lib/fcgi.c). */
unsigned long
bl_store_sync_failures(void)
{
	return wal_sync_failures;
}

static enum bl_err
wal_sync(struct sqlite_store *s)
{
	sqlite3_file	*f = NULL;
	int		 rc;

	if (!persistent || s->bulk)
		return BL_OK;
	rc = sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f);
	if (rc == SQLITE_OK && (f == NULL || f->pMethods == NULL))
		rc = SQLITE_IOERR_FSYNC;	/* no WAL open: it cannot be vouched for */
	if (rc == SQLITE_OK)
		rc = f->pMethods->xSync(f, SQLITE_SYNC_NORMAL);
	if (rc != SQLITE_OK) {
		wal_sync_failures++;
		return fail(s, NULL, rc, "WAL sync");
	}
	return BL_OK;
}

/* Commits when e is BL_OK, else rolls back; returns e or the commit's failure. */
static enum bl_err
finish(struct sqlite_store *s, enum bl_err e)
{
	if (s->batch_open) {
		if (e == BL_OK && (e = exec(s, s->db, "RELEASE op")) == BL_OK)
			return BL_OK;
		sqlite3_exec(s->db, "ROLLBACK TO op; RELEASE op", NULL, NULL, NULL);
		/* Some errors (I/O, disk full) roll back the whole transaction. */
		if (sqlite3_get_autocommit(s->db)) {
			s->batch_open = 0;
			s->batch_lost = 1;
			wlock_drop(s);
		}
		return e;
	}
	if (e == BL_OK && (e = commit(s)) == BL_OK) {
		wlock_drop(s);
		return wal_sync(s);
	}
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	wlock_drop(s);
	return e;
}

static enum bl_err
sq_commit(void *arg)
{
	return finish(arg, BL_OK);
}

static void
sq_rollback(void *arg)
{
	finish(arg, BL_ERR_INTERNAL);
}

/*
 * After a cleanup: copies the WAL back (where secure_delete has overwritten
 * the removed rows) and truncates it, so the removed content leaves the files.
 */
static enum bl_err
sq_purge(void *arg)
{
	struct sqlite_store	*s = arg;
	int			 rc;

	if ((rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL)) != SQLITE_OK)
		return fail(s, s->db, rc, "checkpoint");
	return BL_OK;
}

/*
 * Group commit, for a FastCGI responder that answers several waiting requests
 * at once (lib/fcgi.c): from here on, their write transactions join one, and
 * sq_batch_commit() commits it (a sync of the keys file inside the write
 * lock only for new keys made outside the pool, or wipes 100 ms old:
 * commit()) and syncs the WAL after the lock (wal_sync()); their answers are
 * held until then. Joined, a batch's requests write the pages they share to
 * the WAL once (per-request commits were measured slower:
 * docs/PERFORMANCE.md, "Per-request commits in a batch").
 */
static void
sq_batch(void *arg)
{
	struct sqlite_store	*s = arg;

	if (s->batch)
		return;
	s->batch = 1;
	s->batch_open = s->batch_lost = 0;
}

/* 1 while a write may wait for the batch's commit. */
static int
sq_batching(void *arg)
{
	struct sqlite_store	*s = arg;

	return s->batch && !s->batch_lost;
}

/*
 * Commits what the batch has written so far and lets the write lock go; the
 * batch goes on (the next write opens a new transaction). For a request about
 * to spend long without the database (a passphrase's scrypt). A failure here,
 * or a deferred write that failed (lost), fails the whole batch at
 * sq_batch_commit().
 */
static void
sq_batch_flush(void *arg, int lost)
{
	struct sqlite_store	*s = arg;

	if (!s->batch)
		return;
	if (lost)
		s->batch_lost = 1;
	if (!s->batch_open)
		return;
	if (s->batch_lost || commit(s) != BL_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		s->batch_lost = 1;
		s->batch_open = 0;
		wlock_drop(s);
		return;
	}
	s->batch_open = 0;
	wlock_drop(s);
	/* Committed; durable once the WAL is synced, without the write lock. */
	if (wal_sync(s) != BL_OK)
		s->batch_lost = 1;
}

/* Commits the batch durably, then does the checkpoint a deletion asked for. */
static enum bl_err
sq_batch_commit(void *arg)
{
	struct sqlite_store	*s = arg;
	enum bl_err		 e;

	sq_batch_flush(s, 0);
	e = s->batch_lost ? BL_ERR_STORE_UNAVAILABLE : BL_OK;
	s->batch = s->batch_lost = 0;
	if (e == BL_OK && s->content_freed)
		checkpoint(s);
	s->content_freed = 0;
	return e;
}

/*
 * cron/cleanup's connection (lib/secret.c, bl_store_cleanup()). First: its
 * steps commit without a sync (synchronous=NORMAL, which in WAL mode never
 * corrupts the database: a power cut may undo the last steps, whose rows the
 * next run removes again; the requests' own commits sync the WAL (FULL, or a
 * FastCGI responder's wal_sync()), the cleanup's frames in it too), its
 * commits no longer checkpoint (wal_hook()), and a larger page cache (16
 * MiB) keeps the index pages that every step writes again. Between two
 * steps: a PASSIVE checkpoint copies the step's pages back and syncs the
 * database file while requests go on writing (a TRUNCATE one holds the
 * write lock throughout); the next writer then starts the WAL over.
 * sq_purge() truncates it at the end.
 */
static enum bl_err
sq_bulk(void *arg, int first)
{
	struct sqlite_store	*s = arg;
	int			 rc;

	if (first) {
		s->bulk = 1;
		rc = sqlite3_exec(s->db, "PRAGMA synchronous=NORMAL;PRAGMA cache_size=-16384;",
		    NULL, NULL, NULL);
	} else
		rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	if (rc != SQLITE_OK && rc != SQLITE_BUSY)
		return fail(s, s->db, rc, first ? "bulk" : "checkpoint");
	return BL_OK;
}

/*
 * Crypto-shredding (struct bl_store_ops, key_*; lib/keyslots.c): the keys
 * live in <db>-keys, outside SQLite's files, and are written there in place.
 * What is written is synced by commit() before the next COMMIT (a FastCGI
 * batch's: once for the batch).
 */
static enum bl_err
keys_failed(struct sqlite_store *s, enum bl_err e)
{
	if (e != BL_OK && e != BL_ERR_NOT_FOUND)
		snprintf(s->err, sizeof(s->err), "%s", bl_keyslots_error(s->keys));
	return e;
}

static enum bl_err
sq_key_new(void *arg, int64_t expires_ms, int64_t owner, unsigned char key[32], int64_t *slot)
{
	struct sqlite_store	*s = arg;

	return keys_failed(s, bl_keyslots_claim(s->keys, expires_ms, owner, key, slot));
}

static enum bl_err
sq_key_get(void *arg, int64_t slot, int64_t owner, unsigned char key[32])
{
	struct sqlite_store	*s = arg;

	return keys_failed(s, bl_keyslots_get(s->keys, slot, owner, key));
}

/* Wipes slot; slot 0: content stored unsealed went, the WAL is checkpointed after the commit. */
static enum bl_err
sq_key_shred(void *arg, int64_t slot, int64_t owner)
{
	struct sqlite_store	*s = arg;

	if (slot <= 0) {
		s->content_freed = 1;
		return BL_OK;
	}
	return keys_failed(s, bl_keyslots_wipe(s->keys, slot, owner));
}

static enum bl_err
sq_key_expire(void *arg, int64_t now_ms)
{
	struct sqlite_store	*s = arg;
	int64_t			 wiped;

	return keys_failed(s, bl_keyslots_expire(s->keys, now_ms, &wiped));
}

/*
 * Where SQLite speaks otherwise than lib/store_sql.c. A new secret's id
 * (the table's B-tree key) is (lookup_at << 20) + n, the next n free under
 * its lookup_at (its expiry in seconds): rows that expire together sit
 * together, in the table as in the attachments (keyed by secret_id), so that
 * a cleanup step rewrites few pages (docs/PERFORMANCE.md, "Cleanup in
 * steps"). Ids stay below 2^52, exact in a JavaScript number. The 2^20th
 * secret of one second (none so far) takes SQLite's own next id.
 */
#define ID_SPAN	"1048576"	/* 2^20 */
static const char *const sq_dialect[ST__MAX] = {
	[ST_INSERT_SECRET] = "INSERT INTO secrets (id, " BL_NEW_COLUMNS ") VALUES ((SELECT "
	    "CASE WHEN max(id) IS NULL THEN " BL_NEW_AT " * " ID_SPAN " WHEN max(id) < ("
	    BL_NEW_AT " + 1) * " ID_SPAN " - 1 THEN max(id) + 1 END FROM secrets WHERE id >= "
	    BL_NEW_AT " * " ID_SPAN " AND id < (" BL_NEW_AT " + 1) * " ID_SPAN "), "
	    BL_NEW_VALUES ") RETURNING id",
};

const struct bl_store_ops bl_sqlite_ops = {
	sq_dialect, sq_open, sq_close, sq_idle, sq_error, sq_persistent, sq_begin, sq_commit,
	sq_rollback, sq_run, NULL, sq_col_int, sq_col_blob, sq_purge,
	sq_batch, sq_batching, sq_batch_flush, sq_batch_commit, sq_bulk,
	sq_key_new, sq_key_get, sq_key_shred, sq_key_expire, sq_settle
};
