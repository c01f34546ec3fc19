/* Writing a whole buffer to a descriptor with plain syscalls: used by the
 * daemon (the job description's memfd) and by sandboxd-init (the files it
 * writes into the job's root), so no library state is needed. */
#ifndef SBX_FDIO_H
#define SBX_FDIO_H

#include <stddef.h>

/* Writes all len bytes, retrying short writes and EINTR. 0, or -1 with errno
 * set (EIO when the descriptor took nothing). */
int fdio_write_all(int fd, const void *data, size_t len);

#endif
