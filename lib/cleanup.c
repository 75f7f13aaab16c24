/* cleanup.c (layer: domain): the hourly removal of expired rows and counters (cron/cleanup). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

/*
 * Takes the cleanup's lock: flock(LOCK_EX) on cfg.cleanup_stamp + ".lock",
 * without waiting. Returns its descriptor, -2 when another cleanup holds it,
 * or -1 with errbuf set. The lock goes with the process, however it ends.
 */
static int
cleanup_lock(const struct bl_ctx *c, char *errbuf, size_t errlen)
{
	char	 path[4096];
	int	 fd, n;

	n = snprintf(path, sizeof(path), "%s.lock", c->cfg.cleanup_stamp);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		snprintf(errbuf, errlen, "the path %s.lock is too long", c->cfg.cleanup_stamp);
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(errbuf, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno == EWOULDBLOCK)
		snprintf(errbuf, errlen, "another cleanup is still running (it holds "
		    "the lock of %s); standing down", path);
	else
		snprintf(errbuf, errlen, "cannot lock %s: %s", path, strerror(errno));
	close(fd);
	return errno == EWOULDBLOCK ? -2 : -1;
}

/*
 * Runs one cleanup pass over the context's store and its rate-limit counters
 * at its clock: 0 on success, 1 when another cleanup is running (nothing
 * done; errbuf says so), else -1 with errbuf set.
 */
int
bl_cleanup(struct bl_ctx *c, struct bl_cleanup_stats *st, char *errbuf, size_t errlen)
{
	enum bl_err	 e;
	int		 lock, rc = -1;

	if ((lock = cleanup_lock(c, errbuf, errlen)) < 0)
		return lock == -2 ? 1 : -1;
	if (c->store == NULL &&
	    bl_store_open(&c->store, &c->cfg, errbuf, errlen) != BL_OK)
		goto out;
	/* its events' actor and audit_syslog (the operator's, bl_audit_operator()) */
	bl_st_set_who(c->store, &c->who);
	if ((e = bl_store_cleanup(c->store, c->now_ms, st)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    bl_store_error(c->store));
		goto out;
	}
	if (st->busy) {
		snprintf(errbuf, errlen, "another cleanup is still running (it holds "
		    "the database's cleanup lock); standing down");
		rc = 1;
		goto out;
	}
	/* the audit trail's retention (audit_days), in bounded steps too */
	if ((e = bl_audit_prune(c, c->now_ms, &st->audit)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    bl_store_error(c->store));
		goto out;
	}
	if ((e = bl_ctx_counters(c)) != BL_OK ||
	    (e = bl_counter_clean(c->counters, c->now_ms / 1000, &st->counters)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    c->counters != NULL ? bl_store_error(c->counters) :
		    "cannot open the rate-limit counters");
		goto out;
	}
	/* GET /api/metrics counts the run; GET /api/health reads when it last finished. */
	bl_metrics_cleanup(c, st);
	rc = bl_cleanup_record(c, errbuf, errlen);
out:
	close(lock);
	return rc;
}
