/* cleanup: hourly removal of expired secrets, tombstones and counter windows. */
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "burnlink.h"

/*
 * Run by root's crontab, become the owner of the database first: a -wal or
 * -shm file created by root would lock the web server's programs out.
 * Returns 0 on success (or when there is nothing to change).
 */
static int
become_owner(const char *db)
{
	struct stat	 st;

	if (geteuid() != 0 || stat(db, &st) != 0 || st.st_uid == 0)
		return 0;
	if (setgroups(0, NULL) != 0 || setgid(st.st_gid) != 0 || setuid(st.st_uid) != 0) {
		perror("cleanup: cannot become the database's owner");
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct bl_ctx		 ctx;
	struct bl_cleanup_stats	 st;
	char			 err[512] = "";
	int			 rc = 1;

	if (argc > 1) {
		fprintf(stderr, "usage: %s   (configured by BURNLINK_DB)\n", argv[0]);
		return 2;
	}
	/* The process environment; the domain is used directly, no request. */
	if (bl_ctx_init(&ctx, NULL, NULL) != 0) {
		fprintf(stderr, "cleanup: out of memory\n");
		return 1;
	}
	if (become_owner(ctx.cfg.db_path) != 0)
		goto out;
	if (bl_cleanup(&ctx, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "cleanup: %s: failed: %s\n", bl_config_db_name(&ctx.cfg), err);
		goto out;
	}
	printf("cleanup: %s: removed %lld expired secrets, pruned %lld counter windows\n",
	    bl_config_db_name(&ctx.cfg), (long long)st.removed, (long long)st.counters);
	rc = 0;
out:
	bl_ctx_free(&ctx);
	return rc;
}
