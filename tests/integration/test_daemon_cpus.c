/* The cpus limit: a job's CPU bandwidth cap (cgroup v2 cpu.max, v1
 * cpu.cfs_quota_us). Without it four spinning processes take every CPU of
 * the host until cpu_ms runs out; with cpus=1 they share one CPU's worth of
 * time, so the job's CPU time stays near its wall time. Run as root from
 * the repository root (make integration). */
#include <check.h>
#include <stdio.h>

#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000

/* Four processes (not threads: the GIL would keep threads on one CPU) spin
 * for 1.5 s each. */
#define SPIN4                                                                                      \
	"import os, time\n"                                                                        \
	"kids = []\n"                                                                              \
	"for _ in range(4):\n"                                                                     \
	"    pid = os.fork()\n"                                                                    \
	"    if pid == 0:\n"                                                                       \
	"        end = time.monotonic() + 1.5\n"                                                   \
	"        while time.monotonic() < end:\n"                                                  \
	"            pass\n"                                                                       \
	"        os._exit(0)\n"                                                                    \
	"    kids.append(pid)\n"                                                                   \
	"for k in kids:\n"                                                                         \
	"    os.waitpid(k, 0)\n"

/* CPU time over wall time: how many CPUs the job used on average. */
static double spin_ratio(struct test_daemon *d, json_int_t cpus, json_t **resp)
{
	char id[32];
	snprintf(id, sizeof id, "spin-%lld", (long long)cpus);
	json_t *r = run1(d, lim(job(id, SPIN4), L_CPUS, cpus), CALL_MS);
	*resp = r;
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget2(r, "limits", L_CPUS) == cpus);
	json_int_t cpu = iget2(r, "usage", "cpu_ms"), wall = iget2(r, "usage", "wall_ms");
	CHECK_R(r, cpu > 0 && wall > 0);
	return (double)cpu / (double)wall;
}

START_TEST(test_cpus_default_and_enforcement)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d, job("plain", "print(1)"), CALL_MS);
	CHECK_R(r, iget2(r, "limits", L_CPUS) == 1);
	const char *by = sget(json_object_get(r, "enforcement"), L_CPUS);
	CHECK_R(r, by && (streq(by, "none") || strncmp(by, "cgroup", 6) == 0));
	json_decref(r);
	/* Zero is refused like every other limit. */
	r = run1(&d, lim(job("zero", "print(1)"), L_CPUS, 0), CALL_MS);
	CHECK_R(r, streq(errcode(r), "bad_limits"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_cpus_one_caps_four_spinners)
{
	struct test_daemon d;
	json_t *r;
	START(d, "--workers", "1");
	double ratio = spin_ratio(&d, 1, &r);
	SKIP_UNLESS_CGROUP(r, L_CPUS, d, "a CPU bandwidth cap");
	/* CFS bandwidth throttles per 100 ms period; a little slack for the
	 * interpreter's start before the spinners and accounting granularity. */
	CHECK_RM(r, ratio <= 1.3, "cpus=1: four spinners used %.2f CPUs", ratio);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_cpus_two_allows_more)
{
	struct test_daemon d;
	json_t *r;
	if (td_usable_cpus() < 2)
		SKIP_TEST("cpus=2 needs two usable CPUs; this machine has %d", td_usable_cpus());
	if (iget(tprofile_max, L_CPUS) < 2)
		SKIP_TEST("the profile allows at most %lld CPUs",
			  (long long)iget(tprofile_max, L_CPUS));
	START(d, "--workers", "1");
	/* The helpers of a loaded machine leave the job less than two CPUs:
	 * the best of three runs counts, and a machine busier than its CPU
	 * count is a skip, never a pass. */
	double best = 0, ratio;
	for (int i = 0; i < 3 && best <= 1.1; i++) {
		ratio = spin_ratio(&d, 2, &r);
		SKIP_UNLESS_CGROUP(r, L_CPUS, d, "a CPU bandwidth cap");
		CHECK_RM(r, ratio <= 2.3, "cpus=2: four spinners used %.2f CPUs", ratio);
		best = ratio > best ? ratio : best;
		json_decref(r);
	}
	double load = 0;
	FILE *f = fopen("/proc/loadavg", "re");
	if (f && fscanf(f, "%lf", &load) != 1)
		load = 0;
	if (f)
		fclose(f);
	stop_ok(&d);
	if (best <= 1.1 && load >= td_usable_cpus())
		SKIP_TEST("cpus=2 used at most %.2f CPUs, but the machine is busy (load %.1f on "
			  "%d CPUs)",
			  best, load, td_usable_cpus());
	ck_assert_msg(best > 1.1, "cpus=2: four spinners used at most %.2f CPUs (load %.1f)", best,
		      load);
}
END_TEST

static Suite *daemon_cpus_suite(void)
{
	Suite *s = suite_create("daemon_cpus");
	TCase *t = tmain_tcase(s, "cpus", TIMEOUT_S);
	tcase_add_test(t, test_cpus_default_and_enforcement);
	tcase_add_test(t, test_cpus_one_caps_four_spinners);
	tcase_add_test(t, test_cpus_two_allows_more);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-integ",
					       .setup = tprofile_load,
					       .teardown = tprofile_free};
	return tmain(daemon_cpus_suite, &opts);
}
