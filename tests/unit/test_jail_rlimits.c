/* Unit tests for sandboxd/jail/rlimits.c: the process limits a job gets.
 * RLIMIT_NPROC is the pids limit's second line: with a cgroup far behind
 * pids.max, without one the limit less the jail's pid 1, which the cgroup
 * counts and which runs under another uid. */
#include <check.h>
#include <sys/resource.h>

#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/rlimits.h"
#include "tests/helpers/tmain.h"

/* The soft value of one resource in the set; -1 when it is not there. */
static long long value_of(const struct rlimit_set *rs, int resource)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->resource[i] == resource) {
			ck_assert_uint_eq(rs->value[i].rlim_cur, rs->value[i].rlim_max);
			return (long long)rs->value[i].rlim_cur;
		}
	return -1;
}

START_TEST(test_nproc)
{
	struct jail_limits l = {.cpu_ms = 1000, .memory_mb = 64, .tmpfs_mb = 8};
	struct rlimit_set rs;
	/* pid 1 and the program in the cgroup, the program alone under its
	 * uid: both leave it pids - 1 processes. */
	static const long pids[] = {2, 3, 64};
	for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++) {
		l.pids = pids[i];
		rlimits_prepare(&rs, &l, false);
		ck_assert_int_eq(value_of(&rs, RLIMIT_NPROC), pids[i] - 1);
		rlimits_prepare(&rs, &l, true);
		ck_assert_int_eq(value_of(&rs, RLIMIT_NPROC), 2 * pids[i] + 1);
	}
	/* Never 0: the program itself is a process of its uid (and
	 * limits_resolve never sends 1 anyway). */
	l.pids = 1;
	rlimits_prepare(&rs, &l, false);
	ck_assert_int_eq(value_of(&rs, RLIMIT_NPROC), 1);
	/* The memory bound without a cgroup is the address space. */
	ck_assert_int_eq(value_of(&rs, RLIMIT_AS), 64LL << 20);
	rlimits_prepare(&rs, &l, true);
	ck_assert_int_eq(value_of(&rs, RLIMIT_AS), -1);
}
END_TEST

static Suite *rlimits_suite(void)
{
	Suite *s = suite_create("rlimits");
	tcase_add_test(tmain_tcase(s, "rlimits", 10), test_nproc);
	return s;
}

int main(void)
{
	return tmain(rlimits_suite, NULL);
}
