/* Warm/cold parity, the heavy part (make check-parity, its own budget in
 * .ci/run): the hostile corpus (the job programs of tests/hostile/), every
 * variant of the examples, HumanEval's 164 canonical solutions and simple
 * mutants, and a BigCodeBench sample, each with and without a seed, sent to a
 * default daemon and a --cold one (tests/parity/parity.py documents the
 * comparison). Verdicts and per-test outcomes must agree on every task, and
 * the whole responses (usage, timing, path and per-test durations aside)
 * too, except for the hostile programs whose output varies on the cold path
 * itself (named, with the reason, in the driver). A data set that is not
 * there is a skip. test_parity.c has the fast part and its controls; the
 * controls here show the weaker comparisons (named fields only, outcomes)
 * can fail too.
 *
 * Run as root from the repository root: make check-parity, or
 * make build/tests/test_parity_data && SBX_BUILD=build build/tests/test_parity_data
 * (CK_RUN_CASE=hostile|examples|humaneval|bigcodebench runs one). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tparity.h"

/* One worker: persist_* programs share a slot in name order, and programs
 * that print their uid see the same one on both daemons. */
START_TEST(test_parity_hostile)
{
	char skip[4096];
	if (!tparity_part("hostile", "1", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

START_TEST(test_parity_examples_all)
{
	char skip[4096];
	if (!tparity_part("examples", "2", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

START_TEST(test_parity_humaneval)
{
	char skip[4096];
	if (!tparity_part("humaneval", "2", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

/* Four workers: two of the sample's tasks sleep by design (BigCodeBench/195
 * polls a process for 45 s, /220 draws with a 1 s pause per square, 20 s),
 * each run with and without a seed. On two workers they held half of the
 * slots idle for minutes (308 s for the part); on four the CPU-bound tasks
 * go on beside them (252 s). The responses are compared as before. */
START_TEST(test_parity_bigcodebench)
{
	char skip[4096];
	if (!tparity_part("bigcodebench", "4", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

/* The weaker comparisons can fail too: with the default daemon's responses
 * altered (SBX_PARITY_CONTROL: another verdict, the first test's outcome
 * flipped), a hostile program compared on named fields only and a HumanEval
 * task's outcomes must be reported, on every request. */
START_TEST(test_parity_controls)
{
	static const struct {
		const char *part, *workers, *only, *want;
	} c[] = {
	    {"hostile", "1", "SBX_PARITY_ONLY=sys_violation_storm",
	     "parity hostile: 0 identical, 0 compared on named fields only, 1 differ"},
	    {"hostile", "1", "SBX_PARITY_ONLY=res_cpu_loop",
	     "parity hostile: 0 identical, 0 compared on named fields only, 1 differ"},
	    {"humaneval", "2", "SBX_PARITY_ONLY=HumanEval/0/",
	     "verdict and per-test outcomes agree on 0 of 4 "},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct test_daemon cold, warm;
		char err[2048];
		ck_assert_msg(tparity_start(&cold, &warm, c[i].workers, NULL, err, sizeof err) == 0,
			      "%s", err);
		const char *env[] = {"SBX_PARITY_CONTROL=1", "SBX_PARITY_PATHS=0", c[i].only, NULL};
		char *out;
		int rc = tparity_run(&cold, &warm, c[i].part, env, &out);
		td_cleanup(&warm);
		td_cleanup(&cold);
		if (rc == 77) {
			free(out);
			continue; /* the data set is not there: test_parity_humaneval skips */
		}
		ck_assert_msg(rc == 1 && strstr(out, c[i].want),
			      "%s with %s: altered responses not reported (exit %d, want \"%s\"):"
			      "\n%.3000s",
			      c[i].part, c[i].only, rc, c[i].want, out);
		free(out);
	}
}
END_TEST

static Suite *parity_data_suite(void)
{
	Suite *s = suite_create("parity_data");
	tcase_add_test(tmain_tcase(s, "hostile", 600), test_parity_hostile);
	tcase_add_test(tmain_tcase(s, "examples", 300), test_parity_examples_all);
	tcase_add_test(tmain_tcase(s, "humaneval", 1200), test_parity_humaneval);
	tcase_add_test(tmain_tcase(s, "bigcodebench", 1800), test_parity_bigcodebench);
	tcase_add_test(tmain_tcase(s, "controls", 300), test_parity_controls);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-integ", .max_msg = 8192};
	return tmain(parity_data_suite, &opts);
}
