/* Integration tests of the daemon's open-file limit (sandboxd/server/fds.c)
 * against a real sandboxd: started under systemd's default soft limit of
 * 1024 it raises RLIMIT_NOFILE to what --max-connections and the jobs need;
 * when the limit cannot be raised that far it refuses to start and says
 * which setting to change. The attacks themselves (idle connections until
 * refused, accept() out of descriptors) are tests/hostile/client_fd_*.py.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers/daemon.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"

#define TIMEOUT_S 120

/* The soft "Max open files" of a process, from /proc/PID/limits. */
static long soft_nofile(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	FILE *f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	long v = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Max open files", 14) == 0)
			v = strtol(line + 14, NULL, 10);
	fclose(f);
	return v;
}

/* Runs td_startv with this process's soft limit set to `soft` (inherited
 * by the daemon), then restores it. */
static int start_with_soft(struct test_daemon *d, rlim_t soft, const char *const *args)
{
	struct rlimit old, low;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = soft;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	int rc = td_startv(d, args);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	return rc;
}

START_TEST(test_raised_at_start)
{
	struct test_daemon d;
	const char *args[] = {"--workers", "2", "--max-connections", "3000", NULL};
	ck_assert_msg(start_with_soft(&d, 1024, args) == 0, "%s", d.err);
	long soft = soft_nofile(d.pid);
	/* 3000 connections + the queue (2 x 1024) + 2 workers' jobs and the
	 * namespaces they leave to be let go (2 x (32 + 2)) + the margin. */
	ck_assert_msg(soft >= 3000 + 2048 + 2 * (32 + 2) + 64, "soft NOFILE %ld", soft);
	ck_assert(td_log_contains(&d, "RLIMIT_NOFILE raised"));
	td_stop(&d, 10000);
	td_cleanup(&d);
}
END_TEST

/* The idle daemon holds descriptors of its own and of its fork servers
 * (each with its pooled network namespace and that namespace's files);
 * a connection's descriptor comes after them. So the limit it sets must
 * hold them, --max-connections connections and a job per worker (32).
 * Before, a daemon with a small --max-connections refused every client
 * once its servers were up: their descriptors used its connections' room.
 * Started from a soft limit of 64, the daemon raises it to exactly what it
 * needs. */
START_TEST(test_limit_holds_warm)
{
	struct test_daemon d;
	const char *args[] = {"--workers", "2", "--max-connections", "8", "--queue", "2", NULL};
	ck_assert_msg(start_with_soft(&d, 64, args) == 0, "%s", d.err);
	ck_assert_msg(td_wait_warm(&d, 45000) == 0, "%s", d.err);
	/* Once ready, each server's namespace is made while its slot idles. */
	int fds = tproc_fd_count_settled(d.pid, 1000, 30000);
	ck_assert_int_gt(fds, 0);
	int conns[8];
	for (int i = 0; i < 8; i++) {
		static const char req[] = "{\"id\":\"p\",\"op\":\"ping\"}\n";
		conns[i] = td_raw_connect(d.sock);
		json_t *p = conns[i] >= 0 && td_raw_send(conns[i], req, sizeof req - 1) == 0
				? td_raw_read_json(conns[i], 5000)
				: NULL;
		bool ok = p && json_object_get(p, "version");
		json_decref(p);
		ck_assert_msg(ok,
			      "connection %d of --max-connections 8 was refused (the idle "
			      "daemon held %d descriptors)",
			      i + 1, fds);
	}
	long now = tproc_fd_count(d.pid), soft = soft_nofile(d.pid);
	ck_assert_msg(now > 0 && soft - now >= 2 * 32,
		      "with 8 connections the daemon holds %ld of %ld descriptors: no room for "
		      "a job per worker (2 x 32)",
		      now, soft);
	for (int i = 0; i < 8; i++)
		close(conns[i]);
	td_stop(&d, 10000);
	td_cleanup(&d);
}
END_TEST

START_TEST(test_refused_when_unreachable)
{
	/* More than fs.nr_open allows even root: the daemon must not start
	 * and then fail jobs at the 1,000th connection. */
	long nr_open = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &nr_open), 1);
	fclose(f);
	if (nr_open > (1L << 20) - 1000) {
		char conns[32];
		snprintf(conns, sizeof conns, "%ld", 1L << 20);
		struct test_daemon d;
		const char *args[] = {"--workers", "1", "--max-connections", conns, NULL};
		ck_assert_int_ne(start_with_soft(&d, 1024, args), 0);
		ck_assert_msg(strstr(d.err, "LimitNOFILE") && strstr(d.err, "--max-connections"),
			      "the refusal does not name what to change: %s", d.err);
		td_cleanup(&d);
	}
	/* A hard limit below the need: root raises it when it holds
	 * CAP_SYS_RESOURCE, else the daemon refuses to start; it never runs
	 * with fewer descriptors than its configuration needs. */
	int fd[2];
	ck_assert_int_eq(pipe(fd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit low = {1024, 1024};
		if (setrlimit(RLIMIT_NOFILE, &low) < 0)
			_exit(2);
		struct test_daemon d2;
		const char *args[] = {"--workers", "1", NULL};
		int rc = td_startv(&d2, args);
		long soft = rc == 0 ? soft_nofile(d2.pid) : -1;
		dprintf(fd[1], "%d %ld %.900s", rc, soft, d2.err);
		td_stop(&d2, 10000);
		td_cleanup(&d2);
		_exit(0);
	}
	close(fd[1]);
	char buf[1024] = "";
	ssize_t n = read(fd[0], buf, sizeof buf - 1);
	close(fd[0]);
	waitpid(pid, NULL, 0);
	ck_assert_int_gt(n, 0);
	int rc = -9;
	long soft = -1;
	ck_assert_int_eq(sscanf(buf, "%d %ld", &rc, &soft), 2);
	if (rc == 0)
		ck_assert_msg(soft >= 4096 + 64 + 32 + 2 + 64, "started with soft NOFILE %ld",
			      soft);
	else
		ck_assert_msg(strstr(buf, "LimitNOFILE") && strstr(buf, "RLIMIT_NOFILE is 1024"),
			      "the refusal does not say why: %s", buf);
}
END_TEST

static Suite *fdlimit_suite(void)
{
	Suite *s = suite_create("daemon_fdlimit");
	TCase *t = tmain_tcase(s, "fdlimit", TIMEOUT_S);
	tcase_add_test(t, test_raised_at_start);
	tcase_add_test(t, test_limit_holds_warm);
	tcase_add_test(t, test_refused_when_unreachable);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-fdlim"};
	return tmain(fdlimit_suite, &opts);
}
