/* The files a job wrote under /work, read back after the run for a request's
 * fetch_files. Everything in that directory was made by the job: it is read
 * as hostile (no symlink followed, no device or FIFO opened, sizes bounded
 * before a byte is read). */
#ifndef SBX_WORKFILES_H
#define SBX_WORKFILES_H

#include <stddef.h>
#include <sys/types.h>

/* The job hands the supervisor its /work as an O_PATH descriptor before
 * any of its code runs (fdpass.h, FDPASS_WORK): the descriptor keeps the
 * tmpfs after the job's mount namespace is gone, however soon the job
 * ends. 0 when fd is what that must be, a directory on a tmpfs; -1 if not. */
int workfiles_check(int fd);

/* Reads the regular file at path (validated: relative, no "." or "..")
 * beneath dir, at most max bytes. 0 with *data (malloc'd, NUL-terminated)
 * and *len; -1 with why (a symlink anywhere on the path, not a regular
 * file, larger than max, changed while read, absent, ...). */
int workfiles_read(int dir, const char *path, size_t max, char **data, size_t *len, char *why,
		   size_t whylen);

#endif
