/* Unit tests for structured feedback: how the daemon validates the records
 * the test runner writes on the result channel (the runner shares a process
 * with the candidate, so every record is treated as possibly forged), the
 * verdict verdict_records makes of them, the execution text a model sees, text_trim,
 * and what fb_to_json adds to a response.
 *
 * Records are written with single quotes for readability; feed() turns them
 * into double quotes and adds the job's key. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "sandboxd/feedback/feedback.h"
#include "sandboxd/run/run_priv.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define GRACE_NS 1000000000ull /* WATCHDOG_GRACE_NS in feedback.c */
#define MARKER_FMT "\n... [%zu characters trimmed] ...\n"

/* ---------------------------------------------------------------- helpers */

static void quotes(char *s)
{
	for (; *s; s++)
		if (*s == '\'')
			*s = '"';
}

/* One result-channel line exactly as formatted (quotes converted), no key
 * added. */
__attribute__((format(printf, 3, 4))) static void raw_at(struct fb_run *f, uint64_t now,
							 const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	quotes(s);
	fb_on_record(f, s, strlen(s), now);
	free(s);
}

/* One record {"key": <the job's key>, <fields>} at time now. */
__attribute__((format(printf, 3, 4))) static void feed_at(struct fb_run *f, uint64_t now,
							  const char *fmt, ...)
{
	va_list ap;
	char *body, *line;
	va_start(ap, fmt);
	int n = vasprintf(&body, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	quotes(body);
	n = asprintf(&line, "{\"key\":\"%s\",%s}", f->key, body);
	ck_assert_int_ge(n, 0);
	fb_on_record(f, line, strlen(line), now);
	free(body);
	free(line);
}

#define feed(f, ...) feed_at(f, 0, __VA_ARGS__)
#define raw(f, ...) raw_at(f, 0, __VA_ARGS__)

static void compile_ok(struct fb_run *f)
{
	feed(f, "'type':'compile','ok':true,'errors':[],'feedback':''");
}

static void result(struct fb_run *f, const char *name, const char *outcome, const char *tb)
{
	feed(f,
	     "'type':'result','name':'%s','outcome':'%s','message':'msg of %s','traceback':'%s',"
	     "'duration_ms':7",
	     name, outcome, name, tb);
}

static void run_test(struct fb_run *f, const char *name, const char *outcome, const char *tb)
{
	feed(f, "'type':'start','name':'%s'", name);
	result(f, name, outcome, tb);
}

static int find(const struct fb_run *f, const char *name)
{
	for (size_t i = 0; i < f->ntests; i++)
		if (strcmp(f->tests[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int outcome_of(const struct fb_run *f, const char *name)
{
	int i = find(f, name);
	ck_assert_msg(i >= 0, "no test %s", name);
	return f->tests[i].outcome;
}

static const char *message_of(const struct fb_run *f, const char *name)
{
	int i = find(f, name);
	ck_assert_msg(i >= 0, "no test %s", name);
	return f->tests[i].message ? f->tests[i].message : "";
}

static enum proto_verdict finish(struct fb_run *f, enum proto_verdict run, bool watchdog, char *msg,
				 size_t msglen)
{
	msg[0] = '\0';
	return verdict_records(f, run, watchdog, msg, msglen);
}

static json_t *to_json(const struct fb_run *f, enum proto_coverage cov, long partial)
{
	struct proto_request req;
	memset(&req, 0, sizeof req);
	req.coverage = cov;
	req.partial_tests = partial;
	req.test_timeout_ms = -1;
	req.seed = -1;
	req.float_tolerance = -1;
	json_t *resp = json_object();
	fb_to_json(f, &req, resp);
	return resp;
}

static json_int_t summary(json_t *resp, const char *key)
{
	json_t *v = json_object_get(json_object_get(resp, R_SUMMARY), key);
	ck_assert_msg(json_is_integer(v), "summary.%s missing", key);
	return json_integer_value(v);
}

static json_int_t integrity(json_t *resp, const char *key)
{
	json_t *v = json_object_get(json_object_get(resp, R_INTEGRITY), key);
	ck_assert_msg(json_is_integer(v), "integrity.%s missing", key);
	return json_integer_value(v);
}

static const char *feedback(json_t *resp, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(resp, R_FEEDBACK), key));
	ck_assert_msg(s != NULL, "feedback.%s missing", key);
	return s;
}

static bool starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ends_with(const char *s, const char *p)
{
	size_t n = strlen(s), m = strlen(p);
	return n >= m && memcmp(s + n - m, p, m) == 0;
}

/* Plan [names...] after an ok compile. */
static void setup(struct fb_run *f, const char *plan)
{
	fb_init(f, KEY, 0);
	compile_ok(f);
	feed(f, "'type':'plan','tests':[%s]", plan);
	ck_assert(f->have_plan);
}

/* Decodes s as UTF-8 (strict: no overlongs, surrogates or truncation);
 * returns the number of code points, or -1. */
static long utf8_count(const unsigned char *s, size_t len)
{
	long n = 0;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		size_t k;
		unsigned cp;
		if (c < 0x80) {
			k = 0;
			cp = c;
		} else if (c >= 0xc2 && c < 0xe0) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c < 0xf0) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c < 0xf5) {
			k = 3;
			cp = c & 0x07;
		} else {
			return -1;
		}
		if (k && i + k >= len)
			return -1;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return -1;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return -1;
		i += k + 1;
		n++;
	}
	return n;
}

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
	ck_assert(starts_with(json_string_value(json_object_get(t0, T_TRACEBACK)), "Traceback"));
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

START_TEST(test_all_pass)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'test_b','test_a'");
	run_test(&f, "test_b", "passed", "");
	run_test(&f, "test_a", "passed", "");
	feed(&f, "'type':'note','text':'anything'");
	feed(&f, "'type':'done'");
	ck_assert_uint_eq(f.bad_records, 0);
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_PASS);
	ck_assert_str_eq(msg, "");
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "Passed all test runs");
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_PASSED), 2);
	ck_assert_int_eq(summary(resp, S_FAILED), 0);
	ck_assert_str_eq(feedback(resp, FB_EXECUTION), "Passed all test runs");
	json_decref(resp);
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

/* fb_to_json without a compile record puts a fresh empty array under
 * compile.errors: nothing else may hold a reference to it, or it leaks when
 * the response is freed. */
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

/* --------------------------------------------------------- module, harness */

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
		ck_assert_msg(starts_with(f.tests[i].message, "not run"), "message %s",
			      f.tests[i].message);
	}
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "Traceback (most recent call last):\n  File solution.py, line 1\n"
			       "NameError: name x is not defined");
	free(text);
	text = fb_execution_text(&f, COV_PARTIAL, 1);
	ck_assert(starts_with(text, "Traceback"));
	free(text);
	text = fb_execution_text(&f, COV_NONE, 3);
	ck_assert_str_eq(text, "");
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_ERRORS), 3);
	ck_assert_int_eq(summary(resp, S_TOTAL), 3);
	json_decref(resp);
	fb_free(&f);

	/* the run's verdict does not matter, and without a traceback the
	 * message is shown */
	setup(&f, "'t1'");
	feed(&f, "'type':'module_error','message':'SystemExit: 3'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_RUNTIME_ERROR);
	text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "SystemExit: 3");
	free(text);
	fb_free(&f);
}
END_TEST

START_TEST(test_harness_error)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1'");
	feed(&f, "'type':'harness_error','message':'cannot load the tests'");
	feed(&f, "'type':'harness_error','message':'second'");
	ck_assert_uint_eq(f.bad_records, 1);
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "cannot load the tests");
	fb_free(&f);

	/* it outranks a module error, but not a failed compile */
	setup(&f, "'t1'");
	feed(&f, "'type':'module_error','message':'m','traceback':'t'");
	feed(&f, "'type':'harness_error','message':'h'");
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "h");
	fb_free(&f);

	fb_init(&f, KEY, 0);
	feed(&f, "'type':'compile','ok':false,'errors':[],'feedback':'x'");
	feed(&f, "'type':'harness_error','message':'h'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_COMPILE_ERROR);
	fb_free(&f);
}
END_TEST

START_TEST(test_no_tests)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "");
	ck_assert_uint_eq(f.ntests, 0);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "no tests found");
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "");
	free(text);
	fb_free(&f);

	/* no plan at all */
	fb_init(&f, KEY, 0);
	compile_ok(&f);
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_ERROR);
	ck_assert_str_eq(msg, "no tests found");
	fb_free(&f);
}
END_TEST

/* ------------------------------------------------ crashes, limits, hangs */

START_TEST(test_crash_during_test)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2','t3'");
	run_test(&f, "t1", "passed", "");
	feed(&f, "'type':'start','name':'t2'");
	ck_assert_int_eq(f.running, 1);
	/* the process died: no result, no done */
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, false, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_PASSED);
	ck_assert_int_eq(outcome_of(&f, "t2"), OUT_ERROR);
	ck_assert_int_eq(outcome_of(&f, "t3"), OUT_ERROR);
	ck_assert(!starts_with(message_of(&f, "t2"), "not run"));
	ck_assert(starts_with(message_of(&f, "t3"), "not run"));
	ck_assert_int_eq(f.running, -1);
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_ptr_nonnull(strstr(text, "t2\n"));
	ck_assert_ptr_nonnull(strstr(text, "t3\nnot run"));
	ck_assert_ptr_null(strstr(text, "t1"));
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_PASSED), 1);
	ck_assert_int_eq(summary(resp, S_ERRORS), 2);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

START_TEST(test_job_limit)
{
	static const enum proto_verdict limits[] = {V_TIMEOUT, V_MEMORY_LIMIT, V_OUTPUT_LIMIT,
						    V_VIOLATION};
	for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
		struct fb_run f;
		char msg[256];
		setup(&f, "'t1','t2','t3'");
		run_test(&f, "t1", "passed", "");
		feed(&f, "'type':'start','name':'t2'");
		ck_assert_int_eq(finish(&f, limits[k], false, msg, sizeof msg), limits[k]);
		ck_assert_int_eq(outcome_of(&f, "t1"), OUT_PASSED);
		ck_assert_int_eq(outcome_of(&f, "t2"), OUT_TIMEOUT);
		ck_assert_int_eq(outcome_of(&f, "t3"), OUT_ERROR);
		ck_assert(starts_with(message_of(&f, "t3"), "not run"));
		ck_assert_ptr_nonnull(strstr(message_of(&f, "t3"), proto_verdict_name(limits[k])));
		json_t *resp = to_json(&f, COV_FULL, 3);
		ck_assert_int_eq(summary(resp, S_PASSED), 1);
		ck_assert_int_eq(summary(resp, S_TIMEOUTS), 1);
		ck_assert_int_eq(summary(resp, S_ERRORS), 1);
		json_decref(resp);
		fb_free(&f);
	}
	/* a job limit wins even when every test passed and done came */
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1'");
	run_test(&f, "t1", "passed", "");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_OUTPUT_LIMIT, false, msg, sizeof msg), V_OUTPUT_LIMIT);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_PASSED);
	fb_free(&f);
}
END_TEST

START_TEST(test_watchdog)
{
	struct fb_run f;
	char msg[256];
	fb_init(&f, KEY, 500);
	compile_ok(&f);
	feed(&f, "'type':'plan','tests':['t1','t2','t3']");
	run_test(&f, "t1", "passed", "");
	feed(&f, "'type':'start','name':'t2'");
	ck_assert_int_eq(finish(&f, V_RUNTIME_ERROR, true, msg, sizeof msg), V_FAIL);
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_PASSED);
	ck_assert_int_eq(outcome_of(&f, "t2"), OUT_TIMEOUT);
	ck_assert_int_eq(outcome_of(&f, "t3"), OUT_ERROR);
	ck_assert(starts_with(message_of(&f, "t3"), "not run"));
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_TIMEOUTS), 1);
	ck_assert_int_eq(summary(resp, S_ERRORS), 1);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

START_TEST(test_skipped)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2'");
	run_test(&f, "t1", "skipped", "");
	run_test(&f, "t2", "skipped", "");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_FAIL);
	ck_assert_str_eq(msg, "no test passed");
	fb_free(&f);

	setup(&f, "'t1','t2'");
	run_test(&f, "t1", "passed", "");
	run_test(&f, "t2", "skipped", "");
	feed(&f, "'type':'done'");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_PASS);
	char *text = fb_execution_text(&f, COV_FULL, 3);
	ck_assert_str_eq(text, "Passed all test runs");
	free(text);
	json_t *resp = to_json(&f, COV_FULL, 3);
	ck_assert_int_eq(summary(resp, S_SKIPPED), 1);
	ck_assert_int_eq(summary(resp, S_PASSED), 1);
	json_decref(resp);
	fb_free(&f);
}
END_TEST

START_TEST(test_no_done)
{
	struct fb_run f;
	char msg[256];
	setup(&f, "'t1','t2'");
	run_test(&f, "t1", "passed", "");
	run_test(&f, "t2", "passed", "");
	ck_assert_int_eq(finish(&f, V_PASS, false, msg, sizeof msg), V_RUNTIME_ERROR);
	ck_assert_str_eq(msg, "the process ended before the runner finished");
	ck_assert_int_eq(outcome_of(&f, "t1"), OUT_PASSED);
	ck_assert_int_eq(outcome_of(&f, "t2"), OUT_PASSED);
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

/* ------------------------------------------------------------------- trim */

/* Splits text_trim's output into head, marker count and tail. */
static void split_trimmed(const char *out, size_t *head, size_t *count, const char **tail)
{
	const char *m = strstr(out, "\n... [");
	ck_assert_ptr_nonnull(m);
	*head = (size_t)(m - out);
	ck_assert_int_eq(sscanf(m, "\n... [%zu characters trimmed] ...\n", count), 1);
	const char *e = strstr(m, "] ...\n");
	ck_assert_ptr_nonnull(e);
	*tail = e + strlen("] ...\n");
}

START_TEST(test_trim_short_unchanged)
{
	const char *cases[] = {"", "a", "hello world", "héllo €"};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = text_trim(cases[i], 100);
		ck_assert_ptr_nonnull(out);
		ck_assert_ptr_ne(out, cases[i]);
		ck_assert_str_eq(out, cases[i]);
		free(out);
	}
	/* exactly max bytes is not trimmed */
	char *out = text_trim("0123456789", 10);
	ck_assert_str_eq(out, "0123456789");
	free(out);
	out = text_trim("0123456789a", 10);
	ck_assert_ptr_nonnull(strstr(out, "characters trimmed"));
	free(out);
}
END_TEST

START_TEST(test_trim_ascii)
{
	size_t len = 1000, max = 100;
	char *s = malloc(len + 1);
	for (size_t i = 0; i < len; i++)
		s[i] = (char)('a' + i % 26);
	s[len] = '\0';
	char *out = text_trim(s, max);
	char marker[80];
	snprintf(marker, sizeof marker, MARKER_FMT, len - max);
	ck_assert_uint_eq(strlen(out), max + strlen(marker));
	ck_assert_ptr_nonnull(strstr(out, marker));
	ck_assert_ptr_nonnull(strstr(out, "[900 characters trimmed]"));
	size_t head, count;
	const char *tail;
	split_trimmed(out, &head, &count, &tail);
	ck_assert_uint_eq(head, 50);
	ck_assert_uint_eq(count, 900);
	ck_assert(memcmp(out, s, head) == 0);
	ck_assert_uint_eq(strlen(tail), 50);
	ck_assert_str_eq(tail, s + len - 50);
	free(out);

	/* odd max: the tail gets the extra byte */
	out = text_trim(s, 11);
	split_trimmed(out, &head, &count, &tail);
	ck_assert_uint_eq(head, 5);
	ck_assert_uint_eq(strlen(tail), 6);
	ck_assert_uint_eq(count, len - 11);
	ck_assert_str_eq(tail, s + len - 6);
	free(out);
	free(s);
}
END_TEST

START_TEST(test_trim_utf8_boundaries)
{
	/* 2-, 3- and 4-byte characters, alone and mixed with ASCII */
	const char *units[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
			       "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"};
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
		size_t ul = strlen(units[u]);
		size_t reps = 200 / ul + 1;
		char *s = malloc(reps * ul + 1);
		for (size_t i = 0; i < reps; i++)
			memcpy(s + i * ul, units[u], ul);
		s[reps * ul] = '\0';
		size_t len = strlen(s);
		for (size_t max = 0; max < 80; max++) {
			char *out = text_trim(s, max);
			ck_assert_ptr_nonnull(out);
			long n = utf8_count((const unsigned char *)out, strlen(out));
			ck_assert_msg(n >= 0, "unit %zu max %zu: invalid UTF-8", u, max);
			size_t head, count;
			const char *tail;
			split_trimmed(out, &head, &count, &tail);
			ck_assert_msg(head <= max / 2, "unit %zu max %zu: head %zu", u, max, head);
			ck_assert_msg(strlen(tail) <= max - max / 2, "unit %zu max %zu: tail %zu",
				      u, max, strlen(tail));
			ck_assert(memcmp(out, s, head) == 0);
			ck_assert_str_eq(tail, s + len - strlen(tail));
			/* never loses more than one character at each end */
			ck_assert_msg(head + 4 > max / 2, "unit %zu max %zu: head %zu", u, max,
				      head);
			ck_assert_msg(strlen(tail) + 4 > max - max / 2, "unit %zu max %zu", u, max);
			free(out);
		}
		free(s);
	}
}
END_TEST

/* The marker says "N characters trimmed": N should count characters, not
 * bytes, when the text is not ASCII. */
START_TEST(test_trim_marker_counts_characters)
{
	/* 300 x "é" (2 bytes each) */
	char s[601];
	for (int i = 0; i < 300; i++)
		memcpy(s + 2 * i, "\xc3\xa9", 2);
	s[600] = '\0';
	char *out = text_trim(s, 100);
	size_t head, count;
	const char *tail;
	split_trimmed(out, &head, &count, &tail);
	long kept = utf8_count((const unsigned char *)out, head) +
		    utf8_count((const unsigned char *)tail, strlen(tail));
	free(out);
	ck_assert_msg((long)count == 300 - kept,
		      "marker says %zu characters trimmed; %ld of 300 were removed", count,
		      300 - kept);
}
END_TEST

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
	ck_assert(starts_with(text, "first\nABC"));
	ck_assert(ends_with(text, tb + 1000));
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

static Suite *feedback_suite(void)
{
	Suite *s = suite_create("feedback");
	TCase *t = tcase_create("records");
	tcase_add_test(t, test_happy_path_unittest);
	tcase_add_test(t, test_all_pass);
	tcase_add_test(t, test_execution_text_several_failures);
	tcase_add_test(t, test_coverage);
	tcase_add_test(t, test_key_mismatch);
	tcase_add_test(t, test_key_mismatch_after_plan);
	tcase_add_test(t, test_malformed_records);
	tcase_add_test(t, test_first_compile_wins);
	tcase_add_test(t, test_first_plan_wins);
	tcase_add_test(t, test_plan_needs_ok_compile);
	tcase_add_test(t, test_bad_plans_rejected);
	tcase_add_test(t, test_unknown_name_ignored);
	tcase_add_test(t, test_start_and_result_need_plan);
	tcase_add_test(t, test_first_result_wins);
	tcase_add_test(t, test_results_in_any_order);
	tcase_add_test(t, test_records_after_done_ignored);
	tcase_add_test(t, test_extra_results);
	tcase_add_test(t, test_long_fields_trimmed);
	tcase_add_test(t, test_compile_error);
	tcase_add_test(t, test_compile_errors_bounded);
	tcase_add_test(t, test_init_and_free);
	suite_add_tcase(s, t);

	t = tcase_create("verdict");
	tcase_add_test(t, test_no_compile_record);
	tcase_add_test(t, test_to_json_without_compile_no_leak);
	tcase_add_test(t, test_module_error);
	tcase_add_test(t, test_harness_error);
	tcase_add_test(t, test_no_tests);
	tcase_add_test(t, test_crash_during_test);
	tcase_add_test(t, test_job_limit);
	tcase_add_test(t, test_watchdog);
	tcase_add_test(t, test_skipped);
	tcase_add_test(t, test_no_done);
	tcase_add_test(t, test_deadline);
	tcase_add_test(t, test_add_test_stdio);
	suite_add_tcase(s, t);

	t = tcase_create("text");
	tcase_add_test(t, test_trim_short_unchanged);
	tcase_add_test(t, test_trim_ascii);
	tcase_add_test(t, test_trim_utf8_boundaries);
	tcase_add_test(t, test_trim_marker_counts_characters);
	tcase_add_test(t, test_execution_text_trimmed);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(feedback_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
