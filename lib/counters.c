/* counters.c (layer: storage): the rate-limit counters beside a SQLite database: a hash table in one file that grows as it fills (struct bl_counter_ops). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

/*
 * A request is counted on every call, so the counters must cost little: no
 * SQLite connection, schema or WAL, just one open file. The file is a header
 * page and N slots of 32 bytes, N a power of two from CTR_MIN_SLOTS to
 * CTR_MAX_SLOTS, written in the header (docs/ADMIN.md, "Where the counters
 * live"). An entry, the count of one bucket (the first 16 bytes of its
 * HMAC-SHA-256) in one window, lives in one of the CTR_PROBE slots from its
 * home slot on; an operation reads those slots (2 KiB) and writes back the one
 * it changes, under flock(LOCK_EX). Nothing is synced: like the SQLite store
 * with synchronous=OFF before it, a count lost to a power cut is acceptable,
 * and an entry damaged by one is ignored (see valid()). A process killed
 * mid-operation loses its lock with its descriptor.
 *
 * Capacity: the table grows. Should all CTR_PROBE slots of a home be taken
 * by live windows, the holder of the lock writes a table of twice the slots
 * beside the file (every live entry moved to its new home), renames it over
 * the file and goes on there; a process that then gets the old file's lock
 * sees that the path names another file and opens it (lock()). No live count
 * is ever given up and no client under its limit is refused for want of
 * room: a new entry is refused (503 RATE_LIMIT_UNAVAILABLE, logged) only when
 * the new table cannot be written (a full disk) or would pass CTR_MAX_SLOTS
 * (2 GiB, some 50 million live entries). cron/cleanup writes a smaller table
 * once at most an eighth of the slots are live (rebuild()).
 */
#define CTR_MAGIC	"BLCTR01\n"
#define CTR_HEADER	4096
#define CTR_MIN_SLOTS	131072u
#define CTR_MAX_SLOTS	(1u << 26)
#define CTR_SLOT	32
#define CTR_PROBE	64
#define CTR_SIZE(n)	((off_t)CTR_HEADER + (off_t)(n) * CTR_SLOT)
#define CTR_WAIT_MS	5000
#define CTR_REOPEN	8	/* files replaced under us in a row before giving up */
/*
 * The metrics' totals (lib/metrics.c) live in the header page, after the
 * 16 bytes of the header proper: BL_METRIC_SLOTS 64-bit little-endian
 * numbers from CTR_METRICS on. clean() reads and writes only the slots, so a
 * cleanup leaves them; an older file has zeros there, and takes them.
 */
#define CTR_METRICS	1024

struct bl_counters {
	int		 fd;		/* -1 until first use */
	dev_t		 dev;		/* the open file's (for stale()) */
	ino_t		 ino;
	unsigned long	 seen;		/* the batch the path was last compared in (lock()) */
	int		 retired;	/* a read found the file emptied by a rebuild() */
	uint32_t	 slots;		/* of the open file, once checked (0: not yet) */
	char		*path;		/* a copy: a kept store outlives its request */
	char		*tmp;		/* path + ".new": a table being written */
	char		 err[256];
	char		 msg[512];	/* the path and err, for the log */
};

/* One slot as stored (little-endian integers). */
struct slot {
	unsigned char	 bucket[16];
	uint32_t	 start;
	uint32_t	 end;
	uint32_t	 count;
	uint32_t	 zero;
};

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void
decode(const unsigned char *p, struct slot *s)
{
	memcpy(s->bucket, p, 16);
	s->start = le32(p + 16);
	s->end = le32(p + 20);
	s->count = le32(p + 24);
	s->zero = le32(p + 28);
}

static void
encode(const struct slot *s, unsigned char *p)
{
	memcpy(p, s->bucket, 16);
	put32(p + 16, s->start);
	put32(p + 20, s->end);
	put32(p + 24, s->count);
	put32(p + 28, 0);
}

/* 1 if a slot holds an entry: a window of a length the limits use, aligned. */
static int
valid(const struct slot *s)
{
	uint32_t	 len = s->end - s->start;

	return s->end > s->start && (len == 60 || len == 3600 || len == 86400) &&
	    s->start % len == 0 && s->zero == 0;
}

/* 1 if a slot holds an entry whose window has not ended at now. */
static int
live(const struct slot *s, int64_t now)
{
	return valid(s) && (int64_t)s->end > now;
}

/* 1 if n is a slot count a file may have. */
static int
good_slots(uint32_t n)
{
	return n >= CTR_MIN_SLOTS && n <= CTR_MAX_SLOTS && (n & (n - 1)) == 0;
}

static enum bl_err
fail(struct bl_counters *c, const char *what, int err)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, strerror(err));
	return BL_ERR_RATE_LIMIT_UNAVAILABLE;
}

static const char *
ctr_error(void *arg)
{
	struct bl_counters	*c = arg;

	snprintf(c->msg, sizeof(c->msg), "%s: %s", c->path, c->err);
	return c->msg;
}

/* Takes the file's lock, polling for up to CTR_WAIT_MS. */
static enum bl_err
acquire(struct bl_counters *c)
{
	struct timespec	 ts = {0, 20 * 1000};
	int64_t		 start = 0;

	while (flock(c->fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return fail(c, "lock", errno);
		if (start == 0)
			start = bl_now_ms();
		else if (bl_now_ms() - start >= CTR_WAIT_MS) {
			snprintf(c->err, sizeof(c->err), "lock: held by another "
			    "process for more than %d ms", CTR_WAIT_MS);
			return BL_ERR_RATE_LIMIT_UNAVAILABLE;
		}
		nanosleep(&ts, NULL);
	}
	return BL_OK;
}

static void
unlock(struct bl_counters *c)
{
	flock(c->fd, LOCK_UN);
}

/* The result of a pread() or pwrite() of len bytes: a short one is EIO (read) or ENOSPC (write). */
static enum bl_err
done(struct bl_counters *c, ssize_t n, size_t len, const char *what, int shortly)
{
	if (n == (ssize_t)len)
		return BL_OK;
	return fail(c, what, n >= 0 ? shortly : errno);
}

/*
 * A short read under the lock: the file was emptied by another process's
 * rebuild() after it renamed the new table over the path (its size was
 * checked when it was opened), so the operation starts again on the path's
 * file (retire(), again()).
 */
static enum bl_err
readall(struct bl_counters *c, void *buf, size_t len, off_t off)
{
	ssize_t	 n = pread(c->fd, buf, len, off);

	if (n >= 0 && (size_t)n < len)
		c->retired = 1;
	return done(c, n, len, "read", EIO);
}

static enum bl_err
writeall(struct bl_counters *c, const void *buf, size_t len, off_t off)
{
	return done(c, pwrite(c->fd, buf, len, off), len, "write", ENOSPC);
}

/* The first 16 bytes of the header of a table of n slots. */
static void
header(unsigned char h[16], uint32_t n)
{
	memset(h, 0, 16);
	memcpy(h, CTR_MAGIC, 8);
	put32(h + 8, n);
	put32(h + 12, CTR_SLOT);
}

/*
 * Checks the header under the lock and sets c->slots; writes the header into
 * a new (empty, or all-zero after a crash) file. Anything else than a
 * counters file whose size matches its slot count is refused: the limiter
 * then fails closed.
 */
static enum bl_err
check(struct bl_counters *c)
{
	unsigned char	 h[16], want[16], zero[16] = {0};
	struct stat	 st;
	uint32_t	 n;
	enum bl_err	 e;

	if (fstat(c->fd, &st) != 0)
		return fail(c, "stat", errno);
	if (!S_ISREG(st.st_mode)) {
		snprintf(c->err, sizeof(c->err), "not a regular file");
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	if (st.st_size == 0 && ftruncate(c->fd, CTR_SIZE(CTR_MIN_SLOTS)) != 0)
		return fail(c, "size", errno);
	n = st.st_size == 0 ? CTR_MIN_SLOTS :
	    (uint32_t)((st.st_size - CTR_HEADER) / CTR_SLOT);
	if (st.st_size != 0 && (st.st_size < CTR_SIZE(CTR_MIN_SLOTS) ||
	    st.st_size > CTR_SIZE(CTR_MAX_SLOTS) || st.st_size != CTR_SIZE(n) ||
	    !good_slots(n))) {
		snprintf(c->err, sizeof(c->err), "not a burnlink counters file "
		    "(%lld bytes, expected %lld for %u slots, or twice the slots)",
		    (long long)st.st_size, (long long)CTR_SIZE(CTR_MIN_SLOTS),
		    CTR_MIN_SLOTS);
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	header(want, n);
	if ((e = readall(c, h, sizeof(h), 0)) != BL_OK)
		return e;
	if (memcmp(h, zero, sizeof(h)) == 0)
		e = writeall(c, want, sizeof(want), 0);
	else if (memcmp(h, want, sizeof(h)) != 0) {
		snprintf(c->err, sizeof(c->err), "not a burnlink counters file "
		    "(unknown header)");
		e = BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	if (e == BL_OK)
		c->slots = n;
	return e;
}

/*
 * 1 if the path no longer names the open file: a larger or smaller table was
 * renamed over it (rebuild()), or an operator deleted or replaced it to reset
 * the counters.
 */
static int
stale(const struct bl_counters *c)
{
	struct stat	 b;

	if (lstat(c->path, &b) != 0)
		return 1;
	return c->dev != b.st_dev || c->ino != b.st_ino;
}

/* Records the identity of the file just opened as c->fd; -1 (errno) if fstat() fails. */
static int
opened(struct bl_counters *c)
{
	struct stat	 st;

	if (fstat(c->fd, &st) != 0)
		return -1;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	return 0;
}

/* Closes the open file (its lock with it). */
static void
drop(struct bl_counters *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->slots = 0;
	c->seen = 0;
	c->retired = 0;
}

/*
 * After an operation, unlocked: 1 if a read found its file retired by
 * another process's rebuild(), which is then closed so that the operation
 * can start again on the path's file, at most CTR_REOPEN times.
 */
static int
again(struct bl_counters *c, int *tries)
{
	if (!c->retired || ++*tries >= CTR_REOPEN)
		return 0;
	drop(c);
	c->err[0] = '\0';
	return 1;
}

/*
 * Takes the lock of the file the path names, opening it (created, mode 0600)
 * on first use or when the path has come to name another file since; the
 * first time, checks (or writes) the header under it.
 */
static enum bl_err
lock(struct bl_counters *c)
{
	unsigned long	 batch = bl_config_epoch();
	enum bl_err	 e;
	int		 tries;

	for (tries = 0; tries < CTR_REOPEN; tries++) {
		if (c->fd < 0) {
			if ((c->fd = open(c->path, O_RDWR | O_CREAT | O_NOFOLLOW |
			    O_CLOEXEC, 0600)) < 0)
				return fail(c, "open", errno);
			if (opened(c) != 0) {
				e = fail(c, "stat", errno);
				drop(c);
				return e;
			}
		}
		if ((e = acquire(c)) != BL_OK)
			return e;
		/*
		 * Whether the path still names the open file: under every lock,
		 * but in a FastCGI batch (batch not 0) once, after the file's
		 * opening and check: a rebuild() by another process after that
		 * empties the file it replaced, which the next read notices
		 * (readall()).
		 */
		if ((batch == 0 || c->seen != batch || c->slots == 0) && stale(c)) {
			drop(c);
			continue;
		}
		c->seen = batch;
		if (c->slots == 0 && (e = check(c)) != BL_OK) {
			unlock(c);
			return e;
		}
		return BL_OK;
	}
	snprintf(c->err, sizeof(c->err), "the file was replaced %d times in a row "
	    "while its lock was awaited", CTR_REOPEN);
	return BL_ERR_RATE_LIMIT_UNAVAILABLE;
}

/* The counters of cfg: the file at its limits_path, opened on first use. */
static enum bl_err
ctr_open(void **out, const struct bl_config *cfg)
{
	struct bl_counters	*c;
	size_t			 len = strlen(cfg->limits_path);

	if ((*out = c = calloc(1, sizeof(*c))) == NULL)
		return BL_ERR_INTERNAL;
	c->fd = -1;
	if ((c->path = strdup(cfg->limits_path)) == NULL ||
	    (c->tmp = malloc(len + sizeof(".new"))) == NULL) {
		free(c->path);
		free(c);
		*out = NULL;
		return BL_ERR_INTERNAL;
	}
	memcpy(c->tmp, cfg->limits_path, len);
	memcpy(c->tmp + len, ".new", sizeof(".new"));
	umask(077);
	return BL_OK;
}

/* Readies the counters kept for the next request (FastCGI). */
static int
ctr_idle(void *arg)
{
	struct bl_counters	*c = arg;

	c->err[0] = '\0';
	return 0;
}

static void
ctr_close(void *arg)
{
	struct bl_counters	*c = arg;

	if (c == NULL)
		return;
	drop(c);
	free(c->path);
	free(c->tmp);
	free(c);
}

/* The first of the CTR_PROBE slots an entry can be in, in a table of n slots. */
static uint32_t
home(const unsigned char *bucket, uint32_t start, uint32_t n)
{
	return (le32(bucket) + start * 2654435761u) % (n - CTR_PROBE + 1);
}

/*
 * Copies every entry of from (nfrom slots) that is live at now into the
 * empty table to (nto slots); -1 if some home of to has no free slot left.
 */
static int
move_live(const unsigned char *from, uint32_t nfrom, unsigned char *to, uint32_t nto,
    int64_t now)
{
	struct slot	 s, t;
	uint32_t	 i, first;
	int		 j;

	for (i = 0; i < nfrom; i++) {
		decode(from + (size_t)i * CTR_SLOT, &s);
		if (!live(&s, now))
			continue;
		first = home(s.bucket, s.start, nto);
		for (j = 0; j < CTR_PROBE; j++) {
			decode(to + ((size_t)first + (size_t)j) * CTR_SLOT, &t);
			if (!valid(&t))
				break;
		}
		if (j == CTR_PROBE)
			return -1;
		encode(&s, to + ((size_t)first + (size_t)j) * CTR_SLOT);
	}
	return 0;
}

/*
 * Writes the live entries of the locked file into a new table of n slots (or
 * more, doubling, if some home of it overflows) beside it, and renames that
 * over the path: c then holds the new file, unlocked. The space is reserved
 * first (posix_fallocate), so a full disk is an error, not a fault.
 */
static enum bl_err
rebuild(struct bl_counters *c, uint32_t n, int64_t now)
{
	unsigned char	*from = MAP_FAILED, *to;
	off_t		 oldsize = CTR_SIZE(c->slots);
	enum bl_err	 e = BL_OK;
	int		 fd = -1, rc;

	if ((from = mmap(NULL, (size_t)oldsize, PROT_READ, MAP_SHARED, c->fd, 0)) ==
	    MAP_FAILED)
		return fail(c, "map", errno);
	for (; n <= CTR_MAX_SLOTS; n *= 2) {
		if ((unlink(c->tmp) != 0 && errno != ENOENT) ||
		    (fd = open(c->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600)) < 0) {
			e = fail(c, "create the new table", errno);
			goto out;
		}
		if ((rc = posix_fallocate(fd, 0, CTR_SIZE(n))) != 0) {
			e = fail(c, "size the new table", rc);
			goto out;
		}
		if ((to = mmap(NULL, (size_t)CTR_SIZE(n), PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0)) == MAP_FAILED) {
			e = fail(c, "map the new table", errno);
			goto out;
		}
		header(to, n);
		/* the metrics' totals go with the table (lib/metrics.c) */
		memcpy(to + CTR_METRICS, from + CTR_METRICS, BL_METRIC_SLOTS * 8);
		rc = move_live(from + CTR_HEADER, c->slots, to + CTR_HEADER, n, now);
		munmap(to, (size_t)CTR_SIZE(n));
		if (rc == 0)
			break;
		close(fd);
		fd = -1;
	}
	if (n > CTR_MAX_SLOTS) {
		snprintf(c->err, sizeof(c->err), "counters table full: %u slots, the most "
		    "it may have; refused rather than drop a live count", CTR_MAX_SLOTS);
		e = BL_ERR_RATE_LIMIT_UNAVAILABLE;
		goto out;
	}
	if (rename(c->tmp, c->path) != 0) {
		e = fail(c, "rename the new table", errno);
		goto out;
	}
	/*
	 * The old file, which other processes may still hold, emptied: their
	 * next read under its lock comes back short (readall()), and they start
	 * again on the new one rather than count in a file no path names. Should
	 * that fail, the new table is in place all the same: said in the log.
	 */
	if (ftruncate(c->fd, 0) != 0)
		bl_log(NULL, "counters: the replaced table could not be emptied: %s",
		    strerror(errno));
	drop(c);
	c->fd = fd;
	c->slots = n;
	fd = -1;
	if (opened(c) != 0)
		drop(c);	/* opened again by the next lock() */
out:
	munmap(from, (size_t)oldsize);
	if (fd >= 0) {
		close(fd);
		unlink(c->tmp);
	}
	return e;
}

/* A window start or end as stored; 0 for a time the file cannot hold. */
static uint32_t
t32(int64_t t)
{
	return t > 0 && t <= UINT32_MAX ? (uint32_t)t : 0;
}

/*
 * The operation on one entry: reads its slots under the lock; *found is the
 * index of its slot or -1, *fresh the first free slot a new entry would take
 * (empty, damaged or ended), or -1 when every slot holds a live entry.
 */
struct probe {
	unsigned char	 buf[CTR_PROBE * CTR_SLOT];
	uint32_t	 first;
	int		 found;
	int		 fresh;
	struct slot	 s;
};

static enum bl_err
find(struct bl_counters *c, const unsigned char bucket[BL_HASH_BYTES], uint32_t start,
    int64_t now, struct probe *p)
{
	struct slot	 s;
	enum bl_err	 e;
	int		 i;

	p->first = home(bucket, start, c->slots);
	p->found = p->fresh = -1;
	if ((e = readall(c, p->buf, sizeof(p->buf),
	    CTR_HEADER + (off_t)p->first * CTR_SLOT)) != BL_OK)
		return e;
	for (i = 0; i < CTR_PROBE; i++) {
		decode(p->buf + i * CTR_SLOT, &s);
		if (!live(&s, now)) {
			if (p->fresh < 0)
				p->fresh = i;
			continue;
		}
		if (s.start == start && memcmp(s.bucket, bucket, 16) == 0) {
			p->found = i;
			p->s = s;
			return BL_OK;
		}
	}
	return BL_OK;
}

/* Writes p->s into slot i of the probe. */
static enum bl_err
store(struct bl_counters *c, struct probe *p, int i)
{
	unsigned char	 b[CTR_SLOT];

	encode(&p->s, b);
	return writeall(c, b, sizeof(b), CTR_HEADER + (off_t)(p->first + (uint32_t)i) * CTR_SLOT);
}

/*
 * Sets an entry to count (add: adds count to it instead), creating it if
 * needed; count 0 without add removes it. The resulting count in *out. An
 * entry with no free slot near its home first doubles the table (rebuild()).
 */
static enum bl_err
update(struct bl_counters *c, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t count, int add, int64_t *out)
{
	struct probe	 p;
	uint32_t	 start = t32(window_start), end = t32(expires);
	int64_t		 now = bl_now_ms() / 1000, n;
	enum bl_err	 e;
	int		 i, tries = 0;

	if (start == 0 || end <= start)
		return fail(c, "window", ERANGE);
again:
	if ((e = lock(c)) != BL_OK)
		return e;
	if ((e = find(c, bucket, start, now, &p)) != BL_OK)
		goto out;
	n = (p.found >= 0 && add ? (int64_t)p.s.count : 0) + count;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	if ((i = p.found) < 0) {
		if (n == 0)
			goto done;
		if ((i = p.fresh) < 0) {
			if ((e = rebuild(c, c->slots * 2, now)) != BL_OK)
				goto out;
			goto again;	/* c holds the new file, unlocked */
		}
		memcpy(p.s.bucket, bucket, 16);
		p.s.start = start;
		p.s.end = end;
	}
	if (n == 0)
		memset(&p.s, 0, sizeof(p.s));
	p.s.count = (uint32_t)n;
	if ((e = store(c, &p, i)) != BL_OK)
		goto out;
done:
	if (out != NULL)
		*out = n;
out:
	unlock(c);
	if (e != BL_OK && again(c, &tries))
		goto again;
	return e;
}

/* Adds one to the counter of bucket in a window; the new count in *count. */
static enum bl_err
ctr_add(void *c, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t expires, int64_t *count)
{
	return update(c, bucket, window_start, expires, 1, 1, count);
}

/* Sets the count of bucket in a window (an operator's correction); 0 removes it. */
static enum bl_err
ctr_set(void *c, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t expires, int64_t count)
{
	return update(c, bucket, window_start, expires, count, 0, NULL);
}

/* The count of bucket in the window starting at window_start (0 if none). */
static enum bl_err
ctr_get(void *arg, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t *count)
{
	struct bl_counters	*c = arg;
	struct probe	 p;
	uint32_t	 start = t32(window_start);
	enum bl_err	 e;
	int		 tries = 0;

	*count = 0;
	if (start == 0)
		return BL_OK;
	do {
		if ((e = lock(c)) != BL_OK)
			return e;
		if ((e = find(c, bucket, start, bl_now_ms() / 1000, &p)) == BL_OK &&
		    p.found >= 0)
			*count = p.s.count;
		unlock(c);
	} while (e != BL_OK && again(c, &tries));
	return e;
}

/*
 * Clears the ended (or damaged) entries of one CTR_CHUNK of slots at off
 * under the lock, so that no request waits for more than one chunk; adds to
 * *removed and *kept.
 */
#define CTR_CHUNK	65536
static enum bl_err
clean_chunk(struct bl_counters *c, unsigned char *buf, off_t off, int64_t now,
    int64_t *removed, uint64_t *kept)
{
	struct slot	 s;
	enum bl_err	 e;
	size_t		 i, len;
	int		 dirty = 0;

	len = off + CTR_CHUNK <= CTR_SIZE(c->slots) ? CTR_CHUNK :
	    (size_t)(CTR_SIZE(c->slots) - off);
	if ((e = readall(c, buf, len, off)) != BL_OK)
		return e;
	for (i = 0; i < len; i += CTR_SLOT) {
		decode(buf + i, &s);
		if (s.start == 0 && s.end == 0 && s.count == 0 && s.zero == 0)
			continue;
		if (live(&s, now)) {
			(*kept)++;
			continue;
		}
		memset(buf + i, 0, CTR_SLOT);
		(*removed)++;
		dirty = 1;
	}
	return dirty ? writeall(c, buf, len, off) : BL_OK;
}

/*
 * Clears every ended (or damaged) entry, a chunk at a time, their number in
 * *removed; then, if at most an eighth of the slots of a grown table are
 * live, writes a table of four times as many slots as live entries
 * (CTR_MIN_SLOTS at least), which holds the lock for one pass over it.
 */
static enum bl_err
ctr_clean(void *arg, int64_t now, int64_t *removed)
{
	struct bl_counters	*c = arg;
	static unsigned char	 buf[CTR_CHUNK];
	enum bl_err		 e = BL_OK;
	uint64_t		 kept = 0;
	uint32_t		 n, slots = 0;
	off_t			 off;
	int			 same = 1;

	*removed = 0;
	for (off = CTR_HEADER; ; off += CTR_CHUNK) {
		if ((e = lock(c)) != BL_OK)
			return e;
		if (slots == 0)
			slots = c->slots;
		same = same && slots == c->slots;	/* not replaced meanwhile */
		if (off >= CTR_SIZE(c->slots))
			break;
		e = clean_chunk(c, buf, off, now, removed, &kept);
		unlock(c);
		if (e != BL_OK)
			return e;
	}
	if (same && c->slots > CTR_MIN_SLOTS && kept <= c->slots / 8) {
		for (n = CTR_MIN_SLOTS; n < kept * 4; n *= 2)
			;
		if ((e = rebuild(c, n, now)) == BL_OK)
			return BL_OK;	/* c holds the new file, unlocked */
	}
	unlock(c);
	return e;
}

static int64_t
le64(const unsigned char *p)
{
	return (int64_t)((uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32);
}

/*
 * Adds by to each of the n metrics totals in slots (distinct): the totals
 * from the lowest slot to the highest read in one pread() and written back
 * in one pwrite() under one lock (those between are written as they were
 * read: every writer holds the lock).
 */
static enum bl_err
ctr_bump(void *arg, const unsigned *slots, int n, int64_t by)
{
	struct bl_counters	*c = arg;
	unsigned char		 b[BL_METRIC_SLOTS * 8], *p;
	unsigned		 lo = BL_METRIC_SLOTS, hi = 0;
	uint64_t		 v;
	size_t			 len;
	enum bl_err		 e;
	int			 i, tries = 0;

	for (i = 0; i < n; i++) {
		if (slots[i] >= BL_METRIC_SLOTS)
			return fail(c, "metric", ERANGE);
		lo = slots[i] < lo ? slots[i] : lo;
		hi = slots[i] > hi ? slots[i] : hi;
	}
	if (n <= 0)
		return BL_OK;
	len = (size_t)(hi - lo + 1) * 8;
	do {
		if ((e = lock(c)) != BL_OK)
			return e;
		if ((e = readall(c, b, len, CTR_METRICS + (off_t)lo * 8)) == BL_OK) {
			for (i = 0; i < n; i++) {
				p = b + (size_t)(slots[i] - lo) * 8;
				v = (uint64_t)le64(p) + (uint64_t)by;
				put32(p, (uint32_t)v);
				put32(p + 4, (uint32_t)(v >> 32));
			}
			e = writeall(c, b, len, CTR_METRICS + (off_t)lo * 8);
		}
		unlock(c);
	} while (e != BL_OK && again(c, &tries));
	return e;
}

/* Reads every metrics total. */
static enum bl_err
ctr_totals(void *arg, int64_t out[BL_METRIC_SLOTS])
{
	struct bl_counters	*c = arg;
	unsigned char		 b[BL_METRIC_SLOTS * 8];
	enum bl_err		 e;
	unsigned		 i;
	int			 tries = 0;

	do {
		if ((e = lock(c)) != BL_OK)
			return e;
		e = readall(c, b, sizeof(b), CTR_METRICS);
		unlock(c);
	} while (e != BL_OK && again(c, &tries));
	for (i = 0; i < BL_METRIC_SLOTS; i++)
		out[i] = e == BL_OK ? le64(b + i * 8) : 0;
	return e;
}

/*
 * The live entries (a window not ended) of the whole table, read without the
 * lock a chunk at a time (a gauge: an entry torn by a concurrent write is
 * counted as it happens to read), and the table's size.
 */
static enum bl_err
ctr_occupancy(void *arg, int64_t now, int64_t *used, int64_t *capacity)
{
	struct bl_counters	*c = arg;
	static unsigned char	 buf[65536];
	struct slot		 s;
	off_t			 off;
	enum bl_err		 e;
	size_t			 i;

	off_t			 size;
	int			 tries = 0;

start:
	*used = 0;
	if ((e = lock(c)) != BL_OK)	/* opens it and checks the header: c->slots */
		return e;
	*capacity = c->slots;
	size = CTR_SIZE(c->slots);
	unlock(c);
	for (off = CTR_HEADER; off + (off_t)sizeof(buf) <= size; off += sizeof(buf)) {
		if ((e = readall(c, buf, sizeof(buf), off)) != BL_OK) {
			if (again(c, &tries))
				goto start;	/* replaced by a larger or smaller table */
			return e;
		}
		for (i = 0; i < sizeof(buf); i += CTR_SLOT) {
			decode(buf + i, &s);
			if (valid(&s) && (int64_t)s.end > now)
				(*used)++;
		}
	}
	return BL_OK;
}

const struct bl_counter_ops bl_counters_file_ops = {
	ctr_open, ctr_add, ctr_get, ctr_set, ctr_clean, ctr_bump, ctr_totals, ctr_occupancy,
	ctr_idle, ctr_error, ctr_close
};
