/* The control channel between the daemon (warm.c) and a fork server
 * (warm_fork.c): a SOCK_SEQPACKET socket, one byte of kind per message,
 * descriptors in SCM_RIGHTS. */
#ifndef SBX_WARM_MSG_H
#define SBX_WARM_MSG_H

#define WARM_READY "R" /* server -> daemon, once: imports done */
/* The next job's pid 1 -> daemon, on the server's channel: its pidfd, one
 * end of a socket of its own, on which alone its job is sent, and one end
 * of a socket on which the job it forks ahead reports (WARM_FORKED_AHEAD,
 * WARM_AHEAD). */
#define WARM_SPAWNED "S"
/* daemon -> that pid 1, on its own socket: it is in the job's cgroup now
 * (or there are none), so it forks the job, which waits for its
 * descriptors */
#define WARM_PLACED "P"
/* daemon -> that pid 1, after WARM_PLACED: a job's descriptors (WJ_*), which
 * it hands on to the job */
#define WARM_JOB "J"
/* The job forked ahead -> daemon, on its own socket (WARM_SPAWNED's third):
 * first, at once, its pidfd (the daemon gives it the normal priority
 * before its job); then, once its tree is built and its rehearsal done,
 * that it waits for its descriptors. It closes the socket then. */
#define WARM_FORKED_AHEAD "F"
#define WARM_AHEAD "A"
#define WARM_DONE "D" /* (tests) */

/* A job's descriptors, in this order; the last two only for test runs. */
enum {
	WJ_SPEC,   /* sealed memfd: the job's description */
	WJ_STATUS, /* jail_msg records to the daemon (the reaper writes the status) */
	WJ_NET,	   /* the server's pooled network namespace (nsfs) to join, or
		    * anything else (a pipe): none, the job makes its own */
	WJ_STDIN,
	WJ_STDOUT,
	WJ_STDERR,
	WJ_NOTIFY, /* the seccomp listener goes back here */
	WJ_COUNT_PLAIN,
	WJ_RESULT = WJ_COUNT_PLAIN,
	WJ_KEY,
	WJ_COUNT
};

/* Sends kind with n descriptors; 0 or -1. */
int warm_msg_send(int sock, const char *kind, const int *fds, int n);
/* Waits, without reading it, for the next message on sock: 1 when one is
 * there, 0 when the peer closed (end of file), -1 on an error. The pid 1s
 * of the warm path sleep here until the daemon sends or drops them. */
int warm_msg_await(int sock);
/* Receives one message of kind with up to max descriptors (close-on-exec);
 * the number received, or -1 (another kind, a short message, or more
 * descriptors than max: all closed). */
int warm_msg_recv(int sock, const char *kind, int *fds, int max);

/* libsbxwarm.so's entry points, called from the server's Python
 * (sbx_runner/warm.py) through ctypes (warm_fork.c). */
int warmfork_ready(int runner);
int warmfork_spawn(void);
int warmfork_waiting(void);
int warmfork_learn(int fd);
int warmfork_calibrated(int fd);
int warmfork_job(void);

#endif
