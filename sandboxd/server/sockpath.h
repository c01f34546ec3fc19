/* The socket's path in the file system: who may take it over, and how it is
 * made the served group's without following a symlink. */
#ifndef SBX_SOCKPATH_H
#define SBX_SOCKPATH_H

#include <stddef.h>
#include <sys/types.h>

/* What is at path now: 0 nothing, 1 a stale socket (nobody listens: a
 * crashed daemon's), -1 anything that must not be removed (a live daemon,
 * some other listener, a file that is not a socket) with a message. */
int sockpath_probe(const char *path, char *err, size_t errlen);

/* Makes fd listen at path: under a lock on the socket's directory (two
 * daemons starting at once cannot both see "stale"), probes again, removes
 * only a stale socket, binds under a private name (0600), listens, gives the
 * socket to root:gid, mode 0660, through a descriptor of the socket file
 * itself, and only then links it at path, so the path never names a socket
 * that refuses connections. -1 with a message. */
int sockpath_listen(int fd, const char *path, gid_t gid, int backlog, char *err, size_t errlen);

/* The instance a daemon on path names its job cgroups after: "s" and the
 * FNV-1a hash of the path with its directory resolved (the socket itself
 * may not exist yet; an unresolvable directory is taken as written). */
void sockpath_instance(const char *path, char *out, size_t outlen);

/* At exit: removes the socket, unless it is no longer the one we bound. */
void sockpath_unlink(const char *path);

#endif
