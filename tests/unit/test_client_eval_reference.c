/* Unit tests for reference.c: the missing module a ModuleNotFoundError
 * names (wherever the daemon's answer reports it), the reason of each kind
 * of failure, which records count as broken, reuse of reference.jsonl only
 * for records made the same way, and the summary's list of excluded tasks. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/eval/reference.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"

START_TEST(test_missing_module)
{
	char *m = reference_missing_module("Traceback ...\nModuleNotFoundError: No module "
					   "named 'django'\n");
	ck_assert_str_eq(m, "django");
	free(m);
	m = reference_missing_module("ImportError: No module named \"tensorflow.keras\"");
	ck_assert_str_eq(m, "tensorflow.keras");
	free(m);
	/* Not a module name: unterminated, empty, none at all. */
	ck_assert_ptr_null(reference_missing_module("No module named 'django"));
	ck_assert_ptr_null(reference_missing_module("No module named ''"));
	ck_assert_ptr_null(reference_missing_module("ValueError: bad"));
	ck_assert_ptr_null(reference_missing_module(NULL));
}
END_TEST

static struct ds_task task(const char *id, char *ref)
{
	return (struct ds_task){.id = (char *)id, .reference = ref};
}

static json_t *key(const char *sha)
{
	json_t *lim = json_pack("{s:i}", "cpu_ms", 240000);
	json_t *ping = json_pack("{s:s}", "version", "0.1.0");
	json_t *k = reference_key(sha, DS_BIGCODEBENCH, lim, 42, true, ping);
	ck_assert_ptr_nonnull(k);
	json_decref(lim);
	json_decref(ping);
	return k;
}

static json_t *record(const char *id, const char *resp_text)
{
	struct ds_task t = task(id, "x = 1");
	json_t *resp = resp_text ? json_loads(resp_text, 0, NULL) : NULL;
	ck_assert(!resp_text || resp);
	json_t *k = key("ab");
	json_t *r = reference_record(&t, resp, k, "2026-01-01T00:00:00Z");
	ck_assert_ptr_nonnull(r);
	json_decref(resp);
	json_decref(k);
	return r;
}

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

START_TEST(test_records_and_reasons)
{
	/* An import at module level: the runner reports it in the feedback. */
	json_t *r = record(
	    "t/django", "{\"verdict\": \"runtime_error\", \"summary\": {\"total\": 3, \"passed\": "
			"0}, \"feedback\": {\"compilation\": \"\", \"execution\": \"Traceback "
			"(most recent call last):\\nModuleNotFoundError: No module named "
			"'django'\"}, \"usage\": {\"cpu_ms\": 30}}");
	ck_assert_str_eq(sget(r, "verdict"), "runtime_error");
	ck_assert_str_eq(sget(r, "missing_module"), "django");
	ck_assert_ptr_nonnull(strstr(sget(r, "reason"), "missing module django"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "usage"), "cpu_ms")),
			 30);
	ck_assert(reference_broken(r));
	json_decref(r);
	/* In one test's traceback only. */
	r = record("t/faker",
		   "{\"verdict\": \"fail\", \"tests\": [{\"name\": \"test_a\", "
		   "\"outcome\": \"passed\"}, {\"name\": \"test_b\", \"outcome\": "
		   "\"error\", \"message\": \"x\", \"traceback\": \"ModuleNotFoundError: "
		   "No module named 'faker'\"}]}");
	ck_assert_str_eq(sget(r, "missing_module"), "faker");
	json_decref(r);
	/* A limit: named with its value and the flag that raises it. */
	r = record("t/slow", "{\"verdict\": \"timeout\", \"limit_hit\": \"cpu\", \"limits\": "
			     "{\"cpu_ms\": 240000, \"memory_mb\": 512}}");
	ck_assert_ptr_nonnull(
	    strstr(sget(r, "reason"), "cpu limit hit (240000 ms; raise it with --cpu)"));
	ck_assert_ptr_nonnull(strstr(sget(r, "reason"), "--cpu"));
	ck_assert(json_is_null(json_object_get(r, "missing_module")));
	json_decref(r);
	r = record("t/big", "{\"verdict\": \"memory_limit\", \"limits\": {\"memory_mb\": 512}}");
	ck_assert_ptr_nonnull(strstr(sget(r, "reason"), "memory limit hit (512 MB"));
	json_decref(r);
	/* Asked for 240 s, clamped by the profile to 100 s: no flag helps. */
	r = record("t/max", "{\"verdict\": \"timeout\", \"limit_hit\": \"cpu\", \"limits\": "
			    "{\"cpu_ms\": 100000}}");
	ck_assert_msg(strstr(sget(r, "reason"), "profile's maximum, clamped from 240000") &&
			  !strstr(sget(r, "reason"), "--cpu"),
		      "%s", sget(r, "reason"));
	json_decref(r);
	/* A failing test: its name and the first line of its message. */
	r = record("t/wrong", "{\"verdict\": \"fail\", \"tests\": [{\"name\": \"test_x\", "
			      "\"outcome\": \"failed\", \"message\": \"1 != 2\\nmore\"}]}");
	ck_assert_str_eq(sget(r, "reason"), "test_x failed: 1 != 2");
	json_decref(r);
	/* The daemon refused the request: broken, with its message. */
	r = record("t/refused",
		   "{\"error\": {\"code\": \"bad_request\", \"message\": \"tests too large\"}}");
	ck_assert_str_eq(sget(r, "verdict"), REF_ERROR);
	ck_assert_ptr_nonnull(strstr(sget(r, "reason"), "tests too large"));
	ck_assert(reference_broken(r));
	json_decref(r);
	/* A pass has no reason; no reference cannot be checked and is kept. */
	r = record("t/ok", "{\"verdict\": \"pass\", \"summary\": {\"total\": 2, \"passed\": 2}}");
	ck_assert(json_is_null(json_object_get(r, "reason")));
	ck_assert(!reference_broken(r));
	json_decref(r);
	r = record("t/none", NULL);
	ck_assert_str_eq(sget(r, "verdict"), REF_NONE);
	ck_assert(!reference_broken(r));
	json_decref(r);
}
END_TEST

/* Records made another way (another data set hash here) are not reused;
 * a torn line is ignored; a later line for a task wins. */
START_TEST(test_load_reuses_only_matching)
{
	char dir[] = "/tmp/sbx-ref-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/reference.jsonl", dir);
	json_t *a = record("t/a", "{\"verdict\": \"fail\"}");
	json_t *a2 = record("t/a", "{\"verdict\": \"pass\"}");
	json_t *b = record("t/b", "{\"verdict\": \"pass\"}");
	json_t *other = key("cd");
	json_object_set_new(b, "check", other);
	char *sa = json_dumps(a, JSON_COMPACT), *sa2 = json_dumps(a2, JSON_COMPACT),
	     *sb = json_dumps(b, JSON_COMPACT);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n%s\n%s\n{\"task_id\": \"t/c\", \"verd", sa, sb, sa2);
	fclose(f);
	json_t *k = key("ab");
	size_t stale = 0;
	char err[256];
	json_t *byid = reference_load(path, k, NULL, &stale, err, sizeof err);
	ck_assert_ptr_nonnull(byid);
	ck_assert_uint_eq(stale, 1);
	ck_assert_uint_eq(json_object_size(byid), 1);
	ck_assert_str_eq(sget(json_object_get(byid, "t/a"), "verdict"), "pass");
	/* Rewritten, the file holds exactly those. */
	ck_assert_int_eq(reference_rewrite(path, byid, err, sizeof err), 0);
	json_t *again = reference_load(path, k, NULL, &stale, err, sizeof err);
	ck_assert_uint_eq(stale, 0);
	ck_assert(json_equal(again, byid));
	json_decref(again);
	json_decref(byid);
	/* No file: nothing to reuse. */
	unlink(path);
	byid = reference_load(path, k, NULL, &stale, err, sizeof err);
	ck_assert_uint_eq(json_object_size(byid), 0);
	json_decref(byid);
	rmdir(dir);
	free(sa);
	free(sa2);
	free(sb);
	json_decref(k);
	json_decref(a);
	json_decref(a2);
	json_decref(b);
}
END_TEST

START_TEST(test_summary_lists_excluded)
{
	json_t *byid = json_object();
	json_object_set_new(byid, "t/ok", record("t/ok", "{\"verdict\": \"pass\"}"));
	json_object_set_new(byid, "t/django",
			    record("t/django", "{\"verdict\": \"runtime_error\", \"stderr\": "
					       "\"No module named 'django'\"}"));
	json_object_set_new(byid, "t/none", record("t/none", NULL));
	const char *ids[] = {"t/ok", "t/django", "t/none"};
	json_t *s = reference_summary(byid, ids, 3, false);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "checked")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "broken")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "unchecked")), 1);
	const json_t *ex = json_object_get(s, "excluded");
	ck_assert_uint_eq(json_array_size(ex), 1);
	ck_assert_str_eq(sget(json_array_get(ex, 0), "task_id"), "t/django");
	ck_assert_ptr_nonnull(strstr(sget(json_array_get(ex, 0), "reason"), "django"));
	ck_assert_ptr_null(json_object_get(s, "kept"));
	/* Printed: the count scored and each excluded task with its reason. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	reference_print(s, 2, f);
	fclose(f);
	ck_assert_msg(strstr(buf, "Tasks scored: 2") && strstr(buf, "excluded t/django: missing "
								    "module django"),
		      "%s", buf);
	free(buf);
	json_decref(s);
	/* --keep-broken: listed as kept. */
	s = reference_summary(byid, ids, 3, true);
	ck_assert_uint_eq(json_array_size(json_object_get(s, "kept")), 1);
	ck_assert_ptr_null(json_object_get(s, "excluded"));
	json_decref(s);
	/* Without a check the count is still printed. */
	f = open_memstream(&buf, &len);
	reference_print(NULL, 8, f);
	fclose(f);
	ck_assert_msg(strstr(buf, "Tasks scored: 8 (reference solutions not checked"), "%s", buf);
	free(buf);
	json_decref(byid);
}
END_TEST

static Suite *reference_suite(void)
{
	Suite *s = suite_create("reference");
	TCase *t = tcase_create("reference");
	tcase_add_test(t, test_missing_module);
	tcase_add_test(t, test_records_and_reasons);
	tcase_add_test(t, test_load_reuses_only_matching);
	tcase_add_test(t, test_summary_lists_excluded);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(reference_suite, NULL);
}
