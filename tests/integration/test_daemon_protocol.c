/* Integration tests of the protocol against a real sandboxd: many connections
 * at once, a client that disconnects or half-closes, bad requests on a raw
 * socket, ping, a full queue, the line length bound. Each test starts its own
 * daemon (tests/helpers/daemon.c: its own socket, state dir and uid range) and
 * drives it through libsbx or a raw socket, asserting on the response JSON.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one response may take */

/* --- 15-18: connections ---------------------------------------------------- */

START_TEST(test_concurrent_connections)
{
	enum { NCONN = 5, PER = 10 };
	struct test_daemon d;
	START(d, "--workers", "3");
	struct sbx_conn *c[NCONN];
	for (int k = 0; k < NCONN; k++)
		c[k] = conn_open(&d);
	/* Interleaved: every connection has jobs queued and running at once. */
	for (int j = 0; j < PER; j++)
		for (int k = 0; k < NCONN; k++) {
			char id[32], code[64];
			snprintf(id, sizeof id, "c%d-j%d", k, j);
			snprintf(code, sizeof code, "print('%s')", id);
			submit(c[k], job(id, code));
		}
	int total = 0;
	for (int k = 0; k < NCONN; k++) {
		bool seen[PER] = {false};
		for (int n = 0; n < PER; n++) {
			char err[512];
			json_t *r = sbx_next(c[k], 60000, err, sizeof err);
			ck_assert_msg(r != NULL, "connection %d, response %d: %s", k, n, err);
			const char *id = sget(r, "id");
			int kk = -1, jj = -1;
			CHECK_R(r, id && sscanf(id, "c%d-j%d", &kk, &jj) == 2);
			CHECK_RM(r, kk == k, "connection %d got a response for %s", k, id);
			CHECK_R(r, jj >= 0 && jj < PER && !seen[jj]);
			seen[jj] = true;
			char want[40];
			snprintf(want, sizeof want, "%s\n", id);
			CHECK_R(r, streq(sget(r, "verdict"), "pass"));
			CHECK_R(r, streq(sget(r, "stdout"), want));
			json_decref(r);
			total++;
		}
	}
	ck_assert_int_eq(total, NCONN * PER);
	for (int k = 0; k < NCONN; k++)
		sbx_close(c[k]);
	stop_ok(&d);
}
END_TEST

START_TEST(test_disconnect_cancels)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("sleeper", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	/* Behind it in the queue (one worker): must be dropped, never run. */
	submit(c, job("queued", "print('should never run')"));
	ck_assert_msg(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0,
		      "the job never started; log:\n%s", log_tail(&d));
	td_sleep_ms(300);
	sbx_close(c);
	assert_no_job_procs(&d, 1500, "after the client disconnected");
	long long deadline = td_now_ms() + 1500;
	while (!td_log_contains(&d, "cancelled") && td_now_ms() < deadline)
		td_sleep_ms(10);
	ck_assert_msg(td_log_contains(&d, "cancelled"), "no \"cancelled\" in the log:\n%s",
		      log_tail(&d));
	/* The worker is free again. */
	c = conn_open(&d);
	json_t *p = NULL;
	deadline = td_now_ms() + 2000;
	for (;;) {
		json_decref(p);
		p = ping(c, "p");
		if (iget(p, "running") == 0 || td_now_ms() > deadline)
			break;
		td_sleep_ms(20);
	}
	CHECK_R(p, iget(p, "running") == 0 && iget(p, "queued") == 0);
	json_decref(p);
	json_t *r = call(c, job("after", "print('next')"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	ck_assert_msg(!td_log_contains(&d, "job queued"),
		      "the queued job of a closed connection ran; log:\n%s", log_tail(&d));
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_half_close)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	const char *req =
	    "{\"id\":\"half\",\"code\":\"import time\\ntime.sleep(0.3)\\nprint(7)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, req, strlen(req)), 0);
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	json_t *r = td_raw_read_json(fd, CALL_MS);
	ck_assert_msg(r != NULL, "no response after a half-close; log:\n%s", log_tail(&d));
	CHECK_R(r, streq(sget(r, "id"), "half"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "7\n"));
	/* Everything answered: the daemon then closes its side. */
	bool eof = false;
	char *more = td_raw_read_line(fd, 3000, NULL, &eof);
	ck_assert_msg(!more && eof, "expected EOF after the last answer, got %s",
		      more ? more : "a timeout");
	ck_assert_msg(!td_log_contains(&d, "cancelled"), "log:\n%s", log_tail(&d));
	close(fd);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_bad_requests)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	const char *lines = "not json\n"
			    "{\"id\":\"a\"}\n"
			    "{\"id\":\"b\",\"code\":\"print(1)\",\"bogus\":1}\n"
			    "{\"id\":\"c\",\"code\":\"print(1)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, lines, strlen(lines)), 0);
	json_t *r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_json"));
	CHECK_R(r, json_is_null(json_object_get(r, "id")));
	CHECK_R(r, json_is_string(json_object_get(json_object_get(r, "error"), "message")));
	json_decref(r);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_request"));
	CHECK_R(r, streq(sget(r, "id"), "a"));
	json_decref(r);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_request"));
	CHECK_R(r, streq(sget(r, "id"), "b"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "bogus"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "c"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "1\n"));
	json_decref(r);
	/* Still usable for more. */
	const char *pingl = "{\"id\":\"p\",\"op\":\"ping\"}\n";
	ck_assert_int_eq(td_raw_send(fd, pingl, strlen(pingl)), 0);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "version"), PROTO_VERSION));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* --- 19-21: ping, queue -------------------------------------------------- */

START_TEST(test_ping)
{
	struct test_daemon d;
	START(d, "--workers", "3");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "p1");
	CHECK_R(p, streq(sget(p, "id"), "p1"));
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	CHECK_R(p, iget(p, "workers") == 3);
	CHECK_R(p, iget(p, "queued") == 0);
	CHECK_R(p, iget(p, "running") == 0);
	json_decref(p);
	/* A running job shows up in the counts. */
	submit(c, job("slow", "import time\ntime.sleep(1.5)\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	p = ping(c, "p2");
	CHECK_R(p, iget(p, "running") == 1 && iget(p, "queued") == 0);
	json_decref(p);
	char err[256];
	json_t *r = sbx_wait(c, "slow", CALL_MS, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_queue_full)
{
	enum { N = 6 };
	struct test_daemon d;
	/* The whole queue is this client's: the per-peer cap (by default half
	 * the queue) is test_daemon_peers.c's subject. */
	START(d, "--workers", "1", "--queue", "2", "--max-queued-per-peer", "2");
	struct sbx_conn *c = conn_open(&d);
	for (int i = 0; i < N; i++) {
		char id[16];
		snprintf(id, sizeof id, "q%d", i);
		submit(c, job(id, "import time\ntime.sleep(2)\nprint('done')\n"));
	}
	int busy = 0, done = 0;
	bool seen[N] = {false};
	for (int i = 0; i < N; i++) {
		char err[256];
		json_t *r = sbx_next(c, 20000, err, sizeof err);
		ck_assert_msg(r != NULL, "response %d of %d: %s (busy %d, done %d)", i + 1, N, err,
			      busy, done);
		int k = -1;
		CHECK_R(r, sscanf(sget(r, "id") ? sget(r, "id") : "", "q%d", &k) == 1 && k >= 0 &&
			       k < N && !seen[k]);
		seen[k] = true;
		if (json_object_get(r, "error")) {
			CHECK_R(r, streq(errcode(r), "busy"));
			busy++;
		} else {
			const char *v = sget(r, "verdict");
			CHECK_R(r, streq(v, "pass") || streq(v, "timeout"));
			done++;
		}
		json_decref(r);
	}
	ck_assert_msg(busy >= 1, "no busy error: %d of %d jobs accepted", done, N);
	/* One running plus a queue of two, give or take whether the worker had
	 * taken the first job before the third arrived. */
	ck_assert_msg(done >= 2 && done <= 3, "%d accepted, %d busy", done, busy);
	/* The last answer is posted just before its worker counts itself idle:
	 * allow a moment for "running" to drop. */
	json_t *p = NULL;
	long long deadline = td_now_ms() + 1000;
	for (;;) {
		json_decref(p);
		p = ping(c, "after");
		if (iget(p, "running") == 0 || td_now_ms() > deadline)
			break;
		td_sleep_ms(10);
	}
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	CHECK_R(p, iget(p, "queued") == 0 && iget(p, "running") == 0);
	json_decref(p);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- 24: line length --------------------------------------------------------- */

/* A request line of exactly len bytes (without the newline) running print(1). */
static char *sized_request(const char *id, size_t len)
{
	char head[64];
	int h = snprintf(head, sizeof head, "{\"id\":\"%s\",\"code\":\"print(1)\\n#", id);
	const char *tail = "\"}";
	ck_assert((size_t)h + strlen(tail) < len);
	char *s = malloc(len + 2);
	memcpy(s, head, (size_t)h);
	memset(s + h, 'x', len - (size_t)h - strlen(tail));
	memcpy(s + len - strlen(tail), tail, strlen(tail));
	s[len] = '\n';
	s[len + 1] = '\0';
	return s;
}

START_TEST(test_overlong_line)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--max-request", "4096");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	char *big = sized_request("big", 10000);
	const char *ok = "{\"id\":\"ok\",\"code\":\"print(1)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, big, strlen(big)), 0);
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	free(big);
	json_t *r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "too_large"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	/* The bound is inclusive: 4096 bytes pass, 4097 do not. */
	char *edge = sized_request("edge", 4096);
	ck_assert_int_eq(td_raw_send(fd, edge, strlen(edge)), 0);
	free(edge);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "edge"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	char *over = sized_request("over", 4097);
	ck_assert_int_eq(td_raw_send(fd, over, strlen(over)), 0);
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	free(over);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "too_large"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok") && streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* --- beyond the list: other promises of docs/protocol.md ------------------- */

START_TEST(test_more_bad_requests)
{
	static const struct {
		const char *line, *id, *code;
	} cases[] = {
	    {"{\"id\":\"p\",\"op\":\"ping\",\"code\":\"x\"}", "p", "bad_request"},
	    {"{\"id\":\"o\",\"op\":\"explode\",\"code\":\"x\"}", "o", "bad_request"},
	    {"{\"id\":\"t\",\"code\":5}", "t", "bad_request"},
	    {"{\"code\":\"print(1)\"}", NULL, "bad_request"},
	    {"[1,2]", NULL, "bad_json"},
	    {"{\"id\":\"u\",\"code\":\"print(1)\",\"policy\":\"nope\"}", "u", "unknown_policy"},
	    {"{\"id\":\"l\",\"code\":\"print(1)\",\"limits\":{\"cpu\":5}}", "l", "bad_limits"},
	    {"{\"id\":\"f\",\"code\":\"print(1)\",\"limits\":{\"cpu_ms\":1.5}}", "f", "bad_limits"},
	    {"{\"id\":\"a\",\"code\":\"print(1)\",\"files\":{\"/etc/x\":\"y\"}}", "a", "bad_path"},
	    {"{\"id\":\"m\",\"code\":\"print(1)\",\"files\":{\"main.py\":\"y\"}}", "m", "bad_path"},
	    {"{\"id\":\"g\",\"code\":\"print(1)\",\"files\":{\"a/./b\":\"y\"}}", "g", "bad_path"},
	    {"{\"id\":\"k\",\"code\":\"print(1)\",\"files\":{\"k\":\"y\",\"k/x\":\"z\"}}", "k",
	     "bad_path"},
	};
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_int_eq(td_raw_send(fd, cases[i].line, strlen(cases[i].line)), 0);
		ck_assert_int_eq(td_raw_send(fd, "\n", 1), 0);
		json_t *r = td_raw_read_json(fd, 5000);
		ck_assert_msg(r != NULL, "no answer to %s", cases[i].line);
		CHECK_RM(r, streq(errcode(r), cases[i].code), "request %s: want %s", cases[i].line,
			 cases[i].code);
		if (cases[i].id)
			CHECK_RM(r, streq(sget(r, "id"), cases[i].id), "request %s", cases[i].line);
		else
			CHECK_RM(r, json_is_null(json_object_get(r, "id")), "request %s",
				 cases[i].line);
		json_decref(r);
	}
	/* An empty line is ignored; the connection still runs jobs. */
	const char *ok = "\n{\"id\":\"ok\",\"code\":\"print(2)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	json_t *r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok") && streq(sget(r, "stdout"), "2\n"));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* --- the daemon's log cannot be forged ------------------------------------- */

/* Lines of the log that begin with marker: a record someone forged. */
static int forged_lines(const char *log, const char *marker)
{
	int n = 0;
	size_t ml = strlen(marker);
	for (const char *p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, marker, ml) == 0;
	return n;
}

/* A client's id and a job's exception message both reach the log; a newline
 * in either used to start a fake record there. The host-side check counts
 * lines that begin with the forged text; its control shows it can fail. */
START_TEST(test_log_forgery)
{
	ck_assert_int_eq(forged_lines("a\nFORGED x\nb", "FORGED"), 1);
	ck_assert_int_eq(forged_lines("a \\nFORGED x\nb", "FORGED"), 0);
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(c, job("x\nFORGED-ID sandboxd: job admin: pass", "print(1)"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	json_t *req = json_pack("{s:s,s:s,s:s,s:s}", "id", "forge-msg", "code",
				"raise Exception('\\nFORGED-MSG sandboxd: job admin: pass')",
				"format", "unittest", "tests",
				"import unittest\nclass T(unittest.TestCase):\n"
				"    def test_a(self):\n        pass\n");
	r = call(c, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, strstr(sget(r, "message"), "FORGED-MSG") != NULL);
	json_decref(r);
	sbx_close(c);
	char *log = td_log(&d);
	/* (The runner folds an exception message to one line before the
	 * daemon sees it; the escaping is what holds against a forged record.) */
	ck_assert_msg(strstr(log, "\\nFORGED-ID") && strstr(log, "FORGED-MSG"),
		      "the attack did not reach the log:\n%s", log);
	ck_assert_msg(forged_lines(log, "FORGED") == 0, "a forged record in the log:\n%s", log);
	free(log);
	stop_ok(&d);
}
END_TEST

/* cpu_ms given alone raises the wall limit with it (docs/protocol.md). */
START_TEST(test_wall_follows_cpu)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(c, lim(job("cpu-alone", "print(1)"), "cpu_ms", 15000), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget2(r, "limits", "cpu_ms") == 15000);
	CHECK_R(r, iget2(r, "limits", "wall_ms") == 30000);
	json_decref(r);
	r = call(c, lim(lim(job("both", "print(1)"), "cpu_ms", 15000), "wall_ms", 5000), CALL_MS);
	CHECK_R(r, iget2(r, "limits", "wall_ms") == 5000);
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_protocol_suite(void)
{
	Suite *s = suite_create("daemon_protocol");
	TCase *t = tmain_tcase(s, "protocol", TIMEOUT_S);
	tcase_add_test(t, test_concurrent_connections);
	tcase_add_test(t, test_disconnect_cancels);
	tcase_add_test(t, test_half_close);
	tcase_add_test(t, test_bad_requests);
	tcase_add_test(t, test_ping);
	tcase_add_test(t, test_queue_full);
	tcase_add_test(t, test_overlong_line);
	tcase_add_test(t, test_log_forgery);
	t = tmain_tcase(s, "documented", TIMEOUT_S);
	tcase_add_test(t, test_more_bad_requests);
	tcase_add_test(t, test_wall_follows_cpu);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-integ",
					       .setup = tprofile_load,
					       .teardown = tprofile_free};
	return tmain(daemon_protocol_suite, &opts);
}
