/* Killing a job's processes: all at once (cg_job_kill_now, the
 * supervisor's kill), or until the cgroups are empty (cg_kill_dirs: the
 * sweep after a job, and a crashed daemon's stale jobs). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sandboxd/jail/cgroup_internal.h"

#define CG_POLL_NS 2000000L

struct cg_pids {
	int count;
	bool kill;
	int err;
};

static void cg_pid_seen(struct cg_pids *st, pid_t pid)
{
	st->count++;
	/* pid 0 would signal our own process group, and the daemon must never
	 * kill itself even if it somehow landed in a job cgroup. */
	if (!st->kill || pid <= 0 || pid == getpid())
		return;
	/* Killing by pid can in theory hit a recycled pid; the window is the
	 * few microseconds since the read, and v2 prefers cgroup.kill. */
	if (kill(pid, SIGKILL) < 0 && errno != ESRCH && !st->err)
		st->err = errno;
}

/* Streams dir/cgroup.procs, so no buffer bounds the number of pids; %9d
 * cannot overflow and any pid fits. */
static int cg_scan_pids(const char *dir, struct cg_pids *st)
{
	char p[PATH_MAX];
	int pid, rc;
	if (cg_join(p, dir, "cgroup.procs") < 0)
		return -1;
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	while ((rc = fscanf(f, "%9d", &pid)) == 1)
		cg_pid_seen(st, pid);
	int e = ferror(f) ? EIO : rc != EOF ? EINVAL : 0;
	fclose(f);
	return e ? cg_errno(e) : 0;
}

/* How many processes the cgroups hold together, SIGKILLing each listed in
 * dirs[i] where sig && sig[i]; -1 when one is unreadable or a kill failed. */
static int cg_scan_dirs(const char *const *dirs, int n, const bool *sig)
{
	int total = 0;
	for (int i = 0; i < n; i++) {
		struct cg_pids st = {.kill = sig && sig[i]};
		if (cg_scan_pids(dirs[i], &st) < 0)
			return -1;
		if (st.err)
			return cg_errno(st.err);
		total += st.count;
	}
	return total;
}

/* SIGKILLs everything in up to five cgroups and waits for them to empty. */
int cg_kill_dirs(const char *const *dirs, int n, int timeout_ms)
{
	/* After a job whose PID namespace is gone they are empty, and nothing
	 * can join a cgroup without a member to fork it or the daemon to put
	 * it there: one read each, and no kill to make (on v1 the check for
	 * cgroup.kill alone was four more system calls on every job's path).
	 * One that cannot be read is killed as before, and fails as before. */
	if (cg_scan_dirs(dirs, n, NULL) == 0)
		return 0;
	bool native[5] = {false, false, false, false, false}, sig[5];
	for (int i = 0; i < n; i++) {
		if (!cg_exists(dirs[i], "cgroup.kill"))
			continue;
		/* Privileged: cgroup.kill kills every member atomically, including
		 * children forked while we kill, with no pid-reuse race. */
		if (cg_write(dirs[i], "cgroup.kill", "1", NULL, 0) < 0)
			return -1;
		native[i] = true;
	}
	/* Without cgroup.kill, re-signal each round: a member may have forked
	 * between our read and its death. */
	for (int i = 0; i < n; i++)
		sig[i] = !native[i];
	int64_t deadline = (int64_t)clock_mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		int total = cg_scan_dirs(dirs, n, sig);
		if (total <= 0)
			return total;
		if ((int64_t)clock_mono_ms() >= deadline)
			return cg_errno(EBUSY);
		struct timespec ts = {0, CG_POLL_NS};
		nanosleep(&ts, NULL);
	}
}

int cg_job_nprocs(const struct cg_job *j)
{
	struct cg_pids st = {0};
	const char *dir = j->v2[0] ? j->v2 : j->v1_memory;
	if (!dir[0])
		return cg_errno(EINVAL);
	return cg_scan_pids(dir, &st) < 0 ? -1 : st.count;
}

int cg_job_kill_now(const struct cg_job *j)
{
	const char *dir = j->v2[0] ? j->v2 : j->v1_memory[0] ? j->v1_memory : j->v1_pids;
	if (!dir[0])
		return cg_errno(EINVAL);
	/* One round of the sweep's kill, no wait: still busy is no error. */
	const char *one[1] = {dir};
	return cg_kill_dirs(one, 1, 0) == 0 || errno == EBUSY ? 0 : -1;
}
