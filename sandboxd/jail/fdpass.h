/* Passing one descriptor over a Unix socket (SCM_RIGHTS): how the job's
 * process hands its seccomp listener to the supervisor. */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H

/* One byte with fd attached. Plain syscalls: safe in the clone child. */
int fdpass_send(int sock, int fd);
/* The descriptor received (close-on-exec), or -1 for anything else: no
 * message, a message without exactly one descriptor. flags: e.g.
 * MSG_DONTWAIT. */
int fdpass_recv(int sock, int flags);

#endif
