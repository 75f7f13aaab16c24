/* cleanup: hourly removal of expired secrets, tombstones and counter windows. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "burnlink.h"

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
	if (bl_cleanup(&cfg, bl_now_ms(), &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "cleanup: %s: failed: %s\n", cfg.db_path, err);
		bl_config_free(&cfg);
		return 1;
	}
	printf("cleanup: %s: removed %lld expired secrets, pruned %lld counter windows\n",
	    cfg.db_path, (long long)st.removed, (long long)st.counters);
	bl_config_free(&cfg);
	return 0;
}
