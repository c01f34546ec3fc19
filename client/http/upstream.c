/* Calls into the daemon. Each call has a connection to itself while it
 * waits (a pool keeps idle ones for keep-alive clients), and an id of the
 * front's own: clients' ids may repeat, and the daemon's answer must never
 * reach another client. A connection whose call failed or timed out may
 * still get that answer later, so it is closed, never pooled. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "client/http/http.h"
#include "client/lib/sbx.h"
#include "common/clock.h"
#include "common/protocol.h"

#define UP_POOL_MAX 64
#define UP_SLICE_MS 250 /* how often a waiting call looks at its client */

static const struct http_config *g_cfg;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sbx_conn *g_pool[UP_POOL_MAX];
static size_t g_npool;
static atomic_uint_fast64_t g_ids;

void up_init(const struct http_config *cfg)
{
	g_cfg = cfg;
}

void up_shutdown(void)
{
	pthread_mutex_lock(&g_mu);
	while (g_npool)
		sbx_close(g_pool[--g_npool]);
	pthread_mutex_unlock(&g_mu);
}

void up_new_id(char *out, size_t len)
{
	snprintf(out, len, "h%llu", (unsigned long long)atomic_fetch_add(&g_ids, 1) + 1);
}

/* The front never lets libsbx retry `busy`: it is the client's answer
 * (HTTP 504 with Retry-After, which verl retries), and /v1/batch retries
 * it itself, counting each in /metrics. */
static struct sbx_conn *up_connect(char *err, size_t errlen)
{
	struct sbx_conn *c = sbx_connect(g_cfg->socket, err, errlen);
	if (!c) {
		/* The reason names the socket's path on this host: it goes to
		 * the front's log, a client is told only that (an outside
		 * attack read the path in a 502). */
		fprintf(stderr, "sandboxd-http: %s\n", err);
		snprintf(err, errlen, "cannot reach sandboxd (the front's log says why)");
	}
	if (c) {
		struct sbx_retry never = {
		    .base_ms = SBX_RETRY_BASE_MS, .max_ms = SBX_RETRY_MAX_MS, .total_ms = 0};
		sbx_set_retry(c, &never);
	}
	return c;
}

struct sbx_conn *up_take(char *err, size_t errlen)
{
	struct sbx_conn *c = NULL;
	pthread_mutex_lock(&g_mu);
	if (g_npool)
		c = g_pool[--g_npool];
	pthread_mutex_unlock(&g_mu);
	return c ? c : up_connect(err, errlen);
}

void up_give(struct sbx_conn *c, bool reusable)
{
	if (!c)
		return;
	pthread_mutex_lock(&g_mu);
	if (reusable && g_npool < UP_POOL_MAX) {
		g_pool[g_npool++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&g_mu);
	if (c)
		sbx_close(c);
}

json_t *up_wait(struct sbx_conn *c, const char *id, int timeout_ms, const struct up_client *cl,
		char *err, size_t errlen)
{
	long long deadline = (long long)clock_mono_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - (long long)clock_mono_ms();
		int slice = left < UP_SLICE_MS ? (int)(left > 0 ? left : 0) : UP_SLICE_MS;
		int ms = cl ? slice : timeout_ms;
		json_t *r = id ? sbx_wait(c, id, ms, err, errlen) : sbx_next(c, ms, err, errlen);
		if (r || !strstr(err, "timed out") || left <= UP_SLICE_MS || !cl)
			return r;
		if (cl->gone(cl->ctx)) {
			snprintf(err, errlen, UP_GONE);
			return NULL;
		}
	}
}

json_t *up_call(json_t *req, int timeout_ms, const struct up_client *cl, char *err, size_t errlen)
{
	char id[32];
	json_t *theirs = json_incref(json_object_get(req, F_ID));
	up_new_id(id, sizeof id);
	json_object_set_new(req, F_ID, json_string(id));
	struct sbx_conn *c = up_take(err, errlen);
	json_t *resp = NULL;
	/* A pooled connection the daemon closed meanwhile (a restart) fails at
	 * the first write or read: one retry on a fresh connection. */
	for (int attempt = 0; c && !resp && attempt < 2; attempt++) {
		if (sbx_submit(c, req, err, errlen) == 0)
			resp = up_wait(c, id, timeout_ms, cl, err, errlen);
		if (!resp) {
			up_give(c, false);
			c = attempt == 0 && !strstr(err, "timed out") && strcmp(err, UP_GONE) != 0
				? up_connect(err, errlen)
				: NULL;
		}
	}
	up_give(c, resp != NULL);
	if (theirs)
		json_object_set(req, F_ID, theirs);
	else
		json_object_del(req, F_ID);
	if (resp)
		json_object_set_new(resp, F_ID, theirs ? json_incref(theirs) : json_null());
	json_decref(theirs);
	return resp;
}

void up_set_tenant(json_t *req, const char *tenant)
{
	if (tenant && tenant[0])
		json_object_set_new(req, F_TENANT, json_string(tenant));
	else
		json_object_del(req, F_TENANT);
}
