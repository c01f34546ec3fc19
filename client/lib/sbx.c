#include "client/lib/sbx.h"
#include "client/lib/pending.h"
#include "common/errfmt.h"
#include "common/clock.h"
#include "common/file.h"
#include "common/protocol.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESPONSE (1u << 30)
#define SBX_BUF_KEEP ((size_t)65536) /* a connection's buffer between large answers */
#define SUBMIT_FAILED_READ_MS 100    /* what a closed connection still holds is there at once */

struct sbx_conn {
	int fd;
	char *buf;
	size_t len, cap;
	json_t *held;		/* responses received while waiting for another id */
	struct pend_table pend; /* requests sent and not answered yet */
	bool untracked;		/* a request not in pend was sent (no id, or no retry) */
	struct sbx_retry retry;
	uint64_t rng; /* xorshift64 state for the delays' jitter */
	unsigned long retries;
};

size_t sbx_buffer_size(const struct sbx_conn *c)
{
	return c->cap;
}

void sbx_retry_default(struct sbx_retry *r)
{
	*r = (struct sbx_retry){.base_ms = SBX_RETRY_BASE_MS,
				.max_ms = SBX_RETRY_MAX_MS,
				.total_ms = SBX_RETRY_TOTAL_MS};
}

void sbx_set_retry(struct sbx_conn *c, const struct sbx_retry *r)
{
	c->retry = *r;
}

long sbx_retry_delay(const struct sbx_retry *r, unsigned attempt, long long spent_ms, uint32_t rnd)
{
	if (r->total_ms <= 0 || spent_ms < 0 || spent_ms >= r->total_ms)
		return -1;
	long cap = r->max_ms > 0 ? r->max_ms : 1;
	long d = r->base_ms > 0 ? r->base_ms : 1;
	for (unsigned i = 0; i < attempt && d < cap; i++)
		d *= 2;
	d = d < cap ? d : cap;
	/* "Equal jitter": at least half the step, so the delays still grow,
	 * and a random rest, so refused clients spread out. */
	long delay = d - d / 2 + (long)(rnd % (uint32_t)(d / 2 + 1));
	return spent_ms + delay > r->total_ms ? -1 : delay;
}

unsigned long sbx_busy_retries(const struct sbx_conn *c)
{
	return c->retries;
}

static uint32_t sbx_rand(struct sbx_conn *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return (uint32_t)(c->rng >> 32);
}

const char *sbx_default_socket(void)
{
	const char *s = getenv("SBX_SOCKET");
	return s && *s ? s : "/run/sandboxd.sock";
}

struct sbx_conn *sbx_connect(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		errfmt(err, errlen, "socket path too long: %s", path);
		return NULL;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		errfmt(err, errlen, "cannot reach sandboxd at %s: %s", path, errfmt_desc(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct sbx_conn *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		errfmt(err, errlen, "out of memory");
		return NULL;
	}
	c->fd = fd;
	c->held = json_array();
	sbx_retry_default(&c->retry);
	if (getrandom(&c->rng, sizeof c->rng, GRND_NONBLOCK) != (ssize_t)sizeof c->rng)
		c->rng = clock_mono_ns() ^ ((uint64_t)getpid() << 32);
	c->rng |= 1; /* xorshift never leaves 0 */
	return c;
}

void sbx_close(struct sbx_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->buf);
	json_decref(c->held);
	pend_free(&c->pend);
	free(c);
}

static int send_all(struct sbx_conn *c, const char *line, size_t n, char *err, size_t errlen)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = send(c->fd, line + off, n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errfmt(err, errlen, "send: %s", errfmt_desc(errno));
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

int sbx_submit(struct sbx_conn *c, const json_t *req, char *err, size_t errlen)
{
	char *s = json_dumps(req, JSON_COMPACT);
	size_t n = s ? strlen(s) : 0;
	char *line = s ? realloc(s, n + 2) : NULL;
	if (!line) {
		free(s);
		errfmt(err, errlen, "cannot encode the request");
		return -1;
	}
	line[n++] = '\n';
	line[n] = '\0';
	const char *id = json_string_value(json_object_get(req, F_ID));
	struct pend *e = NULL;
	if (id && c->retry.total_ms > 0 && !(e = pend_add(&c->pend, id, line, n))) {
		free(line);
		errfmt(err, errlen, "out of memory");
		return -1;
	}
	/* A request not kept could be the one a `busy` without an id is for:
	 * from now on such a busy is never pinned on the one kept in flight. */
	c->untracked |= !e;
	int rc = send_all(c, line, n, err, errlen);
	if (rc < 0 && e)
		pend_remove(&c->pend, e); /* not sent: no response will come for it */
	free(line);
	return rc;
}

enum rl_status { RL_OK, RL_TIMEOUT, RL_CLOSED, RL_BAD };

/* Reads the next line from the socket as JSON, waiting until the monotonic
 * instant until_ms (-1: forever). */
static json_t *read_line(struct sbx_conn *c, long long until_ms, enum rl_status *st, char *err,
			 size_t errlen)
{
	*st = RL_BAD;
	for (;;) {
		char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - c->buf);
			json_error_t je;
			json_t *o = json_loadb(c->buf, n, JSON_ALLOW_NUL, &je);
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			/* A large response grew the buffer: give it back once what
			 * is left fits the first size, so a connection kept for
			 * later (the HTTP front's pool holds 64) holds 64 KiB, not
			 * its largest answer (an outside attack: 1.99 GB left in
			 * the front's pool). */
			if (c->cap > SBX_BUF_KEEP && c->len <= SBX_BUF_KEEP) {
				char *nb = realloc(c->buf, SBX_BUF_KEEP);
				if (nb) {
					c->buf = nb;
					c->cap = SBX_BUF_KEEP;
				}
			}
			if (!o)
				errfmt(err, errlen, "bad response from sandboxd: %s", je.text);
			*st = o ? RL_OK : RL_BAD;
			return o;
		}
		if (c->len == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : SBX_BUF_KEEP;
			char *nb = ncap <= MAX_RESPONSE ? realloc(c->buf, ncap) : NULL;
			if (!nb) {
				errfmt(err, errlen, "response too large");
				return NULL;
			}
			c->buf = nb;
			c->cap = ncap;
		}
		long long left = until_ms < 0 ? -1 : until_ms - (long long)clock_mono_ms();
		if (until_ms >= 0 && left <= 0) {
			errfmt(err, errlen, "timed out waiting for sandboxd");
			*st = RL_TIMEOUT;
			return NULL;
		}
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int pr = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (pr <= 0)
			continue;
		ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errfmt(err, errlen, "sandboxd closed the connection%s%s", r < 0 ? ": " : "",
			       r < 0 ? errfmt_desc(errno) : "");
			*st = RL_CLOSED;
			return NULL;
		}
		c->len += (size_t)r;
	}
}

/* A response that ends a request's wait for a retry: its last busy. */
static json_t *give_up(struct sbx_conn *c, struct pend *e)
{
	json_t *o = json_incref(e->busy);
	pend_remove(&c->pend, e);
	return o;
}

/* o against the requests awaiting a response: a `busy` that is retried
 * makes its request wait for its next attempt and is taken (true); any
 * other response ends its request's wait (false: the caller's). */
static bool take_busy(struct sbx_conn *c, json_t *o)
{
	const char *id = json_string_value(json_object_get(o, F_ID));
	size_t count = 0;
	struct pend *e = id ? pend_find(&c->pend, id, &count) : NULL;
	if (!id && !c->untracked && (e = pend_sole_in_flight(&c->pend)))
		count = 1; /* a line refused unread: the only one it can be */
	if (!e)
		return false;
	const char *code =
	    json_string_value(json_object_get(json_object_get(o, R_ERROR), R_ERROR_CODE));
	/* With its id repeated, a busy could be for either request: it is
	 * theirs to handle, as any response to a repeated id is. */
	if (code && strcmp(code, ERROR_BUSY) == 0 && count == 1) {
		long long now = (long long)clock_mono_ms();
		long long spent = e->first_busy_ms < 0 ? 0 : now - e->first_busy_ms;
		long d = sbx_retry_delay(&c->retry, e->attempt, spent, sbx_rand(c));
		if (d >= 0 && pend_wait(&c->pend, e, now + d, o) == 0) {
			if (e->first_busy_ms < 0)
				e->first_busy_ms = now;
			e->attempt++;
			c->retries++;
			json_decref(o);
			return true;
		}
	}
	if (e->heap_i == PEND_IN_FLIGHT)
		pend_remove(&c->pend, e);
	return false;
}

/* The next response for the caller, until the instant deadline (-1:
 * forever). Requests refused `busy` are sent again here when due. */
static json_t *recv_response(struct sbx_conn *c, long long deadline, char *err, size_t errlen)
{
	for (;;) {
		long long now = (long long)clock_mono_ms();
		struct pend *e;
		while ((e = pend_pop_due(&c->pend, now))) {
			if (send_all(c, e->line, e->len, err, errlen) < 0)
				return give_up(c, e);
			json_decref(e->busy);
			e->busy = NULL;
		}
		long long due = pend_next_due(&c->pend), until = deadline;
		if (due >= 0 && (until < 0 || due < until))
			until = due;
		enum rl_status st;
		json_t *o = read_line(c, until, &st, err, errlen);
		if (st == RL_TIMEOUT && until != deadline)
			continue; /* a retry is due */
		/* The daemon is gone: a request waiting for its retry never
		 * will be; its answer is the busy it got. */
		if (st == RL_CLOSED && (e = pend_pop_due(&c->pend, LLONG_MAX)))
			return give_up(c, e);
		if (!o || !take_busy(c, o))
			return o;
	}
}

static long long deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : (long long)clock_mono_ms() + timeout_ms;
}

json_t *sbx_next(struct sbx_conn *c, int timeout_ms, char *err, size_t errlen)
{
	if (json_array_size(c->held)) {
		json_t *o = json_incref(json_array_get(c->held, 0));
		json_array_remove(c->held, 0);
		return o;
	}
	return recv_response(c, deadline_of(timeout_ms), err, errlen);
}

json_t *sbx_wait(struct sbx_conn *c, const char *id, int timeout_ms, char *err, size_t errlen)
{
	size_t i;
	json_t *o;
	json_array_foreach(c->held, i, o)
	{
		const char *oid = json_string_value(json_object_get(o, F_ID));
		if (oid && strcmp(oid, id) == 0) {
			json_incref(o);
			json_array_remove(c->held, i);
			return o;
		}
	}
	long long deadline = deadline_of(timeout_ms);
	for (;;) {
		o = recv_response(c, deadline, err, errlen);
		if (!o)
			return NULL;
		const char *oid = json_string_value(json_object_get(o, F_ID));
		/* An error about an unreadable request has no id: it is ours. */
		if (!oid || strcmp(oid, id) == 0)
			return o;
		json_array_append_new(c->held, o);
	}
}

json_t *sbx_call(struct sbx_conn *c, const json_t *req, int timeout_ms, char *err, size_t errlen)
{
	const char *id = json_string_value(json_object_get(req, F_ID));
	if (!id) {
		errfmt(err, errlen, "request without a string id");
		return NULL;
	}
	if (sbx_submit(c, req, err, errlen) < 0) {
		/* The daemon may have answered and closed before the request went
		 * out (a refused connection: `busy`, no id): that answer, if it
		 * is there, says more than the broken pipe. */
		char ignored[64];
		json_t *o =
		    recv_response(c, deadline_of(SUBMIT_FAILED_READ_MS), ignored, sizeof ignored);
		if (o && !json_string_value(json_object_get(o, F_ID)))
			return o;
		json_decref(o);
		return NULL;
	}
	return sbx_wait(c, id, timeout_ms, err, errlen);
}

char *sbx_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	return file_read_all(path, max, len, err, errlen);
}
