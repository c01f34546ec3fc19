/* Unit tests for sandboxd/jail/procfs.c: a process's first child, a pidfd's
 * pid from fdinfo, a status field; what is not there is -1, never a number
 * read from the wrong line. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/procfs.h"
#include "tests/helpers/tmain.h"

START_TEST(test_first_child_and_fields)
{
	ck_assert_int_eq(procfs_first_child(getpid()), -1); /* none yet */
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_eq(procfs_first_child(getpid()), c);
	int pf = (int)syscall(SYS_pidfd_open, c, 0);
	if (pf >= 0) { /* pidfd_open: Linux 5.3 */
		ck_assert_int_eq(procfs_field(0, pf, "Pid:"), c);
		close(pf);
	}
	ck_assert_int_gt(procfs_field(getpid(), -1, "VmRSS:"), 0);
	ck_assert_int_eq(procfs_field(getpid(), -1, "Pid:"), getpid());
	/* "PPid:" contains "Pid:": only a line that starts with the key counts. */
	ck_assert_int_eq(procfs_field(c, -1, "PPid:"), getpid());
	ck_assert_int_eq(procfs_field(getpid(), -1, "NoSuchKey:"), -1);
	ck_assert_int_eq(procfs_field(getpid(), 999999, "Pid:"), -1);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	ck_assert_int_eq(procfs_first_child(getpid()), -1);
	char buf[8];
	ck_assert_int_eq(procfs_read("/proc/self/no-such-file", buf, sizeof buf), -1);
	/* A long file is cut to the buffer, NUL-terminated. */
	ck_assert_int_eq(procfs_read("/proc/self/status", buf, sizeof buf), 7);
	ck_assert_uint_eq(buf[7], '\0');
}
END_TEST

static Suite *procfs_suite(void)
{
	Suite *s = suite_create("procfs");
	tcase_add_test(tmain_tcase(s, "procfs", 10), test_first_child_and_fields);
	return s;
}

int main(void)
{
	return tmain(procfs_suite, NULL);
}
