/* libsbxwarm.so: the C half of a fork server (docs/architecture.md, "The
 * warm path"), loaded by sbx_runner/warm.py with ctypes. Plain syscalls
 * and the jail's own layer files, so a job forked from the server gets the
 * layers a cold job's init applies, in the same order, from the same code.
 *
 * The server (Python, pid 1 of its PID namespace, uid 0 and capabilities
 * only inside its user namespace) loops: wait for a job's descriptors
 * (warmfork_next), start the job's reaper as pid 1 of a fresh PID
 * namespace, fork (os.fork in Python), and in the parent hand the daemon
 * pidfds of both, wait for the job and report its status
 * (warmfork_parent). The child applies the layers (warmfork_child) and
 * returns into Python to run the job. The server never runs job code and
 * never reads the job's description. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/mounts.h"
#include "sandboxd/jail/net.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/uid.h"
#include "sandboxd/jail/warm_msg.h"

#define EXPORT __attribute__((visibility("default")))

enum { CTL_FD = 3, INIT_FD = 5 };

static int g_pidns = -1;
static int g_fds[WJ_COUNT];
static int g_nfds;
static pid_t g_reaper = -1;
static char g_stack[64 * 1024] __attribute__((aligned(16)));

static void close_job_fds(int keep)
{
	for (int i = 0; i < g_nfds; i++)
		if (i != keep && g_fds[i] >= 0) {
			close(g_fds[i]);
			g_fds[i] = -1;
		}
}

/* Once, before the first job: the server's own PID namespace (to return
 * to after each job's), the capability count, and "ready". */
EXPORT int warmfork_ready(void)
{
	g_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (g_pidns < 0 || caps_init() < 0)
		return -1;
	return send(CTL_FD, WARM_READY, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int reaper_exec(void *arg)
{
	(void)arg;
	static const char *const argv[] = {"sandboxd-init", NULL};
	static const char *const envp[] = {"SANDBOXD_INIT=reaper", NULL};
	/* Nothing reaches the reaper, not even the init binary's descriptor
	 * (an ELF runs from a close-on-exec descriptor). */
	if (syscall(SYS_close_range, 0, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) < 0)
		_exit(127);
	syscall(SYS_execveat, INIT_FD, "", argv, envp, AT_EMPTY_PATH);
	_exit(127);
}

/* Waits for the next job's descriptors; then its PID namespace, with the
 * reaper as pid 1. The caller's next fork is the job, pid 2 there. */
EXPORT int warmfork_next(void)
{
	g_nfds = warm_msg_recv(CTL_FD, WARM_JOB, g_fds, WJ_COUNT);
	if (g_nfds != WJ_COUNT_PLAIN && g_nfds != WJ_COUNT)
		return -1;
	if (setns(g_pidns, CLONE_NEWPID) < 0 || unshare(CLONE_NEWPID) < 0)
		return -1;
	g_reaper = clone(reaper_exec, g_stack + sizeof g_stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
			 NULL);
	return g_reaper < 0 ? -1 : 0;
}

/* In the server once the job is forked: pidfds of the reaper and the job to
 * the daemon (which puts both into the job's cgroup before the job goes),
 * then wait for the job, report how it ended like a job's init does, and
 * end its PID namespace by killing the reaper. */
EXPORT int warmfork_parent(int job)
{
	int pf[2] = {(int)syscall(SYS_pidfd_open, g_reaper, 0),
		     (int)syscall(SYS_pidfd_open, job, 0)};
	int rc = pf[0] >= 0 && pf[1] >= 0 ? warm_msg_send(CTL_FD, WARM_SPAWNED, pf, 2) : -1;
	for (int i = 0; i < 2; i++)
		if (pf[i] >= 0)
			close(pf[i]);
	close_job_fds(WJ_STATUS);
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_STATUS;
	pid_t w;
	while ((w = wait4(job, &m.status, __WALL, &m.ru)) < 0 && errno == EINTR)
		;
	if (w == job && rc == 0)
		(void)!write(g_fds[WJ_STATUS], &m, sizeof m);
	kill(g_reaper, SIGKILL);
	while (waitpid(g_reaper, NULL, __WALL) < 0 && errno == EINTR)
		;
	close_job_fds(-1);
	if (w != job || rc < 0)
		return -1;
	return send(CTL_FD, WARM_DONE, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

#define STEP(call, name)                                                                           \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			jail_report_error(st, name);                                               \
			_exit(127);                                                                \
		}                                                                                  \
	} while (0)

static const struct jail_spec *load_spec(int st, void **blob, size_t *len)
{
	static struct jail_spec spec;
	int fd = g_fds[WJ_SPEC];
	struct stat sb;
	STEP(fstat(fd, &sb), "job description");
	int seals = fcntl(fd, F_GET_SEALS);
	if (sb.st_size <= 0 || seals < 0 || !(seals & F_SEAL_WRITE) || !(seals & F_SEAL_SHRINK)) {
		errno = EPROTO;
		STEP(-1, "job description not sealed");
	}
	*len = (size_t)sb.st_size;
	*blob = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	STEP(*blob == MAP_FAILED ? -1 : 0, "mapping the job description");
	STEP(jail_wire_decode(*blob, *len, &spec), "decoding the job description");
	if (!spec.warm || spec.peer) {
		errno = EPROTO;
		STEP(-1, "not a warm job");
	}
	return &spec;
}

/* Every CPU back (the server runs on one; zygote.c), as a cold job has. */
static int all_cpus(void)
{
	cpu_set_t set;
	memset(&set, 0xff, sizeof set);
	return sched_setaffinity(0, sizeof set, &set);
}

/* The job's descriptors at the numbers a cold payload has them: 0-2, and 3
 * and 4 for the runner's channels; everything else the server held is
 * closed. The status and notify pipes stay (high) until the last layer. */
static void place_fds(bool runner, int *status, int *notify)
{
	int st = *status;
	int lift[WJ_COUNT];
	for (int i = 0; i < g_nfds; i++)
		STEP(lift[i] = fcntl(g_fds[i], F_DUPFD_CLOEXEC, 100), "moving descriptors");
	st = lift[WJ_STATUS];
	int want[][2] = {{lift[WJ_STDIN], 0},
			 {lift[WJ_STDOUT], 1},
			 {lift[WJ_STDERR], 2},
			 {runner ? lift[WJ_RESULT] : -1, 3},
			 {runner ? lift[WJ_KEY] : -1, 4}};
	STEP(syscall(SYS_close_range, 0, 99, 0), "closing the server's descriptors");
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (want[i][0] >= 0)
			STEP(dup2(want[i][0], want[i][1]), "placing descriptors");
	for (int i = 0; i < g_nfds; i++)
		if (i != WJ_STATUS && i != WJ_NOTIFY)
			close(lift[i]);
	*status = st;
	*notify = lift[WJ_NOTIFY];
}

/* In the job (the server's child, pid 2 of its PID namespace): wait to be
 * in the job's cgroup, then the layers jail_child.c applies to a cold
 * job, in its order. Returns 0 into Python to run the job; on any failure
 * reports the step and exits. */
EXPORT int warmfork_child(void)
{
	int st = g_fds[WJ_STATUS];
	char go;
	STEP(prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
	if (read(g_fds[WJ_SYNC], &go, 1) != 1)
		_exit(1);
	void *blob;
	size_t blob_len;
	const struct jail_spec *s = load_spec(st, &blob, &blob_len);
	STEP(unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP),
	     "namespaces");
	STEP(mounts_apply(s), "mounts");
	STEP(net_apply(), "network");
	STEP(ns_apply_uts(), "uts namespace");
	STEP(all_cpus(), "cpu affinity");
	int notify;
	place_fds(s->runner, &st, &notify);
	STEP(setsid(), "setsid");
	STEP(rlimits_apply(&s->rl), "rlimits");
	STEP(caps_drop_bounding(), "capability bounding set");
	STEP(uid_apply(s->uid, s->gid), "uid/gid");
	STEP(caps_drop_all(), "capabilities");
	STEP(mounts_write_files(s), "writing files");
	int listener = -1;
	STEP(scmp_apply(s->job->seccomp, &listener), "seccomp");
	if (listener >= 0) {
		STEP(fdpass_send(notify, listener), "seccomp listener");
		close(listener);
	}
	close(notify);
	munmap(blob, blob_len);
	close(st);
	return 0;
}
