/* Raw-socket requests under assertions for the integration suites (bytes
 * exactly as sent, for requests libsbx would never write), the daemon's
 * liveness, and a deterministic random source so a failure replays.
 * Header-only (static inline); see also tests/helpers/daemon.h (td_raw_*). */
#ifndef SBX_TRAW_H
#define SBX_TRAW_H

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"

/* The daemon is still running (after what `after` says was done to it). */
static inline void assert_alive(struct test_daemon *d, const char *after)
{
	int st = 0;
	ck_assert_msg(!td_exited(d, &st), "sandboxd died after %s (wait status %d); log:\n%s",
		      after, st, log_tail(d));
}

/* Pings until running and queued are both 0 (or timeout); returns the last ping. */
static inline json_t *ping_idle(struct sbx_conn *c, int timeout_ms)
{
	json_t *p = NULL;
	long long deadline = td_now_ms() + timeout_ms;
	for (;;) {
		json_decref(p);
		p = ping(c, "idle?");
		if ((iget(p, "running") == 0 && iget(p, "queued") == 0) || td_now_ms() > deadline)
			return p;
		td_sleep_ms(20);
	}
}

/* Deterministic pseudo-random numbers (xorshift64), so a failure replays:
 * every test (a fork of the runner) starts from the same state. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (uint32_t)(g_rng >> 16);
}

/* A string literal and its length (the literal may contain NUL bytes). */
#define LIT(s) (s), (sizeof(s) - 1)

static inline void raw_send(int fd, const void *buf, size_t len)
{
	ck_assert_msg(td_raw_send(fd, buf, len) == 0, "send of %zu bytes failed: %s", len,
		      strerror(errno));
}

/* Sends buf + "\n" and reads one JSON response line. */
static inline json_t *raw_req(int fd, const void *buf, size_t len, int timeout_ms)
{
	raw_send(fd, buf, len);
	raw_send(fd, "\n", 1);
	return td_raw_read_json(fd, timeout_ms);
}

static inline int raw_open(const struct test_daemon *d)
{
	int fd = td_raw_connect(d->sock);
	ck_assert_msg(fd >= 0, "connect %s: %s", d->sock, strerror(errno));
	return fd;
}

#endif
