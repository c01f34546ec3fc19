/* Unit tests for libsbx's `busy` backoff schedule (client/lib/sbx.c,
 * sbx_retry_delay): exponential from base_ms, capped at max_ms, each delay
 * in the upper half of its step (jitter), never past total_ms after the
 * first busy, never any retry when total_ms is 0. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "client/lib/sbx.h"
#include "tests/helpers/tmain.h"

static const struct sbx_retry R = {.base_ms = 10, .max_ms = 1000, .total_ms = 60000};

START_TEST(test_defaults)
{
	struct sbx_retry r;
	sbx_retry_default(&r);
	ck_assert_int_eq(r.base_ms, SBX_RETRY_BASE_MS);
	ck_assert_int_eq(r.max_ms, SBX_RETRY_MAX_MS);
	ck_assert_int_eq(r.total_ms, SBX_RETRY_TOTAL_MS);
	ck_assert_int_gt(r.total_ms, 0);
	ck_assert_int_le(r.base_ms, r.max_ms);
}
END_TEST

/* Step k is min(max, base * 2^k); its delay is in [step - step/2, step]. */
START_TEST(test_exponential_then_capped)
{
	long step = 10;
	for (unsigned k = 0; k < 64; k++) {
		long lo = sbx_retry_delay(&R, k, 0, 0);
		long hi = sbx_retry_delay(&R, k, 0, UINT32_MAX);
		long want = step < 1000 ? step : 1000;
		ck_assert_msg(lo == want - want / 2, "attempt %u: shortest %ld, want %ld", k, lo,
			      want - want / 2);
		ck_assert_msg(hi >= lo && hi <= want, "attempt %u: longest %ld, step %ld", k, hi,
			      want);
		/* the whole range is reachable: rnd = step/2 gives the step */
		ck_assert_int_eq(sbx_retry_delay(&R, k, 0, (uint32_t)(want / 2)), want);
		step = step < 1000 ? step * 2 : step;
	}
	/* 10, 20, 40, ... 640, then 1000 from the 7th retry on */
	ck_assert_int_eq(sbx_retry_delay(&R, 6, 0, 320), 640);
	ck_assert_int_eq(sbx_retry_delay(&R, 7, 0, 500), 1000);
	ck_assert_int_eq(sbx_retry_delay(&R, 4000000000u, 0, 500), 1000);
}
END_TEST

START_TEST(test_jitter_spreads)
{
	/* Clients refused together come back at different times. */
	srand(1);
	long seen[1001] = {0};
	int distinct = 0;
	for (int i = 0; i < 2000; i++) {
		long d = sbx_retry_delay(&R, 10, 0, (uint32_t)rand());
		ck_assert(d >= 500 && d <= 1000);
		distinct += seen[d]++ == 0;
	}
	ck_assert_msg(distinct > 300, "only %d distinct delays of 2000", distinct);
}
END_TEST

START_TEST(test_total_bounds_every_retry)
{
	/* The last retry is sent no later than total_ms after the first busy. */
	srand(2);
	for (int run = 0; run < 200; run++) {
		long long spent = 0;
		unsigned k = 0;
		long d;
		while ((d = sbx_retry_delay(&R, k, spent, (uint32_t)rand())) >= 0) {
			ck_assert_int_ge(d, 5);
			spent += d;
			k++;
			ck_assert_int_le(spent, R.total_ms);
		}
		/* it stops only when a delay would not fit: at most one step short */
		ck_assert_msg(spent > R.total_ms - R.max_ms, "gave up at %lld ms of %d", spent,
			      R.total_ms);
		ck_assert_int_lt(k, 200);
	}
	ck_assert_int_eq(sbx_retry_delay(&R, 3, R.total_ms, 0), -1);
	ck_assert_int_eq(sbx_retry_delay(&R, 3, R.total_ms + 5, 0), -1);
	ck_assert_int_eq(sbx_retry_delay(&R, 7, R.total_ms - 499, 0), -1); /* 500 > 499 */
	ck_assert_int_eq(sbx_retry_delay(&R, 7, R.total_ms - 500, 0), 500);
}
END_TEST

START_TEST(test_zero_total_never_retries)
{
	struct sbx_retry off = R;
	off.total_ms = 0;
	for (unsigned k = 0; k < 5; k++)
		ck_assert_int_eq(sbx_retry_delay(&off, k, 0, 12345), -1);
	/* nonsense settings still give a sane, bounded delay */
	struct sbx_retry odd = {.base_ms = 0, .max_ms = -3, .total_ms = 10};
	long d = sbx_retry_delay(&odd, 3, 0, 7);
	ck_assert(d >= 1 && d <= 10);
	ck_assert_int_eq(sbx_retry_delay(&R, 0, -1, 0), -1);
}
END_TEST

static Suite *sbx_suite(void)
{
	Suite *s = suite_create("client_lib_sbx");
	TCase *t = tcase_create("retry");
	tcase_add_test(t, test_defaults);
	tcase_add_test(t, test_exponential_then_capped);
	tcase_add_test(t, test_jitter_spreads);
	tcase_add_test(t, test_total_bounds_every_retry);
	tcase_add_test(t, test_zero_total_never_retries);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(sbx_suite, NULL);
}
