/* cleanup: hourly removal of expired secrets, tombstones and counter windows. */
#include <stdio.h>
#include <string.h>

#include "burnlink.h"

int
main(int argc, char *argv[])
{
	struct bl_ctx		 ctx;
	struct bl_cleanup_stats	 st;
	char			 err[512] = "";
	int			 exists, ran = 0, rc = 1;

	if (argc > 1) {
		fprintf(stderr, "usage: %s   (configured by BURNLINK_DB)\n", argv[0]);
		return 2;
	}
	/* The process environment; the domain is used directly, no request. */
	if (bl_ctx_init(&ctx, NULL, NULL) != 0) {
		fprintf(stderr, "cleanup: out of memory\n");
		return 1;
	}
	/*
	 * Run by root's crontab: the data directory's owner creates what is
	 * created, links are refused, and before the first request (no
	 * database yet) there is nothing to clean and nothing is created.
	 */
	if (bl_config_become_owner(&ctx.cfg, &exists, err, sizeof(err)) != 0) {
		fprintf(stderr, "cleanup: %s: %s\n", bl_config_db_name(&ctx.cfg), err);
		goto out;
	}
	memset(&st, 0, sizeof(st));
	bl_audit_operator(&ctx);	/* what the cleanup records is the operator's job's */
	if (exists)
		bl_config_guard(&ctx.cfg);	/* installations older than the guard get it */
	if (exists && (ran = bl_cleanup(&ctx, &st, err, sizeof(err))) < 0) {
		fprintf(stderr, "cleanup: %s: failed: %s\n", bl_config_db_name(&ctx.cfg), err);
		goto out;
	}
	/* One still running (a run that outlived its hour) goes on alone. */
	if (ran == 1)
		printf("cleanup: %s: %s\n", bl_config_db_name(&ctx.cfg), err);
	else
		printf("cleanup: %s: removed %lld expired secrets and %lld expired secret "
		    "requests, pruned %lld counter windows and %lld audit events, in %lld steps\n",
		    bl_config_db_name(&ctx.cfg), (long long)st.removed,
		    (long long)st.requests, (long long)st.counters, (long long)st.audit,
		    (long long)st.steps);
	rc = 0;
out:
	bl_ctx_free(&ctx);
	return rc;
}
