/* Unit test of the cgroup layer (sandboxd/jail/cgroup.c) against the real
 * hierarchy, when it is usable here: a job with limits, attached, killed,
 * its stats read and its cgroups removed (a skip with the reason where it
 * is not usable). */
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

static const struct cg_limits L64 = {64ull << 20, 8, 1};

/* ---- the real hierarchy ----------------------------------------------- */

/* The real test first moves itself into a private cgroup (v1) so cg_setup's
 * stale-job cleanup can only ever see its own jobs; teardown, which runs in
 * the runner process, removes whatever a failed run left. */
static char g_real_name[64];
static struct cg_root g_orig; /* detection before the test moved anywhere */
static bool g_v2_had_layout;  /* v2: a sandboxd layout existed before us */

static bool parent_of(char *out, const char *jobs)
{
	if (!jobs[0])
		return false;
	snprintf(out, PATH_MAX, "%s", jobs);
	*strrchr(out, '/') = '\0';
	return true;
}

/* Own cgroup dirs (v1: one per hierarchy; v2: one), before the test. */
static int orig_dirs(char dirs[4][PATH_MAX])
{
	int n = 0;
	const char *src[] = {g_orig.v2_jobs, g_orig.v1_memory, g_orig.v1_pids, g_orig.v1_cpuacct,
			     g_orig.v1_cpu};
	for (int i = 0; i < 5; i++) {
		if (!parent_of(dirs[n], src[i]))
			continue;
		bool dup = false;
		for (int k = 0; k < n; k++)
			dup = dup || strcmp(dirs[k], dirs[n]) == 0;
		n += !dup;
	}
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, s, strlen(s));
	close(fd);
	return w == (ssize_t)strlen(s) ? 0 : -1;
}

/* Kills and removes a cgroup subtree, children first. */
static void purge(const char *path)
{
	char dir[PATH_MAX]; /* path may be a rotating P() buffer */
	set(dir, path);
	DIR *d = opendir(dir);
	if (!d)
		return;
	const struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			purge(P("%s/%s", dir, de->d_name));
	closedir(d);
	struct cg_job j;
	memset(&j, 0, sizeof j);
	snprintf(j.v2, sizeof j.v2, "%s", dir);
	cg_job_kill(&j, 1000);
	if (rmdir(dir) < 0 && errno != ENOENT)
		fprintf(stderr, "test_jail_cgroup_real: could not remove %s: %s\n", dir,
			strerror(errno));
}

static void real_setup(void)
{
	snprintf(g_real_name, sizeof g_real_name, "sbxtest-%d", (int)getpid());
	if (cg_detect_system(&g_orig, err, sizeof err) < 0)
		memset(&g_orig, 0, sizeof g_orig);
	char o[PATH_MAX];
	g_v2_had_layout = g_orig.version == CG_V2 && parent_of(o, g_orig.v2_jobs) &&
			  (exists(P("%s/sandboxd", o)) || exists(P("%s/sandboxd-daemon", o)));
}

/* v2 only: the daemon layout lives in the runner's own cgroup O. */
static void real_v2_undo(const char *o)
{
	char buf[256];
	purge(P("%s/sandboxd", o));
	/* Undo the delegation so the processes can go back into O. */
	const char *ctl = get(P("%s/cgroup.subtree_control", o));
	snprintf(buf, sizeof buf, "%s", ctl ? ctl : "");
	for (char *s = buf, *tok; (tok = strsep(&s, " \n")) != NULL;)
		if (*tok)
			write_str(P("%s/cgroup.subtree_control", o), P("-%s", tok));
	const char *procs = get(P("%s/sandboxd-daemon/cgroup.procs", o));
	snprintf(buf, sizeof buf, "%s", procs ? procs : "");
	for (char *s = buf, *tok; (tok = strsep(&s, "\n")) != NULL;)
		if (*tok)
			write_str(P("%s/cgroup.procs", o), tok);
	purge(P("%s/sandboxd-daemon", o));
}

static void real_teardown(void)
{
	char dirs[4][PATH_MAX];
	int n = orig_dirs(dirs);
	if (g_orig.version == CG_V2) {
		if (n == 1 && !g_v2_had_layout && exists(P("%s/sandboxd-daemon", dirs[0])))
			real_v2_undo(dirs[0]);
		return;
	}
	for (int i = 0; i < n; i++) {
		write_str(P("%s/cgroup.procs", dirs[i]), P("%d", (int)getpid()));
		purge(P("%s/%s", dirs[i], g_real_name));
	}
}

/* v1: moves this process into <own>/<g_real_name> in every hierarchy; false
 * with the reason in why when a hierarchy does not let it. */
static bool real_v1_enter(char dirs[4][PATH_MAX], int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		const char *p = P("%s/%s", dirs[i], g_real_name);
		if (mkdir(p, 0755) < 0 ||
		    write_str(P("%s/cgroup.procs", p), P("%d", (int)getpid())) < 0) {
			snprintf(why, len, "the v1 cgroup %s is not usable: %s", p,
				 strerror(errno));
			return false;
		}
	}
	return true;
}

/* v2: only when the runner's cgroup O is not the root, holds nobody but
 * this test and its runner, and has no sandboxd layout of its own. The
 * runner is moved into the daemon leaf along with us. */
static bool real_v2_enter(const char *o, char *why, size_t len)
{
	char buf[4096];
	const char *ctl = get(P("%s/cgroup.controllers", o));
	if (!ctl || !strstr(ctl, "memory") || !strstr(ctl, "pids")) {
		snprintf(why, len,
			 "the v2 cgroup %s does not offer the memory and pids controllers", o);
		return false;
	}
	const char *procs = get(P("%s/cgroup.procs", o));
	if (!g_orig.v2_daemon[0] || !procs || g_v2_had_layout) {
		snprintf(why, len,
			 "the v2 cgroup %s is not this test's alone (%s), so it may not be "
			 "reorganised",
			 o,
			 !g_orig.v2_daemon[0] ? "it is the hierarchy's root"
			 : !procs	      ? "its cgroup.procs is unreadable"
					      : "a sandboxd layout is already there");
		return false;
	}
	snprintf(buf, sizeof buf, "%s", procs);
	for (char *s = buf, *tok; (tok = strsep(&s, "\n")) != NULL;) {
		if (*tok && atoi(tok) != getpid() && atoi(tok) != getppid()) {
			snprintf(why, len,
				 "the v2 cgroup %s holds other processes (pid %s), so it may not "
				 "be reorganised",
				 o, tok);
			return false;
		}
	}
	if (mkdir(P("%s/sandboxd-daemon", o), 0755) < 0 ||
	    write_str(P("%s/sandboxd-daemon/cgroup.procs", o), P("%d", (int)getppid())) < 0) {
		snprintf(why, len, "cannot make and enter %s/sandboxd-daemon: %s", o,
			 strerror(errno));
		rmdir(P("%s/sandboxd-daemon", o));
		return false;
	}
	return true;
}

START_TEST(test_real_job)
{
	char dirs[4][PATH_MAX], saved[5][PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns = 0;
	char why[PATH_MAX + 256] = "";
	int n = orig_dirs(dirs);
	if (geteuid() != 0)
		SKIP_TEST("needs root to make cgroups (uid %d)", (int)geteuid());
	if (g_orig.version == CG_NONE || n == 0)
		SKIP_TEST("no usable cgroup hierarchy: neither v2 with memory and pids nor v1 "
			  "memory and pids hierarchies (detected: %s)",
			  cg_version_name(g_orig.version));
	if (g_orig.version == CG_V1 ? !real_v1_enter(dirs, n, why, sizeof why)
				    : !real_v2_enter(dirs[0], why, sizeof why))
		SKIP_TEST("%s", why);
	ck_assert_msg(cg_detect_system(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(r.version, g_orig.version);
	if (r.version == CG_V1)
		ck_assert_msg(strstr(r.v1_memory, g_real_name) && strstr(r.v1_pids, g_real_name),
			      "%s %s", r.v1_memory, r.v1_pids);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert_msg(cg_job_create(&r, "job-real-1", &L64, &j, err, sizeof err) == 0, "%s", err);
	snprintf(saved[0], PATH_MAX, "%s", j.v2);
	snprintf(saved[1], PATH_MAX, "%s", j.v1_memory);
	snprintf(saved[2], PATH_MAX, "%s", j.v1_pids);
	snprintf(saved[3], PATH_MAX, "%s", j.v1_cpuacct);
	snprintf(saved[4], PATH_MAX, "%s", j.v1_cpu);
	/* One CPU's worth of time per 100 ms period, where a cpu controller is. */
	if (r.cpu_cap && r.version == CG_V2)
		ck_assert_str_eq(get(P("%s/cpu.max", j.v2)), "100000 100000\n");
	else if (r.cpu_cap)
		ck_assert_str_eq(get(P("%s/cpu.cfs_quota_us", j.v1_cpu)), "100000\n");
	if (r.version == CG_V2) {
		ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "67108864\n");
		ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "8\n");
	} else {
		/* With the tcp counter, 8 MiB of the 64 go to socket buffers. */
		const char *mem = r.v1_kmem_tcp ? "58720256\n" : "67108864\n";
		ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), mem);
		ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "8\n");
		if (r.v1_memsw)
			ck_assert_str_eq(get(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)),
					 mem);
		if (r.v1_kmem_tcp)
			ck_assert_str_eq(get(P("%s/memory.kmem.tcp.limit_in_bytes", j.v1_memory)),
					 "8388608\n");
	}

	/* The child waits to be attached, then spins and tries to fork past
	 * pids.max. */
	/* Adopt the grandchildren so they can be reaped here, not left as
	 * zombies for an init that may not reap. */
	ck_assert(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	int go[2];
	ck_assert(pipe(go) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		for (int i = 0; i < 12; i++)
			if (fork() == 0)
				for (;;)
					pause();
		for (volatile unsigned long x = 0;; x++)
			;
	}
	close(go[0]);
	ck_assert_int_eq(cg_job_attach(&j, c), 0);
	ck_assert_int_eq(cg_job_nprocs(&j), 1);
	ck_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	for (int i = 0; i < 500 && cg_job_nprocs(&j) < 8; i++)
		usleep(2000);
	ck_assert_int_eq(cg_job_nprocs(&j), 8); /* the child and 7 of its 12 forks */
	bool have_cpu = r.version == CG_V2 || r.v1_cpuacct[0];
	for (int i = 0; i < 500 && have_cpu && ns < 20000000; i++) {
		ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
		usleep(2000);
	}
	ck_assert_int_eq(cg_job_kill(&j, 2000), 0);
	ck_assert_int_eq(cg_job_nprocs(&j), 0);
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (int i = 0; i < 7; i++)
		ck_assert(waitpid(-1, &st, 0) > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	if (have_cpu)
		ck_assert_msg(s.cpu_ns >= 20000000, "cpu_ns %llu", (unsigned long long)s.cpu_ns);
	ck_assert_uint_ge(s.pids_max_hit, 1);
	/* A peak exists on v1 (max_usage_in_bytes) and on v2 from 5.19 (memory.peak;
	 * a backport may have it earlier): ask the job's cgroup, before it goes. */
	if (r.version == CG_V1 || exists(P("%s/memory.peak", j.v2)))
		ck_assert_uint_gt(s.memory_peak, 0);
	else
		ck_assert_uint_eq(s.memory_peak, 0);
	ck_assert_uint_eq(s.oom_kills, 0);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
	for (int i = 0; i < 5; i++)
		ck_assert(!saved[i][0] || !exists(saved[i]));

	/* Leave no cgroups behind. */
	if (r.version == CG_V2) {
		real_v2_undo(dirs[0]);
		ck_assert(!exists(P("%s/sandboxd-daemon", dirs[0])));
		ck_assert(!exists(P("%s/sandboxd", dirs[0])));
	} else {
		for (int i = 0; i < n; i++) {
			ck_assert(
			    write_str(P("%s/cgroup.procs", dirs[i]), P("%d", (int)getpid())) == 0);
			ck_assert(rmdir(P("%s/%s/sandboxd", dirs[i], g_real_name)) == 0);
			ck_assert(rmdir(P("%s/%s", dirs[i], g_real_name)) == 0);
		}
	}
}
END_TEST

static Suite *cgroup_real_suite(void)
{
	Suite *s = suite_create("cgroup_real");
	TCase *tc = tcase_create("real");
	tcase_add_unchecked_fixture(tc, real_setup, real_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_real_job);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(cgroup_real_suite, NULL);
}
