/* libsbx: a small client library for sandboxd. The sbx CLI is a thin layer
 * over it, and C harnesses can link it directly. */
#ifndef SBX_CLIENT_H
#define SBX_CLIENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct sbx_conn;

/* Retrying `busy`. The daemon answers `busy` when its queue is full (or its
 * buffers are): nothing of that request ran, so it is sent again, with the
 * same id and the same bytes, after a delay that doubles from base_ms up to
 * max_ms, each drawn at random from its upper half (so that clients that
 * were refused together do not come back together). A request is not sent
 * again later than total_ms after its first `busy`: then that `busy` is its
 * response. No other error is ever retried. The response is matched by id,
 * so a retried request is answered exactly once. A `busy` without an id (a
 * request line the daemon refused unread) is retried only when one request
 * is in flight on the connection; otherwise it cannot say which. */
struct sbx_retry {
	int base_ms;  /* the first delay is in [base_ms / 2, base_ms] */
	int max_ms;   /* no single delay is longer */
	int total_ms; /* 0: never retry */
};
#define SBX_RETRY_BASE_MS 10
#define SBX_RETRY_MAX_MS 1000
#define SBX_RETRY_TOTAL_MS (10 * 60 * 1000)

/* The defaults above: the first retries come within tens of ms (a queue of
 * fast jobs frees a place in milliseconds), no delay is longer than 1 s (the
 * daemon's default queue holds seconds of work, so a refused client is back
 * before it runs dry), and a request is retried for up to 10 minutes. */
void sbx_retry_default(struct sbx_retry *r);
/* Applies to this connection from now on (a connection starts with the
 * defaults). */
void sbx_set_retry(struct sbx_conn *c, const struct sbx_retry *r);
/* How many `busy` answers this connection has taken and retried. */
unsigned long sbx_busy_retries(const struct sbx_conn *c);
/* The schedule: the delay before retry number `attempt` (0: the first) of a
 * request whose first `busy` came spent_ms ago, with rnd a uniform random
 * value; -1 when it is not retried (the delay would end past total_ms). */
long sbx_retry_delay(const struct sbx_retry *r, unsigned attempt, long long spent_ms, uint32_t rnd);

/* $SBX_SOCKET, else /run/sandboxd.sock. */
const char *sbx_default_socket(void);
/* NULL on failure, with a message naming the socket in err. */
struct sbx_conn *sbx_connect(const char *path, char *err, size_t errlen);
void sbx_close(struct sbx_conn *c);
/* The bytes the connection's read buffer has allocated: grown for a large
 * answer, given back to 64 KiB once it is read. */
size_t sbx_buffer_size(const struct sbx_conn *c);
/* Sends one request (a JSON object with a string "id"). 0 or -1. A copy is
 * kept until its response arrives, to send it again when it is refused
 * `busy` (see struct sbx_retry); the caller may change or free req. */
int sbx_submit(struct sbx_conn *c, const json_t *req, char *err, size_t errlen);
/* Waits for the response with this id (others that arrive meanwhile are
 * kept for later calls). timeout_ms bounds the whole wait, retries
 * included; < 0 waits forever. New reference or NULL. */
json_t *sbx_wait(struct sbx_conn *c, const char *id, int timeout_ms, char *err, size_t errlen);
/* Waits for any response. A `busy` being retried is not a response: the
 * request is sent again while these wait (never outside them). */
json_t *sbx_next(struct sbx_conn *c, int timeout_ms, char *err, size_t errlen);
/* submit + wait. When the daemon refused the connection itself (`busy`
 * without an id, then closed), that `busy` is the answer: connect again. */
json_t *sbx_call(struct sbx_conn *c, const json_t *req, int timeout_ms, char *err, size_t errlen);
/* Reads a whole file (or "-" for stdin), up to max bytes. */
char *sbx_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
