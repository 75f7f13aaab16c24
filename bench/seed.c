/* seed.c: fills a database with client-side secrets for the benchmark; prints their keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Usage: seed COUNT MAXVIEWS SIZE  (BURNLINK_DB names the database)
 * Stores COUNT secrets of SIZE plaintext bytes (random ciphertext with a tag,
 * as a client would send), each with MAXVIEWS views (0: unlimited), through
 * the storage interface the programs use, and prints "secretKey receiptKey"
 * per line. Ends with a checkpoint so the database file stands alone.
 */

static long
arg(const char *s, long min, long max)
{
	char	*end;
	long	 v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "seed: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char *argv[])
{
	struct bl_config	 cfg;
	struct bl_store		*s = NULL;
	struct bl_content	 c;
	struct bl_new_secret	 n;
	struct bl_cleanup_stats	 st;
	char			 skey[BL_KEY_LEN + 1], rkey[BL_KEY_LEN + 1], err[256];
	long			 count, views, size, i;
	int64_t			 now = bl_now_ms();
	enum bl_err		 e;

	if (argc != 4) {
		fprintf(stderr, "usage: seed COUNT MAXVIEWS SIZE\n");
		return 2;
	}
	count = arg(argv[1], 1, 10000000);
	views = arg(argv[2], 0, BL_VIEWS_MAX);
	size = arg(argv[3], 1, BL_MAX_PLAINTEXT);
	if (bl_config_load(&cfg, NULL, NULL) != 0)
		return 1;
	if ((e = bl_store_open(&s, &cfg, err, sizeof(err))) != BL_OK) {
		fprintf(stderr, "seed: %s: %s\n", bl_config_db_name(&cfg), err);
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.has_text = 1;
	c.text.enc = 1;
	c.text.len = (size_t)size + BL_TAG_BYTES;
	if ((c.text.buf = malloc(c.text.len)) == NULL || bl_random(c.text.buf, c.text.len) != 0)
		return 1;
	for (i = 0; i < count; i++) {
		memset(&n, 0, sizeof(n));
		n.created_ms = now;
		n.expires_ms = now + (int64_t)BL_TTL_DEFAULT * 1000;
		/* keys as cgi-bin/create makes them: they carry the expiry (lib/crypto.c) */
		if (bl_new_key_at(skey, n.secret_hash, BL_KEY_AT(n.expires_ms)) != 0 ||
		    bl_new_key_at(rkey, n.receipt_hash, BL_KEY_AT(n.expires_ms)) != 0 ||
		    bl_random(c.text.iv, sizeof(c.text.iv)) != 0)
			return 1;
		n.max_views = views > 0 ? views : -1;
		n.deletable = 1;
		n.content = &c;
		if ((e = bl_store_insert(s, &n)) != BL_OK) {
			fprintf(stderr, "seed: insert: %s\n", bl_store_error(s));
			return 1;
		}
		printf("%s %s\n", skey, rkey);
	}
	/* Removes nothing (nothing expired before 1970); checkpoints the WAL. */
	if (bl_store_cleanup(s, 0, &st) != BL_OK) {
		fprintf(stderr, "seed: checkpoint: %s\n", bl_store_error(s));
		return 1;
	}
	bl_store_close(s);
	free(c.text.buf);
	bl_config_free(&cfg);
	return fflush(stdout) == 0 ? 0 : 1;
}
