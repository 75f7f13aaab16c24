/* ctx.c (layer: domain): the context a request borrows: configuration, stores, install secret, clock. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "store.h"

/*
 * Sets up a context from the variables get returns (the process environment
 * for NULL), with the clock read once. Nothing is opened yet. 0 on success,
 * -1 when out of memory.
 */
int
bl_ctx_init(struct bl_ctx *c, const char *(*get)(void *, const char *), void *arg)
{
	int	 rc;

	memset(c, 0, sizeof(*c));
	c->now_ms = bl_now_ms();
	rc = bl_config_load(&c->cfg, get, arg);
	bl_audit_ctx(c);
	return rc;
}

/* Closes the stores the context still holds and wipes the install secret. */
void
bl_ctx_free(struct bl_ctx *c)
{
	if (c->store != NULL)
		bl_store_close(c->store);
	if (c->counters != NULL)
		bl_store_close(c->counters);
	bl_wipe(c->install_key, sizeof(c->install_key));
	bl_config_free(&c->cfg);
	c->store = c->counters = NULL;
	c->have_install_key = 0;
}

/*
 * bl_ctx_free() for a process that ends next (CGI): the install secret is
 * wiped, but a SQLite database and the counters file are left to the exit,
 * which closes their files and releases their locks. Their work was finished
 * before the answer's first byte (lib/serve.c, answer_write()); closing them
 * afterwards only finalized statements and freed memory the exit frees
 * anyway: 44-66 K instructions and 7 system calls per request (callgrind,
 * strace; docs/PERFORMANCE.md), spent after lighttpd may already have ended
 * the process. A PostgreSQL connection is closed, so the server does not log
 * a lost client. The stores stay reachable from left_open (volatile: written
 * only for that), so LeakSanitizer does not count them as leaks. The build
 * for valgrind and the allocation-failure tests (make dyn) defines
 * BL_FREE_AT_EXIT and closes them: those tests find a leak on an error path
 * by counting what is still allocated at the exit.
 */
#ifndef BL_FREE_AT_EXIT
static struct bl_store	*volatile left_open[2];
#endif

void
bl_ctx_exit(struct bl_ctx *c)
{
#ifndef BL_FREE_AT_EXIT
	if (!bl_config_is_pg(c->cfg.db_path)) {
		left_open[0] = c->store;
		left_open[1] = c->counters;
		c->store = c->counters = NULL;
	}
#endif
	bl_ctx_free(c);
}

/*
 * Records the hint of e, the error the context's stores failed with: the
 * answer's hint when the request fails with e (lib/http.c), for the cases the
 * table's general hint would leave an operator guessing.
 */
void
bl_ctx_hint(struct bl_ctx *c, enum bl_err e, const char *hint)
{
	c->hint_err = e;
	snprintf(c->hint, sizeof(c->hint), "%s", hint);
}

/*
 * The error of a store that could not be opened or used, or of a settings
 * file that could not be read (e): when the data
 * directory or a file in it is out of the programs' reach, that is the cause,
 * whichever store noticed it first: STORE_UNAVAILABLE with a hint naming the
 * directory, the programs' user and the owner (docs/API.md); a counters file
 * of another user keeps the rate limiter's RATE_LIMIT_UNAVAILABLE, with that
 * hint. Else e.
 */
enum bl_err
bl_ctx_unreachable(struct bl_ctx *c, enum bl_err e)
{
	char		 hint[sizeof(c->hint)];
	enum bl_err	 cause;
	int		 why;

	if (e != BL_ERR_STORE_UNAVAILABLE && e != BL_ERR_RATE_LIMIT_UNAVAILABLE &&
	    e != BL_ERR_CONFIG_INVALID)
		return e;
	if ((why = bl_config_data_unreachable(&c->cfg, hint, sizeof(hint))) == 0)
		return e;
	/* Only the counters file: the rate limiter's failure alone (docs/API.md). */
	cause = why == 2 ? BL_ERR_RATE_LIMIT_UNAVAILABLE : BL_ERR_STORE_UNAVAILABLE;
	if (why == 2 && e != cause)
		return e;
	bl_log_id(c->log_id, "%s", hint);
	bl_ctx_hint(c, cause, hint);
	return cause;
}

/* Opens the secrets store on first use, logging why it could not. */
enum bl_err
bl_ctx_store(struct bl_ctx *c)
{
	char		 err[400] = "";	/* PostgreSQL: a reason per host (lib/store_pg.c) */
	enum bl_err	 e;

	if (c->store != NULL) {
		bl_st_set_who(c->store, &c->who);	/* a store kept from the last request */
		return BL_OK;
	}
	if ((e = bl_store_open(&c->store, &c->cfg, err, sizeof(err))) == BL_OK)
		bl_st_set_who(c->store, &c->who);
	else
		bl_log_id(c->log_id, "cannot open %s: %s", bl_config_db_name(&c->cfg), err);
	if (e == BL_ERR_SCHEMA_TOO_NEW)
		bl_ctx_hint(c, e, err);
	return bl_config_is_pg(c->cfg.db_path) ? e : bl_ctx_unreachable(c, e);
}

/* Opens the rate limiter's counters store on first use. */
enum bl_err
bl_ctx_counters(struct bl_ctx *c)
{
	if (c->counters != NULL)
		return BL_OK;
	return bl_ctx_unreachable(c, bl_store_open_counters(&c->counters, &c->cfg));
}

/* Loads the install secret on first use, logging why it could not. */
enum bl_err
bl_ctx_install_key(struct bl_ctx *c)
{
	char		 err[512] = "";
	enum bl_err	 e;

	if (c->have_install_key)
		return BL_OK;
	if ((e = bl_config_install_key(&c->cfg, c->install_key, err, sizeof(err))) != BL_OK) {
		if (e != BL_ERR_INTERNAL)
			bl_log_id(c->log_id, "%s", err);
		return bl_ctx_unreachable(c, e);
	}
	c->have_install_key = 1;
	return BL_OK;
}
