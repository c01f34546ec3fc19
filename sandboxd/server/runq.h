/* The bounded job queue between the socket loop and the workers, and the
 * registry of running jobs that cancellation needs. */
#ifndef SBX_RUNQ_H
#define SBX_RUNQ_H

#include <stddef.h>
#include <stdint.h>

#include "common/protocol.h"
#include "sandboxd/policy/profile.h"

struct job {
	uint64_t conn_id;
	struct proto_request req;
	const struct profile *prof;
	struct proto_limits lim;
	int cancel_fd; /* eventfd: readable once the job's client is gone */
	/* Set by post_prepare at enqueue: what answering needs, so that the
	 * answer never depends on an allocation (post.h). */
	void *post_node;
	char *fallback_line;
	struct job *next;
};

struct runq;

struct runq *runq_new(size_t capacity);
void runq_free(struct runq *q);
/* Takes ownership of j on success; -1 when the queue is full or shut down. */
int runq_push(struct runq *q, struct job *j);
/* Blocks for the next job (now counted as running); NULL after shutdown. */
struct job *runq_pop(struct runq *q);
/* The worker finished j: it leaves the running set; the caller frees it. */
void runq_done(struct runq *q, struct job *j);
/* The client of conn_id went away: its queued jobs are dropped and its
 * running jobs are told to stop. */
void runq_cancel_conn(struct runq *q, uint64_t conn_id);
/* Wakes every waiting worker and cancels everything queued or running;
 * each of those jobs is first passed to `each` (may be NULL) so its client
 * can be told. */
void runq_shutdown(struct runq *q, void (*each)(const struct job *j, void *ctx), void *ctx);
void runq_counts(struct runq *q, size_t *queued, size_t *running);

struct job *job_new(void);
void job_free(struct job *j);

#endif
