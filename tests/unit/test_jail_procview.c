/* Unit tests for the job's /proc view: what procview_prepare() formats for
 * given limits (meminfo totals, the CPU count in stat and cpuinfo, its
 * clamping), and, as root in a private mount namespace, what
 * procview_apply() leaves in a fresh proc mount: the masked entries empty,
 * the job's files in place, no staging directory, and glibc's own CPU
 * counts (get_nprocs, sysconf) agreeing with the view once /sys is gone, as
 * in the jail. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/procview.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

static struct procview g_pv; /* large: not on the test's stack */

static long field_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	ck_assert_msg(p != NULL, "%s missing", key);
	return strtol(p + strlen(key) + 1, NULL, 10);
}

static int count_lines(const char *text, const char *prefix, int digit)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (strncmp(l, prefix, pl) == 0 && (!digit || (l[pl] >= '0' && l[pl] <= '9')))
			n++;
	return n;
}

static int host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > PROCVIEW_MAX_CPUS ? PROCVIEW_MAX_CPUS : (int)n;
}

START_TEST(test_meminfo_is_the_limit)
{
	struct jail_limits lim = {.memory_mb = 200, .cpus = 1};
	ck_assert_int_eq(procview_prepare(&g_pv, &lim), 0);
	ck_assert_int_eq(field_kb(g_pv.meminfo, "MemTotal:"), 200 * 1024);
	ck_assert_int_eq(field_kb(g_pv.meminfo, "MemFree:"), 200 * 1024);
	ck_assert_int_eq(field_kb(g_pv.meminfo, "MemAvailable:"), 200 * 1024);
	ck_assert_int_eq(field_kb(g_pv.meminfo, "SwapTotal:"), 0);
	/* Every line is "Key: value" as the kernel writes it. */
	for (const char *l = g_pv.meminfo; *l; l = strchr(l, '\n') + 1)
		ck_assert_msg(strchr(l, ':') && strchr(l, ':') < strchr(l, '\n'), "bad line %.40s",
			      l);
	ck_assert_str_eq(g_pv.loadavg, "0.00 0.00 0.00 1/1 1\n");
	/* btime is the host's (process start times are relative to it). */
	char *line = NULL, want[64] = "";
	size_t cap = 0;
	FILE *f = fopen("/proc/stat", "r");
	ck_assert_ptr_nonnull(f);
	while (getline(&line, &cap, f) > 0)
		if (strncmp(line, "btime ", 6) == 0)
			snprintf(want, sizeof want, "\n%s", line);
	free(line);
	fclose(f);
	ck_assert_msg(want[0] && strstr(g_pv.stat, want), "btime differs: %s", want);
}
END_TEST

/* The count the files show: the cap, at least 1, at most the host's. */
START_TEST(test_cpu_count_clamped)
{
	const long caps[] = {1, 0, -3, 2, 3, 1000};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		struct jail_limits lim = {.memory_mb = 64, .cpus = caps[i]};
		ck_assert_int_eq(procview_prepare(&g_pv, &lim), 0);
		int want = caps[i] < 1 ? 1 : caps[i] > host_cpus() ? host_cpus() : (int)caps[i];
		ck_assert_int_eq(g_pv.ncpus, want);
		ck_assert_int_eq(count_lines(g_pv.stat, "cpu", 1), want);
		ck_assert_int_eq(count_lines(g_pv.stat, "cpu ", 0), 1);
		ck_assert_int_eq(count_lines(g_pv.cpuinfo, "processor", 0), want);
		ck_assert_msg(strstr(g_pv.stat, "\nbtime ") != NULL, "no btime");
		if (strstr(g_pv.cpuinfo, "siblings")) {
			char want_sib[32];
			snprintf(want_sib, sizeof want_sib, ": %d\n", want);
			ck_assert_ptr_nonnull(strstr(strstr(g_pv.cpuinfo, "siblings"), want_sib));
		}
	}
}
END_TEST

/* Runs in a forked child, in a mount namespace of its own: returns the
 * number of the first check that failed, 0 when all held. */
static int apply_child(const char *dir, const char *stage, int want_cpus)
{
	char buf[8192];
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=1m") < 0 || chdir(dir) < 0 ||
	    mkdir("proc", 0555) < 0 || mount("proc", "proc", "proc", 0, NULL) < 0)
		return 1;
	umask(077); /* a daemon started under a strict umask */
	if (procview_apply(&g_pv, stage) < 0)
		return 2;
	/* The stage is the caller's to detach (mounts_prepare: with the old
	 * root); the binds and the open files outlive it. */
	if (umount2(stage, MNT_DETACH) < 0)
		return 2;
	struct stat st;
	if (stat("proc/meminfo", &st) < 0 || (st.st_mode & 0777) != 0444 ||
	    (stat("proc/pressure", &st) == 0 && (st.st_mode & 0777) != 0555))
		return 9;
	if (access(".procview", F_OK) == 0 || errno != ENOENT)
		return 3;
	static const char *const empty[] = {"proc/cmdline", "proc/sys/kernel/random/boot_id",
					    "proc/key-users", "proc/zoneinfo", NULL};
	for (int i = 0; empty[i]; i++) {
		int fd = open(empty[i], O_RDONLY);
		if (fd >= 0 && read(fd, buf, sizeof buf) != 0)
			return 10 + i;
		if (fd >= 0)
			close(fd);
	}
	/* Directories masked (named "dir/" in the list) are empty, where this
	 * kernel has them. */
	static const char *const dirs[] = {"proc/pressure", "proc/acpi", "proc/driver", NULL};
	for (int i = 0; dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d && errno == ENOENT)
			continue;
		int seen = 0;
		for (struct dirent *de; d && (de = readdir(d)) != NULL;)
			seen += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
		if (!d || seen)
			return 20 + i;
		closedir(d);
	}
	int fd = open("proc/meminfo", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (n < 0 || (size_t)n != strlen(g_pv.meminfo) || memcmp(buf, g_pv.meminfo, (size_t)n))
		return 4;
	if (open("proc/stat", O_WRONLY) >= 0) /* read-only binds */
		return 5;
	/* glibc as in the jail: no /sys, this /proc. */
	if (mount("tmpfs", "/sys", "tmpfs", 0, "size=4k") < 0 ||
	    mount("proc", "/proc", NULL, MS_BIND | MS_REC, NULL) < 0)
		return 6;
	if (get_nprocs() != want_cpus)
		return 7;
	if (sysconf(_SC_NPROCESSORS_ONLN) != want_cpus ||
	    sysconf(_SC_NPROCESSORS_CONF) != want_cpus)
		return 8;
	return 0;
}

START_TEST(test_apply_in_namespace)
{
	if (geteuid() != 0)
		SKIP_TEST("needs root for a mount namespace");
	if (host_cpus() < 2)
		SKIP_TEST("one CPU: the view's count cannot differ from the host's");
	struct jail_limits lim = {.memory_mb = 100, .cpus = 1};
	ck_assert_int_eq(procview_prepare(&g_pv, &lim), 0);
	char dir[] = "/tmp/sbx-procview.XXXXXX", stage[] = "/tmp/sbx-procview-stage.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(mkdtemp(stage));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(apply_child(dir, stage, 1));
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	rmdir(dir);
	rmdir(stage);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "check %d failed",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
END_TEST

static Suite *procview_suite(void)
{
	Suite *s = suite_create("procview");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_meminfo_is_the_limit);
	tcase_add_test(tc, test_cpu_count_clamped);
	tcase_add_test(tc, test_apply_in_namespace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(procview_suite, NULL);
}
