/* A fork server's init, in sandboxd-init (docs/architecture.md, "The warm
 * path"); the reaper of each job forked from it is reaper.c.
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
#include <linux/securebits.h>
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
	/* A user namespace is owned by the effective uid that makes it, and
	 * the kernel counts the per-user resources of every process inside
	 * (pending signals and POSIX timers among them) against that owner's
	 * on the host too. Made by root, one job holding its RLIMIT_SIGPENDING
	 * of timers left the host's root processes none (an outside attack,
	 * tests/hostile/client_sigpending_owner.py); made by the slot's server
	 * uid, it uses up that slot's count only. The real and saved uids stay
	 * root until the change inside below, so the namespace's process
	 * count is left unbounded, as the real uid root's is. A host that lets
	 * only privileged processes make user namespaces (Debian's
	 * kernel.unprivileged_userns_clone=0, Ubuntu's AppArmor restriction)
	 * asks for CAP_SYS_ADMIN: SECBIT_NO_SETUID_FIXUP keeps the capabilities
	 * across the change of the effective uid, and is cleared in the new
	 * namespace, where this process holds every capability. */
	if (s->server_uid == 0) {
		errno = EINVAL;
		ZSTEP(st, -1, "server uid");
	}
	ZSTEP(st, prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP), "securebits");
	ZSTEP(st, syscall(SYS_setresuid, (long)-1, (long)s->server_uid, (long)-1),
	      "user namespace owner");
	ZSTEP(st, unshare(CLONE_NEWUSER), "user namespace");
	ZSTEP(st, prctl(PR_SET_SECUREBITS, 0), "securebits");
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_USERNS;
	ZSTEP(st, write(st, &m, sizeof m) == (ssize_t)sizeof m ? 0 : -1, "user namespace report");
	char go;
	if (read(c->sync_rd, &go, 1) != 1)
		_exit(1); /* the daemon gave up */
	close(c->sync_rd);
	/* uid 0 of the new namespace: the server's uid outside. Capabilities
	 * are kept across this change (the effective uid was this namespace's
	 * root already), and the exec below grants them again, inside only. */
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
		memset(&ru, 0, sizeof ru);
		pid_t p = wait4(-1, &status, __WALL, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p == pid || p < 0) {
			jail_msg_send_status(st, p == pid ? status : -1, &ru);
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
