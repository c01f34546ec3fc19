/* Integration tests of what `sbx eval` (client/eval/) lets the model see,
 * through a real daemon: stdio feedback hides expected outputs unless
 * --show-expected, and the --expected-visible amount.
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

static Suite *eval_feedback_suite(void)
{
	Suite *s = suite_create("eval_feedback");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_stdio_expected_hidden_by_default);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true, .daemon = true, .tmpdir = "sbx-eval"};
	return tmain(eval_feedback_suite, &opts);
}
