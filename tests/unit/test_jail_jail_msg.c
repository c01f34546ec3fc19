/* Unit tests for the status pipe's records (sandboxd/jail/jail_msg.c): a
 * payload's usage survives a record exactly, hostile values in a record
 * (negative times and sizes) read as none, and a record written by the real
 * sandboxd-reaper, a musl program, is read by this glibc one field for
 * field: the reaper is run with the channels a fork server gives it, handed
 * a job as the daemon hands one, and its record (it has no job to reap
 * here, so it reports that it lost it) must be one whole jail_msg with the
 * kind and text it wrote (skipped, with the reason, on a kernel without
 * close_range, which the reaper needs). Environment: SBX_BUILD (default
 * build). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/warm_msg.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

START_TEST(test_usage_round_trip)
{
	struct rusage in, out;
	memset(&in, 0, sizeof in);
	in.ru_utime.tv_sec = 12;
	in.ru_utime.tv_usec = 345678;
	in.ru_stime.tv_sec = 0;
	in.ru_stime.tv_usec = 999999;
	in.ru_maxrss = 123456;
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	jail_msg_set_usage(&m, &in);
	ck_assert_int_eq(m.utime_us, 12345678);
	ck_assert_int_eq(m.stime_us, 999999);
	ck_assert_int_eq(m.maxrss_kb, 123456);
	jail_msg_usage(&m, &out);
	ck_assert_int_eq(out.ru_utime.tv_sec, 12);
	ck_assert_int_eq(out.ru_utime.tv_usec, 345678);
	ck_assert_int_eq(out.ru_stime.tv_sec, 0);
	ck_assert_int_eq(out.ru_stime.tv_usec, 999999);
	ck_assert_int_eq(out.ru_maxrss, 123456);
}
END_TEST

START_TEST(test_hostile_usage_reads_as_none)
{
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.utime_us = -5;
	m.stime_us = INT64_MIN;
	m.maxrss_kb = -1;
	struct rusage out;
	memset(&out, 0xff, sizeof out);
	jail_msg_usage(&m, &out);
	ck_assert_int_eq(out.ru_utime.tv_sec, 0);
	ck_assert_int_eq(out.ru_utime.tv_usec, 0);
	ck_assert_int_eq(out.ru_stime.tv_sec, 0);
	ck_assert_int_eq(out.ru_stime.tv_usec, 0);
	ck_assert_int_eq(out.ru_maxrss, 0);
	/* The largest time stays a time, not an overflow. */
	m.utime_us = INT64_MAX;
	jail_msg_usage(&m, &out);
	ck_assert_int_eq(out.ru_utime.tv_sec, INT64_MAX / 1000000);
	ck_assert_int_eq(out.ru_utime.tv_usec, INT64_MAX % 1000000);
}
END_TEST

START_TEST(test_musl_reaper_record_reads_whole)
{
	const char *b = getenv("SBX_BUILD");
	char exe[4096];
	snprintf(exe, sizeof exe, "%s/sandboxd-reaper", b && *b ? b : "build");
	ck_assert_msg(access(exe, X_OK) == 0, "%s: build it first (make all)", exe);
	/* The reaper closes what it does not keep with close_range (Linux 5.9);
	 * before it, it reports that step as failed instead of reaping. */
	if (syscall(SYS_close_range, ~0U, ~0U, 0) < 0 && errno == ENOSYS)
		SKIP_TEST("no close_range (Linux 5.9): the reaper cannot hand a job on here");
	int ch[2], bc[2], st[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, bc), 0);
	ck_assert_int_eq(pipe2(st, O_CLOEXEC), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* As a fork server's job pid 1 has them: its channel on 3, the
		 * job forked ahead's on 4, nothing else. */
		if (dup2(ch[1], REAPER_CH) < 0 || dup2(bc[1], REAPER_BC) < 0)
			_exit(126);
		static char *const argv[] = {"sandboxd-init", NULL};
		static char *const envp[] = {NULL};
		execve(exe, argv, envp);
		_exit(126);
	}
	close(ch[1]);
	close(bc[1]);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(null, 0);
	int fds[WJ_COUNT_PLAIN];
	for (int i = 0; i < WJ_COUNT_PLAIN; i++)
		fds[i] = i == WJ_STATUS ? st[1] : null;
	ck_assert_int_eq(warm_msg_send(ch[0], WARM_JOB, fds, WJ_COUNT_PLAIN), 0);
	close(st[1]);
	struct jail_msg m;
	char extra[512];
	ssize_t n = read(st[0], &m, sizeof m);
	ck_assert_int_eq(n, (ssize_t)sizeof m);
	/* One record, nothing after it (a larger struct would leave bytes).
	 * The status pipe's last writer is the copy the reaper handed on to
	 * the job, unread on bc: closing that end drops it. */
	close(bc[0]);
	ck_assert_int_eq(read(st[0], extra, sizeof extra), 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 126, "the reaper did not run");
	ck_assert_int_eq(m.kind, JAIL_MSG_ERROR);
	m.text[sizeof m.text - 1] = '\0';
	/* As root it hands the job on and finds no job to reap; without root
	 * it cannot drop the capability bounding set and says so. */
	if (geteuid() == 0)
		ck_assert_str_eq(m.text, "reaper lost the job");
	else
		ck_assert_str_eq(m.text, "reaper");
	ck_assert_int_eq(m.utime_us, 0);
	ck_assert_int_eq(m.maxrss_kb, 0);
	close(st[0]);
	close(ch[0]);
	close(null);
}
END_TEST

static Suite *jail_msg_suite(void)
{
	Suite *s = suite_create("jail_msg");
	TCase *t = tcase_create("msg");
	tcase_add_test(t, test_usage_round_trip);
	tcase_add_test(t, test_hostile_usage_reads_as_none);
	tcase_add_test(t, test_musl_reaper_record_reads_whole);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(jail_msg_suite, NULL);
}
