/* instance_ops.c (layer: handlers): GET /api/config, /api/health and /api/version (docs/API.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "store.h"	/* BL_SCHEMA_VERSION */

/* GET /api/config: the limits, choices, features and branding in force; cacheable. */
enum bl_err
bl_op_config(struct bl_req *r)
{
	json_object	*o;

	if ((o = bl_config_json(&r->ctx->cfg)) == NULL)
		return BL_ERR_INTERNAL;
	r->cache_control = "public, max-age=300";
	return bl_respond_json(r, 200, o, 0);
}

/* GET /api/version: {version, schemaVersion}, the build's and the schema's. */
enum bl_err
bl_op_version(struct bl_req *r)
{
	json_object	*o;

	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "version", json_object_new_string(bl_build_version)) ||
	    bl_json_add(o, "schemaVersion", json_object_new_int(BL_SCHEMA_VERSION))) {
		json_object_put(o);
		return BL_ERR_INTERNAL;
	}
	return bl_respond_json(r, 200, o, 0);
}

/*
 * GET /api/health: counts the request (its own per-minute limit: that count
 * is the check that the counters store is writable), then the other checks.
 * 200 {status: "ok", checks, failed: []}, else 503 with the error body's
 * members (code UNHEALTHY) beside status, checks and failed.
 */
enum bl_err
bl_op_health(struct bl_req *r)
{
	const struct bl_error_info	*ei = bl_error_info(BL_ERR_UNHEALTHY);
	json_object			*o, *failed;
	char				 msg[160];
	size_t				 i, n, at;
	enum bl_err			 counted;
	int				 healthy;

	counted = bl_limit_take(r, BL_LIM_IP_HEALTH, r->client_ip, strlen(r->client_ip), NULL);
	if (counted == BL_ERR_RATE_LIMIT_EXCEEDED)
		return counted;
	if ((o = bl_health(r->ctx, counted, &healthy)) == NULL)
		return BL_ERR_INTERNAL;
	if (healthy) {
		r->retry_after = 0;
		return bl_respond_json(r, 200, o, 0);
	}
	/* "A health check failed: database, cleanup." */
	at = (size_t)snprintf(msg, sizeof(msg), "%.*s:", (int)strlen(ei->message) - 1,
	    ei->message);
	json_object_object_get_ex(o, "failed", &failed);
	n = json_object_array_length(failed);
	for (i = 0; i < n && at < sizeof(msg); i++)
		at += (size_t)snprintf(msg + at, sizeof(msg) - at, "%s %s", i > 0 ? "," : "",
		    json_object_get_string(json_object_array_get_idx(failed, i)));
	if (at < sizeof(msg))
		snprintf(msg + at, sizeof(msg) - at, ".");
	if (r->ctx->cfg.policy.err[0] != '\0')
		bl_log(r, "settings: %s", r->ctx->cfg.policy.err);
	if (r->ctx->cfg.exposed != NULL)
		bl_log(r, "files: %s", r->ctx->cfg.exposed_err);
	bl_log(r, "health: %s", msg);
	if (r->retry_after == 0)
		r->retry_after = 60;
	if (bl_json_add(o, "error", json_object_new_string(msg)) ||
	    bl_json_add(o, "code", json_object_new_string(ei->code)) ||
	    bl_json_add(o, "hint", json_object_new_string(ei->hint)) ||
	    bl_json_add(o, "requestId", json_object_new_string(r->id))) {
		json_object_put(o);
		return BL_ERR_INTERNAL;
	}
	return bl_respond_json(r, ei->status, o, 0);
}

/*
 * Whether GET /api/metrics shows itself to this request: its bearer token is
 * the settings' metrics_token (SHA-256 of both compared in constant time, so
 * neither content nor length shows in the time), or the client (after the
 * trusted proxies, lib/limit.c) is in metrics_allow. Neither set: nobody.
 */
int
bl_metrics_visible(struct bl_req *r)
{
	const struct bl_policy	*pol = &r->ctx->cfg.policy;
	const char		*auth = bl_req_env(r, "HTTP_AUTHORIZATION");
	unsigned char		 want[BL_HASH_BYTES], got[BL_HASH_BYTES];
	int			 ok = 0;

	if (pol->metrics_token[0] != '\0' && auth != NULL &&
	    strncasecmp(auth, "Bearer ", 7) == 0 &&
	    bl_sha256(pol->metrics_token, strlen(pol->metrics_token), want) == 0 &&
	    bl_sha256(auth + 7, strlen(auth + 7), got) == 0)
		ok = bl_ct_equal(want, got, sizeof(want));
	bl_wipe(want, sizeof(want));
	bl_wipe(got, sizeof(got));
	if (ok)
		return 1;
	return pol->metrics_allow[0] != '\0' && bl_client_listed(r->ctx,
	    bl_req_env(r, "REMOTE_ADDR"), bl_req_env(r, "HTTP_X_FORWARDED_FOR"),
	    pol->metrics_allow);
}

/* GET /api/metrics: the Prometheus text format (version 0.0.4), never cached. */
enum bl_err
bl_op_metrics(struct bl_req *r)
{
	enum bl_err	 e;
	size_t		 len;
	char		*text;
	int		 rc;

	if ((text = bl_metrics_text(r->ctx, &len, &e)) == NULL)
		return e;
	r->content_type = "text/plain; version=0.0.4; charset=utf-8";
	rc = bl_respond_text(r, 200, text, len);
	free(text);
	return rc == 0 ? BL_OK : BL_ERR_INTERNAL;
}
