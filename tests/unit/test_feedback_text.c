/* Unit tests for what a model sees of the runner's records: the execution
 * text (sandboxd/feedback/feedback_text.c: which failures, by coverage, cut
 * to FB_TRIM_CHARS) and what fb_to_json adds to a response (summary, tests,
 * compile, feedback, integrity). Records are fed with
 * tests/helpers/fbrun.h. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "tests/helpers/fbrun.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

/* ------------------------------------------------------ happy paths, JSON */

START_TEST(test_happy_path_unittest)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'test_b','test_a'");
	/* unittest runs in alphabetical order; the plan keeps source order */
	run_test(&f, "test_a", "passed", "");
	run_test(&f, "test_b", "failed",
		 "Traceback (most recent call last):\\nAssertionError: 1 != 2");
	feed(&f, "'type':'done'");
	ck_assert_uint_eq(f.bad_records, 0);
	ck_assert(f.done);

	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_uint_eq(f.ntests, 2);
	ck_assert_str_eq(f.tests[0].name, "test_b");
	ck_assert_str_eq(f.tests[1].name, "test_a");
	ck_assert_int_eq(f.tests[0].outcome, OUT_FAILED);
	ck_assert_int_eq(f.tests[1].outcome, OUT_PASSED);
	ck_assert_str_eq(f.tests[0].message, "msg of test_b");
	ck_assert_int_eq(f.tests[0].duration_ms, 7);

	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_TOTAL), 2);
	ck_assert_int_eq(summary(resp, S_PASSED), 1);
	ck_assert_int_eq(summary(resp, S_FAILED), 1);
	ck_assert_int_eq(summary(resp, S_ERRORS), 0);
	ck_assert_int_eq(summary(resp, S_TIMEOUTS), 0);
	ck_assert_int_eq(summary(resp, S_SKIPPED), 0);
	ck_assert_int_eq(integrity(resp, I_BAD_RECORDS), 0);
	ck_assert_int_eq(integrity(resp, I_EXTRA_TESTS), 0);
	ck_assert_str_eq(feedback(resp, FB_COMPILATION), "No syntax errors");
	ck_assert(json_is_true(json_object_get(json_object_get(resp, R_COMPILE), C_OK)));
	ck_assert_uint_eq(
	    json_array_size(json_object_get(json_object_get(resp, R_COMPILE), C_ERRORS)), 0);
	const char *exec = feedback(resp, FB_EXECUTION);
	ck_assert_str_eq(exec,
			 "test_b\nTraceback (most recent call last):\nAssertionError: 1 != 2");
	ck_assert_ptr_null(strstr(exec, "test_a"));

	json_t *tests = json_object_get(resp, R_TESTS);
	ck_assert_uint_eq(json_array_size(tests), 2);
	json_t *t0 = json_array_get(tests, 0), *t1 = json_array_get(tests, 1);
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_NAME)), "test_b");
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_OUTCOME)), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_MESSAGE)), "msg of test_b");
	ck_assert(str_starts(json_string_value(json_object_get(t0, T_TRACEBACK)), "Traceback"));
	ck_assert_int_eq(json_integer_value(json_object_get(t0, T_DURATION_MS)), 7);
	ck_assert_str_eq(json_string_value(json_object_get(t1, T_NAME)), "test_a");
	ck_assert_str_eq(json_string_value(json_object_get(t1, T_OUTCOME)), "passed");
	json_decref(resp);

	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_ptr_nonnull(strstr(text, "test_b\nTraceback (most recent call last):\n"));
	ck_assert_ptr_null(strstr(text, "test_a"));
	free(text);
	fb_free(&f);
}
END_TEST

START_TEST(test_execution_text_several_failures)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2','t3'");
	run_test(&f, "t1", "failed", "tb1");
	run_test(&f, "t2", "passed", "");
	/* no traceback: the message is shown */
	run_test(&f, "t3", "error", "");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	char *text = fb_execution_text(&f, COV_FULL, 0);
	ck_assert_str_eq(text, "t1\ntb1\n\nt3\nmsg of t3");
	free(text);
	fb_free(&f);
}
END_TEST

START_TEST(test_coverage)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2','t3'");
	run_test(&f, "t1", "passed", "");
	run_test(&f, "t2", "failed", "tb2");
	run_test(&f, "t3", "passed", "");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);

	char *text = fb_execution_text(&f, COV_PARTIAL, 1);
	ck_assert_str_eq(text, "Passed all test runs");
	free(text);
	text = fb_execution_text(&f, COV_PARTIAL, 2);
	ck_assert_str_eq(text, "t2\ntb2");
	free(text);
	text = fb_execution_text(&f, COV_PARTIAL, 100);
	ck_assert_str_eq(text, "t2\ntb2");
	free(text);
	/* partial_tests below 1 shows every test */
	text = fb_execution_text(&f, COV_PARTIAL, 0);
	ck_assert_str_eq(text, "t2\ntb2");
	free(text);
	text = fb_execution_text(&f, COV_PARTIAL, -1);
	ck_assert_str_eq(text, "t2\ntb2");
	free(text);
	text = fb_execution_text(&f, COV_FULL, 1); /* partial_n only counts for partial */
	ck_assert_str_eq(text, "t2\ntb2");
	free(text);
	text = fb_execution_text(&f, COV_NONE, 3);
	ck_assert_str_eq(text, "");
	free(text);

	json_t *resp = to_json(&f, COV_PARTIAL, 1);
	ck_assert_str_eq(feedback(resp, FB_EXECUTION), "Passed all test runs");
	/* the summary and tests always cover the full suite */
	ck_assert_int_eq(summary(resp, S_FAILED), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(resp, R_TESTS)), 3);
	json_decref(resp);
	resp = to_json(&f, COV_NONE, 3);
	ck_assert_str_eq(feedback(resp, FB_EXECUTION), "");
	ck_assert_str_eq(feedback(resp, FB_COMPILATION), "No syntax errors");
	json_decref(resp);
	fb_free(&f);
}
END_TEST

/* fb_to_json without a compile record puts a fresh empty array under
 * compile.errors: nothing else may hold a reference to it, or it leaks when
 * the response is freed. */
/* partial_mode convcodeworld: the plan's "partial" marks what partial
 * coverage shows; it is read only when asked for, and must name planned
 * tests. */
START_TEST(test_partial_marked)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 0);
	f.want_partial = true;
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2','t3'],'partial':['t3']");
	ck_assert(f.have_plan && f.have_partial);
	run_test(&f, "t1", "failed", "tb1");
	run_test(&f, "t2", "passed", "");
	run_test(&f, "t3", "failed", "tb3");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	char *text = fb_execution_text(&f, COV_PARTIAL, 3);
	ck_assert_str_eq(text, "t3\ntb3");
	free(text);
	text = fb_execution_text(&f, COV_FULL, 3); /* only partial coverage looks at it */
	ck_assert_str_eq(text, "t1\ntb1\n\nt3\ntb3");
	free(text);
	fb_free(&f);

	/* None marked: nothing failing shown, as ConvCodeWorld says it. */
	fb_init(&f, KEY, 0);
	f.want_partial = true;
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1'],'partial':[]");
	run_test(&f, "t1", "failed", "tb1");
	feed(&f, "'type':'done'");
	finish(&f, V_PASS, false, msg, sizeof msg);
	text = fb_execution_text(&f, COV_PARTIAL, 3);
	ck_assert_str_eq(text, "Passed all test runs");
	free(text);
	fb_free(&f);

	/* Unasked, the list is not read: the fixed rule applies. */
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1'],'partial':[]");
	ck_assert(f.have_plan && !f.have_partial);
	fb_free(&f);

	/* A name not planned, a non-string, or no list: the plan is refused. */
	static const char *const bad[] = {"'partial':['t9']", "'partial':[1]", "'partial':'t1'",
					  "'partial':['t1','t1','t1']", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fb_init(&f, KEY, 0);
		f.want_partial = true;
		compile_ok(&f);
		feed(&f, "'type':'plan','tests':['t1','t2']%s%s", *bad[i] ? "," : "", bad[i]);
		ck_assert_msg(!f.have_plan && f.ntests == 0 && f.bad_records == 1, "%s", bad[i]);
		fb_free(&f);
	}
}
END_TEST

START_TEST(test_to_json_without_compile_no_leak)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	json_t *resp = to_json(&f, COV_FULL, 3);
	json_t *errs = json_object_get(json_object_get(resp, R_COMPILE), C_ERRORS);
	bool is_array = json_is_array(errs);
	size_t refs = errs ? (size_t)errs->refcount : 0;
	json_decref(resp);
	fb_free(&f);
	ck_assert(is_array);
	ck_assert_msg(refs == 1,
		      "compile.errors has refcount %zu with only the response holding it (leaked)",
		      refs);

	/* with a compile record the array stays owned by the run */
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	resp = to_json(&f, COV_FULL, 3);
	errs = json_object_get(json_object_get(resp, R_COMPILE), C_ERRORS);
	ck_assert_ptr_eq(errs, f.compile_errors);
	ck_assert_uint_eq(errs->refcount, 2);
	json_decref(resp);
	ck_assert_uint_eq(f.compile_errors->refcount, 1);
	fb_free(&f);
}
END_TEST

/* ------------------------------------------------------------- trimming */

START_TEST(test_execution_text_trimmed)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	char *tb = malloc(5001);
	for (int i = 0; i < 5000; i++)
		tb[i] = (char)('A' + i % 26);
	tb[4999] = 'Z';
	tb[5000] = '\0';
	ck_assert_int_eq(fb_add_test(&f, "first", OUT_FAILED, "m", tb, 1), 0);
	ck_assert_int_eq(fb_add_test(&f, "second", OUT_ERROR, "m", tb, 1), 0);
	ck_assert_int_eq(fb_add_test(&f, "third", OUT_TIMEOUT, "m", tb, 1), 0);
	f.done = true;
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	char *text = fb_execution_text(&f, COV_FULL, 3);
	char marker[80];
	size_t full = 3 * 5000 + strlen("first\n") + strlen("\n\nsecond\n") + strlen("\n\nthird\n");
	snprintf(marker, sizeof marker, MARKER_FMT, full - FB_TRIM_CHARS);
	ck_assert_uint_le(strlen(text), FB_TRIM_CHARS + strlen(marker));
	ck_assert_uint_eq(strlen(text), FB_TRIM_CHARS + strlen(marker));
	ck_assert_ptr_nonnull(strstr(text, marker));
	ck_assert(str_starts(text, "first\nABC"));
	ck_assert(str_ends(text, tb + 1000));
	free(text);

	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_uint_eq(strlen(feedback(resp, FB_EXECUTION)), FB_TRIM_CHARS + strlen(marker));
	json_decref(resp);

	/* partial with one test shown stays under the limit */
	text = fb_execution_text(&f, COV_PARTIAL, 1);
	ck_assert_uint_eq(strlen(text), strlen("first\n") + 5000);
	free(text);
	free(tb);
	fb_free(&f);
}
END_TEST

/* ------------------------------------------------------ stdio-like usage */

START_TEST(test_add_test_stdio)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	ck_assert_int_eq(fb_add_test(&f, "case 1", OUT_PASSED, "", "", 10), 0);
	ck_assert_int_eq(fb_add_test(&f, "case 2", OUT_FAILED, "wrong answer",
				     "Input:\n1\nExpected output:\n2\nActual output:\n3", 11),
			 0);
	ck_assert_int_eq(fb_add_test(&f, "case 3", OUT_PASSED, "", "", 12), 0);
	ck_assert(f.have_plan);
	ck_assert_uint_eq(f.ntests, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert(f.tests[i].started);
	/* a plan from the channel cannot add to the daemon's own tests */
	feed(&f, "'type':'plan','tests':['x']");
	ck_assert_uint_eq(f.ntests, 3);
	f.done = true;
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "case 2"), OUT_FAILED);
	ck_assert_str_eq(message_of(&f, "case 2"), "wrong answer");
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "case 2\nInput:\n1\nExpected output:\n2\nActual output:\n3");
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_TOTAL), 3);
	ck_assert_int_eq(summary(resp, S_PASSED), 2);
	ck_assert_int_eq(summary(resp, S_FAILED), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(resp, R_TESTS), 2), T_DURATION_MS)),
			 12);
	json_decref(resp);
	fb_free(&f);

	fb_init(&f, KEY, 0);
	compile_ok(&f);
	for (int i = 1; i <= 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "case %d", i);
		ck_assert_int_eq(fb_add_test(&f, name, OUT_PASSED, "", "", i), 0);
	}
	f.done = true;
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_PASS);
	text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "Passed all test runs");
	free(text);
	fb_free(&f);

	/* NULL message and traceback are fine */
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	ck_assert_int_eq(fb_add_test(&f, "case 1", OUT_TIMEOUT, NULL, NULL, 0), 0);
	f.done = true;
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "case 1\n");
	free(text);
	resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_TIMEOUTS), 1);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

static Suite *feedback_text_suite(void)
{
	Suite *s = suite_create("feedback_text");
	TCase *text = tcase_create("text");
	tcase_add_test(text, test_happy_path_unittest);
	tcase_add_test(text, test_execution_text_several_failures);
	tcase_add_test(text, test_coverage);
	tcase_add_test(text, test_partial_marked);
	tcase_add_test(text, test_to_json_without_compile_no_leak);
	tcase_add_test(text, test_execution_text_trimmed);
	tcase_add_test(text, test_add_test_stdio);
	suite_add_tcase(s, text);
	return s;
}

int main(void)
{
	return tmain(feedback_text_suite, NULL);
}
