/* Warm/cold parity, the fast part (issue 11, section 2: "Results are
 * identical to the cold path"): the probe programs of tests/parity/probes/
 * (what a program sees of argv, __main__, /proc/self, its environment,
 * descriptors, signals, ids, randomness and how it exits) and the bundled
 * examples, sent to a default daemon and a --cold one; the responses must be
 * the same bytes apart from usage, timing and path, and path must say which
 * path ran (tests/parity/parity.py, which documents the comparison). The
 * heavier part (hostile corpus, HumanEval, BigCodeBench) is
 * test_parity_data.c, in make check-parity. Two controls show the
 * comparison can fail: two daemons that differ in what a job sees (their uid
 * ranges) must be reported as different, and so must responses altered as a
 * broken warm path could give them (another verdict, a flipped outcome).
 *
 * Run as root from the repository root: make build/tests/test_parity &&
 * SBX_BUILD=build build/tests/test_parity. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tparity.h"

#define TIMEOUT_S 120

/* One worker: the job's uid (the slot's) is then the same in every job. */
START_TEST(test_parity_probes)
{
	char skip[4096];
	if (!tparity_part("probes", "1", NULL, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

START_TEST(test_parity_examples)
{
	/* Every example program, and the tasks' canonical solutions; make
	 * check-parity runs every variant (coverages, seeds, attempts). */
	static const char *const env[] = {"SBX_PARITY_QUICK=1", NULL};
	char skip[4096];
	if (!tparity_part("examples", "2", env, skip, sizeof skip))
		SKIP_TEST("%s", skip);
}
END_TEST

/* The control: the "warm" daemon gets another uid range, so a probe that
 * prints its credentials must be reported as different (the comparison can
 * fail), and the unchanged environment probe still agrees (it does not fail
 * for everything). */
START_TEST(test_parity_control_detects_difference)
{
	struct test_daemon cold, warm;
	char err[2048], base[32];
	ck_assert_msg(tparity_start(&cold, &warm, "1", NULL, err, sizeof err) == 0, "%s", err);
	snprintf(base, sizeof base, "%u", (unsigned)cold.uid_base + 64);
	td_cleanup(&warm);
	const char *wargs[] = {"--workers", "1", "--uid-base", base, NULL};
	ck_assert_msg(td_startv(&warm, wargs) == 0, "starting sandboxd: %s", warm.err);
	static const char *const env_cred[] = {"SBX_PARITY_ONLY=probe/credentials.py/plain",
					       "SBX_PARITY_PATHS=0", NULL};
	static const char *const env_same[] = {"SBX_PARITY_ONLY=probe/environment.py/plain",
					       "SBX_PARITY_PATHS=0", NULL};
	char *out1, *out2;
	int rc1 = tparity_run(&cold, &warm, "probes", env_cred, &out1);
	int rc2 = tparity_run(&cold, &warm, "probes", env_same, &out2);
	td_cleanup(&warm);
	td_cleanup(&cold);
	ck_assert_msg(
	    rc1 == 1 &&
		strstr(out1, "DIFF probes probe/credentials.py/plain: key 'stdout' from character"),
	    "uid ranges %u and %s: the driver did not report the credentials probe as "
	    "different (exit %d):\n%.3000s",
	    (unsigned)cold.uid_base, base, rc1, out1);
	/* The id names the plain run and the seeded one. */
	ck_assert_msg(rc2 == 0 && strstr(out2, "2 identical"),
		      "the environment probe should agree across uid ranges (exit %d):\n%.3000s",
		      rc2, out2);
	free(out1);
	free(out2);
}
END_TEST

/* The control of the comparison itself: a default daemon that answered
 * another verdict and flipped the first test's outcome (the driver alters
 * its responses, SBX_PARITY_CONTROL) must be reported on every request. */
START_TEST(test_parity_control_broken_responses)
{
	struct test_daemon cold, warm;
	char err[2048];
	ck_assert_msg(tparity_start(&cold, &warm, "1", NULL, err, sizeof err) == 0, "%s", err);
	static const char *const env[] = {"SBX_PARITY_CONTROL=1", "SBX_PARITY_PATHS=0",
					  "SBX_PARITY_QUICK=1", "SBX_PARITY_ONLY=/word_count/full/",
					  NULL};
	char *out;
	int rc = tparity_run(&cold, &warm, "examples", env, &out);
	td_cleanup(&warm);
	td_cleanup(&cold);
	ck_assert_msg(rc == 1 && strstr(out, "parity examples: 0 identical, 0 compared on named "
					     "fields only, 2 differ"),
		      "altered responses were not all reported (exit %d):\n%.3000s", rc, out);
	free(out);
}
END_TEST

static Suite *parity_suite(void)
{
	Suite *s = suite_create("parity");
	TCase *t = tmain_tcase(s, "parity", TIMEOUT_S);
	tcase_add_test(t, test_parity_probes);
	tcase_add_test(t, test_parity_examples);
	tcase_add_test(t, test_parity_control_detects_difference);
	tcase_add_test(t, test_parity_control_broken_responses);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-integ", .max_msg = 8192};
	return tmain(parity_suite, &opts);
}
