/* Unit tests for feedback_io.c: a stdio test's expected and actual output
 * as data in the response (docs/protocol.md, `expected`, `actual`): each at
 * most PROTO_STDIO_TEXT_MAX bytes cut on a character boundary with its
 * *_truncated flag, null for a case that did not run, all of them within
 * the response's share (io_left), and no such field on other tests. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "tests/helpers/fbrun.h"
#include "tests/helpers/tmain.h"

static json_t *test_json(json_t *resp, size_t i)
{
	return json_array_get(json_object_get(resp, R_TESTS), i);
}

static void setup_cases(struct fb_run *f, size_t n, size_t io_left)
{
	fb_init(f, KEY, 0);
	compile_ok(f);
	f->io_left = io_left;
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "case %zu", i + 1);
		ck_assert_int_eq(fb_add_test(f, name, OUT_PASSED, "", "", 1), 0);
	}
}

START_TEST(test_fields_and_null_actual)
{
	struct fb_run f;
	setup_cases(&f, 3, 1 << 20);
	ck_assert_int_eq(fb_set_io(&f, 0, "42\n", 3, "41\n", 3), 0);
	ck_assert_int_eq(fb_set_io(&f, 1, "a\0b", 3, "", 0), 0); /* bytes, NUL included */
	ck_assert_int_eq(fb_set_io(&f, 5, "x", 1, "y", 1), -1);	 /* no such test */
	json_t *resp = to_json(&f, COV_FULL, 3);
	json_t *t0 = test_json(resp, 0), *t1 = test_json(resp, 1), *t2 = test_json(resp, 2);
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_EXPECTED)), "42\n");
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_ACTUAL)), "41\n");
	ck_assert(json_is_false(json_object_get(t0, T_EXPECTED_TRUNC)));
	ck_assert(json_is_false(json_object_get(t0, T_ACTUAL_TRUNC)));
	ck_assert_int_eq(json_string_length(json_object_get(t1, T_EXPECTED)), 3);
	ck_assert_str_eq(json_string_value(json_object_get(t1, T_ACTUAL)), "");
	/* A test without outputs (another format's) has no such field. */
	ck_assert_ptr_null(json_object_get(t2, T_EXPECTED));
	ck_assert_ptr_null(json_object_get(t2, T_ACTUAL));
	json_decref(resp);
	/* A case that did not run: its expected output, and null. */
	ck_assert_int_eq(fb_set_io(&f, 2, "7", 1, NULL, 0), 0);
	resp = to_json(&f, COV_FULL, 3);
	t2 = test_json(resp, 2);
	ck_assert_str_eq(json_string_value(json_object_get(t2, T_EXPECTED)), "7");
	ck_assert(json_is_null(json_object_get(t2, T_ACTUAL)));
	ck_assert(json_is_false(json_object_get(t2, T_ACTUAL_TRUNC)));
	json_decref(resp);
	fb_free(&f);
}
END_TEST

/* PROTO_STDIO_TEXT_MAX bytes at most, never half a character. */
START_TEST(test_cut_on_a_character)
{
	struct fb_run f;
	setup_cases(&f, 1, 1 << 20);
	size_t n = 3 * PROTO_STDIO_TEXT_MAX;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	/* x, then é (2 bytes) from offset 1: the 4096th byte starts an é. */
	big[0] = 'x';
	for (size_t i = 1; i + 1 < n; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	ck_assert_int_eq(fb_set_io(&f, 0, big, 5, big, n - 1), 0);
	ck_assert_uint_eq(f.tests[0].expected_len, 5);
	ck_assert(!f.tests[0].expected_trunc);
	ck_assert_uint_eq(f.tests[0].actual_len, PROTO_STDIO_TEXT_MAX - 1);
	ck_assert(f.tests[0].actual_trunc);
	ck_assert_uint_eq(
	    text_utf8_cut(f.tests[0].actual, f.tests[0].actual_len, f.tests[0].actual_len),
	    f.tests[0].actual_len);
	json_t *resp = to_json(&f, COV_FULL, 3);
	const char *a = json_string_value(json_object_get(test_json(resp, 0), T_ACTUAL));
	ck_assert_ptr_nonnull(a);
	ck_assert(!strstr(a, "\xef\xbf\xbd")); /* no U+FFFD: nothing was split */
	ck_assert(json_is_true(json_object_get(test_json(resp, 0), T_ACTUAL_TRUNC)));
	json_decref(resp);
	free(big);
	fb_free(&f);
}
END_TEST

/* The response's share: once spent, later strings are empty and marked. */
START_TEST(test_share_of_the_response)
{
	struct fb_run f;
	setup_cases(&f, 3, 10);
	ck_assert_int_eq(fb_set_io(&f, 0, "123456", 6, "abc", 3), 0);
	ck_assert_int_eq(fb_set_io(&f, 1, "xyz", 3, "q", 1), 0);
	ck_assert_int_eq(fb_set_io(&f, 2, "7", 1, NULL, 0), 0);
	ck_assert_uint_eq(f.io_left, 0);
	json_t *resp = to_json(&f, COV_FULL, 3);
	json_t *t0 = test_json(resp, 0), *t1 = test_json(resp, 1), *t2 = test_json(resp, 2);
	ck_assert_str_eq(json_string_value(json_object_get(t0, T_ACTUAL)), "abc");
	ck_assert(json_is_false(json_object_get(t0, T_ACTUAL_TRUNC)));
	ck_assert_str_eq(json_string_value(json_object_get(t1, T_EXPECTED)), "x");
	ck_assert(json_is_true(json_object_get(t1, T_EXPECTED_TRUNC)));
	ck_assert_str_eq(json_string_value(json_object_get(t1, T_ACTUAL)), "");
	ck_assert(json_is_true(json_object_get(t1, T_ACTUAL_TRUNC)));
	ck_assert_str_eq(json_string_value(json_object_get(t2, T_EXPECTED)), "");
	ck_assert(json_is_true(json_object_get(t2, T_EXPECTED_TRUNC)));
	json_decref(resp);
	fb_free(&f);
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("feedback_io");
	TCase *t = tcase_create("fb_set_io");
	tcase_add_test(t, test_fields_and_null_actual);
	tcase_add_test(t, test_cut_on_a_character);
	tcase_add_test(t, test_share_of_the_response);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(io_suite, NULL);
}
