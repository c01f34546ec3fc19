/* Fork servers, from the daemon's side (docs/architecture.md, "The warm
 * path"): start one in a jail of its own, see that it is ready, fork a job
 * from it, and stop it. Which servers a slot keeps is the run component's
 * choice (run/run_warm.c). */
#ifndef SBX_WARM_H
#define SBX_WARM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sandboxd/jail/warm_net.h"

struct jail_spec;
struct jail_cgroup;

struct warm_server {
	pid_t zpid; /* the server's init, the daemon's child; 0: none */
	int zpidfd, ctl, status_r;
	bool ready; /* the server said its imports are done */
	/* The next job's pid 1, waiting for it (its pidfd; pid as the daemon
	 * sees it), or -1: the server sends one after each job. a_ch is that
	 * pid 1's own channel, where its job goes: a job sent to a pid 1 that
	 * dies unread dies with its socket, and never reaches the next pid 1,
	 * which the daemon has not yet put into a job cgroup. */
	int a_pidfd, a_ch;
	pid_t a_pid;
	bool a_placed; /* told so: it forked the job ahead (warm_place) */
	bool a_ahead;  /* the job forked ahead said it is ready (warm_ahead) */
	/* That job's socket (WARM_AHEAD), and its pidfd and pid once it sent
	 * them (right after its fork): it runs at low priority until the
	 * daemon gives it its job. */
	int b_ch, b_pidfd;
	pid_t b_pid;
	bool a_broken; /* it sent anything else: no job goes there */
	unsigned jobs; /* forked from it so far */
	/* The network namespace its jobs join, one at a time (warm_net.h);
	 * the caller makes it and checks it after each job. */
	struct warm_net net;
	uint64_t started_ns; /* when its init was cloned (monotonic) */
};

/* Descriptors a server holds in the daemon at most: the seven above, and
 * its pooled network namespace with its files. */
#define WARM_FDS_PER_SERVER (7 + 1 + WARM_NET_FILES)

/* No server: every descriptor -1 (0 is one). */
void warm_init(struct warm_server *w);
/* Starts a server from a spec with zygote set: clones its init into fresh
 * namespaces, attaches it to cg (NULL: none), writes the id maps of its
 * user namespace (uid 0 inside = the spec's server_uid; its job uid to
 * itself) and lets it exec the interpreter. Returns once the interpreter
 * starts; readiness (its imports) comes later, see warm_ready. */
int warm_start(struct warm_server *w, const struct jail_spec *s, const struct jail_cgroup *cg,
	       int lib_fd, char *err, size_t errlen);
/* Without blocking: true once the server reported ready and is alive. */
bool warm_ready(struct warm_server *w);
/* True when the server's init has exited (the server is gone). */
bool warm_dead(const struct warm_server *w);
/* The same, waiting at most ms for it to end. */
bool warm_ends_within(const struct warm_server *w, int ms);
/* Kills the server (its whole PID namespace with it) and reaps its init. */
void warm_stop(struct warm_server *w);
/* Takes the next job's pid 1 once the server sent it, waiting at most ms:
 * 0 (w->a_pid, w->a_pidfd, w->a_ch set), or -1 (none yet, or the server failed:
 * warm_dead says which). */
int warm_prepare(struct warm_server *w, int ms);
/* Tells the prepared pid 1 it is in the next job's cgroup (or that there
 * are none): it forks the job ahead, which waits for its descriptors, so
 * the fork is not on the job's path. -1: no pid 1, or it is gone. */
int warm_place(struct warm_server *w);
/* Without blocking: true once the job the prepared pid 1 forked ahead said
 * it waits for its job (its tree built, its rehearsal done). */
bool warm_ahead(struct warm_server *w);
/* Hands the prepared pid 1 a job's descriptors (WJ_* of warm_msg.h, n of
 * them; WJ_NET becomes the pooled network namespace when there is one),
 * placing it first if that was not done; they go on to the job, which
 * applies its layers at once: the pid 1 must be in the job's cgroup with
 * its limits written. The pidfd and pid go to the caller. -1: the server
 * failed; stop it. */
int warm_spawn(struct warm_server *w, const int *fds, int n, int *pidfd, pid_t *pid);
/* The server's resident memory in KiB, or -1. */
long warm_rss_kb(const struct warm_server *w);

#endif
