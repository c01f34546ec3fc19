/* Integration tests of structured test feedback ("test requests") on small
 * made-up suites: compile feedback, coverage, integrity against forged results
 * and exits, per-test and job limits, seeds, asserts, stdio comparison, bad
 * test requests, trimming, and `sbx run --explain`. A real sandboxd
 * (tests/helpers/daemon.c starts one per test) runs the candidates; the
 * assertions are on the response's compile / tests / summary / feedback /
 * integrity fields and on the verdict rules of docs/protocol.md (requests and
 * responses: tests/helpers/tfeedback.h).
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

#define CALL_MS 60000 /* how long one ordinary response may take */

/* --- 4. compile feedback --------------------------------------------------- */

START_TEST(test_compile_feedback)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	struct sb tests = {0};
	sb_add(&tests, "import unittest\n\n\nclass TestCases(unittest.TestCase):\n");
	for (int i = 0; i < 13; i++)
		sb_add(&tests, "    def test_%d(self):\n        self.assertEqual(f(%d), %d)\n", i,
		       i, i);
	sb_add(&tests, "\n");
	json_t *r =
	    run1(&d, ut("syntax", "print(\"RAN\")\nx = 1\ndef f(x) return x\n", sb_str(&tests)),
		 CALL_MS);
	json_t *comp = json_object_get(r, R_COMPILE);
	json_t *e0 = json_array_get(json_object_get(comp, C_ERRORS), 0);
	CHECK_R(r, streq(verdict(r), "compile_error"));
	CHECK_R(r, json_is_false(json_object_get(comp, C_OK)));
	CHECK_R(r, json_is_object(e0));
	CHECK_R(r, iget(e0, C_LINE) == 3);
	CHECK_R(r, iget(e0, C_COLUMN) == 10);
	CHECK_R(r, streq(sget(e0, C_TEXT), "def f(x) return x"));
	CHECK_R(r, streq(sget(e0, C_TYPE), "SyntaxError"));
	CHECK_R(r, strlen(sget0(e0, T_MESSAGE)) > 0);
	const char *c = compilation(r);
	CHECK_R(r, strstr(c, "File \"solution.py\", line 3"));
	CHECK_R(r, strstr(c, "\n    def f(x) return x\n"));
	/* A caret line: only white space and at least one '^'. */
	bool caret = false;
	for (const char *p = c; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		size_t sp = strspn(p, " "), car = strspn(p + sp, "^");
		if (car > 0 && (p[sp + car] == '\n' || p[sp + car] == '\0'))
			caret = true;
	}
	CHECK_R(r, caret);
	CHECK_R(r, strstr(c, "SyntaxError: "));
	CHECK_R(r, ntests(r) == 0 && summary(r, S_TOTAL) == 0);
	CHECK_R(r, streq(execution(r), ""));
	/* Never executed: the print before the bad line did not run. */
	CHECK_R(r, streq(sget(r, R_STDOUT), ""));
	CHECK_R(r, streq(sget0(r, R_MESSAGE), ""));
	json_decref(r);

	/* The same tests with the line fixed: 13 tests, all pass (the suite itself is sound). */
	r = run1(&d, ut("fixed", "print(\"RAN\")\nx = 1\ndef f(x): return x\n", sb_str(&tests)),
		 CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, summary(r, S_TOTAL) == 13 && summary(r, S_PASSED) == 13);
	CHECK_R(r, streq(sget(r, R_STDOUT), "RAN\n"));
	CHECK_R(r, streq(compilation(r), "No syntax errors"));
	json_decref(r);
	free(tests.s);
	stop_ok(&d);
}
END_TEST

/* --- 5. coverage ------------------------------------------------------------ */

/* Five tests, in source order test_e, test_d, test_c, test_b, test_a (the
 * reverse of unittest's alphabetical order), after setUp and a helper. */
static char *five_tests(bool first_fails)
{
	struct sb s = {0};
	sb_add(&s,
	       "import unittest\n\nclass TestCases(unittest.TestCase):\n"
	       "    def setUp(self):\n        self.base = 0\n\n"
	       "    def helper(self, x):\n        return f(x) + self.base\n\n"
	       "    def test_e(self):\n        self.assertEqual(self.helper(1), %d)\n\n"
	       "    def test_d(self):\n        self.assertEqual(self.helper(2), 5)\n\n"
	       "    def test_c(self):\n        self.assertEqual(f(3), 3)\n\n"
	       "    def test_b(self):\n        self.assertEqual(f(4), 4)\n\n"
	       "    def test_a(self):\n        self.assertEqual(f(5), 0)\n",
	       first_fails ? 7 : 1);
	return s.s;
}

START_TEST(test_coverage)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *code = "def f(x):\n    return x\n";
	char *tests = five_tests(false), *tests1 = five_tests(true);
	json_t *reqs[6] = {
	    set_str(ut("cov-full", code, tests), F_COVERAGE, "full"),
	    set_str(ut("cov-partial", code, tests), F_COVERAGE, "partial"),
	    set_int(set_str(ut("cov-partial1", code, tests), F_COVERAGE, "partial"),
		    F_PARTIAL_TESTS, 1),
	    set_str(ut("cov-none", code, tests), F_COVERAGE, "none"),
	    ut("cov-default", code, tests),
	    set_int(set_str(ut("cov-first", code, tests1), F_COVERAGE, "partial"), F_PARTIAL_TESTS,
		    1),
	};
	json_t *resps[6];
	run_batch(&d, reqs, resps, 6);
	static const char *const order[] = {"test_e", "test_d", "test_c", "test_b", "test_a"};
	for (int i = 0; i < 6; i++) {
		json_t *r = resps[i];
		CHECK_R(r, streq(verdict(r), "fail"));
		CHECK_R(r, summary(r, S_TOTAL) == 5); /* setUp and helper are not tests */
		CHECK_R(r, ntests(r) == 5);
		for (size_t t = 0; t < 5 && t < ntests(r); t++)
			CHECK_RM(r, streq(tname(r, t), order[t]), "tests[%zu] should be %s", t,
				 order[t]);
	}
	for (int i = 0; i < 5; i++) {
		CHECK_OUTCOMES(resps[i], "passed,failed,passed,passed,failed");
		CHECK_R(resps[i], summary(resps[i], S_FAILED) == 2);
	}
	/* full (explicit and default): both failing tests, in source order. */
	for (int i = 0; i < 5; i += 4) {
		json_t *r = resps[i];
		const char *e = execution(r), *d2 = strstr(e, "test_d\nTraceback"),
			   *a5 = strstr(e, "test_a\nTraceback");
		CHECK_R(r, str_starts(e, "test_d\nTraceback (most recent call last):\n"));
		CHECK_R(r, d2 && a5 && d2 < a5);
		CHECK_R(r, strstr(e, "\n\ntest_a\n"));
		CHECK_R(r, strstr(e, "AssertionError: 2 != 5"));
		CHECK_R(r, strstr(e, "AssertionError: 5 != 0"));
		CHECK_R(r, !strstr(e, "test_e") && !strstr(e, "test_c") && !strstr(e, "test_b"));
	}
	/* partial (3): only the first three test methods, so only test_d. */
	json_t *r = resps[1];
	CHECK_R(r, str_starts(execution(r), "test_d\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError: 2 != 5"));
	CHECK_R(r, !strstr(execution(r), "test_a"));
	/* partial 1: test_e passed. */
	r = resps[2];
	CHECK_R(r, streq(execution(r), "Passed all test runs"));
	/* none */
	r = resps[3];
	CHECK_R(r, streq(execution(r), ""));
	CHECK_R(r, streq(compilation(r), "No syntax errors"));
	/* partial 1 when the first test method fails: setUp (defined first)
	 * does not take its place. */
	r = resps[5];
	CHECK_OUTCOMES(r, "failed,failed,passed,passed,failed");
	CHECK_R(r, str_starts(execution(r), "test_e\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError: 1 != 7"));
	CHECK_R(r, !strstr(execution(r), "test_d") && !strstr(execution(r), "test_a"));
	for (int i = 0; i < 6; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	free(tests);
	free(tests1);
	stop_ok(&d);
}
END_TEST

/* --- 6. integrity ---------------------------------------------------------- */

static const char *const THREE_TESTS = "import unittest\n\nclass TestCases(unittest.TestCase):\n"
				       "    def test_1(self):\n        self.assertEqual(f(1), 1)\n"
				       "    def test_2(self):\n        self.assertEqual(f(2), 2)\n"
				       "    def test_3(self):\n        self.assertEqual(f(3), 3)\n";

/* Writes a forged, key-less record stream claiming all tests passed to fd 3
 * and every other fd it finds, at import and in every call; prints which
 * writes succeeded. */
static const char *const FORGER =
    "import os, json\n"
    "def _forge():\n"
    "    names = ['test_1', 'test_2', 'test_3']\n"
    "    recs = [{'type': 'compile', 'ok': True, 'errors': []}, {'type': 'plan', 'tests': "
    "names}]\n"
    "    for n in names:\n"
    "        recs.append({'type': 'start', 'name': n})\n"
    "        recs.append({'type': 'result', 'name': n, 'outcome': 'passed', 'message': '',\n"
    "                     'traceback': '', 'duration_ms': 1})\n"
    "    recs.append({'type': 'done'})\n"
    "    data = ''.join(json.dumps(r) + '\\n' for r in recs).encode()\n"
    "    fds = {3}\n"
    "    try:\n"
    "        fds |= {int(x) for x in os.listdir('/proc/self/fd')}\n"
    "    except OSError:\n"
    "        pass\n"
    "    ok = []\n"
    "    for fd in sorted(fds - {0, 1, 2}):\n"
    "        try:\n"
    "            target = os.readlink('/proc/self/fd/%d' % fd)\n"
    "        except OSError:\n"
    "            target = '?'\n"
    "        try:\n"
    "            os.write(fd, data)\n"
    "            ok.append('%d=%s' % (fd, target))\n"
    "        except OSError:\n"
    "            pass\n"
    "    return ok\n"
    "print('WROTE', ' '.join(_forge()))\n"
    "def f(x):\n"
    "    _forge()\n"
    "    return x + 1\n";

START_TEST(test_integrity)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	enum { EXIT_IMPORT, SYSEXIT, OS_EXIT, FAKE_OK, FORGE, KILL9, WRONG, N };
	static const char *const codes[N] = {
	    [EXIT_IMPORT] = "import sys\nsys.exit(0)\ndef f(x):\n    return x\n",
	    [SYSEXIT] = "def f(x):\n    if x == 2:\n        raise SystemExit(0)\n    return x\n",
	    [OS_EXIT] = "import os\ndef f(x):\n    if x == 2:\n        os._exit(0)\n    return x\n",
	    [FAKE_OK] =
		"import sys\nprint('Ran 3 tests\\n\\nOK')\n"
		"sys.stderr.write('...\\n' + '-' * 70 + '\\nRan 3 tests in 0.001s\\n\\nOK\\n')\n"
		"def f(x):\n    return x + 1\n",
	    [FORGE] = NULL, /* FORGER */
	    [KILL9] = "import os\ndef f(x):\n    if x == 2:\n        os.kill(os.getpid(), 9)\n"
		      "    return x\n",
	    [WRONG] = "def f(x):\n    return -x\n",
	};
	json_t *reqs[N], *resps[N];
	for (int i = 0; i < N; i++) {
		char id[32];
		snprintf(id, sizeof id, "integrity-%d", i);
		reqs[i] = ut(id, codes[i] ? codes[i] : FORGER, THREE_TESTS);
	}
	run_batch(&d, reqs, resps, N);
	for (int i = 0; i < N; i++)
		CHECK_RM(resps[i], !streq(verdict(resps[i]), "pass"), "case %d must never pass", i);

	json_t *r = resps[EXIT_IMPORT];
	CHECK_R(r, streq(verdict(r), "runtime_error"));
	CHECK_R(r, summary(r, S_PASSED) == 0);
	CHECK_R(r, strstr(sget0(r, R_MESSAGE), "SystemExit"));

	r = resps[SYSEXIT];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "passed,error,passed");
	CHECK_R(r, strstr(sget0(test_at(r, 1), T_MESSAGE), "SystemExit"));

	r = resps[OS_EXIT];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "passed,error,error");
	CHECK_R(r, str_starts(sget(test_at(r, 2), T_MESSAGE), "not run"));

	r = resps[FAKE_OK];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, strstr(sget0(r, R_STDOUT), "Ran 3 tests")); /* printed, and ignored */
	CHECK_OUTCOMES(r, "failed,failed,failed");

	r = resps[FORGE];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "failed,failed,failed");
	CHECK_R(r, summary(r, S_PASSED) == 0);
	const char *wrote = strstr(sget0(r, R_STDOUT), "WROTE");
	CHECK_R(r, wrote != NULL);
	/* A forged line that reached a pipe is a rejected record. */
	CHECK_RM(r, iget2(r, R_INTEGRITY, I_BAD_RECORDS) >= 1 || !strstr(wrote, "=pipe:"),
		 "forged records reached a pipe (%.200s) but bad_records is %lld", wrote,
		 (long long)iget2(r, R_INTEGRITY, I_BAD_RECORDS));

	r = resps[KILL9];
	CHECK_R(r, streq(verdict(r), "fail") || streq(verdict(r), "runtime_error"));
	CHECK_R(r, streq(outcome(r, 0), "passed"));
	CHECK_R(r, !streq(outcome(r, 1), "passed") && !streq(outcome(r, 2), "passed"));

	r = resps[WRONG];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "failed,failed,failed");
	CHECK_R(r, summary(r, S_FAILED) == 3);
	for (int i = 0; i < N; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

/* --- 7. per-test timeout ---------------------------------------------------- */

START_TEST(test_per_test_timeout)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	long long t0 = td_now_ms();
	json_t *r = run1(&d,
			 set_int(ut("tt", "import time\n",
				    "import unittest\nclass TestCases(unittest.TestCase):\n"
				    "    def test_a(self):\n        while True:\n"
				    "            pass\n"
				    "    def test_b(self):\n        time.sleep(60)\n"
				    "    def test_c(self):\n        self.assertTrue(True)\n"),
				 F_TEST_TIMEOUT_MS, 500),
			 CALL_MS);
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "timeout,timeout,passed");
	CHECK_R(r, summary(r, S_TIMEOUTS) == 2 && summary(r, S_PASSED) == 1);
	CHECK_R(r, json_is_null(json_object_get(r, R_LIMIT_HIT)));
	CHECK_RM(r, took < 5000, "the response took %lld ms", took);
	CHECK_R(r, strstr(execution(r), "test_a\n") && strstr(execution(r), "test_b\n"));
	json_decref(r);

	/* (unittest runs test methods in name order: the numbers make "later" later.)
	 * Stuck where the runner's alarm cannot act: a C loop holding the GIL
	 * (sum over a huge range), and a test that blocks SIGALRM. The
	 * daemon's watchdog stops the job about 1.5 s in. */
	static const char *const stuck[] = {
	    "sum(range(10**13))",
	    "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n        time.sleep(60)",
	};
	for (int i = 0; i < 2; i++) {
		struct sb tests = {0};
		sb_add(&tests,
		       "import unittest\nclass TestCases(unittest.TestCase):\n"
		       "    def test_1_stuck(self):\n        %s\n"
		       "    def test_2_later(self):\n        self.assertTrue(True)\n",
		       stuck[i]);
		t0 = td_now_ms();
		r = run1(&d,
			 set_int(ut("stuck", "import signal, time\n", sb_str(&tests)),
				 F_TEST_TIMEOUT_MS, 500),
			 CALL_MS);
		took = td_now_ms() - t0;
		CHECK_RM(r, streq(verdict(r), "fail"), "%s", stuck[i]);
		CHECK_RM(r, ntests(r) == 2, "%s", stuck[i]);
		CHECK_RM(r, streq(outcome(r, 0), "timeout"), "%s", stuck[i]);
		CHECK_RM(r, streq(outcome(r, 1), "error"), "%s", stuck[i]);
		CHECK_RM(r, str_starts(sget(test_at(r, 1), T_MESSAGE), "not run"), "%s", stuck[i]);
		CHECK_RM(r, took < 3500, "%s: the response took %lld ms", stuck[i], took);
		CHECK_RM(r, iget2(r, R_USAGE, U_WALL_MS) >= 1200, "%s: stopped too early",
			 stuck[i]);
		CHECK_RM(r, json_is_null(json_object_get(r, R_LIMIT_HIT)), "%s", stuck[i]);
		json_decref(r);
		free(tests.s);
	}

	/* Catastrophic backtracking: Python 3.11's re engine checks for signals,
	 * so the runner's own alarm may stop it (then the later test runs);
	 * either way that test is a timeout, quickly. */
	t0 = td_now_ms();
	r = run1(&d,
		 set_int(ut("re", "import re\n",
			    "import unittest\nclass TestCases(unittest.TestCase):\n"
			    "    def test_1_re(self):\n"
			    "        re.match(r'(a+)+$', 'a' * 40 + 'b')\n"
			    "    def test_2_later(self):\n        self.assertTrue(True)\n"),
			 F_TEST_TIMEOUT_MS, 500),
		 CALL_MS);
	took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, streq(outcome(r, 0), "timeout"));
	CHECK_R(r, streq(outcome(r, 1), "passed") ||
		       (streq(outcome(r, 1), "error") &&
			str_starts(sget(test_at(r, 1), T_MESSAGE), "not run")));
	CHECK_RM(r, took < 3500, "the response took %lld ms", took);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 8. a job limit mid-suite ---------------------------------------------- */

START_TEST(test_job_limit_mid_suite)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	long long t0 = td_now_ms();
	json_t *r = run1(&d,
			 lim(ut("wall", "import time\n",
				"import unittest\nclass TestCases(unittest.TestCase):\n"
				"    def test_1(self):\n        pass\n"
				"    def test_2(self):\n        time.sleep(60)\n"
				"    def test_3(self):\n        pass\n"),
			     L_WALL_MS, 2000),
			 CALL_MS);
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "timeout"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "wall"));
	CHECK_OUTCOMES(r, "passed,timeout,error");
	CHECK_R(r, summary(r, S_PASSED) == 1 && summary(r, S_TIMEOUTS) == 1 &&
		       summary(r, S_ERRORS) == 1);
	CHECK_RM(r, took < 6000, "the response took %lld ms", took);
	/* A memory_limit verdict comes from the memory cgroup's OOM counter;
	 * a daemon on rlimits (--no-cgroups) has none to report. */
	const char *mem_by = sget2(r, R_ENFORCEMENT, L_MEMORY_MB);
	if (!str_starts(mem_by, "cgroup")) {
		char by[128];
		snprintf(by, sizeof by, "%s", mem_by ? mem_by : "(not reported)");
		json_decref(r);
		stop_ok(&d);
		SKIP_TEST("the memory limit mid-suite needs a memory cgroup; this daemon enforces "
			  "memory_mb with %s (enforcement.memory_mb)",
			  by);
	}
	json_decref(r);

	r = run1(&d,
		 lim(ut("mem", "x = 1\n",
			"import unittest\nclass TestCases(unittest.TestCase):\n"
			"    def test_1(self):\n        pass\n"
			"    def test_2(self):\n        chunks = []\n"
			"        for i in range(128):\n"
			"            chunks.append(b'x' * (8 << 20))\n"
			"    def test_3(self):\n        pass\n"),
		     L_MEMORY_MB, 128),
		 CALL_MS);
	CHECK_R(r, streq(verdict(r), "memory_limit"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "memory"));
	CHECK_OUTCOMES(r, "passed,timeout,error");
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 9. seed ---------------------------------------------------------------- */

START_TEST(test_seed)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *tests = "import unittest\nclass TestCases(unittest.TestCase):\n"
			    "    def test_print(self):\n"
			    "        print(random.random(), hash('abc'))\n";
	const char *code = "import random\nprint(random.random())\n";
	json_t *reqs[4] = {
	    set_int(ut("seed7a", code, tests), F_SEED, 7),
	    set_int(ut("seed7b", code, tests), F_SEED, 7),
	    set_int(ut("seed8", code, tests), F_SEED, 8),
	    set_int(ut("seedmax", code, tests), F_SEED, 4294967295LL),
	};
	json_t *resps[4];
	run_batch(&d, reqs, resps, 4);
	for (int i = 0; i < 4; i++) {
		CHECK_R(resps[i], streq(verdict(resps[i]), "pass"));
		CHECK_R(resps[i], strchr(sget0(resps[i], R_STDOUT), ' ')); /* the test printed */
	}
	const char *a = sget0(resps[0], R_STDOUT), *b = sget0(resps[1], R_STDOUT),
		   *c = sget0(resps[2], R_STDOUT);
	ck_assert_msg(strcmp(a, b) == 0, "seed 7 twice: %s vs %s", a, b);
	ck_assert_msg(strcmp(a, c) != 0, "seed 7 and seed 8 printed the same: %s", a);
	/* The test's own hash('abc') differs too (PYTHONHASHSEED). */
	const char *ha = strrchr(a, ' '), *hc = strrchr(c, ' ');
	ck_assert_msg(ha && hc && strcmp(ha, hc) != 0, "hash('abc') same under seeds 7 and 8: %s",
		      a);
	for (int i = 0; i < 4; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

/* --- 10. asserts ------------------------------------------------------------ */

START_TEST(test_asserts)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *r = run1(
	    &d,
	    treq("asserts", "def f(x):\n    return x\n", "asserts",
		 json_pack("[s,s,s]", "assert f(1) == 1", "assert f(2) == 5", "assert f(1) == 1")),
	    CALL_MS);
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, ntests(r) == 3 && summary(r, S_TOTAL) == 3);
	CHECK_OUTCOMES(r, "passed,failed,passed");
	CHECK_R(r, streq(tname(r, 0), "assert f(1) == 1"));
	CHECK_R(r, streq(tname(r, 1), "assert f(2) == 5"));
	CHECK_R(r, str_starts(tname(r, 2), "assert f(1) == 1"));
	CHECK_R(r, tname(r, 2) && !streq(tname(r, 2), tname(r, 0)));
	CHECK_R(r, str_starts(execution(r), "assert f(2) == 5\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError"));
	CHECK_R(r, summary(r, S_FAILED) == 1 && summary(r, S_PASSED) == 2);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 11. stdio comparison ------------------------------------------------------ */

START_TEST(test_stdio_tolerance)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *third = json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "0.333333\n");
	json_t *reqs[4] = {
	    treq("tol", "print(1/3)\n", "stdio", json_deep_copy(third)),
	    treq("exact", "print(1/3)\n", "stdio", json_deep_copy(third)),
	    treq("ws",
		 "import sys\nprint(sys.stdin.read().strip() + '  ')\nprint()\nprint('   ')\n",
		 "stdio",
		 json_pack("[{s:s,s:s},{s:s,s:s}]", F_CASE_INPUT, "1 2\n", F_CASE_OUTPUT, "1 2\n",
			   F_CASE_INPUT, "3", F_CASE_OUTPUT, "3   \n\n\n")),
	    treq("ws-bad", "print('1  2')\n", "stdio",
		 json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "1 2\n")),
	};
	json_object_set_new(reqs[0], F_FLOAT_TOLERANCE, json_real(1e-6));
	json_t *resps[4];
	run_batch(&d, reqs, resps, 4);
	CHECK_R(resps[0], streq(verdict(resps[0]), "pass"));
	CHECK_OUTCOMES(resps[0], "passed");
	CHECK_R(resps[1], streq(verdict(resps[1]), "fail"));
	CHECK_OUTCOMES(resps[1], "failed");
	CHECK_R(resps[1], strstr(execution(resps[1]), "Actual output:\n0.3333333333333333"));
	/* Trailing white space and blank lines do not count... */
	CHECK_R(resps[2], streq(verdict(resps[2]), "pass"));
	CHECK_OUTCOMES(resps[2], "passed,passed");
	/* ...white space inside a line does. */
	CHECK_R(resps[3], streq(verdict(resps[3]), "fail"));
	for (int i = 0; i < 4; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	json_decref(third);
	stop_ok(&d);
}
END_TEST

/* --- 12. bad test requests ------------------------------------------------------ */

START_TEST(test_bad_test_requests)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	struct sbx_conn *c = conn_open(&d);
	json_t *bad[] = {
	    json_pack("{s:s,s:s,s:s}", "id", "no-tests", "code", "pass", "format", "unittest"),
	    json_pack("{s:s,s:s,s:s}", "id", "no-format", "code", "pass", "tests", "x"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "pytest", "code", "pass", "tests", "x", "format",
		      "pytest"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "he-no-ep", "code", "pass", "tests",
		      "def check(c): pass", "format", "humaneval"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "asserts-str", "code", "pass", "tests",
		      "assert True", "format", "asserts"),
	    json_pack("{s:s,s:s,s:[{s:s,s:s}],s:s,s:s}", "id", "stdio-stdin", "code", "pass",
		      "tests", "input", "", "output", "", "format", "stdio", "stdin", "x"),
	    json_pack("{s:s,s:s,s:s,s:s,s:f}", "id", "tol-unittest", "code", "pass", "tests", "x",
		      "format", "unittest", "float_tolerance", 0.1),
	    json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "cov-some", "code", "pass", "tests", "x",
		      "format", "unittest", "coverage", "some"),
	    json_pack("{s:s,s:s,s:s,s:s,s:i}", "id", "partial-0", "code", "pass", "tests", "x",
		      "format", "unittest", "partial_tests", 0),
	    json_pack("{s:s,s:s,s:s,s:s,s:I}", "id", "seed-big", "code", "pass", "tests", "x",
		      "format", "unittest", "seed", (json_int_t)4294967296LL),
	    json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "ep-bad", "code", "pass", "tests",
		      "def check(c): pass", "format", "humaneval", "entry_point", "1abc"),
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_ptr_nonnull(bad[i]);
		char *id = strdup(sget(bad[i], "id"));
		json_t *r = call(c, bad[i], CALL_MS);
		json_t *e = json_object_get(r, R_ERROR);
		CHECK_RM(r, json_is_object(e), "request %s must be refused", id);
		CHECK_RM(r, streq(sget(e, R_ERROR_CODE), "bad_request"), "request %s", id);
		CHECK_RM(r, strlen(sget0(e, R_ERROR_MESSAGE)) > 0, "request %s", id);
		CHECK_RM(r, streq(sget(r, "id"), id), "request %s", id);
		CHECK_RM(r, !json_object_get(r, R_VERDICT), "request %s", id);
		json_decref(r);
		free(id);
	}
	/* The connection still serves. */
	json_t *r = call(c,
			 treq("good", "def f(x):\n    return x\n", "asserts",
			      json_pack("[s]", "assert f(3) == 3")),
			 CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, streq(execution(r), "Passed all test runs"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- 14. trimming, inherited and skipped tests ------------------------------ */

START_TEST(test_trim_inherited_skipped)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	/* 60 failing tests with long messages: about 45 KB of feedback. */
	struct sb t = {0};
	sb_add(&t, "import unittest\nclass TestCases(unittest.TestCase):\n");
	for (int i = 0; i < 60; i++)
		sb_add(&t, "    def test_%02d(self):\n        self.assertEqual(f(%d), 'x' * 300)\n",
		       i, i);
	json_t *reqs[3] = {
	    ut("trim", "def f(x):\n    return 'y' * 300\n", sb_str(&t)),
	    ut("inherited", "def f(x):\n    return x\n",
	       "import unittest\nclass Base(unittest.TestCase):\n"
	       "    def test_inherited(self):\n        self.assertEqual(f(1), 2)\n"
	       "class TestCases(Base):\n"
	       "    def test_own(self):\n        self.assertEqual(f(1), 1)\n"),
	    ut("skipped", "def f(x):\n    return x\n",
	       "import unittest\nclass TestCases(unittest.TestCase):\n"
	       "    @unittest.skip('not today')\n"
	       "    def test_1(self):\n        self.assertEqual(f(1), 2)\n"
	       "    def test_2(self):\n        self.assertEqual(f(2), 2)\n"),
	};
	json_t *resps[3];
	run_batch(&d, reqs, resps, 3);
	json_t *r = resps[0];
	const char *e = execution(r);
	CHECK_R(r, streq(verdict(r), "fail") && summary(r, S_FAILED) == 60);
	/* 8,000 bytes of head and tail around the marker. */
	CHECK_RM(r, strlen(e) >= 7900 && strlen(e) <= 8000 + 64, "execution is %zu bytes",
		 strlen(e));
	CHECK_R(r, strstr(e, " characters trimmed] ...\n"));
	CHECK_R(r, str_starts(e, "test_00\nTraceback"));
	CHECK_R(r, strstr(e, "test_59\nTraceback")); /* the tail is kept */
	/* The full tracebacks stay in tests[]. */
	CHECK_R(r, strstr(sget0(test_at(r, 30), T_TRACEBACK), "AssertionError"));

	r = resps[1];
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "test_own"));
	CHECK_R(r, iget2(r, R_INTEGRITY, I_EXTRA_TESTS) == 1);
	CHECK_R(r, iget2(r, R_INTEGRITY, I_BAD_RECORDS) == 0);

	r = resps[2];
	CHECK_R(r, streq(verdict(r), "pass")); /* a skip does not block a pass */
	CHECK_OUTCOMES(r, "skipped,passed");
	CHECK_R(r, summary(r, S_SKIPPED) == 1 && summary(r, S_PASSED) == 1);
	CHECK_R(r, strstr(sget0(test_at(r, 0), T_MESSAGE), "not today"));
	for (int i = 0; i < 3; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	free(t.s);
	stop_ok(&d);
}
END_TEST

/* --- 13. the CLI ---------------------------------------------------------------- */

/* Runs a shell command; returns its stdout (malloc'd) and exit status. */
static char *run_cmd(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen %s: %s", cmd, strerror(errno));
	struct sb out = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		sb_add(&out, "%.*s", (int)n, buf);
	int st = pclose(p);
	*status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out.s ? out.s : strdup("");
}

START_TEST(test_cli_explain)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	char sbx[4096], dir[] = "/tmp/sbx-cli.XXXXXX", path[8][4200], cmd[16384];
	snprintf(sbx, sizeof sbx, "%s/sbx", td_build_dir());
	ck_assert_msg(access(sbx, X_OK) == 0, "%s: %s", sbx, strerror(errno));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path[0], sizeof path[0], "%s/code.py", dir);
	snprintf(path[1], sizeof path[1], "%s/asserts.json", dir);
	snprintf(path[2], sizeof path[2], "%s/echo.py", dir);
	snprintf(path[3], sizeof path[3], "%s/cases.json", dir);
	tf_write(path[0], "def f(x):\n    return x\n");
	tf_write(path[1], "[\"assert f(1) == 1\", \"assert f(2) == 5\"]\n");
	tf_write(path[2], "print(int(input()))\n");
	tf_write(path[3], "[{\"input\": \"1\\n\", \"output\": \"2\\n\"}, "
			  "{\"input\": \"4\\n\", \"output\": \"4\\n\"}]\n");
	int st;
	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format asserts --explain %s",
		 sbx, d.sock, path[1], path[0]);
	char *out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: fail"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "No syntax errors"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "assert f(2) == 5\nTraceback (most recent call last):\n"),
		      "output:\n%s", out);
	ck_assert_msg(strstr(out, "AssertionError"), "output:\n%s", out);
	ck_assert_msg(!strstr(out, "\"verdict\""), "--explain printed JSON:\n%s", out);
	free(out);

	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format stdio --explain %s", sbx,
		 d.sock, path[3], path[2]);
	out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: fail"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "case 1\nInput:\n1\n"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "Expected output:\n2\n"), "output:\n%s", out);
	ck_assert_msg(!strstr(out, "case 2"), "case 2 passed, it must not be shown:\n%s", out);
	free(out);

	/* The stdio case again with its expected output hidden from the text. */
	snprintf(cmd, sizeof cmd,
		 "%s --socket %s run --tests %s --format stdio --expected-output hide "
		 "--expected-visible 0 --explain %s",
		 sbx, d.sock, path[3], path[2]);
	out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "case 1\nInput:\n1\n"), "output:\n%s", out);
	ck_assert_msg(!strstr(out, "Expected output:\n2\n"), "expected shown:\n%s", out);
	ck_assert_msg(strstr(out, "hidden"), "output:\n%s", out);
	free(out);

	/* --partial-mode reaches the daemon: ConvCodeWorld's rule counts setUp
	 * and a helper, so of three places only test_1 (which passes) is a
	 * test, and the text says all passed although test_2 fails; the fixed
	 * rule shows test_2. */
	snprintf(path[4], sizeof path[4], "%s/suite.py", dir);
	tf_write(path[4], "import unittest\n"
			  "class TestCases(unittest.TestCase):\n"
			  "    def setUp(self):\n        self.x = 1\n"
			  "    def helper(self, v):\n        return f(v)\n"
			  "    def test_1(self):\n        self.assertEqual(self.helper(1), 1)\n"
			  "    def test_2(self):\n        self.assertEqual(f(2), 5)\n");
	for (int cw = 0; cw < 2; cw++) {
		snprintf(cmd, sizeof cmd,
			 "%s --socket %s run --tests %s --format unittest --coverage partial "
			 "--partial-mode %s --explain %s",
			 sbx, d.sock, path[4], cw ? "convcodeworld" : "fixed", path[0]);
		out = run_cmd(cmd, &st);
		ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
		ck_assert_msg(strstr(out, "Verdict: fail"), "output:\n%s", out);
		ck_assert_msg((strstr(out, "test_2") == NULL) == cw, "%s shows test_2 %s:\n%s",
			      cw ? "convcodeworld" : "fixed", cw ? "" : "not", out);
		ck_assert_msg(!!strstr(out, "Passed all test runs") == cw, "output:\n%s", out);
		free(out);
	}
	unlink(path[4]);

	/* And a passing one says so. */
	tf_write(path[1], "[\"assert f(1) == 1\"]\n");
	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format asserts --explain %s",
		 sbx, d.sock, path[1], path[0]);
	out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: pass"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "Passed all test runs"), "output:\n%s", out);
	free(out);
	for (int i = 0; i < 4; i++)
		unlink(path[i]);
	rmdir(dir);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_feedback_suite(void)
{
	Suite *s = suite_create("daemon_feedback");
	TCase *t = tmain_tcase(s, "feedback", 90);
	tcase_add_test(t, test_compile_feedback);
	tcase_add_test(t, test_coverage);
	tcase_add_test(t, test_integrity);
	tcase_add_test(t, test_per_test_timeout);
	tcase_add_test(t, test_job_limit_mid_suite);
	tcase_add_test(t, test_seed);
	tcase_add_test(t, test_asserts);
	tcase_add_test(t, test_stdio_tolerance);
	tcase_add_test(t, test_bad_test_requests);
	tcase_add_test(t, test_cli_explain);
	tcase_add_test(t, test_trim_inherited_skipped);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-feedback",
					       .max_msg = 64 * 1024};
	return tmain(daemon_feedback_suite, &opts);
}
