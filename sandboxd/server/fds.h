/* Open-file descriptors: enough for the configuration (raised at start, or
 * a refusal to start), a reserve that connections can never take from the
 * jobs, and what accept() does when the process runs out anyway. */
#ifndef SBX_FDS_H
#define SBX_FDS_H

#include <stdbool.h>
#include <stddef.h>

#include "sandboxd/config.h"

/* Descriptors one running job holds in the daemon at its peak (its pipes,
 * the seccomp listener, pidfd, cgroup files), with room to spare. */
#define FDS_PER_JOB 32
/* The daemon's own: socket, eventfd, signalfd, log, spare, policy files. */
#define FDS_MARGIN 64

/* Descriptors kept from connections: every queued job's cancel eventfd,
 * every worker's job, the finished jobs' namespaces waiting to be let go
 * (reclaim.h), every slot's fork servers with their pooled network
 * namespaces (run_warm_fds_per_slot; none with --cold), and the margin. */
size_t fds_reserve(const struct config *cfg);
/* Raises RLIMIT_NOFILE to --max-connections + fds_reserve + what the idle
 * daemon holds (its own and its fork servers'; the hard limit
 * too, when it is lower: root may); -1 with a message naming the flags
 * when it cannot. Also opens the spare descriptor. */
int fds_setup(const struct config *cfg, char *err, size_t errlen);
/* A new connection on descriptor fd leaves the reserve intact. The limit is
 * read each time: an operator may lower it on a running daemon (prlimit). */
bool fds_room(int fd);
/* accept4() for the loop: a new client's descriptor, or FDS_RETRY (call
 * again: interrupted, or a client was refused for want of descriptors), or
 * FDS_NONE (no client waits, or accepting is paused). Out of descriptors
 * (EMFILE, ENFILE), it closes the spare descriptor, accepts one client,
 * tells it `busy` and closes it, then takes the spare back: the client is
 * answered instead of waiting in the backlog while poll() reports the
 * socket readable forever. Without a spare it pauses accepting. */
#define FDS_NONE (-1)
#define FDS_RETRY (-2)
int fds_accept(int listen_fd);
/* Refuses the connection fd with one line and closes it. The read side is
 * shut first, so the client can never queue more after it has seen the
 * refusal: a retry it sends on this connection fails at once (EPIPE),
 * instead of racing the close, which turns a retry that arrived unread
 * into ECONNRESET and loses the refusal's meaning. What the client sent
 * before (its first request) is read and dropped, up to a bound. */
void fds_refuse(int fd, const char *line, size_t len);
/* Milliseconds until accepting resumes after a pause; 0: not paused. */
int fds_paused_ms(void);

#endif
