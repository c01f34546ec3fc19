/* The files a job wrote under /work, read back after the run for a request's
 * fetch_files. Everything in that directory was made by the job: it is read
 * as hostile (no symlink followed, no device or FIFO opened, sizes bounded
 * before a byte is read). */
#ifndef SBX_WORKFILES_H
#define SBX_WORKFILES_H

#include <stddef.h>
#include <sys/types.h>

/* Opens the job's /work through its init's root (/proc/PID/root/work) as an
 * O_PATH directory descriptor, while the init lives: the descriptor keeps
 * the tmpfs after the job's mount namespace is gone. -1 on failure. */
int workfiles_open(pid_t init_pid);
/* A warm job's: its pid 1 (the reaper, parent) is in its fork server's
 * mount namespace; the job (its first child) has the job's root. */
int workfiles_open_child(pid_t parent);

/* Reads the regular file at path (validated: relative, no "." or "..")
 * beneath dir, at most max bytes. 0 with *data (malloc'd, NUL-terminated)
 * and *len; -1 with why (a symlink anywhere on the path, not a regular
 * file, larger than max, changed while read, absent, ...). */
int workfiles_read(int dir, const char *path, size_t max, char **data, size_t *len, char *why,
		   size_t whylen);

#endif
