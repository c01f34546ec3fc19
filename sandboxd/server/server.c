/* One thread owns every connection; workers never touch a socket. A client
 * can only ever cost the daemon its own bounded buffers, and all clients
 * together the buffer budget (budget.c): lines are capped, writes never
 * block, and a client that stops reading only fills its own output queue
 * until it is dropped. */
#include "sandboxd/server/server.h"

#include "sandboxd/run/run.h"

#include "sandboxd/server/peers.h"
#include "sandboxd/server/budget.h"
#include "sandboxd/server/fds.h"
#include "sandboxd/server/ping.h"
#include "sandboxd/server/post.h"
#include "sandboxd/server/sockpath.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/errfmt.h"
#include "common/clock.h"

#define MAX_UNSENT (512u << 20) /* a client that reads nothing is dropped past this */

struct conn {
	uint64_t id;
	int fd;
	uid_t uid; /* SO_PEERCRED at accept */
	char *in;
	size_t in_len, in_cap;
	bool skipping;	  /* discarding the rest of an over-long line */
	bool read_closed; /* the client half-closed: answer what is pending, then close */
	bool dead;	  /* to be closed (and its jobs cancelled) by the loop */
	char *out;
	size_t out_len, out_off;
	size_t pending; /* jobs queued or running for this connection */
	size_t charged; /* what its buffers count against the global budget */
	struct conn *next;
};

static int listen_fd = -1, wake_fd = -1;
static struct conn *conns;
static size_t nconns;
static uint64_t next_conn_id = 1;

int server_listen(const struct config *cfg, char *err, size_t errlen)
{
	/* systemd's socket: its path and mode are the unit's; it outlives us. */
	listen_fd = cfg->passed_fd;
	if (listen_fd < 0) {
		listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (listen_fd < 0)
			goto fail;
		/* A socket left by a crashed daemon is replaced; a live one, or
		 * anything that is not a socket, is left alone (sockpath.c). */
		if (sockpath_listen(listen_fd, cfg->socket_path, cfg->socket_gid, 128, err,
				    errlen) < 0)
			return -1;
	}
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "socket %s: %s", cfg->socket_path, errfmt_desc(errno));
	return -1;
}

void server_post(struct job *j, char *line)
{
	post_submit(j, line, wake_fd);
}

static bool gid_allowed(const struct config *cfg, gid_t gid)
{
	for (int i = 0; i < cfg->n_allow_gid; i++)
		if (cfg->allow_gid[i] == gid)
			return true;
	return false;
}

/* Root, an allowed uid, or a member of an allowed group: the primary gid
 * from SO_PEERCRED, else the user's supplementary groups as the system's
 * group database lists them (the same membership that let the peer open
 * the 0660 socket in the first place). */
static bool peer_allowed(const struct config *cfg, const struct ucred *cr)
{
	if (cr->uid == 0 || gid_allowed(cfg, cr->gid))
		return true;
	for (int i = 0; i < cfg->n_allow_uid; i++)
		if (cfg->allow_uid[i] == cr->uid)
			return true;
	if (!cfg->n_allow_gid)
		return false;
	struct passwd pw, *found = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;
	if (getpwuid_r(cr->uid, &pw, buf, sizeof buf, &found) != 0 || !found ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (gid_allowed(cfg, groups[i]))
			return true;
	return false;
}

/* The connection's buffers against the global budget: input beyond the
 * first BUDGET_IN_BASE bytes, and every byte of output it holds. */
static size_t in_charge(size_t in_cap)
{
	return in_cap > BUDGET_IN_BASE ? in_cap - BUDGET_IN_BASE : 0;
}

static void conn_account(struct conn *c)
{
	budget_charge(&c->charged, in_charge(c->in_cap) + c->out_len);
}

/* Whether a line of n bytes for c would be held by a client that does not
 * read while every buffer together is at the budget: one response always
 * gets through, the next ones cost that client its connection. Used for
 * a job's response (deliver_posted) and for pings and refusals, which are
 * answered at once, never refused busy (a ping's answer lists every
 * profile's libraries, KiB from a 23-byte request): without it a client
 * sending pings and reading nothing held up to MAX_UNSENT per connection
 * past the budget. */
static bool conn_hog(struct conn *c, size_t n)
{
	if (c->dead)
		return true; /* closed soon: nothing more for it */
	if (c->out_off >= c->out_len || budget_room(n))
		return false;
	log_msg("dropping a client that does not read its responses: the buffers are at the "
		"budget");
	c->dead = true;
	return true;
}

/* Appends one response line; false when the client's backlog is too big. */
static bool conn_queue(struct conn *c, const char *line)
{
	size_t n = strlen(line);
	if (c->out_len - c->out_off + n + 1 > MAX_UNSENT)
		return false;
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_len = c->out_off = 0;
	char *nb = realloc(c->out, c->out_len + n + 1);
	if (!nb)
		return false;
	c->out = nb;
	memcpy(c->out + c->out_len, line, n);
	c->out[c->out_len + n] = '\n';
	c->out_len += n + 1;
	conn_account(c);
	return true;
}

/* conn_queue for a posted response: when nothing else is waiting, the line
 * itself becomes the output buffer (realloc for the newline moves no bytes
 * of a large block), so a big response is never copied. *line is taken. */
static bool conn_queue_owned(struct conn *c, char **line)
{
	if (c->out_off < c->out_len)
		return conn_queue(c, *line);
	size_t n = strlen(*line);
	char *nb = realloc(*line, n + 2);
	if (!nb)
		return conn_queue(c, *line);
	nb[n] = '\n';
	free(c->out);
	c->out = nb;
	c->out_len = n + 1;
	c->out_off = 0;
	*line = NULL;
	conn_account(c);
	return true;
}

static bool conn_error(struct conn *c, const char *id, enum proto_errcode code, const char *msg)
{
	char *line = proto_error_line(id, code, msg);
	bool ok = line && !conn_hog(c, strlen(line) + 1) && conn_queue(c, line);
	free(line);
	return ok;
}

static void conn_close(const struct config *cfg, struct conn **pp, struct runq *q)
{
	struct conn *c = *pp;
	*pp = c->next;
	if (c->pending)
		runq_cancel_conn(q, c->id);
	peers_conn_close(cfg, c->uid);
	budget_charge(&c->charged, 0);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
	nconns--;
}

/* Returns false when there is nothing (more) to accept. */
static bool accept_one(const struct config *cfg)
{
	int fd = fds_accept(listen_fd);
	if (fd < 0)
		return fd == FDS_RETRY;
	struct ucred cr = {0};
	socklen_t len = sizeof cr;
	struct conn tmp = {.fd = fd};
	char why[192] = "too many connections";
	bool allowed =
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && peer_allowed(cfg, &cr);
	/* A connection never takes the descriptors kept for jobs. */
	bool full = nconns >= cfg->max_conns || !fds_room(fd);
	if (!allowed || full || peers_conn_open(cfg, cr.uid, why, sizeof why) < 0) {
		full = allowed;
		conn_error(&tmp, NULL, full ? E_BUSY : E_FORBIDDEN,
			   full ? why : "this uid/gid is not served");
		fds_refuse(fd, tmp.out, tmp.out_len);
		/* The refusal went through the connection's accounting: give
		 * its charge back, or every refused client would shrink the
		 * budget for good. */
		budget_charge(&tmp.charged, 0);
		free(tmp.out);
		if (!full)
			log_msg("refused a client: uid %u gid %u", (unsigned)cr.uid,
				(unsigned)cr.gid);
		return true;
	}
	struct conn *c = calloc(1, sizeof *c);
	if (!c) {
		peers_conn_close(cfg, cr.uid);
		close(fd);
		return true;
	}
	c->fd = fd;
	c->uid = cr.uid;
	c->id = next_conn_id++;
	c->next = conns;
	conns = c;
	nconns++;
	return true;
}

/* Every "files" entry (and main.py, for a plain or stdio run) is written
 * into /work, a tmpfs of tmpfs_mb that counts whole pages. A request that
 * cannot fit is the client's to fix and is told so before it takes a
 * worker; in the jail it would only surface as ENOSPC or SIGXFSZ. */
static bool files_fit(const struct proto_request *r, long tmpfs_mb, char *msg, size_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096, cap = (uint64_t)tmpfs_mb << 20, need = 0;
	for (size_t i = 0; i < r->nfiles; i++) {
		if (r->files[i].len > cap) {
			snprintf(msg, len,
				 "file \"%.80s\" (%zu bytes) does not fit /work: %s %ld gives it "
				 "%llu bytes",
				 r->files[i].path, r->files[i].len, L_TMPFS_MB, tmpfs_mb,
				 (unsigned long long)cap);
			return false;
		}
		need += (r->files[i].len + page - 1) / page * page;
	}
	if (r->format == FMT_NONE || r->format == FMT_STDIO)
		need += (r->code_len + page - 1) / page * page;
	if (need <= cap)
		return true;
	snprintf(msg, len,
		 "the files do not fit /work: they take %llu bytes in %llu-byte pages (main.py "
		 "included) and %s %ld gives %llu",
		 (unsigned long long)need, (unsigned long long)page, L_TMPFS_MB, tmpfs_mb,
		 (unsigned long long)cap);
	return false;
}

static void handle_line(const struct config *cfg, struct runq *q, struct conn *c, char *line,
			size_t len)
{
	struct proto_request req;
	struct proto_error perr;
	char *id = NULL;
	if (len == 0)
		return;
	uint64_t received = clock_mono_ns();
	if (proto_parse_request(line, len, &cfg->bounds, &req, &id, &perr) < 0) {
		conn_error(c, id, perr.code, perr.message);
		free(id);
		return;
	}
	free(id);
	if (req.op == OP_PING) {
		char *s = ping_line(cfg, q, req.id);
		if (s && !conn_hog(c, strlen(s) + 1))
			conn_queue(c, s);
		free(s);
		proto_request_free(&req);
		return;
	}
	/* Accepted jobs' output is never refused: while the buffers are at the
	 * budget, or this client leaves a response's worth unread, no new job. */
	if (budget_spent() || c->out_len - c->out_off > cfg->max_response) {
		conn_error(c, req.id, E_BUSY,
			   "the daemon's buffers are full (responses not read yet); retry later");
		proto_request_free(&req);
		return;
	}
	const struct profile *p = profile_find(&cfg->profiles, req.policy);
	char msg[256];
	enum proto_errcode code;
	struct job *j = p ? job_new() : NULL;
	if (!p) {
		conn_error(c, req.id, E_UNKNOWN_POLICY, "no such policy");
	} else if (!j) {
		conn_error(c, req.id, E_INTERNAL, "out of memory");
	} else if (limits_resolve(&req.limits, p, &j->lim, msg, sizeof msg) < 0) {
		conn_error(c, req.id, E_BAD_LIMITS, msg);
	} else if (!files_fit(&req, j->lim.tmpfs_mb, msg, sizeof msg)) {
		conn_error(c, req.id, E_TOO_LARGE, msg);
	} else if (peers_job_admit(cfg, c->uid, &req, j, &code, msg, sizeof msg) < 0) {
		conn_error(c, req.id, code, msg);
	} else {
		j->conn_id = c->id;
		j->prof = p;
		j->req = req;
		if (post_prepare(j) < 0) {
			memset(&j->req, 0, sizeof j->req);
			conn_error(c, req.id, E_INTERNAL, "out of memory");
		} else {
			j->received_ns = received;
			j->queued_ns = clock_mono_ns();
			j->bytes = len;
			int rc = runq_push(q, j);
			if (rc == RUNQ_OK) {
				c->pending++;
				return; /* the job owns the request now */
			}
			code = peers_push_error(cfg, rc, j, msg, sizeof msg);
			memset(&j->req, 0, sizeof j->req);
			conn_error(c, req.id, code, msg);
		}
	}
	job_free(j);
	proto_request_free(&req);
}

/* Resizes the input buffer (keeping its in_len bytes); false without memory. */
static bool conn_in_resize(struct conn *c, size_t ncap)
{
	char *nb = realloc(c->in, ncap);
	if (!nb)
		return false;
	c->in = nb;
	c->in_cap = ncap;
	conn_account(c);
	return true;
}

/* Reads what is there and handles every complete line; false: close. */
static bool conn_read(const struct config *cfg, struct runq *q, struct conn *c)
{
	size_t cap = cfg->bounds.max_line + 1;
	for (int rounds = 0; rounds < 16; rounds++) {
		if (c->in_cap < cap && c->in_len == c->in_cap) {
			size_t ncap = c->in_cap ? c->in_cap * 2 : BUDGET_IN_BASE;
			ncap = ncap > cap ? cap : ncap;
			/* A connection's first buffer is outside the budget (its
			 * charge is 0), so pings and small requests are still read
			 * while large responses sit unread. */
			size_t more = in_charge(ncap) - in_charge(c->in_cap);
			if (more && !budget_room(more)) {
				/* Every connection's buffers together are at the
				 * budget: this line is refused, not buffered. */
				conn_error(c, NULL, E_BUSY,
					   "the daemon's request buffers are full; retry later");
				c->skipping = true;
				c->in_len = 0;
			} else if (!conn_in_resize(c, ncap)) {
				return false;
			}
		}
		ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0) {
			c->read_closed = true;
			return true;
		}
		size_t start = 0, end = c->in_len + (size_t)n;
		for (size_t i = c->in_len; i < end; i++) {
			if (c->in[i] != '\n')
				continue;
			if (!c->skipping)
				handle_line(cfg, q, c, c->in + start, i - start);
			c->skipping = false;
			start = i + 1;
		}
		/* The rest of a line being skipped is dropped as it comes. */
		c->in_len = c->skipping ? 0 : end - start;
		memmove(c->in, c->in + start, c->in_len);
		if (c->in_len == cap) {
			/* An over-long line: answer once, then drop bytes up to its end. */
			conn_error(c, NULL, E_TOO_LARGE, "request line too long");
			c->skipping = true;
			c->in_len = 0;
		}
		/* A large buffer whose line is done goes back to the budget. */
		if (c->in_cap > BUDGET_IN_BASE && c->in_len <= BUDGET_IN_BASE &&
		    !conn_in_resize(c, BUDGET_IN_BASE))
			return false;
	}
	return true;
}

static bool conn_write(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_off += (size_t)n;
	}
	/* A large reply, once sent, gives its memory back at once. */
	if (c->out_len > 65536) {
		free(c->out);
		c->out = NULL;
		c->out_len = c->out_off = 0;
		conn_account(c);
	}
	return true;
}

static void deliver_posted(void)
{
	uint64_t v;
	(void)!read(wake_fd, &v, sizeof v);
	struct posted *all = post_take();
	for (struct posted *p = all; p; p = p->next)
		for (struct conn *c = conns; c; c = c->next)
			if (c->id == p->conn_id) {
				c->pending--;
				if (!conn_hog(c, strlen(p->line) + 1) &&
				    !conn_queue_owned(c, &p->line))
					c->dead = true;
				break;
			}
	post_free_list(all);
}

static void tell_shutdown(const struct job *j, void *ctx)
{
	(void)ctx;
	for (struct conn *c = conns; c; c = c->next)
		if (c->id == j->conn_id)
			conn_error(c, j->req.id, E_SHUTTING_DOWN,
				   "the daemon is stopping; the job was not run to completion");
}

/* Last words: a bounded blocking write of what each client is owed, at
 * most 200 ms per client and FLUSH_ALL_MS in all, so that many clients that
 * stopped reading cannot hold the shutdown. */
#define FLUSH_ALL_MS 2000
static void flush_all(void)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = 200000};
	uint64_t t0 = clock_mono_ms();
	for (struct conn *c = conns; c; c = c->next) {
		if (clock_mono_ms() - t0 > FLUSH_ALL_MS)
			break;
		int fl = fcntl(c->fd, F_GETFL);
		if (fl >= 0)
			fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		while (c->out_off < c->out_len) {
			ssize_t n =
			    send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			c->out_off += (size_t)n;
		}
	}
}

void server_free_posted(void)
{
	/* Only now: a worker finishing its last job may still have posted. */
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	post_free_list(post_take());
}

int server_run(const struct config *cfg, struct runq *q, int sigfd)
{
	struct pollfd *pfd = calloc(cfg->max_conns + 3, sizeof *pfd);
	struct conn **idx = calloc(cfg->max_conns, sizeof *idx);
	if (!pfd || !idx) {
		free(pfd);
		free(idx);
		return -1;
	}
	for (;;) {
		nfds_t n = 0;
		int paused = fds_paused_ms();
		pfd[n++] = (struct pollfd){.fd = listen_fd, .events = paused ? 0 : POLLIN};
		pfd[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
		size_t k = 0;
		for (struct conn *c = conns; c && k < cfg->max_conns; c = c->next) {
			short ev =
			    (c->read_closed ? 0 : POLLIN) | (c->out_off < c->out_len ? POLLOUT : 0);
			idx[k++] = c;
			pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
		}
		if (poll(pfd, n, paused ? paused : -1) < 0 && errno != EINTR)
			break;
		if (pfd[2].revents) {
			struct signalfd_siginfo si;
			(void)!read(sigfd, &si, sizeof si);
			log_msg("signal %u: shutting down", si.ssi_signo);
			break;
		}
		if (pfd[1].revents)
			deliver_posted();
		for (size_t i = 0; i < k; i++) {
			struct conn *c = idx[i];
			short re = pfd[3 + i].revents;
			if ((re & POLLIN) && !c->read_closed && !conn_read(cfg, q, c))
				c->dead = true;
			/* POLLHUP means both directions are gone: the client closed,
			 * which cancels its jobs. A half-close only sets read_closed. */
			if (re & (POLLHUP | POLLERR))
				c->dead = true;
			if (!c->dead && !conn_write(c))
				c->dead = true;
			if (c->read_closed && c->pending == 0 && c->out_off == c->out_len)
				c->dead = true;
		}
		for (struct conn **pp = &conns; *pp;) {
			if ((*pp)->dead)
				conn_close(cfg, pp, q);
			else
				pp = &(*pp)->next;
		}
		if (pfd[0].revents)
			for (int a = 0; a < 64 && accept_one(cfg); a++)
				;
	}
	/* Stop taking connections first, then answer every pending request. */
	close(listen_fd);
	sockpath_unlink(cfg->socket_path);
	deliver_posted();
	runq_shutdown(q, tell_shutdown, NULL);
	flush_all();
	while (conns)
		conn_close(cfg, &conns, q);
	free(pfd);
	free(idx);
	return 0;
}
