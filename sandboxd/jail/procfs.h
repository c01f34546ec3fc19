/* Small reads of the daemon's own view of /proc: a process's first child,
 * a pidfd's pid, a status field. The files are the kernel's, not a job's,
 * but a job can end (and its pid be reused) between two reads: callers
 * hold the process by a pidfd or as its parent. */
#ifndef SBX_PROCFS_H
#define SBX_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/* Up to cap - 1 bytes of path, NUL-terminated: the length, or -1 (cannot
 * be opened, read fails, or is empty). */
ssize_t procfs_read(const char *path, char *buf, size_t cap);
/* The first pid in /proc/PID/task/PID/children, or -1. */
pid_t procfs_first_child(pid_t pid);
/* The number after "\nKEY\t" or "\nKEY " (e.g. "Pid:", "VmRSS:") in
 * /proc/self/fdinfo/FD (fd >= 0) or /proc/PID/status (fd < 0), or -1. */
long procfs_field(pid_t pid, int fd, const char *key);

#endif
