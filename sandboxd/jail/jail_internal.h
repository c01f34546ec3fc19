/* What passes between the daemon's side of a job (jail.c's clone child,
 * supervise.c) and the job's init (sandboxd-init: jail_child.c, jail_wire.c). */
#ifndef SBX_JAIL_INTERNAL_H
#define SBX_JAIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct jail_spec;

/* The descriptors sandboxd-init starts with, at fixed numbers (the clone
 * child places them before the execve; one that does not exist is closed).
 * Nothing else is open in the init. */
enum {
	JFD_STDIN = 0,	/* the payload's stdin pipe */
	JFD_STDOUT = 1, /* the job's output pipes */
	JFD_STDERR = 2,
	JFD_STATUS = 3, /* jail_msg records to the daemon */
	JFD_SYNC = 4,	/* one byte from the daemon: "you are in your cgroup, go" */
	JFD_SPEC = 5,	/* sealed memfd: the job's description (jail_wire.c) */
	JFD_NOTIFY = 6, /* the payloads send their seccomp listeners here */
	JFD_RESULT = 7, /* test runs: the runner's result channel */
	JFD_KEY = 8,	/* test runs: the runner's key channel */
	JFD_PARENT = 9, /* pidfd of the daemon, to see it died before PDEATHSIG was re-set */
	JFD_COUNT
};

struct jail_child {
	const struct jail_spec *spec;
	int sync_rd;
	int status_wr; /* never reaches the payload's exec */
	int stdin_rd, stdout_wr, stderr_wr;
	int notify_wr;
	int result_wr; /* test runs: becomes fd 3 of the payload, else -1 */
	int key_rd;    /* test runs: becomes fd 4 of the payload, else -1 */
	int spec_fd;   /* daemon side: the memfd handed to the init */
	int peer_sock; /* in the init, peer mode: the main payload's end (its fd 5) */
	/* In the init: the mapped description the spec points into, unmapped
	 * once the payloads are forked (they keep their own mappings until
	 * their exec), so the job's code, files and tests are not held for the
	 * job's whole life; NULL: nothing to unmap. */
	void *blob;
	size_t blob_len;
};

/* USERNS: a fork server's init has made its user namespace and waits for
 * the daemon to write its id maps (warm.c). */
/* FORKED: a warm job, forked, on the monotonic clock (ns), before its
 * layers: only for the response's timing. */
enum { JAIL_MSG_ERROR = 1, JAIL_MSG_STATUS = 2, JAIL_MSG_USERNS = 3, JAIL_MSG_FORKED = 4 };

/* Fixed-size records, smaller than PIPE_BUF so each write is atomic. The
 * layout is the same whatever C library built the writer: the warm job's
 * reaper (sandboxd-reaper) is built against musl, whose struct rusage is
 * larger than glibc's, so the payload's usage travels as fixed-width
 * fields (jail_msg_set_usage, jail_msg_usage) and the size is checked
 * where each side is compiled. */
struct jail_msg {
	int kind;
	int err;    /* errno of the failed step */
	int status; /* the payload's wait status */
	char text[64];
	int64_t utime_us, stime_us, maxrss_kb; /* STATUS: the payload's rusage */
	uint64_t ns;			       /* FORKED */
};
_Static_assert(sizeof(struct jail_msg) == 112, "jail_msg's layout is the protocol");

/* The payload's usage into a STATUS record, and back out of one. */
void jail_msg_set_usage(struct jail_msg *m, const struct rusage *ru);
void jail_msg_usage(const struct jail_msg *m, struct rusage *ru);
/* Writes the STATUS record of a payload's end: its wait status and usage
 * (one write: records are smaller than PIPE_BUF). */
void jail_msg_send_status(int fd, int status, const struct rusage *ru);
/* A pid 1's last loop (the job's init, a warm job's reaper): reaps every
 * child until payload ends, reports its STATUS on fd and exits 0, which
 * makes the kernel kill whatever is left of the PID namespace. With no
 * child left to wait for it reports lost (an ERROR record) and exits 1. */
_Noreturn void jail_msg_reap(int fd, pid_t payload, const char *lost);

/* The clone() child of jail_run, still a copy of the daemon: places the
 * descriptors at their JFD_ numbers and execs sandboxd-init at once. */
int jail_exec_init(void *arg);
/* The init binary's descriptor (jail_init_open), for the pooled network
 * namespaces' maker (warm_net.c); -1 before it is open. */
int jail_init_fd(void);
/* The reaper's binary for fork servers, which exec it as each job's pid 1:
 * sandboxd-reaper's descriptor (jail_reaper_open), else the init's; -1
 * before either is open. */
int jail_reaper_fd(void);

/* Reports a failed step on the status pipe; the message names the step. */
void jail_report_error(int fd, const char *step);

/* In the init: the ordered layers from the cgroup namespace on, the
 * payload(s), and the reaping loop. Never returns. */
_Noreturn void jail_child_main(const struct jail_child *c);

/* In sandboxd-init: a fork server's init (spec->zygote; zygote.c). Never
 * returns. */
_Noreturn void zygote_main(const struct jail_child *c);
/* setsid, an empty signal mask, every signal at its default (jail_child.c). */
void jail_payload_start(int st);
/* The reaper a fork server starts as pid 1 of each job's PID namespace
 * (reaper.c): the program sandboxd-reaper, or sandboxd-init with
 * SANDBOXD_INIT=reaper in its environment where the daemon found no
 * sandboxd-reaper. It is exec'd before its job comes, with the daemon's
 * channel for that job on fd 3 and the channel to the job forked ahead on
 * fd 4; it hands the job's descriptors on, keeps the status pipe (as fd 3)
 * and reaps. It exits REAPER_STOP when the daemon closed the channel
 * before a job came (the server then stops) and REAPER_FAILED when it
 * could not hand a job on (the server is rebuilt); 0 once it reported the
 * status. Never returns. */
enum { REAPER_CH = 3, REAPER_BC = 4, REAPER_STOP = 2, REAPER_FAILED = 127 };
_Noreturn void reaper_main(void);
/* A fork server's pooled network namespace's maker (SANDBOXD_INIT=netns;
 * warm_net.c). It and the daemon's child that starts it report one of
 * these bytes on the ready pipe, then errno unless NETNS_READY. */
enum { NETNS_READY, NETNS_JOIN_USERNS, NETNS_UNSHARE, NETNS_LO };
_Noreturn void zygote_net_main(void);

/* The job's description as one blob (jail_wire.c): everything the init
 * needs but the key (its own pipe) and stdin (its own pipe). */
void *jail_wire_encode(const struct jail_spec *s, size_t *len);
/* Rebuilds spec (and the job and filter it points to) from a blob that
 * must stay mapped; pointers lead into it or into malloc'd arrays. Every
 * length and count is checked against the blob. -1 on a malformed blob. */
int jail_wire_decode(const void *blob, size_t len, struct jail_spec *spec);
/* The description the daemon wrote into the sealed memfd fd (a job's, or
 * a fork server's own), mapped read-only and decoded into spec, which
 * points into the mapping (*blob, *len) from then on. NULL, or the step
 * that failed, with errno set (EPROTO: empty or not sealed). */
const char *jail_wire_map(int fd, struct jail_spec *spec, void **blob, size_t *len);
/* The same, but a description of at most cap bytes is read into buf
 * instead (*mapped false, *blob = buf): no mapping to make and remove,
 * each of which costs tens of microseconds on a virtual machine whose
 * page tables are shadowed. A larger one is mapped (*mapped true). */
const char *jail_wire_load(int fd, void *buf, size_t cap, struct jail_spec *spec, void **blob,
			   size_t *len, bool *mapped);
/* The encoded description in a sealed memfd (close-on-exec), or -1. */
int jail_wire_memfd(const struct jail_spec *s);
/* Frees what a successful decode allocated (tests; the init never does). */
void jail_wire_free(struct jail_spec *spec);

#endif
