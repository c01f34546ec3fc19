/* Unit tests for fmt_limits.c: BigCodeBench gets limits its references fit
 * (its harness allows 240 s and no memory limit), the other formats keep
 * the daemon's defaults, a limit the user gives wins, and the memory default
 * never exceeds the daemon's memory budget. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "client/eval/fmt_limits.h"
#include "tests/helpers/tmain.h"

START_TEST(test_bigcodebench_defaults)
{
	struct proto_limits l = PROTO_LIMITS_UNSET;
	unsigned mask = fmt_limits_apply(DS_BIGCODEBENCH, 20000, &l);
	ck_assert_int_eq(l.cpu_ms, 240000);
	ck_assert_int_eq(l.wall_ms, 480000);
	ck_assert_int_eq(l.memory_mb, 4096);
	ck_assert_int_eq(l.pids, 256);
	ck_assert_int_eq(l.output_kb, -1); /* the daemon's */
	json_t *names = fmt_limits_names(mask);
	char *s = json_dumps(names, JSON_COMPACT);
	ck_assert_str_eq(s, "[\"cpu_ms\",\"wall_ms\",\"memory_mb\",\"pids\"]");
	free(s);
	json_decref(names);
	char desc[200];
	fmt_limits_describe(&l, desc, sizeof desc);
	ck_assert_str_eq(desc, "cpu_ms 240000, wall_ms 480000, memory_mb 4096, pids 256");
}
END_TEST

START_TEST(test_flags_win_and_budget_caps)
{
	struct proto_limits l = PROTO_LIMITS_UNSET;
	l.memory_mb = 300;
	l.cpu_ms = 600000; /* more than the default wall: wall follows it */
	unsigned mask = fmt_limits_apply(DS_BIGCODEBENCH, 0, &l);
	ck_assert_int_eq(l.memory_mb, 300);
	ck_assert_int_eq(l.cpu_ms, 600000);
	ck_assert_int_eq(l.wall_ms, 1200000);
	json_t *names = fmt_limits_names(mask);
	char *s = json_dumps(names, JSON_COMPACT);
	ck_assert_str_eq(s, "[\"wall_ms\",\"pids\"]");
	free(s);
	json_decref(names);
	/* A daemon whose whole budget is smaller than the default. */
	struct proto_limits m = PROTO_LIMITS_UNSET;
	fmt_limits_apply(DS_BIGCODEBENCH, 1500, &m);
	ck_assert_int_eq(m.memory_mb, 1500);
}
END_TEST

START_TEST(test_other_formats_keep_daemon_defaults)
{
	for (int f = DS_HUMANEVAL; f < DS_COUNT; f++) {
		struct proto_limits l = PROTO_LIMITS_UNSET;
		ck_assert_uint_eq(fmt_limits_apply((enum ds_format)f, 20000, &l), 0);
		ck_assert_int_eq(l.cpu_ms, -1);
		char desc[100];
		fmt_limits_describe(&l, desc, sizeof desc);
		ck_assert_str_eq(desc, "the daemon's defaults");
	}
	struct proto_limits l = PROTO_LIMITS_UNSET;
	ck_assert_uint_eq(fmt_limits_apply(DS_COUNT, 0, &l), 0);
}
END_TEST

static Suite *fmt_limits_suite(void)
{
	Suite *s = suite_create("fmt_limits");
	TCase *t = tcase_create("fmt_limits");
	tcase_add_test(t, test_bigcodebench_defaults);
	tcase_add_test(t, test_flags_win_and_budget_caps);
	tcase_add_test(t, test_other_formats_keep_daemon_defaults);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(fmt_limits_suite, NULL);
}
