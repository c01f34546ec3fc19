/* Unit tests for text_trim (common/text.c): short texts unchanged, the cut
 * in the middle with a marker that counts the characters removed, never
 * inside a UTF-8 character. And the JSON meter: its count is exactly what
 * the response's encoder writes, fed whole or in pieces. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/protocol.h"
#include "common/text.h"
#include "tests/helpers/tmain.h"

#define MARKER_FMT "\n... [%zu characters trimmed] ...\n"

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

/* What the response's encoder writes for these bytes, quotes excluded. */
static size_t encoded(const char *data, size_t len)
{
	json_t *str = proto_json_bytes(data, len);
	json_t *a = json_pack("[o]", str);
	char *dump = json_dumps(a, JSON_COMPACT);
	ck_assert_ptr_nonnull(dump);
	size_t n = strlen(dump) - 4; /* ["..."] */
	free(dump);
	json_decref(a);
	return n;
}

START_TEST(test_json_size_matches_encoder)
{
	static const struct {
		const char *s;
		size_t len, want;
	} cases[] = {{"\x01", 1, 6},	     {"a\"\\\n\t", 5, 9}, {"\xc3\xa9", 2, 2},
		     {"\xff", 1, 3},	     {"\xe2\x82", 2, 6},  {"\0", 1, 6},
		     {"\xed\xa0\x80", 3, 9}, {"\x7f/", 2, 2}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_uint_eq(text_json_size(cases[i].s, cases[i].len), cases[i].want);
		ck_assert_uint_eq(encoded(cases[i].s, cases[i].len), cases[i].want);
	}
	/* Random bytes, mostly invalid UTF-8 and control characters. */
	unsigned seed = 7;
	char buf[4096];
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof buf; i++)
			buf[i] = (char)(rand_r(&seed) & 0xff);
		ck_assert_uint_eq(text_json_size(buf, sizeof buf), encoded(buf, sizeof buf));
	}
}
END_TEST

/* Fed in pieces, cut anywhere (inside a character too), the meter ends
 * with the count of the whole; a cut character is never counted short. */
START_TEST(test_json_meter_pieces)
{
	const char *s = "a\xe2\x82\xac\x01\xf0\x9f\x98\x80\xc3";
	size_t len = strlen(s), whole = text_json_size(s, len);
	for (size_t cut = 0; cut <= len; cut++) {
		struct text_json_meter m = {0, 0};
		ck_assert_uint_eq(text_json_meter(&m, s, cut, (size_t)-1, false), cut);
		ck_assert_uint_le(m.enc, whole);
		ck_assert_uint_eq(text_json_meter(&m, s, len, (size_t)-1, true), len);
		ck_assert_uint_eq(m.enc, whole);
	}
	/* "\xe2\x82" so far: kept, pending; "\xac" completes a 3-byte euro. */
	struct text_json_meter m = {0, 0};
	ck_assert_uint_eq(text_json_meter(&m, "\xe2\x82", 2, 100, false), 2);
	ck_assert_uint_eq(m.enc, 0);
	ck_assert_uint_eq(text_json_meter(&m, "\xe2\x82\xac", 3, 100, false), 3);
	ck_assert_uint_eq(m.enc, 3);
}
END_TEST

/* The cap falls on a character boundary: ten \x01 (60 encoded) in 20 keep
 * three; a cut sequence that might not fit is not kept. */
START_TEST(test_json_meter_cap)
{
	char ten[10];
	memset(ten, 1, sizeof ten);
	struct text_json_meter m = {0, 0};
	ck_assert_uint_eq(text_json_meter(&m, ten, sizeof ten, 20, false), 3);
	ck_assert_uint_eq(m.enc, 18);
	struct text_json_meter e = {0, 0};
	ck_assert_uint_eq(text_json_meter(&e, "ab\xe2\x82", 4, 7, false), 2);
	ck_assert_uint_eq(e.enc, 2);
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("common_text");
	TCase *text = tcase_create("text");
	tcase_add_test(text, test_trim_short_unchanged);
	tcase_add_test(text, test_trim_ascii);
	tcase_add_test(text, test_trim_utf8_boundaries);
	tcase_add_test(text, test_trim_marker_counts_characters);
	tcase_add_test(text, test_json_size_matches_encoder);
	tcase_add_test(text, test_json_meter_pieces);
	tcase_add_test(text, test_json_meter_cap);
	suite_add_tcase(s, text);
	return s;
}

int main(void)
{
	return tmain(text_suite, NULL);
}
