/* Unit tests for the response's "timing" (run_timing.c): phases between the
 * boundaries a run recorded, left out (never guessed) when a boundary was
 * not seen, summed over a stdio request's runs, never negative, and never
 * more in sum than total_us. Boundaries are fabricated, in microseconds
 * after a base ten seconds ago (the response phase ends "now"). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "sandboxd/run/run_priv.h"
#include "tests/helpers/tmain.h"

static uint64_t g_base;

static uint64_t at(uint64_t us)
{
	return us ? g_base + us * 1000u : 0;
}

static struct job job_at(bool timing)
{
	struct job j;
	memset(&j, 0, sizeof j);
	j.req.timing = timing;
	j.received_ns = at(10);
	j.queued_ns = at(30);
	j.popped_ns = at(100);
	return j;
}

/* A run whose boundaries are these (0: not seen). */
static struct run_facts run_at(uint64_t go, uint64_t exec, uint64_t exit, uint64_t end)
{
	struct run_facts f;
	memset(&f, 0, sizeof f);
	f.r.times.go_ns = at(go);
	f.r.times.exec_ns = at(exec);
	f.r.times.exit_ns = at(exit);
	f.end_ns = at(end);
	return f;
}

static json_t *finish(struct run_timing *t, const struct job *j)
{
	json_t *resp = json_object();
	run_timing_json(t, j, resp);
	return resp;
}

static json_int_t us(const json_t *resp, const char *key)
{
	json_t *v = json_object_get(json_object_get(resp, "timing"), key);
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* Every value a non-negative integer, the phases' sum at most total_us. */
static void check_sum(const json_t *resp)
{
	json_t *o = json_object_get(resp, "timing"), *v;
	const char *k;
	json_int_t sum = 0;
	ck_assert(json_is_object(o));
	json_object_foreach(o, k, v)
	{
		ck_assert_msg(json_is_integer(v) && json_integer_value(v) >= 0, "%s", k);
		if (strcmp(k, TM_TOTAL_US) != 0 && strcmp(k, TM_RUNS) != 0)
			sum += json_integer_value(v);
	}
	ck_assert_int_le(sum, us(resp, TM_TOTAL_US));
}

static void setup(void)
{
	g_base = clock_mono_ns() - 10000000000ull;
}

START_TEST(test_plain_run)
{
	struct job j = job_at(true);
	struct run_timing t;
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 21500, 22500);
	run_timing_add(&t, &f, NULL);
	json_t *r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_ACCEPT_US), 20);
	ck_assert_int_eq(us(r, TM_QUEUE_US), 70);
	ck_assert_int_eq(us(r, TM_SETUP_HOST_US), 1000);
	ck_assert_int_eq(us(r, TM_SETUP_JAIL_US), 400);
	ck_assert_int_eq(us(r, TM_RUN_US), 20000);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), 1000);
	ck_assert_int_ge(us(r, TM_RESPONSE_US), 9000000);
	ck_assert_int_eq(us(r, TM_RUNS), 1);
	/* A plain run has no runner phases. */
	ck_assert_int_eq(us(r, TM_START_US), -1);
	ck_assert_int_eq(us(r, TM_USER_CODE_US), -1);
	ck_assert_int_eq(us(r, TM_TESTS_US), -1);
	ck_assert_int_eq(us(r, TM_EXIT_US), -1);
	check_sum(r);
	json_decref(r);
}
END_TEST

START_TEST(test_not_asked)
{
	struct job j = job_at(false);
	struct run_timing t;
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 21500, 22500);
	run_timing_add(&t, &f, NULL);
	json_t *r = finish(&t, &j);
	ck_assert_ptr_null(json_object_get(r, "timing"));
	json_decref(r);
}
END_TEST

START_TEST(test_runner_run)
{
	struct job j = job_at(true);
	struct run_timing t;
	struct fb_run fb;
	fb_init(&fb, "", -1);
	fb.have_plan = true;
	fb.compile_ns = at(40000);
	fb.first_start_ns = at(45000);
	fb.done_ns = at(45500);
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 47500, 48000);
	run_timing_add(&t, &f, &fb);
	json_t *r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_START_US), 38500);
	ck_assert_int_eq(us(r, TM_USER_CODE_US), 5000);
	ck_assert_int_eq(us(r, TM_TESTS_US), 500);
	ck_assert_int_eq(us(r, TM_EXIT_US), 2000);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), 500);
	ck_assert_int_eq(us(r, TM_RUN_US), -1);
	check_sum(r);
	json_decref(r);
	/* The module raised: no test started; user code runs to done. */
	fb.first_start_ns = 0;
	run_timing_begin(&t, &j);
	run_timing_add(&t, &f, &fb);
	r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_USER_CODE_US), 5500);
	ck_assert_int_eq(us(r, TM_TESTS_US), -1);
	ck_assert_int_eq(us(r, TM_EXIT_US), 2000);
	check_sum(r);
	json_decref(r);
	fb_free(&fb);
}
END_TEST

/* A boundary not seen leaves out both phases it would end and start. */
START_TEST(test_missing_boundaries)
{
	struct job j = job_at(true);
	struct run_timing t;
	/* Killed by the daemon: no exit reported. */
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 0, 22500);
	run_timing_add(&t, &f, NULL);
	json_t *r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_SETUP_JAIL_US), 400);
	ck_assert_int_eq(us(r, TM_RUN_US), -1);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), -1);
	ck_assert_int_ge(us(r, TM_RESPONSE_US), 0);
	check_sum(r);
	json_decref(r);
	/* No seccomp listener: the jail's half and the run are unknown. */
	run_timing_begin(&t, &j);
	f = run_at(1100, 0, 21500, 22500);
	run_timing_add(&t, &f, NULL);
	r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_SETUP_HOST_US), 1000);
	ck_assert_int_eq(us(r, TM_SETUP_JAIL_US), -1);
	ck_assert_int_eq(us(r, TM_RUN_US), -1);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), 1000);
	check_sum(r);
	json_decref(r);
}
END_TEST

/* Records and the exit read in one poll round may come out of order: that
 * is no time, never negative time, and the phases still do not overlap. */
START_TEST(test_out_of_order)
{
	struct job j = job_at(true);
	struct run_timing t;
	struct fb_run fb;
	fb_init(&fb, "", -1);
	fb.have_plan = true;
	fb.compile_ns = at(40000);
	fb.first_start_ns = at(45000);
	fb.done_ns = at(46000);
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 45900, 48000);
	run_timing_add(&t, &f, &fb);
	json_t *r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_EXIT_US), 0);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), 2000);
	check_sum(r);
	json_decref(r);
	fb_free(&fb);
}
END_TEST

/* stdio: a compile step and two cases, summed; runs counts them. */
START_TEST(test_stdio_sums)
{
	struct job j = job_at(true);
	struct run_timing t;
	struct fb_run fb;
	fb_init(&fb, "", -1);
	fb.compile_ns = at(40000);
	fb.done_ns = at(40100);
	run_timing_begin(&t, &j);
	struct run_facts f = run_at(1100, 1500, 41000, 42000);
	run_timing_add(&t, &f, &fb);
	f = run_at(43000, 43500, 60000, 61000);
	run_timing_add(&t, &f, NULL);
	f = run_at(62000, 62500, 80000, 81000);
	run_timing_add(&t, &f, NULL);
	json_t *r = finish(&t, &j);
	ck_assert_int_eq(us(r, TM_RUNS), 3);
	ck_assert_int_eq(us(r, TM_SETUP_HOST_US), 1000 + 1000 + 1000);
	ck_assert_int_eq(us(r, TM_SETUP_JAIL_US), 400 + 500 + 500);
	ck_assert_int_eq(us(r, TM_START_US), 38500);
	ck_assert_int_eq(us(r, TM_USER_CODE_US), -1); /* no plan: the compile step */
	ck_assert_int_eq(us(r, TM_EXIT_US), 1000);
	ck_assert_int_eq(us(r, TM_RUN_US), 16500 + 17500);
	ck_assert_int_eq(us(r, TM_TEARDOWN_US), 1000 * 3);
	check_sum(r);
	json_decref(r);
	fb_free(&fb);
}
END_TEST

static Suite *timing_suite(void)
{
	Suite *s = suite_create("run_timing");
	TCase *t = tcase_create("timing");
	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, test_plain_run);
	tcase_add_test(t, test_not_asked);
	tcase_add_test(t, test_runner_run);
	tcase_add_test(t, test_missing_boundaries);
	tcase_add_test(t, test_out_of_order);
	tcase_add_test(t, test_stdio_sums);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(timing_suite, NULL);
}
