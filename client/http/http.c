/* The HTTP side: routing, bodies (bounded), bearer tokens, status codes.
 * libmicrohttpd runs one thread per connection (at most --max-connections),
 * so a handler may block on the daemon; every body is capped at --max-body
 * before it is parsed, and every reply is a complete JSON document (or a
 * stream of JSON lines for /v1/batch). */
#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/http/http.h"
#include "client/http/http_mhd.h"
#include "common/clock.h"
#include "common/jsonmem.h"
#include "common/protocol.h"

struct http_req {
	char *body;
	size_t len, cap;
	bool too_large;
	size_t dropped; /* bytes of a too large body read and dropped */
	bool started;	/* the first call (headers only) is over */
};

const struct http_token *http_auth(const struct http_config *cfg, const char *header)
{
	static const struct http_token anyone = {"", ""};
	if (!cfg->ntokens)
		return &anyone;
	if (!header || strncmp(header, "Bearer ", 7) != 0)
		return NULL;
	const char *t = header + 7;
	size_t n = strlen(t);
	const struct http_token *found = NULL;
	/* Every token compared in full, in constant time per byte: how long
	 * a refusal takes tells nothing of a token. */
	for (size_t i = 0; i < cfg->ntokens; i++) {
		const char *k = cfg->tokens[i].token;
		size_t kn = strlen(k);
		unsigned char diff = (unsigned char)(kn != n);
		for (size_t j = 0; j < kn; j++)
			diff |= (unsigned char)(k[j] ^ (j < n ? t[j] : 0));
		if (!diff)
			found = &cfg->tokens[i];
	}
	return found;
}

static enum MHD_Result http_send(struct MHD_Connection *c, const char *route, unsigned status,
				 const char *type, char *body, int retry_after)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(body ? strlen(body) : 0, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	if (retry_after > 0) {
		char s[16];
		snprintf(s, sizeof s, "%d", retry_after);
		MHD_add_response_header(r, "Retry-After", s);
	}
	if (status == 401)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	metrics_request(route, status);
	return rc;
}

static enum MHD_Result http_json(struct MHD_Connection *c, const char *route, unsigned status,
				 json_t *o, int retry_after)
{
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (s) {
		size_t n = strlen(s);
		char *t = realloc(s, n + 2);
		if (t) {
			t[n] = '\n';
			t[n + 1] = '\0';
			s = t;
		}
	}
	return http_send(c, route, s ? status : 500, "application/json", s, retry_after);
}

/* A native-style error: {"id":null,"error":{"code":…,"message":…}}. */
static json_t *http_err(const char *code, const char *message)
{
	return json_pack("{s:n,s:{s:s,s:s}}", F_ID, R_ERROR, R_ERROR_CODE, code, R_ERROR_MESSAGE,
			 message);
}

static bool http_is_busy(const json_t *resp)
{
	const char *code =
	    json_string_value(json_object_get(json_object_get(resp, R_ERROR), R_ERROR_CODE));
	return code && strcmp(code, proto_errcode_name(E_BUSY)) == 0;
}

/* The HTTP status of a daemon error code on a job route. */
static unsigned http_status_of(const json_t *resp)
{
	const char *code =
	    json_string_value(json_object_get(json_object_get(resp, R_ERROR), R_ERROR_CODE));
	if (!code)
		return 200;
	if (strcmp(code, proto_errcode_name(E_BUSY)) == 0)
		return 504;
	if (strcmp(code, proto_errcode_name(E_INTERNAL)) == 0 ||
	    strcmp(code, proto_errcode_name(E_SHUTTING_DOWN)) == 0 ||
	    strcmp(code, proto_errcode_name(E_FORBIDDEN)) == 0)
		return 502;
	return 400;
}

/* The client hung up (or reset) while its job ran: only a hang-up counts,
 * never bytes of a next pipelined request. */
static bool http_gone(void *ctx)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(ctx, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return false;
	struct pollfd p = {.fd = ci->connect_fd, .events = POLLRDHUP};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static json_t *http_call(struct MHD_Connection *c, const struct http_config *cfg, json_t *req,
			 char *err, size_t el)
{
	long long t0 = (long long)clock_mono_ns();
	struct up_client cl = {http_gone, c};
	json_t *resp = up_call(req, cfg->job_timeout_ms, &cl, err, el);
	if (resp) {
		if (http_is_busy(resp))
			metrics_busy();
		metrics_job(resp, (double)((long long)clock_mono_ns() - t0) / 1e9);
	}
	return resp;
}

static enum MHD_Result http_run_code(struct MHD_Connection *c, const struct http_config *cfg,
				     const json_t *body, const char *tenant)
{
	const char *route = "/run_code";
	char why[256], err[256];
	bool unsupported;
	json_t *req = fusion_request(body, &unsupported, why, sizeof why);
	if (!req && unsupported)
		return http_json(c, route, 200, fusion_error(why, NULL), 0);
	if (!req)
		return http_json(c, route, 400, fusion_error(why, NULL), 0);
	up_set_tenant(req, tenant);
	json_t *resp = http_call(c, cfg, req, err, sizeof err);
	json_decref(req);
	if (!resp)
		return http_json(c, route, 502, fusion_error(err, NULL), 0);
	unsigned st = http_status_of(resp);
	json_t *out = fusion_response(resp);
	json_decref(resp);
	return http_json(c, route, st, out, st == 504 ? 1 : 0);
}

static enum MHD_Result http_v1_run(struct MHD_Connection *c, const struct http_config *cfg,
				   json_t *body, const char *tenant)
{
	const char *route = "/v1/run";
	char err[256];
	if (!json_is_object(body))
		return http_json(
		    c, route, 400,
		    http_err(proto_errcode_name(E_BAD_JSON), "a request must be a JSON object"), 0);
	/* The socket's rule for ids, checked here because the daemon sees the
	 * front's id instead (upstream.c). */
	const json_t *id = json_object_get(body, F_ID);
	if (!json_is_string(id) || json_string_length(id) == 0 || json_string_length(id) > 256 ||
	    strlen(json_string_value(id)) != json_string_length(id))
		return http_json(c, route, 400,
				 http_err(proto_errcode_name(E_BAD_REQUEST),
					  "\"id\" must be a non-empty string of at most 256 bytes"),
				 0);
	up_set_tenant(body, tenant);
	json_t *resp = http_call(c, cfg, body, err, sizeof err);
	if (!resp)
		return http_json(c, route, 502, http_err(proto_errcode_name(E_INTERNAL), err), 0);
	unsigned st = http_status_of(resp);
	return http_json(c, route, st, resp, st == 504 ? 1 : 0);
}

static json_t *http_ping(int timeout_ms, char *err, size_t el)
{
	json_t *p = json_pack("{s:s,s:s}", F_ID, "ping", F_OP, "ping");
	json_t *r = p ? up_call(p, timeout_ms, NULL, err, el) : NULL;
	json_decref(p);
	return r;
}

static enum MHD_Result http_get(struct MHD_Connection *c, const char *url)
{
	char err[256];
	if (strcmp(url, "/healthz") == 0) {
		json_t *r = http_ping(2000, err, sizeof err);
		bool ok = r && json_object_get(r, P_VERSION);
		json_decref(r);
		return http_send(c, url, ok ? 200 : 503, "text/plain",
				 strdup(ok ? "ok\n" : "sandboxd not answering\n"), 0);
	}
	if (strcmp(url, "/v1/ping") == 0) {
		json_t *r = http_ping(5000, err, sizeof err);
		if (!r)
			return http_json(c, url, 502, http_err(proto_errcode_name(E_INTERNAL), err),
					 0);
		return http_json(c, url, 200, r, 0);
	}
	json_t *r = http_ping(2000, err, sizeof err);
	char *text = metrics_render(r);
	json_decref(r);
	return http_send(c, url, 200, "text/plain; version=0.0.4", text, 0);
}

static bool http_known(const char *url, const char *method, bool *post)
{
	const char *gets[] = {"/healthz", "/v1/ping", "/metrics"};
	const char *posts[] = {"/run_code", "/v1/run", "/v1/batch"};
	for (int i = 0; i < 3; i++) {
		if (strcmp(url, gets[i]) == 0) {
			*post = false;
			return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
		}
		if (strcmp(url, posts[i]) == 0) {
			*post = true;
			return strcmp(method, "POST") == 0;
		}
	}
	*post = false;
	return false;
}

static enum MHD_Result http_dispatch(struct MHD_Connection *c, const struct http_config *cfg,
				     const char *url, struct http_req *q, const char *tenant)
{
	if (q->too_large) {
		char m[96];
		snprintf(m, sizeof m, "the body is larger than --max-body (%zu bytes)",
			 cfg->max_body);
		return http_json(c, url, 413, http_err(proto_errcode_name(E_TOO_LARGE), m), 0);
	}
	if (strcmp(url, "/v1/batch") == 0) {
		char why[256];
		unsigned st;
		struct up_client cl = {http_gone, c};
		struct MHD_Response *r = batch_response(cfg, q->body ? q->body : "", q->len, tenant,
							&cl, &st, why, sizeof why);
		if (!r)
			return http_json(
			    c, url, st,
			    http_err(proto_errcode_name(st == 400 ? E_BAD_JSON : E_INTERNAL), why),
			    0);
		MHD_add_response_header(r, "Content-Type", "application/x-ndjson");
		enum MHD_Result rc = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		metrics_request(url, 200);
		return rc;
	}
	json_error_t je;
	size_t budget = jsonmem_budget(q->len);
	json_t *body = jsonmem_loadb(q->body ? q->body : "", q->len, JSON_REJECT_DUPLICATES,
				     &budget, &je, NULL);
	if (!body) {
		char m[256];
		snprintf(m, sizeof m, "invalid JSON at line %d column %d: %s", je.line, je.column,
			 je.text);
		return http_json(c, url, 400,
				 strcmp(url, "/run_code") == 0
				     ? fusion_error(m, NULL)
				     : http_err(proto_errcode_name(E_BAD_JSON), m),
				 0);
	}
	enum MHD_Result rc = strcmp(url, "/run_code") == 0 ? http_run_code(c, cfg, body, tenant)
							   : http_v1_run(c, cfg, body, tenant);
	json_decref(body);
	return rc;
}

enum MHD_Result http_handle(void *cls, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, const char *upload,
			    size_t *upload_size, void **con_cls)
{
	const struct http_config *cfg = cls;
	struct http_req *q = *con_cls;
	(void)version;
	bool post;
	if (!q) {
		if (!(q = calloc(1, sizeof *q)))
			return MHD_NO;
		*con_cls = q;
		const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
		bool open = strcmp(url, "/healthz") == 0;
		if (!open && !http_auth(cfg, auth))
			return http_json(c, "auth", 401,
					 http_err(proto_errcode_name(E_FORBIDDEN),
						  "a valid bearer token is required"),
					 0);
		if (!http_known(url, method, &post)) {
			bool exists = post || strcmp(url, "/healthz") == 0 ||
				      strcmp(url, "/v1/ping") == 0 || strcmp(url, "/metrics") == 0;
			return http_json(c, "other", exists ? 405 : 404,
					 http_err(proto_errcode_name(E_BAD_REQUEST),
						  exists ? "method not allowed" : "no such route"),
					 0);
		}
		if (!post)
			return http_get(c, url);
		const char *cl =
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > cfg->max_body) {
			q->too_large = true;
			q->started = true;
			return http_dispatch(c, cfg, url, q, NULL);
		}
		return MHD_YES;
	}
	if (q->started) { /* the reply is queued (413 above): the rest is dropped */
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		*upload_size = 0;
		if (q->too_large || q->len + n > cfg->max_body) {
			q->too_large = true;
			q->dropped += q->len + n;
			free(q->body);
			q->body = NULL;
			q->len = q->cap = 0;
			/* A chunked body (no Content-Length) is answered 413 when it
			 * ends; one that goes on past twice the limit is cut off, so
			 * an endless body cannot hold a connection. */
			return q->dropped > 2 * cfg->max_body ? MHD_NO : MHD_YES;
		}
		if (q->len + n + 1 > q->cap) {
			size_t ncap = q->cap ? q->cap : 4096;
			while (ncap < q->len + n + 1)
				ncap *= 2;
			char *nb =
			    realloc(q->body, ncap < cfg->max_body + 1 ? ncap : cfg->max_body + 1);
			if (!nb)
				return MHD_NO;
			q->body = nb;
			q->cap = ncap < cfg->max_body + 1 ? ncap : cfg->max_body + 1;
		}
		memcpy(q->body + q->len, upload, n);
		q->len += n;
		return MHD_YES;
	}
	q->started = true;
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const struct http_token *tok = http_auth(cfg, auth);
	return http_dispatch(c, cfg, url, q, tok ? tok->tenant : NULL);
}

void http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	struct http_req *q = *con_cls;
	if (q) {
		free(q->body);
		free(q);
	}
	*con_cls = NULL;
}
