#include "sandboxd/jail/rlimits.h"

#include "sandboxd/jail/jail.h"

static void add(struct rlimit_set *rs, int res, rlim_t soft, rlim_t hard)
{
	rs->resource[rs->n] = res;
	rs->value[rs->n].rlim_cur = soft;
	rs->value[rs->n].rlim_max = hard;
	rs->n++;
}

void rlimits_prepare(struct rlimit_set *rs, const struct jail_limits *l, bool with_cgroup)
{
	rs->n = 0;
	/* RLIMIT_CPU is per process and whole seconds: a backstop one second past
	 * the limit the daemon enforces from the cgroup, SIGXCPU then SIGKILL. */
	rlim_t cpu_s = (rlim_t)(l->cpu_ms + 999) / 1000 + 1;
	add(rs, RLIMIT_CPU, cpu_s, cpu_s + 1);
	/* Files can be no larger than the tmpfs they live on. */
	rlim_t fsize = (rlim_t)l->tmpfs_mb << 20;
	add(rs, RLIMIT_FSIZE, fsize, fsize);
	add(rs, RLIMIT_NOFILE, 512, 512);
	add(rs, RLIMIT_CORE, 0, 0);
	add(rs, RLIMIT_STACK, 64u << 20, 64u << 20);
	/* The job's uid is unique to its worker slot, so this counts only the
	 * job's own processes. Without a cgroup it is the pids limit. With one
	 * it is a backstop that must stay behind pids.max: the kernel counts a
	 * fork against RLIMIT_NPROC before the pids controller sees it, so with
	 * every process forking at once the forks in flight (at most one per
	 * live process, at most pids of them) made a fork bomb end on NPROC's
	 * EAGAIN, with no pids event and so no limit named. Twice pids cannot
	 * be reached before pids.max refuses. Without a cgroup the limit less
	 * one: the cgroup counts the jail's pid 1, which runs under another
	 * uid, so both leave the program the same number (limits_resolve
	 * never lets pids below 2). */
	rlim_t nproc = with_cgroup   ? 2 * (rlim_t)l->pids + 1
		       : l->pids > 1 ? (rlim_t)l->pids - 1
				     : 1;
	add(rs, RLIMIT_NPROC, nproc, nproc);
	add(rs, RLIMIT_MEMLOCK, 64u << 10, 64u << 10);
	if (!with_cgroup) {
		rlim_t as = (rlim_t)l->memory_mb << 20;
		add(rs, RLIMIT_AS, as, as);
	}
}

int rlimits_apply(const struct rlimit_set *rs)
{
	for (int i = 0; i < rs->n; i++)
		if (setrlimit(rs->resource[i], &rs->value[i]) < 0)
			return -1;
	return 0;
}
