/* Integration tests of what `sbx eval` (client/eval/) lets the model see,
 * through a real daemon: stdio feedback hides expected outputs unless
 * --show-expected, and the --expected-visible amount; EF_UNIT under
 * --partial-mode fixed and convcodeworld.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/eval.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/evalenv.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

/* The expected output's mark: a model must not read it unless asked for. */
#define SECRET "SECRET-ANSWER-7319"

/* A one-task stdio (CodeContests-format) data set whose only case expects
 * SECRET; fake_gen.py answers a program that prints nothing for it. */
static const char *stdio_dataset(struct env *e)
{
	const char *p = sub(e, "stdio.jsonl");
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"id\": \"io/secret\", \"content\": \"Print the secret.\", \"test\": "
		   "[{\"input\": {\"stdin\": \"1\\n\"}, \"output\": {\"stdout\": \"" SECRET
		   "\\n\"}}]}\n");
	fclose(f);
	return p;
}

/* Runs the one stdio task in CF_EF_FULL for one feedback turn; returns the
 * turn-1 generator input's execution_feedback (what the model is shown),
 * checked to equal the turn-1 record's user_message section. */
static char *stdio_feedback(struct env *e, const char *out, bool show, long visible,
			    json_t **manifest)
{
	struct eval_opts o;
	opts(&o, e, out, "wrong", 1, "CF_EF_FULL", NULL);
	o.dataset = stdio_dataset(e);
	o.format = DS_STDIO;
	o.show_expected = show;
	o.expected_visible = visible;
	remove(e->glog);
	run_ok(&o);
	json_t *gin = load_jsonl(e->glog);
	json_t *g1 = find(gin, "CF_EF_FULL", "io/secret", 1);
	ck_assert_msg(g1, "the generator was not asked at turn 1");
	char *text = strdup(sget(g1, "execution_feedback"));
	json_t *recs = load_turns(out);
	const char *user = sget(rec(recs, "CF_EF_FULL", "io/secret", 1), "user_message");
	ck_assert_msg(strstr(user, text), "user_message lacks the execution feedback: %s", user);
	char p[600];
	snprintf(p, sizeof p, "%s/manifest.json", out);
	*manifest = json_load_file(p, 0, NULL);
	ck_assert_ptr_nonnull(*manifest);
	json_decref(recs);
	json_decref(gin);
	return text;
}

START_TEST(test_stdio_expected_hidden_by_default)
{
	struct env e;
	env_start(&e);
	json_t *m;
	struct eval_opts d;
	eval_opts_default(&d);
	char *fb = stdio_feedback(&e, sub(&e, "hidden"), d.show_expected, d.expected_visible, &m);
	ck_assert_msg(strstr(fb, "Expected output: hidden"), "%s", fb);
	ck_assert_msg(!strstr(fb, SECRET) && !strstr(fb, "SECRET"), "leaked: %s", fb);
	ck_assert_str_eq(sget(m, "expected_output"), "hide");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "expected_visible_chars")), 0);
	free(fb);
	json_decref(m);

	/* --expected-visible 6: the first six characters, no more. */
	fb = stdio_feedback(&e, sub(&e, "six"), false, 6, &m);
	ck_assert_msg(strstr(fb, "hidden past its first 6 characters") && strstr(fb, "SECRET") &&
			  !strstr(fb, "SECRET-"),
		      "%s", fb);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "expected_visible_chars")), 6);
	free(fb);
	json_decref(m);

	/* --show-expected: the whole expected output, as the daemon's default. */
	fb = stdio_feedback(&e, sub(&e, "shown"), true, -1, &m);
	ck_assert_msg(strstr(fb, "Expected output:\n" SECRET), "%s", fb);
	ck_assert_str_eq(sget(m, "expected_output"), "show");
	free(fb);
	json_decref(m);

	/* Both flags contradict each other: refused before anything runs. */
	struct eval_opts o;
	opts(&o, &e, sub(&e, "both"), "wrong", 1, "CF_EF_FULL", NULL);
	o.show_expected = true;
	o.expected_visible = 3;
	char err[512] = "";
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "--expected-visible"), "%s", err);
	env_end(&e);
}
END_TEST

/* A BigCodeBench task whose test class starts with setUp and a helper;
 * fake_gen.py's "wrong" answer (returns 0) passes test_1 only. */
static const char *unit_dataset(struct env *e)
{
	const char *p = sub(e, "unit.jsonl");
	json_t *t =
	    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", "u/double",
		      "complete_prompt", "def task_func(x):\n", "instruct_prompt",
		      "Return twice x.", "canonical_solution", "    return 2 * x\n", "code_prompt",
		      "def task_func(x):\n", "entry_point", "task_func", "test",
		      "import unittest\nclass TestCases(unittest.TestCase):\n"
		      "    def setUp(self):\n        self.k = 2\n"
		      "    def helper(self, x):\n        return task_func(x)\n"
		      "    def test_1(self):\n        self.assertEqual(self.helper(0), 0)\n"
		      "    def test_2(self):\n        self.assertEqual(task_func(2), 4)\n"
		      "    def test_3(self):\n        self.assertEqual(task_func(3), 6)\n"
		      "    def test_4(self):\n        self.assertEqual(task_func(4), 8)\n");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(json_dump_file(t, p, JSON_COMPACT), 0);
	json_decref(t);
	return p;
}

/* The turn-1 generator input's execution feedback in CF_EF_UNIT, and the
 * run's manifest partial_mode. */
static char *unit_feedback(struct env *e, const char *out, enum proto_partial_mode mode,
			   char *manifest_mode, size_t len)
{
	struct eval_opts o;
	opts(&o, e, out, "wrong", 1, "CF_EF_UNIT", NULL);
	o.dataset = unit_dataset(e);
	o.partial_mode = mode;
	remove(e->glog);
	run_ok(&o);
	json_t *gin = load_jsonl(e->glog);
	json_t *g1 = find(gin, "CF_EF_UNIT", "u/double", 1);
	ck_assert_msg(g1, "the generator was not asked at turn 1");
	char *text = strdup(sget(g1, "execution_feedback"));
	char p[600];
	snprintf(p, sizeof p, "%s/manifest.json", out);
	json_t *m = json_load_file(p, 0, NULL);
	ck_assert_ptr_nonnull(m);
	snprintf(manifest_mode, len, "%s", sget(m, "partial_mode"));
	json_t *recs = load_turns(out);
	/* The verdict is the whole suite's in both modes. */
	ck_assert_str_eq(sget(rec(recs, "CF_EF_UNIT", "u/double", 0), "verdict"), "fail");
	json_decref(recs);
	json_decref(m);
	json_decref(gin);
	return text;
}

START_TEST(test_partial_mode)
{
	struct env e;
	env_start(&e);
	char mm[64];
	/* fixed (the default): test_1..test_3, so test_2 and test_3 fail. */
	char *fb = unit_feedback(&e, sub(&e, "fixed"), PM_FIXED, mm, sizeof mm);
	ck_assert_msg(strstr(fb, "test_2\nTraceback") && strstr(fb, "test_3\nTraceback") &&
			  !strstr(fb, "test_4"),
		      "%s", fb);
	ck_assert_str_eq(mm, "fixed");
	free(fb);
	/* convcodeworld: setUp, helper and test_1 take the three places. */
	fb = unit_feedback(&e, sub(&e, "ccw"), PM_CONVCODEWORLD, mm, sizeof mm);
	ck_assert_str_eq(fb, "Passed all test runs");
	ck_assert_str_eq(mm, "convcodeworld");
	free(fb);
	/* Formats without a unittest class are refused before anything runs. */
	struct eval_opts o;
	opts(&o, &e, sub(&e, "ccw-stdio"), "wrong", 1, "CF_EF_UNIT", NULL);
	o.dataset = stdio_dataset(&e);
	o.format = DS_STDIO;
	o.partial_mode = PM_CONVCODEWORLD;
	char err[512] = "";
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "--partial-mode"), "%s", err);
	env_end(&e);
}
END_TEST

static Suite *eval_feedback_suite(void)
{
	Suite *s = suite_create("eval_feedback");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_stdio_expected_hidden_by_default);
	tcase_add_test(t, test_partial_mode);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true, .daemon = true, .tmpdir = "sbx-eval"};
	return tmain(eval_feedback_suite, &opts);
}
