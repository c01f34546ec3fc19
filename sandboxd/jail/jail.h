/* The jail: everything needed to run one job, prepared in the daemon (parent)
 * and applied, layer by layer, in the job's own processes (child). */
#ifndef SBX_JAIL_H
#define SBX_JAIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandboxd/jail/procview.h"
#include "sandboxd/jail/rlimits.h"
#include "sandboxd/jail/seccomp.h"
#include "common/records.h"

#define JAIL_MAX_ARGS 8
#define JAIL_MAX_PEER_ARGS 16

/* The numbers the jail enforces, with the protocol's meaning (ms, MiB, KiB). */
struct jail_limits {
	long cpu_ms, wall_ms, memory_mb, pids, output_kb, tmpfs_mb;
	long cpus;
};

/* A file written into the job's /work before it starts (path validated:
 * relative, no "." or ".." components). */
struct jail_file {
	const char *path;
	const char *data;
	size_t len;
};

/* What one job is, as plain data handed from the run component: no protocol
 * or profile types, so the jail depends on nothing above it and the same
 * description crosses a sealed memfd to the job's init, sandboxd-init
 * (jail_wire.c), and could reach a fork server the same way
 * (docs/architecture.md). */
struct jail_job {
	struct jail_limits lim;
	const char *interpreter;
	const char *const *args; /* interpreter options before the script */
	size_t nargs;
	const char *const *ro_paths; /* host paths bound read-only at the same place */
	size_t n_ro;
	const struct scmp_prog *seccomp;
	const char *code, *stdin_data;
	size_t code_len, stdin_len;
	const struct jail_file *files;
	size_t nfiles;
	/* Process isolation: a second payload, the candidate, started by the init.
	 * peer_args: interpreter options + script args for the candidate; NULL:
	 * none. peer_uid/peer_gid: another uid than the main payload's. In this
	 * mode the candidate owns /work and writes the files (and main.py unless
	 * the runner runs); the main payload starts in / and writes nothing, so
	 * its script must be absolute (the runner's) or given with -c. */
	const char *const *peer_args;
	size_t npeer_args;
	uid_t peer_uid;
	gid_t peer_gid;
};

/* What the job's processes need, fully computed in the daemon. The job's init
 * (sandboxd-init) gets it flattened by jail_wire.c and rebuilt with pointers
 * into its own copy, so the layers read the same structure on both sides. */
struct jail_spec {
	const struct jail_job *job;
	struct jail_limits lim;
	const char *code, *stdin_data; /* default: the job's */
	size_t code_len, stdin_len;
	/* Test requests run the in-jail runner on a job description instead of
	 * main.py; both are written into the read-only root. */
	bool runner;
	const char *runner_src, *job_json;
	size_t runner_len, job_len;
	/* The runner's checksum (jail_runner_sum): a warm job's description
	 * carries it instead of the runner's bytes, which its tree, built
	 * from the server's, already holds (mounts_same_tree). */
	uint64_t runner_sum;
	char key[REC_KEY_LEN + 1]; /* result-channel key, handed over on a pipe */
	/* With the runner: the code is written as /work/main.py too, as for a
	 * plain run (a "main" job runs that file: a stdio case, a seeded plain
	 * run). */
	bool main_py;
	char root_opts[64];    /* the root tmpfs, sized for the runner files */
	char hashseed_env[40]; /* PYTHONHASHSEED=… when the request has a seed */
	uid_t uid;
	gid_t gid;
	const char *root_dir; /* empty host dir the job's root tmpfs is mounted on */
	char tmpfs_opts[96];  /* "size=…,nr_inodes=…,mode=1777" for /tmp and /dev/shm */
	char work_opts[128];  /* the work dir tmpfs, owned by the job uid */
	char passwd[160];     /* /etc/passwd line naming the job uid */
	char group[96];
	struct rlimit_set rl;
	struct procview procview; /* the job's meminfo, stat, cpuinfo, loadavg */
	const char *argv[JAIL_MAX_ARGS + 3];
	const char *envp[10];
	bool use_cgroup; /* the parent attaches the job before letting it go */
	/* Peer mode (job->peer_args): the candidate's argv, [interpreter,
	 * peer_args..., NULL]; NULL otherwise. */
	const char *peer_argv[JAIL_MAX_PEER_ARGS + 2];
	bool peer;
	/* stdout and stderr together, in encoded bytes (each is capped at
	 * output_kb on its own); 0: twice output_kb */
	size_t output_total;
	/* The warm path (docs/architecture.md, "The warm path"). zygote: this
	 * spec builds a fork server's jail, not a job's (its /proc is left
	 * whole, no /dev/shm, and the init starts the server instead of a
	 * payload). warm: the layers run in a child of a fork server, inside
	 * the server's user namespace, on the server's tree (/dev is bound
	 * from it, since a user namespace may not mknod). */
	bool zygote, warm;
	/* zygote: the slot's server uid, which is uid 0 of the server's user
	 * namespace and, made by that uid, owns it (zygote.c). */
	uid_t server_uid;
	/* The request fetches files: once the payloads run, the supervisor
	 * opens the job's /work (workfiles.c) into jail_result.work_fd. */
	bool keep_work;
};

/* A limit the supervisor enforced itself (it killed the job for it). */
enum jail_hit { JAIL_HIT_NONE, JAIL_HIT_CPU, JAIL_HIT_WALL, JAIL_HIT_OUTPUT, JAIL_HIT_MEMORY };

/* Monotonic instants (ns) of one run as the supervisor saw them, 0 when not
 * seen: the clone of the init, the "go" written once it is in its cgroup,
 * the last seccomp listener received (the payloads' layers are applied and
 * their execve follows; only with a notifying filter), the init's report of
 * the main payload's exit, and the init reaped. For the "timing" a request
 * may ask for. */
struct jail_times {
	uint64_t clone_ns, go_ns, exec_ns, exit_ns, reaped_ns;
	/* warm: the job's own report that it was forked, before its layers */
	uint64_t forked_ns;
};

/* How the job's processes ended, as seen from outside. */
struct jail_result {
	bool started;
	char error[256];  /* set when the sandbox itself failed (verdict "error") */
	bool have_status; /* the payload's wait status arrived from the job's init */
	int status;
	struct rusage ru; /* the payload's, as reaped by init */
	enum jail_hit hit;
	bool cancelled;
	int violation_nr;	 /* seccomp notification syscall, or -1 */
	uint32_t violation_arch; /* its AUDIT_ARCH_* (a foreign ABI's, or the native one) */
	char *out, *err;
	size_t out_len, err_len;
	bool out_trunc, err_trunc;
	uint64_t wall_ns;
	long cpu_limit_ms;
	bool watchdog; /* a test ran past its time limit and the job was stopped */
	bool warm;     /* forked from a slot's fork server, not a fresh interpreter */
	/* The fork server failed before the job was forked: nothing of it ran,
	 * and it may be run cold instead. */
	bool warm_failed;
	struct jail_times times;
	/* With keep_work: an O_PATH descriptor of the job's /work, opened while
	 * the job ran, that keeps its tmpfs readable after the run (closed by
	 * jail_result_free); have_work false when it could not be opened. */
	bool have_work;
	int work_fd;
	/* The job's mount namespace, handed over before its code ran: held past
	 * the job's end, and let go by jail_result_free off the job's path
	 * (reclaim.h). */
	bool have_mnt;
	int mnt_fd;
};

/* Test runs: what supervise() does with the result channel's lines. */
struct jail_hooks {
	void (*on_record)(void *ctx, const char *line, size_t len, uint64_t now_ns);
	/* Monotonic time by which the running test must end, or 0. */
	uint64_t (*deadline)(void *ctx);
	void *ctx;
};

/* A cgroup to put the job in, owned by the caller (the run component): the
 * supervisor only attaches the job's init before letting it start and reads
 * its CPU time to enforce cpu_ms. */
struct jail_cgroup {
	int (*attach)(void *ctx, pid_t pid);
	int (*cpu_ns)(void *ctx, uint64_t *ns);
	void *ctx;
	/* Optional: 2 when the job holds more memory than its limit in a way
	 * the kernel lets it overshoot (cgroup v1 socket buffers): the
	 * supervisor then kills it for memory; 1 when it is close (asked
	 * again sooner), 0 when not, -1 when it cannot tell (not asked again). */
	int (*over_memory)(void *ctx);
	/* Optional: SIGKILLs every process in the cgroup now, without waiting.
	 * The supervisor calls it whenever it kills the job, beside killing the
	 * init, so no process of the job runs on while the init dies. */
	int (*kill)(void *ctx);
};

/* The tmpfs options of a job's /dev/shm and /tmp (mb each) and of its
 * /work (mb, owned by work_uid:work_gid, mode 0700). Inline: the daemon
 * (jail_spec_init) and a fork server's jobs (warm_fork.c, their tree built
 * ahead) write them alike, and the daemon links no mount layer. */
static inline void jail_spec_tmpfs_opts(struct jail_spec *s, long mb, uid_t work_uid,
					gid_t work_gid)
{
	/* Inodes are bounded too, so a job cannot exhaust them with empty files. */
	snprintf(s->tmpfs_opts, sizeof s->tmpfs_opts, "size=%ldm,nr_inodes=16384,mode=1777", mb);
	snprintf(s->work_opts, sizeof s->work_opts,
		 "size=%ldm,nr_inodes=16384,mode=0700,uid=%u,gid=%u", mb, (unsigned)work_uid,
		 (unsigned)work_gid);
}

int jail_spec_init(struct jail_spec *s, const struct jail_job *job, uid_t uid, gid_t gid,
		   const char *root_dir, bool use_cgroup);
/* Switches the spec to the runner: argv, root size, key, PYTHONHASHSEED. */
void jail_spec_use_runner(struct jail_spec *s, const char *runner_src, size_t runner_len,
			  uint64_t runner_sum, const char *job_json, size_t job_len,
			  const char *key, long long seed);
/* A 64-bit checksum of the runner bundle (FNV-1a), computed once at start. */
uint64_t jail_runner_sum(const char *src, size_t len);

/* Runs one job to completion: clone into fresh namespaces, attach the cgroup
 * (cg may be NULL without cgroups), feed stdin, collect capped output,
 * enforce wall/CPU/output limits, watch seccomp, kill and reap the init.
 * cancel_fd becomes readable when the client went away. When it returns the
 * init is reaped, so the PID namespace is gone; sweeping the cgroup is the
 * caller's. */
struct warm_server;
/* w: a ready fork server to fork the job from (warm.h), or NULL to start a
 * fresh interpreter. */
void jail_run(const struct jail_spec *s, struct warm_server *w, const struct jail_cgroup *cg,
	      int cancel_fd, const struct jail_hooks *hooks, struct jail_result *r);
void jail_result_free(struct jail_result *r);

/* Opens the job init binary (sandboxd-init) once, before any job: every
 * job's clone child execs it through this descriptor, so the jail holds no
 * copy of the daemon's memory. Refuses a file that is not a regular,
 * root-owned executable only root can write. */
int jail_init_open(const char *path, char *err, size_t errlen);
/* Opens the warm jobs' reaper (sandboxd-reaper) the same way and with the
 * same checks, after jail_init_open; fork servers exec it as each job's pid
 * 1. Where it cannot be opened they run sandboxd-init's copy of it instead
 * (SANDBOXD_INIT=reaper): -1 with err filled, for the log. */
int jail_reaper_open(const char *path, char *err, size_t errlen);

#endif
