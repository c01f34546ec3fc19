/* Descriptors for connections and jobs (fds.h). */
#include "sandboxd/server/fds.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "common/log.h"
#include "common/protocol.h"
#include "sandboxd/jail/reclaim.h"
#include "sandboxd/run/run.h"

#define PAUSE_MS 100 /* out of descriptors and no spare: wait, do not spin */

static int spare_fd = -1;
static uint64_t resume_ms;
static char *refusal; /* the busy line told to a client shed for want of descriptors */
static size_t g_reserve = FDS_MARGIN;

/* A slot's fork servers (none with --cold). */
static size_t warm_fds(const struct config *cfg)
{
	return cfg->cold ? 0 : run_warm_fds_per_slot();
}

/* Per worker: its job, the namespaces it leaves to be let go, and its
 * slot's fork servers. */
static size_t per_worker(const struct config *cfg)
{
	return FDS_PER_JOB + RECLAIM_PER_WORKER + warm_fds(cfg);
}

size_t fds_reserve(const struct config *cfg)
{
	return cfg->queue_capacity + (size_t)cfg->workers * per_worker(cfg) + FDS_MARGIN;
}

/* What the daemon holds open with no connection and no job: its own and
 * its fork servers'. A connection's descriptor comes after them, so the
 * limit has room for them besides the connections and the reserve (which
 * keeps room for the servers too: they are made after the first clients
 * may have come, and made again later). */
static size_t held(const struct config *cfg)
{
	return FDS_MARGIN + (size_t)cfg->workers * warm_fds(cfg);
}

int fds_setup(const struct config *cfg, char *err, size_t errlen)
{
	g_reserve = fds_reserve(cfg);
	rlim_t need = (rlim_t)(cfg->max_conns + g_reserve + held(cfg));
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		snprintf(err, errlen, "getrlimit(RLIMIT_NOFILE): %s", errfmt_desc(errno));
		return -1;
	}
	if (rl.rlim_cur < need) {
		struct rlimit want = {need, rl.rlim_max < need ? need : rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &want) < 0) {
			snprintf(err, errlen,
				 "%llu open files are needed (--max-connections %zu, --queue %zu, "
				 "--workers %d x %zu, %zu for the daemon and its servers) but "
				 "RLIMIT_NOFILE is "
				 "%llu (hard %llu) and cannot be raised (%s; fs.nr_open caps it): "
				 "raise LimitNOFILE= in the unit or lower --max-connections",
				 (unsigned long long)need, cfg->max_conns, cfg->queue_capacity,
				 cfg->workers, per_worker(cfg), FDS_MARGIN + held(cfg),
				 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
				 errfmt_desc(errno));
			return -1;
		}
		log_msg("RLIMIT_NOFILE raised from %llu to %llu (--max-connections %zu + %zu "
			"reserved for jobs + %zu held)",
			(unsigned long long)rl.rlim_cur, (unsigned long long)need, cfg->max_conns,
			g_reserve, held(cfg));
	}
	char *line =
	    proto_error_line(NULL, E_BUSY, "the daemon is out of descriptors; retry later");
	if (!line || asprintf(&refusal, "%s\n", line) < 0) {
		free(line);
		refusal = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(line);
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (spare_fd < 0) {
		snprintf(err, errlen, "/dev/null: %s", errfmt_desc(errno));
		return -1;
	}
	return 0;
}

bool fds_room(int fd)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return false;
	return rl.rlim_cur == RLIM_INFINITY || (rlim_t)fd + g_reserve < rl.rlim_cur;
}

/* Out of descriptors: refuses one waiting client through the spare. 1: one
 * refused; 0: none was waiting; -1: still no descriptor. */
static int shed(int listen_fd)
{
	if (!refusal)
		return -1;
	if (spare_fd < 0 && (spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	close(spare_fd);
	spare_fd = -1;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int e = errno;
	if (fd >= 0)
		fds_refuse(fd, refusal, strlen(refusal));
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return 1;
	return e == EAGAIN || e == EWOULDBLOCK ? 0 : -1;
}

void fds_refuse(int fd, const char *line, size_t len)
{
	(void)shutdown(fd, SHUT_RD);
	if (line)
		(void)!send(fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	/* Closing with bytes unread would reset the connection: the client
	 * would then see ECONNRESET at its next read. */
	char drop[4096];
	for (int k = 0; k < 16 && recv(fd, drop, sizeof drop, MSG_DONTWAIT) > 0; k++)
		;
	close(fd);
}

int fds_accept(int listen_fd)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0)
		return fd;
	if (errno == EINTR || errno == ECONNABORTED)
		return FDS_RETRY;
	if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM)
		return FDS_NONE;
	int e = errno, r = shed(listen_fd);
	if (r < 0) {
		static uint64_t logged_ms;
		resume_ms = clock_mono_ms() + PAUSE_MS;
		if (resume_ms > logged_ms + 10000) {
			log_msg("accept: %s; pausing new connections", errfmt_desc(e));
			logged_ms = resume_ms;
		}
	}
	return r > 0 ? FDS_RETRY : FDS_NONE;
}

int fds_paused_ms(void)
{
	uint64_t now = clock_mono_ms();
	return now < resume_ms ? (int)(resume_ms - now) : 0;
}
