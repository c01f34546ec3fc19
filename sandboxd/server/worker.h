/* Workers: each runs one job at a time in its own slot (its own uid). */
#ifndef SBX_WORKER_H
#define SBX_WORKER_H

#include "sandboxd/config.h"
#include "sandboxd/server/runq.h"

/* Called with each finished job and its response line (ownership passes;
 * NULL when the response could not be built). */
typedef void (*worker_post_fn)(struct job *j, char *line);

int workers_start(const struct config *cfg, struct runq *q, worker_post_fn post);
/* Waits up to timeout_ms in all for the workers to finish (after
 * runq_shutdown cancelled their jobs). A worker still busy then is logged
 * with the job it holds and abandoned; returns how many were. */
int workers_join(int timeout_ms);

#endif
