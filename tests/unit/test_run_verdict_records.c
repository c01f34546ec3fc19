/* Unit tests for the verdict of a test request (verdict_records in
 * sandboxd/run/verdict.c): what the runner's records add up to, together
 * with how the run ended (its own verdict, the watchdog). Records are fed
 * with tests/helpers/fbrun.h.
 *
 * Most cases are rows of one table (struct scen): the records, in a small
 * step language, how the run ended, and what must follow; every row is one
 * Check test. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers/fbrun.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

/* ------------------------------------------------------------ scenarios */

/* One scenario. steps, fed in order:
 *   "compile"            an ok compile record
 *   "compile-failed"     a failed one (feedback 'x')
 *   "plan A B ..."       the plan (it must be accepted; "plan": no tests)
 *   "run NAME OUTCOME"   start and result of a test (message "msg of NAME")
 *   "start NAME"         only its start
 *   "done"
 *   anything else        one record's fields, single-quoted, fed as they are
 * Then the run is settled with `run` (and the watchdog) and must give want.
 * Every other expectation is checked only when given. */
struct scen {
	const char *name;
	long test_timeout_ms;
	const char *steps[9];
	int bad;	    /* bad_records after the steps; 0 is checked, -1 is not */
	bool check_running; /* f.running is running_before after the steps, -1 after */
	int running_before;
	enum proto_verdict run;
	bool watchdog;
	enum proto_verdict want;
	const char *msg;      /* the verdict's message, exactly */
	const char *outcomes; /* every test's outcome in plan order, space-separated */
	const char *not_run;  /* tests whose message starts with "not run" */
	const char *ran;      /* tests whose message does not */
	bool names_run;	      /* the not_run messages name the run's verdict */
	const char *text;     /* fb_execution_text(COV_FULL, 3), exactly */
	const char *text_has[2];
	const char *text_lacks;
	const char *summary;   /* "passed=1 errors=2": fb_to_json's summary counts */
	const char *json_exec; /* fb_to_json's execution feedback, exactly */
};

#define UNCHECKED -1
#define JOB_LIMIT(v)                                                                               \
	{                                                                                          \
		.name = "job limit " #v,                                                           \
		.steps = {"compile", "plan t1 t2 t3", "run t1 passed", "start t2"}, .bad = -1,     \
		.run = v, .want = v, .outcomes = "passed timeout error", .not_run = "t3",          \
		.names_run = true, .summary = "passed=1 timeouts=1 errors=1",                      \
	}

static const struct scen scens[] = {
    {.name = "all pass",
     .steps = {"compile", "plan test_b test_a", "run test_b passed", "run test_a passed",
	       "'type':'note','text':'anything'", "done"},
     .bad = 0,
     .run = V_PASS,
     .want = V_PASS,
     .msg = "",
     .text = "Passed all test runs",
     .summary = "passed=2 failed=0",
     .json_exec = "Passed all test runs"},
    {.name = "no tests",
     .steps = {"compile", "plan", "done"},
     .bad = -1,
     .run = V_PASS,
     .want = V_ERROR,
     .msg = "no tests found",
     .outcomes = "",
     .text = ""},
    {.name = "no plan at all",
     .steps = {"compile", "done"},
     .bad = -1,
     .run = V_PASS,
     .want = V_ERROR,
     .msg = "no tests found"},
    /* the process died during t2: no result, no done */
    {.name = "crash during a test",
     .steps = {"compile", "plan t1 t2 t3", "run t1 passed", "start t2"},
     .bad = -1,
     .check_running = true,
     .running_before = 1,
     .run = V_RUNTIME_ERROR,
     .want = V_FAIL,
     .outcomes = "passed error error",
     .not_run = "t3",
     .ran = "t2",
     .text_has = {"t2\n", "t3\nnot run"},
     .text_lacks = "t1",
     .summary = "passed=1 errors=2"},
    JOB_LIMIT(V_TIMEOUT),
    JOB_LIMIT(V_MEMORY_LIMIT),
    JOB_LIMIT(V_OUTPUT_LIMIT),
    JOB_LIMIT(V_VIOLATION),
    /* a job limit wins even when every test passed and done came */
    {.name = "job limit after done",
     .steps = {"compile", "plan t1", "run t1 passed", "done"},
     .bad = -1,
     .run = V_OUTPUT_LIMIT,
     .want = V_OUTPUT_LIMIT,
     .outcomes = "passed"},
    {.name = "watchdog",
     .test_timeout_ms = 500,
     .steps = {"compile", "plan t1 t2 t3", "run t1 passed", "start t2"},
     .bad = -1,
     .run = V_RUNTIME_ERROR,
     .watchdog = true,
     .want = V_FAIL,
     .outcomes = "passed timeout error",
     .not_run = "t3",
     .summary = "timeouts=1 errors=1"},
    {.name = "all skipped",
     .steps = {"compile", "plan t1 t2", "run t1 skipped", "run t2 skipped", "done"},
     .bad = -1,
     .run = V_PASS,
     .want = V_FAIL,
     .msg = "no test passed"},
    {.name = "a pass and a skip",
     .steps = {"compile", "plan t1 t2", "run t1 passed", "run t2 skipped", "done"},
     .bad = -1,
     .run = V_PASS,
     .want = V_PASS,
     .text = "Passed all test runs",
     .summary = "skipped=1 passed=1"},
    {.name = "no done",
     .steps = {"compile", "plan t1 t2", "run t1 passed", "run t2 passed"},
     .bad = -1,
     .run = V_PASS,
     .want = V_RUNTIME_ERROR,
     .msg = "the process ended before the runner finished",
     .outcomes = "passed passed"},
    /* the first harness error counts, a second is a bad record */
    {.name = "harness error",
     .steps = {"compile", "plan t1", "'type':'harness_error','message':'cannot load the tests'",
	       "'type':'harness_error','message':'second'"},
     .bad = 1,
     .run = V_PASS,
     .want = V_ERROR,
     .msg = "cannot load the tests"},
    /* it outranks a module error, but not a failed compile */
    {.name = "harness error after a module error",
     .steps = {"compile", "plan t1", "'type':'module_error','message':'m','traceback':'t'",
	       "'type':'harness_error','message':'h'"},
     .bad = -1,
     .run = V_RUNTIME_ERROR,
     .want = V_ERROR,
     .msg = "h"},
    {.name = "harness error after a failed compile",
     .steps = {"compile-failed", "'type':'harness_error','message':'h'"},
     .bad = -1,
     .run = V_PASS,
     .want = V_COMPILE_ERROR},
    /* the run's verdict does not matter, and without a traceback the
     * message is shown */
    {.name = "module error without a traceback",
     .steps = {"compile", "plan t1", "'type':'module_error','message':'SystemExit: 3'"},
     .bad = -1,
     .run = V_PASS,
     .want = V_RUNTIME_ERROR,
     .text = "SystemExit: 3"},
};

/* One step of a scenario (see struct scen). */
static void step(struct fb_run *f, const char *s)
{
	char a[64], b[64];
	if (strcmp(s, "compile") == 0) {
		compile_ok(f);
	} else if (strcmp(s, "compile-failed") == 0) {
		feed(f, "'type':'compile','ok':false,'errors':[],'feedback':'x'");
	} else if (strncmp(s, "plan", 4) == 0 && (s[4] == ' ' || s[4] == '\0')) {
		struct sb names = {0};
		char *copy = strdup(s + 4), *save = NULL;
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			sb_add(&names, "%s'%s'", names.len ? "," : "", w);
		feed(f, "'type':'plan','tests':[%s]", sb_str(&names));
		ck_assert_msg(f->have_plan, "plan %s refused", sb_str(&names));
		free(copy);
		free(names.s);
	} else if (sscanf(s, "run %63s %63s", a, b) == 2) {
		run_test(f, a, b, "");
	} else if (sscanf(s, "start %63s", a) == 1) {
		feed(f, "'type':'start','name':'%s'", a);
	} else if (strcmp(s, "done") == 0) {
		feed(f, "'type':'done'");
	} else {
		feed(f, "%s", s);
	}
}

/* Checks the "key=N ..." counts of a summary. */
static void check_summary(const struct scen *sc, json_t *resp)
{
	static const struct {
		const char *word, *key;
	} keys[] = {{"total", S_TOTAL},	  {"passed", S_PASSED},	    {"failed", S_FAILED},
		    {"errors", S_ERRORS}, {"timeouts", S_TIMEOUTS}, {"skipped", S_SKIPPED}};
	char *copy = strdup(sc->summary), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char word[32];
		long want;
		ck_assert_msg(sscanf(w, "%31[a-z]=%ld", word, &want) == 2, "%s: summary %s",
			      sc->name, w);
		const char *key = NULL;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (strcmp(keys[i].word, word) == 0)
				key = keys[i].key;
		ck_assert_msg(key != NULL, "%s: no summary count %s", sc->name, word);
		ck_assert_msg(summary(resp, key) == want, "%s: summary.%s is %lld, want %ld",
			      sc->name, key, (long long)summary(resp, key), want);
	}
	free(copy);
}

/* Each name of the space-separated list has a message that starts with
 * "not run" (or, with !not_run, does not). */
static void check_not_run(const struct scen *sc, const struct fb_run *f, const char *list,
			  bool not_run)
{
	char *copy = strdup(list), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		const char *m = message_of(f, w);
		ck_assert_msg(str_starts(m, "not run") == not_run, "%s: %s's message is '%s'",
			      sc->name, w, m);
		if (not_run && sc->names_run)
			ck_assert_msg(strstr(m, proto_verdict_name(sc->run)) != NULL,
				      "%s: %s's message '%s' does not name %s", sc->name, w, m,
				      proto_verdict_name(sc->run));
	}
	free(copy);
}

START_TEST(test_scenario)
{
	const struct scen *sc = &scens[_i];
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, sc->test_timeout_ms);
	for (size_t i = 0; i < sizeof sc->steps / sizeof sc->steps[0] && sc->steps[i]; i++)
		step(&f, sc->steps[i]);
	if (sc->bad != UNCHECKED)
		ck_assert_msg(f.bad_records == (size_t)sc->bad, "%s: %zu bad records, want %d",
			      sc->name, f.bad_records, sc->bad);
	if (sc->check_running)
		ck_assert_msg(f.running == sc->running_before, "%s: running %d, want %d", sc->name,
			      f.running, sc->running_before);

	enum proto_verdict v = finish(&f, sc->run, sc->watchdog, msg, sizeof msg);
	ck_assert_msg(v == sc->want, "%s: verdict %s, want %s (message '%s')", sc->name,
		      proto_verdict_name(v), proto_verdict_name(sc->want), msg);
	if (sc->msg)
		ck_assert_msg(strcmp(msg, sc->msg) == 0, "%s: message '%s', want '%s'", sc->name,
			      msg, sc->msg);
	if (sc->check_running)
		ck_assert_msg(f.running == -1, "%s: running %d after the verdict", sc->name,
			      f.running);
	if (sc->outcomes) {
		char got[256] = "";
		for (size_t i = 0; i < f.ntests; i++)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
				 f.tests[i].outcome < 0 ? "-"
							: proto_outcome_name(f.tests[i].outcome));
		ck_assert_msg(strcmp(got, sc->outcomes) == 0, "%s: outcomes '%s', want '%s'",
			      sc->name, got, sc->outcomes);
	}
	if (sc->not_run)
		check_not_run(sc, &f, sc->not_run, true);
	if (sc->ran)
		check_not_run(sc, &f, sc->ran, false);

	char *text = fb_execution_text(&f, COV_FULL, 3);
	if (sc->text)
		ck_assert_msg(strcmp(text, sc->text) == 0, "%s: execution text '%s', want '%s'",
			      sc->name, text, sc->text);
	for (size_t i = 0; i < 2 && sc->text_has[i]; i++)
		ck_assert_msg(strstr(text, sc->text_has[i]) != NULL,
			      "%s: execution text '%s' lacks '%s'", sc->name, text,
			      sc->text_has[i]);
	if (sc->text_lacks)
		ck_assert_msg(strstr(text, sc->text_lacks) == NULL,
			      "%s: execution text '%s' has '%s'", sc->name, text, sc->text_lacks);
	free(text);

	if (sc->summary || sc->json_exec) {
		json_t *resp = to_json(&f, COV_FULL, 3);
		if (sc->summary)
			check_summary(sc, resp);
		if (sc->json_exec)
			ck_assert_msg(strcmp(feedback(resp, FB_EXECUTION), sc->json_exec) == 0,
				      "%s: feedback.execution '%s', want '%s'", sc->name,
				      feedback(resp, FB_EXECUTION), sc->json_exec);
		json_decref(resp);
	}
	fb_free(&f);
}
END_TEST

/* --------------------------------------------------- one run, many calls */

START_TEST(test_no_compile_record)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 0);
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "the test runner reported nothing");
	/* run verdicts that are not job limits all become error */
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_ERROR);
	ck_assert_int_ne(strlen(msg), 0);
	/* a sandbox error keeps its own message, or gets one */
	snprintf(msg, sizeof msg, "cannot start the jail");
	ck_assert_int_eq(verdict_records(&f, V_ERROR, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "cannot start the jail");
	ck_assert_int_eq(finish(&f, V_ERROR, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "the test runner reported nothing");
	/* but a runtime error replaces whatever message it had */
	snprintf(msg, sizeof msg, "exit code 1");
	ck_assert_int_eq(verdict_records(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "the test runner reported nothing");
	/* a job limit is reported as such */
	ck_assert_int_eq(finish(&f, V_TIMEOUT, false, msg, sizeof msg), V_TIMEOUT);
	ck_assert_int_eq(finish(&f, V_MEMORY_LIMIT, false, msg, sizeof msg), V_MEMORY_LIMIT);

	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_str_eq(feedback(resp, FB_COMPILATION), "");
	ck_assert_str_eq(feedback(resp, FB_EXECUTION), "");
	json_t *comp = json_object_get(resp, R_COMPILE);
	ck_assert(json_is_false(json_object_get(comp, C_OK)));
	ck_assert(json_is_array(json_object_get(comp, C_ERRORS)));
	ck_assert_uint_eq(json_array_size(json_object_get(comp, C_ERRORS)), 0);
	ck_assert_int_eq(summary(resp, S_TOTAL), 0);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

/* --------------------------------------------------------- module error */

START_TEST(test_module_error)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2','t3'");
	feed(&f, "'type':'module_error','message':'NameError: name x is not defined',"
		 "'traceback':'Traceback (most recent call last):\\n  File solution.py, line 1\\n"
		 "NameError: name x is not defined'");
	feed(&f, "'type':'module_error','message':'second','traceback':'second'");
	ck_assert_uint_eq(f.bad_records, 1);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_RUNTIME_ERROR);
	ck_assert_str_eq(msg, "NameError: name x is not defined");
	for (size_t i = 0; i < f.ntests; i++) {
		ck_assert_int_eq(f.tests[i].outcome, OUT_ERROR);
		ck_assert_msg(str_starts(f.tests[i].message, "not run"), "message %s",
			      f.tests[i].message);
	}
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "Traceback (most recent call last):\n  File solution.py, line 1\n"
			       "NameError: name x is not defined");
	free(text);
	text = fb_execution_text(&f, COV_PARTIAL, 1);
	ck_assert(str_starts(text, "Traceback"));
	free(text);
	text = fb_execution_text(&f, COV_NONE, 3);
	ck_assert_str_eq(text, "");
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_ERRORS), 3);
	ck_assert_int_eq(summary(resp, S_TOTAL), 3);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

static Suite *verdict_records_suite(void)
{
	Suite *s = suite_create("verdict_records");
	TCase *t = tcase_create("verdict");
	tcase_add_loop_test(t, test_scenario, 0, (int)(sizeof scens / sizeof scens[0]));
	tcase_add_test(t, test_no_compile_record);
	tcase_add_test(t, test_module_error);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(verdict_records_suite, NULL);
}
