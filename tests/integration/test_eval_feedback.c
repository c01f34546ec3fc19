/* Integration tests of what `sbx eval` (client/eval/) lets the model see,
 * through a real daemon: stdio feedback hides expected outputs unless
 * --show-expected, and the --expected-visible amount; EF_UNIT under
 * --partial-mode fixed and convcodeworld; traces.jsonl (one line per call of
 * the model, its real messages) checked against docs/traces.schema.json.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/eval.h"
#include "client/eval/eval_priv.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
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

/* tests/eval/check_traces.py on a traces file: its exit status (77: no
 * python3-jsonschema), its output in out. */
static int check_schema(const char *traces, char *out, size_t len)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 tests/eval/check_traces.py docs/traces.schema.json %s 2>&1",
		 traces);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The trace of (task, setting, turn), or NULL. */
static json_t *trace_at(const json_t *tr, const char *task, const char *setting, int turn)
{
	size_t i;
	json_t *t;
	json_array_foreach(tr, i, t)
	{
		if (streq(sget(t, "task"), task) && streq(sget(t, "setting"), setting) &&
		    json_integer_value(json_object_get(t, "turn")) == turn)
			return t;
	}
	return NULL;
}

static const char *msg_at(const json_t *t, size_t i, const char *k)
{
	return sget(json_array_get(json_object_get(t, "conversations"), i), k);
}

START_TEST(test_traces_schema)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "traces");
	/* double passes at once (later turns carried), negate's generator fails
	 * at turn 1, the others stay wrong; CF carries compiled code. */
	opts(&o, &e, out, "t/double=right,t/negate=fail-turn1,*=wrong", 2, "CF", "CF_EF_FULL",
	     NULL);
	run_ok(&o);
	char tp[600], msg[2048];
	snprintf(tp, sizeof tp, "%s/traces.jsonl", out);
	json_t *tr = load_jsonl(tp), *recs = load_turns(out), *gin = load_jsonl(e.glog);
	/* One trace per call of the model: every record that has a prompt. */
	size_t calls = 0, i;
	json_t *r;
	json_array_foreach(recs, i, r)
	{
		if (!json_is_string(json_object_get(r, "user_message")))
			continue;
		calls++;
		const char *task = sget(r, "task_id"), *set = sget(r, "setting");
		int turn = (int)json_integer_value(json_object_get(r, "turn"));
		json_t *t = trace_at(tr, task, set, turn);
		ck_assert_msg(t, "no trace of %s %s turn %d", task, set, turn);
		char ep[32];
		snprintf(ep, sizeof ep, "episode-%d", turn);
		ck_assert_str_eq(sget(t, "episode"), ep);
		ck_assert_str_eq(sget(t, "trace_source"), "sbx-eval/live");
		ck_assert_str_eq(sget(t, "date"), sget(r, "time"));
		/* The real messages of that call: the system message the generator
		 * was given, the prompt it got, and its answer. */
		json_t *g = find(gin, set, task, turn);
		ck_assert_ptr_nonnull(g);
		ck_assert_str_eq(msg_at(t, 0, "role"), "system");
		ck_assert_str_eq(msg_at(t, 0, "content"), eval_system_prompt());
		ck_assert_str_eq(msg_at(t, 0, "content"), sget(g, "system_prompt"));
		ck_assert_str_eq(msg_at(t, 1, "role"), "user");
		ck_assert_str_eq(msg_at(t, 1, "content"), sget(r, "user_message"));
		if (json_is_string(json_object_get(r, "generator_error"))) {
			ck_assert_uint_eq(json_array_size(json_object_get(t, "conversations")), 2);
			ck_assert_str_eq(sget(t, "result"), "generator_error");
			ck_assert_str_eq(sget(t, "error"), sget(r, "generator_error"));
		} else {
			ck_assert_uint_eq(json_array_size(json_object_get(t, "conversations")), 3);
			ck_assert_str_eq(msg_at(t, 2, "role"), "assistant");
			ck_assert_str_eq(msg_at(t, 2, "content"), sget(r, "assistant_message"));
			ck_assert_str_eq(sget(t, "result"), sget(r, "verdict"));
			ck_assert(!json_object_get(t, "error"));
		}
	}
	ck_assert_uint_eq(json_array_size(tr), calls);
	/* Not a chain: turn 1's conversation holds only turn 1's prompt. */
	json_t *w1 = trace_at(tr, "t/inc", "CF_EF_FULL", 1);
	ck_assert_ptr_nonnull(w1);
	ck_assert_ptr_nonnull(strstr(msg_at(w1, 1, "content"), "## Execution feedback"));
	ck_assert_ptr_null(trace_at(tr, "t/double", "CF_EF_FULL", 1)); /* carried */
	ck_assert_str_eq(sget(trace_at(tr, "t/negate", "CF_EF_FULL", 1), "result"),
			 "generator_error");
	json_decref(gin);
	json_decref(recs);

	/* The file against the schema, and the check shown able to fail: a
	 * line without trace_source. */
	int rc = check_schema(tp, msg, sizeof msg);
	if (rc == 77) {
		json_decref(tr);
		env_end(&e);
		SKIP_TEST("%s", msg);
	}
	ck_assert_msg(rc == 0, "traces.jsonl does not follow docs/traces.schema.json: %s", msg);
	json_t *bad = json_deep_copy(json_array_get(tr, 0));
	json_object_del(bad, "trace_source");
	const char *bp = sub(&e, "bad.jsonl");
	ck_assert_int_eq(json_dump_file(bad, bp, JSON_COMPACT), 0);
	rc = check_schema(bp, msg, sizeof msg);
	ck_assert_msg(rc == 1 && strstr(msg, "trace_source"), "%d: %s", rc, msg);
	json_decref(bad);
	json_decref(tr);
	env_end(&e);
}
END_TEST

/* The command line: the flags reach the manifest, and bad values are usage
 * errors (exit 2) that run nothing. */
START_TEST(test_cli_flags)
{
	struct env e;
	env_start(&e);
	const char *out = sub(&e, "cli");
	char gen[1024];
	snprintf(gen, sizeof gen, "%s %s wrong", FAKE_GEN, e.glog);
	const char *args[] = {"--socket",
			      e.d.sock,
			      "eval",
			      "--dataset",
			      TASKS,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF_EF_UNIT",
			      "--turns",
			      "0",
			      "--out",
			      out,
			      "--no-progress",
			      "--partial-mode",
			      "convcodeworld",
			      "--expected-visible",
			      "5",
			      NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, se);
	free(so);
	free(se);
	char p[600];
	snprintf(p, sizeof p, "%s/manifest.json", out);
	json_t *m = json_load_file(p, 0, NULL);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(sget(m, "partial_mode"), "convcodeworld");
	ck_assert_str_eq(sget(m, "expected_output"), "hide");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "expected_visible_chars")), 5);
	json_decref(m);
	static const char *const bad[][2] = {{"--partial-mode", "first3"},
					     {"--expected-visible", "1001"},
					     {"--expected-visible", "-1"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *a2[] = {
		    "--socket",	    e.d.sock,	   "eval",    "--dataset", TASKS, "--format",
		    "bigcodebench", "--generator", gen,	      "--setting", "CF",  "--out",
		    sub(&e, "bad"), bad[i][0],	   bad[i][1], NULL};
		rc = cli_run(&e, a2, &so, &se);
		ck_assert_msg(rc == 2 && strstr(se, bad[i][0]), "%s %s: exit %d: %s", bad[i][0],
			      bad[i][1], rc, se);
		free(so);
		free(se);
	}
	ck_assert(access(sub(&e, "bad"), F_OK) != 0);
	env_end(&e);
}
END_TEST

static Suite *eval_feedback_suite(void)
{
	Suite *s = suite_create("eval_feedback");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_stdio_expected_hidden_by_default);
	tcase_add_test(t, test_partial_mode);
	tcase_add_test(t, test_traces_schema);
	tcase_add_test(t, test_cli_flags);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-eval"};
	return tmain(eval_feedback_suite, &opts);
}
