/* A fork server's init, and the reaper of each job forked from it: both run
 * in sandboxd-init (docs/architecture.md, "The warm path").
 *
 * zygote_main runs where a job's init would (pid 1 of fresh namespaces, real
 * root), builds the same tree a job gets, then moves into a user namespace
 * of its own: uid 0 inside is the slot's server uid outside, and the slot's
 * job uid maps to itself (the daemon writes the maps; warm.c). It forks the
 * server as pid 1 of a PID namespace that user namespace owns, so the
 * server can create each job's namespaces, and execs the interpreter with
 * the job's own argv and environment. The server keeps capabilities only
 * inside that user namespace; nothing that holds one in the host's runs
 * Python. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/mounts.h"
#include "sandboxd/jail/net.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/warm_msg.h"

/* The server's descriptors (sbx_runner/warm.py and warm_fork.c read them
 * by number): ZFD_SPEC is the server's own description, from which each
 * job forked ahead builds its tree before its job comes (warm_fork.c). */
enum { ZFD_CTL = 3, ZFD_LIB = 4, ZFD_INIT = 5, ZFD_SPEC = 6 };

#define ZSTEP(fd, call, name)                                                                      \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			jail_report_error(fd, name);                                               \
			_exit(127);                                                                \
		}                                                                                  \
	} while (0)

/* One CPU for the server: a numerical library sizes its thread pool from
 * the CPUs it may use when it is imported, and a server with threads could
 * not fork safely. Each job gets the whole set back (warm_fork.c). */
static int pin_one_cpu(uid_t uid)
{
	cpu_set_t set, one;
	if (sched_getaffinity(0, sizeof set, &set) < 0)
		return -1;
	int n = CPU_COUNT(&set), want = n > 0 ? (int)(uid % (unsigned)n) : 0;
	CPU_ZERO(&one);
	for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && seen++ == want) {
			CPU_SET(cpu, &one);
			break;
		}
	return sched_setaffinity(0, sizeof one, &one);
}

static _Noreturn void server_exec(const struct jail_child *c)
{
	const struct jail_spec *s = c->spec;
	int st = c->status_wr;
	jail_payload_start(st);
	/* The status pipe first, above the numbers the server's are placed at
	 * (close-on-exec: the server never has it). */
	ZSTEP(st, st = fcntl(st, F_DUPFD_CLOEXEC, 100), "server descriptors");
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ZSTEP(st, null, "server stdin");
	int src[] = {null, null, c->stderr_wr, c->notify_wr, c->result_wr, c->key_rd, JFD_SPEC};
	for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
		ZSTEP(st, src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 100), "server descriptors");
	for (int i = 0; i < (int)(sizeof src / sizeof src[0]); i++)
		ZSTEP(st, dup2(src[i], i), "server descriptors");
	ZSTEP(st, pin_one_cpu(s->uid), "server cpu");
	ZSTEP(st, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "server no_new_privs");
	ZSTEP(st, chdir("/work"), "server cwd");
	execve(s->argv[0], (char *const *)s->argv, (char *const *)s->envp);
	jail_report_error(st, "server execve");
	_exit(127);
}

_Noreturn void zygote_main(const struct jail_child *c)
{
	const struct jail_spec *s = c->spec;
	int st = c->status_wr;
	ZSTEP(st, ns_apply_cgroup(), "cgroup namespace");
	ZSTEP(st, mounts_apply(s), "mounts");
	ZSTEP(st, ns_apply_uts(), "uts namespace");
	/* The plain server's script (main.py in /work), written as root. */
	ZSTEP(st, mounts_write_files(s), "writing files");
	ZSTEP(st, unshare(CLONE_NEWUSER), "user namespace");
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_USERNS;
	ZSTEP(st, write(st, &m, sizeof m) == (ssize_t)sizeof m ? 0 : -1, "user namespace report");
	char go;
	if (read(c->sync_rd, &go, 1) != 1)
		_exit(1); /* the daemon gave up */
	close(c->sync_rd);
	/* uid 0 of the new namespace: the server's uid outside. Capabilities
	 * are kept across this change (the old uid was not this namespace's
	 * root), and the exec below grants them again, inside only. */
	ZSTEP(st, syscall(SYS_setresgid, 0, 0, 0), "server gid");
	ZSTEP(st, syscall(SYS_setgroups, 0, NULL), "server groups");
	ZSTEP(st, syscall(SYS_setresuid, 0, 0, 0), "server uid");
	/* A change of ids clears the death signal: armed again, then the
	 * daemon's pidfd closes the window in between (main.c). */
	ZSTEP(st, prctl(PR_SET_PDEATHSIG, SIGKILL), "server pdeathsig");
	struct pollfd pp = {.fd = JFD_PARENT, .events = POLLIN};
	if (fcntl(JFD_PARENT, F_GETFD) >= 0 && poll(&pp, 1, 0) != 0)
		_exit(1);
	ZSTEP(st, unshare(CLONE_NEWPID), "server pid namespace");
	pid_t pid = fork();
	ZSTEP(st, pid, "fork server");
	if (pid == 0)
		server_exec(c);
	for (int fd = 0; fd < JFD_COUNT; fd++)
		if (fd != st)
			close(fd);
	ZSTEP(st, caps_drop_bounding(), "init capability bounding set");
	ZSTEP(st, caps_drop_all(), "init capabilities");
	for (;;) {
		int status;
		struct rusage ru;
		pid_t p = wait4(-1, &status, __WALL, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p == pid || p < 0) {
			memset(&m, 0, sizeof m);
			m.kind = JAIL_MSG_STATUS;
			m.status = p == pid ? status : -1;
			m.ru = ru;
			(void)!write(st, &m, sizeof m);
			_exit(0);
		}
	}
}

/* pid 1 of one job's PID namespace, exec'd by the job's first process
 * right after it forked the job ahead (warm_fork.c), before the job came:
 * from then on it shares nothing with the server. It waits for the job's
 * descriptors on the daemon's channel (fd 3) and hands them on to the job
 * (fd 4); then, like a cold job's init, it reaps everything, and when the
 * job (pid 2) ends, reports its wait status on the status pipe (kept as
 * fd 3) and exits, which makes the kernel kill whatever is left. Once the
 * job has its descriptors this process holds nothing else: no other
 * descriptor (the job runs none of its code before the channel to it is
 * closed), no capability, and it is not dumpable. */
_Noreturn void zygote_reaper_main(void)
{
	enum { JOB = 2 };
	const char *failed = NULL;
	if (prctl(PR_SET_DUMPABLE, 0) < 0 || caps_init() < 0 || caps_drop_bounding() < 0 ||
	    caps_drop_all() < 0)
		failed = "reaper";
	if (warm_msg_await(REAPER_CH) == 0)
		_exit(REAPER_STOP); /* the daemon dropped this pid 1 */
	int fds[WJ_COUNT];
	int n = warm_msg_recv(REAPER_CH, WARM_JOB, fds, WJ_COUNT);
	if (n != WJ_COUNT_PLAIN && n != WJ_COUNT)
		_exit(REAPER_FAILED);
	/* The status pipe in the channel's place; the job's copy of each
	 * descriptor is its own. A failed hand-over leaves the job without
	 * them: it ends, never having run (warm_fork.c, job_wait). */
	if (dup2(fds[WJ_STATUS], REAPER_CH) < 0)
		_exit(REAPER_FAILED);
	if (failed) {
		jail_report_error(REAPER_CH, failed);
		_exit(REAPER_FAILED);
	}
	if (warm_msg_send(REAPER_BC, WARM_JOB, fds, n) < 0) {
		jail_report_error(REAPER_CH, "handing the job on");
		_exit(REAPER_FAILED);
	}
	/* Received descriptors took the lowest free numbers (0 to 2 among
	 * them): all go but the status pipe. */
	if (syscall(SYS_close_range, 0, REAPER_CH - 1, 0) < 0 ||
	    syscall(SYS_close_range, REAPER_BC, ~0U, 0) < 0) {
		jail_report_error(REAPER_CH, "reaper descriptors");
		_exit(REAPER_FAILED);
	}
	for (;;) {
		int status;
		struct rusage ru;
		pid_t p = wait4(-1, &status, __WALL, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			jail_report_error(REAPER_CH, "reaper lost the job");
			_exit(1);
		}
		if (p == JOB) {
			struct jail_msg m;
			memset(&m, 0, sizeof m);
			m.kind = JAIL_MSG_STATUS;
			m.status = status;
			m.ru = ru;
			(void)!write(REAPER_CH, &m, sizeof m);
			_exit(0);
		}
	}
}

/* A fork server's pooled network namespace (warm_net.c): started by the
 * daemon in the server's user namespace, it unshares a network namespace
 * that user namespace owns and brings lo up as a job's own is (net_apply),
 * says so on fd 3 (NETNS_READY, or the failed step and errno) and waits
 * for the daemon to close fd 4, having opened the namespace and its files
 * meanwhile. */
_Noreturn void zygote_net_main(void)
{
	enum { READY = 3, GO = 4 };
	char b = NETNS_READY;
	if (unshare(CLONE_NEWNET) < 0)
		b = NETNS_UNSHARE;
	else if (net_apply() < 0)
		b = NETNS_LO;
	int e = errno;
	if (write(READY, &b, 1) != 1 || b) {
		(void)!write(READY, &e, sizeof e);
		_exit(1);
	}
	while (read(GO, &b, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}
