/* A second daemon started on a live socket path used to remove that socket
 * (and, sharing its name, the first daemon's job cgroups): now only a socket
 * nobody listens on is replaced. And the socket's owner and mode are set
 * through a descriptor of the socket file, so a symlink swapped in at its
 * path cannot make the root daemon chmod another file. */
#include "sandboxd/server/sockpath.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "common/protocol.h"

#define PING_MS 2000 /* how long a listener has to answer our ping */
#define LOCK_MS 5000 /* how long another daemon's start may hold the directory */
#define DEAD_MS 5000 /* how long a dead listener's socket may take to close */
#define DEAD_POLL_NS 10000000L

static dev_t bound_dev;
static ino_t bound_ino;
static bool bound;

/* Connected to something that listens at path: does it answer a ping the
 * way sandboxd does (any JSON object line: a version, or an error such as
 * busy)? */
static bool answers_ping(int fd)
{
	static const char line[] = "{\"" F_ID "\":\"sandboxd-start\",\"" F_OP "\":\"ping\"}\n";
	if (send(fd, line, sizeof line - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof line - 1))
		return false;
	char buf[4096];
	size_t have = 0;
	uint64_t deadline = clock_mono_ns() + (uint64_t)PING_MS * 1000000u;
	while (have < sizeof buf - 1) {
		uint64_t now = clock_mono_ns();
		if (now >= deadline)
			return false;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return false;
		ssize_t n = recv(fd, buf + have, sizeof buf - 1 - have, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return false;
		char *nl = memchr(buf + have, '\n', (size_t)n);
		have += (size_t)n;
		if (nl) {
			json_t *o = json_loadb(buf, (size_t)(nl - buf), 0, NULL);
			bool yes = json_is_object(o) &&
				   (json_object_get(o, P_VERSION) || json_object_get(o, R_ERROR));
			json_decref(o);
			return yes;
		}
	}
	return false;
}

/* The process that listens behind a connected fd is gone (or a zombie):
 * SO_PEERCRED names the caller of listen(). 0 pid: not in our pid
 * namespace, so not known. A recycled pid reads as alive, which only falls
 * back to the ping. */
static bool listener_dead(int fd, pid_t *pid)
{
	struct ucred uc = {0};
	socklen_t len = sizeof uc;
	*pid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 || uc.pid <= 0)
		return false;
	*pid = uc.pid;
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)uc.pid);
	int sf = open(path, O_RDONLY | O_CLOEXEC);
	if (sf < 0)
		return errno == ENOENT;
	ssize_t n = read(sf, buf, sizeof buf - 1);
	close(sf);
	buf[n > 0 ? n : 0] = '\0';
	/* The state follows the last ')': the name may hold one. */
	const char *r = strrchr(buf, ')');
	return r && r[1] == ' ' && r[2] == 'Z';
}

/* A daemon that died (SIGKILL, a crash) leaves its listening socket open
 * for a moment in the children it had just cloned and not yet exec'd: they
 * hold a copy of its descriptors, and a dying task closes its files only
 * after tearing down its namespaces (measured: 10 ms, seconds under load).
 * Stale once connect is refused: 1, or 0 if it still accepts after
 * DEAD_MS. Not the whole probe again: every connection stays queued in the
 * dead listener's backlog, so a full backlog (EAGAIN) is only more waiting
 * here, where the probe would call it in use. */
static int refused_within(const struct sockaddr_un *sa)
{
	uint64_t deadline = clock_mono_ns() + (uint64_t)DEAD_MS * 1000000u;
	do {
		struct timespec ts = {0, DEAD_POLL_NS};
		nanosleep(&ts, NULL);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -1;
		int rc = connect(fd, (const struct sockaddr *)sa, sizeof *sa);
		int e = errno;
		close(fd);
		/* Refused, or removed meanwhile: nothing is served there. */
		if (rc < 0 && (e == ECONNREFUSED || e == ENOENT))
			return 1;
	} while (clock_mono_ns() < deadline);
	return 0;
}

int sockpath_probe(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	if (strlen(path) >= sizeof sa.sun_path)
		return errfmt(err, errlen, "socket path too long: %s", path);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : errfmt_errno(err, errlen, errno, "socket %s", path);
	if (!S_ISSOCK(st.st_mode))
		return errfmt(err, errlen, "%s exists and is not a socket (%s); not removing it",
			      path, S_ISLNK(st.st_mode) ? "a symlink" : "some other file");
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errfmt_errno(err, errlen, errno, "socket");
	int rc;
	pid_t lpid;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		/* Refused: nobody listens, the socket is a dead daemon's. */
		rc = errno == ECONNREFUSED ? 1
		     : errno == EAGAIN
			 ? errfmt(err, errlen,
				  "socket %s is in use (its listener's backlog is full); not "
				  "removing it",
				  path)
			 : errfmt_errno(err, errlen, errno, "socket %s: connect", path);
	} else if (listener_dead(fd, &lpid)) {
		/* Not pinged: nobody is left to answer, and the ping's wait
		 * would only hold the connection open longer. */
		rc = refused_within(&sa);
		if (rc == 0)
			rc = errfmt(err, errlen,
				    "socket %s still accepts connections %d ms after the process "
				    "that listened there (pid %d) exited; not removing it",
				    path, DEAD_MS, (int)lpid);
		else if (rc < 0)
			rc = errfmt_errno(err, errlen, errno, "socket");
	} else if (answers_ping(fd)) {
		rc = errfmt(err, errlen,
			    "another sandboxd is serving %s (it answered a ping): stop it first, "
			    "or give this one another --socket",
			    path);
	} else {
		rc = errfmt(err, errlen,
			    "socket %s is in use: something accepts connections there but did not "
			    "answer a sandboxd ping within %d ms; not removing it",
			    path, PING_MS);
	}
	close(fd);
	return rc;
}

/* The socket's directory, locked against another daemon starting on a path
 * in it at the same moment; base gets the socket's name in it. */
static int lock_dir(const char *path, char *base, size_t baselen, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	snprintf(base, baselen, "%s", slash ? slash + 1 : dir);
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errfmt_errno(err, errlen, errno, "socket directory of %s", path);
	uint64_t deadline = clock_mono_ns() + (uint64_t)LOCK_MS * 1000000u;
	while (flock(dfd, LOCK_EX | LOCK_NB) < 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || clock_mono_ns() > deadline) {
			errfmt_errno(err, errlen, errno, "locking the socket directory of %s",
				     path);
			close(dfd);
			return -1;
		}
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	return dfd;
}

/* root:gid 0660 on the socket file bound at dfd/base, never on what a
 * symlink there might point to: the file is opened O_PATH|O_NOFOLLOW,
 * checked to be a socket of root's, and changed through that descriptor. */
static int secure(int dfd, const char *base, gid_t gid)
{
	int pfd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	struct stat st;
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
	int rc = -1;
	if (fstat(pfd, &st) < 0)
		goto out;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != 0) {
		errno = EPERM; /* swapped since bind */
		goto out;
	}
	/* fchownat on an O_PATH descriptor; a chmod through its /proc link
	 * (fchmod refuses O_PATH, fchmodat cannot refuse a symlink before 6.6). */
	if (fchownat(pfd, "", 0, gid, AT_EMPTY_PATH) < 0 || chmod(proc, 0660) < 0)
		goto out;
	bound_dev = st.st_dev;
	bound_ino = st.st_ino;
	bound = true;
	rc = 0;
out:
	close(pfd);
	return rc;
}

/* The socket is made under this name in its directory, and given its path
 * only once it listens: a client that finds the path can connect. */
#define MAKING ".sandboxd-binding"

/* A socket left at MAKING by a start that died half-way is removed (the
 * directory lock makes the name ours); anything else there is refused. */
static int clear_making(int dfd)
{
	struct stat st;
	if (fstatat(dfd, MAKING, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	return unlinkat(dfd, MAKING, 0);
}

int sockpath_listen(int fd, const char *path, gid_t gid, int backlog, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char base[PATH_MAX];
	if (strlen(path) >= sizeof sa.sun_path)
		return errfmt(err, errlen, "socket path too long: %s", path);
	int dfd = lock_dir(path, base, sizeof base, err, errlen);
	if (dfd < 0)
		return -1;
	/* Through the directory's descriptor, so the name always fits. */
	snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/" MAKING, dfd);
	int rc = sockpath_probe(path, err, errlen);
	if (rc == 1 && unlink(path) < 0 && errno != ENOENT)
		rc = errfmt_errno(err, errlen, errno, "removing the stale socket %s", path);
	if (rc >= 0 && clear_making(dfd) < 0)
		rc = errfmt_errno(err, errlen, errno, "%s beside the socket %s", MAKING, path);
	if (rc >= 0) {
		/* Created 0600 under the umask, then opened to the served group:
		 * never a moment where anyone else could connect. */
		mode_t old = umask(0177);
		rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
		umask(old);
		bool made = rc == 0;
		/* linkat, not rename: it never replaces what appeared at the path
		 * since the probe, on every file system. */
		if (rc < 0 || listen(fd, backlog) < 0 || secure(dfd, MAKING, gid) < 0 ||
		    linkat(dfd, MAKING, dfd, base, 0) < 0)
			rc = errfmt_errno(err, errlen, errno, "socket %s", path);
		if (made)
			(void)unlinkat(dfd, MAKING, 0);
	}
	close(dfd); /* and with it the lock */
	return rc < 0 ? -1 : 0;
}

void sockpath_instance(const char *path, char *out, size_t outlen)
{
	char dir[PATH_MAX], abs[PATH_MAX], key[2 * PATH_MAX + 2];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	if (slash)
		*slash = '\0';
	if (!realpath(slash ? (dir[0] ? dir : "/") : ".", abs))
		snprintf(abs, sizeof abs, "%s", slash ? dir : ".");
	snprintf(key, sizeof key, "%s/%s", abs, base);
	uint32_t h = 2166136261u;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(out, outlen, "s%08x", h);
}

void sockpath_unlink(const char *path)
{
	struct stat st;
	if (bound && lstat(path, &st) == 0 && st.st_dev == bound_dev && st.st_ino == bound_ino)
		(void)unlink(path);
}
