/* Passing one descriptor over a Unix socket (SCM_RIGHTS): how the job's
 * process hands the supervisor its seccomp listener, its mount namespace
 * (reclaim.h) and, when the request fetches files, its /work. */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H

/* The byte that travels with each descriptor, naming what it is. */
enum { FDPASS_LISTENER = 'L', FDPASS_WORK = 'W', FDPASS_MNTNS = 'M' };

/* One tag byte with fd attached. Plain syscalls: safe in the clone child. */
int fdpass_send(int sock, int fd, char tag);
/* Opens path as an O_PATH directory (no symlink followed) and sends it. */
int fdpass_send_dir(int sock, const char *path, char tag);
/* The caller's own mount namespace (/proc/self/ns/mnt, close-on-exec), or
 * -1: what fdpass_send_mntns sends, for a caller that opens it ahead. */
int fdpass_open_mntns(void);
/* Opens the caller's own mount namespace and sends it as FDPASS_MNTNS. */
int fdpass_send_mntns(int sock);
/* The descriptor received (close-on-exec), with its tag in *tag, or -1 for
 * anything else: no message, a message without exactly one descriptor.
 * flags: e.g. MSG_DONTWAIT. */
int fdpass_recv(int sock, int flags, char *tag);

#endif
