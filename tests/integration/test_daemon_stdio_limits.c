/* Integration tests of a stdio request's time limits (issue 10, item 4):
 * cpu_ms and wall_ms bound the whole request (compile step and every case
 * together), case_cpu_ms and case_wall_ms each case, and fail_fast stops at
 * the first case that does not pass; cases not run are "skipped" with a
 * message saying why (docs/protocol.md). Before, 8 cases each sleeping 2 s
 * under wall_ms 3000 held a worker for ~16 s and passed.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/clock.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"

#define CALL_MS 60000

/* n cases: input "i\n", expected output "i\n". */
static json_t *cases(int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		char s[16];
		snprintf(s, sizeof s, "%d\n", i);
		json_array_append_new(a, json_pack("{s:s,s:s}", F_CASE_INPUT, s, F_CASE_OUTPUT, s));
	}
	return a;
}

static const char *const SLEEPER = "import time\ntime.sleep(2)\nprint(input())\n";

/* Runs one request (consumed) alone; *ms gets how long the answer took. */
static json_t *timed(const struct test_daemon *d, json_t *req, long *ms)
{
	uint64_t t0 = clock_mono_ns();
	json_t *r = run1(d, req, CALL_MS);
	*ms = (long)((clock_mono_ns() - t0) / 1000000u);
	ck_assert_msg(!json_object_get(r, R_ERROR), "error answer: %s", dump(r));
	return r;
}

START_TEST(test_wall_bounds_whole_request)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req = lim(treq("w", SLEEPER, "stdio", cases(8)), L_WALL_MS, 3000);
	long ms;
	json_t *r = timed(&d, req, &ms);
	/* Case 1 passes at ~2 s; case 2 is stopped at what is left of 3 s. */
	CHECK_RM(r, ms < 4500, "answered after %ld ms, the request's wall_ms is 3000", ms);
	CHECK_R(r, streq(verdict(r), "timeout"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "wall"));
	CHECK_R(r, strstr(sget0(r, R_MESSAGE), "whole request") != NULL);
	CHECK_OUTCOMES(r, "passed,timeout,skipped,skipped,skipped,skipped,skipped,skipped");
	CHECK_R(r, strstr(sget0(test_at(r, 2), T_MESSAGE), "not run") != NULL);
	CHECK_R(r, summary(r, S_SKIPPED) == 6);
	CHECK_R(r, iget2(r, R_USAGE, U_WALL_MS) <= 4000);
	CHECK_R(r, iget2(r, R_LIMITS, L_CASE_WALL_MS) == 3000); /* clamped to wall_ms */
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_cpu_bounds_whole_request)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req = lim(treq("c", "while True: pass\n", "stdio", cases(8)), L_CPU_MS, 1000);
	long ms;
	json_t *r = timed(&d, req, &ms);
	CHECK_R(r, streq(verdict(r), "timeout"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "cpu"));
	CHECK_R(r, strstr(sget0(r, R_MESSAGE), "whole request") != NULL);
	CHECK_OUTCOMES(r, "timeout,skipped,skipped,skipped,skipped,skipped,skipped,skipped");
	/* The compile step and the case together: at most the limit and a
	 * check interval, not 8 x 1 s. */
	CHECK_R(r, iget2(r, R_USAGE, U_CPU_MS) < 1500);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_case_limits)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *reqs[2] = {
	    lim(lim(treq("cw", SLEEPER, "stdio", cases(3)), L_CASE_WALL_MS, 1000), L_WALL_MS,
		20000),
	    lim(treq("cc", "while True: pass\n", "stdio", cases(2)), L_CASE_CPU_MS, 500),
	};
	json_t *resps[2];
	run_batch(&d, reqs, resps, 2);
	/* Each case stops at its own limit; the others still run. */
	CHECK_R(resps[0], streq(verdict(resps[0]), "timeout"));
	CHECK_R(resps[0], streq(sget(resps[0], R_LIMIT_HIT), "case_wall"));
	CHECK_R(resps[0], strstr(sget0(resps[0], R_MESSAGE), L_CASE_WALL_MS) != NULL);
	CHECK_OUTCOMES(resps[0], "timeout,timeout,timeout");
	CHECK_R(resps[0], iget2(resps[0], R_LIMITS, L_CASE_WALL_MS) == 1000);
	CHECK_R(resps[1], streq(verdict(resps[1]), "timeout"));
	CHECK_R(resps[1], streq(sget(resps[1], R_LIMIT_HIT), "case_cpu"));
	CHECK_OUTCOMES(resps[1], "timeout,timeout");
	CHECK_R(resps[1], iget2(resps[1], R_USAGE, U_CPU_MS) >= 1000);
	CHECK_R(resps[1], iget2(resps[1], R_USAGE, U_CPU_MS) < 2500);
	for (int i = 0; i < 2; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

START_TEST(test_fail_fast)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	/* Case 2 (input "1") is wrong; case 4 would be too. */
	const char *code = "x = input()\nprint(x if x not in ('1', '3') else 'no')\n";
	json_t *reqs[3] = {
	    treq("ff", code, "stdio", cases(5)),
	    treq("all", code, "stdio", cases(5)),
	    treq("ok", "print(input())\n", "stdio", cases(3)),
	};
	json_object_set_new(reqs[0], F_FAIL_FAST, json_true());
	json_object_set_new(reqs[2], F_FAIL_FAST, json_true());
	json_t *resps[3];
	run_batch(&d, reqs, resps, 3);
	CHECK_R(resps[0], streq(verdict(resps[0]), "fail"));
	CHECK_OUTCOMES(resps[0], "passed,failed,skipped,skipped,skipped");
	CHECK_R(resps[0], strstr(sget0(test_at(resps[0], 2), T_MESSAGE), "fail_fast") != NULL);
	CHECK_R(resps[0], strstr(sget0(resps[0], R_MESSAGE), "3 not run") != NULL);
	/* Off by default: every case runs. */
	CHECK_R(resps[1], streq(verdict(resps[1]), "fail"));
	CHECK_OUTCOMES(resps[1], "passed,failed,passed,failed,passed");
	/* Nothing fails: nothing is skipped, and skipped never makes a pass. */
	CHECK_R(resps[2], streq(verdict(resps[2]), "pass"));
	CHECK_OUTCOMES(resps[2], "passed,passed,passed");
	for (int i = 0; i < 3; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	/* fail_fast is a boolean, and only for stdio. */
	struct sbx_conn *c = conn_open(&d);
	json_t *bad[2] = {treq("b1", "pass", "stdio", cases(1)),
			  treq("b2", "pass", "asserts", json_pack("[s]", "assert True"))};
	json_object_set_new(bad[0], F_FAIL_FAST, json_string("yes"));
	json_object_set_new(bad[1], F_FAIL_FAST, json_true());
	for (int i = 0; i < 2; i++) {
		json_t *r = call(c, bad[i], CALL_MS);
		CHECK_R(r, streq(errcode(r), "bad_request"));
		CHECK_R(r,
			strstr(sget0(json_object_get(r, R_ERROR), R_ERROR_MESSAGE), F_FAIL_FAST));
		json_decref(r);
	}
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *stdio_limits_suite(void)
{
	Suite *s = suite_create("daemon_stdio_limits");
	TCase *t = tmain_tcase(s, "stdio_limits", 90);
	tcase_add_test(t, test_wall_bounds_whole_request);
	tcase_add_test(t, test_cpu_bounds_whole_request);
	tcase_add_test(t, test_case_limits);
	tcase_add_test(t, test_fail_fast);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-stdio-limits",
					       .max_msg = 64 * 1024};
	return tmain(stdio_limits_suite, &opts);
}
