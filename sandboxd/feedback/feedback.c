/* The runner shares a process with the candidate, so every record it sends
 * is checked as if the candidate wrote it: it must carry the job's key, the
 * plan (sent before any candidate code ran) fixes which tests exist, a test
 * reports at most once, and nothing after "done" counts. A test that never
 * reported is an error, never a pass. */
#include "sandboxd/feedback/feedback.h"

#include "common/records.h"
#include "common/clock.h"
#include "common/jsonmem.h"
#include "common/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCHDOG_GRACE_NS 1000000000u /* the runner's own alarm fires first */

/* The runner's caps (characters) are within the daemon's (bytes), so ASCII
 * text is never trimmed twice; an assert's name keeps room for " [n]". */
_Static_assert(REC_SEND_NAME_MAX + 16 <= REC_NAME_MAX, "runner name cap");
_Static_assert(REC_SEND_MESSAGE_MAX <= REC_MESSAGE_MAX, "runner message cap");
_Static_assert(REC_SEND_TRACEBACK_MAX <= REC_TRACEBACK_MAX, "runner traceback cap");
_Static_assert(REC_SEND_INTERNAL_MAX <= REC_MESSAGE_MAX, "runner internal error cap");

void fb_init(struct fb_run *f, const char *key, long test_timeout_ms)
{
	memset(f, 0, sizeof *f);
	snprintf(f->key, sizeof f->key, "%s", key ? key : "");
	f->test_timeout_ns = test_timeout_ms > 0 ? (uint64_t)test_timeout_ms * 1000000u : 0;
	f->running = -1;
}

static void free_test(struct fb_test *t)
{
	free(t->name);
	free(t->message);
	free(t->traceback);
	free(t->expected);
	free(t->actual);
}

void fb_free(struct fb_run *f)
{
	for (size_t i = 0; i < f->ntests; i++)
		free_test(&f->tests[i]);
	free(f->tests);
	free(f->order);
	json_decref(f->compile_errors);
	free(f->compile_feedback);
	free(f->module_message);
	free(f->module_traceback);
	free(f->harness_error);
	memset(f, 0, sizeof *f);
}

static char *str_field(json_t *o, const char *key, size_t max)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return strdup("");
	return text_trim(json_string_value(v), max);
}

/* The planned test of that name, or -1. Records come in plan order, so
 * the hint answers most; the rest take a binary search of the sorted
 * names (a scan of a 10,000-test plan for each of a flood of records
 * naming no test cost the daemon seconds). */
static int find_test(struct fb_run *f, const char *name)
{
	if (f->hint < f->ntests && strcmp(f->tests[f->hint].name, name) == 0)
		return (int)f->hint++;
	size_t lo = 0, hi = f->order ? f->ntests : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, f->tests[f->order[mid]].name);
		if (c == 0) {
			f->hint = f->order[mid] + 1;
			return (int)f->order[mid];
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int cmp_by_name(const void *a, const void *b, void *tests)
{
	const struct fb_test *t = tests;
	return strcmp(t[*(const size_t *)a].name, t[*(const size_t *)b].name);
}

/* The plan's names sorted, for find_test and for telling that they are
 * unique (sorted once, so 10,000 are cheap); false when two are the same
 * or out of memory. */
static bool index_plan(struct fb_run *f)
{
	free(f->order);
	f->order = malloc((f->ntests ? f->ntests : 1) * sizeof *f->order);
	if (!f->order)
		return false;
	for (size_t i = 0; i < f->ntests; i++)
		f->order[i] = i;
	qsort_r(f->order, f->ntests, sizeof *f->order, cmp_by_name, f->tests);
	for (size_t i = 1; i < f->ntests; i++)
		if (cmp_by_name(&f->order[i - 1], &f->order[i], f->tests) == 0)
			return false;
	return true;
}

int fb_add_test(struct fb_run *f, const char *name, enum proto_outcome o, const char *message,
		const char *traceback, long duration_ms)
{
	struct fb_test *nt = realloc(f->tests, (f->ntests + 1) * sizeof *nt);
	if (!nt)
		return -1;
	f->tests = nt;
	struct fb_test t = {
	    .name = strdup(name),
	    .outcome = (int)o,
	    .started = (int)o >= 0,
	    .message = message ? strdup(message) : NULL,
	    .traceback = traceback ? strdup(traceback) : NULL,
	    .duration_ms = duration_ms,
	};
	/* All or nothing: a copy that failed frees the ones that did not. */
	if (!t.name || (message && !t.message) || (traceback && !t.traceback)) {
		free_test(&t);
		return -1;
	}
	f->tests[f->ntests++] = t;
	f->have_plan = true;
	return 0;
}

/* Forgets every test from the n-th on (a plan that could not be stored
 * whole is not stored at all). */
static void drop_tests(struct fb_run *f, size_t n)
{
	while (f->ntests > n)
		free_test(&f->tests[--f->ntests]);
	f->have_plan = f->ntests > 0;
	free(f->order);
	f->order = NULL;
}

/* Names must be non-empty strings, bounded, without NUL (and unique:
 * index_plan). */
static bool plan_names_ok(json_t *tests)
{
	size_t i;
	json_t *v;
	json_array_foreach(tests, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    json_string_length(v) > REC_NAME_MAX ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return false;
	}
	return true;
}

/* The plan's "partial": planned names only, no more of them than tests
 * (names repeat at most as often as the plan has tests). */
static bool mark_partial(struct fb_run *f, json_t *partial)
{
	size_t i;
	json_t *v;
	if (!json_is_array(partial) || json_array_size(partial) > f->ntests)
		return false;
	json_array_foreach(partial, i, v)
	{
		int k = json_is_string(v) ? find_test(f, json_string_value(v)) : -1;
		if (k < 0)
			return false;
		f->tests[k].partial = true;
	}
	f->have_partial = true;
	return true;
}

static bool on_plan(struct fb_run *f, json_t *o)
{
	json_t *tests = json_object_get(o, REC_F_TESTS), *v;
	size_t i, n0 = f->ntests;
	/* Only the first plan record after the compile record counts, valid or
	 * not: the runner sends it before any candidate code runs; anything
	 * later may be forged. */
	bool first = !f->plan_seen;
	if (f->have_compile)
		f->plan_seen = true;
	if (!first || f->have_plan || !f->have_compile || !f->compile_ok || !json_is_array(tests) ||
	    json_array_size(tests) > REC_PLAN_MAX || !plan_names_ok(tests))
		return false;
	json_array_foreach(tests, i, v)
	{
		if (fb_add_test(f, json_string_value(v), (enum proto_outcome) - 1, NULL, NULL, 0) <
		    0) {
			drop_tests(f, n0);
			return false;
		}
		f->tests[f->ntests - 1].outcome = -1;
		f->tests[f->ntests - 1].started = false;
	}
	if (!index_plan(f) ||
	    (f->want_partial && !mark_partial(f, json_object_get(o, REC_F_PARTIAL)))) {
		drop_tests(f, n0);
		return false;
	}
	f->have_plan = true;
	return true;
}

static bool on_compile(struct fb_run *f, json_t *o)
{
	json_t *ok = json_object_get(o, REC_F_OK), *errs = json_object_get(o, REC_F_ERRORS), *e;
	size_t i;
	bool first = !f->compile_seen;
	f->compile_seen = true;
	if (!first || !json_is_boolean(ok))
		return false;
	f->have_compile = true;
	f->compile_ok = json_is_true(ok);
	f->compile_feedback = str_field(o, REC_F_FEEDBACK, REC_TRACEBACK_MAX);
	f->compile_errors = json_array();
	/* Rebuilt field by field: only known keys and types reach the client. */
	json_array_foreach(errs, i, e)
	{
		if (i >= REC_ERRORS_MAX || !json_is_object(e))
			break;
		json_t *line = json_object_get(e, REC_E_LINE),
		       *col = json_object_get(e, REC_E_COLUMN);
		char *type = str_field(e, REC_E_TYPE, REC_ERROR_TYPE_MAX),
		     *msg = str_field(e, REC_E_MESSAGE, REC_MESSAGE_MAX);
		json_t *text = json_object_get(e, REC_E_TEXT);
		size_t text_len = json_is_string(text) ? strlen(json_string_value(text)) : 0;
		json_array_append_new(
		    f->compile_errors,
		    json_pack(
			"{s:s,s:s,s:o,s:o,s:o}", C_TYPE, type ? type : "", T_MESSAGE,
			msg ? msg : "", C_LINE,
			json_is_integer(line) ? json_integer(json_integer_value(line))
					      : json_null(),
			C_COLUMN,
			json_is_integer(col) ? json_integer(json_integer_value(col)) : json_null(),
			C_TEXT,
			json_is_string(text)
			    ? proto_json_bytes(json_string_value(text),
					       text_len > REC_ERROR_TEXT_MAX ? REC_ERROR_TEXT_MAX
									     : text_len)
			    : json_null()));
		free(type);
		free(msg);
	}
	return true;
}

static bool on_start(struct fb_run *f, json_t *o, uint64_t now)
{
	const char *name = json_string_value(json_object_get(o, REC_F_NAME));
	int i = name && f->have_plan ? find_test(f, name) : -1;
	if (i < 0 || f->tests[i].started)
		return false;
	f->tests[i].started = true;
	f->tests[i].started_ns = now;
	f->running = i;
	return true;
}

static bool on_result(struct fb_run *f, json_t *o)
{
	if (json_is_true(json_object_get(o, REC_F_EXTRA))) {
		f->extra_tests++;
		return true;
	}
	const char *name = json_string_value(json_object_get(o, REC_F_NAME));
	const char *oc = json_string_value(json_object_get(o, REC_F_OUTCOME));
	json_t *dur = json_object_get(o, REC_F_DURATION_MS);
	int i = name && f->have_plan ? find_test(f, name) : -1;
	int outcome = oc ? proto_outcome_parse(oc) : -1;
	/* First result wins: a forged result sent later changes nothing. A pass
	 * for a test that never started is refused (a failure is believed). */
	if (i < 0 || outcome < 0 || f->tests[i].outcome >= 0)
		return false;
	if (!f->tests[i].started && (outcome == OUT_PASSED || outcome == OUT_SKIPPED))
		return false;
	struct fb_test *t = &f->tests[i];
	t->started = true;
	t->outcome = outcome;
	free(t->message);
	free(t->traceback);
	t->message = str_field(o, REC_F_MESSAGE, REC_MESSAGE_MAX);
	t->traceback = str_field(o, REC_F_TRACEBACK, REC_TRACEBACK_MAX);
	t->duration_ms = json_is_integer(dur) && json_integer_value(dur) >= 0
			     ? (long)json_integer_value(dur)
			     : 0;
	if (f->running == i)
		f->running = -1;
	return true;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) < 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static bool parse_spent(const struct fb_run *f)
{
	return f->parse_ns >= (uint64_t)REC_PARSE_CPU_MS * 1000000u;
}

void fb_on_record(void *ctx, const char *line, size_t len, uint64_t now_ns)
{
	struct fb_run *f = ctx;
	json_error_t je;
	/* What the job makes this thread spend is bounded: a line without
	 * the key's text cannot be a record and is not parsed (the candidate
	 * can write the channel, not read the key), and past REC_PARSE_CPU_MS
	 * of parsing a run's lines, none is. */
	bool parse =
	    line && !f->done && memmem(line, len, f->key, strlen(f->key)) && !parse_spent(f);
	uint64_t t0 = parse ? thread_cpu_ns() : 0;
	size_t budget = jsonmem_budget(len);
	json_t *o =
	    parse ? jsonmem_loadb(line, len, JSON_REJECT_DUPLICATES, &budget, &je, NULL) : NULL;
	const char *key = json_string_value(json_object_get(o, REC_F_KEY));
	const char *type = json_string_value(json_object_get(o, REC_F_TYPE));
	bool ok = false;
	if (o && key && type && strcmp(key, f->key) == 0) {
		if (strcmp(type, REC_COMPILE) == 0)
			ok = on_compile(f, o);
		else if (strcmp(type, REC_PLAN) == 0)
			ok = on_plan(f, o);
		else if (strcmp(type, REC_START) == 0)
			ok = on_start(f, o, now_ns);
		else if (strcmp(type, REC_RESULT) == 0)
			ok = on_result(f, o);
		else if (strcmp(type, REC_MODULE_ERROR) == 0 && !f->module_error) {
			f->module_error = ok = true;
			f->module_message = str_field(o, REC_F_MESSAGE, REC_MESSAGE_MAX);
			f->module_traceback = str_field(o, REC_F_TRACEBACK, REC_TRACEBACK_MAX);
		} else if (strcmp(type, REC_HARNESS_ERROR) == 0 && !f->harness_error) {
			f->harness_error = str_field(o, REC_F_MESSAGE, REC_MESSAGE_MAX);
			ok = true;
		} else if (strcmp(type, REC_NOTE) == 0) {
			ok = true;
		} else if (strcmp(type, REC_DONE) == 0) {
			f->done = ok = true;
		}
	}
	if (!ok)
		f->bad_records++;
	uint64_t *at = !ok				? NULL
		       : strcmp(type, REC_COMPILE) == 0 ? &f->compile_ns
		       : strcmp(type, REC_START) == 0	? &f->first_start_ns
		       : strcmp(type, REC_DONE) == 0	? &f->done_ns
							: NULL;
	if (at && !*at)
		*at = now_ns;
	json_decref(o);
	if (parse)
		f->parse_ns += thread_cpu_ns() - t0;
}

uint64_t fb_deadline(void *ctx)
{
	const struct fb_run *f = ctx;
	if (!f->test_timeout_ns || f->running < 0)
		return 0;
	return f->tests[f->running].started_ns + f->test_timeout_ns + WATCHDOG_GRACE_NS;
}

static void set_outcome(struct fb_test *t, enum proto_outcome o, const char *message)
{
	t->outcome = (int)o;
	free(t->message);
	free(t->traceback);
	t->message = strdup(message);
	t->traceback = strdup("");
}

/* Every test without a result gets one: `running` (started, no result) and
 * `not_run` (never started) say why. */
static void settle(struct fb_run *f, enum proto_outcome running_o, const char *running,
		   const char *not_run)
{
	uint64_t now = clock_mono_ns();
	for (size_t i = 0; i < f->ntests; i++) {
		struct fb_test *t = &f->tests[i];
		if (t->outcome >= 0)
			continue;
		if (t->started) {
			set_outcome(t, running_o, running);
			/* It ran until the job was stopped: say for how long. */
			if (t->started_ns && now > t->started_ns)
				t->duration_ms = (long)((now - t->started_ns) / 1000000u);
		} else {
			set_outcome(t, OUT_ERROR, not_run);
		}
	}
	f->running = -1;
}

enum fb_state fb_settle(struct fb_run *f, enum proto_verdict run_verdict, bool watchdog)
{
	char why[160];
	switch (run_verdict) {
	case V_TIMEOUT:
	case V_MEMORY_LIMIT:
	case V_OUTPUT_LIMIT:
	case V_VIOLATION:
		/* A job limit ended everything: finished tests keep their outcomes. */
		snprintf(why, sizeof why, "not run: the job stopped (%s)",
			 proto_verdict_name(run_verdict));
		settle(f, OUT_TIMEOUT, "the job's limit fired while this test ran", why);
		return FB_JOB_LIMIT;
	default:
		break;
	}
	if (!f->have_compile)
		return FB_NOTHING;
	if (!f->compile_ok)
		return FB_COMPILE_ERROR;
	if (f->harness_error)
		return FB_HARNESS_ERROR;
	if (f->module_error) {
		settle(f, OUT_ERROR, "not run: the module failed", "not run: the module failed");
		return FB_MODULE_ERROR;
	}
	if (!f->have_plan || f->ntests == 0)
		return FB_NO_TESTS;
	if (watchdog) {
		settle(f, OUT_TIMEOUT, "the test ran past test_timeout_ms and was stopped",
		       "not run: a test before it hung");
		return FB_WATCHDOG;
	}
	/* Records the daemon stopped reading (a run that flooded its own
	 * channel with keyed records) are not evidence that the process ended:
	 * say which of the two it was. */
	if (parse_spent(f))
		settle(f, OUT_ERROR, FB_UNREAD_RUNNING, FB_UNREAD_NOT_RUN);
	else
		settle(f, OUT_ERROR, "the test ended the process without reporting a result",
		       "not run: the process ended before this test");
	size_t passed = 0, bad = 0;
	for (size_t i = 0; i < f->ntests; i++) {
		passed += f->tests[i].outcome == OUT_PASSED;
		bad += f->tests[i].outcome == OUT_FAILED || f->tests[i].outcome == OUT_ERROR ||
		       f->tests[i].outcome == OUT_TIMEOUT;
	}
	if (bad)
		return FB_SOME_BAD;
	if (!passed)
		return FB_NONE_PASSED;
	return f->done ? FB_ALL_PASSED : FB_UNFINISHED;
}

void fb_to_json(const struct fb_run *f, const struct proto_request *req, json_t *resp)
{
	size_t count[OUT_COUNT] = {0};
	json_t *tests = json_array();
	for (size_t i = 0; i < f->ntests; i++) {
		const struct fb_test *t = &f->tests[i];
		int o = t->outcome >= 0 ? t->outcome : OUT_ERROR;
		count[o]++;
		const char *m = t->message ? t->message : "",
			   *tb = t->traceback ? t->traceback : "";
		json_t *tj = json_pack(
		    "{s:o,s:s,s:o,s:o,s:I}", T_NAME, proto_json_bytes(t->name, strlen(t->name)),
		    T_OUTCOME, proto_outcome_name(o), T_MESSAGE, proto_json_bytes(m, strlen(m)),
		    T_TRACEBACK, proto_json_bytes(tb, strlen(tb)), T_DURATION_MS,
		    (json_int_t)t->duration_ms);
		if (tj && t->has_io)
			fb_io_json(t, tj);
		json_array_append_new(tests, tj);
	}
	json_object_set_new(
	    resp, R_COMPILE,
	    json_pack("{s:b,s:o}", C_OK, f->have_compile && f->compile_ok, C_ERRORS,
		      f->compile_errors ? json_incref(f->compile_errors) : json_array()));
	json_object_set_new(resp, R_TESTS, tests);
	json_object_set_new(
	    resp, R_SUMMARY,
	    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", S_TOTAL, (json_int_t)f->ntests, S_PASSED,
		      (json_int_t)count[OUT_PASSED], S_FAILED, (json_int_t)count[OUT_FAILED],
		      S_ERRORS, (json_int_t)count[OUT_ERROR], S_TIMEOUTS,
		      (json_int_t)count[OUT_TIMEOUT], S_SKIPPED, (json_int_t)count[OUT_SKIPPED]));
	const char *comp = !f->have_compile ? ""
			   : f->compile_ok  ? REC_NO_SYNTAX_ERRORS
					    : (f->compile_feedback ? f->compile_feedback : "");
	char *exec = fb_execution_text(f, req->coverage, req->partial_tests);
	json_object_set_new(resp, R_FEEDBACK,
			    json_pack("{s:o,s:o}", FB_COMPILATION,
				      proto_json_bytes(comp, strlen(comp)), FB_EXECUTION,
				      proto_json_bytes(exec ? exec : "", exec ? strlen(exec) : 0)));
	free(exec);
	json_object_set_new(resp, R_INTEGRITY,
			    json_pack("{s:I,s:I}", I_BAD_RECORDS, (json_int_t)f->bad_records,
				      I_EXTRA_TESTS, (json_int_t)f->extra_tests));
}
