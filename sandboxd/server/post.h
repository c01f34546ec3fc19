/* Responses handed from workers to the socket thread. Everything a hand-over
 * needs is allocated when the job is queued (post_prepare), so posting never
 * allocates and never fails: every queued job is answered exactly once, and
 * its connection's pending count always gets back to zero. */
#ifndef SBX_POST_H
#define SBX_POST_H

#include <stdint.h>

#include "sandboxd/server/runq.h"

struct posted {
	uint64_t conn_id;
	char *line;
	struct posted *next;
};

/* At enqueue: the node and a pre-rendered "internal" error line for the
 * job's id. -1 without memory (the request is then refused at once). */
int post_prepare(struct job *j);
/* From a worker: queues line (ownership passes) or, when line is NULL (the
 * response could not be built), the job's pre-rendered error. Wakes the
 * socket thread through wake_fd. */
void post_submit(struct job *j, char *line, int wake_fd);
/* The socket thread takes everything posted so far (a list to free with
 * post_free_list after delivery). */
struct posted *post_take(void);
void post_free_list(struct posted *p);

#endif
