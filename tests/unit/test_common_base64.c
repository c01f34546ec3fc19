/* Unit tests for common/base64.c: RFC 4648's test vectors both ways, every
 * byte value round-trips, and the decoder refuses what is not strict padded
 * base64 (a lenient one would let two clients read one request apart). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "tests/helpers/tmain.h"

static const char *const vec[][2] = {{"", ""},
				     {"f", "Zg=="},
				     {"fo", "Zm8="},
				     {"foo", "Zm9v"},
				     {"foob", "Zm9vYg=="},
				     {"fooba", "Zm9vYmE="},
				     {"foobar", "Zm9vYmFy"}};

START_TEST(test_rfc4648_vectors)
{
	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
		char out[16];
		size_t n = strlen(vec[i][0]), m;
		int bad;
		ck_assert_uint_eq(b64_encoded_len(n), strlen(vec[i][1]));
		b64_encode((const unsigned char *)vec[i][0], n, out);
		ck_assert_str_eq(out, vec[i][1]);
		unsigned char *d = b64_decode(vec[i][1], strlen(vec[i][1]), &m, &bad);
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(m, n);
		ck_assert_mem_eq(d, vec[i][0], n);
		free(d);
	}
}
END_TEST

START_TEST(test_all_bytes_round_trip)
{
	unsigned char in[259];
	for (size_t i = 0; i < sizeof in; i++)
		in[i] = (unsigned char)(i * 7);
	for (size_t n = 0; n <= sizeof in; n++) {
		char out[400];
		size_t m;
		int bad;
		b64_encode(in, n, out);
		unsigned char *d = b64_decode(out, strlen(out), &m, &bad);
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(m, n);
		ck_assert(n == 0 || memcmp(d, in, n) == 0);
		free(d);
	}
}
END_TEST

START_TEST(test_refuses_non_strict)
{
	const char *bad_in[] = {"Zg",	  "Zg=",  "Zh==", "Zm9=",     "Z===", "====", "Zm 9v",
				"Zm9v\n", "Zm-v", "Zm_v", "Zg==Zg==", "=Zm9", "Zm=v"};
	for (size_t i = 0; i < sizeof bad_in / sizeof bad_in[0]; i++) {
		size_t m;
		int bad = 0;
		unsigned char *d = b64_decode(bad_in[i], strlen(bad_in[i]), &m, &bad);
		ck_assert_msg(d == NULL && bad == 1, "accepted '%s'", bad_in[i]);
	}
}
END_TEST

static Suite *base64_suite(void)
{
	Suite *s = suite_create("common_base64");
	TCase *t = tcase_create("base64");
	tcase_add_test(t, test_rfc4648_vectors);
	tcase_add_test(t, test_all_bytes_round_trip);
	tcase_add_test(t, test_refuses_non_strict);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(base64_suite, NULL);
}
