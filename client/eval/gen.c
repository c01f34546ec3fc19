#include "client/eval/gen.h"
#include "common/errfmt.h"
#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IO_CHUNK ((size_t)64 << 10)
/* How often a child that closed its stdout but still runs is polled for. */
#define REAP_POLL_MS 5

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
_Noreturn static void child(const char *cmd, int in, int out, int errpipe)
{
	char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	/* Lift the pipes above 2 first: if our caller had 0 or 1 closed, a
	 * pipe end may sit there and the first dup2 would clobber the other. */
	int a = fcntl(in, F_DUPFD_CLOEXEC, 3), b = fcntl(out, F_DUPFD_CLOEXEC, 3);
	/* The parent thread blocks SIGPIPE while writing, and masks and
	 * ignored signals survive exec: give the command the usual ones. */
	sigemptyset(&none);
	if (setpgid(0, 0) < 0 || a < 0 || b < 0 || dup2(a, 0) < 0 || dup2(b, 1) < 0 ||
	    sigaction(SIGPIPE, &dfl, NULL) < 0 || sigprocmask(SIG_SETMASK, &none, NULL) < 0)
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
	int in, out; /* our ends: the child's stdin, its stdout (-1 once closed) */
	const char *input;
	size_t input_len, input_off;
	char *buf;
	size_t len, cap, max_out;
	bool truncated, broke_pipe;
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

/* Reaps pid before the deadline (-1: none): 1 reaped, 0 time is up. */
static int reap_by(pid_t pid, long long deadline, int *status)
{
	for (;;) {
		pid_t w = waitpid(pid, status, deadline < 0 ? 0 : WNOHANG);
		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return 1; /* not ours to wait for any more: nothing to kill */
		if (w < 0)
			continue;
		long long left = deadline - (long long)clock_mono_ms();
		if (left <= 0)
			return 0;
		poll(NULL, 0, left < REAP_POLL_MS ? (int)left : REAP_POLL_MS);
	}
}

/* The poll loop: input and output together so neither side's full pipe
 * can block the other. 1 finished, 0 deadline passed, -1 with errno. */
static int pump(struct io *io, pid_t pid, long long deadline, int *status)
{
	while (io->out >= 0) {
		struct pollfd p[2] = {{.fd = io->out, .events = POLLIN},
				      {.fd = io->in, .events = POLLOUT}};
		long long left = deadline < 0 ? -1 : deadline - (long long)clock_mono_ms();
		if (deadline >= 0 && left <= 0)
			return 0;
		int n = poll(p, io->in >= 0 ? 2 : 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			continue;
		if (io->in >= 0 && p[1].revents)
			feed(io);
		if (p[0].revents && drain(io) < 0)
			return -1;
	}
	/* The command may close stdout and keep running. */
	close_fd(&io->in);
	return reap_by(pid, deadline, status);
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
	if (r->timed_out)
		set_error(r, "timed out after %d ms", timeout_ms);
	else if (WIFSIGNALED(r->status))
		set_error(r, "killed by signal %d", WTERMSIG(r->status));
	else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0)
		set_error(r, "exited with status %d", WEXITSTATUS(r->status));
	else if (!r->truncated && blank(r->output))
		set_error(r, "printed nothing");
}

/* pipe2 with O_CLOEXEC: another thread's child must not inherit our ends,
 * or our EOF would wait for that child to exit. */
static int make_pipes(int in[2], int out[2], int errp[2])
{
	return pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0
		   ? -1
		   : 0;
}

static int cannot_start(struct gen_result *r, const char *what, int e, int fds[6])
{
	for (int i = 0; i < 6; i++)
		close_fd(&fds[i]);
	set_error(r, "cannot start: %s: %s", what, errfmt_desc(e));
	return -1;
}

int gen_run(const char *cmd, const char *input, int timeout_ms, size_t max_out,
	    struct gen_result *r)
{
	int fds[6] = {-1, -1, -1, -1, -1, -1}; /* stdin pipe, stdout pipe, exec errors */
	long long start = (long long)clock_mono_ms(),
		  deadline = timeout_ms > 0 ? start + timeout_ms : -1;
	memset(r, 0, sizeof *r);
	if (!cmd)
		return cannot_start(r, "command", EINVAL, fds);
	if (make_pipes(&fds[0], &fds[2], &fds[4]) < 0)
		return cannot_start(r, "pipe", errno, fds);
	pid_t pid = fork();
	if (pid < 0)
		return cannot_start(r, "fork", errno, fds);
	if (pid == 0)
		child(cmd, fds[0], fds[3], fds[5]);
	/* Also here, so a kill(-pid) right after fork cannot miss the group;
	 * it fails harmlessly once the child has exec'd. */
	(void)setpgid(pid, pid);
	close_fd(&fds[0]);
	close_fd(&fds[3]);
	close_fd(&fds[5]);
	int rc = exec_status(fds[4]);
	close_fd(&fds[4]);
	if (rc < 0) {
		int e = errno;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return cannot_start(r, "/bin/sh", e, fds);
	}

	struct io io = {.in = fds[1],
			.out = fds[2],
			.input = input ? input : "",
			.input_len = input ? strlen(input) : 0,
			.max_out = max_out};
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	if (set_nonblock(io.in) < 0 || set_nonblock(io.out) < 0)
		rc = -1;
	else
		rc = pump(&io, pid, deadline, &r->status);
	int io_errno = errno;
	unblock_sigpipe(&old, io.broke_pipe);
	close_fd(&io.in);
	close_fd(&io.out);
	if (rc <= 0) {
		/* Timed out, or we cannot go on: the whole group goes (or
		 * the child alone if it never got a group of its own). */
		if (kill(-pid, SIGKILL) < 0)
			kill(pid, SIGKILL);
		while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
			;
		r->timed_out = rc == 0;
	}
	r->ms = (long)((long long)clock_mono_ms() - start);
	r->truncated = io.truncated;
	r->output = io.buf ? io.buf : malloc(1);
	if (!r->output) {
		set_error(r, "out of memory");
		return 0;
	}
	r->output[io.len] = '\0';
	if (rc < 0)
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

/* ---- code extraction ---- */

struct fence {
	size_t indent, ticks;
	const char *info; /* the info string's first word */
	size_t info_len;
};

/* A fence line: up to 3 spaces, then 3 or more backticks. */
static bool open_fence(const char *line, size_t len, struct fence *f)
{
	size_t i = 0;
	while (i < len && i < 4 && line[i] == ' ')
		i++;
	if (i > 3)
		return false;
	f->indent = i;
	while (i < len && line[i] == '`')
		i++;
	f->ticks = i - f->indent;
	if (f->ticks < 3)
		return false;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	f->info = line + i;
	while (i < len && !strchr(" \t\r`", line[i]))
		i++;
	f->info_len = (size_t)(line + i - f->info);
	/* CommonMark: a backtick in the info string means inline code. */
	return !memchr(line + i, '`', len - i);
}

static bool close_fence(const char *line, size_t len, size_t ticks)
{
	size_t i = 0, n;
	while (i < len && i < 4 && line[i] == ' ')
		i++;
	if (i > 3)
		return false;
	for (n = 0; i < len && line[i] == '`'; i++)
		n++;
	if (n < ticks)
		return false;
	for (; i < len; i++)
		if (!strchr(" \t\r", line[i]))
			return false;
	return true;
}

static bool is_python(const char *s, size_t n)
{
	return (n == 6 && strncasecmp(s, "python", 6) == 0) ||
	       (n == 7 && strncasecmp(s, "python3", 7) == 0) ||
	       (n == 2 && strncasecmp(s, "py", 2) == 0);
}

/* [from, to) with \r\n turned into \n and up to indent spaces taken off each
 * line, as CommonMark does for an indented fence (Python cares). */
static char *copy_block(const char *from, const char *to, size_t indent)
{
	char *out = malloc((size_t)(to - from) + 1), *o = out;
	bool bol = true;
	if (!out)
		return NULL;
	for (const char *p = from; p < to; p++) {
		if (bol)
			for (size_t k = 0; k < indent && p < to && *p == ' '; k++)
				p++;
		if (p == to)
			break;
		bol = *p == '\n';
		if (!(*p == '\r' && p + 1 < to && p[1] == '\n'))
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

struct block {
	const char *from, *to;
	size_t indent;
};

/* The block opened on the line at p (fence f): its content, and where the
 * text after its closing fence starts. */
static const char *scan_block(const char *p, const char *end, const struct fence *f,
			      struct block *b)
{
	b->from = p;
	b->indent = f->indent;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (close_fence(p, (size_t)((nl ? nl : end) - p), f->ticks)) {
			b->to = p;
			return next;
		}
		p = next;
	}
	b->to = end; /* unterminated: the answer was cut off, keep what came */
	return end;
}

char *gen_extract_code(const char *text)
{
	if (!text)
		return NULL;
	const char *p = text, *end = text + strlen(text);
	struct block first = {0}, b;
	struct fence f;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (!open_fence(p, (size_t)((nl ? nl : end) - p), &f)) {
			p = next;
			continue;
		}
		p = scan_block(next, end, &f, &b);
		if (is_python(f.info, f.info_len))
			return copy_block(b.from, b.to, b.indent);
		if (!first.from)
			first = b;
	}
	return first.from ? copy_block(first.from, first.to, first.indent)
			  : copy_block(text, end, 0);
}
