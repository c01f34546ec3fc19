/* Integration tests of structured test feedback on public benchmark data:
 * every HumanEval task (canonical solutions pass, None stubs fail with
 * feedback) and a CodeContests sample (stdio cases, partial coverage, compile
 * errors). The benchmark data is read in place from ../shared/datasets, or
 * $SBX_DATASETS (tests/helpers/datasets.h); a data set that is not there is a
 * skip. A real sandboxd (tests/helpers/daemon.c starts one per test) runs the
 * candidates; the assertions are on the response's compile / tests / summary /
 * feedback / integrity fields and on the verdict rules of docs/protocol.md
 * (requests and responses: tests/helpers/tfeedback.h).
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
#include "tests/helpers/datasets.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

#define CALL_MS 60000 /* how long one ordinary response may take */

/* A line of the text that is white space and then `assert `. */
static bool has_assert_line(const char *s)
{
	for (const char *p = s; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		p += strspn(p, " \t");
		if (str_starts(p, "assert "))
			return true;
	}
	return false;
}

/* --- 1. HumanEval --------------------------------------------------------- */

START_TEST(test_humaneval_all)
{
	NEED_DATASET("HumanEval.jsonl.gz");
	size_t n;
	json_t **tasks = tds_load_jsonl_gz("HumanEval.jsonl.gz", &n);
	ck_assert_msg(n == 164, "HumanEval has %zu tasks, expected 164", n);
	struct test_daemon d;
	START(d, "--workers", "2");

	/* The canonical solutions all pass. */
	json_t **reqs = calloc(n, sizeof *reqs), **resps = calloc(n, sizeof *resps);
	for (size_t i = 0; i < n; i++) {
		char id[32];
		struct sb code = {0};
		snprintf(id, sizeof id, "he-good-%zu", i);
		sb_add(&code, "%s%s", sget(tasks[i], "prompt"),
		       sget(tasks[i], "canonical_solution"));
		reqs[i] = treq(id, sb_str(&code), "humaneval", json_string(sget(tasks[i], "test")));
		set_str(reqs[i], F_ENTRY_POINT, sget(tasks[i], "entry_point"));
		set_str(reqs[i], F_COVERAGE, "full");
		free(code.s);
	}
	run_batch(&d, reqs, resps, n);
	struct sb bad = {0};
	size_t nbad = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *r = resps[i];
		if (!streq(verdict(r), "pass")) {
			nbad++;
			sb_add(&bad, " %s (%s: %.200s)", sget(tasks[i], "task_id"), verdict(r),
			       execution(r));
		}
		CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "check"));
		CHECK_R(r, summary(r, S_TOTAL) == 1);
		CHECK_R(r, json_is_true(json_object_get(json_object_get(r, R_COMPILE), C_OK)));
		CHECK_R(r, streq(compilation(r), "No syntax errors"));
		if (streq(verdict(r), "pass"))
			CHECK_R(r, streq(execution(r), "Passed all test runs"));
	}
	ck_assert_msg(nbad == 0, "%zu of %zu canonical HumanEval solutions did not pass:%s", nbad,
		      n, sb_cut(&bad, 20000));
	free(bad.s);
	tds_free_all(reqs, n);
	tds_free_all(resps, n);

	/* A stub that returns None: (nearly) every task fails, with feedback. */
	reqs = calloc(n, sizeof *reqs);
	resps = calloc(n, sizeof *resps);
	for (size_t i = 0; i < n; i++) {
		char id[32];
		struct sb code = {0};
		snprintf(id, sizeof id, "he-none-%zu", i);
		sb_add(&code, "%s    return None\n", sget(tasks[i], "prompt"));
		reqs[i] = treq(id, sb_str(&code), "humaneval", json_string(sget(tasks[i], "test")));
		set_str(reqs[i], F_ENTRY_POINT, sget(tasks[i], "entry_point"));
		set_str(reqs[i], F_COVERAGE, "full");
		free(code.s);
	}
	run_batch(&d, reqs, resps, n);
	size_t nfail = 0, npass = 0, nother = 0;
	struct sb passed = {0}, other = {0};
	for (size_t i = 0; i < n; i++) {
		json_t *r = resps[i];
		const char *tid = sget(tasks[i], "task_id"), *e = execution(r);
		CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "check"));
		if (streq(verdict(r), "fail")) {
			nfail++;
			CHECK_R(r, streq(outcome(r, 0), "failed") || streq(outcome(r, 0), "error"));
			CHECK_RM(r, str_starts(e, "check\n"), "%s: execution feedback", tid);
			CHECK_RM(r, strstr(e, "Traceback (most recent call last):"),
				 "%s: no traceback", tid);
			CHECK_RM(r, has_assert_line(e), "%s: no assert line in the feedback", tid);
			CHECK_RM(r, strstr(e, "File \"solution.py\", line "),
				 "%s: no solution.py frame", tid);
			CHECK_R(r, summary(r, S_PASSED) == 0 && summary(r, S_TOTAL) == 1);
		} else if (streq(verdict(r), "pass")) {
			npass++;
			sb_add(&passed, " %s", tid);
			/* Legitimate only if the reference harness passes it too:
			 * prompt + stub + test + check(entry_point), one process. */
			struct sb prog = {0};
			sb_add(&prog, "%s    return None\n\n%s\ncheck(%s)\n",
			       sget(tasks[i], "prompt"), sget(tasks[i], "test"),
			       sget(tasks[i], "entry_point"));
			json_t *pr = run1(
			    &d, json_pack("{s:s,s:s}", F_ID, "he-plain", F_CODE, sb_str(&prog)),
			    CALL_MS);
			CHECK_RM(pr, streq(verdict(pr), "pass"),
				 "%s passed as a test request with a None stub, but its check() "
				 "fails in a plain run",
				 tid);
			json_decref(pr);
			free(prog.s);
		} else {
			nother++;
			sb_add(&other, " %s (%s)", tid, verdict(r));
		}
	}
	fprintf(stderr, "humaneval: None stub: %zu fail, %zu pass%s%s\n", nfail, npass,
		npass ? ":" : "", sb_str(&passed));
	ck_assert_msg(nother == 0, "None stubs with a verdict other than fail/pass:%s",
		      sb_cut(&other, 20000));
	ck_assert_msg(nfail >= 150, "only %zu of %zu None stubs failed (passed:%s)", nfail, n,
		      sb_cut(&passed, 20000));
	free(passed.s);
	free(other.s);
	tds_free_all(reqs, n);
	tds_free_all(resps, n);
	tds_free_all(tasks, n);
	stop_ok(&d);
}
END_TEST

/* --- 3. CodeContests ------------------------------------------------------ */

#define CC_CASES 10 /* cases per problem (each case is its own run) */

/* Expected output that is only white space: an empty answer matches it. */
static bool blank(const char *s)
{
	return s && s[strspn(s, " \t\r\n")] == '\0';
}

START_TEST(test_codecontests)
{
	NEED_DATASET("code_contests_sample.jsonl.gz");
	size_t n;
	json_t **probs = tds_load_jsonl_gz("code_contests_sample.jsonl.gz", &n);
	ck_assert_msg(n >= 19, "the CodeContests sample has %zu problems", n);
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t **cases = calloc(n, sizeof *cases);
	json_t **reqs = calloc(3 * n, sizeof *reqs), **resps = calloc(3 * n, sizeof *resps);
	for (size_t p = 0; p < n; p++) {
		json_error_t je;
		json_t *all = json_loads(sget0(probs[p], "test"), 0, &je);
		ck_assert_msg(json_is_array(all) && json_array_size(all) > 0,
			      "problem %zu: test is not a JSON array: %s", p, je.text);
		cases[p] = json_array();
		for (size_t i = 0; i < json_array_size(all) && i < CC_CASES; i++) {
			json_t *c = json_array_get(all, i);
			const char *in = sget(json_object_get(c, "input"), "stdin");
			const char *out = sget(json_object_get(c, "output"), "stdout");
			ck_assert_msg(in && out, "problem %zu case %zu: no stdin/stdout", p, i);
			json_array_append_new(
			    cases[p], json_pack("{s:s,s:s}", F_CASE_INPUT, in, F_CASE_OUTPUT, out));
		}
		json_decref(all);
		char id[64];
		snprintf(id, sizeof id, "cc-%zu-empty", p);
		reqs[3 * p] =
		    treq(id, "import sys\nsys.stdin.read()\n", "stdio", json_deep_copy(cases[p]));
		snprintf(id, sizeof id, "cc-%zu-partial", p);
		reqs[3 * p + 1] =
		    treq(id, "import sys\nsys.stdin.read()\n", "stdio", json_deep_copy(cases[p]));
		set_str(reqs[3 * p + 1], F_COVERAGE, "partial");
		set_int(reqs[3 * p + 1], F_PARTIAL_TESTS, 1);
		snprintf(id, sizeof id, "cc-%zu-syntax", p);
		reqs[3 * p + 2] = treq(id, "import sys\nprint('RAN')\nprint(sys.stdin.read(\n",
				       "stdio", json_deep_copy(cases[p]));
	}
	run_batch(&d, reqs, resps, 3 * n);
	for (size_t p = 0; p < n; p++) {
		size_t nc = json_array_size(cases[p]);
		size_t first_bad = 0; /* 1-based number of the first non-blank case */
		/* Prints nothing: every case with a non-blank answer is a wrong answer. */
		json_t *r = resps[3 * p];
		CHECK_RM(r, streq(verdict(r), "fail"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == nc, "problem %zu: %zu cases sent", p, nc);
		for (size_t i = 0; i < nc; i++) {
			char name[32];
			snprintf(name, sizeof name, "case %zu", i + 1);
			json_t *t = test_at(r, i);
			CHECK_RM(r, streq(sget(t, T_NAME), name), "problem %zu %s", p, name);
			if (blank(sget(json_array_get(cases[p], i), F_CASE_OUTPUT))) {
				CHECK_RM(r, streq(sget(t, T_OUTCOME), "passed"),
					 "problem %zu %s expects only blank output", p, name);
				continue;
			}
			if (!first_bad)
				first_bad = i + 1;
			CHECK_RM(r, streq(sget(t, T_OUTCOME), "failed"), "problem %zu %s", p, name);
			CHECK_RM(r, streq(sget(t, T_MESSAGE), "wrong answer"), "problem %zu %s", p,
				 name);
			CHECK_RM(r, str_starts(sget(t, T_TRACEBACK), "Input:\n"), "problem %zu %s",
				 p, name);
		}
		ck_assert_msg(first_bad > 0, "problem %zu: every case expects blank output", p);
		char want[64];
		snprintf(want, sizeof want, "case %zu\nInput:\n", first_bad);
		CHECK_RM(r, str_starts(execution(r), want),
			 "problem %zu: feedback should start with %s", p, want);
		CHECK_R(r, strstr(execution(r), "Expected output:\n"));
		CHECK_R(r, summary(r, S_TOTAL) == (json_int_t)nc);

		/* partial_tests 1: only case 1 is shown. */
		r = resps[3 * p + 1];
		CHECK_RM(r, streq(verdict(r), "fail"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == nc, "problem %zu", p);
		if (first_bad == 1) {
			CHECK_RM(r, str_starts(execution(r), "case 1\nInput:\n"), "problem %zu", p);
			CHECK_RM(r, !strstr(execution(r), "\n\ncase "),
				 "problem %zu: more than case 1 shown", p);
		} else {
			CHECK_RM(r, streq(execution(r), "Passed all test runs"), "problem %zu", p);
		}

		/* A syntax error: compile_error, and no case ran. */
		r = resps[3 * p + 2];
		CHECK_RM(r, streq(verdict(r), "compile_error"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == 0 && summary(r, S_TOTAL) == 0, "problem %zu", p);
		CHECK_R(r, json_is_false(json_object_get(json_object_get(r, R_COMPILE), C_OK)));
		CHECK_R(r, iget(json_array_get(
				    json_object_get(json_object_get(r, R_COMPILE), C_ERRORS), 0),
				C_LINE) == 3);
		CHECK_R(r, streq(sget0(r, R_STDOUT), ""));
		CHECK_R(r, streq(execution(r), ""));
		CHECK_RM(r,
			 iget2(r, R_USAGE, U_WALL_MS) >= 0 && iget2(r, R_USAGE, U_WALL_MS) < 3000,
			 "problem %zu: usage of one compile run expected", p);
	}
	fprintf(stderr, "codecontests: %zu problems, up to %d cases each\n", n, CC_CASES);
	tds_free_all(reqs, 3 * n);
	tds_free_all(resps, 3 * n);
	tds_free_all(cases, n);
	tds_free_all(probs, n);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_datasets_suite(void)
{
	Suite *s = suite_create("daemon_datasets");
	TCase *t = tmain_tcase(s, "datasets", 300);
	tcase_add_test(t, test_humaneval_all);
	tcase_add_test(t, test_codecontests);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-feedback",
					       .max_msg = 64 * 1024};
	return tmain(daemon_datasets_suite, &opts);
}
