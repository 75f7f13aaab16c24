/* cleanup.c: the hourly removal of expired rows and counters (cron/cleanup). */
#include <stdio.h>

#include "internal.h"

/*
 * Runs one cleanup pass over the store of cfg and its rate-limit counters;
 * 0 on success, else -1 with errbuf set.
 */
int
bl_cleanup(const struct bl_config *cfg, int64_t now_ms, struct bl_cleanup_stats *st,
    char *errbuf, size_t errlen)
{
	struct bl_store	*s = NULL, *c = NULL;
	enum bl_err	 e;
	int		 rc = -1;

	if ((e = bl_store_open(&s, cfg, errbuf, errlen)) != BL_OK)
		return -1;
	if ((e = bl_store_cleanup(s, now_ms, st)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code, bl_store_error(s));
		goto out;
	}
	if ((e = bl_store_open_counters(&c, cfg)) != BL_OK ||
	    (e = bl_counter_clean(c, now_ms / 1000, &st->counters)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    c != NULL ? bl_store_error(c) : "out of memory");
		goto out;
	}
	rc = 0;
out:
	bl_store_close(c);
	bl_store_close(s);
	return rc;
}
