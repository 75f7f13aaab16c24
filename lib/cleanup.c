/* cleanup.c (layer: domain): the hourly removal of expired rows and counters (cron/cleanup). */
#include <stdio.h>

#include "internal.h"

/*
 * Runs one cleanup pass over the context's store and its rate-limit counters
 * at its clock; 0 on success, else -1 with errbuf set.
 */
int
bl_cleanup(struct bl_ctx *c, struct bl_cleanup_stats *st, char *errbuf, size_t errlen)
{
	enum bl_err	 e;

	if (c->store == NULL &&
	    bl_store_open(&c->store, &c->cfg, errbuf, errlen) != BL_OK)
		return -1;
	if ((e = bl_store_cleanup(c->store, c->now_ms, st)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    bl_store_error(c->store));
		return -1;
	}
	if ((e = bl_ctx_counters(c)) != BL_OK ||
	    (e = bl_counter_clean(c->counters, c->now_ms / 1000, &st->counters)) != BL_OK) {
		snprintf(errbuf, errlen, "%s: %s", bl_error_info(e)->code,
		    c->counters != NULL ? bl_store_error(c->counters) :
		    "cannot open the rate-limit counters");
		return -1;
	}
	/* GET /api/metrics counts the run; GET /api/health reads when it last finished. */
	bl_metrics_cleanup(c, st);
	return bl_cleanup_record(c, errbuf, errlen);
}
