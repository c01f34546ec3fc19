/* A finished job's mount namespace is let go after its answer, not before
 * it (sandboxd/jail/reclaim.h): the job hands it to the daemon before its
 * code runs, and the daemon's reclaim thread closes it a little after the
 * answer. The daemons here hold each namespace SANDBOXD_TEST_RECLAIM_DELAY_MS
 * (test-only) so that the holding can be seen from outside:
 *   - on the warm path and on the cold path, right after the answer the
 *     daemon holds exactly the namespace the job saw as its own
 *     (/proc/self/ns/mnt inside), and once the delay has passed none;
 *   - it never holds more than its bound (two per worker): what does not
 *     fit is let go at once, and jobs keep passing;
 *   - a stop lets go of what waits at once, without waiting out the delay.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"

#define TIMEOUT_S 120
#define CALL_MS 60000
#define PER_WORKER 2 /* RECLAIM_PER_WORKER */

static const char SHOW_NS[] = "import os\nprint('NS', os.stat('/proc/self/ns/mnt').st_ino)\n";

/* Runs SHOW_NS on c; the inode the job printed (0 when it did not). The
 * job must have run on `path`; with path NULL, *warm says whether it ran
 * warm. */
static unsigned long job_ns(struct sbx_conn *c, const char *id, const char *path, bool *warm)
{
	json_t *r = call(c, job(id, SHOW_NS), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && (!path || streq(sget(r, "path"), path)));
	if (warm)
		*warm = streq(sget(r, "path"), "warm");
	unsigned long ino = 0;
	const char *out = sget(r, "stdout");
	if (out)
		sscanf(out, "NS %lu", &ino);
	CHECK_R(r, ino != 0);
	json_decref(r);
	return ino;
}

/* Whether this daemon forks jobs from fork servers here: a kernel without
 * what they need (a user namespace for the server, close_range, pidfds)
 * leaves it cold, which is test_daemon_warm's to judge, not this suite's.
 * The reason, from the daemon's log, in why. */
static bool runs_warm(struct test_daemon *d, char *why, size_t len)
{
	json_t *r = run1(d, job("probe", "pass"), CALL_MS);
	bool warm = streq(sget(r, "path"), "warm");
	json_decref(r);
	if (!warm) {
		char *log = td_log(d);
		const char *fs = strstr(log, "fork server");
		snprintf(why, len, "this daemon runs no job warm here (its log: %.200s)",
			 fs ? fs : "no word of its fork servers");
		free(log);
	}
	return warm;
}

static bool holds(pid_t pid, unsigned long ino)
{
	unsigned long inos[64];
	int n = tproc_ns_fds(pid, "mnt", inos, 64);
	for (int i = 0; i < n && i < 64; i++)
		if (inos[i] == ino)
			return true;
	return false;
}

/* Waits at most ms for the daemon to hold no mount namespace. */
static int held_after(pid_t pid, int ms)
{
	long long end = td_now_ms() + ms;
	int n;
	while ((n = tproc_ns_fds(pid, "mnt", NULL, 0)) > 0 && td_now_ms() < end)
		td_sleep_ms(20);
	return n;
}

static void held_then_released(const char *path)
{
	setenv("SANDBOXD_TEST_RECLAIM_DELAY_MS", "1500", 1);
	struct test_daemon d;
	if (streq(path, "cold"))
		START(d, "--workers", "1", "--cold");
	else
		START(d, "--workers", "1");
	unsetenv("SANDBOXD_TEST_RECLAIM_DELAY_MS");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	char why[300];
	if (streq(path, "warm") && !runs_warm(&d, why, sizeof why)) {
		td_stop(&d, 10000);
		td_cleanup(&d);
		SKIP_TEST("%s", why);
	}
	/* The start-up probe's job (run_probe.c) is let go like any other. */
	ck_assert_int_eq(held_after(d.pid, 6000), 0);
	struct sbx_conn *c = conn_open(&d);
	for (int i = 0; i < 3; i++) {
		char id[32];
		snprintf(id, sizeof id, "%s-%d", path, i);
		unsigned long ino = job_ns(c, id, path, NULL);
		char *fds = tproc_fd_listing(d.pid);
		ck_assert_msg(holds(d.pid, ino),
			      "%s job %d: the daemon does not hold mnt:[%lu]: %s", path, i, ino,
			      fds);
		free(fds);
		/* The job's own, never the daemon's (or the host's). */
		char self[64];
		ssize_t l = readlink("/proc/self/ns/mnt", self, sizeof self - 1);
		ck_assert_int_gt(l, 0);
		self[l] = '\0';
		char theirs[64];
		snprintf(theirs, sizeof theirs, "mnt:[%lu]", ino);
		ck_assert_str_ne(self, theirs);
		int n = held_after(d.pid, 6000);
		ck_assert_msg(n == 0, "%s job %d: %d mount namespaces still held", path, i, n);
	}
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}

START_TEST(test_warm_held_then_released)
{
	held_then_released("warm");
}
END_TEST

START_TEST(test_cold_held_then_released)
{
	held_then_released("cold");
}
END_TEST

/* With a delay far past the test, the bound alone decides: namespaces wait
 * while there is room (the start-up probe's job may hold one already),
 * every later one is let go at once; the stop lets the waiting ones go
 * without waiting 60 s. */
START_TEST(test_bounded_and_stop)
{
	setenv("SANDBOXD_TEST_RECLAIM_DELAY_MS", "60000", 1);
	struct test_daemon d;
	START(d, "--workers", "1");
	unsetenv("SANDBOXD_TEST_RECLAIM_DELAY_MS");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	int base = tproc_ns_fds(d.pid, "mnt", NULL, 0);
	ck_assert_msg(base >= 0 && base < PER_WORKER, "%d mount namespaces held before any job",
		      base);
	int room = PER_WORKER - base;
	struct sbx_conn *c = conn_open(&d);
	unsigned long kept[PER_WORKER];
	for (int i = 0; i < PER_WORKER + 4; i++) {
		char id[32];
		snprintf(id, sizeof id, "b-%d", i);
		bool warm = true;
		unsigned long ino = job_ns(c, id, i ? "warm" : NULL, &warm);
		if (!warm) { /* the first job: this machine runs none warm */
			sbx_close(c);
			td_stop(&d, 10000);
			td_cleanup(&d);
			SKIP_TEST("this daemon runs no job warm here (test_daemon_warm says why)");
		}
		if (i < room)
			kept[i] = ino;
		int n = tproc_ns_fds(d.pid, "mnt", NULL, 0);
		ck_assert_msg(n == base + (i < room ? i + 1 : room),
			      "after job %d the daemon holds %d mount namespaces (bound %d, %d "
			      "before)",
			      i, n, PER_WORKER, base);
		ck_assert_msg(i < room ? holds(d.pid, ino) : !holds(d.pid, ino),
			      "job %d's namespace %s", i,
			      i < room ? "not held" : "held past the bound");
	}
	for (int i = 0; i < room; i++)
		ck_assert_msg(holds(d.pid, kept[i]), "job %d's namespace let go early", i);
	sbx_close(c);
	long long t0 = td_now_ms();
	ck_assert_int_eq(td_stop(&d, 20000), 0);
	ck_assert_int_lt(td_now_ms() - t0, 20000);
	td_cleanup(&d);
}
END_TEST

static Suite *reclaim_suite(void)
{
	Suite *s = suite_create("daemon_reclaim");
	TCase *t = tmain_tcase(s, "reclaim", TIMEOUT_S);
	tcase_add_test(t, test_warm_held_then_released);
	tcase_add_test(t, test_cold_held_then_released);
	tcase_add_test(t, test_bounded_and_stop);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-reclaim"};
	return tmain(reclaim_suite, &opts);
}
