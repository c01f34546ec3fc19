/* Seeds everywhere (docs/protocol.md, `seed`): a request's seed sets
 * PYTHONHASHSEED and seeds random and numpy's global generator before the
 * program runs, for a plain run and for every stdio case as for test
 * requests, on the warm and the cold path alike:
 *   - the same seeded program, run plain and as a stdio case, prints the
 *     same random.random(), hash('x') and numpy.random.rand() (when numpy
 *     is installed) every time, on a --cold daemon and on a default one,
 *     where the seed's fork server is built after two such jobs and then
 *     serves them warm; the values are those of the seed itself;
 *   - without a seed two runs differ.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"

#define CALL_MS 60000
#define SEED 1234

static const char PROG[] = "import random\n"
			   "print(random.random())\n"
			   "print(hash('x'))\n"
			   "try:\n"
			   "    import numpy\n"
			   "except ImportError:\n"
			   "    print('no numpy')\n"
			   "else:\n"
			   "    print(repr(numpy.random.rand()))\n";

/* random.Random(1234).random() and numpy.random.RandomState(1234).rand(). */
#define RANDOM_1234 "0.9664535356921388\n"
#define NUMPY_1234 "0.1915194503788923\n"

static json_t *plain(const char *id, long long seed)
{
	json_t *r = job(id, PROG);
	return seed >= 0 ? set_int(r, F_SEED, seed) : r;
}

/* One case whose expected output nothing prints: the response's stdout is
 * that case's. */
static json_t *stdio1(const char *id, long long seed)
{
	json_t *r =
	    treq(id, PROG, "stdio", json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "-"));
	return seed >= 0 ? set_int(r, F_SEED, seed) : r;
}

/* Its stdout, checked to be a seeded run's. */
static const char *seeded_out(json_t *r)
{
	const char *out = sget0(r, R_STDOUT);
	CHECK_RM(r, str_starts(out, RANDOM_1234), "not random's values under seed %d", SEED);
	CHECK_RM(r, strstr(out, "\nno numpy\n") || strstr(out, "\n" NUMPY_1234),
		 "not numpy's values under seed %d", SEED);
	CHECK_R(r, strchr(out + strlen(RANDOM_1234), '\n')); /* the hash line */
	return out;
}

/* A second daemon in the same test needs uids of its own. */
static char g_base2[32];
static const char *base2(const struct test_daemon *first)
{
	snprintf(g_base2, sizeof g_base2, "%u", (unsigned)first->uid_base + 64u);
	return g_base2;
}

START_TEST(test_seeded_plain_and_stdio_repeat_warm_and_cold)
{
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	ck_assert_msg(td_wait_warm(&w, 60000) == 0, "%s", w.err);
	json_t *ref = run1(&k, plain("ref", SEED), CALL_MS);
	CHECK_R(ref, streq(verdict(ref), "pass"));
	CHECK_R(ref, streq(sget(ref, R_PATH), PATH_COLD));
	const char *want = seeded_out(ref);
	/* The --cold daemon: plain again, and as a stdio case. */
	json_t *again = run1(&k, plain("again", SEED), CALL_MS);
	json_t *case1 = run1(&k, stdio1("case", SEED), CALL_MS);
	CHECK_RM(again, streq(sget0(again, R_STDOUT), want), "cold plain: first run printed %s",
		 want);
	CHECK_R(case1, streq(verdict(case1), "fail"));
	CHECK_RM(case1, streq(sget0(case1, R_STDOUT), want), "cold stdio: the plain run printed %s",
		 want);
	/* The default daemon: no server has the seed, so the first jobs run
	 * cold and rebuild one; then they run warm. Every answer is the same. */
	struct sbx_conn *c = conn_open(&w);
	bool warm_plain = false, warm_case = false;
	for (int i = 0; i < 60 && !(warm_plain && warm_case); i++) {
		json_t *p = call(c, plain("p", SEED), CALL_MS);
		json_t *s = call(c, stdio1("s", SEED), CALL_MS);
		CHECK_R(p, streq(verdict(p), "pass"));
		CHECK_RM(p, streq(sget0(p, R_STDOUT), want), "%s plain: the cold run printed %s",
			 sget(p, R_PATH), want);
		CHECK_RM(s, streq(sget0(s, R_STDOUT), want), "%s stdio: the cold run printed %s",
			 sget(s, R_PATH), want);
		warm_plain |= streq(sget(p, R_PATH), PATH_WARM);
		warm_case |= streq(sget(s, R_PATH), PATH_WARM);
		json_decref(p);
		json_decref(s);
		if (!(warm_plain && warm_case))
			td_sleep_ms(250);
	}
	ck_assert_msg(warm_plain && warm_case,
		      "the seed's fork server never served (plain %d, "
		      "stdio %d)",
		      warm_plain, warm_case);
	sbx_close(c);
	json_decref(ref);
	json_decref(again);
	json_decref(case1);
	stop_ok(&w);
	stop_ok(&k);
}
END_TEST

/* The control: without a seed random differs from run to run (so the
 * equality above is the seed's doing), on either path. */
START_TEST(test_unseeded_runs_differ)
{
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	ck_assert_msg(td_wait_warm(&w, 60000) == 0, "%s", w.err);
	struct test_daemon *ds[] = {&w, &k};
	for (int d = 0; d < 2; d++) {
		json_t *r[4] = {
		    run1(ds[d], plain("a", -1), CALL_MS), run1(ds[d], plain("b", -1), CALL_MS),
		    run1(ds[d], stdio1("c", -1), CALL_MS), run1(ds[d], stdio1("d", -1), CALL_MS)};
		char first[4][64];
		for (int i = 0; i < 4; i++) {
			CHECK_R(r[i], strlen(sget0(r[i], R_STDOUT)) > 10);
			snprintf(first[i], sizeof first[i], "%.*s",
				 (int)strcspn(sget0(r[i], R_STDOUT), "\n"), sget0(r[i], R_STDOUT));
		}
		ck_assert_msg(strcmp(first[0], first[1]) != 0, "two unseeded plain runs: %s",
			      first[0]);
		ck_assert_msg(strcmp(first[2], first[3]) != 0, "two unseeded stdio runs: %s",
			      first[2]);
		for (int i = 0; i < 4; i++)
			json_decref(r[i]);
	}
	stop_ok(&w);
	stop_ok(&k);
}
END_TEST

/* A seeded run ends as the interpreter ends it, as an unseeded one does,
 * even when the program replaced os._exit (which the interpreter's own end
 * never calls): exit status 3 from sys.exit(3), no runner frame on stderr.
 * The runner ended a seeded run (and every stdio case) through os._exit as
 * the program left it, so a replaced one returned into the runner, which
 * failed with its own traceback and status 1. */
START_TEST(test_seeded_run_ends_as_unseeded)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	const char *code = "import os, sys\n"
			   "os._exit = lambda status: None\n"
			   "print('done')\n"
			   "sys.exit(3)\n";
	json_t *r[3] = {
	    run1(&d, job("plain", code), CALL_MS),
	    run1(&d, set_int(job("seeded", code), F_SEED, 5), CALL_MS),
	    run1(&d,
		 set_int(treq("case", code, "stdio",
			      json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "done")),
			 F_SEED, 5),
		 CALL_MS)};
	for (int i = 0; i < 3; i++) {
		CHECK_R(r[i], streq(sget0(r[i], R_STDOUT), "done\n"));
		CHECK_R(r[i], json_integer_value(json_object_get(r[i], R_EXIT_CODE)) == 3);
		CHECK_RM(r[i], !strstr(sget0(r[i], R_STDERR), "sbx_runner"), "%s",
			 "the runner's frames on stderr");
		json_decref(r[i]);
	}
	stop_ok(&d);
}
END_TEST

static Suite *seed_suite(void)
{
	Suite *s = suite_create("daemon_seed");
	TCase *t = tmain_tcase(s, "seed", 120);
	tcase_add_test(t, test_seeded_plain_and_stdio_repeat_warm_and_cold);
	tcase_add_test(t, test_unseeded_runs_differ);
	tcase_add_test(t, test_seeded_run_ends_as_unseeded);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-seed", .max_msg = 16 * 1024};
	return tmain(seed_suite, &opts);
}
