/* The jail, as the ordered list of its layers. jail_child_main() runs as the
 * job's init: pid 1 of fresh PID, mount, network, IPC and UTS namespaces
 * (created by clone(), see ns.c), still root, and a copy of a multithreaded
 * daemon, so it only makes syscalls: every string and buffer it uses was
 * prepared by jail_spec_init() in the parent. */
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

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/mounts.h"
#include "sandboxd/jail/net.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/uid.h"

#define ROOT_BASE_KB 1024 /* the root tmpfs of a plain job: 1 MiB */
#define ROOT_SLACK_KB 64

int jail_spec_init(struct jail_spec *s, const struct jail_job *job, uid_t uid, gid_t gid,
		   const char *root_dir, bool use_cgroup)
{
	const struct jail_limits *lim = &job->lim;
	memset(s, 0, sizeof *s);
	if (job->nargs > JAIL_MAX_ARGS || (job->peer_args && job->npeer_args > JAIL_MAX_ARGS + 2))
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
	/* Inodes are bounded too, so a job cannot exhaust them with empty files. */
	snprintf(s->tmpfs_opts, sizeof s->tmpfs_opts, "size=%ldm,nr_inodes=16384,mode=1777",
		 lim->tmpfs_mb);
	/* With a peer, /work is the candidate's: the grader reads only the
	 * read-only root. */
	uid_t wuid = job->peer_args ? job->peer_uid : uid;
	gid_t wgid = job->peer_args ? job->peer_gid : gid;
	snprintf(s->work_opts, sizeof s->work_opts,
		 "size=%ldm,nr_inodes=16384,mode=0700,uid=%u,gid=%u", lim->tmpfs_mb, (unsigned)wuid,
		 (unsigned)wgid);
	snprintf(s->passwd, sizeof s->passwd,
		 "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:%u:%u:sandbox:/tmp:/usr/sbin/"
		 "nologin\n",
		 (unsigned)uid, (unsigned)gid);
	snprintf(s->group, sizeof s->group, "root:x:0:\nsandbox:x:%u:\n", (unsigned)gid);
	rlimits_prepare(&s->rl, lim, use_cgroup);
	size_t a = 0;
	s->argv[a++] = job->interpreter;
	for (size_t i = 0; i < job->nargs; i++)
		s->argv[a++] = job->args[i];
	s->argv[a++] = "main.py";
	s->argv[a] = NULL;
	if (job->peer_args) {
		s->peer_argv[0] = job->interpreter;
		for (size_t i = 0; i < job->npeer_args; i++)
			s->peer_argv[1 + i] = job->peer_args[i];
		s->peer_argv[1 + job->npeer_args] = NULL;
	}
	size_t e = 0;
	static const char *const fixed_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp",
						"TMPDIR=/tmp", "LANG=C.UTF-8", NULL};
	for (int i = 0; fixed_env[i]; i++)
		s->envp[e++] = fixed_env[i];
	s->envp[e] = NULL;
	return 0;
}

void jail_spec_use_runner(struct jail_spec *s, const char *runner_src, size_t runner_len,
			  const char *job_json, size_t job_len, const char *key, long long seed)
{
	s->runner = true;
	s->runner_src = runner_src;
	s->runner_len = runner_len;
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

static char *cmdline_start;
static size_t cmdline_len;

void jail_note_cmdline(int argc, char **argv)
{
	if (argc < 1)
		return;
	/* The kernel lays argv strings out back to back. */
	cmdline_start = argv[0];
	cmdline_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
}

/* In the job's own copy of memory: the daemon is untouched. */
static void hide_cmdline(void)
{
	static const char name[] = "sandbox-init";
	if (cmdline_start && cmdline_len >= sizeof name) {
		memset(cmdline_start, 0, cmdline_len);
		memcpy(cmdline_start, name, sizeof name);
	}
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* Reports a failed step to the daemon; the message names the step. */
static void report_error(int fd, const char *step)
{
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_ERROR;
	m.err = errno;
	size_t n = strlen(step);
	memcpy(m.text, step, n < sizeof m.text - 1 ? n : sizeof m.text - 1);
	(void)!write(fd, &m, sizeof m);
}

#define STEP(fd, call, name)                                                                       \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			report_error(fd, name);                                                    \
			_exit(127);                                                                \
		}                                                                                  \
	} while (0)

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

/* Closes every descriptor but the listed ones: the daemon's other sockets and
 * other jobs' pipes must not live on in this job. */
static int close_all_except(const int *keep, int n)
{
	int lo = 3;
	for (;;) {
		int next = -1;
		for (int i = 0; i < n; i++)
			if (keep[i] >= lo && (next < 0 || keep[i] < next))
				next = keep[i];
		unsigned hi = next < 0 ? ~0U : (unsigned)next - 1;
		if ((unsigned)lo <= hi && close_range_compat((unsigned)lo, hi) < 0)
			return -1;
		if (next < 0)
			return 0;
		lo = next + 1;
	}
}

/* The payload: becomes the candidate's Python process. Layers from here on
 * only take privileges away; seccomp is last because the steps before it
 * need syscalls the profile forbids. */
static int lift(int *fd)
{
	if (*fd < 0)
		return 0;
	int n = fcntl(*fd, F_DUPFD_CLOEXEC, 100);
	if (n < 0)
		return -1;
	close(*fd);
	*fd = n;
	return 0;
}

/* The main payload (peer false), or with process isolation the candidate
 * (peer true): another uid, stdin /dev/null, no result or key channel, its
 * end of the socketpair as fd 3 (the main payload's is its fd 5). */
static void payload_main(const struct jail_child *orig, bool peer)
{
	struct jail_child cc = *orig, *c = &cc;
	const struct jail_spec *s = c->spec;
	bool has_peer = s->job->peer_args != NULL;
	/* Move every descriptor above the numbers the payload's stdio and
	 * channels take, so placing one never clobbers another. */
	int *all[] = {&c->status_wr, &c->stdin_rd, &c->stdout_wr, &c->stderr_wr, &c->notify_wr,
		      &c->result_wr, &c->key_rd,   &c->peer_main, &c->peer_cand};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (lift(all[i]) < 0) {
			report_error(orig->status_wr, "moving descriptors");
			_exit(127);
		}
	int st = c->status_wr;
	STEP(st, setsid(), "setsid");
	/* The daemon blocks and ignores signals for itself; a job starts clean. */
	sigset_t none;
	sigemptyset(&none);
	STEP(st, sigprocmask(SIG_SETMASK, &none, NULL), "signal mask");
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	if (peer) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		STEP(st, null, "stdin /dev/null");
		STEP(st, dup2(null, 0), "stdin");
		close(null);
	} else {
		STEP(st, dup2(c->stdin_rd, 0), "stdin");
	}
	STEP(st, dup2(c->stdout_wr, 1), "stdout");
	STEP(st, dup2(c->stderr_wr, 2), "stderr");
	if (peer) {
		STEP(st, dup2(c->peer_cand, 3), "candidate channel");
	} else if (c->result_wr >= 0) {
		STEP(st, dup2(c->result_wr, 3), "result channel");
		STEP(st, dup2(c->key_rd, 4), "key channel");
	}
	if (!peer && has_peer)
		STEP(st, dup2(c->peer_main, 5), "candidate channel");
	close(c->stdin_rd);
	close(c->stdout_wr);
	close(c->stderr_wr);
	if (c->result_wr >= 0) {
		close(c->result_wr);
		close(c->key_rd);
	}
	if (has_peer) {
		close(c->peer_main);
		close(c->peer_cand);
	}
	STEP(st, rlimits_apply(&s->rl), "rlimits");
	STEP(st, caps_drop_bounding(), "capability bounding set");
	if (peer)
		STEP(st, uid_apply(s->job->peer_uid, s->job->peer_gid), "uid/gid");
	else
		STEP(st, uid_apply(s->uid, s->gid), "uid/gid");
	STEP(st, caps_drop_all(), "capabilities");
	/* /work belongs to the candidate when there is one. */
	if (peer || !has_peer)
		STEP(st, mounts_write_files(s), "writing files");
	int listener = -1;
	STEP(st, scmp_apply(s->job->seccomp, &listener), "seccomp");
	if (listener >= 0) {
		STEP(st, fdpass_send(c->notify_wr, listener), "seccomp listener");
		close(listener);
	}
	close(c->notify_wr);
	const char *const *argv = peer ? s->peer_argv : s->argv;
	execve(argv[0], (char *const *)argv, (char *const *)s->envp);
	report_error(st, "execve");
	_exit(127);
}

/* The job's init: reaps everything, and when the payload ends hands its wait
 * status to the daemon and exits, which makes the kernel kill whatever the
 * payload left behind. */
static void init_loop(const struct jail_child *c, pid_t payload)
{
	for (;;) {
		int status;
		struct rusage ru;
		pid_t p = wait4(-1, &status, __WALL, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			report_error(c->status_wr, "init lost the payload");
			_exit(1);
		}
		if (p == payload) {
			struct jail_msg m;
			memset(&m, 0, sizeof m);
			m.kind = JAIL_MSG_STATUS;
			m.status = status;
			m.ru = ru;
			(void)!write(c->status_wr, &m, sizeof m);
			_exit(0);
		}
	}
}

int jail_child_main(void *arg)
{
	const struct jail_child *c = arg;
	const struct jail_spec *s = c->spec;
	int st = c->status_wr;
	/* Die with the daemon, then wait until it has put us into the job's
	 * cgroup (EOF here means the daemon is gone or gave up). */
	STEP(st, prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
	int keep[] = {c->sync_rd,   c->status_wr, c->stdin_rd,	c->stdout_wr,
		      c->stderr_wr, c->notify_wr, c->result_wr, c->key_rd};
	STEP(st, close_all_except(keep, (int)(sizeof keep / sizeof keep[0])),
	     "closing inherited descriptors");
	hide_cmdline();
	char go;
	if (read(c->sync_rd, &go, 1) != 1)
		_exit(1);
	close(c->sync_rd);

	/* The layers, in order. */
	STEP(st, ns_apply_cgroup(), "cgroup namespace");
	STEP(st, mounts_apply(s), "mounts");
	STEP(st, net_apply(), "network");
	STEP(st, ns_apply_uts(), "uts namespace");
	struct jail_child pc = *c;
	pc.peer_main = pc.peer_cand = -1;
	if (s->job->peer_args) {
		int sv[2];
		STEP(st, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
		     "candidate socketpair");
		pc.peer_main = sv[0];
		pc.peer_cand = sv[1];
	}
	/* A raw clone: glibc's fork() would run atfork handlers and take malloc
	 * locks that another daemon thread may have held when we were cloned. */
	long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	STEP(st, pid, "fork payload");
	if (pid == 0)
		payload_main(&pc, false);
	if (s->job->peer_args) {
		long ppid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		STEP(st, ppid, "fork candidate");
		if (ppid == 0)
			payload_main(&pc, true);
		close(pc.peer_main);
		close(pc.peer_cand);
	}
	close(c->stdin_rd);
	close(c->stdout_wr);
	close(c->stderr_wr);
	close(c->notify_wr);
	if (c->result_wr >= 0) {
		close(c->result_wr);
		close(c->key_rd);
	}
	/* init stays uid 0 (so the payload's uid cannot signal or ptrace it) but
	 * keeps no capability and cannot be read through /proc/1/mem. */
	STEP(st, caps_drop_bounding(), "init capability bounding set");
	STEP(st, caps_drop_all(), "init capabilities");
	STEP(st, prctl(PR_SET_DUMPABLE, 0), "init dumpable");
	init_loop(c, (pid_t)pid);
	return 0;
}
