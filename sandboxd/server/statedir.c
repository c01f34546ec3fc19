/* The daemon works in its state dir as root, so nobody else may be able to
 * put anything there: a symlink planted at <state-dir>/root once made the
 * daemon unmount the symlink's target at start. The directory is checked
 * (root, 0700, reached through root-owned ancestors) and every name in it
 * is reached from its descriptor without following a symlink. */
#include "sandboxd/server/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/errfmt.h"
#include "common/log.h"

#define ROOT_NAME "root"
#define HOME_NAME "cgroup-home"
#define HOME_TMP "cgroup-home.new"

int statedir_openat(int dirfd, const char *name, int flags, mode_t mode)
{
	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		errno = EINVAL;
		return -1;
	}
	flags |= O_NOFOLLOW | O_CLOEXEC;
	struct open_how how = {.flags = (uint64_t)flags,
			       .mode = (flags & O_CREAT) ? mode : 0,
			       .resolve =
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof how);
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
	/* Before 5.6 (or under a container filter that refuses openat2): for a
	 * single component O_NOFOLLOW refuses exactly what RESOLVE_NO_SYMLINKS
	 * would, and the name cannot climb out ("/" and ".." were refused). */
	return openat(dirfd, name, flags, mode);
}

/* Every ancestor of the state dir is root's and writable by nobody else
 * (or sticky, as /tmp): the jail reaches <state-dir>/root by path, so no
 * one else may be able to swap a directory on the way. */
static int check_ancestors(const char *path, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	if (!realpath(path, abs))
		return errfmt_errno(err, errlen, errno, "state dir %s", path);
	for (char *slash = strrchr(abs, '/'); slash; slash = strrchr(abs, '/')) {
		*slash = '\0';
		const char *dir = abs[0] ? abs : "/";
		struct stat st;
		if (stat(dir, &st) < 0)
			return errfmt_errno(err, errlen, errno, "state dir %s: %s", path, dir);
		if (st.st_uid != 0 || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
			return errfmt(err, errlen,
				      "state dir %s: its ancestor %s is %s (owner uid %u, mode "
				      "%04o); the state dir must lie under directories only root "
				      "can change",
				      path, dir,
				      st.st_uid != 0 ? "not owned by root" : "writable by others",
				      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		if (!abs[0])
			break;
	}
	return 0;
}

int statedir_open(const char *path, char *err, size_t errlen)
{
	if (!path[0])
		return errfmt(err, errlen, "state dir: empty path");
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return errfmt_errno(err, errlen, errno, "state dir %s: cannot create it", path);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		int e = errno;
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return errfmt(err, errlen,
				      "state dir %s is a symlink; give the directory itself", path);
		return errfmt_errno(err, errlen, e, "state dir %s", path);
	}
	const char *what = NULL;
	if (fstat(fd, &st) < 0)
		what = "cannot be examined";
	else if (st.st_uid != 0)
		what = "is not owned by root";
	else if ((st.st_mode & 07777) != 0700)
		what = "does not have mode 0700";
	if (what) {
		errfmt(err, errlen,
		       "state dir %s %s (owner uid %u, mode %04o): the daemon works there as "
		       "root, so only root may change it; chown root: and chmod 0700 it, or give "
		       "another --state-dir",
		       path, what, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	if (check_ancestors(path, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int statedir_make_root(int dirfd, const char *path, char *err, size_t errlen)
{
	char root[PATH_MAX];
	if (snprintf(root, sizeof root, "%s/%s", path, ROOT_NAME) >= (int)sizeof root)
		return errfmt_errno(err, errlen, ENAMETOOLONG, "state dir %s", path);
	struct stat st;
	if (fstatat(dirfd, ROOT_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			/* Jobs mount on it only in their own namespaces; a host mount
			 * here is left over from an older layout. Not a mount: EINVAL. */
			if (umount2(root, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL)
				return errfmt_errno(err, errlen, errno, "umount %s", root);
			if (unlinkat(dirfd, ROOT_NAME, AT_REMOVEDIR) < 0)
				return errfmt_errno(err, errlen, errno,
						    "state dir: cannot remove %s", root);
		} else {
			/* A symlink or a file: only the name goes, never its target. */
			log_msg("state dir: removing %s, a %s, not a directory", root,
				S_ISLNK(st.st_mode) ? "symlink" : "file");
			if (unlinkat(dirfd, ROOT_NAME, 0) < 0)
				return errfmt_errno(err, errlen, errno,
						    "state dir: cannot remove %s", root);
		}
	} else if (errno != ENOENT) {
		return errfmt_errno(err, errlen, errno, "state dir: %s", root);
	}
	if (mkdirat(dirfd, ROOT_NAME, 0755) < 0)
		return errfmt_errno(err, errlen, errno, "state dir: mkdir %s", root);
	return 0;
}

void statedir_remove_root(int dirfd)
{
	(void)unlinkat(dirfd, ROOT_NAME, AT_REMOVEDIR);
}

void statedir_home_read(int dirfd, char *out, size_t len)
{
	out[0] = '\0';
	int fd = statedir_openat(dirfd, HOME_NAME, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, out, len - 1) : -1;
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

int statedir_home_write(int dirfd, const char *home)
{
	if (!home)
		return unlinkat(dirfd, HOME_NAME, 0) == 0 || errno == ENOENT ? 0 : -1;
	/* Written beside and renamed over: a crash never leaves half a path. */
	(void)unlinkat(dirfd, HOME_TMP, 0);
	int fd = statedir_openat(dirfd, HOME_TMP, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	size_t n = strlen(home);
	int rc = write(fd, home, n) == (ssize_t)n && write(fd, "\n", 1) == 1 ? 0 : -1;
	if (close(fd) < 0 || rc < 0 || renameat(dirfd, HOME_TMP, dirfd, HOME_NAME) < 0) {
		(void)unlinkat(dirfd, HOME_TMP, 0);
		return -1;
	}
	return 0;
}
