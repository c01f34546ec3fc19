/* Unit tests for how the daemon validates the records the test runner
 * writes on the result channel (sandboxd/feedback/feedback.c): the runner
 * shares a process with the candidate, so every record is treated as
 * possibly forged. Also the compile records, the per-test deadline and
 * fb_init / fb_free. Records are fed with tests/helpers/fbrun.h. */
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

/* ------------------------------------------------------ record validation */

START_TEST(test_key_mismatch)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	raw(&f, "{'key':'wrong','type':'compile','ok':true,'errors':[],'feedback':''}");
	ck_assert(!f.have_compile);
	ck_assert_uint_eq(f.bad_records, 1);
	raw(&f, "{'type':'compile','ok':true,'errors':[],'feedback':''}"); /* no key */
	raw(&f, "{'key':1,'type':'compile','ok':true}");
	raw(&f, "{'key':null,'type':'compile','ok':true}");
	raw(&f, "{'key':'%.31s','type':'compile','ok':true}", KEY); /* a prefix */
	raw(&f, "{'key':'%sx','type':'compile','ok':true}", KEY);   /* longer */
	raw(&f, "{'key':'%s','type':'compile','ok':true}", "0123456789ABCDEF0123456789ABCDEF");
	ck_assert(!f.have_compile);
	ck_assert_uint_eq(f.bad_records, 7);
	/* the right key is accepted */
	raw(&f, "{'key':'%s','type':'compile','ok':true}", KEY);
	ck_assert(f.have_compile);
	ck_assert(f.compile_ok);
	ck_assert_uint_eq(f.bad_records, 7);
	fb_free(&f);
}
END_TEST

/* A line without the key's text is a bad record the daemon does not even
 * parse: a candidate that finds the channel but not the key cannot make
 * the daemon's thread parse 64 MiB of JSON (parse_ns counts what it
 * parsed). A line that holds the key's text is parsed as before. */
START_TEST(test_keyless_lines_not_parsed)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	size_t n = 1 << 20;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	big[0] = '[';
	for (size_t i = 1; i + 3 < n; i += 3)
		memcpy(big + i, "{},", 3);
	memcpy(big + n - 3, "{}]", 3);
	fb_on_record(&f, big, n, 0);
	raw(&f, "{'key':'%.31s','type':'compile','ok':true}", KEY);
	ck_assert_uint_eq(f.bad_records, 2);
	ck_assert_uint_eq(f.parse_ns, 0);
	ck_assert(!f.have_compile);
	raw(&f, "{'key':'%s','type':'compile','ok':true}", KEY);
	ck_assert(f.have_compile);
	ck_assert_uint_gt(f.parse_ns, 0);
	free(big);
	fb_free(&f);
}
END_TEST

/* Past REC_PARSE_CPU_MS of the daemon's CPU spent parsing a run's lines,
 * no line is parsed: even a right record is then a bad one. */
START_TEST(test_parse_budget)
{
	struct fb_run f;
	setup(&f, "'a'");
	ck_assert_uint_gt(f.parse_ns, 0); /* the compile and plan records */
	f.parse_ns = (uint64_t)REC_PARSE_CPU_MS * 1000000u - 1;
	feed(&f, "'type':'start','name':'a'"); /* under the budget: read */
	ck_assert(f.tests[0].started);
	ck_assert_uint_eq(f.bad_records, 0);
	f.parse_ns = (uint64_t)REC_PARSE_CPU_MS * 1000000u; /* spent */
	result(&f, "a", "passed", "");
	ck_assert_int_eq(outcome_of(&f, "a"), -1);
	ck_assert_uint_eq(f.bad_records, 1);
	/* The test that started says its result went unread, not that the
	 * process ended. */
	ck_assert_int_eq(fb_settle(&f, V_PASS, false), FB_SOME_BAD);
	ck_assert_str_eq(f.tests[0].message, FB_UNREAD_RUNNING);
	fb_free(&f);
}
END_TEST

/* A test that never started, in a run whose records went unread, says so;
 * with the budget not spent it says the process ended. */
START_TEST(test_parse_budget_not_run)
{
	for (int spent = 0; spent < 2; spent++) {
		struct fb_run f;
		setup(&f, "'a','b'");
		run_test(&f, "a", "passed", "");
		if (spent)
			f.parse_ns = (uint64_t)REC_PARSE_CPU_MS * 1000000u;
		ck_assert_int_eq(fb_settle(&f, V_PASS, false), FB_SOME_BAD);
		ck_assert_int_eq(outcome_of(&f, "a"), OUT_PASSED);
		ck_assert_int_eq(outcome_of(&f, "b"), OUT_ERROR);
		ck_assert_str_eq(f.tests[1].message,
				 spent ? FB_UNREAD_NOT_RUN
				       : "not run: the process ended before this test");
		fb_free(&f);
	}
}
END_TEST

/* Names are found whatever order the plan and the records come in, and a
 * name the plan lacks is refused (a binary search of the sorted names). */
START_TEST(test_names_found_in_any_order)
{
	struct fb_run f;
	setup(&f, "'m','c','x','a','q'");
	static const char *const order[] = {"q", "a", "x", "m", "c"};
	for (size_t i = 0; i < 5; i++)
		run_test(&f, order[i], "passed", "");
	feed(&f, "'type':'start','name':'b'");
	feed(&f, "'type':'result','name':'zz','outcome':'failed'");
	feed(&f, "'type':'start','name':''");
	ck_assert_uint_eq(f.bad_records, 3);
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(outcome_of(&f, order[i]), OUT_PASSED);
	fb_free(&f);
}
END_TEST

START_TEST(test_key_mismatch_after_plan)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1'");
	raw(&f, "{'key':'nope','type':'start','name':'t1'}");
	raw(&f, "{'key':'nope','type':'result','name':'t1','outcome':'passed'}");
	raw(&f, "{'key':'nope','type':'done'}");
	ck_assert_uint_eq(f.bad_records, 3);
	ck_assert(!f.tests[0].started);
	ck_assert_int_eq(f.tests[0].outcome, -1);
	ck_assert(!f.done);
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(f.tests[0].outcome, OUT_ERROR);
	fb_free(&f);
}
END_TEST

START_TEST(test_malformed_records)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	const char *bad[] = {
	    "",
	    "not json",
	    "{",
	    "[1,2]",
	    "\"a string\"",
	    "{'key':'" KEY "','type':'compile','ok':true}{}", /* two objects */
	    "{'key':'" KEY "'}",			      /* no type */
	    "{'key':'" KEY "','type':7}",
	    "{'key':'" KEY "','type':'bogus'}",
	    "{'key':'" KEY "','type':'COMPILE','ok':true}",
	    /* duplicate fields are rejected, whichever would win */
	    "{'key':'" KEY "','type':'compile','ok':true,'ok':false}",
	    "{'key':'wrong','key':'" KEY "','type':'compile','ok':true}",
	    /* compile without a boolean ok */
	    "{'key':'" KEY "','type':'compile','ok':1}",
	    "{'key':'" KEY "','type':'compile'}",
	};
	size_t n = sizeof bad / sizeof bad[0];
	for (size_t i = 0; i < n; i++) {
		char *s = strdup(bad[i]);
		quotes(s);
		fb_on_record(&f, s, strlen(s), 0);
		free(s);
		ck_assert_msg(f.bad_records == i + 1, "record %zu (%s) was accepted", i, bad[i]);
	}
	/* an over-long line */
	fb_on_record(&f, NULL, 0, 0);
	fb_on_record(&f, NULL, 123456, 0);
	ck_assert_uint_eq(f.bad_records, n + 2);
	ck_assert(!f.have_compile);
	ck_assert(!f.have_plan);
	ck_assert(!f.done);
	/* len bounds the line: the part past it is not read */
	const char *line = "{\"key\":\"" KEY "\",\"type\":\"done\"}garbage";
	fb_on_record(&f, line, strlen(line) - strlen("garbage"), 0);
	ck_assert(f.done);
	ck_assert_uint_eq(f.bad_records, n + 2);
	fb_free(&f);
}
END_TEST

START_TEST(test_first_compile_wins)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	feed(&f, "'type':'compile','ok':true,'errors':[],'feedback':''");
	feed(&f, "'type':'compile','ok':false,'errors':[{'type':'SyntaxError'}],'feedback':'bad'");
	ck_assert(f.have_compile);
	ck_assert(f.compile_ok);
	ck_assert_uint_eq(json_array_size(f.compile_errors), 0);
	ck_assert_str_eq(f.compile_feedback, "");
	ck_assert_uint_eq(f.bad_records, 1);
	fb_free(&f);

	/* and the other way round: a failed compile cannot be turned into a pass */
	fb_init(&f, KEY, 0);
	feed(&f, "'type':'compile','ok':false,'errors':[],'feedback':'SyntaxError: x'");
	feed(&f, "'type':'compile','ok':true,'errors':[],'feedback':''");
	ck_assert(!f.compile_ok);
	ck_assert_str_eq(f.compile_feedback, "SyntaxError: x");
	ck_assert_uint_eq(f.bad_records, 1);
	fb_free(&f);
}
END_TEST

START_TEST(test_first_plan_wins)
{
	struct fb_run f;
	setup(&f, "'a'");
	feed(&f, "'type':'plan','tests':['b','c']");
	ck_assert_uint_eq(f.bad_records, 1);
	ck_assert_uint_eq(f.ntests, 1);
	ck_assert_str_eq(f.tests[0].name, "a");
	fb_free(&f);
}
END_TEST

START_TEST(test_plan_needs_ok_compile)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	feed(&f, "'type':'plan','tests':['early']");
	ck_assert(!f.have_plan);
	ck_assert_uint_eq(f.ntests, 0);
	ck_assert_uint_eq(f.bad_records, 1);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t']");
	ck_assert(f.have_plan);
	ck_assert_uint_eq(f.ntests, 1);
	ck_assert_str_eq(f.tests[0].name, "t");
	ck_assert_uint_eq(f.bad_records, 1);
	fb_free(&f);

	fb_init(&f, KEY, 0);
	feed(&f, "'type':'compile','ok':false,'errors':[],'feedback':'x'");
	feed(&f, "'type':'plan','tests':['t']");
	ck_assert(!f.have_plan);
	ck_assert_uint_eq(f.ntests, 0);
	ck_assert_uint_eq(f.bad_records, 1);
	fb_free(&f);
}
END_TEST

START_TEST(test_bad_plans_rejected)
{
	const char *plans[] = {
	    "'tests':['a','b','a']", "'tests':['a','a']", "'tests':['a',1]", "'tests':['a','']",
	    "'tests':['a',null]",    "'tests':'a'",	  "'tests':{'a':1}", "'nottests':['a']",
	};
	for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
		struct fb_run f;
		fb_init(&f, KEY, 0);
		compile_ok(&f);
		feed(&f, "'type':'plan',%s", plans[i]);
		ck_assert_msg(!f.have_plan, "plan %s accepted", plans[i]);
		ck_assert_uint_eq(f.ntests, 0);
		ck_assert_uint_eq(f.bad_records, 1);
		fb_free(&f);
	}
	/* a name of 1000 bytes is fine, 1001 is not */
	char name[1002];
	memset(name, 'n', sizeof name - 1);
	name[1001] = '\0';
	struct fb_run f;
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['%s']", name);
	ck_assert(!f.have_plan);
	/* the first plan locks the slot even when it was rejected */
	name[1000] = '\0';
	feed(&f, "'type':'plan','tests':['%s']", name);
	ck_assert(!f.have_plan);
	fb_free(&f);
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['%s']", name);
	ck_assert(f.have_plan);
	ck_assert_uint_eq(f.ntests, 1);
	ck_assert_uint_eq(strlen(f.tests[0].name), 1000);
	fb_free(&f);
}
END_TEST

START_TEST(test_unknown_name_ignored)
{
	struct fb_run f;
	setup(&f, "'t1','t2'");
	feed(&f, "'type':'start','name':'ghost'");
	ck_assert_int_eq(f.running, -1);
	result(&f, "ghost", "passed", "");
	feed(&f, "'type':'result','outcome':'passed'"); /* no name */
	feed(&f, "'type':'start'");
	ck_assert_uint_eq(f.bad_records, 4);
	for (size_t i = 0; i < f.ntests; i++) {
		ck_assert_int_eq(f.tests[i].outcome, -1);
		ck_assert(!f.tests[i].started);
	}
	/* an unknown outcome is not accepted either */
	result(&f, "t1", "PASSED", "");
	result(&f, "t1", "ok", "");
	feed(&f, "'type':'result','name':'t1'");
	ck_assert_uint_eq(f.bad_records, 7);
	ck_assert_int_eq(f.tests[0].outcome, -1);
	fb_free(&f);
}
END_TEST

START_TEST(test_start_and_result_need_plan)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	feed(&f, "'type':'start','name':'t1'");
	result(&f, "t1", "passed", "");
	ck_assert_uint_eq(f.bad_records, 2);
	ck_assert_uint_eq(f.ntests, 0);
	ck_assert_int_eq(f.running, -1);
	fb_free(&f);
}
END_TEST

START_TEST(test_first_result_wins)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2'");
	/* a forged pass after the real failure changes nothing */
	run_test(&f, "t1", "failed", "real traceback");
	result(&f, "t1", "passed", "");
	ck_assert_uint_eq(f.bad_records, 1);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_FAILED);
	ck_assert_str_eq(f.tests[0].traceback, "real traceback");
	ck_assert_str_eq(f.tests[0].message, "msg of t1");
	/* a second start of the same test is rejected too */
	feed(&f, "'type':'start','name':'t1'");
	ck_assert_uint_eq(f.bad_records, 2);
	ck_assert_int_eq(f.running, -1);

	/* A pass for a test that never started is refused, so a forged early
	 * pass cannot pre-empt the real result that follows. */
	result(&f, "t2", "passed", "");
	ck_assert_int_eq(outcome_of(&f, "t2"), -1);
	ck_assert_uint_eq(f.bad_records, 3);
	feed(&f, "'type':'start','name':'t2'");
	result(&f, "t2", "failed", "real");
	ck_assert_int_eq(outcome_of(&f, "t2"), OUT_FAILED);
	ck_assert_uint_eq(f.bad_records, 3);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_FAILED);
	fb_free(&f);
}
END_TEST

START_TEST(test_results_in_any_order)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'a','b','c','d'");
	/* a failure without a start is believed; passes and skips need one */
	result(&f, "b", "failed", "tb");
	feed(&f, "'type':'start','name':'d'");
	result(&f, "d", "passed", "");
	feed(&f, "'type':'start','name':'c'");
	result(&f, "c", "skipped", "");
	result(&f, "a", "timeout", "");
	ck_assert_uint_eq(f.bad_records, 0);
	ck_assert_int_eq(outcome_of(&f, "a"), OUT_TIMEOUT);
	ck_assert_int_eq(outcome_of(&f, "b"), OUT_FAILED);
	ck_assert_int_eq(outcome_of(&f, "c"), OUT_SKIPPED);
	ck_assert_int_eq(outcome_of(&f, "d"), OUT_PASSED);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_TOTAL), 4);
	ck_assert_int_eq(summary(resp, S_PASSED), 1);
	ck_assert_int_eq(summary(resp, S_FAILED), 1);
	ck_assert_int_eq(summary(resp, S_TIMEOUTS), 1);
	ck_assert_int_eq(summary(resp, S_SKIPPED), 1);
	ck_assert_int_eq(summary(resp, S_ERRORS), 0);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

START_TEST(test_records_after_done_ignored)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2'");
	run_test(&f, "t1", "passed", "");
	feed(&f, "'type':'done'");
	ck_assert_uint_eq(f.bad_records, 0);
	run_test(&f, "t2", "passed", "");
	feed(&f, "'type':'module_error','message':'m','traceback':'t'");
	feed(&f, "'type':'harness_error','message':'h'");
	feed(&f, "'type':'note'");
	feed(&f, "'type':'done'");
	fb_on_record(&f, NULL, 0, 0);
	ck_assert_uint_eq(f.bad_records, 7);
	ck_assert(!f.tests[1].started);
	ck_assert_int_eq(f.tests[1].outcome, -1);
	ck_assert(!f.module_error);
	ck_assert_ptr_null(f.harness_error);
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "t2"), OUT_ERROR);
	fb_free(&f);
}
END_TEST

START_TEST(test_extra_results)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1'");
	run_test(&f, "t1", "failed", "tb");
	feed(&f, "'type':'result','name':'inherited','outcome':'passed','extra':true");
	/* an extra result naming a planned test changes nothing either */
	feed(&f, "'type':'result','name':'t1','outcome':'passed','extra':true");
	ck_assert_uint_eq(f.extra_tests, 2);
	ck_assert_uint_eq(f.bad_records, 0);
	ck_assert_uint_eq(f.ntests, 1);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_FAILED);
	/* "extra" must be true itself */
	feed(&f, "'type':'result','name':'t1','outcome':'passed','extra':1");
	ck_assert_uint_eq(f.extra_tests, 2);
	ck_assert_uint_eq(f.bad_records, 1);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(integrity(resp, I_EXTRA_TESTS), 2);
	ck_assert_int_eq(integrity(resp, I_BAD_RECORDS), 1);
	ck_assert_int_eq(summary(resp, S_TOTAL), 1);
	ck_assert_int_eq(summary(resp, S_PASSED), 0);
	json_decref(resp);
	fb_free(&f);

	/* extra passes alone do not make a pass */
	setup(&f, "'t1'");
	feed(&f, "'type':'result','name':'x','outcome':'passed','extra':true");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_ERROR);
	fb_free(&f);
}
END_TEST

START_TEST(test_long_fields_trimmed)
{
	struct fb_run f;
	setup(&f, "'t1'");
	char *big = malloc(20001);
	memset(big, 'm', 20000);
	big[20000] = '\0';
	feed(&f,
	     "'type':'result','name':'t1','outcome':'failed','message':'%s','traceback':'%s',"
	     "'duration_ms':-5",
	     big, big);
	free(big);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_FAILED);
	char marker[80];
	snprintf(marker, sizeof marker, MARKER_FMT, (size_t)16000);
	ck_assert_uint_eq(strlen(f.tests[0].message), 4000 + strlen(marker));
	ck_assert_ptr_nonnull(strstr(f.tests[0].message, marker));
	snprintf(marker, sizeof marker, MARKER_FMT, (size_t)12000);
	ck_assert_uint_eq(strlen(f.tests[0].traceback), 8000 + strlen(marker));
	ck_assert_ptr_nonnull(strstr(f.tests[0].traceback, marker));
	/* a negative duration becomes 0 */
	ck_assert_int_eq(f.tests[0].duration_ms, 0);
	fb_free(&f);

	/* non-string message and traceback become "" */
	setup(&f, "'t1'");
	feed(&f, "'type':'result','name':'t1','outcome':'failed','message':5,'traceback':null,"
		 "'duration_ms':'x'");
	ck_assert_str_eq(f.tests[0].message, "");
	ck_assert_str_eq(f.tests[0].traceback, "");
	ck_assert_int_eq(f.tests[0].duration_ms, 0);
	fb_free(&f);
}
END_TEST

/* ------------------------------------------------------- compile records */

START_TEST(test_compile_error)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 0);
	feed(&f,
	     "'type':'compile','ok':false,'errors':[{'type':'SyntaxError','message':'invalid "
	     "syntax','line':3,'column':11,'text':'    def f(:','evil':'<script>'},"
	     "{'type':7,'message':'m2','line':3.5,'column':2.5,'text':null,'more':{'x':1}},"
	     "{'line':'3','column':'4','text':5}],"
	     "'feedback':'  File <candidate>, line 3\\n    def f(:\\n          ^\\nSyntaxError: "
	     "invalid syntax'");
	ck_assert_uint_eq(f.bad_records, 0);
	ck_assert(f.have_compile);
	ck_assert(!f.compile_ok);
	/* nothing after a failed compile counts */
	feed(&f, "'type':'plan','tests':['t1']");
	ck_assert(!f.have_plan);
	feed(&f, "'type':'module_error','message':'m','traceback':'module traceback'");
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_COMPILE_ERROR);

	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_str_eq(
	    feedback(resp, FB_COMPILATION),
	    "  File <candidate>, line 3\n    def f(:\n          ^\nSyntaxError: invalid "
	    "syntax");
	ck_assert_str_eq(feedback(resp, FB_EXECUTION), "");
	json_t *comp = json_object_get(resp, R_COMPILE);
	ck_assert(json_is_false(json_object_get(comp, C_OK)));
	json_t *errs = json_object_get(comp, C_ERRORS);
	ck_assert_uint_eq(json_array_size(errs), 3);

	json_t *e = json_array_get(errs, 0);
	ck_assert_uint_eq(json_object_size(e), 5);
	ck_assert_ptr_null(json_object_get(e, "evil"));
	ck_assert_str_eq(json_string_value(json_object_get(e, C_TYPE)), "SyntaxError");
	ck_assert_str_eq(json_string_value(json_object_get(e, T_MESSAGE)), "invalid syntax");
	ck_assert(json_is_integer(json_object_get(e, C_LINE)));
	ck_assert_int_eq(json_integer_value(json_object_get(e, C_LINE)), 3);
	ck_assert(json_is_integer(json_object_get(e, C_COLUMN)));
	ck_assert_int_eq(json_integer_value(json_object_get(e, C_COLUMN)), 11);
	ck_assert_str_eq(json_string_value(json_object_get(e, C_TEXT)), "    def f(:");

	/* wrong types: strings become "", numbers null, unknown fields dropped */
	e = json_array_get(errs, 1);
	ck_assert_uint_eq(json_object_size(e), 5);
	ck_assert_ptr_null(json_object_get(e, "more"));
	ck_assert_str_eq(json_string_value(json_object_get(e, C_TYPE)), "");
	ck_assert_str_eq(json_string_value(json_object_get(e, T_MESSAGE)), "m2");
	ck_assert(json_is_null(json_object_get(e, C_LINE)));
	ck_assert(json_is_null(json_object_get(e, C_COLUMN)));
	ck_assert(json_is_null(json_object_get(e, C_TEXT)));
	e = json_array_get(errs, 2);
	ck_assert_uint_eq(json_object_size(e), 5);
	ck_assert_str_eq(json_string_value(json_object_get(e, C_TYPE)), "");
	ck_assert_str_eq(json_string_value(json_object_get(e, T_MESSAGE)), "");
	ck_assert(json_is_null(json_object_get(e, C_LINE)));
	ck_assert(json_is_null(json_object_get(e, C_COLUMN)));
	ck_assert(json_is_null(json_object_get(e, C_TEXT)));
	ck_assert_uint_eq(json_array_size(json_object_get(resp, R_TESTS)), 0);
	ck_assert_int_eq(summary(resp, S_TOTAL), 0);
	json_decref(resp);

	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "");
	free(text);
	fb_free(&f);
}
END_TEST

START_TEST(test_compile_errors_bounded)
{
	struct fb_run f;
	fb_init(&f, KEY, 0);
	char errs[4096] = "";
	for (int i = 0; i < 20; i++) {
		char one[64];
		snprintf(one, sizeof one, "%s{'type':'E','message':'e%d','line':%d}", i ? "," : "",
			 i, i);
		strcat(errs, one);
	}
	char text[3001];
	memset(text, 't', 3000);
	text[3000] = '\0';
	feed(&f, "'type':'compile','ok':false,'errors':[{'text':'%s'},%s],'feedback':'f'", text,
	     errs);
	ck_assert(f.have_compile);
	ck_assert_uint_eq(json_array_size(f.compile_errors), 16);
	/* the offending line is cut at 2000 bytes */
	const char *t0 =
	    json_string_value(json_object_get(json_array_get(f.compile_errors, 0), C_TEXT));
	ck_assert_uint_eq(strlen(t0), 2000);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_array_get(f.compile_errors, 15), C_LINE)), 14);
	fb_free(&f);

	/* errors stop at the first entry that is not an object */
	fb_init(&f, KEY, 0);
	feed(&f, "'type':'compile','ok':false,'errors':[{'type':'A'},'junk',{'type':'B'}],"
		 "'feedback':'f'");
	ck_assert_uint_eq(json_array_size(f.compile_errors), 1);
	fb_free(&f);
}
END_TEST

/* --------------------------------------------------------------- deadline */

START_TEST(test_deadline)
{
	struct fb_run f;
	/* no per-test limit */
	fb_init(&f, KEY, 0);
	ck_assert_uint_eq(f.test_timeout_ns, 0);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2']");
	feed_at(&f, 1000000000ull, "'type':'start','name':'t1'");
	ck_assert_int_eq(f.running, 0);
	ck_assert_uint_eq(fb_deadline(&f), 0);
	fb_free(&f);

	fb_init(&f, KEY, 500);
	ck_assert_uint_eq(f.test_timeout_ns, 500000000ull);
	ck_assert_uint_eq(fb_deadline(&f), 0); /* nothing runs */
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2']");
	ck_assert_uint_eq(fb_deadline(&f), 0);
	feed_at(&f, 1000000000ull, "'type':'start','name':'t1'");
	ck_assert_uint_eq(fb_deadline(&f), 1000000000ull + 500000000ull + GRACE_NS);
	result(&f, "t1", "passed", "");
	ck_assert_uint_eq(fb_deadline(&f), 0);
	feed_at(&f, 7000000000ull, "'type':'start','name':'t2'");
	ck_assert_uint_eq(fb_deadline(&f), 7000000000ull + 500000000ull + GRACE_NS);
	fb_free(&f);

	/* a result for another test leaves the running one's deadline */
	fb_init(&f, KEY, 500);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2']");
	feed_at(&f, 1000000000ull, "'type':'start','name':'t1'");
	result(&f, "t2", "passed", "");
	ck_assert_uint_eq(fb_deadline(&f), 2500000000ull);
	result(&f, "t1", "passed", "");
	ck_assert_uint_eq(fb_deadline(&f), 0);
	fb_free(&f);

	/* after done, a start (of a test not yet started) sets no deadline */
	fb_init(&f, KEY, 500);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2']");
	feed(&f, "'type':'done'");
	feed_at(&f, 1000000000ull, "'type':'start','name':'t1'");
	ck_assert_int_eq(f.running, -1);
	ck_assert_uint_eq(fb_deadline(&f), 0);
	fb_free(&f);

	/* negative test_timeout_ms means none */
	fb_init(&f, KEY, -1);
	ck_assert_uint_eq(f.test_timeout_ns, 0);
	fb_free(&f);
}
END_TEST

/* ------------------------------------------------------------ init, free */

START_TEST(test_init_and_free)
{
	struct fb_run f;
	fb_init(&f, NULL, 0);
	ck_assert_str_eq(f.key, "");
	ck_assert_int_eq(f.running, -1);
	/* an empty key still has to match exactly */
	raw(&f, "{'type':'compile','ok':true}");
	raw(&f, "{'key':'x','type':'compile','ok':true}");
	ck_assert(!f.have_compile);
	raw(&f, "{'key':'','type':'compile','ok':true}");
	ck_assert(f.have_compile);
	fb_free(&f);
	ck_assert_ptr_null(f.tests);
	ck_assert_uint_eq(f.ntests, 0);
	/* freeing twice is harmless: fb_free leaves an empty run */
	fb_free(&f);
}
END_TEST

static Suite *feedback_records_suite(void)
{
	Suite *s = suite_create("feedback_records");
	TCase *records = tcase_create("records");
	tcase_add_test(records, test_key_mismatch);
	tcase_add_test(records, test_keyless_lines_not_parsed);
	tcase_add_test(records, test_parse_budget);
	tcase_add_test(records, test_parse_budget_not_run);
	tcase_add_test(records, test_names_found_in_any_order);
	tcase_add_test(records, test_key_mismatch_after_plan);
	tcase_add_test(records, test_malformed_records);
	tcase_add_test(records, test_first_compile_wins);
	tcase_add_test(records, test_first_plan_wins);
	tcase_add_test(records, test_plan_needs_ok_compile);
	tcase_add_test(records, test_bad_plans_rejected);
	tcase_add_test(records, test_unknown_name_ignored);
	tcase_add_test(records, test_start_and_result_need_plan);
	tcase_add_test(records, test_first_result_wins);
	tcase_add_test(records, test_results_in_any_order);
	tcase_add_test(records, test_records_after_done_ignored);
	tcase_add_test(records, test_extra_results);
	tcase_add_test(records, test_long_fields_trimmed);
	tcase_add_test(records, test_compile_error);
	tcase_add_test(records, test_compile_errors_bounded);
	tcase_add_test(records, test_init_and_free);
	suite_add_tcase(s, records);
	TCase *deadline = tcase_create("deadline");
	tcase_add_test(deadline, test_deadline);
	suite_add_tcase(s, deadline);
	return s;
}

int main(void)
{
	return tmain(feedback_records_suite, NULL);
}
