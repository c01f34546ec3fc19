/* Warm/cold parity, the heavy part (make check-parity, its own budget in
 * .ci/run): the hostile corpus (the job programs of tests/hostile/), every
 * variant of the examples, HumanEval's 164 canonical solutions and simple
 * mutants, and a BigCodeBench sample, each with and without a seed, sent to a
 * default daemon and a --cold one (tests/parity/parity.py documents the
 * comparison). Verdicts and per-test outcomes must agree on every task, and
 * the whole responses (usage, timing, path and per-test durations aside)
 * too, except for the hostile programs whose output varies on the cold path
 * itself (named, with the reason, in the driver). A data set that is not
 * there is a skip. test_parity.c has the fast part and the control that
 * shows the comparison can fail.
 *
 * Run as root from the repository root: make check-parity, or
 * make build/tests/test_parity_data && SBX_BUILD=build build/tests/test_parity_data
 * (CK_RUN_CASE=hostile|examples|humaneval|bigcodebench runs one). */
#include <check.h>
#include <stdbool.h>
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

START_TEST(test_parity_bigcodebench)
{
	char skip[4096];
	if (!tparity_part("bigcodebench", "2", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

static Suite *parity_data_suite(void)
{
	Suite *s = suite_create("parity_data");
	tcase_add_test(tmain_tcase(s, "hostile", 600), test_parity_hostile);
	tcase_add_test(tmain_tcase(s, "examples", 300), test_parity_examples_all);
	tcase_add_test(tmain_tcase(s, "humaneval", 600), test_parity_humaneval);
	tcase_add_test(tmain_tcase(s, "bigcodebench", 900), test_parity_bigcodebench);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-integ", .max_msg = 8192};
	return tmain(parity_data_suite, &opts);
}
