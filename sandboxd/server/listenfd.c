/* Socket activation without libsystemd: the protocol is two environment
 * variables and a descriptor number (sd_listen_fds(3)), and linking
 * libsystemd into a root daemon for it would add its dependencies (lz4,
 * zstd, lzma, gcrypt, ...) to what every root process of ours maps. What
 * systemd hands over is checked as strictly as what the daemon creates
 * itself: a socket the daemon would never bind (TCP, datagram, one that is
 * not listening) is refused, never served. */
#include "sandboxd/server/listenfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/errfmt.h"
#include "common/numparse.h"

static void forget(void)
{
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
}

static int sockopt(int fd, int opt, int *val)
{
	socklen_t len = sizeof *val;
	return getsockopt(fd, SOL_SOCKET, opt, val, &len);
}

/* Descriptor fd: a listening AF_UNIX SOCK_STREAM socket, or a message. */
static int check(int fd, char *err, size_t errlen)
{
	struct stat st;
	int domain, type, acc;
	if (fstat(fd, &st) < 0)
		return errfmt_errno(err, errlen, errno, "LISTEN_FDS: descriptor %d", fd);
	if (!S_ISSOCK(st.st_mode))
		return errfmt(err, errlen, "LISTEN_FDS: descriptor %d is not a socket", fd);
	if (sockopt(fd, SO_DOMAIN, &domain) < 0 || sockopt(fd, SO_TYPE, &type) < 0 ||
	    sockopt(fd, SO_ACCEPTCONN, &acc) < 0)
		return errfmt_errno(err, errlen, errno, "LISTEN_FDS: descriptor %d", fd);
	/* The daemon is never served on a network (ListenStream=PORT). */
	if (domain != AF_UNIX)
		return errfmt(err, errlen,
			      "LISTEN_FDS: descriptor %d is not a Unix socket (family %d): "
			      "sandboxd serves only a Unix socket path",
			      fd, domain);
	if (type != SOCK_STREAM)
		return errfmt(err, errlen,
			      "LISTEN_FDS: descriptor %d is not a stream socket (type %d; "
			      "ListenStream= in the unit)",
			      fd, type);
	if (!acc)
		return errfmt(err, errlen, "LISTEN_FDS: descriptor %d is not listening", fd);
	return 0;
}

int listenfd_take(char *path, size_t pathlen, char *err, size_t errlen)
{
	const char *spid = getenv("LISTEN_PID"), *sfds = getenv("LISTEN_FDS");
	long pid, n;
	path[0] = '\0';
	if (!spid) {
		forget();
		return 0;
	}
	if (num_parse_long(spid, 1, 1L << 30, &pid) < 0) {
		forget();
		return errfmt(err, errlen, "LISTEN_PID is not a process id: \"%.32s\"", spid);
	}
	/* Meant for another process (a parent that did not clear them). */
	if (pid != (long)getpid()) {
		forget();
		return 0;
	}
	bool ok = sfds && num_parse_long(sfds, 0, 1L << 20, &n) == 0;
	forget();
	if (!ok)
		return errfmt(err, errlen, "LISTEN_FDS is not a descriptor count: \"%.32s\"",
			      sfds ? sfds : "(unset)");
	if (n == 0)
		return 0;
	if (n != 1)
		return errfmt(err, errlen,
			      "LISTEN_FDS is %ld: sandboxd takes exactly one socket (one "
			      "ListenStream= in sandboxd.socket)",
			      n);
	int fd = LISTENFD_FIRST;
	if (check(fd, err, errlen) < 0)
		return -1;
	int fdfl = fcntl(fd, F_GETFD), fl = fcntl(fd, F_GETFL);
	if (fdfl < 0 || fl < 0 || fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return errfmt_errno(err, errlen, errno, "LISTEN_FDS: descriptor %d", fd);
	struct sockaddr_un sa;
	socklen_t len = sizeof sa;
	memset(&sa, 0, sizeof sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return errfmt_errno(err, errlen, errno, "LISTEN_FDS: descriptor %d", fd);
	/* An abstract name starts with a NUL byte: no path to report. */
	if (len > offsetof(struct sockaddr_un, sun_path) && sa.sun_path[0])
		snprintf(path, pathlen, "%.*s", (int)(len - offsetof(struct sockaddr_un, sun_path)),
			 sa.sun_path);
	return fd;
}

int listenfd_check_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (!path[0])
		return 0;
	if (lstat(path, &st) < 0)
		return errfmt_errno(err, errlen, errno, "the passed socket %s", path);
	if (!S_ISSOCK(st.st_mode) || st.st_uid != 0)
		return errfmt(err, errlen,
			      "the passed socket %s is %s: a socket the daemon serves must be "
			      "root's (SocketUser= in sandboxd.socket)",
			      path, S_ISSOCK(st.st_mode) ? "not owned by root" : "not a socket");
	if (st.st_mode & S_IWOTH) {
		errfmt(err, errlen,
		       "the passed socket %s is mode %04o: anyone may connect, and only the "
		       "--allow-uid/--allow-gid check refuses them (SocketMode=0660 and "
		       "SocketGroup= in sandboxd.socket)",
		       path, (unsigned)(st.st_mode & 07777));
		return 1;
	}
	return 0;
}
