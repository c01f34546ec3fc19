/* External model commands: fork, exec through /bin/sh in a process group of
 * their own, feed stdin while reading stdout and stderr, time out or be
 * cancelled by killing the group. gen_extract.c finds the code in an answer. */
#include "client/eval/gen.h"
#include "common/errfmt.h"
#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IO_CHUNK ((size_t)64 << 10)
#define NFDS 8 /* pipes for stdin, stdout, stderr and exec errors */
/* How often a child that closed its stdout but still runs is polled for. */
#define REAP_POLL_MS 5

/* gen_cancel(): the flag for calls about to start (a lock-free atomic: set
 * in a signal handler, read by every thread), and a pipe whose read end
 * turns readable (never drained until a reset) to wake every poll at once. */
static atomic_int cancel_flag;
static int cancel_pipe[2] = {-1, -1};
static pthread_once_t cancel_once = PTHREAD_ONCE_INIT;

static void cancel_setup(void)
{
	if (pipe2(cancel_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		cancel_pipe[0] = cancel_pipe[1] = -1;
}

int gen_cancel_init(void)
{
	pthread_once(&cancel_once, cancel_setup);
	return cancel_pipe[0] >= 0 ? 0 : -1;
}

void gen_cancel(void)
{
	int e = errno; /* a signal handler must leave errno as it found it */
	atomic_store(&cancel_flag, 1);
	if (cancel_pipe[1] >= 0) {
		ssize_t w = write(cancel_pipe[1], "x", 1);
		(void)w; /* a full pipe is readable already */
	}
	errno = e;
}

bool gen_cancelled(void)
{
	return atomic_load(&cancel_flag) != 0;
}

void gen_cancel_reset(void)
{
	char buf[64];
	atomic_store(&cancel_flag, 0);
	while (cancel_pipe[0] >= 0 && read(cancel_pipe[0], buf, sizeof buf) > 0)
		;
}

static void set_error(struct gen_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the child ---- */

/* Between fork and exec only async-signal-safe calls: other threads may have
 * held malloc's or stdio's locks when we forked. */
_Noreturn static void child(const char *cmd, int in, int out, int err, int errpipe)
{
	char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	/* Lift the pipes above 2 first: if our caller had 0, 1 or 2 closed, a
	 * pipe end may sit there and a dup2 would clobber another. */
	int a = fcntl(in, F_DUPFD_CLOEXEC, 3), b = fcntl(out, F_DUPFD_CLOEXEC, 3),
	    c = fcntl(err, F_DUPFD_CLOEXEC, 3);
	/* The parent thread blocks SIGPIPE while writing, and masks and
	 * ignored signals survive exec: give the command the usual ones (a
	 * SIGINT handler of ours is reset by exec itself). */
	sigemptyset(&none);
	if (setpgid(0, 0) < 0 || a < 0 || b < 0 || c < 0 || dup2(a, 0) < 0 || dup2(b, 1) < 0 ||
	    dup2(c, 2) < 0 || sigaction(SIGPIPE, &dfl, NULL) < 0 ||
	    sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		goto fail;
	execve("/bin/sh", argv, environ);
fail:;
	int e = errno;
	ssize_t w = write(errpipe, &e, sizeof e);
	(void)w; /* nothing more a child about to exit can do */
	_exit(127);
}

/* 0 once exec succeeded, else -1 with errno from the child. */
static int exec_status(int errpipe)
{
	int e;
	ssize_t n;
	while ((n = read(errpipe, &e, sizeof e)) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* ---- the parent's I/O ---- */

struct io {
	int in, out, err; /* our ends: the child's stdin, stdout, stderr (-1 once closed) */
	const char *input;
	size_t input_len, input_off;
	char *buf;
	size_t len, cap, max_out;
	bool truncated, broke_pipe;
	char *tail; /* GEN_STDERR_TAIL + 1 bytes: the last of stderr */
	size_t tail_len;
	char scratch[4096]; /* where output past max_out goes */
};

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void feed(struct io *io)
{
	while (io->in >= 0) {
		size_t n = io->input_len - io->input_off;
		ssize_t w =
		    n ? write(io->in, io->input + io->input_off, n < IO_CHUNK ? n : IO_CHUNK) : 0;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w > 0) {
			io->input_off += (size_t)w;
			continue;
		}
		/* All written, or the command stopped reading (EPIPE): not
		 * reading its input is its own business. */
		io->broke_pipe |= w < 0 && errno == EPIPE;
		close_fd(&io->in);
	}
}

/* Reads what is there; bytes past max_out are read and dropped so the
 * command never blocks on a full pipe. -1 only when out of memory. */
static int drain(struct io *io)
{
	while (io->out >= 0) {
		size_t room = io->max_out - io->len;
		if (room && io->cap - io->len < 2) {
			size_t ncap = io->cap ? io->cap * 2 : IO_CHUNK;
			if (ncap - 1 > io->max_out) /* no overflow at SIZE_MAX */
				ncap = io->max_out + 1;
			char *nb = realloc(io->buf, ncap);
			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			io->buf = nb;
			io->cap = ncap;
		}
		char *dst = room ? io->buf + io->len : io->scratch;
		size_t want = room ? io->cap - 1 - io->len : sizeof io->scratch;
		ssize_t n = read(io->out, dst, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			close_fd(&io->out);
			return 0;
		}
		if (room)
			io->len += (size_t)n;
		else
			io->truncated = true;
	}
	return 0;
}

/* Passes what the command wrote to stderr on to ours and keeps its tail.
 * Reads what is there now; closes the pipe at its end. */
static void drain_err(struct io *io)
{
	char chunk[4096];
	while (io->err >= 0) {
		ssize_t n = read(io->err, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close_fd(&io->err);
			return;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(STDERR_FILENO, chunk + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break; /* our stderr is gone: the tail is still kept */
			off += w;
		}
		size_t k = (size_t)n, cap = GEN_STDERR_TAIL;
		const char *src = chunk;
		if (k >= cap) {
			src += k - cap;
			k = cap;
			io->tail_len = 0;
		} else if (io->tail_len + k > cap) {
			size_t drop = io->tail_len + k - cap;
			memmove(io->tail, io->tail + drop, io->tail_len - drop);
			io->tail_len -= drop;
		}
		memcpy(io->tail + io->tail_len, src, k);
		io->tail_len += k;
	}
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return fd >= 0 && poll(&p, 1, 0) > 0;
}

/* Reaps pid before the deadline (-1: none), still passing stderr on (a
 * full stderr pipe would stop the command): 1 reaped, 0 time is up, -2
 * cancelled. */
static int reap_by(struct io *io, pid_t pid, long long deadline, int *status)
{
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			drain_err(io); /* what is left; a grandchild may keep it open */
			return 1;      /* (or not ours to wait for: nothing to kill) */
		}
		long long left =
		    deadline < 0 ? REAP_POLL_MS : deadline - (long long)clock_mono_ms();
		if (left <= 0)
			return 0;
		if (readable(cancel_pipe[0]))
			return -2;
		struct pollfd p = {.fd = io->err, .events = POLLIN};
		if (poll(&p, 1, left < REAP_POLL_MS ? (int)left : REAP_POLL_MS) > 0)
			drain_err(io);
	}
}

/* The poll loop: input and output together so no side's full pipe can
 * block another. 1 finished, 0 deadline passed, -1 with errno, -2
 * cancelled. */
static int pump(struct io *io, pid_t pid, long long deadline, int *status)
{
	while (io->out >= 0) {
		/* stdout, stderr, gen_cancel's pipe, stdin (polled only while open) */
		struct pollfd p[4] = {{.fd = io->out, .events = POLLIN},
				      {.fd = io->err, .events = POLLIN},
				      {.fd = cancel_pipe[0], .events = POLLIN},
				      {.fd = io->in, .events = POLLOUT}};
		long long left = deadline < 0 ? -1 : deadline - (long long)clock_mono_ms();
		if (deadline >= 0 && left <= 0)
			return 0;
		int n = poll(p, io->in >= 0 ? 4 : 3, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			continue;
		if (p[2].revents)
			return -2;
		if (io->in >= 0 && p[3].revents)
			feed(io);
		if (p[1].revents)
			drain_err(io);
		if (p[0].revents && drain(io) < 0)
			return -1;
	}
	/* The command may close stdout and keep running. */
	close_fd(&io->in);
	return reap_by(io, pid, deadline, status);
}

/* Collects any SIGPIPE our writes raised, then restores the thread's mask:
 * the signal is per-thread here, so the rest of the process never sees it. */
static void unblock_sigpipe(const sigset_t *old, bool raised)
{
	sigset_t pipe_set;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (raised && !sigismember(old, SIGPIPE)) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (!strchr(" \t\r\n\f\v", *s))
			return false;
	return true;
}

static void describe(struct gen_result *r, int timeout_ms)
{
	if (r->interrupted)
		set_error(r, "interrupted");
	else if (r->timed_out)
		set_error(r, "timed out after %d ms", timeout_ms);
	else if (WIFSIGNALED(r->status))
		set_error(r, "killed by signal %d", WTERMSIG(r->status));
	else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0)
		set_error(r, "exited with status %d", WEXITSTATUS(r->status));
	else if (!r->truncated && blank(r->output))
		set_error(r, "printed nothing");
}

/* pipe2 with O_CLOEXEC: another thread's child must not inherit our ends,
 * or our EOF would wait for that child to exit. fds: stdin, stdout,
 * stderr, exec errors, a pair each. */
static int make_pipes(int fds[NFDS])
{
	for (int i = 0; i < NFDS; i += 2)
		if (pipe2(&fds[i], O_CLOEXEC) < 0)
			return -1;
	return 0;
}

static int cannot_start(struct gen_result *r, const char *what, int e, int fds[NFDS])
{
	for (int i = 0; i < NFDS; i++)
		close_fd(&fds[i]);
	set_error(r, "cannot start: %s: %s", what, errfmt_desc(e));
	return -1;
}

/* A call after gen_cancel(): the command is not started at all. */
static int interrupted_before(struct gen_result *r)
{
	r->interrupted = true;
	r->output = calloc(1, 1);
	describe(r, 0);
	return 0;
}

int gen_run(const char *cmd, const char *input, int timeout_ms, size_t max_out,
	    struct gen_result *r)
{
	int fds[NFDS] = {-1, -1, -1, -1, -1, -1, -1, -1};
	long long start = (long long)clock_mono_ms(),
		  deadline = timeout_ms > 0 ? start + timeout_ms : -1;
	memset(r, 0, sizeof *r);
	if (!cmd)
		return cannot_start(r, "command", EINVAL, fds);
	if (gen_cancelled())
		return interrupted_before(r);
	if (make_pipes(fds) < 0)
		return cannot_start(r, "pipe", errno, fds);
	pid_t pid = fork();
	if (pid < 0)
		return cannot_start(r, "fork", errno, fds);
	if (pid == 0)
		child(cmd, fds[0], fds[3], fds[5], fds[7]);
	/* Also here, so a kill(-pid) right after fork cannot miss the group;
	 * it fails harmlessly once the child has exec'd. */
	(void)setpgid(pid, pid);
	close_fd(&fds[0]);
	close_fd(&fds[3]);
	close_fd(&fds[5]);
	close_fd(&fds[7]);
	int rc = exec_status(fds[6]);
	close_fd(&fds[6]);
	if (rc < 0) {
		int e = errno;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return cannot_start(r, "/bin/sh", e, fds);
	}

	struct io io = {.in = fds[1],
			.out = fds[2],
			.err = fds[4],
			.input = input ? input : "",
			.input_len = input ? strlen(input) : 0,
			.max_out = max_out,
			.tail = r->stderr_tail};
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	if (set_nonblock(io.in) < 0 || set_nonblock(io.out) < 0 || set_nonblock(io.err) < 0)
		rc = -1;
	else
		rc = pump(&io, pid, deadline, &r->status);
	int io_errno = errno;
	unblock_sigpipe(&old, io.broke_pipe);
	close_fd(&io.in);
	close_fd(&io.out);
	if (rc <= 0) {
		/* Timed out, cancelled, or we cannot go on: the whole group goes
		 * (or the child alone if it never got a group of its own). */
		if (kill(-pid, SIGKILL) < 0)
			kill(pid, SIGKILL);
		while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
			;
		drain_err(&io); /* what it said before it went */
		r->timed_out = rc == 0;
		r->interrupted = rc == -2;
	}
	close_fd(&io.err);
	r->stderr_tail[io.tail_len] = '\0';
	r->ms = (long)((long long)clock_mono_ms() - start);
	r->truncated = io.truncated;
	r->output = io.buf ? io.buf : malloc(1);
	if (!r->output) {
		set_error(r, "out of memory");
		return 0;
	}
	r->output[io.len] = '\0';
	if (rc == -1)
		set_error(r, "cannot talk to the command: %s", errfmt_desc(io_errno));
	else
		describe(r, timeout_ms);
	return 0;
}

void gen_result_free(struct gen_result *r)
{
	if (!r)
		return;
	free(r->output);
	r->output = NULL;
}
