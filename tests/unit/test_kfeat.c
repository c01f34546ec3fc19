/* Unit tests for the kernel feature probes: each probe against an
 * independent look at the same feature on the running kernel, and the
 * start-up check's messages on made-up kernels. */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../sandboxd/kfeat.h"

static int g_major, g_minor;

static bool newer_than(int major, int minor)
{
	return g_major > major || (g_major == major && g_minor >= minor);
}

START_TEST(test_probe_matches_kernel)
{
	struct kfeat k;
	kfeat_probe(&k);
	ck_assert_int_eq(k.major, g_major);
	ck_assert_int_eq(k.minor, g_minor);
	/* Features older than the documented minimum (5.4) are present on any
	 * kernel this suite runs on; newer ones follow the release. */
	ck_assert(k.seccomp_filter);
	ck_assert(k.seccomp_notify);
	ck_assert(k.pidfd);
	ck_assert_int_eq(k.close_range, newer_than(5, 9));
	ck_assert_int_eq(k.mount_setattr, newer_than(5, 12));
	ck_assert_int_eq(k.wait_killable, newer_than(5, 19));
	ck_assert_int_eq(k.notify_hup_safe, newer_than(6, 6));
	if (geteuid() == 0)
		ck_assert(k.namespaces);
	/* 32-bit emulation, checked the probe's way but separately: the i386
	 * getpid through int 0x80 returns our pid or the child dies. */
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		_exit(r == getpid() ? 0 : 1);
	}
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid);
	ck_assert_int_eq(k.ia32, WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char line[512];
	kfeat_describe(&k, line, sizeof line);
	ck_assert_msg(strstr(line, "pidfd yes") && strstr(line, "kernel "), "%s", line);
	fprintf(stderr, "[kfeat] %s\n", line);
}
END_TEST

START_TEST(test_check_messages)
{
	struct kfeat k = {.namespaces = true, .seccomp_filter = true, .seccomp_notify = true};
	char err[512] = "";
	ck_assert_int_eq(kfeat_check(&k, true, err, sizeof err), 0);
	k.seccomp_notify = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), 0);
	ck_assert_int_eq(kfeat_check(&k, true, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "user notification"), "%s", err);
	k.seccomp_filter = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "SECCOMP_FILTER"), "%s", err);
	k.namespaces = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "namespaces"), "%s", err);
}
END_TEST

int main(void)
{
	struct utsname u;
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &g_major, &g_minor) != 2)
		return 1;
	Suite *s = suite_create("kfeat");
	TCase *tc = tcase_create("probe");
	tcase_add_test(tc, test_probe_matches_kernel);
	tcase_add_test(tc, test_check_messages);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
