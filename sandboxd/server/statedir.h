/* The daemon's state dir (--state-dir): root-owned, mode 0700, and every
 * name in it reached through one directory descriptor without following a
 * symlink. What it holds: "root", the empty mount point of every job's root
 * (used inside each job's own mount namespace), and "cgroup-home", the
 * cgroup v2 home a crashed run made for itself (cg_place, rule 3). */
#ifndef SBX_STATEDIR_H
#define SBX_STATEDIR_H

#include <stddef.h>
#include <sys/types.h>

/* Creates path (mode 0700) or checks the one that is there: a directory, not
 * a symlink, owned by root, with no group or other permission. Returns a
 * descriptor of it, or -1 with a message naming path and what is wrong. */
int statedir_open(const char *path, char *err, size_t errlen);

/* Opens `name`, one component directly under dirfd, never through a symlink:
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it
 * (5.6), else openat(O_NOFOLLOW), which is the same for one component. */
int statedir_openat(int dirfd, const char *name, int flags, mode_t mode);

/* Makes <dir>/root a fresh, empty directory: whatever a previous run or
 * anyone else left under that name (a mount, a symlink, a file) is removed
 * without ever following it. -1 with a message. */
int statedir_make_root(int dirfd, const char *path, char *err, size_t errlen);
/* At exit: removes the (empty) root mount point. */
void statedir_remove_root(int dirfd);

/* The recorded cgroup home: read ("" when none), written, or removed
 * (home NULL). */
void statedir_home_read(int dirfd, char *out, size_t len);
int statedir_home_write(int dirfd, const char *home);

#endif
