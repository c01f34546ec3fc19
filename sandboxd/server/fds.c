/* Descriptors for connections and jobs (fds.h). */
#include "sandboxd/server/fds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/errfmt.h"
#include "common/log.h"

static int spare_fd = -1;
static size_t g_reserve = FDS_MARGIN;

size_t fds_reserve(const struct config *cfg)
{
	return cfg->queue_capacity + (size_t)cfg->workers * FDS_PER_JOB + FDS_MARGIN;
}

int fds_setup(const struct config *cfg, char *err, size_t errlen)
{
	g_reserve = fds_reserve(cfg);
	rlim_t need = (rlim_t)(cfg->max_conns + g_reserve);
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
				 "--workers %d x %d, %d of the daemon's own) but RLIMIT_NOFILE is "
				 "%llu (hard %llu) and cannot be raised (%s; fs.nr_open caps it): "
				 "raise LimitNOFILE= in the unit or lower --max-connections",
				 (unsigned long long)need, cfg->max_conns, cfg->queue_capacity,
				 cfg->workers, FDS_PER_JOB, FDS_MARGIN,
				 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
				 errfmt_desc(errno));
			return -1;
		}
		log_msg("RLIMIT_NOFILE raised from %llu to %llu (--max-connections %zu + %zu "
			"reserved for jobs)",
			(unsigned long long)rl.rlim_cur, (unsigned long long)need, cfg->max_conns,
			g_reserve);
	}
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

int fds_shed(int listen_fd, const char *line, size_t len)
{
	if (spare_fd < 0 && (spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	close(spare_fd);
	spare_fd = -1;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int e = errno;
	if (fd >= 0) {
		(void)!send(fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
	}
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return 1;
	return e == EAGAIN || e == EWOULDBLOCK ? 0 : -1;
}
