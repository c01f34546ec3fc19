/* The status pipe's records: the error record, written by the daemon's
 * clone child (jail.c), the job's init (jail_child.c, sandboxd/init/main.c)
 * and a warm job's reaper (reaper.c); the status record, with the payload's
 * usage, which the daemon reads (supervise.c); and the last loop of the pid
 * 1s that write it. */
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/jail_internal.h"

void jail_report_error(int fd, const char *step)
{
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_ERROR;
	m.err = errno;
	size_t n = strlen(step);
	memcpy(m.text, step, n < sizeof m.text - 1 ? n : sizeof m.text - 1);
	(void)!write(fd, &m, sizeof m);
}

void jail_msg_set_usage(struct jail_msg *m, const struct rusage *ru)
{
	m->utime_us = (int64_t)ru->ru_utime.tv_sec * 1000000 + ru->ru_utime.tv_usec;
	m->stime_us = (int64_t)ru->ru_stime.tv_sec * 1000000 + ru->ru_stime.tv_usec;
	m->maxrss_kb = ru->ru_maxrss;
}

/* A record is hostile input to the daemon: a negative time reads as none. */
void jail_msg_usage(const struct jail_msg *m, struct rusage *ru)
{
	memset(ru, 0, sizeof *ru);
	int64_t u = m->utime_us > 0 ? m->utime_us : 0, s = m->stime_us > 0 ? m->stime_us : 0;
	ru->ru_utime.tv_sec = (time_t)(u / 1000000);
	ru->ru_utime.tv_usec = (suseconds_t)(u % 1000000);
	ru->ru_stime.tv_sec = (time_t)(s / 1000000);
	ru->ru_stime.tv_usec = (suseconds_t)(s % 1000000);
	ru->ru_maxrss = m->maxrss_kb > 0 ? (long)m->maxrss_kb : 0;
}

void jail_msg_send_status(int fd, int status, const struct rusage *ru)
{
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_STATUS;
	m.status = status;
	jail_msg_set_usage(&m, ru);
	(void)!write(fd, &m, sizeof m);
}

_Noreturn void jail_msg_reap(int fd, pid_t payload, const char *lost)
{
	for (;;) {
		int status;
		struct rusage ru;
		pid_t p = wait4(-1, &status, __WALL, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			jail_report_error(fd, lost);
			_exit(1);
		}
		if (p == payload) {
			jail_msg_send_status(fd, status, &ru);
			_exit(0);
		}
	}
}
