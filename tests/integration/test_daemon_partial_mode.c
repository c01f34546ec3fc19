/* partial_mode through a real daemon: the same failing unittest suite (setUp
 * and a helper before its tests) under coverage "partial" shows different
 * tests with "fixed" (the first three test methods) and "convcodeworld"
 * (ConvCodeWorld's rule: the first three method definitions, setUp and the
 * helper included), while the verdict and per-test results stay the same.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

static const char *const CODE = "def f(x):\n    return x\n";

/* setUp, helper, then test_e (passes, or fails with first_fails), test_d
 * (fails), test_c (passes), test_a (fails). */
static char *suite_src(bool first_fails)
{
	char *s = NULL;
	ck_assert_int_ge(
	    asprintf(&s,
		     "import unittest\n\nclass TestCases(unittest.TestCase):\n"
		     "    def setUp(self):\n        self.base = 0\n\n"
		     "    def helper(self, x):\n        return f(x) + self.base\n\n"
		     "    def test_e(self):\n        self.assertEqual(self.helper(1), %d)\n\n"
		     "    def test_d(self):\n        self.assertEqual(self.helper(2), 5)\n\n"
		     "    def test_c(self):\n        self.assertEqual(f(3), 3)\n\n"
		     "    def test_a(self):\n        self.assertEqual(f(5), 0)\n",
		     first_fails ? 7 : 1),
	    0);
	return s;
}

static json_t *partial_req(const char *id, const char *tests, const char *mode)
{
	json_t *r = set_str(ut(id, CODE, tests), F_COVERAGE, "partial");
	return mode ? set_str(r, F_PARTIAL_MODE, mode) : r;
}

START_TEST(test_partial_modes_differ)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	char *tests = suite_src(false), *tests1 = suite_src(true);
	json_t *reqs[5] = {
	    partial_req("fixed-default", tests, NULL),
	    partial_req("fixed", tests, PARTIAL_MODE_FIXED),
	    partial_req("ccw", tests, PARTIAL_MODE_CONVCODEWORLD),
	    partial_req("ccw-first-fails", tests1, PARTIAL_MODE_CONVCODEWORLD),
	    set_int(partial_req("ccw-4", tests, PARTIAL_MODE_CONVCODEWORLD), F_PARTIAL_TESTS, 4),
	};
	json_t *resps[5];
	run_batch(&d, reqs, resps, 5);
	/* The whole suite decides the verdict in every mode. */
	for (int i = 0; i < 5; i++) {
		CHECK_R(resps[i], streq(verdict(resps[i]), "fail"));
		CHECK_R(resps[i], summary(resps[i], S_TOTAL) == 4);
	}
	/* fixed: test_e, test_d, test_c are shown; test_d failed. */
	for (int i = 0; i < 2; i++) {
		const char *e = execution(resps[i]);
		CHECK_R(resps[i], str_starts(e, "test_d\nTraceback"));
		CHECK_R(resps[i], !strstr(e, "test_a"));
	}
	/* convcodeworld: setUp, helper and test_e take the three places, and
	 * test_e passed: nothing failing is shown. */
	CHECK_R(resps[2], streq(execution(resps[2]), "Passed all test runs"));
	CHECK_OUTCOMES(resps[2], "passed,failed,passed,failed");
	/* ... unless test_e itself fails. */
	CHECK_R(resps[3], str_starts(execution(resps[3]), "test_e\nTraceback"));
	CHECK_R(resps[3], !strstr(execution(resps[3]), "test_d"));
	/* Four places reach test_d. */
	CHECK_R(resps[4], str_starts(execution(resps[4]), "test_d\nTraceback"));
	CHECK_R(resps[4], !strstr(execution(resps[4]), "test_a"));
	for (int i = 0; i < 5; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	free(tests);
	free(tests1);
	stop_ok(&d);
}
END_TEST

static Suite *partial_mode_suite(void)
{
	Suite *s = suite_create("daemon_partial_mode");
	TCase *t = tmain_tcase(s, "partial_mode", 120);
	tcase_add_test(t, test_partial_modes_differ);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-integ"};
	return tmain(partial_mode_suite, &opts);
}
