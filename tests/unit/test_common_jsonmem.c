/* Unit tests for common/jsonmem.c: what honest requests look like parses
 * within the budget (a long string, thousands of tests, a request of every
 * field), what amplifies is refused early, a budget is shared and left with
 * what a parse did not use, and the budget of one thread is its own. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonmem.h"
#include "tests/helpers/tmain.h"

/* "prefix" + n copies of unit + "suffix", NUL-terminated. */
static char *repeat(const char *prefix, const char *unit, size_t n, const char *suffix, size_t *len)
{
	size_t p = strlen(prefix), u = strlen(unit), s = strlen(suffix);
	char *b = malloc(p + u * n + s + 1);
	ck_assert_ptr_nonnull(b);
	memcpy(b, prefix, p);
	for (size_t i = 0; i < n; i++)
		memcpy(b + p + i * u, unit, u);
	memcpy(b + p + u * n, suffix, s + 1);
	*len = p + u * n + s;
	return b;
}

static json_t *load(const char *b, size_t len, bool *over)
{
	json_error_t je;
	size_t budget = jsonmem_budget(len);
	return jsonmem_loadb(b, len, 0, &budget, &je, over);
}

START_TEST(test_long_string_fits)
{
	size_t len;
	char *b = repeat("{\"code\": \"", "x", 12u << 20, "\"}", &len);
	bool over = true;
	json_t *v = load(b, len, &over);
	ck_assert_ptr_nonnull(v);
	ck_assert(!over);
	ck_assert_uint_eq(json_string_length(json_object_get(v, "code")), 12u << 20);
	json_decref(v);
	free(b);
}
END_TEST

START_TEST(test_many_tests_fit)
{
	/* 20,000 asserts of about 40 bytes, 100,000 one-letter strings, and
	 * 20,000 stdio cases. */
	size_t len;
	char *b = repeat("{\"tests\": [", "\"assert candidate(1, 2) == [3, 4, 5]\",", 20000,
			 "\"pass\"]}", &len);
	bool over = true;
	json_t *v = load(b, len, &over);
	ck_assert_msg(v && !over, "20,000 tests refused");
	ck_assert_uint_eq(json_array_size(json_object_get(v, "tests")), 20001);
	json_decref(v);
	free(b);
	b = repeat("[", "\"a\",", 100000, "\"b\"]", &len);
	v = load(b, len, &over);
	ck_assert_msg(v && !over, "100,000 short strings refused");
	json_decref(v);
	free(b);
	b = repeat("[", "{\"input\": \"1 2\\n\", \"output\": \"3\\n\"},", 20000,
		   "{\"input\": \"\", \"output\": \"\"}]", &len);
	v = load(b, len, &over);
	ck_assert_msg(v && !over, "20,000 stdio cases refused");
	ck_assert_uint_eq(json_array_size(v), 20001);
	json_decref(v);
	free(b);
}
END_TEST

START_TEST(test_amplification_refused)
{
	/* Empty objects: about 60 bytes of jansson's per 3 bytes of text. */
	size_t len;
	char *b = repeat("{\"id\": \"x\", \"junk\": [", "{},", 1u << 20, "{}]}", &len);
	bool over = false;
	json_error_t je;
	size_t budget = jsonmem_budget(len);
	json_t *v = jsonmem_loadb(b, len, 0, &budget, &je, &over);
	ck_assert_ptr_null(v);
	ck_assert(over);
	ck_assert_msg(strstr(je.text, "bytes of memory a byte"), "error text: %s", je.text);
	/* Control: the same text parses without a budget. */
	v = json_loadb(b, len, 0, &je);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(json_array_size(json_object_get(v, "junk")), (1u << 20) + 1);
	json_decref(v);
	free(b);
}
END_TEST

START_TEST(test_budget_shared)
{
	json_error_t je;
	bool over = true;
	size_t budget = 1u << 20;
	const char *text = "[\"abc\", {\"k\": 1}]";
	json_t *v = jsonmem_loadb(text, strlen(text), 0, &budget, &je, &over);
	ck_assert_ptr_nonnull(v);
	ck_assert(!over);
	ck_assert_uint_lt(budget, 1u << 20);
	json_decref(v);
	size_t left = 10;
	v = jsonmem_loadb("{\"k\": 1}", 8, 0, &left, &je, &over);
	ck_assert_ptr_null(v);
	ck_assert(over);
	ck_assert_uint_eq(jsonmem_budget(SIZE_MAX / 2), SIZE_MAX);
}
END_TEST

static void *parse_unbudgeted(void *arg)
{
	(void)arg;
	json_error_t je;
	return json_loads("{\"a\": [1, 2, 3], \"b\": \"text\"}", 0, &je);
}

START_TEST(test_budget_per_thread)
{
	/* A budget that allows nothing, set on this thread, leaves another
	 * thread's parse alone (it holds none while this one's is set). */
	jsonmem_init();
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, parse_unbudgeted, NULL), 0);
	json_error_t je;
	bool over = false;
	size_t none = 0;
	ck_assert_ptr_null(jsonmem_loadb("[1]", 3, 0, &none, &je, &over));
	ck_assert(over);
	void *v = NULL;
	ck_assert_int_eq(pthread_join(th, &v), 0);
	ck_assert_ptr_nonnull(v);
	json_decref(v);
}
END_TEST

static Suite *jsonmem_suite(void)
{
	Suite *s = suite_create("common_jsonmem");
	TCase *t = tcase_create("jsonmem");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_long_string_fits);
	tcase_add_test(t, test_many_tests_fit);
	tcase_add_test(t, test_amplification_refused);
	tcase_add_test(t, test_budget_shared);
	tcase_add_test(t, test_budget_per_thread);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(jsonmem_suite, NULL);
}
