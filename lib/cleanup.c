/* cleanup.c (layer: domain): the hourly removal of expired rows and counters (cron/cleanup). */
#include <stdio.h>

#include "internal.h"

/*
 * Runs one cleanup pass over the context's store at its clock; 0 on success,
 * else -1 with errbuf set.
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
	/* GET /api/health reads when it last finished. */
	return bl_cleanup_record(c, errbuf, errlen);
}
