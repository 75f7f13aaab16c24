/* notify: every minute, delivers the notifications the outbox holds (docs/NOTIFY.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnlink.h"

int
main(int argc, char *argv[])
{
	struct bl_ctx		 ctx;
	struct bl_notify_opts	 o;
	struct bl_notify_stats	 st;
	char			 err[512] = "";
	int			 exists, rc = 1;

	if (argc > 1) {
		fprintf(stderr, "usage: %s   (configured by BURNLINK_DB, BURNLINK_SENDMAIL, "
		    "BURNLINK_NOTIFY_ALLOW, BURNLINK_NOTIFY_CA, BURNLINK_MAIL_FROM, "
		    "BURNLINK_SITE_URL)\n", argv[0]);
		return 2;
	}
	/* a mailer that exits early must not kill the run */
	signal(SIGPIPE, SIG_IGN);
	if (bl_ctx_init(&ctx, NULL, NULL) != 0) {
		fprintf(stderr, "notify: out of memory\n");
		return 1;
	}
	o.sendmail = getenv("BURNLINK_SENDMAIL");
	o.allow = getenv("BURNLINK_NOTIFY_ALLOW");
	o.ca = getenv("BURNLINK_NOTIFY_CA");
	o.from = getenv("BURNLINK_MAIL_FROM");
	/*
	 * As cron/cleanup: run by root's crontab, the data directory's owner
	 * does the work, links are refused, and before the first request (no
	 * database yet) there is nothing to send and nothing is created.
	 */
	if (bl_config_become_owner(&ctx.cfg, &exists, err, sizeof(err)) != 0) {
		fprintf(stderr, "notify: %s: %s\n", bl_config_db_name(&ctx.cfg), err);
		goto out;
	}
	memset(&st, 0, sizeof(st));
	bl_audit_syslog_open(&ctx);	/* audit_syslog: webhook.failing */
	if (exists && bl_notify_run(&ctx, &o, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "notify: %s: failed: %s\n", bl_config_db_name(&ctx.cfg), err);
		goto out;
	}
	/* The record that tells the web programs a cron job delivers (lib/work.c). */
	if (exists && bl_run_record(&ctx, ctx.cfg.notify_stamp, err, sizeof(err)) != 0)
		fprintf(stderr, "notify: %s\n", err);
	printf("notify: %s: sent %lld, to retry %lld, dropped %lld\n",
	    bl_config_db_name(&ctx.cfg), (long long)st.sent, (long long)st.retried,
	    (long long)st.dropped);
	rc = 0;
out:
	bl_ctx_free(&ctx);
	return rc;
}
