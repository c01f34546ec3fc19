/* Load against a real sandboxd started per test (tests/helpers/daemon.c):
 * 1,000 connections (half of them sending half a request), a flood far
 * beyond the queue (every request answered once, busy or run, memory
 * bounded), and fd and RSS stability over 2,000 jobs (500 in the emulated
 * check-vm guest).
 *
 * Run as root from the repository root:
 *   make build/tests/test_daemon_load && SBX_BUILD=build build/tests/test_daemon_load */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"
#include "tests/helpers/traw.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one job's response may take */

/* Up to `len` bytes of a request, never its newline. */
static const char half_req[] = "{\"id\":\"half\",\"code\":\"print('never run')\"}";

START_TEST(test_thousand_connections)
{
	enum { SEQ = 500, ROUNDS = 5, PAR = 100 };
	struct test_daemon d;
	START(d, "--workers", "1");
	/* Counted once every fork server is up: a server the slot starts later
	 * (the preloaded ones wait for the light ones) holds descriptors of its
	 * own, which are not connections' leftovers. */
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	/* And once the servers' next jobs' pid 1s are taken (a pidfd each). */
	int fd0 = tproc_fd_count(d.pid);
	for (int i = 0, prev = -1; i < 50 && fd0 != prev; i++) {
		td_sleep_ms(300);
		prev = fd0;
		fd0 = tproc_fd_count(d.pid);
	}
	ck_assert_int_gt(fd0, 0);
	for (int i = 0; i < SEQ; i++) {
		int fd = td_raw_connect(d.sock);
		ck_assert_msg(fd >= 0, "sequential connection %d: %s", i, strerror(errno));
		if (i % 3 == 1)
			raw_send(fd, half_req, 1 + rnd() % (sizeof half_req - 2));
		close(fd);
	}
	for (int round = 0; round < ROUNDS; round++) {
		int fds[PAR];
		for (int i = 0; i < PAR; i++) {
			fds[i] = td_raw_connect(d.sock);
			ck_assert_msg(fds[i] >= 0, "round %d, connection %d: %s", round, i,
				      strerror(errno));
			if (i % 2 == 0)
				raw_send(fds[i], half_req, 1 + rnd() % (sizeof half_req - 2));
		}
		/* All 100 are open (and accepted) at once. */
		td_sleep_ms(50);
		for (int i = 0; i < PAR; i++)
			close(fds[i]);
	}
	assert_alive(&d, "1,000 connections");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "after");
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	json_decref(p);
	sbx_close(c);
	int fd1 = -1;
	long long deadline = td_now_ms() + 3000;
	while (td_now_ms() < deadline) {
		fd1 = tproc_fd_count(d.pid);
		if (fd1 <= fd0 + 5)
			break;
		td_sleep_ms(20);
	}
	char *lst = tproc_fd_listing(d.pid);
	ck_assert_msg(fd1 <= fd0 + 5,
		      "the daemon has %d fds after 1,000 connections, %d before: %s", fd1, fd0,
		      lst);
	free(lst);
	ck_assert_msg(!td_log_contains(&d, "job half"), "a half-sent request ran; log:\n%s",
		      log_tail(&d));
	stop_ok(&d);
}
END_TEST

START_TEST(test_flood_beyond_queue)
{
	enum { N = 100, BIG = 20000 };
	struct test_daemon d;
	START(d, "--workers", "1", "--queue", "4");
	long rss0 = tproc_rss_kb(d.pid), rss_max = rss0;
	ck_assert_int_gt(rss0, 0);
	int fd = raw_open(&d);
	size_t cap = (size_t)BIG * 64, len = 0;
	char *burst = malloc(cap);
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(
		    burst + len, cap - len,
		    "{\"id\":\"f%d\",\"code\":\"import time\\ntime.sleep(0.2)\"}\n", i);
	raw_send(fd, burst, len);
	int busy = 0, done = 0;
	bool seen[N] = {false};
	for (int n = 0; n < N; n++) {
		json_t *r = td_raw_read_json(fd, 20000);
		ck_assert_msg(r != NULL, "response %d of %d missing (busy %d, done %d); log:\n%s",
			      n + 1, N, busy, done, log_tail(&d));
		long rs = tproc_rss_kb(d.pid);
		rss_max = rs > rss_max ? rs : rss_max;
		int k = -1;
		CHECK_R(r, sscanf(sget(r, "id") ? sget(r, "id") : "", "f%d", &k) == 1 && k >= 0 &&
			       k < N);
		CHECK_RM(r, !seen[k], "id f%d answered twice", k);
		seen[k] = true;
		if (json_object_get(r, "error")) {
			CHECK_R(r, streq(errcode(r), "busy"));
			busy++;
		} else {
			CHECK_R(r, streq(sget(r, "verdict"), "pass"));
			done++;
		}
		json_decref(r);
	}
	bool eof = false;
	char *extra = td_raw_read_line(fd, 500, NULL, &eof);
	ck_assert_msg(!extra && !eof, "a 101st line (or EOF) after %d answers: %s", N,
		      extra ? extra : "EOF");
	ck_assert_msg(busy >= 80, "only %d busy errors for %d requests (%d ran) with --queue 4",
		      busy, N, done);
	ck_assert_int_eq(busy + done, N);
	bool asan = tproc_sanitized(d.pid);
	ck_assert_msg(asan || rss_max - rss0 < 64 * 1024, "RSS grew from %ld kB to %ld kB", rss0,
		      rss_max);

	/* Far beyond: 20,000 at once. Busy, answered, memory bounded. */
	len = 0;
	for (int i = 0; i < BIG; i++)
		len += (size_t)snprintf(burst + len, cap - len,
					"{\"id\":\"g%d\",\"code\":\"print(1)\"}\n", i);
	raw_send(fd, burst, len);
	free(burst);
	bool *seen2 = calloc(BIG, 1);
	busy = done = 0;
	for (int n = 0; n < BIG; n++) {
		json_t *r = td_raw_read_json(fd, 20000);
		ck_assert_msg(r != NULL, "response %d of %d missing (busy %d, done %d)", n + 1, BIG,
			      busy, done);
		if (n % 500 == 0) {
			long rs = tproc_rss_kb(d.pid);
			rss_max = rs > rss_max ? rs : rss_max;
		}
		int k = -1;
		CHECK_R(r, sscanf(sget(r, "id") ? sget(r, "id") : "", "g%d", &k) == 1 && k >= 0 &&
			       k < BIG);
		CHECK_RM(r, !seen2[k], "id g%d answered twice", k);
		seen2[k] = true;
		if (streq(errcode(r), "busy"))
			busy++;
		else if (streq(sget(r, "verdict"), "pass"))
			done++;
		else
			CHECK_RM(r, false, "answer %d: neither busy nor pass", n);
		json_decref(r);
	}
	free(seen2);
	long rs = tproc_rss_kb(d.pid);
	rss_max = rs > rss_max ? rs : rss_max;
	fprintf(stderr, "[flood] %d of %d busy; RSS %ld kB before, max %ld kB%s\n", busy, BIG, rss0,
		rss_max, asan ? " (ASan daemon: RSS not checked)" : "");
	ck_assert_msg(busy >= BIG * 9 / 10, "only %d busy errors for %d requests", busy, BIG);
	ck_assert_msg(asan || rss_max - rss0 < 64 * 1024, "RSS grew from %ld kB to %ld kB", rss0,
		      rss_max);
	close(fd);
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping_idle(c, 5000);
	CHECK_R(p, iget(p, "running") == 0 && iget(p, "queued") == 0);
	json_decref(p);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* Runs `total` print jobs over the connections, at most `window` in flight
 * on each; every one must pass with its own output. */
static void run_batch(struct sbx_conn **c, int nconn, int first, int total, int window)
{
	int next = first, end = first + total, answered = 0;
	int *inflight = calloc((size_t)nconn, sizeof *inflight);
	while (answered < total) {
		for (int k = 0; k < nconn; k++)
			while (inflight[k] < window && next < end) {
				char id[24], code[40];
				snprintf(id, sizeof id, "j%d", next);
				snprintf(code, sizeof code, "print(%d)", next);
				submit(c[k], job(id, code));
				inflight[k]++;
				next++;
			}
		for (int k = 0; k < nconn; k++) {
			if (!inflight[k])
				continue;
			char err[256];
			json_t *r = sbx_next(c[k], CALL_MS, err, sizeof err);
			ck_assert_msg(r != NULL, "job response %d of %d: %s", answered + 1, total,
				      err);
			int n = -1;
			char want[24];
			CHECK_R(r, sscanf(sget(r, "id") ? sget(r, "id") : "", "j%d", &n) == 1);
			snprintf(want, sizeof want, "%d\n", n);
			CHECK_R(r, streq(sget(r, "verdict"), "pass"));
			CHECK_R(r, streq(sget(r, "stdout"), want));
			json_decref(r);
			inflight[k]--;
			answered++;
		}
	}
	free(inflight);
}

/* How many jobs the stability test runs: 2,000, divided by SBX_TIME_SCALE
 * (the check-vm guest's emulation factor, 4 under TCG), never below 500.
 * Emulated, 2,000 jobs took 200 of check-vm's 1,100 s; 500 still show a
 * descriptor leaked per job (490 more), and the VmRSS bound below is the
 * same. make check-stress, on the host, runs all 2,000. */
static int stability_jobs(void)
{
	const char *s = getenv("SBX_TIME_SCALE");
	long scale = s ? strtol(s, NULL, 10) : 1;
	if (scale < 1)
		scale = 1;
	return 2000 / scale < 500 ? 500 : (int)(2000 / scale);
}

START_TEST(test_resource_stability)
{
	enum { NCONN = 4, FIRST = 10, WINDOW = 8 };
	const int total = stability_jobs();
	struct test_daemon d;
	START(d, "--workers", "2");
	/* Every fork server up, each with its channels and the pidfd of its
	 * next job's pid 1: descriptors the daemon keeps, not leaks. */
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	struct sbx_conn *c[NCONN];
	for (int k = 0; k < NCONN; k++)
		c[k] = conn_open(&d);
	run_batch(c, NCONN, 0, FIRST, WINDOW);
	json_t *p = ping_idle(c[0], 5000);
	json_decref(p);
	td_sleep_ms(200);
	int fd1 = tproc_fd_count(d.pid);
	long rss1 = tproc_rss_kb(d.pid);
	char *lst1 = tproc_fd_listing(d.pid);
	long long t0 = td_now_ms();
	run_batch(c, NCONN, FIRST, total - FIRST, WINDOW);
	long long took = td_now_ms() - t0;
	p = ping_idle(c[0], 5000);
	CHECK_R(p, iget(p, "running") == 0 && iget(p, "queued") == 0);
	json_decref(p);
	td_sleep_ms(200);
	int fd2 = tproc_fd_count(d.pid);
	long rss2 = tproc_rss_kb(d.pid);
	char *lst2 = tproc_fd_listing(d.pid);
	fprintf(stderr,
		"[stability] %d jobs after the first %d took %lld ms (%.1f jobs/s); fds %d -> %d; "
		"VmRSS %ld kB -> %ld kB\n",
		total - FIRST, FIRST, took, (total - FIRST) * 1000.0 / (double)(took ? took : 1),
		fd1, fd2, rss1, rss2);
	ck_assert_msg(fd2 >= fd1 - 2 && fd2 <= fd1 + 2,
		      "fds after %d jobs: %d, after %d jobs: %d\nbefore: %s\nafter: %s", FIRST, fd1,
		      total, fd2, lst1, lst2);
	bool asan = tproc_sanitized(d.pid);
	if (asan)
		fprintf(stderr, "[stability] ASan daemon: VmRSS reported, not checked\n");
	ck_assert_msg(asan || rss2 <= rss1 + 8 * 1024,
		      "VmRSS after %d jobs: %ld kB, after %d jobs: %ld kB", FIRST, rss1, total,
		      rss2);
	free(lst1);
	free(lst2);
	for (int k = 0; k < NCONN; k++)
		sbx_close(c[k]);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_load_suite(void)
{
	Suite *s = suite_create("daemon_load");
	TCase *t = tmain_tcase(s, "faults", TIMEOUT_S);
	tcase_add_test(t, test_thousand_connections);
	tcase_add_test(t, test_flood_beyond_queue);
	t = tmain_tcase(s, "stability", 240);
	tcase_add_test(t, test_resource_stability);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-faults", .ignore_sigpipe = true};
	return tmain(daemon_load_suite, &opts);
}
