/* The jail, as the ordered list of its layers, run by the job's init
 * (sandboxd-init, a separate static program: sandboxd/init/main.c) as pid 1
 * of fresh PID, mount, network, IPC and UTS namespaces, still root. It holds
 * only this job's description (jail_wire.c), so nothing here can leak
 * another job's data; the payload it forks becomes the candidate's Python. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
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

#define STEP(fd, call, name)                                                                       \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			jail_report_error(fd, name);                                               \
			_exit(127);                                                                \
		}                                                                                  \
	} while (0)

/* Moves a descriptor above the numbers the payload's stdio and channels
 * take, so placing one never clobbers another. */
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

/* Lifts every descriptor a payload keeps, or ends it with the report. */
static void lift_all(int *const *fds, size_t n, int status_wr)
{
	for (size_t i = 0; i < n; i++)
		if (lift(fds[i]) < 0) {
			jail_report_error(status_wr, "moving descriptors");
			_exit(127);
		}
}

/* What both payloads (and a fork server) do first: their own session, a
 * clean signal state. */
void jail_payload_start(int st)
{
	STEP(st, setsid(), "setsid");
	sigset_t none;
	sigemptyset(&none);
	STEP(st, sigprocmask(SIG_SETMASK, &none, NULL), "signal mask");
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
}

/* Layers from here on only take privileges away; seccomp is last because
 * the steps before it need syscalls the profile forbids. With write_files
 * the payload writes the request's files (and main.py) into /work as its
 * own uid. */
static _Noreturn void payload_finish(const struct jail_spec *s, int st, int notify, uid_t uid,
				     gid_t gid, bool write_files, const char *const *argv)
{
	STEP(st, rlimits_apply(&s->rl), "rlimits");
	STEP(st, caps_drop_bounding(), "capability bounding set");
	STEP(st, uid_apply(uid, gid), "uid/gid");
	STEP(st, caps_drop_all(), "capabilities");
	if (write_files)
		STEP(st, mounts_write_files(s), "writing files");
	/* The process that writes /work hands it over before any of the job's
	 * code runs: the supervisor then holds it however soon the job ends. */
	if (write_files && s->keep_work)
		STEP(st, fdpass_send_dir(notify, "/work", FDPASS_WORK), "keeping /work");
	/* One process per job hands the supervisor the job's mount namespace,
	 * which it lets go after the answer (reclaim.h). Without it (no /proc
	 * here) the job's last process frees the tree, as it would anyway. */
	if (write_files)
		(void)fdpass_send_mntns(notify);
	int listener = -1;
	STEP(st, scmp_apply(s->job->seccomp, &listener), "seccomp");
	if (listener >= 0) {
		STEP(st, fdpass_send(notify, listener, FDPASS_LISTENER), "seccomp listener");
		close(listener);
	}
	close(notify);
	execve(argv[0], (char *const *)argv, (char *const *)s->envp);
	jail_report_error(st, "execve");
	_exit(127);
}

/* The main payload (the grader in peer mode): fd 0-2 the job's pipes, 3 and
 * 4 the runner's channels, 5 its end of the peer socket. */
static _Noreturn void payload_main(const struct jail_child *orig)
{
	struct jail_child cc = *orig, *c = &cc;
	const struct jail_spec *s = c->spec;
	int *const all[] = {&c->status_wr, &c->stdin_rd,  &c->stdout_wr, &c->stderr_wr,
			    &c->notify_wr, &c->result_wr, &c->key_rd,	 &c->peer_sock};
	lift_all(all, sizeof all / sizeof all[0], orig->status_wr);
	int st = c->status_wr;
	jail_payload_start(st);
	STEP(st, dup2(c->stdin_rd, 0), "stdin");
	STEP(st, dup2(c->stdout_wr, 1), "stdout");
	STEP(st, dup2(c->stderr_wr, 2), "stderr");
	if (c->result_wr >= 0) {
		STEP(st, dup2(c->result_wr, 3), "result channel");
		STEP(st, dup2(c->key_rd, 4), "key channel");
	}
	if (c->peer_sock >= 0)
		STEP(st, dup2(c->peer_sock, 5), "peer socket");
	/* The lifted copies are close-on-exec: nothing else reaches the exec. */
	payload_finish(s, st, c->notify_wr, s->uid, s->gid, !s->peer, s->argv);
}

/* The candidate of peer mode: its own uid, stdin /dev/null, the job's
 * output pipes, its end of the peer socket as fd 3, no result or key
 * channel; it writes /work (which it owns). */
static _Noreturn void peer_main(const struct jail_child *orig, int sock)
{
	struct jail_child cc = *orig, *c = &cc;
	const struct jail_spec *s = c->spec;
	int *const all[] = {&c->status_wr, &c->stdout_wr, &c->stderr_wr, &c->notify_wr, &sock};
	lift_all(all, sizeof all / sizeof all[0], orig->status_wr);
	int st = c->status_wr;
	jail_payload_start(st);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	STEP(st, null, "peer stdin");
	STEP(st, dup2(null, 0), "peer stdin");
	STEP(st, dup2(c->stdout_wr, 1), "peer stdout");
	STEP(st, dup2(c->stderr_wr, 2), "peer stderr");
	STEP(st, dup2(sock, 3), "peer socket");
	payload_finish(s, st, c->notify_wr, s->job->peer_uid, s->job->peer_gid, true, s->peer_argv);
}

/* The job's init: reaps everything, and when the main payload ends hands
 * its wait status to the daemon and exits, which makes the kernel kill
 * whatever is left (the peer, the payload's children). */
static _Noreturn void init_loop(const struct jail_child *c, pid_t payload)
{
	jail_msg_reap(c->status_wr, payload, "init lost the payload");
}

_Noreturn void jail_child_main(const struct jail_child *orig)
{
	struct jail_child cc = *orig, *c = &cc;
	const struct jail_spec *s = c->spec;
	int st = c->status_wr;
	/* The layers, in order. */
	STEP(st, ns_apply_cgroup(), "cgroup namespace");
	STEP(st, mounts_apply(s), "mounts");
	STEP(st, net_apply(), "network");
	STEP(st, ns_apply_uts(), "uts namespace");
	int sv[2] = {-1, -1};
	if (s->peer)
		STEP(st, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), "peer socket");
	c->peer_sock = sv[0];
	pid_t pid = fork();
	STEP(st, pid, "fork payload");
	if (pid == 0)
		payload_main(c);
	if (s->peer) {
		pid_t peer = fork();
		STEP(st, peer, "fork peer");
		if (peer == 0)
			peer_main(c, sv[1]);
		close(sv[0]);
		close(sv[1]);
	}
	close(c->stdin_rd);
	close(c->stdout_wr);
	close(c->stderr_wr);
	close(c->notify_wr);
	if (c->result_wr >= 0) {
		close(c->result_wr);
		close(c->key_rd);
	}
	/* The spec is not read again here: with the last mapping gone (the
	 * payloads' go at their exec) the memfd's pages are freed. */
	if (c->blob)
		STEP(st, munmap(c->blob, c->blob_len), "unmapping the job description");
	/* init stays uid 0 (so the payload's uid cannot signal or ptrace it) but
	 * keeps no capability. */
	STEP(st, caps_drop_bounding(), "init capability bounding set");
	STEP(st, caps_drop_all(), "init capabilities");
	init_loop(c, pid);
}
