/* Unit tests for the cgroup layer (sandboxd/jail/cgroup.c): setup and job
 * files on fake v1/v2 trees in a temp dir (tests/helpers/fakecg.h), stats
 * parsing and error paths. The real hierarchy is test_jail_cgroup_real.c. */
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

static const struct cg_limits L64 = {64ull << 20, 8, 0};

/* ---- setup ------------------------------------------------------------ */

START_TEST(test_setup_v2)
{
	char t[PATH_MAX], o[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	/* Leftovers of a crashed daemon: two stale jobs, one with cgroup.kill. */
	put(P("%s/sandboxd/job-old-1/cgroup.procs", o), "");
	put(P("%s/sandboxd/job-old-1/memory.max", o), "1234\n");
	put(P("%s/sandboxd/job-old-2/cgroup.procs", o), "\n");
	put(P("%s/sandboxd/job-old-2/cgroup.kill", o), "0\n");
	put(P("%s/sandboxd/cgroup.procs", o), ""); /* a control file, not a job */

	setup_v2(t, &r);
	ck_assert(exists(P("%s/sandboxd-daemon", o)));
	ck_assert_str_eq(get(P("%s/sandboxd-daemon/cgroup.procs", o)), P("%d", (int)getpid()));
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", o)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd/cgroup.subtree_control", o)), "+memory +pids +cpu");
	ck_assert(!exists(P("%s/sandboxd/job-old-1", o)));
	ck_assert(!exists(P("%s/sandboxd/job-old-2", o)));
	ck_assert(exists(P("%s/sandboxd/cgroup.procs", o)));

	/* No cpu controller offered: only memory and pids. */
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", o)), "+memory +pids");

	/* Setting up twice (restart) is fine. */
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
}
END_TEST

START_TEST(test_setup_v2_at_root)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, "0::/\n", t);
	ck_assert_str_eq(r.v2_daemon, "");
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/sys/fs/cgroup/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert(!exists(P("%s/sys/fs/cgroup/sandboxd-daemon", t)));
	ck_assert(exists(P("%s/sys/fs/cgroup/sandboxd", t)));
}
END_TEST

START_TEST(test_setup_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/pids/sandboxd/job-1-1/cgroup.procs", t), "");
	put(P("%s/sys/fs/cgroup/pids/sandboxd/job-1-1/pids.max", t), "8\n");
	setup_v1(t, &r, true);
	ck_assert(exists(r.v1_memory));
	ck_assert(exists(r.v1_pids));
	ck_assert(exists(r.v1_cpuacct));
	ck_assert(!exists(P("%s/job-1-1", r.v1_pids)));
	ck_assert(!exists(P("%s/sys/fs/cgroup/memory/process_api/abc/cgroup.subtree_control", t)));

	/* CG_NONE: nothing to set up. */
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), 0);
}
END_TEST

START_TEST(test_setup_errors)
{
	char t[PATH_MAX], o[PATH_MAX];
	struct cg_root r;

	/* A stale job holding a directory is not ours to empty. */
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	mkdirs(P("%s/sandboxd/job-old/nested", o));
	put(P("%s/sandboxd/job-old/cgroup.procs", o), "");
	fake_v2(t, true);
	detect_ok(&r, MI_V2, SELF_V2, t);
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "job-old") != NULL, "err: %s", err);

	/* Stale job whose cgroup.procs is garbage. */
	nftw(P("%s/sandboxd/job-old", o), rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	put(P("%s/sandboxd/job-bad/cgroup.procs", o), "12 abc\n");
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "job-bad") != NULL, "err: %s", err);

	/* Own cgroup missing its controllers file. */
	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t), "memory pids\n");
	mkdirs(P("%s/" V2_OWN, t));
	detect_ok(&r, MI_V2, SELF_V2, t);
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "cgroup.controllers") != NULL, "err: %s", err);

	/* Own v1 memory cgroup is a regular file: mkdir fails. */
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	put(P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t), "not a dir");
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "process_api/abc/sandboxd") != NULL, "err: %s", err);
}
END_TEST

/* ---- jobs ------------------------------------------------------------- */

START_TEST(test_job_create_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);

	/* No swap accounting: memory.swap.max is left alone. */
	ck_assert_msg(cg_job_create(&r, "job-3-17", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(j.v2, P("%s/job-3-17", r.v2_jobs));
	ck_assert_str_eq(j.name, "job-3-17");
	ck_assert_ptr_eq(j.root, &r);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "67108864");
	ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "8");
	ck_assert(!exists(P("%s/memory.swap.max", j.v2)));
	ck_assert_str_eq(j.v1_memory, "");

	/* Swap accounting on: the job gets no swap at all. */
	put(P("%s/memory.swap.max", r.v2_jobs), "max\n");
	struct cg_limits unl = {UINT64_MAX, UINT64_MAX, 0};
	ck_assert_msg(cg_job_create(&r, "job-3-18", &unl, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.swap.max", j.v2)), "0");
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "max");
	ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "max");

	/* A job never reuses an existing cgroup. */
	err[0] = '\0';
	ck_assert_int_eq(cg_job_create(&r, "job-3-17", &L64, &j, err, sizeof err), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_msg(strstr(err, "job-3-17") != NULL, "err: %s", err);
	ck_assert_str_eq(j.v2, "");
}
END_TEST

START_TEST(test_job_create_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-1", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(j.v1_memory, P("%s/job-1", r.v1_memory));
	ck_assert_str_eq(j.v1_pids, P("%s/job-1", r.v1_pids));
	ck_assert_str_eq(j.v1_cpuacct, P("%s/job-1", r.v1_cpuacct));
	ck_assert_str_eq(j.v2, "");
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "67108864");
	ck_assert_str_eq(get(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)), "67108864");
	ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "8");
	ck_assert(exists(j.v1_cpuacct));
	ck_assert(!exists(P("%s/pids.max", j.v1_memory)));

	/* Without memsw only the memory limit is written; "no limit" is -1. */
	set(t, new_tree());
	setup_v1(t, &r, false);
	struct cg_limits l = {UINT64_MAX, 16, 0};
	ck_assert_msg(cg_job_create(&r, "job-2", &l, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "-1");
	ck_assert(!exists(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)));
	ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "16");

	/* If one hierarchy already has the name, nothing is left behind. */
	mkdirs(P("%s/job-3", r.v1_pids));
	ck_assert_int_eq(cg_job_create(&r, "job-3", &L64, &j, err, sizeof err), -1);
	ck_assert(!exists(P("%s/job-3", r.v1_memory)));
	ck_assert(exists(P("%s/job-3", r.v1_pids)));
}
END_TEST

/* v1 charges socket buffers beside the memory limit: the job's budget is
 * split so the two limits add up to it (cg_split_memory). */
START_TEST(test_job_create_v1_tcp)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t m, tcp;
	cg_split_memory(64ull << 20, &m, &tcp);
	ck_assert_uint_eq(tcp, 8ull << 20);
	ck_assert_uint_eq(m + tcp, 64ull << 20);
	cg_split_memory(2ull << 20, &m, &tcp); /* at least 1 MiB, at most half */
	ck_assert_uint_eq(tcp, 1ull << 20);
	cg_split_memory(1ull << 20, &m, &tcp);
	ck_assert_uint_eq(tcp, 512ull << 10);
	cg_split_memory(4ull << 30, &m, &tcp); /* at most 64 MiB */
	ck_assert_uint_eq(tcp, 64ull << 20);
	ck_assert_uint_eq(m, (4ull << 30) - (64ull << 20));

	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/memory/process_api/abc/memory.kmem.tcp.limit_in_bytes", t),
	    "9223372036854771712\n");
	setup_v1(t, &r, true);
	ck_assert(r.v1_kmem_tcp);
	ck_assert_msg(cg_job_create(&r, "job-t", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.kmem.tcp.limit_in_bytes", j.v1_memory)), "8388608");
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "58720256");
	ck_assert_str_eq(get(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)), "58720256");
	/* memory_kb counts the socket buffers too, as v2's memory.peak does. */
	put(P("%s/cpuacct.usage", j.v1_cpuacct), "1\n");
	put(P("%s/memory.max_usage_in_bytes", j.v1_memory), "1048576\n");
	put(P("%s/memory.kmem.tcp.max_usage_in_bytes", j.v1_memory), "4096\n");
	put(P("%s/memory.oom_control", j.v1_memory), "oom_kill 0\n");
	put(P("%s/pids.events", j.v1_pids), "max 0\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.memory_peak, 1048576 + 4096);

	/* The watch for TCP's forced charges past its share (8 MiB here): fine
	 * below half the share, close from there, over at 2 MiB past the share
	 * or when pages and sockets together pass the 64 MiB. */
	struct {
		const char *pages, *sock;
		int want;
	} w[] = {{"10485760\n", "1048576\n", 0},  {"10485760\n", "4194304\n", 1},
		 {"10485760\n", "10485760\n", 1}, {"10485760\n", "10485761\n", 2},
		 {"58720256\n", "8388608\n", 1},  {"58720257\n", "8388608\n", 2}};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		put(P("%s/memory.usage_in_bytes", j.v1_memory), w[i].pages);
		put(P("%s/memory.kmem.tcp.usage_in_bytes", j.v1_memory), w[i].sock);
		ck_assert_msg(cg_job_over_memory(&j) == w[i].want, "row %zu: %d, want %d", i,
			      cg_job_over_memory(&j), w[i].want);
	}
	put(P("%s/memory.kmem.tcp.usage_in_bytes", j.v1_memory), "garbage\n");
	ck_assert_int_eq(cg_job_over_memory(&j), -1);

	/* Unlimited stays unlimited: no split, no tcp limit. */
	struct cg_limits unl = {UINT64_MAX, 16, 0};
	ck_assert_msg(cg_job_create(&r, "job-u", &unl, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "-1");
	ck_assert(!exists(P("%s/memory.kmem.tcp.limit_in_bytes", j.v1_memory)));
	ck_assert_int_eq(cg_job_over_memory(&j), 0); /* nothing to watch */
}
END_TEST

/* The cpus limit: cpu.max on v2, cfs quota and period on v1, each only
 * where the cpu controller reaches the job cgroups. */
START_TEST(test_job_create_cpu_cap)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_limits two = {64ull << 20, 8, 2};
	set(t, new_tree());
	setup_v2(t, &r); /* offers cpu: the jobs dir hands it on */
	ck_assert(r.cpu_cap);
	ck_assert_msg(cg_job_create(&r, "job-c", &two, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/cpu.max", j.v2)), "200000 100000");

	/* A parent that offers no cpu: no cap, nothing written. */
	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert(!r.cpu_cap);
	ck_assert_msg(cg_job_create(&r, "job-n", &two, &j, err, sizeof err) == 0, "%s", err);
	ck_assert(!exists(P("%s/cpu.max", j.v2)));

	/* v1: the cpu hierarchy of its own (this machine's layout). */
	set(t, new_tree());
	mkdirs(P("%s/sys/fs/cgroup/cpu/sandboxd", t));
	put(P("%s/sys/fs/cgroup/cpu/sandboxd/cpu.cfs_quota_us", t), "-1\n");
	setup_v1(t, &r, false);
	ck_assert_str_eq(r.v1_cpu, P("%s/sys/fs/cgroup/cpu/sandboxd", t));
	ck_assert(r.cpu_cap);
	ck_assert_msg(cg_job_create(&r, "job-1", &two, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(j.v1_cpu, P("%s/job-1", r.v1_cpu));
	ck_assert_str_eq(get(P("%s/cpu.cfs_period_us", j.v1_cpu)), "100000");
	ck_assert_str_eq(get(P("%s/cpu.cfs_quota_us", j.v1_cpu)), "200000");
	ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "8");
	ck_assert_int_eq(cg_job_destroy(&j), 0);
	ck_assert(!exists(P("%s/job-1", r.v1_cpu)));
}
END_TEST

/* A cgroup made ahead for a job forked ahead takes the least CPU weight
 * until the job's limits are written, which give it the normal weight
 * back; without the cpu controller nothing is written. */
START_TEST(test_job_background_weight)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_limits two = {64ull << 20, 8, 2};
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_make(&r, "job-w", &j, err, sizeof err) == 0, "%s", err);
	cg_job_background(&j);
	ck_assert(j.low_weight);
	ck_assert_str_eq(get(P("%s/cpu.weight", j.v2)), "1");
	ck_assert_msg(cg_job_limit(&j, &two, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/cpu.weight", j.v2)), "100");
	ck_assert(!j.low_weight);

	/* A job cgroup never put in the background keeps what it has. */
	ck_assert_msg(cg_job_make(&r, "job-x", &j, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(cg_job_limit(&j, &two, err, sizeof err) == 0, "%s", err);
	ck_assert(!exists(P("%s/cpu.weight", j.v2)));

	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert_msg(cg_job_make(&r, "job-n", &j, err, sizeof err) == 0, "%s", err);
	cg_job_background(&j);
	ck_assert(!j.low_weight);
	ck_assert(!exists(P("%s/cpu.weight", j.v2)));

	set(t, new_tree());
	mkdirs(P("%s/sys/fs/cgroup/cpu/sandboxd", t));
	put(P("%s/sys/fs/cgroup/cpu/sandboxd/cpu.cfs_quota_us", t), "-1\n");
	setup_v1(t, &r, false);
	ck_assert_msg(cg_job_make(&r, "job-1", &j, err, sizeof err) == 0, "%s", err);
	cg_job_background(&j);
	ck_assert_str_eq(get(P("%s/cpu.shares", j.v1_cpu)), "2");
	ck_assert_msg(cg_job_limit(&j, &two, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/cpu.shares", j.v1_cpu)), "1024");
	ck_assert_int_eq(cg_job_destroy(&j), 0);
}
END_TEST

/* Limits written ahead, while the slot is idle, for the job a cgroup made
 * ahead waits for: they leave the CPU weight low; the job's own limits are
 * written only where they differ (a file overwritten with a sentinel shows
 * which were), and the job gets the normal weight either way. On v1 a
 * job's unlimited memory after a limited one ahead leaves no socket share
 * to watch. */
START_TEST(test_job_limit_ahead)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_limits two = {64ull << 20, 8, 2}, more = {128ull << 20, 8, 2};
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_make(&r, "job-a", &j, err, sizeof err) == 0, "%s", err);
	cg_job_background(&j);
	ck_assert_msg(cg_job_limit_ahead(&j, &two, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "67108864");
	ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "8");
	ck_assert_str_eq(get(P("%s/cpu.max", j.v2)), "200000 100000");
	ck_assert_str_eq(get(P("%s/cpu.weight", j.v2)), "1");
	put(P("%s/memory.max", j.v2), "sentinel");
	ck_assert_msg(cg_job_limit(&j, &two, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "sentinel");
	ck_assert_str_eq(get(P("%s/cpu.weight", j.v2)), "100");
	ck_assert_msg(cg_job_limit(&j, &more, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "134217728");
	/* Zero limits are refused ahead as at the job, and change nothing. */
	struct cg_limits zero = {0, 8, 0};
	ck_assert_int_eq(cg_job_limit_ahead(&j, &zero, err, sizeof err), -1);
	ck_assert_int_eq(cg_job_limit(&j, &zero, err, sizeof err), -1);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "134217728");
	ck_assert_int_eq(cg_job_destroy(&j), 0);

	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/memory/process_api/abc/memory.kmem.tcp.limit_in_bytes", t),
	    "9223372036854771712\n");
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_make(&r, "job-v", &j, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(cg_job_limit_ahead(&j, &L64, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(j.v1_mem_total, 64ull << 20);
	struct cg_limits unl = {UINT64_MAX, 16, 0};
	ck_assert_msg(cg_job_limit(&j, &unl, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "-1");
	ck_assert_uint_eq(j.v1_mem_total, 0);
	ck_assert_int_eq(cg_job_over_memory(&j), 0);
}
END_TEST

/* cg_job_room: whether a limit leaves room above what the processes
 * already in the cgroup use (v2 memory.current; v1 memory.usage_in_bytes
 * against the page share the socket split leaves). */
START_TEST(test_job_room)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_limits l = {8ull << 20, 8, 0}, unl = {UINT64_MAX, 8, 0};
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_make(&r, "job-r", &j, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(cg_job_room(&j, &l, 4u << 20), -1); /* no counter: unknown */
	put(P("%s/memory.current", j.v2), "3145728\n");	     /* 3 MiB used */
	ck_assert_int_eq(cg_job_room(&j, &l, 4u << 20), 1);
	ck_assert_int_eq(cg_job_room(&j, &l, 6u << 20), 0);
	put(P("%s/memory.current", j.v2), "9437184\n"); /* above the limit */
	ck_assert_int_eq(cg_job_room(&j, &l, 0), 0);
	ck_assert_int_eq(cg_job_room(&j, &unl, 4u << 20), 1);
	ck_assert_int_eq(cg_job_destroy(&j), 0);

	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/memory/process_api/abc/memory.kmem.tcp.limit_in_bytes", t),
	    "9223372036854771712\n");
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_make(&r, "job-s", &j, err, sizeof err) == 0, "%s", err);
	/* 8 MiB: 1 MiB for sockets, 7 for pages; 3 used leaves 4. */
	put(P("%s/memory.usage_in_bytes", j.v1_memory), "3145728\n");
	ck_assert_int_eq(cg_job_room(&j, &l, 4u << 20), 1);
	ck_assert_int_eq(cg_job_room(&j, &l, (4u << 20) + 4096), 0);
}
END_TEST

START_TEST(test_job_create_bad_args)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);
	const char *bad[] = {
	    "",	     ".",
	    "..",    "a/b",
	    "../x",  "job 1",
	    "job\n", "x123456789012345678901234567890123456789012345678901234567890123"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		ck_assert_msg(cg_job_create(&r, bad[i], &L64, &j, err, sizeof err) == -1, "%s",
			      bad[i]);
		ck_assert(err[0] != '\0');
	}
	struct cg_limits zero_mem = {0, 8, 0}, zero_pids = {1 << 20, 0, 0};
	ck_assert_int_eq(cg_job_create(&r, "job-z", &zero_mem, &j, err, sizeof err), -1);
	ck_assert_int_eq(cg_job_create(&r, "job-z", &zero_pids, &j, err, sizeof err), -1);
	ck_assert(!exists(P("%s/job-z", r.v2_jobs)));
	struct cg_root none;
	memset(&none, 0, sizeof none);
	ck_assert_int_eq(cg_job_create(&none, "job-n", &L64, &j, err, sizeof err), -1);
}
END_TEST

START_TEST(test_job_create_unwritable)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);

	/* The jobs dir is a regular file. */
	struct cg_root bad = r;
	put(P("%s/file", t), "x");
	set(bad.v2_jobs, P("%s/file/sandboxd", t));
	err[0] = '\0';
	ck_assert_int_eq(cg_job_create(&bad, "job-1", &L64, &j, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "file/sandboxd/job-1") && strstr(err, strerror(ENOTDIR)),
		      "err: %s", err);

	/* A read-only jobs dir, as an unprivileged user (root ignores modes). */
	ck_assert(chmod(r.v2_jobs, 0555) == 0);
	ck_assert(chmod(t, 0755) == 0 && chmod(g_top, 0755) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		     setresuid(65534, 65534, 65534) < 0))
			_exit(3);
		char e2[256] = "";
		int rc = cg_job_create(&r, "job-ro", &L64, &j, e2, sizeof e2);
		_exit(rc == -1 && errno == EACCES && strstr(e2, "job-ro") ? 0 : 1);
	}
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ck_assert(chmod(r.v2_jobs, 0755) == 0 && chmod(g_top, 0700) == 0);
}
END_TEST

START_TEST(test_attach_nprocs_fake)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, false);
	ck_assert_msg(cg_job_create(&r, "job-a", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(cg_job_attach(&j, 4242), 0);
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_memory)), "4242");
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_pids)), "4242");
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_cpuacct)), "4242");
	ck_assert_int_eq(cg_job_nprocs(&j), 1);
	put(P("%s/cgroup.procs", j.v1_memory), "11\n22\n33\n");
	ck_assert_int_eq(cg_job_nprocs(&j), 3);
	put(P("%s/cgroup.procs", j.v1_memory), "");
	ck_assert_int_eq(cg_job_nprocs(&j), 0);
	put(P("%s/cgroup.procs", j.v1_memory), "11\nbogus\n");
	ck_assert_int_eq(cg_job_nprocs(&j), -1);
	ck_assert_int_eq(cg_job_attach(&j, 0), -1);

	struct cg_job gone = j;
	set(gone.v1_memory, P("%s/nonexistent", t));
	ck_assert_int_eq(cg_job_attach(&gone, 4242), -1);
	ck_assert_int_eq(cg_job_nprocs(&gone), -1);
}
END_TEST

/* A child that waits to be killed. */
static pid_t sleeper(void)
{
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0)
		for (;;)
			pause();
	return c;
}

START_TEST(test_kill_fake)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-k", &L64, &j, err, sizeof err) == 0, "%s", err);

	/* cgroup.kill present and the job empty: nothing to kill, nothing
	 * written. */
	put(P("%s/cgroup.kill", j.v2), "0\n");
	put(P("%s/cgroup.procs", j.v2), "");
	ck_assert_int_eq(cg_job_kill(&j, 100), 0);
	ck_assert_str_eq(get(P("%s/cgroup.kill", j.v2)), "0\n");
	/* A member listed: cgroup.kill is written (the fake file never
	 * empties, so the wait times out). */
	put(P("%s/cgroup.procs", j.v2), "999999\n");
	ck_assert_int_eq(cg_job_kill(&j, 20), -1);
	ck_assert_str_eq(get(P("%s/cgroup.kill", j.v2)), "1");

	/* No cgroup.kill: each listed pid gets SIGKILL; the fake file never
	 * empties, so the wait times out. */
	ck_assert(unlink(P("%s/cgroup.kill", j.v2)) == 0);
	pid_t c = sleeper();
	put(P("%s/cgroup.procs", j.v2), P("%d\n", (int)c));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(cg_job_kill(&j, 50), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ck_assert_msg(ms >= 45 && ms < 2000, "waited %ld ms", ms);
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	/* Our own pid is never killed. */
	put(P("%s/cgroup.procs", j.v2), P("%d\n", (int)getpid()));
	ck_assert_int_eq(cg_job_kill(&j, 10), -1);
	ck_assert_int_eq(errno, EBUSY);
}
END_TEST

START_TEST(test_kill_now_fake)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j, none;
	int st;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-n", &L64, &j, err, sizeof err) == 0, "%s", err);
	/* cgroup.kill present: written, nothing signalled by pid, no wait. */
	pid_t c = sleeper();
	put(P("%s/cgroup.kill", j.v2), "0\n");
	put(P("%s/cgroup.procs", j.v2), P("%d\n", (int)c));
	ck_assert_int_eq(cg_job_kill_now(&j), 0);
	ck_assert_str_eq(get(P("%s/cgroup.kill", j.v2)), "1");
	ck_assert_int_eq(waitpid(c, &st, WNOHANG), 0);
	/* Without it each listed pid is killed, and the call returns although
	 * the (fake) file still lists it. */
	ck_assert(unlink(P("%s/cgroup.kill", j.v2)) == 0);
	ck_assert_int_eq(cg_job_kill_now(&j), 0);
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	/* v1: the memory hierarchy's list; our own pid is never killed. */
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-n", &L64, &j, err, sizeof err) == 0, "%s", err);
	c = sleeper();
	put(P("%s/cgroup.procs", j.v1_memory), P("%d\n%d\n", (int)getpid(), (int)c));
	ck_assert_int_eq(cg_job_kill_now(&j), 0);
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* An unreadable list, and a job with no cgroup, are errors. */
	ck_assert(unlink(P("%s/cgroup.procs", j.v1_memory)) == 0);
	ck_assert_int_eq(cg_job_kill_now(&j), -1);
	memset(&none, 0, sizeof none);
	ck_assert_int_eq(cg_job_kill_now(&none), -1);
}
END_TEST

START_TEST(test_destroy_fake)
{
	char t[PATH_MAX], dir[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-d", &L64, &j, err, sizeof err) == 0, "%s", err);
	snprintf(dir, sizeof dir, "%s", j.v1_memory);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
	ck_assert(!exists(dir));
	ck_assert(!exists(P("%s/job-d", r.v1_pids)));
	ck_assert(!exists(P("%s/job-d", r.v1_cpuacct)));
	ck_assert_int_eq(cg_job_destroy(&j), 0); /* idempotent */

	/* Something other than plain files inside: refused, left intact. */
	ck_assert_msg(cg_job_create(&r, "job-e", &L64, &j, err, sizeof err) == 0, "%s", err);
	mkdirs(P("%s/sub", j.v1_memory));
	ck_assert_int_eq(cg_job_destroy(&j), -1);
	ck_assert(exists(P("%s/sub", j.v1_memory)));
	ck_assert(exists(P("%s/memory.limit_in_bytes", j.v1_memory)));
	ck_assert(rmdir(P("%s/sub", j.v1_memory)) == 0);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
}
END_TEST

/* ---- stats ------------------------------------------------------------ */

START_TEST(test_stats_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-s", &L64, &j, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpu.stat", j.v2),
	    "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 0\n");
	put(P("%s/memory.peak", j.v2), "5242880\n");
	put(P("%s/memory.events", j.v2),
	    "low 0\nhigh 0\nmax 9\noom 3\noom_kill 2\noom_group_kill 0\n");
	put(P("%s/pids.events", j.v2), "max 5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 1500000);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 1500000);
	ck_assert_uint_eq(s.memory_peak, 5242880);
	ck_assert_uint_eq(s.oom_kills, 2);
	ck_assert_uint_eq(s.pids_max_hit, 5);

	/* Older kernels: no memory.peak, no oom_kill line. */
	ck_assert(unlink(P("%s/memory.peak", j.v2)) == 0);
	put(P("%s/memory.events", j.v2), "low 0\nhigh 0\nmax 1\noom 4\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.memory_peak, 0);
	ck_assert_uint_eq(s.oom_kills, 4);
}
END_TEST

START_TEST(test_stats_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns = 99;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-s", &L64, &j, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpuacct.usage", j.v1_cpuacct), "123456789\n");
	put(P("%s/memory.max_usage_in_bytes", j.v1_memory), "1048576\n");
	put(P("%s/memory.oom_control", j.v1_memory),
	    "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	put(P("%s/pids.events", j.v1_pids), "max 7\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 123456789);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 123456789);
	ck_assert_uint_eq(s.memory_peak, 1048576);
	ck_assert_uint_eq(s.oom_kills, 3);
	ck_assert_uint_eq(s.pids_max_hit, 7);

	/* No cpuacct hierarchy: stats still work with cpu 0, cpu_ns fails. */
	j.v1_cpuacct[0] = '\0';
	put(P("%s/memory.oom_control", j.v1_memory), "oom_kill_disable 0\nunder_oom 0\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_uint_eq(ns, 0);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 0);
	ck_assert_uint_eq(s.oom_kills, 0);
	ck_assert_uint_eq(s.pids_max_hit, 7);
}
END_TEST

START_TEST(test_stats_garbage)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j, j1;
	struct cg_stats s;
	uint64_t ns;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-g", &L64, &j, err, sizeof err) == 0, "%s", err);
	/* Missing files. */
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);

	put(P("%s/cpu.stat", j.v2), "usage_usec abc\n");
	put(P("%s/memory.events", j.v2), "oom_kill 1\n");
	put(P("%s/pids.events", j.v2), "max 1\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	ck_assert_uint_eq(s.oom_kills, 1); /* the readable parts are still filled */

	put(P("%s/cpu.stat", j.v2), "usage_usec 18446744073709551616\n"); /* 2^64 */
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "user_usec 5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "usage_usec 7 \n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "usage_usec 7");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 7000);

	put(P("%s/memory.events", j.v2), "low 0\nhigh 0\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/memory.events", j.v2), "oom_kill 1\n");
	put(P("%s/pids.events", j.v2), "max -3\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/pids.events", j.v2), "max 1\n");
	put(P("%s/memory.peak", j.v2), "12x\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/memory.peak", j.v2), "12\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);

	/* An oversized file is refused rather than half-parsed. */
	char big[8192];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	put(P("%s/pids.events", j.v2), big);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);

	/* v1 garbage. */
	set(t, new_tree());
	setup_v1(t, &r, false);
	ck_assert_msg(cg_job_create(&r, "job-g", &L64, &j1, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j1, &ns), -1);
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "-5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j1, &ns), -1);
	put(P("%s/memory.max_usage_in_bytes", j1.v1_memory), "1\n");
	put(P("%s/memory.oom_control", j1.v1_memory), "oom_kill x\n");
	put(P("%s/pids.events", j1.v1_pids), "max 0\n");
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "5\n");
	ck_assert_int_eq(cg_job_stats(&j1, &s), -1);

	struct cg_job empty;
	memset(&empty, 0, sizeof empty);
	ck_assert_int_eq(cg_job_stats(&empty, &s), -1);
	ck_assert_int_eq(cg_job_nprocs(&empty), -1);
	ck_assert_int_eq(cg_job_kill(&empty, 10), -1);
	ck_assert_int_eq(cg_job_destroy(&empty), 0);
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("fake");
	tcase_add_unchecked_fixture(tc, top_setup, top_teardown);
	tcase_add_test(tc, test_setup_v2);
	tcase_add_test(tc, test_setup_v2_at_root);
	tcase_add_test(tc, test_setup_v1);
	tcase_add_test(tc, test_setup_errors);
	tcase_add_test(tc, test_job_create_v2);
	tcase_add_test(tc, test_job_create_v1);
	tcase_add_test(tc, test_job_create_v1_tcp);
	tcase_add_test(tc, test_job_create_cpu_cap);
	tcase_add_test(tc, test_job_background_weight);
	tcase_add_test(tc, test_job_limit_ahead);
	tcase_add_test(tc, test_job_room);
	tcase_add_test(tc, test_job_create_bad_args);
	tcase_add_test(tc, test_job_create_unwritable);
	tcase_add_test(tc, test_attach_nprocs_fake);
	tcase_add_test(tc, test_kill_fake);
	tcase_add_test(tc, test_kill_now_fake);
	tcase_add_test(tc, test_destroy_fake);
	tcase_add_test(tc, test_stats_v2);
	tcase_add_test(tc, test_stats_v1);
	tcase_add_test(tc, test_stats_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(cgroup_suite, NULL);
}
