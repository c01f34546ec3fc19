/* The bounded job queue between the socket loop and the workers, and the
 * registry of running jobs that cancellation needs.
 *
 * Jobs wait per peer, a peer being a (uid, tenant) pair: FIFO within a peer,
 * round-robin between peers (the peer served least recently goes first), so
 * a peer with a hundred jobs queued delays another peer's job by at most one
 * pick. A job starts only when its memory fits the budget next to the jobs
 * already running; the job picked waits for it and nothing overtakes it, so
 * a large job is never starved by a stream of small ones. */
#ifndef SBX_RUNQ_H
#define SBX_RUNQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/protocol.h"
#include "sandboxd/policy/profile.h"

struct runq_peer;

struct job {
	uint64_t conn_id;
	uid_t uid;	/* the client's (SO_PEERCRED); with req.tenant, the job's peer */
	long memory_mb; /* what the job holds against the memory budget while it runs */
	size_t bytes;	/* its request line's length: what it holds against the queue's bytes */
	struct proto_request req;
	const struct profile *prof;
	struct proto_limits lim;
	int cancel_fd; /* eventfd: readable once the job's client is gone */
	/* Monotonic instants (ns) for the response's "timing": the request line
	 * complete, the job queued, a worker taking it. */
	uint64_t received_ns, queued_ns, popped_ns;
	/* Set by post_prepare at enqueue: what answering needs, so that the
	 * answer never depends on an allocation (post.h). */
	void *post_node;
	char *fallback_line;
	struct runq_peer *peer; /* set by runq_push */
	struct job *next;
};

struct runq_limits {
	size_t capacity;       /* jobs waiting, all peers together */
	size_t per_peer;       /* jobs waiting per peer; 0: only the capacity */
	size_t bytes;	       /* request bytes waiting, all peers together; 0: no bound */
	long memory_budget_mb; /* sum of memory_mb of running jobs; <= 0: none */
};

enum runq_push_result {
	RUNQ_OK = 0,
	RUNQ_FULL = -1,	     /* the queue is full (jobs or bytes), or shut down */
	RUNQ_PEER_FULL = -2, /* this peer has per_peer jobs waiting */
	RUNQ_TOO_BIG = -3,   /* memory_mb above the whole budget: it could never start */
	RUNQ_NOMEM = -4,
	RUNQ_PEER_BYTES = -5, /* this peer's waiting requests hold half of bytes */
};

struct runq *runq_new(const struct runq_limits *lim);
void runq_free(struct runq *q);
/* Takes ownership of j on RUNQ_OK; otherwise j is untouched. */
int runq_push(struct runq *q, struct job *j);
/* Blocks for the next job (now counted as running); NULL after shutdown. */
struct job *runq_pop(struct runq *q);
/* The same, waiting at most ms (< 0: no bound): NULL with *timed_out set
 * when none came in time, so a worker can look after its slot meanwhile.
 * ready: the worker could start the job at once (its job forked ahead is
 * waiting); one that is not takes a job only while no ready worker
 * waits, so jobs sent back to back go to a slot that is ready for them. */
struct job *runq_pop_until(struct runq *q, int ms, bool ready, bool *timed_out);
/* The worker finished j: it leaves the running set and gives back its
 * memory; the caller frees it. */
void runq_done(struct runq *q, struct job *j);
/* The client of conn_id went away: its queued jobs are dropped and its
 * running jobs are told to stop. */
void runq_cancel_conn(struct runq *q, uint64_t conn_id);
/* Wakes every waiting worker and cancels everything queued or running;
 * each of those jobs is first passed to `each` (may be NULL) so its client
 * can be told. */
void runq_shutdown(struct runq *q, void (*each)(const struct job *j, void *ctx), void *ctx);
void runq_counts(struct runq *q, size_t *queued, size_t *running);
/* The memory of the running jobs, MiB (what the budget is holding). */
long runq_memory_admitted(struct runq *q);
/* How many jobs the peer of (uid, tenant) has waiting. */
size_t runq_peer_queued(struct runq *q, uid_t uid, const char *tenant);

struct job *job_new(void);
void job_free(struct job *j);

#endif
