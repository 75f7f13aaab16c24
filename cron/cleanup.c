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
	struct bl_config	 cfg;
	struct bl_cleanup_stats	 st;
	char			 err[512] = "";

	if (argc > 1) {
		fprintf(stderr, "usage: %s   (configured by BURNLINK_DB)\n", argv[0]);
		return 2;
	}
	if (bl_config_load(&cfg, &bl_cgi_io) != 0) {
		fprintf(stderr, "cleanup: out of memory\n");
		return 1;
	}
	if (become_owner(cfg.db_path) != 0) {
		bl_config_free(&cfg);
		return 1;
	}
	if (bl_cleanup(&cfg, bl_now_ms(), &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "cleanup: %s: failed: %s\n", bl_config_db_name(&cfg), err);
		bl_config_free(&cfg);
		return 1;
	}
	printf("cleanup: %s: removed %lld expired secrets, pruned %lld counter windows\n",
	    bl_config_db_name(&cfg), (long long)st.removed, (long long)st.counters);
	bl_config_free(&cfg);
	return 0;
}
