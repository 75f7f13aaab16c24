/* keyslots.c (layer: storage): the per-secret keys beside a SQLite database, one fixed slot each, overwritten in place to shred a secret (docs/SECURITY.md, "Gone for good"). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

/*
 * Crypto-shredding. Each secret's stored content is sealed (AES-256-GCM,
 * lib/secret.c) under a random key of its own, which lives here and nowhere
 * else: not in the database, so not in its WAL, its free pages or a backup of
 * it. Deleting the content overwrites the key's 64 bytes in place; whatever
 * copies of the sealed content SQLite's WAL or free list still hold can then
 * be decrypted by no one. The file is a header page and N slots of KS_SLOT
 * bytes:
 *
 *   key (32) | expires_ms (8, LE) | owner (8, LE) | check (16)
 *
 * check is the first 16 bytes of SHA-256(slot number, key, expires, owner):
 * a slot torn by a power cut, or a stray write, fails it and is treated as
 * gone (the content it sealed is unreadable, never wrongly decrypted: GCM's
 * tag would fail too). An all-zero slot is free. owner is the secret's
 * creation time in ms: a wipe or read names it, so that a slot reused by a
 * new secret after cron/cleanup wiped the old one's is never taken for the
 * old one's.
 *
 * A claim takes the file's flock, reads KS_PROBE slots from a random one,
 * writes the first free one and lets the lock go; when KS_TRIES such windows
 * in a row hold no free slot, the file doubles (ftruncate: the new slots are
 * zero). Taking the first free slot of a window packs the used ones into
 * runs (as linear probing does), so one full window says little about the
 * file: doubling at the first one grew a file of 60,000 keys to 4 M slots
 * (268 MB, 138 MB of it written: docs/PERFORMANCE.md, "The one-time read,
 * shredded"). Writes are not synced
 * here: the store syncs the file (bl_keyslots_sync()) before the commit that
 * makes a new row point at its slot or a consumed row stop pointing at
 * content, so a committed row's key is on disk before the row, and a wiped
 * key is gone from the disk before the consumption is (lib/store_sqlite.c).
 *
 * The pool: so that a create does not pay that sync (one more fdatasync per
 * CGI create, per FastCGI batch), keys are made KS_FILL at a time ahead of
 * need, synced once, and listed in the header; a create takes one from the
 * list. Its key is on disk already; what the take writes (the list, the
 * slot's owner and expiry) needs no sync while the machine stays up, since
 * every process reads the same page cache. After a reboot (a power cut may
 * have lost those writes: a slot taken by a committed row could still be
 * listed) the list is dropped whole: the header keeps the boot it was made
 * in (/proc/sys/kernel/random/boot_id), and a list of another boot is never
 * used. A dropped slot keeps its key: a row that took it before the reboot
 * still opens its content (a slot of owner 0 is accepted as anyone's, see
 * ks_read()), and it is wiped with that row or at the expiry a pooled slot
 * is given, KS_POOL_TTL after it was made (longer than any secret's TTL; a
 * pooled key older than KS_POOL_AGE is not handed out). Where the boot
 * cannot be read, there is no pool and a create syncs as above.
 */
#define KS_MAGIC	"BLKEYS1\n"
#define KS_HEADER	4096
#define KS_SLOT		64
#define KS_MIN_SLOTS	4096u
#define KS_MAX_SLOTS	(1u << 26)
#define KS_PROBE	64
#define KS_TRIES	16		/* full windows before the file doubles */
#define KS_OFF(i)	((off_t)KS_HEADER + (off_t)(i) * KS_SLOT)
#define KS_WAIT_MS	5000
/* the pool, in the header page: boot (16) at 16, count (4) at 32, slot numbers (4 each) from 64 */
#define KS_BOOT_AT	16
#define KS_COUNT_AT	32
#define KS_LIST_AT	64
#define KS_POOL_MAX	256
#define KS_FILL		64
#define KS_POOL_AGE	(86400 * 1000LL)				/* a day */
#define KS_POOL_TTL	((int64_t)BL_TTL_MAX * 1000 + 2 * KS_POOL_AGE)

struct bl_keyslots {
	int		 fd;		/* -1 until first use */
	int		 dirty;		/* written since the last sync */
	int64_t		 wiped_at;	/* when the first wipe since the last sync was written (ms), or 0 */
	int		 boot_read;	/* boot[] read (or found unreadable: no_boot) */
	int		 no_boot;
	unsigned char	 boot[16];	/* this boot's id, hashed */
	char		*path;
	char		 err[256];
};

static void
put64(unsigned char *p, uint64_t v)
{
	int	 i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
le64(const unsigned char *p)
{
	uint64_t	 v = 0;
	int		 i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The check of slot i as it would be written: SHA-256 of its number and fields. */
static void
slot_check(uint32_t i, const unsigned char *slot, unsigned char out[16])
{
	unsigned char	 buf[8 + 48], h[BL_HASH_BYTES];

	put64(buf, i);
	memcpy(buf + 8, slot, 48);
	bl_sha256(buf, sizeof(buf), h);
	memcpy(out, h, 16);
	bl_wipe(buf, sizeof(buf));
}

/* 1 if the 64 bytes at slot (number i) hold a key that checks. */
static int
slot_valid(uint32_t i, const unsigned char *slot)
{
	unsigned char	 c[16];

	slot_check(i, slot, c);
	return bl_ct_equal(c, slot + 48, 16);
}

static int
slot_zero(const unsigned char *slot)
{
	int	 i, any = 0;

	for (i = 0; i < KS_SLOT; i++)
		any |= slot[i];
	return !any;
}

static enum bl_err
ks_fail(struct bl_keyslots *k, const char *what, int err)
{
	snprintf(k->err, sizeof(k->err), "%s: %s: %s", k->path, what, strerror(err));
	return BL_ERR_STORE_UNAVAILABLE;
}

const char *
bl_keyslots_error(const struct bl_keyslots *k)
{
	return k->err;
}

/* The keys of the database at db_path (db_path + "-keys"), opened on first use. */
struct bl_keyslots *
bl_keyslots_new(const char *db_path)
{
	struct bl_keyslots	*k;
	size_t			 n = strlen(db_path);

	if ((k = calloc(1, sizeof(*k))) == NULL || (k->path = malloc(n + 6)) == NULL) {
		free(k);
		return NULL;
	}
	memcpy(k->path, db_path, n);
	memcpy(k->path + n, "-keys", 6);
	k->fd = -1;
	return k;
}

void
bl_keyslots_free(struct bl_keyslots *k)
{
	if (k == NULL)
		return;
	if (k->fd >= 0) {
		/* A wipe left for later (bl_keyslots_sync_due()): on disk before the close. */
		if (k->wiped_at != 0 && fdatasync(k->fd) != 0)
			bl_log(NULL, "%s: cannot sync the wiped keys: %s",
			    k->path, strerror(errno));
		close(k->fd);
	}
	free(k->path);
	free(k);
}

/* Syncs the directory that holds a new file, so that its entry survives a power cut. */
static void
sync_dir(const char *path)
{
	char	*copy;
	int	 fd;

	if ((copy = strdup(path)) == NULL)
		return;
	if ((fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/* Opens (creating, mode 0600) the file; with create 0, ENOENT leaves fd at -1. */
static enum bl_err
ks_open(struct bl_keyslots *k, int create)
{
	int	 made = 0;

	if (k->fd >= 0)
		return BL_OK;
	k->fd = open(k->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (k->fd < 0 && errno == ENOENT && create) {
		k->fd = open(k->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		made = k->fd >= 0;
		if (k->fd < 0 && errno == EEXIST)
			k->fd = open(k->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	}
	if (k->fd < 0)
		return errno == ENOENT && !create ? BL_OK : ks_fail(k, "open", errno);
	if (made)
		sync_dir(k->path);
	return BL_OK;
}

static enum bl_err
ks_lock(struct bl_keyslots *k)
{
	struct timespec	 ts = {0, 20 * 1000};
	int64_t		 start = 0;

	while (flock(k->fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return ks_fail(k, "lock", errno);
		if (start == 0)
			start = bl_now_ms();
		else if (bl_now_ms() - start >= KS_WAIT_MS)
			return ks_fail(k, "lock", ETIMEDOUT);
		nanosleep(&ts, NULL);
	}
	return BL_OK;
}

/* Under the lock: the slot count, writing the header of a new file. */
static enum bl_err
ks_slots(struct bl_keyslots *k, uint32_t *n)
{
	unsigned char	 h[16];
	struct stat	 st;

	if (fstat(k->fd, &st) != 0)
		return ks_fail(k, "stat", errno);
	if (st.st_size < KS_HEADER) {
		memset(h, 0, sizeof(h));
		memcpy(h, KS_MAGIC, 8);
		put64(h + 8, KS_SLOT);
		if (ftruncate(k->fd, KS_OFF(KS_MIN_SLOTS)) != 0 ||
		    pwrite(k->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
			return ks_fail(k, "initialise", errno ? errno : ENOSPC);
		k->dirty = 1;
		*n = KS_MIN_SLOTS;
		return BL_OK;
	}
	if (pread(k->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, KS_MAGIC, 8) != 0 || le64(h + 8) != KS_SLOT) {
		snprintf(k->err, sizeof(k->err), "%s: not a burnlink keys file", k->path);
		return BL_ERR_STORE_UNAVAILABLE;
	}
	*n = (uint32_t)((st.st_size - KS_HEADER) / KS_SLOT);
	return BL_OK;
}

/* This boot's id (hashed) in k->boot; 0, or -1 where it cannot be read (no pool). */
static int
ks_boot(struct bl_keyslots *k)
{
	char	 id[64];
	ssize_t	 n = -1;
	int	 fd;

	if (!k->boot_read) {
		k->boot_read = 1;
		if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, id, sizeof(id));
			close(fd);
		}
		if (n < 32) {
			k->no_boot = 1;
		} else {
			unsigned char	 h[BL_HASH_BYTES];

			bl_sha256(id, (size_t)n, h);
			memcpy(k->boot, h, sizeof(k->boot));
		}
	}
	return k->no_boot ? -1 : 0;
}

/* Writes a new key into free slot at (made now, owner 0: pooled); -1 on failure. */
static int
ks_put(struct bl_keyslots *k, uint32_t at, int64_t expires_ms, int64_t owner,
    unsigned char key[32])
{
	unsigned char	 s[KS_SLOT];
	int		 rc = 0;

	bl_random(s, 32);
	put64(s + 32, (uint64_t)expires_ms);
	put64(s + 40, (uint64_t)owner);
	slot_check(at, s, s + 48);
	if (pwrite(k->fd, s, KS_SLOT, KS_OFF(at)) != KS_SLOT)
		rc = -1;
	else if (key != NULL)
		memcpy(key, s, 32);
	bl_wipe(s, sizeof(s));
	return rc;
}

/*
 * Under the lock: a free slot's number in *at (random probes, up to KS_TRIES
 * windows; the file doubles when none finds one). *n is the slot count,
 * updated.
 */
static enum bl_err
ks_free(struct bl_keyslots *k, uint32_t *n, uint32_t *at)
{
	unsigned char	 buf[KS_PROBE * KS_SLOT];
	uint32_t	 start, i, want;
	ssize_t		 got;
	enum bl_err	 e = BL_OK;
	int		 try;

	*at = UINT32_MAX;
	for (try = 0; try < KS_TRIES && *at == UINT32_MAX; try++) {
		bl_random(&start, sizeof(start));
		start = *n > KS_PROBE ? start % (*n - KS_PROBE + 1) : 0;
		want = *n - start < KS_PROBE ? *n - start : KS_PROBE;
		if ((got = pread(k->fd, buf, (size_t)want * KS_SLOT, KS_OFF(start))) !=
		    (ssize_t)want * KS_SLOT) {
			e = ks_fail(k, "read", got < 0 ? errno : EIO);
			goto out;
		}
		/* free: all zero, or a slot that does not check (torn: its secret is gone) */
		for (i = 0; i < want && *at == UINT32_MAX; i++)
			if (slot_zero(buf + i * KS_SLOT) || !slot_valid(start + i, buf + i * KS_SLOT))
				*at = start + i;
	}
	if (*at == UINT32_MAX) {
		if (*n >= KS_MAX_SLOTS) {
			e = ks_fail(k, "grow", ENOSPC);
			goto out;
		}
		if (ftruncate(k->fd, KS_OFF((off_t)*n * 2)) != 0) {
			e = ks_fail(k, "grow", errno);
			goto out;
		}
		*at = *n;
		*n *= 2;
	}
out:
	bl_wipe(buf, sizeof(buf));
	return e;
}

/*
 * Under the lock: takes a key from the pool (filling it first, one sync, if
 * it is empty, or of another boot) into key and *slot, and marks the slot as
 * the secret's (owner, expires_ms: not synced, see the top). *slot 0: no
 * pool here (the caller claims a slot the synced way).
 */
static enum bl_err
ks_pool_take(struct bl_keyslots *k, uint32_t *n, int64_t expires_ms, int64_t owner,
    unsigned char key[32], int64_t *slot)
{
	unsigned char	 h[KS_LIST_AT + 4 * KS_POOL_MAX], s[KS_SLOT];
	uint32_t	 count, at, i;
	int64_t		 now = bl_now_ms();
	enum bl_err	 e;

	*slot = 0;
	if (ks_boot(k) != 0)
		return BL_OK;
	if (pread(k->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return ks_fail(k, "read", errno ? errno : EIO);
	count = memcmp(h + KS_BOOT_AT, k->boot, 16) == 0 ? le32(h + KS_COUNT_AT) : 0;
	if (count > KS_POOL_MAX)
		count = 0;
	while (*slot == 0) {
		if (count == 0) {	/* fill: KS_FILL new keys, synced with the list */
			for (i = 0; i < KS_FILL; i++) {
				if ((e = ks_free(k, n, &at)) != BL_OK)
					return e;
				if (ks_put(k, at, now + KS_POOL_TTL, 0, NULL) != 0)
					return ks_fail(k, "write", errno ? errno : ENOSPC);
				put32(h + KS_LIST_AT + 4 * count, at);
				count++;
			}
			memcpy(h + KS_BOOT_AT, k->boot, 16);
			put32(h + KS_COUNT_AT, count);
			if (pwrite(k->fd, h + KS_BOOT_AT, sizeof(h) - KS_BOOT_AT, KS_BOOT_AT) !=
			    (ssize_t)(sizeof(h) - KS_BOOT_AT) || fdatasync(k->fd) != 0)
				return ks_fail(k, "fill", errno ? errno : ENOSPC);
			k->dirty = 0;	/* the whole file is on disk, wipes too */
			k->wiped_at = 0;
		}
		at = le32(h + KS_LIST_AT + 4 * (count - 1));
		count--;
		if (at >= *n || pread(k->fd, s, KS_SLOT, KS_OFF(at)) != KS_SLOT ||
		    slot_zero(s) || !slot_valid(at, s) || le64(s + 40) != 0 ||
		    (int64_t)le64(s + 32) - KS_POOL_TTL < now - KS_POOL_AGE)
			continue;	/* gone, taken, or too old: the next one */
		memcpy(key, s, 32);
		put64(s + 32, (uint64_t)expires_ms);
		put64(s + 40, (uint64_t)owner);
		slot_check(at, s, s + 48);
		if (pwrite(k->fd, s + 32, KS_SLOT - 32, KS_OFF(at) + 32) != KS_SLOT - 32) {
			e = ks_fail(k, "write", errno ? errno : ENOSPC);
			bl_wipe(s, sizeof(s));
			return e;
		}
		*slot = (int64_t)at + 1;
	}
	bl_wipe(s, sizeof(s));
	put32(s, count);
	if (pwrite(k->fd, s, 4, KS_COUNT_AT) != 4)
		return ks_fail(k, "write", errno ? errno : ENOSPC);
	return BL_OK;
}

/*
 * A new random key in a free slot for a secret created at owner that expires
 * at expires_ms: the key in key, the slot's number (from 1) in *slot.
 */
enum bl_err
bl_keyslots_claim(struct bl_keyslots *k, int64_t expires_ms, int64_t owner,
    unsigned char key[32], int64_t *slot)
{
	uint32_t	 n = 0, at;
	enum bl_err	 e;

	*slot = 0;
	if ((e = ks_open(k, 1)) != BL_OK || (e = ks_lock(k)) != BL_OK)
		return e;
	if ((e = ks_slots(k, &n)) != BL_OK ||
	    (e = ks_pool_take(k, &n, expires_ms, owner, key, slot)) != BL_OK || *slot != 0)
		goto out;
	/* no pool: a slot of its own, synced before the row's commit */
	if ((e = ks_free(k, &n, &at)) != BL_OK)
		goto out;
	if (ks_put(k, at, expires_ms, owner, key) != 0) {
		e = ks_fail(k, "write", errno ? errno : ENOSPC);
		goto out;
	}
	k->dirty = 1;
	*slot = (int64_t)at + 1;
out:
	flock(k->fd, LOCK_UN);
	return e;
}

/* Reads slot (numbered from 1) into s; 0 if it holds a key of owner that checks. */
static int
ks_read(struct bl_keyslots *k, int64_t slot, int64_t owner, unsigned char s[KS_SLOT])
{
	if (slot < 1 || slot > KS_MAX_SLOTS || k->fd < 0 ||
	    pread(k->fd, s, KS_SLOT, KS_OFF(slot - 1)) != KS_SLOT)
		return -1;
	/* owner 0: a pooled key whose taking a reboot may have lost (see the top) */
	if (slot_zero(s) || !slot_valid((uint32_t)(slot - 1), s) ||
	    ((int64_t)le64(s + 40) != owner && le64(s + 40) != 0))
		return -1;
	return 0;
}

/*
 * The key of slot for the secret created at owner. BL_ERR_NOT_FOUND when the
 * slot is wiped, torn or another secret's (the content is gone); a store
 * failure if the file cannot be read.
 */
enum bl_err
bl_keyslots_get(struct bl_keyslots *k, int64_t slot, int64_t owner, unsigned char key[32])
{
	unsigned char	 s[KS_SLOT];
	enum bl_err	 e;

	if ((e = ks_open(k, 0)) != BL_OK)
		return e;
	if (ks_read(k, slot, owner, s) != 0) {
		bl_wipe(s, sizeof(s));
		return BL_ERR_NOT_FOUND;
	}
	memcpy(key, s, 32);
	bl_wipe(s, sizeof(s));
	return BL_OK;
}

/*
 * Overwrites slot with zeros if it still holds the key of the secret created
 * at owner (under the lock: a slot cleanup wiped and a new secret took is
 * left alone). The caller syncs (bl_keyslots_sync()) before its commit.
 */
enum bl_err
bl_keyslots_wipe(struct bl_keyslots *k, int64_t slot, int64_t owner)
{
	unsigned char	 s[KS_SLOT], zero[KS_SLOT] = {0};
	enum bl_err	 e;

	if ((e = ks_open(k, 0)) != BL_OK || k->fd < 0)
		return e;
	if ((e = ks_lock(k)) != BL_OK)
		return e;
	if (ks_read(k, slot, owner, s) == 0 || (!slot_zero(s) &&
	    !slot_valid((uint32_t)(slot - 1), s))) {
		if (pwrite(k->fd, zero, KS_SLOT, KS_OFF(slot - 1)) != KS_SLOT)
			e = ks_fail(k, "wipe", errno ? errno : ENOSPC);
		else if (k->wiped_at == 0)
			k->wiped_at = bl_now_ms();
	}
	bl_wipe(s, sizeof(s));
	flock(k->fd, LOCK_UN);
	return e;
}

/*
 * cron/cleanup: wipes every slot whose secret has expired at now (its row is
 * removed in the same run) and every slot that does not check, a chunk of
 * slots at a time under the lock, then syncs. *wiped counts them.
 */
enum bl_err
bl_keyslots_expire(struct bl_keyslots *k, int64_t now, int64_t *wiped)
{
	unsigned char	 buf[KS_PROBE * KS_SLOT], zero[KS_SLOT] = {0};
	uint32_t	 n = 0, at, i;
	enum bl_err	 e;

	*wiped = 0;
	if ((e = ks_open(k, 0)) != BL_OK || k->fd < 0)
		return e;
	for (at = 0;; at += KS_PROBE) {
		if ((e = ks_lock(k)) != BL_OK)
			return e;
		if ((e = ks_slots(k, &n)) != BL_OK || at >= n) {
			flock(k->fd, LOCK_UN);
			break;
		}
		if (pread(k->fd, buf, sizeof(buf), KS_OFF(at)) != (ssize_t)sizeof(buf))
			e = ks_fail(k, "read", errno ? errno : EIO);
		for (i = 0; e == BL_OK && i < KS_PROBE; i++) {
			unsigned char *s = buf + i * KS_SLOT;

			if (slot_zero(s) || (slot_valid(at + i, s) && (int64_t)le64(s + 32) > now))
				continue;
			if (pwrite(k->fd, zero, KS_SLOT, KS_OFF(at + i)) != KS_SLOT)
				e = ks_fail(k, "wipe", errno ? errno : ENOSPC);
			else {
				k->dirty = 1;
				(*wiped)++;
			}
		}
		flock(k->fd, LOCK_UN);
		if (e != BL_OK)
			break;
	}
	bl_wipe(buf, sizeof(buf));
	return e == BL_OK ? bl_keyslots_sync(k) : e;
}

/* Makes what was written durable (fdatasync), if anything was. */
enum bl_err
bl_keyslots_sync(struct bl_keyslots *k)
{
	if ((!k->dirty && k->wiped_at == 0) || k->fd < 0)
		return BL_OK;
	if (fdatasync(k->fd) != 0)
		return ks_fail(k, "sync", errno);
	k->dirty = 0;
	k->wiped_at = 0;
	return BL_OK;
}

/*
 * What must be durable before a commit: every new key and header (a
 * committed row never points at a key a power cut could take back), and the
 * wipes only once the oldest unsynced one is window_ms old. A FastCGI
 * responder leaves a consumption's wipe in the page cache (where every
 * process, and a crash of this one, sees it) until that age or until it has
 * nothing to do (lib/store_sqlite.c, sq_settle(); docs/SECURITY.md, "Gone
 * for good": the window a power cut could find).
 */
enum bl_err
bl_keyslots_sync_due(struct bl_keyslots *k, int64_t window_ms)
{
	if (!k->dirty && (k->wiped_at == 0 || bl_now_ms() - k->wiped_at < window_ms))
		return BL_OK;
	return bl_keyslots_sync(k);
}

/* 1 if a wipe waits for its sync (bl_keyslots_sync_due()). */
int
bl_keyslots_unsynced(const struct bl_keyslots *k)
{
	return k != NULL && k->wiped_at != 0;
}
