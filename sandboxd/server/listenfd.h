/* A listening socket handed over by a service manager (systemd's socket
 * activation: LISTEN_PID, LISTEN_FDS, the socket at descriptor 3). */
#ifndef SBX_LISTENFD_H
#define SBX_LISTENFD_H

#include <stddef.h>

#define LISTENFD_FIRST 3 /* SD_LISTEN_FDS_START */

/* sd_listen_fds(1) semantics, without libsystemd: when LISTEN_PID names
 * this process and LISTEN_FDS is 1, validates descriptor 3 as a listening
 * AF_UNIX SOCK_STREAM socket, makes it close-on-exec and non-blocking, and
 * returns it; its bound path (or "" for an unnamed or abstract one) goes to
 * path. The descriptor (3), or 0 when nothing was passed (no LISTEN_PID, or one naming another
 * process: the variables were meant for someone else). -1 with a message
 * for anything else (LISTEN_FDS garbled or not 1, descriptor 3 not such a
 * socket). The variables are removed from the environment either way, as
 * sd_listen_fds(1) does, so nothing the daemon starts inherits them. */
int listenfd_take(char *path, size_t pathlen, char *err, size_t errlen);

/* The passed socket's file at path (skipped for ""): -1 with a message when
 * it is not a socket owned by root (its owner could open it to anyone);
 * 1 with a warning in err when others may connect to it (the peer checks
 * still refuse them, but the unit should say SocketMode=0660); else 0. The
 * daemon creates its own socket root:group 0660 (sockpath.c); one systemd
 * made is held to the same, except that the daemon does not change it. */
int listenfd_check_path(const char *path, char *err, size_t errlen);

#endif
