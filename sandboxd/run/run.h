/* The run component: one request from a worker to its final response. It is
 * the only owner of a run's cgroup and the only place a verdict is decided
 * (docs/architecture.md). */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <jansson.h>

#include "sandboxd/config.h"
#include "sandboxd/server/runq.h"

/* Runs every run the request needs (one, or a compile step and one per stdio
 * case) and returns its response, built once from final values; NULL when
 * the job was cancelled (client gone or daemon stopping). */
json_t *run_request(const struct config *cfg, int slot, const struct job *j);

/* The warm path (run_warm.c): the slots' fork servers, made once at start
 * (init), started by each worker for its slot before its first job
 * (start: jobs run cold until they are ready), looked after while the
 * worker waits for jobs (pending: some still importing; poll: notes which
 * are ready, rebuilds one that died), and stopped when it ends (stop).
 * ready: how many servers are ready, their resident KiB together in
 * *rss_kb, and in *kept how many the workers keep (any thread may ask). */
int run_warm_init(const struct config *cfg);
void run_warm_start(const struct config *cfg, int slot);
bool run_warm_pending(const struct config *cfg, int slot);
/* Whether the slot could start a job at once: each of its ready servers has
 * a job forked ahead that said it waits (or took longer than it should);
 * always true on the cold path. */
bool run_warm_ahead(const struct config *cfg, int slot);
void run_warm_poll(const struct config *cfg, int slot);
void run_warm_stop(int slot);
long run_warm_ready(long *rss_kb, long *kept);
/* Descriptors a slot's fork servers hold in the daemon at most, with those
 * of one server or namespace being made (fds.c keeps them in reserve). */
size_t run_warm_fds_per_slot(void);

/* What a job of each profile finds (run_probe.c): probe runs one cold job
 * per profile that reports its interpreter's version and the
 * distributions it can import (slot 0's worker, when it first finds no job
 * waiting);
 * json answers ping's "profiles" from what is known so far (any thread;
 * NULL without memory). */
void run_probe(const struct config *cfg, int slot);
json_t *run_probe_json(const struct config *cfg);

/* Each slot's job cgroups (run_cgpool.c): init once; idle, by the worker
 * after each response is handed over: removes the last job's cgroup and
 * makes the next one; drop, when the worker ends. */
int run_cgpool_init(int slots);
void run_idle(const struct config *cfg, int slot);
void run_cgpool_drop(int slot);

#endif
