/* The daemon's half of starting a job: the spec every layer reads, computed
 * here (jail_spec_init), and the clone() child that becomes the job's init.
 * That child is pid 1 of fresh PID, mount, network, IPC and UTS namespaces
 * (ns.c) and a copy of the multithreaded daemon, so it only makes syscalls,
 * and the first thing it does is execve sandboxd-init: the layers run in a
 * process that holds no other job's data (jail_child.c, sandboxd/init/). */
#include "sandboxd/jail/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errfmt.h"
#include "sandboxd/jail/jail_internal.h"

#define ROOT_BASE_KB 1024 /* the root tmpfs of a plain job: 1 MiB */
#define ROOT_SLACK_KB 64

int jail_spec_init(struct jail_spec *s, const struct jail_job *job, uid_t uid, gid_t gid,
		   const char *root_dir, bool use_cgroup)
{
	const struct jail_limits *lim = &job->lim;
	memset(s, 0, sizeof *s);
	if (job->nargs > JAIL_MAX_ARGS || (job->peer_args && job->npeer_args > JAIL_MAX_PEER_ARGS))
		return -1;
	s->job = job;
	s->lim = *lim;
	s->uid = uid;
	s->gid = gid;
	s->root_dir = root_dir;
	s->use_cgroup = use_cgroup;
	s->code = job->code;
	s->code_len = job->code_len;
	s->stdin_data = job->stdin_data;
	s->stdin_len = job->stdin_len;
	snprintf(s->root_opts, sizeof s->root_opts, "size=%dk,mode=0755", ROOT_BASE_KB);
	/* In peer mode the candidate owns /work: it runs the user's code and
	 * writes the files; the grader reads only the read-only root. */
	s->peer = job->peer_args != NULL;
	jail_spec_tmpfs_opts(s, lim->tmpfs_mb, s->peer ? job->peer_uid : uid,
			     s->peer ? job->peer_gid : gid);
	snprintf(s->passwd, sizeof s->passwd,
		 "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:%u:%u:sandbox:/tmp:/usr/sbin/"
		 "nologin\n",
		 (unsigned)uid, (unsigned)gid);
	snprintf(s->group, sizeof s->group, "root:x:0:\nsandbox:x:%u:\n", (unsigned)gid);
	rlimits_prepare(&s->rl, lim, use_cgroup);
	if (procview_prepare(&s->procview, lim) < 0)
		return -1;
	size_t a = 0;
	s->argv[a++] = job->interpreter;
	for (size_t i = 0; i < job->nargs; i++)
		s->argv[a++] = job->args[i];
	s->argv[a++] = "main.py";
	s->argv[a] = NULL;
	if (s->peer) {
		size_t p = 0;
		s->peer_argv[p++] = job->interpreter;
		for (size_t i = 0; i < job->npeer_args; i++)
			s->peer_argv[p++] = job->peer_args[i];
		s->peer_argv[p] = NULL;
	}
	size_t e = 0;
	static const char *const fixed_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp",
						"TMPDIR=/tmp", "LANG=C.UTF-8", NULL};
	for (int i = 0; fixed_env[i]; i++)
		s->envp[e++] = fixed_env[i];
	s->envp[e] = NULL;
	return 0;
}

uint64_t jail_runner_sum(const char *src, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)src[i]) * 0x100000001b3ULL;
	return h;
}

void jail_spec_use_runner(struct jail_spec *s, const char *runner_src, size_t runner_len,
			  uint64_t runner_sum, const char *job_json, size_t job_len,
			  const char *key, long long seed)
{
	s->runner = true;
	s->runner_src = runner_src;
	s->runner_len = runner_len;
	s->runner_sum = runner_sum;
	s->job_json = job_json;
	s->job_len = job_len;
	snprintf(s->key, sizeof s->key, "%s", key);
	/* Room for the runner and its job, the files setup_etc writes and the
	 * tmpfs's own overhead. */
	size_t kb = (runner_len + job_len) / 1024 + ROOT_BASE_KB + ROOT_SLACK_KB;
	snprintf(s->root_opts, sizeof s->root_opts, "size=%zuk,mode=0755", kb);
	size_t a = 1 + s->job->nargs;
	s->argv[a++] = "/sandboxd/runner.py";
	s->argv[a] = NULL;
	if (seed >= 0) {
		size_t e = 0;
		while (s->envp[e])
			e++;
		snprintf(s->hashseed_env, sizeof s->hashseed_env, "PYTHONHASHSEED=%lld", seed);
		s->envp[e++] = s->hashseed_env;
		s->envp[e] = NULL;
	}
}

/* The init binary, open for the whole life of the daemon (O_CLOEXEC: it
 * reaches no job; the clone child execs through it), the warm jobs'
 * reaper's, and a pidfd of the daemon itself, which the init polls to see
 * the daemon died before it re-armed PR_SET_PDEATHSIG (pidfd_open: Linux
 * 5.3; else -1). */
static int g_init_fd = -1, g_reaper_fd = -1, g_self_pidfd = -1;

/* A program every job runs as root: only root may have been able to change
 * it. Its descriptor, or -1 with err filled. */
static int open_root_exe(const char *path, const char *what, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		errfmt(err, errlen, "%s %s: %s", what, path, errfmt_desc(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
	    !(st.st_mode & S_IXUSR)) {
		errfmt(err, errlen, "%s %s: not a root-owned executable only root can write", what,
		       path);
		close(fd);
		return -1;
	}
	return fd;
}

int jail_init_open(const char *path, char *err, size_t errlen)
{
	int fd = open_root_exe(path, "job init", err, errlen);
	if (fd < 0)
		return -1;
	if (g_init_fd >= 0)
		close(g_init_fd);
	g_init_fd = fd;
	if (g_self_pidfd < 0)
		g_self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	return 0;
}

int jail_reaper_open(const char *path, char *err, size_t errlen)
{
	int fd = open_root_exe(path, "warm jobs' reaper", err, errlen);
	if (fd < 0)
		return -1;
	if (g_reaper_fd >= 0)
		close(g_reaper_fd);
	g_reaper_fd = fd;
	return 0;
}

int jail_init_fd(void)
{
	return g_init_fd;
}

int jail_reaper_fd(void)
{
	return g_reaper_fd >= 0 ? g_reaper_fd : g_init_fd;
}

/* close_range, or before Linux 5.9 one close per descriptor up to the
 * descriptor limit (plain syscalls: safe in the clone child). */
static int close_range_compat(unsigned lo, unsigned hi)
{
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	unsigned top = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20)
			   ? (1u << 20)
			   : (unsigned)rl.rlim_max;
	for (unsigned fd = lo; fd <= hi && fd < top; fd++)
		close((int)fd);
	return 0;
}

#define LIFT_BASE 100 /* above every JFD_ number */

static void child_fail(int st, const char *step)
{
	jail_report_error(st, step);
	_exit(127);
}

/* Runs in a copy of the multithreaded daemon: plain syscalls only, and no
 * layer at all. Each descriptor the init needs goes to its JFD_ number;
 * every other one (the daemon's sockets, other jobs' pipes) is closed, and
 * then the exec replaces this copy of the daemon's memory. */
int jail_exec_init(void *arg)
{
	const struct jail_child *c = arg;
	int st = c->status_wr;
	/* Die with the daemon; the init checks after the exec that it held. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(st, "pdeathsig");
	int src[JFD_COUNT] = {
	    [JFD_STDIN] = c->stdin_rd,	 [JFD_STDOUT] = c->stdout_wr, [JFD_STDERR] = c->stderr_wr,
	    [JFD_STATUS] = c->status_wr, [JFD_SYNC] = c->sync_rd,     [JFD_SPEC] = c->spec_fd,
	    [JFD_NOTIFY] = c->notify_wr, [JFD_RESULT] = c->result_wr, [JFD_KEY] = c->key_rd,
	    [JFD_PARENT] = g_self_pidfd};
	/* Lift everything first, so placing one never clobbers another. */
	int exe = fcntl(g_init_fd, F_DUPFD_CLOEXEC, LIFT_BASE);
	if (g_init_fd < 0 || exe < 0)
		child_fail(st, "sandboxd-init not open");
	for (int i = 0; i < JFD_COUNT; i++)
		if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, LIFT_BASE)) < 0)
			child_fail(st, "moving descriptors");
	st = src[JFD_STATUS];
	for (int i = 0; i < JFD_COUNT; i++)
		if (src[i] >= 0 && dup2(src[i], i) < 0) /* the copy is not close-on-exec */
			child_fail(st, "placing descriptors");
		else if (src[i] < 0)
			close(i);
	if (close_range_compat(JFD_COUNT, (unsigned)exe - 1) < 0 ||
	    close_range_compat((unsigned)exe + 1, ~0U) < 0)
		child_fail(JFD_STATUS, "closing inherited descriptors");
	static const char *const argv[] = {"sandboxd-init", NULL};
	static const char *const envp[] = {NULL};
	syscall(SYS_execveat, exe, "", (char *const *)argv, (char *const *)envp, AT_EMPTY_PATH);
	child_fail(JFD_STATUS, "exec sandboxd-init");
	return 127;
}
