/* Fork servers from the daemon's side (warm.h). A server starts like a cold
 * job (the same clone child, sandboxd-init, the same mounts), then its init
 * moves into a user namespace whose maps only the daemon can write, and
 * starts the interpreter (zygote.c). Every message from it is checked: a
 * server that says anything unexpected, or is late, is stopped and rebuilt
 * by the caller. */
#include "sandboxd/jail/warm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/procfs.h"
#include "sandboxd/jail/warm_msg.h"

#define WARM_STACK (256 * 1024)
#define WARM_SETUP_MS 10000 /* the server's init building its tree */
/* The nice value of a job's pid 1 and of the job forked ahead until the job
 * comes: the next job is prepared while other slots' jobs run. */
#define WARM_AHEAD_NICE 19
/* How long a job waits for its job forked ahead to send its pidfd, which it
 * does right after its fork (a copy of the server's page tables). */
#define WARM_FORKED_MS 1000

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Waits until fd is readable, at most ms; the server's death ends it too. */
static int wait_readable(const struct warm_server *w, int fd, int ms)
{
	struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = w->zpidfd, .events = POLLIN}};
	uint64_t end = clock_mono_ns() + (uint64_t)ms * 1000000u;
	for (bool first = true;; first = false) {
		uint64_t now = clock_mono_ns();
		if (now >= end && !first) /* ms 0: one look */
			return -1;
		int left = now >= end ? 0 : (int)((end - now) / 1000000u) + 1;
		int rc = poll(p, w->zpidfd >= 0 ? 2 : 1, left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0 || (p[0].revents & (POLLERR | POLLNVAL)))
			return -1;
		if (p[0].revents & (POLLIN | POLLHUP))
			return 0;
		if (p[1].revents)
			return -1; /* gone */
	}
}

static int write_map(pid_t pid, const char *file, unsigned outside0, unsigned id)
{
	char path[64], map[96];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	int n = snprintf(map, sizeof map, "0 %u 1\n%u %u 1\n", outside0, id, id);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fdio_write_all(fd, map, (size_t)n);
	close(fd);
	return rc;
}

/* The init's report that its user namespace exists, then the maps. */
static int userns_handshake(struct warm_server *w, const struct jail_spec *s, int sync_w, char *err,
			    size_t errlen)
{
	struct jail_msg m;
	if (wait_readable(w, w->status_r, WARM_SETUP_MS) < 0 ||
	    read(w->status_r, &m, sizeof m) != (ssize_t)sizeof m)
		return errfmt(err, errlen, "fork server: its init did not report");
	m.text[sizeof m.text - 1] = '\0';
	if (m.kind == JAIL_MSG_ERROR)
		return errfmt(err, errlen, "fork server setup failed at %s: %s", m.text,
			      errfmt_desc(m.err));
	if (m.kind != JAIL_MSG_USERNS)
		return errfmt(err, errlen, "fork server: unexpected report %d", m.kind);
	if (write_map(w->zpid, "uid_map", s->server_uid, s->uid) < 0 ||
	    write_map(w->zpid, "gid_map", s->server_uid, s->gid) < 0)
		return errfmt(err, errlen, "fork server id maps: %s", errfmt_desc(errno));
	/* The server imports at the lowest priority, so jobs that run cold
	 * meanwhile are not slowed by it; warm_ready gives it back the normal
	 * one before the first job is forked from it (its jobs inherit it). */
	(void)setpriority(PRIO_PROCESS, (id_t)w->zpid, 19);
	if (write(sync_w, "m", 1) != 1)
		return errfmt(err, errlen, "fork server: %s", errfmt_desc(errno));
	return 0;
}

void warm_init(struct warm_server *w)
{
	memset(w, 0, sizeof *w);
	w->zpidfd = w->ctl = w->status_r = w->a_pidfd = w->a_ch = w->b_ch = w->b_pidfd = -1;
	warm_net_init(&w->net);
}

int warm_start(struct warm_server *w, const struct jail_spec *s, const struct jail_cgroup *cg,
	       int lib_fd, char *err, size_t errlen)
{
	int sync[2] = {-1, -1}, status[2] = {-1, -1}, ctl[2] = {-1, -1}, spec_fd = -1, rc = -1;
	warm_init(w);
	if (!s->zygote || s->server_uid == 0)
		return errfmt(err, errlen, "fork server: no server uid");
	char *stack = NULL;
	if (pipe2(sync, O_CLOEXEC) < 0 || pipe2(status, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0 ||
	    (spec_fd = jail_wire_memfd(s)) < 0 || !(stack = malloc(WARM_STACK))) {
		errfmt(err, errlen, "fork server: %s", errfmt_desc(errno));
		goto out;
	}
	struct jail_child c = {.spec = s,
			       .sync_rd = sync[0],
			       .status_wr = status[1],
			       .stdin_rd = -1,
			       .stdout_wr = -1,
			       .stderr_wr = STDERR_FILENO,
			       .notify_wr = ctl[1],
			       .result_wr = lib_fd,
			       .key_rd = jail_reaper_fd(),
			       .spec_fd = spec_fd,
			       .peer_sock = -1};
	pid_t pid = clone(jail_exec_init, stack + WARM_STACK, ns_clone_flags() | SIGCHLD, &c);
	if (pid < 0) {
		errfmt(err, errlen, "fork server clone: %s", errfmt_desc(errno));
		goto out;
	}
	w->zpid = pid;
	w->zpidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	w->status_r = status[0];
	w->ctl = ctl[0];
	status[0] = ctl[0] = -1;
	w->started_ns = clock_mono_ns();
	close_fd(&sync[0]);
	close_fd(&status[1]);
	close_fd(&ctl[1]);
	if (w->zpidfd < 0) {
		errfmt(err, errlen, "fork server: no pidfd: %s", errfmt_desc(errno));
		goto out;
	}
	if (cg && cg->attach(cg->ctx, pid) < 0) {
		errfmt(err, errlen, "fork server cgroup: %s", errfmt_desc(errno));
		goto out;
	}
	if (write(sync[1], "g", 1) != 1) {
		errfmt(err, errlen, "fork server: %s", errfmt_desc(errno));
		goto out;
	}
	rc = userns_handshake(w, s, sync[1], err, errlen);
out:
	free(stack);
	close_fd(&sync[0]);
	close_fd(&sync[1]);
	close_fd(&status[0]);
	close_fd(&status[1]);
	close_fd(&ctl[0]);
	close_fd(&ctl[1]);
	close_fd(&spec_fd);
	if (rc < 0 && w->zpid > 0)
		warm_stop(w);
	return rc;
}

bool warm_dead(const struct warm_server *w)
{
	return warm_ends_within(w, 0);
}

bool warm_ends_within(const struct warm_server *w, int ms)
{
	if (w->zpid <= 0)
		return true;
	struct pollfd p = {.fd = w->zpidfd, .events = POLLIN};
	int rc;
	while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return rc != 0;
}

/* The server: its init's only child (as the daemon sees it), or -1. */
static pid_t server_pid(const struct warm_server *w)
{
	return procfs_first_child(w->zpid);
}

bool warm_ready(struct warm_server *w)
{
	if (warm_dead(w))
		return false;
	if (w->ready)
		return true;
	struct pollfd p = {.fd = w->ctl, .events = POLLIN};
	if (poll(&p, 1, 0) <= 0)
		return false;
	int none;
	pid_t spid = server_pid(w);
	if (warm_msg_recv(w->ctl, WARM_READY, &none, 0) != 0 || spid <= 0 ||
	    setpriority(PRIO_PROCESS, (id_t)spid, 0) < 0) {
		warm_stop(w); /* anything else first is a broken server */
		return false;
	}
	w->ready = true;
	return true;
}

void warm_stop(struct warm_server *w)
{
	if (w->zpid > 0) {
		kill(w->zpid, SIGKILL);
		while (waitpid(w->zpid, NULL, __WALL) < 0 && errno == EINTR)
			;
	}
	w->zpid = 0;
	w->ready = false;
	w->a_pid = 0;
	w->a_placed = false;
	w->a_ahead = false;
	w->a_broken = false;
	close_fd(&w->b_pidfd);
	close_fd(&w->b_ch);
	w->b_pid = 0;
	close_fd(&w->a_pidfd);
	close_fd(&w->a_ch);
	close_fd(&w->zpidfd);
	close_fd(&w->ctl);
	close_fd(&w->status_r);
	warm_net_drop(&w->net);
}

/* A pidfd's pid as this process sees it (the "Pid:" line of its fdinfo). */
static pid_t pidfd_pid(int pidfd)
{
	long v = procfs_field(0, pidfd, "Pid:");
	return v > 0 ? (pid_t)v : -1;
}

int warm_prepare(struct warm_server *w, int ms)
{
	if (w->a_pid > 0)
		return 0;
	if (!w->ready || wait_readable(w, w->ctl, ms) < 0)
		return -1;
	int got[3] = {-1, -1, -1};
	pid_t pid = -1;
	/* The job it forks ahead inherits this: its tree and rehearsal give
	 * way to running jobs (a slot's next job is prepared while the other
	 * slots' jobs run). Both get the normal priority before the job
	 * comes (warm_spawn). */
	if (warm_msg_recv(w->ctl, WARM_SPAWNED, got, 3) != 3 || (pid = pidfd_pid(got[0])) <= 0 ||
	    setpriority(PRIO_PROCESS, (id_t)pid, WARM_AHEAD_NICE) < 0) {
		close_fd(&got[0]);
		close_fd(&got[1]);
		close_fd(&got[2]);
		warm_stop(w); /* anything else here is a broken server */
		return -1;
	}
	close_fd(&w->b_pidfd);
	close_fd(&w->b_ch);
	w->a_pidfd = got[0];
	w->a_ch = got[1];
	w->b_ch = got[2];
	w->a_pid = pid;
	w->a_placed = false;
	w->a_ahead = false;
	w->a_broken = false;
	w->b_pid = 0;
	return 0;
}

/* The job forked ahead's pidfd, which it sends right after its fork,
 * waiting at most ms: 0, or -1 (not yet, or gone, or anything else sent:
 * then no job goes there). */
static int take_forked(struct warm_server *w, int ms)
{
	if (w->b_pidfd >= 0)
		return 0;
	if (wait_readable(w, w->b_ch, ms) < 0)
		return -1;
	int fd = -1;
	pid_t pid = -1;
	if (warm_msg_recv(w->b_ch, WARM_FORKED_AHEAD, &fd, 1) != 1 || (pid = pidfd_pid(fd)) <= 0) {
		if (fd >= 0)
			close(fd);
		w->a_broken = true;
		return -1;
	}
	w->b_pidfd = fd;
	w->b_pid = pid;
	return 0;
}

bool warm_ahead(struct warm_server *w)
{
	if (w->a_pid <= 0 || !w->a_placed || w->a_broken)
		return false;
	if (w->a_ahead)
		return true;
	/* Messages from the server's code in the job forked ahead (no job's
	 * code has run there); anything but "ready" is only not ready. */
	char b;
	if (take_forked(w, 0) == 0 && recv(w->b_ch, &b, 1, MSG_DONTWAIT) == 1 && b == WARM_AHEAD[0])
		w->a_ahead = true;
	return w->a_ahead;
}

int warm_place(struct warm_server *w)
{
	if (w->a_pid <= 0)
		return -1;
	if (!w->a_placed && warm_msg_send(w->a_ch, WARM_PLACED, NULL, 0) < 0)
		return -1;
	w->a_placed = true;
	return 0;
}

int warm_spawn(struct warm_server *w, const int *fds, int n, int *pidfd, pid_t *pid)
{
	*pidfd = -1;
	int v[WJ_COUNT];
	if (n < WJ_COUNT_PLAIN || n > WJ_COUNT)
		return -1;
	memcpy(v, fds, (size_t)n * sizeof *v);
	/* The pooled namespace in place of the pipe that says "none". */
	if (w->net.ns >= 0 && !w->net.lent)
		v[WJ_NET] = w->net.ns;
	struct pollfd dead = {.fd = w->a_pidfd, .events = POLLIN};
	if (w->a_pid <= 0 || w->a_broken || poll(&dead, 1, 0) != 0 || warm_place(w) < 0)
		return -1;
	/* The normal priority for both before the job (they prepared at
	 * WARM_AHEAD_NICE): a cold job's init and payload have it too. Its
	 * pid is its own while it lives (its pid 1, alive, reaps it only
	 * once it is the reaper). */
	if (take_forked(w, WARM_FORKED_MS) < 0)
		return -1;
	struct pollfd b_dead = {.fd = w->b_pidfd, .events = POLLIN};
	if (poll(&b_dead, 1, 0) != 0 || setpriority(PRIO_PROCESS, (id_t)w->b_pid, 0) < 0 ||
	    setpriority(PRIO_PROCESS, (id_t)w->a_pid, 0) < 0 ||
	    warm_msg_send(w->a_ch, WARM_JOB, v, n) < 0)
		return -1;
	/* The message stays queued for that pid 1 alone. */
	close_fd(&w->a_ch);
	w->net.lent |= v[WJ_NET] == w->net.ns;
	*pidfd = w->a_pidfd;
	*pid = w->a_pid;
	w->a_pidfd = -1;
	w->a_pid = 0;
	w->a_placed = false;
	w->a_ahead = false;
	close_fd(&w->b_pidfd);
	close_fd(&w->b_ch);
	w->b_pid = 0;
	w->jobs++;
	return 0;
}

long warm_rss_kb(const struct warm_server *w)
{
	pid_t spid = w->zpid > 0 ? server_pid(w) : -1;
	return spid > 0 ? procfs_field(spid, -1, "VmRSS:") : -1;
}
