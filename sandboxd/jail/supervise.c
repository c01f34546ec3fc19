/* The daemon's side of one job: start it, feed it, watch it from outside
 * (wall clock, CPU from the cgroup, output size, seccomp notifications), and
 * make sure that when this returns nothing of the job is alive. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"

#include "sandboxd/jail/capture.h"
#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/handover.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/ns.h"
#include "sandboxd/jail/warm.h"
#include "sandboxd/jail/warm_msg.h"
#include "common/errfmt.h"
#include "common/clock.h"
#include "common/records.h"
#include "common/text.h"

#define CHILD_STACK (256 * 1024)
#define IDLE_POLL_NS 10000000u /* 10 ms: after the kill, or without a pidfd */

/* The job's pipes, by what they carry; [0] is the read end, [1] the write
 * end. The runner's two (results and key) exist only for test requests. */
enum {
	PIPE_SYNC,   /* daemon -> init: "go", once the job is in its cgroup */
	PIPE_STATUS, /* init -> daemon: the payload's wait status or a setup error */
	PIPE_STDIN,
	PIPE_STDOUT,
	PIPE_STDERR,
	PIPE_RESULT, /* runner -> daemon: result records */
	PIPE_KEY,    /* daemon -> runner: the record key */
	PIPE_COUNT
};
#define DRAIN_MS 500 /* after the job's init died, how long pipes may stay open */
#define REAP_MS 5000 /* after SIGKILL, how long the init may take to die */
/* A warm job's pid 1 ended unreported: how long its server may take to show
 * it ended too (it kills that pid 1 on its way out, so it ends just after). */
#define SERVER_END_MS 100
/* How often over_memory is asked, and how often once the job is close to its
 * limit: a job fills socket buffers at memory speed, so the overshoot stays
 * what it can queue in the shorter interval. */
#define MEM_POLL_NS 10000000u
#define MEM_POLL_NEAR_NS 1000000u

static void set_error(struct jail_result *r, const char *what, int err)
{
	if (!r->error[0])
		snprintf(r->error, sizeof r->error, "%s: %s", what, errfmt_desc(err));
}

/* The job's files: pipes and the cancel/notify channels. */
#define MAX_LISTENERS 2 /* the payload's, and the peer's in peer mode */
struct job_fds {
	int sync_w, status_r, stdin_w, notify_r, pidfd, key_w;
	/* Forked from a fork server: pidfd is the job's reaper's (pid 1 of its
	 * PID namespace), which is not the daemon's child; it is killed through
	 * the pidfd, and its exit (not a reap) ends the job. */
	bool warm;
	/* Killed along with the init (its kill hook), or NULL. */
	const struct jail_cgroup *cg;
	int listener[MAX_LISTENERS];
	int nlisteners, want_listeners;
	struct capture_stream out, err;
	struct capture_results res;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int make_pipes(int p[][2], int n)
{
	for (int i = 0; i < n; i++)
		if (pipe2(p[i], O_CLOEXEC) < 0)
			return -1;
	return 0;
}

/* Kills the job's init; the kernel then kills every process of its PID
 * namespace, which is how nothing can outlive a job. The kernel does that
 * only once the init runs its exit, which in a CPU-throttled cgroup full of
 * the job's processes can wait a scheduling period or more, while the rest
 * of the job runs on (and, say, queues socket buffers past its memory
 * limit): so every process in the job's cgroup is killed at once too. */
static void kill_job(struct job_fds *f, pid_t pid, bool *killed)
{
	if (*killed)
		return;
	if (f->warm)
		syscall(SYS_pidfd_send_signal, f->pidfd, SIGKILL, NULL, 0);
	else
		kill(pid, SIGKILL);
	if (f->cg && f->cg->kill)
		f->cg->kill(f->cg->ctx);
	*killed = true;
}

static void feed_stdin(struct job_fds *f, const struct jail_spec *s, size_t *off)
{
	while (*off < s->stdin_len) {
		ssize_t w = write(f->stdin_w, s->stdin_data + *off, s->stdin_len - *off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0)
			break; /* EPIPE: the job stopped reading; that is its business */
		*off += (size_t)w;
	}
	close_fd(&f->stdin_w);
}

static void read_status(struct job_fds *f, struct jail_result *r)
{
	struct jail_msg m;
	ssize_t n = read(f->status_r, &m, sizeof m);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != (ssize_t)sizeof m) {
		close_fd(&f->status_r);
		return;
	}
	m.text[sizeof m.text - 1] = '\0';
	/* A failed setup step is reported before the payload exits (status
	 * 127), and once the jail failed the job never ran: that exit status
	 * must not become a verdict of the job's own (runtime_error). */
	if (m.kind == JAIL_MSG_STATUS && !r->have_status && !r->error[0]) {
		r->times.exit_ns = clock_mono_ns();
		r->have_status = true;
		r->status = m.status;
		jail_msg_usage(&m, &r->ru);
	} else if (m.kind == JAIL_MSG_FORKED && f->warm && !r->times.forked_ns &&
		   m.ns >= r->times.go_ns && m.ns <= clock_mono_ns()) {
		r->times.forked_ns = m.ns; /* a time, only ever shown as one */
	} else if (m.kind == JAIL_MSG_ERROR) {
		char what[96];
		snprintf(what, sizeof what, "jail setup failed at %s", m.text);
		set_error(r, what, m.err);
	}
}

/* After the init was reaped: take what it wrote, without waiting for a
 * writer that may still hold the pipe (a dying process of the job). */
static void drain_status(struct job_fds *f, struct jail_result *r)
{
	for (int i = 0; i < 8 && f->status_r >= 0; i++) {
		struct pollfd p = {.fd = f->status_r, .events = POLLIN};
		if (poll(&p, 1, 0) <= 0)
			return;
		read_status(f, r);
	}
}

static void on_notify(struct job_fds *f, int li, struct jail_result *r, pid_t pid, bool *killed)
{
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (seccomp_notify_alloc(&req, &resp) < 0) {
		kill_job(f, pid, killed);
		return;
	}
	int rc = seccomp_notify_receive(f->listener[li], req);
	if (rc == 0) {
		if (r->violation_nr < 0 && r->hit == JAIL_HIT_NONE) {
			r->violation_nr = req->data.nr;
			r->violation_arch = req->data.arch;
		}
		/* The syscall stays blocked until the process dies: it never runs. */
		kill_job(f, pid, killed);
	} else if (rc != -EINTR && rc != -ENOENT) {
		close_fd(&f->listener[li]);
	}
	seccomp_notify_free(req, resp);
}

static int ncpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

/* Waits for a killed init at most ms; a process stuck in the kernel must not
 * hold the worker (and with it the daemon's shutdown) forever. */
static bool reap_bounded(pid_t pid, int ms)
{
	for (int waited = 0;; waited++) {
		pid_t w = waitpid(pid, NULL, WNOHANG | __WALL);
		if (w == pid || (w < 0 && errno == ECHILD))
			return true;
		if (waited >= ms)
			return false;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

/* The supervision loop: returns when the job's init has been reaped and its
 * output streams are closed (or DRAIN_MS after init died). */
static void supervise(const struct jail_spec *s, const struct jail_cgroup *cg, int cancel_fd,
		      const struct jail_hooks *hooks, pid_t pid, struct job_fds *f,
		      struct jail_result *r, uint64_t t0)
{
	uint64_t wall_deadline = t0 + (uint64_t)s->lim.wall_ms * 1000000u;
	uint64_t cpu_limit = (uint64_t)s->lim.cpu_ms * 1000000u, next_cpu_check = t0;
	uint64_t next_mem_check = cg && cg->over_memory ? t0 : UINT64_MAX;
	uint64_t reaped_at = 0;
	size_t stdin_off = 0;
	bool killed = false, reaped = false;
	int cores = ncpus();
	feed_stdin(f, s, &stdin_off);
	while (!(reaped && f->out.fd < 0 && f->err.fd < 0 && f->res.fd < 0)) {
		uint64_t now = clock_mono_ns();
		if (reaped && now - reaped_at > (uint64_t)DRAIN_MS * 1000000u)
			break;
		uint64_t test_deadline = hooks && hooks->deadline ? hooks->deadline(hooks->ctx) : 0;
		if (!killed && test_deadline && now >= test_deadline) {
			r->watchdog = true;
			kill_job(f, pid, &killed);
		}
		if (!killed && now >= wall_deadline) {
			r->hit = JAIL_HIT_WALL;
			kill_job(f, pid, &killed);
		}
		if (!killed && cg && now >= next_cpu_check) {
			uint64_t used;
			if (cg->cpu_ns(cg->ctx, &used) == 0) {
				if (used >= cpu_limit) {
					r->hit = JAIL_HIT_CPU;
					kill_job(f, pid, &killed);
				}
				/* The job cannot burn CPU faster than `cores` per second of
				 * wall time, so no earlier look is needed. */
				uint64_t gap = used < cpu_limit ? (cpu_limit - used) / cores : 0;
				next_cpu_check = now + (gap < 2000000u ? 2000000u : gap);
			} else {
				next_cpu_check = UINT64_MAX;
			}
		}
		if (!killed && now >= next_mem_check) {
			int over = cg->over_memory(cg->ctx);
			if (over >= 2) {
				r->hit = JAIL_HIT_MEMORY;
				kill_job(f, pid, &killed);
			}
			next_mem_check = over < 0    ? UINT64_MAX
					 : over == 1 ? now + MEM_POLL_NEAR_NS
						     : now + MEM_POLL_NS;
		}
		struct pollfd p[8 + MAX_LISTENERS];
		int n = 0, ip_out = -1, ip_err = -1, ip_in = -1, ip_st = -1, ip_nt = -1,
		    ip_ls[MAX_LISTENERS] = {-1, -1}, ip_pid = -1, ip_cancel = -1, ip_res = -1;
#define ADD(fd_, ev, idx)                                                                          \
	if ((fd_) >= 0) {                                                                          \
		p[n].fd = (fd_);                                                                   \
		p[n].events = (ev);                                                                \
		p[n].revents = 0;                                                                  \
		idx = n++;                                                                         \
	}
		ADD(f->out.fd, POLLIN, ip_out);
		ADD(f->err.fd, POLLIN, ip_err);
		ADD(f->stdin_w, POLLOUT, ip_in);
		ADD(f->status_r, POLLIN, ip_st);
		ADD(f->notify_r, POLLIN, ip_nt);
		for (int li = 0; li < MAX_LISTENERS; li++)
			ADD(f->listener[li], POLLIN, ip_ls[li]);
		ADD(reaped ? -1 : f->pidfd, POLLIN, ip_pid);
		/* An eventfd stays readable: once seen, stop watching it. */
		ADD(r->cancelled ? -1 : cancel_fd, POLLIN, ip_cancel);
		ADD(f->res.fd, POLLIN, ip_res);
#undef ADD
		uint64_t until = killed ? now + IDLE_POLL_NS : wall_deadline;
		if (cg && !killed && next_cpu_check < until)
			until = next_cpu_check;
		if (!killed && next_mem_check < until)
			until = next_mem_check;
		if (!killed && test_deadline && test_deadline < until)
			until = test_deadline;
		if (f->pidfd < 0 && !reaped && until > now + IDLE_POLL_NS)
			until = now + IDLE_POLL_NS; /* no pidfd: poll waitpid */
		if (reaped)
			until = reaped_at + (uint64_t)DRAIN_MS * 1000000u;
		int timeout = until > now ? (int)((until - now + 999999) / 1000000) : 0;
		if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			set_error(r, "poll", errno);
			kill_job(f, pid, &killed);
		}
		if (ip_out >= 0 && p[ip_out].revents && capture_read_stream(&f->out)) {
			r->hit = r->hit ? r->hit : JAIL_HIT_OUTPUT;
			kill_job(f, pid, &killed);
		}
		if (ip_err >= 0 && p[ip_err].revents && capture_read_stream(&f->err)) {
			r->hit = r->hit ? r->hit : JAIL_HIT_OUTPUT;
			kill_job(f, pid, &killed);
		}
		if (ip_in >= 0 && p[ip_in].revents)
			feed_stdin(f, s, &stdin_off);
		if (ip_res >= 0 && p[ip_res].revents)
			capture_read_results(&f->res, hooks);
		if (ip_st >= 0 && p[ip_st].revents)
			read_status(f, r);
		char tag = 0;
		int l = ip_nt >= 0 && p[ip_nt].revents
			    ? fdpass_recv(f->notify_r, MSG_DONTWAIT, &tag)
			    : -2; /* nothing to read */
		if (l >= 0 && handover_take(s, r, l, tag)) {
			/* kept, or closed */
		} else if (l != -2) {
			if (l >= 0 && tag != FDPASS_LISTENER) {
				close(l);
				l = -1;
			}
			if (l >= 0)
				f->listener[f->nlisteners] = l;
			if (l >= 0 && f->nlisteners + 1 == f->want_listeners)
				r->times.exec_ns = clock_mono_ns();
			if (l < 0 || ++f->nlisteners == f->want_listeners)
				close_fd(&f->notify_r);
			/* Without its listener a kill-listed syscall would get ENOSYS
			 * instead of stopping the job: never run a job that way. */
			if (l < 0 && s->job->seccomp->notify && !r->have_status) {
				/* A payload whose setup step failed exits before sending
				 * its listener, after reporting the step on the status
				 * pipe: that report names the real cause. */
				drain_status(f, r);
				set_error(r, "seccomp listener not received", EPROTO);
				kill_job(f, pid, &killed);
			}
		}
		/* The notify receive ignores O_NONBLOCK: only POLLIN proves a
		 * notification is pending (a receive that loses a race with the
		 * task's death then fails with ENOENT instead of waiting). A
		 * hang-up means no process uses the filter any more; before Linux
		 * 6.6 a receive then blocks forever, so the listener is closed. */
		for (int li = 0; li < MAX_LISTENERS; li++) {
			if (ip_ls[li] >= 0 && (p[ip_ls[li]].revents & POLLIN))
				on_notify(f, li, r, pid, &killed);
			else if (ip_ls[li] >= 0 &&
				 (p[ip_ls[li]].revents & (POLLHUP | POLLERR | POLLNVAL)))
				close_fd(&f->listener[li]);
		}
		if (ip_cancel >= 0 && p[ip_cancel].revents) {
			r->cancelled = true;
			kill_job(f, pid, &killed);
		}
		if (!reaped && (f->pidfd < 0 || (ip_pid >= 0 && p[ip_pid].revents))) {
			int status;
			pid_t w = f->warm ? pid : waitpid(pid, &status, WNOHANG | __WALL);
			if (w == pid) {
				reaped = true;
				reaped_at = clock_mono_ns();
				r->wall_ns = reaped_at - t0;
				r->times.reaped_ns = reaped_at;
				drain_status(f, r);
			}
		}
	}
	if (!reaped) {
		kill_job(f, pid, &killed);
		struct pollfd pf = {.fd = f->pidfd, .events = POLLIN};
		if (f->warm ? poll(&pf, 1, REAP_MS) <= 0 : !reap_bounded(pid, REAP_MS))
			set_error(r, "the job's init did not die after SIGKILL", ETIMEDOUT);
		r->wall_ns = clock_mono_ns() - t0;
		r->times.reaped_ns = t0 + r->wall_ns;
	}
}

/* Hands the job's descriptors to a fork server, which forks it (warm.h);
 * its reaper (pid 1 of the job's PID namespace) stands for a cold job's
 * init from here on. */
static pid_t start_warm(struct warm_server *w, const struct jail_child *c, struct job_fds *f,
			int *pidfd, struct jail_result *r)
{
	/* WJ_NET: the sync pipe (unused by a warm job) stands for "no pooled
	 * network namespace"; warm_spawn puts the server's there if it has one. */
	int fds[WJ_COUNT] = {c->spec_fd,   c->status_wr, c->sync_rd,   c->stdin_rd, c->stdout_wr,
			     c->stderr_wr, c->notify_wr, c->result_wr, c->key_rd};
	pid_t pid;
	/* "go" before the send: the job may report itself forked before the
	 * send returns here (timing's phases must not run backwards). */
	r->times.go_ns = clock_mono_ns();
	if (warm_spawn(w, fds, c->spec->runner ? WJ_COUNT : WJ_COUNT_PLAIN, pidfd, &pid) < 0) {
		r->warm_failed = true;
		set_error(r, "fork server", EPROTO);
		return -1;
	}
	f->warm = r->warm = true;
	f->pidfd = *pidfd;
	return pid;
}

static pid_t start_cold(const struct jail_child *c, struct jail_result *r)
{
	char *stack = malloc(CHILD_STACK);
	if (!stack) {
		set_error(r, "stack", ENOMEM);
		return -1;
	}
	pid_t pid =
	    clone(jail_exec_init, stack + CHILD_STACK, ns_clone_flags() | SIGCHLD, (void *)c);
	int clone_errno = errno;
	free(stack); /* the child has its own copy: no CLONE_VM */
	if (pid < 0)
		set_error(r, "clone", clone_errno);
	return pid;
}

void jail_run(const struct jail_spec *s, struct warm_server *w, const struct jail_cgroup *cg,
	      int cancel_fd, const struct jail_hooks *hooks, struct jail_result *r)
{
	int wpidfd = -1;
	int pp[PIPE_COUNT][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1},
				 {-1, -1}, {-1, -1}, {-1, -1}};
	int sv[2] = {-1, -1}, npipes = s->runner ? PIPE_COUNT : PIPE_STDERR + 1;
	memset(r, 0, sizeof *r);
	r->violation_nr = -1;
	r->cpu_limit_ms = s->lim.cpu_ms;
	struct job_fds f = {.sync_w = -1,
			    .status_r = -1,
			    .stdin_w = -1,
			    .notify_r = -1,
			    .listener = {-1, -1},
			    .want_listeners = s->peer ? 2 : 1,
			    .pidfd = -1,
			    .key_w = -1,
			    .cg = cg};
	int spec_fd = -1;
	f.out.fd = f.err.fd = f.res.fd = -1;
	if (make_pipes(pp, npipes) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		set_error(r, "pipe", errno);
		goto out;
	}
	if ((spec_fd = jail_wire_memfd(s)) < 0) {
		set_error(r, "job description", errno);
		goto out;
	}
	struct jail_child c = {.spec = s,
			       .sync_rd = pp[PIPE_SYNC][0],
			       .status_wr = pp[PIPE_STATUS][1],
			       .stdin_rd = pp[PIPE_STDIN][0],
			       .stdout_wr = pp[PIPE_STDOUT][1],
			       .stderr_wr = pp[PIPE_STDERR][1],
			       .notify_wr = sv[1],
			       .result_wr = pp[PIPE_RESULT][1],
			       .key_rd = pp[PIPE_KEY][0],
			       .spec_fd = spec_fd,
			       .peer_sock = -1};
	uint64_t t0 = clock_mono_ns();
	r->times.clone_ns = t0;
	pid_t pid = w ? start_warm(w, &c, &f, &wpidfd, r) : start_cold(&c, r);
	if (pid < 0)
		goto out;
	r->started = true;
	f.sync_w = pp[PIPE_SYNC][1];
	f.status_r = pp[PIPE_STATUS][0];
	f.stdin_w = pp[PIPE_STDIN][1];
	f.notify_r = sv[0];
	pp[PIPE_SYNC][1] = pp[PIPE_STATUS][0] = pp[PIPE_STDIN][1] = sv[0] = -1;
	size_t cap = (size_t)s->lim.output_kb * 1024, total = 0;
	size_t total_cap = s->output_total ? s->output_total : 2 * cap;
	cap = cap < total_cap ? cap : total_cap;
	f.out = (struct capture_stream){
	    pp[PIPE_STDOUT][0], &r->out, &r->out_len, &r->out_trunc, cap, {0, 0}, &total,
	    total_cap};
	f.err = (struct capture_stream){
	    pp[PIPE_STDERR][0], &r->err, &r->err_len, &r->err_trunc, cap, {0, 0}, &total,
	    total_cap};
	pp[PIPE_STDOUT][0] = pp[PIPE_STDERR][0] = -1;
	f.res.fd = pp[PIPE_RESULT][0];
	f.key_w = pp[PIPE_KEY][1];
	pp[PIPE_RESULT][0] = pp[PIPE_KEY][1] = -1;
	for (int i = 0; i < PIPE_COUNT; i++)
		for (int j = 0; j < 2; j++)
			close_fd(&pp[i][j]);
	close_fd(&sv[1]);
	close_fd(&spec_fd);
	fcntl(f.stdin_w, F_SETFL, O_NONBLOCK);
	fcntl(f.status_r, F_SETFL, O_NONBLOCK);
	fcntl(f.out.fd, F_SETFL, O_NONBLOCK);
	fcntl(f.err.fd, F_SETFL, O_NONBLOCK);
	if (f.res.fd >= 0)
		fcntl(f.res.fd, F_SETFL, O_NONBLOCK);
	if (!f.warm)
		f.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* The job may only start once it is inside its cgroup, or its first
	 * allocations and forks would escape the limits. (A warm job's pid 1
	 * was put there before the job was handed to it: run_warm.c.) */
	bool dead = false;
	if (cg && !f.warm && cg->attach(cg->ctx, pid) < 0) {
		set_error(r, "cgroup attach", errno);
		kill_job(&f, pid, &dead);
	} else if (!f.warm) {
		/* "go" before the write that lets the init go on (a warm job's
		 * pid 1 forks the job as soon as it has it: start_warm). */
		r->times.go_ns = clock_mono_ns();
		if (write(f.sync_w, "g", 1) != 1) {
			set_error(r, "starting the job", errno);
			kill_job(&f, pid, &dead);
		}
	}
	close_fd(&f.sync_w);
	/* The key is 32 bytes, far below the pipe's capacity: this never blocks. */
	if (f.key_w >= 0 && write(f.key_w, s->key, strlen(s->key)) != (ssize_t)strlen(s->key))
		set_error(r, "key channel", errno);
	close_fd(&f.key_w);
	supervise(s, cg, cancel_fd, hooks, pid, &f, r, t0);
	/* The job's pid 1 died (its server killed from outside) before the job
	 * ran any code of its own: before it sent its seccomp listener, the
	 * last step before the job's code (or, with a filter that has none,
	 * before it said it was forked). It may run cold. */
	uint64_t began = s->job->seccomp->notify ? r->times.exec_ns : r->times.forked_ns;
	struct pollfd unread = {.fd = f.notify_r, .events = POLLIN};
	if (f.notify_r >= 0 && poll(&unread, 1, 0) > 0)
		began = 1; /* a listener the loop did not get to */
	if (f.warm && !began && !r->have_status && !r->cancelled && !r->hit && !r->out_len &&
	    !r->err_len)
		r->warm_failed = true;
	/* Or its server ended under it: the server's PID namespace went, and
	 * the job's pid 1 with it, unreported. A job cannot reach its server
	 * (another PID namespace, tests/hostile/warm_server_hunt.py), so that
	 * end came from outside (a kill, the host's OOM killer), and a job has
	 * no effect outside its jail: it runs again, cold, on a new server. */
	if (f.warm && w && !r->have_status && !r->cancelled && !r->hit &&
	    warm_ends_within(w, SERVER_END_MS))
		r->warm_failed = true;
	/* Streams still open after the drain: a cut sequence at their end is
	 * now final (invalid), and must fit too. */
	if (f.out.fd >= 0)
		capture_meter(&f.out, true);
	if (f.err.fd >= 0)
		capture_meter(&f.err, true);
out:
	for (int i = 0; i < PIPE_COUNT; i++)
		for (int j = 0; j < 2; j++)
			close_fd(&pp[i][j]);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	close_fd(&f.sync_w);
	close_fd(&f.status_r);
	close_fd(&f.stdin_w);
	close_fd(&f.notify_r);
	close_fd(&f.listener[0]);
	close_fd(&f.listener[1]);
	close_fd(&spec_fd);
	close_fd(&f.pidfd);
	if (r->warm_failed && w)
		warm_stop(w);
	close_fd(&f.out.fd);
	close_fd(&f.err.fd);
	close_fd(&f.res.fd);
	close_fd(&f.key_w);
	free(f.res.buf);
}

void jail_result_free(struct jail_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	handover_release(r);
}
