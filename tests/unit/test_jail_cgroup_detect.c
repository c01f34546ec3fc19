/* Unit tests for cgroup detection (sandboxd/jail/cgroup_detect.c): which
 * hierarchies cg_detect finds in made-up mountinfo and /proc/self/cgroup
 * texts, against fake v1/v2 trees in a temp dir (tests/helpers/fakecg.h). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup.h"
#include "tests/helpers/fakecg.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

/* ---- detection -------------------------------------------------------- */

START_TEST(test_detect_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/" V2_OWN "/sandboxd-daemon", t));
	ck_assert_str_eq(r.v1_memory, "");
	ck_assert_str_eq(r.v1_pids, "");
	ck_assert_str_eq(cg_version_name(r.version), "v2");

	/* Detecting again from inside our leaf finds the same layout. */
	detect_ok(&r, MI_V2, "0::/system.slice/sbx.service/sandboxd-daemon\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/" V2_OWN "/sandboxd-daemon", t));
}
END_TEST

START_TEST(test_detect_v2_mount_root)
{
	char t[PATH_MAX];
	struct cg_root r;
	const char *mi =
	    "30 25 0:26 /kubepods/pod1 /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n";
	set(t, new_tree());
	fake_v2(t, true);

	/* Own path below the mount root: the root part is stripped. */
	detect_ok(&r, mi, "0::/kubepods/pod1/ctr\n", t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/ctr/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/sys/fs/cgroup/ctr/sandboxd-daemon", t));

	/* Own cgroup is the true mount root: no leaf to move into. */
	detect_ok(&r, mi, "0::/kubepods/pod1\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, "");

	/* ...unless it is a namespace root, which has cgroup.type. */
	put(P("%s/sys/fs/cgroup/cgroup.type", t), "domain\n");
	detect_ok(&r, mi, "0::/kubepods/pod1\n", t);
	ck_assert_str_eq(r.v2_daemon, P("%s/sys/fs/cgroup/sandboxd-daemon", t));

	/* A root that is only a string prefix (pod1 vs pod10) is not stripped. */
	detect_ok(&r, mi, "0::/kubepods/pod10/x\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/kubepods/pod10/x/sandboxd", t));
}
END_TEST

START_TEST(test_detect_v2_escaped_mountpoint)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	put(P("%s/cg root/cgroup.controllers", t), "memory pids\n");
	detect_ok(&r, "30 25 0:26 / /cg\\040root rw - cgroup2 none rw\n", "0::/a\n", t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/cg root/a/sandboxd", t));
}
END_TEST

START_TEST(test_detect_v2_controllers_missing)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());

	/* cgroup2 without memory/pids and no v1: none, but not an error. */
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t), "cpu io pids\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_NONE);
	ck_assert_str_eq(cg_version_name(r.version), "none");
	ck_assert_str_eq(r.v2_jobs, "");

	/* An unreadable controllers file also means "not v2". */
	set(t, new_tree());
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_NONE);

	/* Hybrid host whose cgroup2 offers only hugetlb: v1. */
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v2_jobs, "");
	ck_assert_str_eq(r.v2_daemon, "");
}
END_TEST

START_TEST(test_detect_v1_host)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v1(t, true);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(cg_version_name(r.version), "v1");
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/sandboxd", t));
	ck_assert_str_eq(r.v1_cpuacct, P("%s/sys/fs/cgroup/cpuacct/sandboxd", t));
	ck_assert(r.v1_memsw);

	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert(!r.v1_memsw);
}
END_TEST

START_TEST(test_detect_v1_variants)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());

	/* cpu,cpuacct co-mounted, memory mounted from a sub-root. */
	detect_ok(&r,
		  "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
		  "35 31 0:32 /docker/c1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		  "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
		  "5:pids:/docker/c1\n4:memory:/docker/c1/job\n2:cpu,cpuacct:/docker/c1\n", t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/job/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/docker/c1/sandboxd", t));
	ck_assert_str_eq(r.v1_cpuacct, P("%s/sys/fs/cgroup/cpu,cpuacct/docker/c1/sandboxd", t));

	/* No cpuacct hierarchy: still v1, without CPU accounting. */
	detect_ok(&r,
		  "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		  "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
		  "5:pids:/\n4:memory:/\n", t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v1_cpuacct, "");

	/* No pids hierarchy: none. */
	detect_ok(&r, "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
		  "4:memory:/\n", t);
	ck_assert_int_eq(r.version, CG_NONE);
	ck_assert_str_eq(r.v1_memory, "");
}
END_TEST

START_TEST(test_detect_garbage)
{
	struct cg_root r;
	err[0] = '\0';
	ck_assert_int_eq(cg_detect(&r, "this is not mountinfo\n", SELF_HOST, "", err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "mountinfo line 1") != NULL, "err: %s", err);
	/* Optional fields but no " - " separator. */
	ck_assert_int_eq(cg_detect(&r, "1 2 3:4 / /x rw shared:1 cgroup2 cgroup2 rw\n", "0::/\n",
				   "", err, sizeof err),
			 -1);
	err[0] = '\0';
	ck_assert_int_eq(cg_detect(&r, MI_HOST, "garbage\n", "", err, sizeof err), -1);
	ck_assert_msg(strstr(err, "/proc/self/cgroup line 1") != NULL, "err: %s", err);
	ck_assert_int_eq(cg_detect(&r, MI_HOST, "4:memory:relative\n", "", err, sizeof err), -1);
	ck_assert_int_eq(cg_detect(&r, NULL, SELF_HOST, "", err, sizeof err), -1);
	ck_assert_int_eq(cg_detect(NULL, MI_HOST, SELF_HOST, "", err, sizeof err), -1);
	/* Empty texts are usable: nothing is mounted. */
	ck_assert_int_eq(cg_detect(&r, "", "", "", err, sizeof err), 0);
	ck_assert_int_eq(r.version, CG_NONE);
}
END_TEST

static Suite *cgroup_detect_suite(void)
{
	Suite *s = suite_create("cgroup_detect");
	TCase *tc = tcase_create("fake");
	tcase_add_unchecked_fixture(tc, top_setup, top_teardown);
	tcase_add_test(tc, test_detect_v2);
	tcase_add_test(tc, test_detect_v2_mount_root);
	tcase_add_test(tc, test_detect_v2_escaped_mountpoint);
	tcase_add_test(tc, test_detect_v2_controllers_missing);
	tcase_add_test(tc, test_detect_v1_host);
	tcase_add_test(tc, test_detect_v1_variants);
	tcase_add_test(tc, test_detect_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(cgroup_detect_suite, NULL);
}
