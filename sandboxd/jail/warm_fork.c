/* libsbxwarm.so: the C half of a fork server (docs/architecture.md, "The
 * warm path"), loaded by sbx_runner/warm.py with ctypes. Plain syscalls
 * and the jail's own layer files, so a job forked from the server gets the
 * layers a cold job's init applies, in the same order, from the same code.
 *
 * The server (Python, pid 1 of its PID namespace, uid 0 and capabilities
 * only inside its user namespace) loops on warmfork_spawn: the next job's
 * PID namespace, whose pid 1 is made before the job exists and put into the
 * job's cgroup by the daemon while the slot is idle; then that pid 1 forks
 * the job as pid 2, ahead of it, and once the job's descriptors come hands
 * them on and becomes the job's reaper. The job, back in Python, rehearses
 * a run (sbx_runner/warm.py: the pages any run writes are copied before
 * the job comes), then calls warmfork_job, which waits for the descriptors
 * and applies the layers (job_layers), and returns into Python to run.
 * The server never runs job code, never reads a job's description and is
 * never a job's parent. */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/mounts.h"
#include "sandboxd/jail/net.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/uid.h"
#include "sandboxd/jail/warm_hot.h"
#include "sandboxd/jail/warm_msg.h"
#include "sandboxd/jail/warm_spec.h"

#define EXPORT __attribute__((visibility("default")))

enum { CTL_FD = 3, REAPER_FD = 5, SPEC_FD = 6 };

static int g_pidns = -1;
static int g_fds[WJ_COUNT];
static int g_nfds;
static int g_bc = -1;	 /* in the job, before its descriptors: from its pid 1 */
static int g_ahead = -1; /* in the job forked ahead: its own socket to the daemon */
static int g_mntns = -1; /* in the job forked ahead: its mount namespace (job_prepare) */
static char g_stack[256 * 1024] __attribute__((aligned(16)));

/* Once, before the first job: the server's own PID namespace (to return
 * to after each job's), the capability count, its jobs' tree, its memory in
 * huge pages where it can be (its calibration child is reaped: no page is
 * shared yet), and "ready". runner: the server serves the runner's jobs
 * (sbx_runner/warm.py). */
EXPORT int warmfork_ready(int runner)
{
	/* fd 6, the server's own description (a sealed memfd, as a job's
	 * is); without one, each job builds its whole tree once it comes. */
	(void)warm_spec_template_load(SPEC_FD, runner != 0);
	close(SPEC_FD);
	/* Best effort, and briefly: a job may wait for this server (a
	 * rebuild) and must not wait long for an optimisation. */
	warm_hot_collapse(50 * 1000000ll);
	g_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (g_pidns < 0 || caps_init() < 0)
		return -1;
	return send(CTL_FD, WARM_READY, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* What the job's first process (A, below) leaves the server: 0 it exec'd
 * the reaper, 1 it failed, 2 the daemon closed the channel. A shares the
 * server's memory until its exec. */
static jmp_buf g_jb;
static volatile int g_a_state;

/* The server runs on one CPU (zygote.c); a job and its reaper get them all. */
static int all_cpus(void)
{
	cpu_set_t set;
	memset(&set, 0xff, sizeof set);
	return sched_setaffinity(0, sizeof set, &set);
}

/* A's next message from the daemon: 0 when one is there; the channel
 * closed (the daemon dropped this pid 1, or is gone), A ends, and with it
 * its PID namespace and a job forked ahead. */
static int a_await(int ch)
{
	int r = warm_msg_await(ch);
	if (r == 0) {
		g_a_state = 2;
		_exit(0);
	}
	return r < 0 ? -1 : 0;
}

/* A: pid 1 of the next job's PID namespace, made before the job exists: a
 * vfork-style child sharing the server's memory. It sends the daemon its
 * pidfd (the daemon puts it into the next job's cgroup while the slot is
 * idle, then says so), forks the job ahead of it (pid 2; its page tables
 * and everything after are the job's cgroup's), and execs the reaper
 * (sandboxd-init) at once, which waits for the job's descriptors, hands
 * them on, and then is the job's parent and reports its status as a cold
 * job's init does. The job returns from the server's warmfork_spawn by longjmp:
 * its memory is a copy of the server's, whose frame there is intact. */
static int a_main(void *arg)
{
	(void)arg;
	/* Its job comes on a channel of its own, never on the server's: a job
	 * the daemon sent to an earlier pid 1 that was killed before reading
	 * it (a cancelled job) must not reach this one, which the daemon has
	 * not yet put into a job cgroup. */
	int ch[2] = {-1, -1}, bc[2] = {-1, -1}, ah[2] = {-1, -1};
	int pf = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pf < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, bc) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ah) < 0)
		goto fail;
	/* ah: the job forked ahead's own way to the daemon (WARM_AHEAD), apart
	 * from ch, so that what it sends never lingers on the job's channel. */
	int sent[3] = {pf, ch[1], ah[1]};
	if (warm_msg_send(CTL_FD, WARM_SPAWNED, sent, 3) < 0)
		goto fail;
	close(pf);
	close(ch[1]);
	close(ah[1]);
	/* In the job's cgroup now: the job is forked at once, before its
	 * descriptors come, so the fork and what the interpreter does after
	 * it are not on the job's path. It waits on bc for them. */
	if (a_await(ch[0]) < 0 || warm_msg_recv(ch[0], WARM_PLACED, NULL, 0) != 0)
		goto fail;
	/* Every CPU back before the fork, as a cold job's init and payload
	 * have them: the job starts wherever the scheduler finds room, not on
	 * its server's CPU, where the server makes the next pid 1 meanwhile. */
	if (all_cpus() < 0)
		goto fail;
	pid_t job = fork();
	if (job == 0) {
		/* Only A reads the job's channel: with A gone, a job sent
		 * there dies with it. */
		close(ch[0]);
		close(bc[0]);
		g_ahead = ah[0];
		/* Its pidfd to the daemon, which made its pid 1 (and so it)
		 * low priority while it prepares, and gives it the normal one
		 * before its job (warm.c). Without it, no job is sent here. */
		int me = (int)syscall(SYS_pidfd_open, getpid(), 0);
		if (me < 0 || warm_msg_send(g_ahead, WARM_FORKED_AHEAD, &me, 1) < 0)
			_exit(0);
		close(me);
		g_bc = bc[1];
		longjmp(g_jb, 1);
	}
	if (job < 0)
		goto fail;
	close(bc[1]);
	close(ah[0]);
	/* The reaper now, before the job comes: from here this pid 1 shares
	 * nothing with the server, and its exec is off the job's path (it ran
	 * beside the job's set-up, on the CPUs the job needed). It waits for
	 * the job's descriptors on ch (fd 3), hands them on over bc (fd 4),
	 * and runs from the reaper binary's descriptor (an ELF runs from a
	 * close-on-exec one): sandboxd-reaper, or sandboxd-init, which this
	 * environment makes the reaper (reaper.c); nothing else of the
	 * server's reaches it. Either way its argv is a cold job's init's, which the job sees
	 * in /proc/1/cmdline. */
	static const char *const argv[] = {"sandboxd-init", NULL};
	static const char *const envp[] = {"SANDBOXD_INIT=reaper", NULL};
	int c = fcntl(ch[0], F_DUPFD_CLOEXEC, 100), b = fcntl(bc[0], F_DUPFD_CLOEXEC, 100);
	if (c < 0 || b < 0 || dup2(c, REAPER_CH) < 0 || dup2(b, REAPER_BC) < 0 ||
	    syscall(SYS_close_range, 0, 2, 4 /* CLOSE_RANGE_CLOEXEC */) < 0 ||
	    syscall(SYS_close_range, REAPER_BC + 1, ~0U, 4) < 0)
		goto fail;
	syscall(SYS_execveat, REAPER_FD, "", argv, envp, AT_EMPTY_PATH);
fail:
	g_a_state = 1;
	_exit(127);
}

/* Pages copied ahead (warm_hot.c): the ranges the server's first job
 * forked ahead reported, and, while there are none yet, the pipe on which
 * the next one reports them (only it and the server hold it). */
static struct hot_range g_hot[WARM_HOT_MAX];
static size_t g_nhot;
static int g_learn[2] = {-1, -1};
/* What a calibration child of the server wrote running a job's path on a
 * built-in job (warm.py, _calibrating): the pages a job writes after its
 * layers, which the first job forked ahead, reporting before its job
 * came, never wrote. Joined to its report. */
static struct hot_range g_cal[WARM_HOT_MAX];
static size_t g_ncal;

/* Before each fork: takes what the last job forked ahead reported, or
 * makes a pipe for the next one to report on. */
static void hot_next(void)
{
	if (g_nhot)
		return;
	if (g_learn[0] >= 0) {
		int n = warm_hot_recv(g_learn[0], g_hot, WARM_HOT_MAX);
		close(g_learn[0]);
		g_learn[0] = -1;
		if (n > 0) {
			g_nhot = warm_hot_merge(g_hot, (size_t)n, WARM_HOT_MAX, g_cal, g_ncal);
			return;
		}
	}
	if (pipe2(g_learn, O_CLOEXEC | O_NONBLOCK) < 0)
		g_learn[0] = g_learn[1] = -1;
}

/* The next job's PID namespace and its first process (a_main), which waits
 * there for the job. Returns 1 in the job, 0 in the server once the reaper
 * runs, -2 when the daemon closed the channel (stop), -1 when it failed.
 * It first reaps the reapers of earlier jobs. */
static int spawn(void)
{
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
	hot_next();
	g_a_state = 0;
	/* The server waits for A's end, asleep in waitpid: A shares its memory
	 * until it execs the reaper, and as the reaper it is the job's pid 1,
	 * so it ends when its job ends. The server's work for the next job
	 * (its next A) is done after this one, never in the middle of its
	 * set-up or its run, where its wake-up preempted the job (1 to 2 ms,
	 * in every other job of the bench). */
	if (setns(g_pidns, CLONE_NEWPID) < 0 || unshare(CLONE_NEWPID) < 0)
		return -1;
	if (setjmp(g_jb))
		return 1;
	pid_t a = clone(a_main, g_stack + sizeof g_stack, CLONE_VM | SIGCHLD, NULL);
	int st = 0;
	while (a >= 0 && waitpid(a, &st, __WALL) < 0 && errno == EINTR)
		;
	/* Only now: A shared this memory, and forked the job with g_learn as
	 * it was. The write end was the job's alone from there. */
	if (g_learn[1] >= 0) {
		close(g_learn[1]);
		g_learn[1] = -1;
	}
	if (a < 0)
		return -1;
	/* Before its exec, A says how it ended in this memory; the reaper,
	 * by its exit code (a reaper killed with its job had its job). */
	if (g_a_state)
		return g_a_state == 2 ? -2 : -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == REAPER_STOP)
		return -2;
	return WIFEXITED(st) && WEXITSTATUS(st) == REAPER_FAILED ? -1 : 0;
}

static void job_layers(void);

/* A step the job took before its descriptors came, which failed: reported
 * once they are there (job_layers), as any failed layer is. */
static const char *g_early_step;
static int g_early_errno;

/* Whether this job, forked ahead, built its namespaces and its tree from
 * the template before its job came (job_prepare). */
static bool g_prepared;
/* How much it copies between two looks for its job: 32 pages, about 80 us
 * on the 2-core machine, so a job that comes meanwhile waits no longer.
 * Under load a job comes at once: copying every page ahead then was work
 * on its path for pages it might never write (with these looks and the
 * tree built first, 2 workers saturated: trivial jobs 373 -> 410 jobs/s,
 * HumanEval 234 -> 276 tasks/s; one at a time, no change). */
#define HOT_CHUNK_PAGES 32

/* In the job forked ahead, before its job comes: the namespaces a job
 * unshares (the network namespace is the job's to choose, job_layers) and
 * the tree, the hostname, all from the template. It is in the next job's
 * cgroup already, so what the kernel spends on them is that job's, as it
 * was when the job made them after it came. A failure ends it: it has run
 * nothing of any job's, and its pid 1, which can no longer hand it a job,
 * fails, so that the job runs cold (a_main). */
static void job_prepare(void)
{
	if (g_learn[0] >= 0)
		close(g_learn[0]);
	g_learn[0] = -1;
	/* The tree first: every job needs it. The copies after it are worth
	 * making only while the job has not come; under load it comes while
	 * the tree is built, and the copies are left to what the job writes
	 * (HOT_CHUNK_PAGES). */
	const struct jail_spec *tmpl = warm_spec_template();
	if (tmpl) {
		if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP) < 0 ||
		    mounts_prepare(tmpl) < 0 || ns_apply_uts() < 0 || warm_spec_ahead() < 0)
			_exit(0);
		g_prepared = true;
		/* The namespace the daemon keeps until it frees the job's tree
		 * (handover.c), opened now rather than on the job's path; above
		 * the numbers place_fds closes, and closed once handed over. */
		int mnt = fdpass_open_mntns();
		g_mntns = mnt >= 0 ? fcntl(mnt, F_DUPFD_CLOEXEC, 100) : -1;
		if (mnt >= 0)
			close(mnt);
	}
	long pg = sysconf(_SC_PAGESIZE);
	if (g_nhot && pg > 0)
		(void)warm_hot_populate(g_hot, g_nhot, HOT_CHUNK_PAGES * (size_t)pg,
					warmfork_waiting);
}

/* In the job, forked ahead: the layers that need nothing of the job's
 * (the bounding set limits only what an exec could gain; it keeps the
 * capabilities the mounts need), then its descriptors, from its pid 1 once
 * the job comes. Its pid 1 gone (the job was cancelled, or the server
 * stopped), it ends: it has run nothing of any job's, and its pid 1, which
 * can no longer hand it the job, fails (a_main). */
static void job_wait(void)
{
	/* The server's first job forked ahead reports the pages it wrote
	 * (its tree, its rehearsal: the server's code only, before any job
	 * exists), unless its job came already. */
	if (g_learn[1] >= 0) {
		if (!warmfork_waiting())
			(void)warmfork_learn(g_learn[1]);
		close(g_learn[1]);
		g_learn[1] = -1;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != 1)
		_exit(0);
	if (caps_drop_bounding() < 0) {
		g_early_errno = errno;
		g_early_step = "capability bounding set";
	}
	/* Ready: the daemon may now prefer this slot for a job (runq.h).
	 * Not said when the job came already; never blocks. */
	if (g_ahead >= 0 && !warmfork_waiting())
		(void)send(g_ahead, WARM_AHEAD, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(g_ahead);
	g_ahead = -1;
	g_nfds = warm_msg_recv(g_bc, WARM_JOB, g_fds, WJ_COUNT);
	/* Kept above the numbers place_fds clears until the layers are
	 * applied: then it tells the job that its pid 1 has exec'd the
	 * reaper (job_layers). */
	int hi = fcntl(g_bc, F_DUPFD_CLOEXEC, 100);
	close(g_bc);
	g_bc = hi;
	if (g_nfds != WJ_COUNT_PLAIN && g_nfds != WJ_COUNT)
		_exit(0);
}

/* CPython's own fork hooks (stable ABI), which os.fork calls around its
 * fork: the interpreter that loaded this library (with ctypes.PyDLL, so
 * the GIL is held here as in os.fork) exports them. Calling them here
 * rather than from Python spares the job two ctypes round trips, whose
 * objects it would first have to copy. */
void PyOS_BeforeFork(void);
void PyOS_AfterFork_Parent(void);
void PyOS_AfterFork_Child(void);

/* The next job, forked ahead of it: returns 1 in that job before its
 * descriptors came (the caller rehearses, then calls warmfork_job), and 0,
 * -1 or -2 in the server as spawn does. */
EXPORT int warmfork_spawn(void)
{
	PyOS_BeforeFork();
	int rc = spawn();
	if (rc == 1) {
		PyOS_AfterFork_Child();
		job_prepare();
		return 1;
	}
	PyOS_AfterFork_Parent();
	return rc;
}

/* In the job, before its descriptors came: 1 once they are there (it
 * stops rehearsing: a job that comes at once is not kept waiting). */
EXPORT int warmfork_waiting(void)
{
	struct pollfd p = {.fd = g_bc, .events = POLLIN};
	return poll(&p, 1, 0) != 0;
}

/* The pages this process wrote since its fork, on fd: in the server's
 * first job forked ahead before its job came (job_wait), and in its
 * calibration child at that child's end. Either ran the server's code
 * only. */
EXPORT int warmfork_learn(int fd)
{
	static struct hot_range r[WARM_HOT_MAX];
	int n = warm_hot_scan(r, WARM_HOT_MAX);
	return n > 0 ? warm_hot_send(fd, r, (size_t)n) : -1;
}

/* In the server, once the calibration child ended: its report from fd
 * (checked as the first job forked ahead's is); the number of ranges, or
 * -1 for none. */
EXPORT int warmfork_calibrated(int fd)
{
	int n = warm_hot_recv(fd, g_cal, WARM_HOT_MAX);
	g_ncal = n > 0 ? (size_t)n : 0;
	return n;
}

/* In the job: waits for its descriptors, then applies its layers; returns
 * 0 with them applied (a failed layer, or a job that never comes, ends it). */
EXPORT int warmfork_job(void)
{
	job_wait();
	job_layers();
	return 0;
}

#define STEP(call, name)                                                                           \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			jail_report_error(st, name);                                               \
			_exit(127);                                                                \
		}                                                                                  \
	} while (0)

static const struct jail_spec *load_spec(int st)
{
	const struct jail_spec *s = NULL;
	const char *why = warm_spec_job(g_fds[WJ_SPEC], &s);
	if (why)
		STEP(-1, why);
	return s;
}

/* The job's descriptors at the numbers a cold payload has them: 0-2, and 3
 * and 4 for the runner's channels; everything else the server held is
 * closed. The status and notify pipes stay (high) until the last layer. */
static void place_fds(bool runner, int *status, int *notify)
{
	int st = *status;
	int lift[WJ_COUNT] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
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

/* In the job (the server's child, pid 2 of its PID namespace): the layers
 * jail_child.c applies to a cold job, in its order. Returns into Python to
 * run the job; on any failure reports the step and exits. */
static void job_layers(void)
{
	int st = g_fds[WJ_STATUS];
	/* In its cgroup already: its parent, the reaper, was put there before
	 * it forked the job; and it dies with it (job_wait). */
	if (g_early_step) {
		errno = g_early_errno;
		STEP(-1, g_early_step);
	}
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_FORKED;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	m.ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	const struct jail_spec *s = load_spec(st);
	/* The tree built ahead is entered already: a job that asks for
	 * another (the daemon sends none such) ends here, before it says it
	 * was forked, having run nothing; the daemon then runs it cold and
	 * rebuilds this server (supervise.c, warm_failed). So does a test
	 * request when no tree was built ahead: its description names the
	 * runner without its bytes, which only the server's tree holds; and a
	 * job whose description carries them where one was, since the
	 * template's were not kept to compare them with (warm_spec_ahead). */
	if (g_prepared ? s->runner_src || !mounts_same_tree(warm_spec_template(), s)
		       : s->runner && !s->runner_src)
		_exit(0);
	(void)!write(st, &m, sizeof m);
	/* The server's pooled network namespace, when the daemon lent it (it
	 * is as new: warm_net.h); else one of its own, as a cold job has. */
	bool pooled = ioctl(g_fds[WJ_NET], NS_GET_NSTYPE) == CLONE_NEWNET;
	STEP(
	    unshare((g_prepared ? 0 : CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP) |
		    (pooled ? 0 : CLONE_NEWNET)),
	    "namespaces");
	if (pooled)
		STEP(setns(g_fds[WJ_NET], CLONE_NEWNET), "network namespace");
	/* The tree built and entered ahead (job_prepare), given the job's
	 * sizes and texts; without a template, the whole tree now. */
	if (g_prepared)
		STEP(mounts_finish(s, warm_spec_template()), "mounts");
	else
		STEP(mounts_apply(s), "mounts");
	if (!pooled)
		STEP(net_apply(), "network");
	if (!g_prepared)
		STEP(ns_apply_uts(), "uts namespace");
	int notify;
	place_fds(s->runner, &st, &notify);
	STEP(setsid(), "setsid");
	STEP(rlimits_apply(&s->rl), "rlimits");
	STEP(uid_apply(s->uid, s->gid), "uid/gid");
	STEP(caps_drop_all(), "capabilities");
	/* Changing ids made the process non-dumpable; a cold payload's execve
	 * makes it dumpable again, and so /proc/self is its own (environ, fd
	 * links, mem). Its memory holds nothing but the server's imports. */
	STEP(prctl(PR_SET_DUMPABLE, 1), "dumpable");
	STEP(mounts_write_files(s), "writing files");
	/* Handed over before the job's code runs (see jail_child.c). */
	if (s->keep_work)
		STEP(fdpass_send_dir(notify, "/work", FDPASS_WORK), "keeping /work");
	/* As jail_child.c's payload_finish, with the descriptor opened ahead
	 * where there is one. */
	if (g_mntns >= 0) {
		(void)fdpass_send(notify, g_mntns, FDPASS_MNTNS);
		close(g_mntns);
		g_mntns = -1;
	} else {
		(void)fdpass_send_mntns(notify);
	}
	int listener = -1;
	STEP(scmp_apply(s->job->seccomp, &listener), "seccomp");
	if (listener >= 0) {
		STEP(fdpass_send(notify, listener, FDPASS_LISTENER), "seccomp listener");
		close(listener);
	}
	close(notify);
	/* Neither description stays readable by the job's code: a cold
	 * job's is gone with its init's exec. The server's names the host's
	 * state directory (its root) and holds the runner's bytes; the job
	 * needs neither once its tree is finished. */
	warm_spec_drop();
	close(st);
	/* Its pid 1 (the reaper, exec'd before the job came) closes its end
	 * once it handed the descriptors on (or dies, which kills the job):
	 * no job code runs while it holds any but the status pipe. */
	char eof;
	while (recv(g_bc, &eof, 1, 0) < 0 && errno == EINTR)
		;
	close(g_bc);
}
