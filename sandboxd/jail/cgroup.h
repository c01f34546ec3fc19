/* cgroup layer: a fresh cgroup per job for memory (+swap), pids and CPU
 * accounting, on cgroup v2 or v1. Every path is built from a detected base,
 * so tests can point the module at a fake cgroupfs tree in a temp dir. */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum cg_version { CG_NONE, CG_V1, CG_V2 };

struct cg_root {
	enum cg_version version;
	/* v2: the directory under which job cgroups are created ("<own>/sandboxd"). */
	char v2_jobs[PATH_MAX];
	/* v2: the leaf the daemon moves itself into (no internal processes rule). */
	char v2_daemon[PATH_MAX];
	/* v2: prefix + the cgroup2 mount point; every cgroup path is below it. */
	char v2_mount[PATH_MAX];
	/* v2: the cgroup the daemon manages (holds v2_daemon and v2_jobs), and
	 * the one it started in (cg_place may choose a home elsewhere). */
	char v2_home[PATH_MAX];
	char v2_start[PATH_MAX];
	/* v2: set when the home is not the daemon's own cgroup: controllers are
	 * enabled on every cgroup from v2_mount down to the home, and a clean
	 * stop moves the daemon back to v2_start and removes what it made. */
	bool v2_made_home;
	/* v1: the hierarchies' mount points (prefix included), for --cgroup-parent. */
	char v1_mnt_memory[PATH_MAX], v1_mnt_pids[PATH_MAX], v1_mnt_cpuacct[PATH_MAX];
	/* v1: per-controller directories under which job cgroups are created. */
	char v1_memory[PATH_MAX];
	char v1_pids[PATH_MAX];
	char v1_cpuacct[PATH_MAX]; /* "" when cpuacct is not mounted */
	bool v1_memsw;		   /* memory.memsw.* present (swap accounting) */
	bool v1_kmem_tcp;	   /* memory.kmem.tcp.* present (socket buffers) */
	/* v1: the cpu controller's hierarchy (its mount, the jobs dir below
	 * it; "" when not mounted; may equal the cpuacct ones, co-mounted). */
	char v1_mnt_cpu[PATH_MAX], v1_cpu[PATH_MAX];
	/* Jobs get a CPU bandwidth cap: v2 cpu.max, v1 cpu.cfs_quota_us. */
	bool cpu_cap;
	/* Prefix of this daemon instance's job names ("" = all): stale cleanup
	 * only touches "<instance>-*", so daemons on other sockets sharing the
	 * same cgroup keep their jobs. */
	char instance[32];
};

/* 0 is refused; UINT64_MAX means "max" (no limit). memory_bytes is all the
 * job may hold, its socket buffers included: v2 charges those to
 * memory.current, v1 to a separate counter, so on v1 cg_job_create splits
 * it (cg_split_memory). */
struct cg_limits {
	uint64_t memory_bytes;
	uint64_t pids;
	uint64_t cpus; /* bandwidth cap in whole CPUs; 0: none (cpu_cap false) */
};

/* v1 charges socket buffers (TCP and UDP) to memory.kmem.tcp, beside and
 * not inside memory.limit_in_bytes, so the budget is split: the sockets get
 * an eighth, at least 1 MiB and at most 64 MiB, the rest (pages, tmpfs and
 * every other kernel allocation, which v1 charges to the memory counter
 * too) stays the memory limit. *mem + *tcp == total. A job that talks to a
 * local server needs a few hundred KiB of socket buffers; a job that fills
 * them gets EAGAIN or a blocking send, never memory the host pays for. */
void cg_split_memory(uint64_t total, uint64_t *mem, uint64_t *tcp);

struct cg_job {
	const struct cg_root *root;
	char name[64];
	char v2[PATH_MAX];
	char v1_memory[PATH_MAX], v1_pids[PATH_MAX], v1_cpuacct[PATH_MAX];
	char v1_cpu[PATH_MAX];
	/* v1 with socket buffers split off: the job's whole memory_mb, which
	 * pages and socket buffers together must stay within, and the socket
	 * share of it (memory.kmem.tcp's limit); 0: not split. */
	uint64_t v1_mem_total, v1_tcp_share;
	bool low_weight; /* cg_job_background: its CPU weight the least until limited */
	/* The limits its files hold, when have_set (cg_job_limit_ahead). */
	struct cg_limits set;
	bool have_set;
};

struct cg_stats {
	uint64_t cpu_ns;       /* total CPU time of the job's processes */
	uint64_t memory_peak;  /* bytes; 0 when unknown */
	uint64_t oom_kills;    /* processes killed by the OOM killer */
	uint64_t pids_max_hit; /* forks refused by pids.max */
};

/* Decides v2 or v1 from the text of /proc/self/mountinfo and /proc/self/cgroup.
 * prefix ("" for the real system) is prepended to every mount point so a test
 * can relocate /sys/fs/cgroup into a temp dir. v2 is chosen when its mount
 * offers the memory and pids controllers, else v1 when memory and pids
 * hierarchies are mounted; else CG_NONE (rlimits alone). Returns 0, or -1
 * with err filled when the texts are unusable. Apart from parsing it only
 * looks at files: the v2 root's cgroup.controllers and cgroup.type, and v1's
 * memory.memsw.limit_in_bytes. */
int cg_detect(struct cg_root *r, const char *mountinfo, const char *self_cgroup, const char *prefix,
	      char *err, size_t errlen);

/* Reads /proc/self/{mountinfo,cgroup} and calls cg_detect with prefix "". */
int cg_detect_system(struct cg_root *r, char *err, size_t errlen);

/* Chooses where the daemon's cgroups go, after cg_detect and with
 * r->instance set (the order is the rule, and docs/kernel.md explains it):
 *  1. `parent` (--cgroup-parent, a path in the hierarchy such as
 *     "/sandboxd-test"): the home is <parent>/<instance>, on v2 and v1;
 *  2. v2: the daemon's own cgroup when it can host controllers: it is the
 *     root, or it is offered memory and pids by its parent and holds no
 *     other process (a systemd unit with Delegate=yes);
 *  3. v2: `prev_home`, the home a crashed earlier run of this instance
 *     recorded, when its daemon leaf is empty (a hand-run restart cannot
 *     rejoin a unit's cgroup whose subtree_control is still set);
 *  4. v2: /sandboxd/<instance> below the mount: started from a login shell's
 *     scope, or under a parent that does not delegate memory and pids.
 * `note` gets one line saying why the home is not the own cgroup ("" when
 * it is). Returns -1 with err filled for an unusable parent. */
int cg_place(struct cg_root *r, const char *parent, const char *prev_home, char *note,
	     size_t notelen, char *err, size_t errlen);

/* At a clean stop: removes this instance's job cgroups and, when the home
 * was made by cg_place, moves the daemon back where it started and removes
 * the home (best effort: a failure is reported, never fatal). */
int cg_teardown(struct cg_root *r, char *err, size_t errlen);

/* Creates the jobs directory (v2: moves the daemon into its leaf and enables
 * +memory +pids (+cpu when offered) in subtree_control), then removes job
 * cgroups a crashed earlier daemon left, killing any process still in them. */
int cg_setup(struct cg_root *r, char *err, size_t errlen);

/* Creates a fresh cgroup named `name` (e.g. "job-3-17") with the limits set;
 * swap is limited to zero extra (v2 memory.swap.max=0, v1 memsw=memory). */
int cg_job_create(const struct cg_root *r, const char *name, const struct cg_limits *l,
		  struct cg_job *j, char *err, size_t errlen);
/* The two halves of cg_job_create, so a job's cgroup can be made ahead of
 * time (make: the directories, no limit yet; no process may enter it
 * before limit). */
int cg_job_make(const struct cg_root *r, const char *name, struct cg_job *j, char *err,
		size_t errlen);
int cg_job_limit(struct cg_job *j, const struct cg_limits *l, char *err, size_t errlen);
/* The limits a job made ahead is expected to ask for, written while the
 * slot is idle: cg_job_limit then writes only when the job's differ. The
 * CPU weight stays as it is (cg_job_background). */
int cg_job_limit_ahead(struct cg_job *j, const struct cg_limits *l, char *err, size_t errlen);
/* A cgroup made ahead, whose processes prepare a job that has not come
 * yet: its CPU weight the least (v2 cpu.weight, v1 cpu.shares), so that
 * work gives way to the jobs running meanwhile. cg_job_limit gives it the
 * normal weight back before the job runs there. Best effort: without the
 * cpu controller it keeps the normal weight. */
void cg_job_background(struct cg_job *j);
/* Moves pid into every hierarchy of the job. */
int cg_job_attach(const struct cg_job *j, pid_t pid);
/* CPU time so far (cheap: one small read), for enforcing cpu_ms from outside. */
int cg_job_cpu_ns(const struct cg_job *j, uint64_t *ns);
int cg_job_stats(const struct cg_job *j, struct cg_stats *s);
/* v1 with socket buffers split off: 2 when pages plus socket buffers are
 * past the job's memory_mb, or socket buffers more than 2 MiB past their
 * share (TCP charges what a socket queues past memory.kmem.tcp's limit
 * before it refuses more, about a send buffer per connection), 1 when the
 * sockets hold half their share (watch closely), 0 when below or when there
 * is nothing to watch, -1 when the counters cannot be read. */
int cg_job_over_memory(const struct cg_job *j);
/* 1 when l's memory limit leaves at least room bytes above what j's
 * processes already use, 0 when not (writing it would fail on v1, EBUSY,
 * or have v2's OOM killer kill them), -1 with errno when unreadable. */
int cg_job_room(const struct cg_job *j, const struct cg_limits *l, uint64_t room);
/* Number of processes still in the job (cgroup.procs; v1: of the memory hierarchy). */
int cg_job_nprocs(const struct cg_job *j);
/* SIGKILLs everything in the job (cgroup.kill when present) and waits up to
 * timeout_ms for it to be empty; returns 0 when empty, -1 if not. */
int cg_job_kill(const struct cg_job *j, int timeout_ms);
/* SIGKILLs everything in the job at once and returns without waiting for
 * it to be gone (cgroup.kill when present, else each pid of the memory
 * hierarchy's, or the pids one's, cgroup.procs). Killing only the job's pid 1 leaves the rest
 * running until that pid 1 gets the CPU to exit, which in a throttled
 * cgroup can take a CFS period or more: time enough for a job to keep
 * queueing socket buffers past its limit. */
int cg_job_kill_now(const struct cg_job *j);
/* Removes the job's directories (after cg_job_kill). */
int cg_job_destroy(struct cg_job *j);

const char *cg_version_name(enum cg_version v);

#endif
