/* POST /v1/batch: many native requests in one body, one JSON line per
 * result streamed back as each finishes. The front keeps a window of them
 * in the daemon on one connection and retries those answered "busy" itself
 * (after a short wait), so a client never writes a busy loop; every other
 * answer, errors included, is a result line with the client's own id. A
 * client that goes away closes the daemon connection, which cancels what is
 * still queued or running. */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/http/http.h"
#include "client/lib/sbx.h"
#include "common/clock.h"
#include "common/jsonmem.h"
#include "common/protocol.h"

#define BATCH_BUSY_WAIT_MS 100

/* A request is waiting (not sent yet, or answered busy), in the daemon, or
 * done (its line written). */
enum { B_WAITING, B_FLYING, B_DONE };

struct batch {
	const struct http_config *cfg;
	json_t *reqs;	 /* the requests, ids replaced by the front's "b<n>-<i>" */
	json_t *ids;	 /* the clients' ids (or null), by index */
	size_t n, next;	 /* count, next never sent */
	size_t *retry;	 /* indexes answered busy, to send again */
	char *state;	 /* by index: B_WAITING, B_FLYING or B_DONE */
	long long *sent; /* by index: when it was (last) sent, for the latency */
	size_t nretry;
	size_t inflight, done;
	struct sbx_conn *conn;
	struct up_client cl;	  /* asked between slices of a wait */
	long long retry_until_ms; /* busy answers are retried until then */
	const char *why;	  /* why the rest of the batch failed */
	char *out;		  /* the line being written out */
	size_t out_len, out_off;
	char prefix[24];
	bool failed, gone;
};

json_t *batch_parse(const char *body, size_t len, unsigned max, char *why, size_t wl)
{
	json_error_t je;
	size_t i = 0, budget = jsonmem_budget(len); /* shared by the body's lines */
	while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
		i++;
	json_t *arr;
	if (i < len && body[i] == '[') {
		arr = jsonmem_loadb(body, len, JSON_REJECT_DUPLICATES, &budget, &je, NULL);
		if (!json_is_array(arr)) {
			snprintf(why, wl, "invalid JSON array: %s", je.text);
			json_decref(arr);
			return NULL;
		}
	} else {
		arr = json_array();
		for (size_t line = 1; i < len; line++) {
			const char *nl = memchr(body + i, '\n', len - i);
			size_t end = nl ? (size_t)(nl - body) : len;
			size_t k = i;
			while (k < end && (body[k] == ' ' || body[k] == '\r' || body[k] == '\t'))
				k++;
			if (k < end) {
				json_t *o = jsonmem_loadb(body + i, end - i, JSON_REJECT_DUPLICATES,
							  &budget, &je, NULL);
				if (!o) {
					snprintf(why, wl, "line %zu: invalid JSON: %s", line,
						 je.text);
					json_decref(arr);
					return NULL;
				}
				json_array_append_new(arr, o);
			}
			i = end + 1;
			if (json_array_size(arr) > max)
				break;
		}
	}
	size_t n = json_array_size(arr);
	if (n == 0 || n > max) {
		snprintf(why, wl, n ? "more than %u requests in one batch" : "an empty batch", max);
		json_decref(arr);
		return NULL;
	}
	for (size_t k = 0; k < n; k++)
		if (!json_is_object(json_array_get(arr, k))) {
			snprintf(why, wl, "request %zu is not a JSON object", k + 1);
			json_decref(arr);
			return NULL;
		}
	return arr;
}

static void batch_free(void *cls)
{
	struct batch *b = cls;
	up_give(b->conn, false); /* anything still in the daemon is cancelled */
	json_decref(b->reqs);
	json_decref(b->ids);
	free(b->retry);
	free(b->state);
	free(b->sent);
	free(b->out);
	free(b);
}

/* Index of a front id "<prefix>-<i>", or -1. */
static long batch_index(const struct batch *b, const char *id)
{
	size_t pl = strlen(b->prefix);
	if (!id || strncmp(id, b->prefix, pl) != 0 || id[pl] != '-')
		return -1;
	char *end;
	unsigned long i = strtoul(id + pl + 1, &end, 10);
	return *end || i >= b->n ? -1 : (long)i;
}

static int batch_send(struct batch *b, size_t i)
{
	char err[256];
	if (sbx_submit(b->conn, json_array_get(b->reqs, i), err, sizeof err) < 0)
		return -1;
	b->inflight++;
	b->state[i] = B_FLYING;
	b->sent[i] = (long long)clock_mono_ns();
	return 0;
}

/* The result line of request i: the daemon's answer with the client's id.
 * The newline goes over the string's NUL (batch_read). */
static void batch_line(struct batch *b, json_t *resp, long i)
{
	if (i >= 0) {
		json_object_set(resp, F_ID, json_array_get(b->ids, (size_t)i));
		b->state[i] = B_DONE;
	}
	free(b->out);
	b->out = json_dumps(resp, JSON_COMPACT);
	b->out_len = b->out ? strlen(b->out) : 0;
	b->out_off = 0;
}

/* The next answer; when the client hung up, the daemon connection is
 * dropped (batch_free), which cancels what the batch still has queued or
 * running. */
static json_t *batch_next(struct batch *b)
{
	char err[256];
	json_t *r = up_wait(b->conn, NULL, b->cfg->job_timeout_ms, &b->cl, err, sizeof err);
	if (!r && strcmp(err, UP_GONE) == 0) {
		b->why = UP_GONE;
		b->gone = true;
	}
	return r;
}

/* Waits for the next result and makes it the line to write; false when the
 * batch cannot go on (the rest of it then gets error lines, b->why). A loop,
 * not a recursion: a client that keeps its own queue full has its batch
 * answered busy for as long as it likes, and each round used to take a
 * stack frame until the front crashed. */
static bool batch_step(struct batch *b)
{
	for (;;) {
		while (b->next < b->n && b->inflight < b->cfg->batch_window) {
			if (batch_send(b, b->next) < 0)
				return false;
			b->next++;
		}
		if (b->nretry && b->inflight < b->cfg->batch_window) {
			if ((long long)clock_mono_ms() > b->retry_until_ms) {
				b->why = "sandboxd stayed busy for a whole job timeout";
				return false;
			}
			/* One wait for all that were busy, then they go again. */
			struct timespec ts = {0, BATCH_BUSY_WAIT_MS * 1000000L};
			nanosleep(&ts, NULL);
		}
		while (b->nretry && b->inflight < b->cfg->batch_window)
			if (batch_send(b, b->retry[--b->nretry]) < 0)
				return false;
		for (;;) {
			json_t *resp = batch_next(b);
			if (!resp)
				return false;
			b->inflight--;
			const char *code = json_string_value(
			    json_object_get(json_object_get(resp, R_ERROR), R_ERROR_CODE));
			bool busy = code && strcmp(code, proto_errcode_name(E_BUSY)) == 0;
			long i = batch_index(b, json_string_value(json_object_get(resp, F_ID)));
			/* A busy without an id is for a line the daemon dropped unread:
			 * whose it is, is known only when one request was in flight. */
			for (size_t k = 0; i < 0 && busy && b->inflight == 0 && k < b->n; k++)
				if (b->state[k] == B_FLYING)
					i = (long)k;
			if (i < 0 || b->state[i] != B_FLYING) {
				/* Any other answer the front cannot name leaves some
				 * request unanswered: never a line of its own (a client
				 * counting lines would miss the lost one), the rest of
				 * the batch fails instead. */
				json_decref(resp);
				b->why = "sandboxd answered a request the front cannot name";
				return false;
			}
			if (busy) {
				b->state[i] = B_WAITING;
				metrics_busy();
				b->retry[b->nretry++] = (size_t)i;
				json_decref(resp);
				if (b->inflight == 0)
					break; /* all that were sent came back: send again */
				continue;
			}
			metrics_job(resp, (double)((long long)clock_mono_ns() - b->sent[i]) / 1e9);
			batch_line(b, resp, i);
			json_decref(resp);
			b->done++;
			b->retry_until_ms = (long long)clock_mono_ms() + b->cfg->job_timeout_ms;
			return true;
		}
	}
}

static ssize_t batch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct batch *b = cls;
	(void)pos;
	if (b->out_off == b->out_len) {
		if (b->done == b->n)
			return MHD_CONTENT_READER_END_OF_STREAM;
		bool ok = !b->failed && batch_step(b);
		if (!ok && b->gone)
			return MHD_CONTENT_READER_END_WITH_ERROR; /* nobody to write to */
		if (!ok) {
			/* The batch cannot go on: the unanswered requests get an error
			 * line each, so the client knows which ones to send again. */
			b->failed = true;
			json_t *e =
			    json_pack("{s:n,s:{s:s,s:s}}", F_ID, R_ERROR, R_ERROR_CODE,
				      proto_errcode_name(E_INTERNAL), R_ERROR_MESSAGE,
				      b->why ? b->why : "sandboxd-http lost the daemon connection");
			size_t i = 0;
			while (i < b->n && b->state[i] == B_DONE)
				i++;
			batch_line(b, e, i < b->n ? (long)i : -1);
			json_decref(e);
			b->done++;
		}
		if (!b->out)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		b->out[b->out_len++] = '\n';
	}
	size_t n = b->out_len - b->out_off < max ? b->out_len - b->out_off : max;
	memcpy(buf, b->out + b->out_off, n);
	b->out_off += n;
	return (ssize_t)n;
}

struct MHD_Response *batch_response(const struct http_config *cfg, const char *body, size_t len,
				    const char *tenant, const struct up_client *cl,
				    unsigned *status, char *why, size_t wl)
{
	*status = 400;
	json_t *reqs = batch_parse(body, len, cfg->batch_max, why, wl);
	if (!reqs)
		return NULL;
	struct batch *b = calloc(1, sizeof *b);
	if (!b) {
		json_decref(reqs);
		snprintf(why, wl, "out of memory");
		return NULL;
	}
	b->cfg = cfg;
	b->cl = *cl;
	b->retry_until_ms = (long long)clock_mono_ms() + cfg->job_timeout_ms;
	b->reqs = reqs;
	b->n = json_array_size(reqs);
	b->ids = json_array();
	b->retry = calloc(b->n, sizeof *b->retry);
	b->state = calloc(b->n, 1);
	b->sent = calloc(b->n, sizeof *b->sent);
	up_new_id(b->prefix, sizeof b->prefix);
	for (size_t i = 0; i < b->n; i++) {
		json_t *r = json_array_get(reqs, i);
		json_t *id = json_object_get(r, F_ID);
		json_array_append(b->ids, id ? id : json_null());
		char fid[48];
		snprintf(fid, sizeof fid, "%s-%zu", b->prefix, i);
		json_object_set_new(r, F_ID, json_string(fid));
		up_set_tenant(r, tenant);
	}
	char err[256];
	bool mem = b->retry && b->state && b->sent && b->ids;
	if (mem)
		b->conn = up_take(err, sizeof err);
	if (!b->conn) {
		snprintf(why, wl, "%s", mem ? err : "out of memory");
		*status = 502;
		batch_free(b);
		return NULL;
	}
	struct MHD_Response *r =
	    MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, batch_read, b, batch_free);
	if (!r)
		batch_free(b);
	return r;
}
