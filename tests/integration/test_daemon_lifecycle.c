/* Integration tests of the daemon's life against a real sandboxd: SIGTERM and
 * SIGKILL mid-job (and a restart on the same socket), the first job of a fresh
 * daemon, two daemons side by side, and cgroup placement (refused without
 * usable cgroups unless --no-cgroups; --cgroup-parent). Each test starts its
 * own daemon (tests/helpers/daemon.c: its own socket, state dir and uid range)
 * and drives it through libsbx or a raw socket, asserting on the response
 * JSON. Run as root from the repository root (make integration). */
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one response may take */

/* --- 22: daemon lifecycle -------------------------------------------------- */

START_TEST(test_sigterm_mid_job)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("long", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	pid_t kids[16];
	int nkids = td_children(d.pid, kids, 16);
	ck_assert_msg(nkids >= 1, "the daemon has no child process while a job runs");
	long long t0 = td_now_ms();
	int st = td_stop(&d, 2000);
	long long took = td_now_ms() - t0;
	ck_assert_msg(st >= 0, "%s; log:\n%s", d.err, log_tail(&d));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exit status %d after SIGTERM; log:\n%s", st, log_tail(&d));
	ck_assert_msg(took < 2000, "took %lld ms to stop", took);
	assert_no_job_procs(&d, 500, "after SIGTERM");
	for (int i = 0; i < nkids && i < 16; i++)
		ck_assert_msg(!td_pid_alive(kids[i]), "job init %d survived", (int)kids[i]);
	/* The client is told nothing false: either an error or a closed connection. */
	char err[256];
	json_t *r = sbx_wait(c, "long", 2000, err, sizeof err);
	CHECK_R(r, !r || json_object_get(r, "error"));
	json_decref(r);
	sbx_close(c);
	ck_assert_msg(access(d.sock, F_OK) < 0, "the socket %s was left behind", d.sock);
	td_cleanup(&d);
}
END_TEST

START_TEST(test_sigkill_mid_job_and_restart)
{
	struct test_daemon d;
	/* The job's init is orphaned when the daemon dies: adopt it here so it
	 * is reaped (and a zombie is not mistaken for a live process). */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("long", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	pid_t kids[16];
	int nkids = td_children(d.pid, kids, 16);
	ck_assert_msg(nkids >= 1, "the daemon has no child process while a job runs");
	int st = td_kill(&d);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_no_job_procs(&d, 1000, "after SIGKILL of the daemon");
	long long deadline = td_now_ms() + 1000;
	for (int i = 0; i < nkids && i < 16; i++) {
		while (td_pid_alive(kids[i]) && td_now_ms() < deadline)
			td_sleep_ms(10);
		ck_assert_msg(!td_pid_alive(kids[i]), "job init %d survived the daemon",
			      (int)kids[i]);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	char err[256];
	json_t *r = sbx_wait(c, "long", 2000, err, sizeof err);
	CHECK_R(r, r == NULL);
	sbx_close(c);
	/* Same socket path (a stale socket file) and state dir. */
	ck_assert_msg(td_restart(&d) == 0, "restart: %s", d.err);
	c = conn_open(&d);
	json_t *p = ping(c, "again");
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	json_decref(p);
	r = call(c, job("works", "print('alive')"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "alive\n"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- start-up, several daemons ------------------------------------------------ */

/* The first jobs of a freshly started daemon. A job's payload is a clone of
 * a multithreaded daemon; anything in it that waits for the daemon's other
 * threads (glibc's setxid broadcast in setgroups/setresuid, a lock held at
 * clone time) hangs the job until its wall limit. Several fresh daemons
 * make a start-up race likely to show. */
/* Busy processes competing for every CPU (they die with the test). */
static int spinners_start(pid_t *pids, int max)
{
	int n = td_usable_cpus(); /* the CPUs we (and the daemon) may run on */
	int k = 0;
	for (; k < max && k < n; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
	return k;
}

static void spinners_stop(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

START_TEST(test_first_job_after_start)
{
	enum { ROUNDS = 20 };
	/* Busy CPUs delay the first run of the daemon's newly created threads,
	 * which widens a start-up race (if there is one) without changing
	 * anything a correct daemon depends on. */
	pid_t spin[8];
	int nspin = spinners_start(spin, 8);
	for (int i = 0; i < ROUNDS; i++) {
		struct test_daemon d;
		START(d, "--workers", "2");
		long long t0 = td_now_ms();
		/* The wall limit only bounds a hang: under eight spinners on a
		 * slow kernel (the VM tier's emulated CPUs), with the new daemon's
		 * fork servers starting, a correct first job can take seconds. */
		json_t *r =
		    run1(&d, lim(job("first", "print('first')"), "wall_ms", 15000), CALL_MS);
		long long took = td_now_ms() - t0;
		CHECK_RM(r, streq(sget(r, "verdict"), "pass"),
			 "daemon %d of %d: the first job did not pass (took %lld ms); log:\n%s",
			 i + 1, ROUNDS, took, log_tail(&d));
		json_decref(r);
		stop_ok(&d);
	}
	spinners_stop(spin, nspin);
}
END_TEST

/* Two daemons on one host (own sockets, state dirs and uid ranges) must
 * not get in each other's way: the same first job name on both. */
START_TEST(test_two_daemons_run_side_by_side)
{
	struct test_daemon a, b;
	START(a, "--workers", "1");
	START(b, "--workers", "1");
	struct sbx_conn *ca = conn_open(&a);
	submit(ca, job("A", "import time\ntime.sleep(1.5)\nprint('A done')\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&a), uid_hi(&a), 10000) > 0);
	json_t *rb = run1(&b, job("B", "print('B done')"), CALL_MS);
	char err[256];
	json_t *ra = sbx_wait(ca, "A", CALL_MS, err, sizeof err);
	ck_assert_msg(ra != NULL, "%s", err);
	CHECK_R(rb, streq(sget(rb, "verdict"), "pass") && streq(sget(rb, "stdout"), "B done\n"));
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass") && streq(sget(ra, "stdout"), "A done\n"));
	json_decref(ra);
	json_decref(rb);
	sbx_close(ca);
	stop_ok(&b);
	stop_ok(&a);
}
END_TEST

/* Starting (and stopping) another daemon must not kill this one's jobs. */
START_TEST(test_other_daemon_start_spares_jobs)
{
	struct test_daemon a, c;
	START(a, "--workers", "1");
	struct sbx_conn *ca = conn_open(&a);
	submit(ca, job("A", "import time\ntime.sleep(1.5)\nprint('A done')\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&a), uid_hi(&a), 10000) > 0);
	START(c, "--workers", "1");
	stop_ok(&c);
	char err[256];
	json_t *ra = sbx_wait(ca, "A", CALL_MS, err, sizeof err);
	ck_assert_msg(ra != NULL, "%s", err);
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass") && streq(sget(ra, "stdout"), "A done\n"));
	json_decref(ra);
	sbx_close(ca);
	stop_ok(&a);
}
END_TEST

/* --- cgroup placement ------------------------------------------------------ */

/* Runs sandboxd in a private mount namespace where every cgroup mount is
 * gone, as on a host without usable cgroups; returns its wait status and its
 * output (NUL-terminated) in out. With --no-cgroups it must serve, so that
 * case is stopped with SIGTERM once its socket exists. */
static int run_without_cgroups(bool no_cgroups, char *out, size_t outlen)
{
	char dir[] = "/tmp/sbx-nocg.XXXXXX", sock[64], state[64];
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof sock, "%s/sock", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(pp[1], 1);
		dup2(pp[1], 2);
		close(pp[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(90);
		/* Unmount cgroup mounts until none is left (deepest first). */
		for (int round = 0; round < 64; round++) {
			FILE *f = fopen("/proc/self/mountinfo", "re");
			char line[4096], last[PATH_MAX] = "";
			while (f && fgets(line, sizeof line, f)) {
				char *dash = strstr(line, " - "), pt[PATH_MAX];
				if (dash &&
				    (strncmp(dash, " - cgroup ", 10) == 0 ||
				     strncmp(dash, " - cgroup2 ", 11) == 0) &&
				    sscanf(line, "%*s %*s %*s %*s %4095s", pt) == 1)
					snprintf(last, sizeof last, "%s", pt);
			}
			if (f)
				fclose(f);
			if (!last[0])
				break;
			if (umount2(last, MNT_DETACH) < 0)
				_exit(91);
		}
		const char *argv[] = {
		    td_binary(), "--socket",  sock, "--state-dir",
		    state,	 "--workers", "1",  no_cgroups ? "--no-cgroups" : NULL,
		    NULL};
		execv(argv[0], (char *const *)argv);
		_exit(92);
	}
	close(pp[1]);
	long long deadline = td_now_ms() + 10000;
	int st = -1;
	bool stopped = false;
	while (td_now_ms() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (no_cgroups && !stopped && access(sock, F_OK) == 0) {
			/* It serves: one job proves it, then stop it. */
			char err[256] = "";
			struct sbx_conn *c = sbx_connect(sock, err, sizeof err);
			json_t *req = job("nocg", "print(7)");
			json_t *r = c ? sbx_call(c, req, 30000, err, sizeof err) : NULL;
			char *enf = dump(json_object_get(r, "enforcement"));
			snprintf(out, outlen, "verdict=%s enforcement=%s%s%s\n",
				 r ? sget(r, "verdict") : "none", enf,
				 r ? "" : " client: ", r ? "" : err);
			free(enf);
			json_decref(req);
			json_decref(r);
			if (c)
				sbx_close(c);
			kill(pid, SIGTERM);
			stopped = true;
		}
		td_sleep_ms(20);
	}
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		st = -1;
	}
	size_t have = strlen(out);
	ssize_t n;
	while (have + 1 < outlen && (n = read(pp[0], out + have, outlen - 1 - have)) > 0)
		have += (size_t)n;
	out[have] = '\0';
	close(pp[0]);
	td_rmtree(dir);
	return st;
}

/* A security tool must not quietly weaken itself: with no usable cgroups the
 * daemon refuses to start and says what to do; --no-cgroups is the knowing
 * choice of rlimits, and the response says so. */
START_TEST(test_refuses_without_cgroups)
{
	char out[8192] = "";
	int st = run_without_cgroups(false, out, sizeof out);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
		      "without cgroups: wait status %d, output:\n%s", st, out);
	ck_assert_msg(strstr(out, "cgroups unusable") && strstr(out, "--no-cgroups") &&
			  strstr(out, "Delegate=yes") && strstr(out, "--cgroup-parent"),
		      "output:\n%s", out);
	out[0] = '\0';
	st = run_without_cgroups(true, out, sizeof out);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "--no-cgroups: wait status %d, output:\n%s", st, out);
	ck_assert_msg(strstr(out, "verdict=pass"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "rlimit"), "enforcement does not say rlimits:\n%s", out);
}
END_TEST

/* Removes <mount><parent> in every hierarchy the daemon may have made it in
 * (v2, or the v1 memory, pids, cpuacct and cpu hierarchies, wherever
 * mounted: a separate cpu hierarchy kept one home per run before). */
static void remove_parent_everywhere(const struct td_cgmounts *m, const char *parent)
{
	const struct td_cgmount *h[] = {&m->v2, &m->memory, &m->pids, &m->cpuacct, &m->cpu};
	for (size_t i = 0; i < sizeof h / sizeof *h; i++) {
		bool seen = false; /* co-mounted hierarchies share a mount point */
		for (size_t k = 0; k < i; k++)
			seen = seen || strcmp(h[k]->path, h[i]->path) == 0;
		char dir[PATH_MAX];
		if (!h[i]->path[0] || seen ||
		    snprintf(dir, sizeof dir, "%s%s", h[i]->path, parent) >= (int)sizeof dir)
			continue;
		if (access(dir, F_OK) == 0)
			td_cgroup_rmtree(dir);
	}
}

/* --cgroup-parent: the jobs go below the named cgroup, in a home of this
 * instance, and a clean stop removes what the daemon made. The hierarchy
 * is the one the response names (enforcement.memory_mb), found where it is
 * mounted (/proc/self/mountinfo). */
START_TEST(test_cgroup_parent)
{
	struct test_daemon d;
	struct td_cgmounts m;
	char parent[64], limit_file[PATH_MAX + 32], base[PATH_MAX], why[256];
	snprintf(parent, sizeof parent, "/sbx-itest-%d", (int)getpid());
	ck_assert_msg(td_cgroup_mounts(&m) >= 0, "/proc/self/mountinfo: %s", strerror(errno));
	START(d, "--workers", "1", "--cgroup-parent", parent);
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(c, job("where", "print(open('/proc/self/cgroup').read())"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	if (!cgroup_enforces(r, "memory_mb", why, sizeof why)) {
		json_decref(r);
		sbx_close(c);
		stop_ok(&d);
		remove_parent_everywhere(&m, parent);
		SKIP_TEST("--cgroup-parent places job cgroups: %s", why);
	}
	const char *by = sget(json_object_get(r, "enforcement"), "memory_mb");
	bool is_v2 = streq(by, "cgroup v2");
	const struct td_cgmount *h = is_v2 ? &m.v2 : &m.memory;
	ck_assert_msg(h->path[0], "the daemon enforces memory with %s, but no %s is mounted here",
		      by, is_v2 ? "cgroup2 hierarchy" : "v1 memory hierarchy");
	json_decref(r);
	ck_assert(snprintf(base, sizeof base, "%s%s", h->path, parent) < (int)sizeof base);
	submit(c, lim(job("sleep", "import time\ntime.sleep(30)"), "wall_ms", 60000));
	ck_assert_msg(access(base, F_OK) == 0,
		      "%s (the parent in the %s hierarchy) does not "
		      "exist; log:\n%s",
		      base, is_v2 ? "v2" : "memory", log_tail(&d));
	/* The home is "<parent>/<instance>" and holds the jobs dir. */
	char *found = NULL;
	char pat[PATH_MAX + 32];
	snprintf(pat, sizeof pat, "%s/*/sandboxd/*-*", base);
	long long deadline = td_now_ms() + 5000;
	while (!found && td_now_ms() < deadline) {
		/* The job's: the one with a process (not a slot's spare, not a
		 * fork server's). */
		glob_t g;
		if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc && !found; i++) {
				char procs[PATH_MAX + 16], buf[32];
				snprintf(procs, sizeof procs, "%s/cgroup.procs", g.gl_pathv[i]);
				FILE *pf =
				    strstr(g.gl_pathv[i], "-warm") ? NULL : fopen(procs, "r");
				if (pf && fgets(buf, sizeof buf, pf))
					found = strdup(g.gl_pathv[i]);
				if (pf)
					fclose(pf);
			}
		globfree(&g);
		if (!found)
			td_sleep_ms(20);
	}
	ck_assert_msg(found, "no job cgroup %s while a job runs; log:\n%s", pat, log_tail(&d));
	snprintf(limit_file, sizeof limit_file, "%s/%s", found,
		 is_v2 ? "memory.max" : "memory.limit_in_bytes");
	ck_assert_msg(access(limit_file, F_OK) == 0, "%s has no memory limit file (%s)", found,
		      limit_file);
	sbx_close(c);
	stop_ok(&d);
	ck_assert_msg(access(found, F_OK) < 0, "%s remains after a clean stop", found);
	if (is_v2) /* the home went; the operator's parent stays */
		ck_assert_msg(access(base, F_OK) == 0, "%s was removed", base);
	free(found);
	/* Leave the host as it was: the parent in each hierarchy it was made in. */
	remove_parent_everywhere(&m, parent);
}
END_TEST

static Suite *daemon_lifecycle_suite(void)
{
	Suite *s = suite_create("daemon_lifecycle");
	TCase *t = tmain_tcase(s, "lifecycle", TIMEOUT_S);
	tcase_add_test(t, test_sigterm_mid_job);
	tcase_add_test(t, test_sigkill_mid_job_and_restart);
	tcase_add_test(t, test_first_job_after_start);
	tcase_add_test(t, test_two_daemons_run_side_by_side);
	tcase_add_test(t, test_other_daemon_start_spares_jobs);
	tcase_add_test(t, test_refuses_without_cgroups);
	tcase_add_test(t, test_cgroup_parent);
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
	return tmain(daemon_lifecycle_suite, &opts);
}
