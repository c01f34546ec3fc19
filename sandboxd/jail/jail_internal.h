/* What passes between jail.c (the job's processes) and supervise.c (the
 * daemon's side of the same job). */
#ifndef SBX_JAIL_INTERNAL_H
#define SBX_JAIL_INTERNAL_H

#include <sys/resource.h>

struct jail_spec;

struct jail_child {
	const struct jail_spec *spec;
	int sync_rd;   /* one byte from the daemon: "you are in your cgroup, go" */
	int status_wr; /* jail_msg records to the daemon; never reaches the payload's exec */
	int stdin_rd, stdout_wr, stderr_wr;
	int notify_wr; /* the payload sends its seccomp listener fd here */
	int result_wr; /* test runs: becomes fd 3 of the payload, else -1 */
	int key_rd;    /* test runs: becomes fd 4 of the payload, else -1 */
	/* Process isolation (made by the init): the socketpair between the main
	 * payload (its fd 5) and the peer (its fd 3); -1 without a peer. */
	int peer_main, peer_cand;
};

enum { JAIL_MSG_ERROR = 1, JAIL_MSG_STATUS = 2 };

/* Fixed-size records, smaller than PIPE_BUF so each write is atomic. */
struct jail_msg {
	int kind;
	int err;    /* errno of the failed step */
	int status; /* the payload's wait status */
	char text[64];
	struct rusage ru;
};

#endif
