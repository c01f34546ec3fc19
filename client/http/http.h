/* sandboxd-http: an unprivileged HTTP front for sandboxd (docs/http.md). It
 * speaks HTTP/1.1 to clients and the socket protocol to the daemon, through
 * libsbx; it links no daemon code. */
#ifndef SBX_HTTP_H
#define SBX_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_MAX_TOKENS 256

/* One bearer token of --token-file and the tenant its requests are tagged
 * with (empty: none). */
struct http_token {
	char token[129];
	char tenant[65];
};

struct http_config {
	const char *listen_addr; /* host:port */
	const char *socket;	 /* the daemon's */
	const char *user;	 /* --user: drop to it after binding */
	size_t max_body;	 /* bytes of one request body */
	unsigned max_conns;	 /* HTTP connections at once */
	unsigned max_per_ip;	 /* of them from one address; 0: no such limit */
	unsigned conn_timeout;	 /* seconds a client may stay silent */
	int job_timeout_ms;	 /* how long one job may take in the daemon, at most */
	unsigned batch_max;	 /* requests in one /v1/batch */
	unsigned batch_window;	 /* of them in the daemon at once */
	struct http_token *tokens;
	size_t ntokens;
};

/* upstream.c: calls into the daemon. A call takes a pooled connection (or
 * makes one), sends req under an id of the front's own, and returns the
 * response with the caller's id put back; NULL with err when the daemon
 * could not be reached or did not answer in time. */
void up_init(const struct http_config *cfg);
void up_shutdown(void);
struct up_client {
	bool (*gone)(void *ctx); /* the HTTP client hung up */
	void *ctx;
};
json_t *up_call(json_t *req, int timeout_ms, const struct up_client *cl, char *err, size_t errlen);
/* The tenant rule for every request to the daemon: the token's tenant, or
 * none; a client never names its own (the front is --trust-uid, so the
 * daemon would believe it). */
void up_set_tenant(json_t *req, const char *tenant);
/* A fresh id, unique within this process ("h<n>"). */
void up_new_id(char *out, size_t len);
/* The daemon connection API for batches, which keep one connection. */
struct sbx_conn *up_take(char *err, size_t errlen);
void up_give(struct sbx_conn *c, bool reusable);
/* Waits for the answer to id (NULL: the next answer) in slices, asking cl
 * between them whether the client is gone: then NULL with err UP_GONE, and
 * the caller drops the connection, which makes the daemon cancel the job
 * (its worker is free at once instead of after the job's whole time).
 * Without cl, one wait of timeout_ms. */
#define UP_GONE "the client went away"
json_t *up_wait(struct sbx_conn *c, const char *id, int timeout_ms, const struct up_client *cl,
		char *err, size_t errlen);

/* metrics.c: counters for GET /metrics. */
void metrics_request(const char *route, unsigned status);
void metrics_job(const json_t *resp, double seconds);
void metrics_busy(void);
/* The Prometheus text; ping is the daemon's ping answer (or NULL). */
char *metrics_render(const json_t *ping);

/* fusion.c: SandboxFusion's /run_code. Turns its request into a native one
 * (NULL with why: a 400, or with *unsupported a SandboxError, as
 * SandboxFusion answers a language it lacks), and a native response into
 * its response. */
json_t *fusion_request(const json_t *in, bool *unsupported, char *why, size_t whylen);
json_t *fusion_response(const json_t *native);
/* The response for a SandboxError the front or the daemon refused. */
json_t *fusion_error(const char *message, const json_t *native);

/* auth: the tenant of the request's token; NULL when refused. */
const struct http_token *http_auth(const struct http_config *cfg, const char *header);

/* batch.c: POST /v1/batch, streamed. Returns an MHD response or NULL. */
struct MHD_Response;
struct MHD_Response *batch_response(const struct http_config *cfg, const char *body, size_t len,
				    const char *tenant, const struct up_client *cl,
				    unsigned *status, char *why, size_t whylen);
/* Splits a batch body (a JSON array, or one JSON object per line) into
 * requests; NULL with why. Exposed for the tests. */
json_t *batch_parse(const char *body, size_t len, unsigned max, char *why, size_t whylen);

#endif
