/* Per-peer and global limits against a real sandboxd (SECURITY.md,
 * "Per-peer and global limits"): connections per uid, jobs waiting per
 * peer, round-robin between peers (a flooding peer delays another by about
 * one job), tenants only from --trust-uid peers, and the memory budget (two
 * jobs that do not fit together run one after the other; one larger than the
 * budget is refused at once).
 *
 * Peers of other uids are made without accounts: the test's effective uid
 * becomes the peer's for the connect() only (SO_PEERCRED records the
 * effective ids) while its file-system uid stays root, so the socket in the
 * test's 0700 directory is still reachable.
 *
 * Run as root from the repository root:
 *   make build/tests/test_daemon_peers && SBX_BUILD=build build/tests/test_daemon_peers */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/traw.h"

#define TIMEOUT_S 90
#define CALL_MS 30000

/* Peer uids without accounts, below the helpers' job uid ranges (200000+). */
#define UID_A 190001
#define UID_B 190002
#define UID_T 190003
#define S_(x) #x
#define S(x) S_(x)

static int connect_as(const struct test_daemon *d, uid_t uid)
{
	ck_assert_int_eq(seteuid(uid), 0);
	setfsuid(0);
	bool fs_root = setfsuid(0) == 0; /* returns the fsuid it had: 0 if the first call took */
	int fd = fs_root ? td_raw_connect(d->sock) : -1;
	int e = errno;
	ck_assert_int_eq(seteuid(0), 0);
	ck_assert_msg(fs_root, "setfsuid(0) with euid %u did not take", (unsigned)uid);
	ck_assert_msg(fd >= 0, "connect as uid %u: %s", (unsigned)uid, strerror(e));
	return fd;
}

static json_t *raw_line(int fd, const char *line, int timeout_ms)
{
	return raw_req(fd, line, strlen(line), timeout_ms);
}

static void raw_line_send(int fd, const char *line)
{
	raw_send(fd, line, strlen(line));
	raw_send(fd, "\n", 1);
}

/* A ping on fd answers with a ping, not an error. */
static bool pings(int fd)
{
	json_t *r = raw_line(fd, "{\"id\":\"p\",\"op\":\"ping\"}", 5000);
	bool ok = r && sget(r, "version") && !json_object_get(r, "error");
	json_decref(r);
	return ok;
}

/* Waits until the daemon runs at least `running` jobs (pinging on c). */
static json_t *wait_running(struct sbx_conn *c, int running, int timeout_ms)
{
	long long deadline = td_now_ms() + timeout_ms;
	for (;;) {
		json_t *p = ping(c, "running?");
		if (iget(p, "running") >= running || td_now_ms() > deadline)
			return p;
		json_decref(p);
		td_sleep_ms(20);
	}
}

START_TEST(test_connections_per_uid)
{
	enum { CAP = 4 };
	struct test_daemon d; /* "--max-conn-per-peer" CAP */
	START(d, "--workers", "1", "--allow-uid", S(UID_A), "--allow-uid", S(UID_B),
	      "--max-conn-per-peer", "4");
	int a[CAP + 1];
	for (int i = 0; i < CAP; i++) {
		a[i] = connect_as(&d, UID_A);
		ck_assert_msg(pings(a[i]), "uid A's connection %d of %d was not served", i + 1,
			      CAP);
	}
	/* One more: answered busy, naming the flag, then closed. */
	a[CAP] = connect_as(&d, UID_A);
	json_t *r = td_raw_read_json(a[CAP], 5000);
	CHECK_RM(r, streq(errcode(r), "busy"), "connection %d of uid A (cap %d)", CAP + 1, CAP);
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "--max-conn-per-peer"));
	json_decref(r);
	bool eof = false;
	char *more = td_raw_read_line(a[CAP], 5000, NULL, &eof);
	ck_assert_msg(!more && eof, "the refused connection stayed open");
	close(a[CAP]);
	/* Another uid and root are still served. */
	int b = connect_as(&d, UID_B);
	ck_assert_msg(pings(b), "uid B was not served while uid A held its %d connections", CAP);
	int roots[CAP + 2];
	for (int i = 0; i < CAP + 2; i++) {
		roots[i] = raw_open(&d);
		ck_assert_msg(pings(roots[i]), "root's connection %d was not served", i + 1);
	}
	/* A closes one: its slot is free again. */
	close(a[0]);
	long long deadline = td_now_ms() + 5000;
	bool again = false;
	while (!again && td_now_ms() < deadline) {
		a[0] = connect_as(&d, UID_A);
		again = pings(a[0]);
		if (!again) {
			close(a[0]);
			td_sleep_ms(50);
		}
	}
	ck_assert_msg(again, "uid A could not connect again after closing a connection");
	for (int i = 0; i < CAP; i++)
		close(a[i]);
	for (int i = 0; i < CAP + 2; i++)
		close(roots[i]);
	close(b);
	stop_ok(&d);
}
END_TEST

static const char hold_job[] = "{\"id\":\"hold\",\"code\":\"import time\\ntime.sleep(30)\"}";

START_TEST(test_jobs_waiting_per_peer)
{
	enum { CAP = 3 };
	struct test_daemon d; /* "--max-queued-per-peer" CAP */
	START(d, "--workers", "1", "--queue", "64", "--allow-uid", S(UID_A), "--allow-uid",
	      S(UID_B), "--max-queued-per-peer", "3");
	struct sbx_conn *root = conn_open(&d);
	int a = connect_as(&d, UID_A), b = connect_as(&d, UID_B);
	raw_line_send(a, hold_job);
	json_decref(wait_running(root, 1, 10000));
	char line[128];
	for (int i = 0; i < CAP; i++) {
		snprintf(line, sizeof line, "{\"id\":\"a%d\",\"code\":\"print(%d)\"}", i, i);
		raw_line_send(a, line);
	}
	json_t *r = raw_line(a, "{\"id\":\"a-over\",\"code\":\"print(0)\"}", 5000);
	CHECK_R(r, streq(sget(r, "id"), "a-over") && streq(errcode(r), "busy"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "--max-queued-per-peer"));
	json_decref(r);
	/* Another peer still gets in: queued, not refused. */
	raw_line_send(b, "{\"id\":\"b0\",\"code\":\"print('b0')\"}");
	json_t *p = NULL;
	long long deadline = td_now_ms() + 5000;
	do {
		json_decref(p);
		p = ping(root, "q");
	} while (iget(p, "queued") != CAP + 1 && td_now_ms() < deadline);
	CHECK_R(p, iget(p, "queued") == CAP + 1 && iget(p, "running") == 1);
	json_decref(p);
	/* A goes away (its jobs are cancelled); B's job runs. */
	close(a);
	r = td_raw_read_json(b, CALL_MS);
	CHECK_R(r, streq(sget(r, "id"), "b0") && streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	close(b);
	sbx_close(root);
	stop_ok(&d);
}
END_TEST

/* One worker; A queues 20 jobs of 0.3 s, then B queues one. Round-robin
 * runs B's job after at most the job A has running (plus one when B's job
 * arrived just as A's next was picked); a global FIFO ran all 20 first. */
START_TEST(test_flooding_peer_does_not_starve_another)
{
	enum { N = 20 };
	struct test_daemon d;
	START(d, "--workers", "1", "--queue", "100", "--allow-uid", S(UID_A), "--allow-uid",
	      S(UID_B));
	struct sbx_conn *root = conn_open(&d);
	int a = connect_as(&d, UID_A), b = connect_as(&d, UID_B);
	char line[160];
	for (int i = 0; i < N; i++) {
		snprintf(line, sizeof line,
			 "{\"id\":\"a%02d\",\"code\":\"import time\\ntime.sleep(0.3)\"}", i);
		raw_line_send(a, line);
	}
	json_decref(wait_running(root, 1, 10000));
	long long t0 = td_now_ms();
	json_t *r = raw_line(b, "{\"id\":\"b-late\",\"code\":\"print('b')\"}", CALL_MS);
	long long waited = td_now_ms() - t0;
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	/* The log says in which order the jobs ended. */
	char *log = td_log(&d), *at = strstr(log, "job b-late:");
	ck_assert_msg(at != NULL, "no log line for b-late");
	int before = 0;
	for (char *s = strstr(log, "job a"); s && s < at; s = strstr(s + 1, "job a"))
		before++;
	free(log);
	fprintf(stderr,
		"[fairness] B's job answered after %lld ms; %d of A's %d jobs ended first\n",
		waited, before, N);
	ck_assert_msg(before <= 2, "%d of the flooding peer's jobs ran before the other peer's one",
		      before);
	close(a);
	close(b);
	sbx_close(root);
	stop_ok(&d);
}
END_TEST

START_TEST(test_tenant_only_from_trusted)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--allow-uid", S(UID_A), "--allow-uid", S(UID_T), "--trust-uid",
	      S(UID_T), "--max-queued-per-peer", "2");
	int a = connect_as(&d, UID_A);
	json_t *r = raw_line(a, "{\"id\":\"t\",\"code\":\"print(1)\",\"tenant\":\"alice\"}", 5000);
	CHECK_R(r, streq(errcode(r), "forbidden"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "--trust-uid"));
	json_decref(r);
	ck_assert_msg(pings(a), "the connection was not usable after the refused tenant");
	/* The trusted front: limits count per tenant. */
	struct sbx_conn *root = conn_open(&d);
	int t = connect_as(&d, UID_T);
	raw_line_send(t, hold_job);
	json_decref(wait_running(root, 1, 10000));
	raw_line_send(t, "{\"id\":\"x0\",\"code\":\"print(0)\",\"tenant\":\"x\"}");
	raw_line_send(t, "{\"id\":\"x1\",\"code\":\"print(1)\",\"tenant\":\"x\"}");
	r = raw_line(t, "{\"id\":\"x2\",\"code\":\"print(2)\",\"tenant\":\"x\"}", 5000);
	CHECK_R(r, streq(sget(r, "id"), "x2") && streq(errcode(r), "busy"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "tenant \"x\""));
	json_decref(r);
	raw_line_send(t, "{\"id\":\"y0\",\"code\":\"print(0)\",\"tenant\":\"y\"}");
	raw_line_send(t, "{\"id\":\"y1\",\"code\":\"print(1)\",\"tenant\":\"y\"}");
	r = raw_line(t, "{\"id\":\"n0\",\"code\":\"print(0)\"}", 1000);
	ck_assert_msg(r == NULL, "untagged job of the front answered at once: %s", dump(r));
	json_t *p = ping(root, "q");
	CHECK_R(p, iget(p, "queued") == 5);
	json_decref(p);
	close(t);
	/* Root is trusted as well. */
	r = call(
	    root,
	    json_pack("{s:s,s:s,s:s}", "id", "root-tenant", "code", "print(7)", "tenant", "ops"),
	    CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "7\n"));
	json_decref(r);
	close(a);
	sbx_close(root);
	stop_ok(&d);
}
END_TEST

/* Holds about 300 MB for a second and prints when it started and ended. */
static json_t *heavy(const char *id)
{
	json_t *req = job(id, "import time\n"
			      "t0 = time.time()\n"
			      "b = bytearray(300 << 20)\n"
			      "for i in range(0, len(b), 4096): b[i] = 1\n"
			      "time.sleep(1)\n"
			      "print(t0, time.time())\n");
	lim(req, "memory_mb", 512);
	lim(req, "tmpfs_mb", 16); /* without cgroups, 3 x 16 MB count as well */
	return req;
}

/* Runs two heavy jobs at once (two workers); true when their intervals
 * overlapped. */
static bool heavy_pair_overlaps(struct test_daemon *d, struct sbx_conn *c, json_t **admitted)
{
	submit(c, heavy("h1"));
	submit(c, heavy("h2"));
	*admitted = wait_running(c, 1, 10000);
	double s[2] = {0}, e[2] = {0};
	for (int n = 0; n < 2; n++) {
		char err[256];
		json_t *r = sbx_next(c, CALL_MS, err, sizeof err);
		ck_assert_msg(r != NULL, "heavy job %d: %s; log:\n%s", n + 1, err, log_tail(d));
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		int k = streq(sget(r, "id"), "h1") ? 0 : 1;
		CHECK_R(r, sscanf(sget(r, "stdout"), "%lf %lf", &s[k], &e[k]) == 2);
		json_decref(r);
	}
	fprintf(stderr, "[budget] h1 %.2f-%.2f, h2 %.2f-%.2f\n", s[0], e[0], s[1], e[1]);
	return s[0] < e[1] && s[1] < e[0];
}

START_TEST(test_memory_budget_serialises_and_refuses)
{
	struct test_daemon d;
	START(d, "--workers", "2", "--memory-budget", "700");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "budget");
	CHECK_R(p, iget(p, "memory_budget_mb") == 700 && iget(p, "memory_admitted_mb") == 0);
	json_decref(p);
	json_t *admitted = NULL;
	bool overlap = heavy_pair_overlaps(&d, c, &admitted);
	CHECK_R(admitted, iget(admitted, "memory_admitted_mb") >= 512 &&
			      iget(admitted, "memory_admitted_mb") <= 700);
	json_decref(admitted);
	ck_assert_msg(!overlap, "two 512 MB jobs ran at the same time under a 700 MB budget");
	/* Larger than the whole budget: refused at once, not queued. */
	long long t0 = td_now_ms();
	json_t *r = call(c, lim(job("huge", "print(1)"), "memory_mb", 701), 5000);
	CHECK_R(r, streq(errcode(r), "bad_limits"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "--memory-budget"));
	ck_assert_int_lt(td_now_ms() - t0, 2000);
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
	/* The control: with room for both, the same pair does overlap, so the
	 * check above can fail. */
	START(d, "--workers", "2", "--memory-budget", "4000");
	c = conn_open(&d);
	ck_assert_msg(heavy_pair_overlaps(&d, c, &admitted),
		      "the control pair did not overlap with room for both (a loaded machine?)");
	json_decref(admitted);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* Without cgroups nothing charges a job's tmpfs pages to its memory limit,
 * so its three tmpfs count against the budget too. */
START_TEST(test_no_cgroups_counts_tmpfs)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--no-cgroups", "--memory-budget", "600");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(
	    c, lim(lim(job("big-tmpfs", "print(1)"), "memory_mb", 256), "tmpfs_mb", 128), 5000);
	CHECK_R(r, streq(errcode(r), "bad_limits")); /* 256 + 3 x 128 = 640 > 600 */
	json_decref(r);
	r = call(c, lim(lim(job("small-tmpfs", "print(1)"), "memory_mb", 256), "tmpfs_mb", 64),
		 CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass")); /* 256 + 3 x 64 = 448 */
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_peers_suite(void)
{
	Suite *s = suite_create("daemon_peers");
	TCase *t = tmain_tcase(s, "peers", TIMEOUT_S);
	tcase_add_test(t, test_connections_per_uid);
	tcase_add_test(t, test_jobs_waiting_per_peer);
	tcase_add_test(t, test_flooding_peer_does_not_starve_another);
	tcase_add_test(t, test_tenant_only_from_trusted);
	t = tmain_tcase(s, "budget", TIMEOUT_S);
	tcase_add_test(t, test_memory_budget_serialises_and_refuses);
	tcase_add_test(t, test_no_cgroups_counts_tmpfs);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-peers",
					       .ignore_sigpipe = true};
	return tmain(daemon_peers_suite, &opts);
}
