/* Reading the job's /work after the run. The job had the whole run to shape
 * that directory: symlinks (to the host, to /proc), FIFOs that block an
 * open or a read, device nodes, sockets, sparse files of terabytes,
 * directories where a file is expected, files that grow while read. The
 * daemon is root, so every path is resolved beneath the work dir with no
 * symlink, magic link or mount crossing (openat2), opened O_PATH first so
 * nothing but a regular file is ever opened for reading, and its size is
 * bounded before a byte is read. */
#include "sandboxd/jail/workfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

int workfiles_check(int fd)
{
	struct stat st;
	struct statfs sf;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || fstatfs(fd, &sf) < 0 ||
	    sf.f_type != TMPFS_MAGIC)
		return -1;
	return 0;
}

static const char *workfiles_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symlink";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device node";
	return "not a regular file";
}

/* Reads at most st_size + 1 bytes: one more than the size proves growth. */
static int workfiles_slurp(int fd, const struct stat *st, char **data, size_t *len)
{
	size_t want = (size_t)st->st_size, got = 0;
	char *buf = malloc(want + 2);
	if (!buf)
		return -1;
	while (got < want + 1) {
		ssize_t n = read(fd, buf + got, want + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

int workfiles_read(int dir, const char *path, size_t max, char **data, size_t *len, char *why,
		   size_t whylen)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					  RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
	struct stat st, st2, st3;
	int fd = -1, pfd = (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
	*data = NULL;
	*len = 0;
	if (pfd < 0) {
		snprintf(why, whylen, "%s",
			 errno == ENOENT    ? "no such file"
			 : errno == ELOOP   ? "a symlink on the path"
			 : errno == EXDEV   ? "the path leaves the work dir"
			 : errno == ENOTDIR ? "a component of the path is not a directory"
			 : errno == ENOSYS  ? "the kernel has no openat2 (Linux 5.6+)"
					    : strerror(errno));
		return -1;
	}
	if (fstat(pfd, &st) < 0) {
		snprintf(why, whylen, "stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s", workfiles_kind(st.st_mode));
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(why, whylen, "%lld bytes, more than the %zu left of the fetch limit",
			 (long long)st.st_size, max);
		goto fail;
	}
	/* Reopening the O_PATH descriptor opens exactly the inode checked
	 * above; a rename in between cannot swap it. */
	char self[64];
	snprintf(self, sizeof self, "/proc/thread-self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st2) < 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev ||
	    !S_ISREG(st2.st_mode)) {
		snprintf(why, whylen, "cannot open: %s", fd < 0 ? strerror(errno) : "replaced");
		goto fail;
	}
	if (workfiles_slurp(fd, &st2, data, len) < 0) {
		snprintf(why, whylen, "read: %s", strerror(errno));
		goto fail;
	}
	/* Nothing of the job runs any more when this is called, but a file
	 * that changed under the read is refused rather than returned torn. */
	if (fstat(fd, &st3) < 0 || *len != (size_t)st2.st_size || st3.st_size != st2.st_size ||
	    st3.st_mtim.tv_sec != st2.st_mtim.tv_sec ||
	    st3.st_mtim.tv_nsec != st2.st_mtim.tv_nsec) {
		snprintf(why, whylen, "changed while read");
		free(*data);
		*data = NULL;
		*len = 0;
		goto fail;
	}
	close(fd);
	close(pfd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	close(pfd);
	return -1;
}
