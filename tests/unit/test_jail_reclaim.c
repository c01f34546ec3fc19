/* Unit tests for the reclaim thread (sandboxd/jail/reclaim.c), watched
 * through pipes: the write end goes to the thread, and its read end sees
 * the end of file when it is closed.
 *   - not started, or stopped, a descriptor is closed at once;
 *   - started, it stays open until its delay has passed, then is closed;
 *   - the queue never holds more than its room: what does not fit is
 *     closed at once, and what waited is closed in the end;
 *   - a stop closes what waits at once, without waiting out the delay. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sandboxd/jail/reclaim.h"
#include "tests/helpers/tmain.h"

#define MS 1000000u

/* A pipe; *w goes to the thread, the read end is returned. */
static int watched(int *w)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	*w = p[1];
	return p[0];
}

/* Whether the write end of r's pipe is closed, waiting at most ms. */
static bool closed_within(int r, int ms)
{
	struct pollfd p = {.fd = r, .events = POLLIN};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLHUP);
}

START_TEST(test_not_started_closes_at_once)
{
	int w, r = watched(&w);
	reclaim_fd(w);
	ck_assert_msg(closed_within(r, 0), "closed at once without the thread");
	close(r);
	reclaim_fd(-1); /* nothing to do, nothing closed */
}
END_TEST

START_TEST(test_closed_after_its_delay)
{
	ck_assert_int_eq(reclaim_start(4, 300 * MS), 0);
	int w, r = watched(&w);
	uint64_t t0 = clock_mono_ns();
	reclaim_fd(w);
	ck_assert_msg(!closed_within(r, 100), "closed before its delay");
	ck_assert_uint_eq(reclaim_waiting(), 1);
	ck_assert_msg(closed_within(r, 5000), "not closed after its delay");
	ck_assert_uint_ge(clock_mono_ns() - t0, 300 * MS);
	ck_assert_uint_eq(reclaim_waiting(), 0);
	close(r);
	reclaim_stop();
	/* Stopped: at once again. */
	r = watched(&w);
	reclaim_fd(w);
	ck_assert_msg(closed_within(r, 0), "closed at once after the stop");
	close(r);
}
END_TEST

START_TEST(test_bounded_queue)
{
	enum { N = 6, CAP = 2 };
	ck_assert_int_eq(reclaim_start(CAP, 10000 * MS), 0);
	int r[N];
	for (int i = 0; i < N; i++) {
		int w;
		r[i] = watched(&w);
		reclaim_fd(w);
		ck_assert_uint_le(reclaim_waiting(), CAP);
	}
	/* The first CAP wait (their delay is long); the rest did not fit. */
	for (int i = 0; i < N; i++)
		ck_assert_msg(closed_within(r[i], 0) == (i >= CAP), "descriptor %d: %s", i,
			      i >= CAP ? "kept past the bound" : "closed before its delay");
	/* A stop closes them at once, not 10 s later. */
	uint64_t t0 = clock_mono_ns();
	reclaim_stop();
	ck_assert_uint_lt(clock_mono_ns() - t0, 2000 * MS);
	for (int i = 0; i < N; i++) {
		ck_assert_msg(closed_within(r[i], 0), "descriptor %d left open by the stop", i);
		close(r[i]);
	}
	ck_assert_uint_eq(reclaim_waiting(), 0);
}
END_TEST

START_TEST(test_restart)
{
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(reclaim_start(1, 0), 0);
		ck_assert_int_eq(reclaim_start(1, 0), 0); /* already running: a no-op */
		int w, r = watched(&w);
		reclaim_fd(w);
		ck_assert_msg(closed_within(r, 5000), "round %d: not closed", k);
		close(r);
		reclaim_stop();
		reclaim_stop(); /* stopped: a no-op */
	}
}
END_TEST

static Suite *reclaim_suite(void)
{
	Suite *s = suite_create("jail_reclaim");
	TCase *t = tmain_tcase(s, "reclaim", 30);
	tcase_add_test(t, test_not_started_closes_at_once);
	tcase_add_test(t, test_closed_after_its_delay);
	tcase_add_test(t, test_bounded_queue);
	tcase_add_test(t, test_restart);
	return s;
}

int main(void)
{
	return tmain(reclaim_suite, NULL);
}
