/* Unit tests for stdio_output_matches: how the daemon compares a stdio case's
 * output with the expected one (trailing white space per line and trailing
 * blank lines ignored; with a tolerance, numeric tokens compared within it);
 * and for stdio_match_diff, the text a model reads for a wrong answer: the
 * same whether each part ends with a newline or not, parts cut on character
 * boundaries, the expected output hidden on request. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/feedback/stdio_match.h"
#include "tests/helpers/tmain.h"

#define EXACT (-1.0)
#define TOL 1e-6

/* Both strings as C strings (no embedded NUL). */
static bool match(const char *got, const char *want, double tol)
{
	return stdio_match_output(got, strlen(got), want, strlen(want), tol);
}

#define SAME(g, w, t)                                                                              \
	ck_assert_msg(match(g, w, t), "\"%s\" vs \"%s\" (tol %g) should match", g, w, t)
#define DIFF(g, w, t)                                                                              \
	ck_assert_msg(!match(g, w, t), "\"%s\" vs \"%s\" (tol %g) should differ", g, w, t)

START_TEST(test_exact_equal)
{
	SAME("1 2 3\nhello\n", "1 2 3\nhello\n", EXACT);
	SAME("42", "42", EXACT);
	DIFF("42", "43", EXACT);
	DIFF("hello", "Hello", EXACT);
}
END_TEST

START_TEST(test_trailing_space_per_line_ignored)
{
	SAME("1 \n2\t\n3\r\n", "1\n2\n3\n", EXACT);
	SAME("a b  \t \r\nc", "a b\nc", EXACT);
	SAME("1\r\n2\r\n", "1\n2", EXACT);
	SAME("x\n", "x \t\r", EXACT);
	/* only trailing: a space inside the line still counts */
	DIFF("a  b", "a b", EXACT);
}
END_TEST

START_TEST(test_trailing_blank_lines_ignored)
{
	SAME("1\n\n\n", "1", EXACT);
	SAME("1", "1\n\n", EXACT);
	SAME("1\n \n\t\n", "1\n", EXACT);
	/* a blank line before the end is not trailing */
	DIFF("\n1", "1", EXACT);
	DIFF("1\n\n2", "1\n2", EXACT);
}
END_TEST

START_TEST(test_missing_final_newline)
{
	SAME("1\n2", "1\n2\n", EXACT);
	SAME("1\n2\n", "1\n2", EXACT);
}
END_TEST

START_TEST(test_leading_whitespace_counts)
{
	DIFF("  1", "1", EXACT);
	DIFF("1", "\t1", EXACT);
	DIFF("1\n 2", "1\n2", EXACT);
}
END_TEST

START_TEST(test_extra_line_differs)
{
	DIFF("1\n2\n", "1\n", EXACT);
	DIFF("1\n", "1\n2\n", EXACT);
	DIFF("1\n2\n", "1\n", TOL);
	DIFF("1\nx", "1", TOL);
}
END_TEST

START_TEST(test_empty)
{
	SAME("", "", EXACT);
	SAME("", "\n\n", EXACT);
	SAME("\n\n", "", EXACT);
	SAME(" \n\t\r\n", "", EXACT);
	SAME("", "", TOL);
	DIFF("", "0", EXACT);
	DIFF("0", "", TOL);
}
END_TEST

START_TEST(test_exact_no_numeric_equivalence)
{
	DIFF("1.0", "1", EXACT);
	DIFF("0.5", ".5", EXACT);
	DIFF("1e0", "1", EXACT);
}
END_TEST

START_TEST(test_tolerance_numbers)
{
	SAME("0.3333333", "0.33333334", TOL);
	SAME("1.0", "1", TOL);
	SAME("1", "1.0000005", TOL);
	SAME("-0.0", "0", TOL);
	SAME("1e0", "1", TOL);
	DIFF("1.1", "1", TOL);
	DIFF("1", "1.00001", TOL);
	DIFF("-1", "1", TOL);
	SAME("1.0 2.0 3.0\n4.5\n", "1 2 3\n4.50000000", TOL);
	DIFF("1.0 2.0 3.0\n4.6\n", "1 2 3\n4.5", TOL);
	/* tol 0: numeric equality, not textual */
	SAME("1.0", "1", 0.0);
	DIFF("1.0000001", "1", 0.0);
}
END_TEST

START_TEST(test_tolerance_relative)
{
	/* |a-b| = 0.5 > tol, but <= tol*|b| = 1.0 */
	SAME("1000000.5", "1000000", TOL);
	SAME("1000001", "1000000", TOL);
	DIFF("1000002", "1000000", TOL);
	SAME("123456789013", "123456789012", TOL);
	SAME("1e18", "1000000000000000000", TOL);
	SAME("1.0000001e18", "1e18", TOL);
	DIFF("1.1e18", "1e18", TOL);
	SAME("-1e300", "-1.0000000001e300", TOL);
	/* the relative bound is taken from the expected value (want) */
	SAME("2", "4", 0.5);
	DIFF("4", "2", 0.5);
	SAME("3", "2", 0.5);
}
END_TEST

START_TEST(test_tolerance_absolute)
{
	/* near zero the relative bound is useless: the absolute one applies */
	SAME("0.0000005", "0", TOL);
	SAME("0", "-0.000001", TOL);
	SAME("1e-7", "0", TOL);
	DIFF("0.000002", "0", TOL);
}
END_TEST

START_TEST(test_tolerance_words)
{
	SAME("abc", "abc", TOL);
	DIFF("abc", "abd", TOL);
	SAME("abc 1.0", "abc 1", TOL);
	DIFF("abd 1.0", "abc 1", TOL);
	SAME("YES\n3.14159265", "YES\n3.1415927", TOL);
	DIFF("yes", "YES", TOL);
	/* a number never matches a word */
	DIFF("1", "one", TOL);
	DIFF("1.0x", "1.0", TOL);
}
END_TEST

START_TEST(test_tolerance_token_count)
{
	DIFF("1 2", "1 2 3", TOL);
	DIFF("1 2 3", "1 2", TOL);
	DIFF("1.0 2", "1", TOL);
	DIFF("1.0", "1 2", TOL);
}
END_TEST

START_TEST(test_tolerance_whitespace_between_tokens)
{
	SAME("1.0   2.0", "1 2", TOL);
	SAME("1.0\t2.0", "1 2", TOL);
	SAME("a    b", "a b", TOL);
	/* token-wise comparison also skips leading white space */
	SAME("  1.0", "1", TOL);
	/* but never across lines */
	DIFF("1.0\n2.0", "1 2", TOL);
}
END_TEST

START_TEST(test_tolerance_nan_inf)
{
	/* not finite: compared as strings */
	SAME("nan", "nan", TOL);
	SAME("inf", "inf", TOL);
	DIFF("nan", "NaN", TOL);
	DIFF("nan", "0", TOL);
	DIFF("inf", "1e309", TOL);
	DIFF("1e309", "1e308", TOL);
	DIFF("inf", "-inf", TOL);
	DIFF("1e308", "inf", TOL);
}
END_TEST

START_TEST(test_tolerance_long_token)
{
	/* a token too long to parse is compared as a string */
	char a[200], b[200];
	memset(a, '1', 150);
	a[150] = '\0';
	memcpy(b, a, sizeof a);
	SAME(a, b, TOL);
	b[149] = '2';
	DIFF(a, b, TOL);
}
END_TEST

START_TEST(test_embedded_nul_exact)
{
	/* got_len counts the NUL: "1\0" is not "1" */
	ck_assert(!stdio_match_output("1\0", 2, "1", 1, EXACT));
	ck_assert(!stdio_match_output("1\0\n", 3, "1\n", 2, EXACT));
	ck_assert(!stdio_match_output("ab\0c", 4, "ab", 2, EXACT));
	ck_assert(stdio_match_output("a\0b", 3, "a\0b", 3, EXACT));
	ck_assert(!stdio_match_output("a\0b", 3, "a\0c", 3, EXACT));
}
END_TEST

START_TEST(test_embedded_nul_tolerance)
{
	ck_assert(!stdio_match_output("abc\0", 4, "abc", 3, TOL));
	/* A numeric token with a NUL in it is not the number before the NUL. */
	ck_assert_msg(!stdio_match_output("1\0", 2, "1", 1, TOL),
		      "\"1\\0\" matched \"1\" with a tolerance");
	ck_assert_msg(!stdio_match_output("5\0garbage", 9, "5", 1, TOL),
		      "\"5\\0garbage\" matched \"5\" with a tolerance");
}
END_TEST

/* ------------------------------------------------------------ the diff text */

static char *diff(const char *in, const char *out, const char *got, bool hide, long n)
{
	struct proto_case c = {(char *)in, (char *)out, strlen(in), strlen(out)};
	char *s = stdio_match_diff(&c, got, strlen(got), hide, n);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Every combination of trailing newlines gives one text. */
START_TEST(test_diff_layout_ignores_trailing_newlines)
{
	static const char *const ins[] = {"1 2", "1 2\n", "1 2\r\n"},
				 *const outs[] = {"3", "3\n", "3\n\n"},
				 *const gots[] = {"4", "4\n"};
	for (int i = 0; i < 3; i++)
		for (int o = 0; o < 3; o++)
			for (int g = 0; g < 2; g++) {
				char *s = diff(ins[i], outs[o], gots[g], false, 0);
				ck_assert_str_eq(
				    s, "Input:\n1 2\nExpected output:\n3\nActual output:\n4");
				free(s);
			}
	/* Empty parts keep their line too. */
	char *s = diff("", "\n", "", false, 0);
	ck_assert_str_eq(s, "Input:\n\nExpected output:\n\nActual output:\n");
	free(s);
	/* Lines inside a part are kept as they are. */
	s = diff("a\n\nb\n", "c\n\nd", "e\n", false, 0);
	ck_assert_str_eq(s, "Input:\na\n\nb\nExpected output:\nc\n\nd\nActual output:\ne");
	free(s);
}
END_TEST

/* A part is cut at STDIO_PART_MAX bytes, never inside a character. */
START_TEST(test_diff_cut_on_a_character)
{
	char out[STDIO_PART_MAX + 8];
	memset(out, 'a', STDIO_PART_MAX - 1);
	strcpy(out + STDIO_PART_MAX - 1, "\xc3\xa9zz"); /* é across the cut */
	char *s = diff("", out, "x", false, 0);
	const char *e = strstr(s, "Expected output:\n") + strlen("Expected output:\n");
	ck_assert_int_eq(strcspn(e, "\n"), STDIO_PART_MAX - 1);
	ck_assert(!strstr(s, "\xc3"));
	free(s);
}
END_TEST

START_TEST(test_diff_hides_the_expected_output)
{
	char *s = diff("1\n", "secret answer\n", "4\n", true, 0);
	ck_assert_str_eq(s, "Input:\n1\nExpected output: hidden\nActual output:\n4");
	free(s);
	/* Characters, not bytes: é is one. */
	s = diff("1\n",
		 "s\xc3\xa9"
		 "cret answer\n",
		 "4\n", true, 3);
	ck_assert_str_eq(s, "Input:\n1\nExpected output (hidden past its first 3 characters):\n"
			    "s\xc3\xa9"
			    "c\nActual output:\n4");
	free(s);
	/* The header is the same however long the output is (no hint). */
	s = diff("1", "ab", "4", true, 3);
	ck_assert_str_eq(s, "Input:\n1\nExpected output (hidden past its first 3 characters):\n"
			    "ab\nActual output:\n4");
	free(s);
	s = diff("1", "ab", "4", false, 1);
	ck_assert_str_eq(s, "Input:\n1\nExpected output:\nab\nActual output:\n4");
	free(s);
}
END_TEST

static Suite *stdio_suite(void)
{
	Suite *s = suite_create("stdio");
	TCase *t = tcase_create("stdio_output_matches");
	tcase_add_test(t, test_exact_equal);
	tcase_add_test(t, test_trailing_space_per_line_ignored);
	tcase_add_test(t, test_trailing_blank_lines_ignored);
	tcase_add_test(t, test_missing_final_newline);
	tcase_add_test(t, test_leading_whitespace_counts);
	tcase_add_test(t, test_extra_line_differs);
	tcase_add_test(t, test_empty);
	tcase_add_test(t, test_exact_no_numeric_equivalence);
	tcase_add_test(t, test_tolerance_numbers);
	tcase_add_test(t, test_tolerance_relative);
	tcase_add_test(t, test_tolerance_absolute);
	tcase_add_test(t, test_tolerance_words);
	tcase_add_test(t, test_tolerance_token_count);
	tcase_add_test(t, test_tolerance_whitespace_between_tokens);
	tcase_add_test(t, test_tolerance_nan_inf);
	tcase_add_test(t, test_tolerance_long_token);
	tcase_add_test(t, test_embedded_nul_exact);
	tcase_add_test(t, test_embedded_nul_tolerance);
	suite_add_tcase(s, t);
	TCase *d = tcase_create("stdio_match_diff");
	tcase_add_test(d, test_diff_layout_ignores_trailing_newlines);
	tcase_add_test(d, test_diff_cut_on_a_character);
	tcase_add_test(d, test_diff_hides_the_expected_output);
	suite_add_tcase(s, d);
	return s;
}

int main(void)
{
	return tmain(stdio_suite, NULL);
}
