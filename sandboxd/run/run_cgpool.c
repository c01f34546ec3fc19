/* Each slot's next job cgroup, made while the slot is idle, and its last
 * one, removed then: making and removing cgroups (several directories on
 * v1, each a kernel object with per-CPU state) is the largest part of a
 * warm job's set-up, and neither needs to be on a job's path. A spare has
 * no limit and no process until a run takes it (cg_job_limit), so it is a
 * fresh cgroup like any: its counters start at zero. (A fork server's next
 * job's cgroup, run_warm.c, gets the last job's limits ahead.) Each slot's
 * state is its worker's alone. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sandboxd/run/run.h"
#include "sandboxd/run/run_priv.h"

struct cgpool {
	struct cg_job next, done;
	bool have_next, have_done;
};

static struct cgpool *g_pool;
static int g_npool;
static atomic_uint_fast64_t g_seq;

void run_cgpool_limits(const struct job *j, struct cg_limits *cl)
{
	*cl = (struct cg_limits){.memory_bytes = (uint64_t)j->lim.memory_mb << 20,
				 .pids = (uint64_t)j->lim.pids,
				 .cpus = (uint64_t)j->lim.cpus};
}

int run_cgpool_init(int slots)
{
	g_npool = slots;
	g_pool = calloc((size_t)slots, sizeof *g_pool);
	return g_pool ? 0 : -1;
}

int run_cgpool_name(const struct config *cfg, int slot, char *name, size_t len)
{
	int n = snprintf(name, len, "%s-%d-%" PRIuFAST64, cfg->cg.instance, slot,
			 atomic_fetch_add(&g_seq, 1));
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int run_cgpool_take(const struct config *cfg, int slot, const struct cg_limits *l, struct cg_job *j,
		    char *err, size_t errlen)
{
	struct cgpool *p = slot < g_npool && g_pool ? &g_pool[slot] : NULL;
	if (p && p->have_next) {
		p->have_next = false;
		*j = p->next;
		if (cg_job_limit(j, l, err, errlen) == 0)
			return 0;
		cg_job_destroy(j);
	}
	char name[64];
	if (run_cgpool_name(cfg, slot, name, sizeof name) < 0) {
		snprintf(err, errlen, "cgroup name too long");
		return -1;
	}
	return cg_job_create(&cfg->cg, name, l, j, err, errlen);
}

void run_cgpool_retire(int slot, struct cg_job *j)
{
	struct cgpool *p = slot < g_npool && g_pool ? &g_pool[slot] : NULL;
	if (!p) {
		cg_job_destroy(j);
		return;
	}
	if (p->have_done)
		cg_job_destroy(&p->done);
	p->done = *j;
	p->have_done = true;
}

void run_idle(const struct config *cfg, int slot)
{
	struct cgpool *p = slot < g_npool && g_pool ? &g_pool[slot] : NULL;
	if (!p || cfg->cg.version == CG_NONE)
		return;
	if (p->have_done) {
		cg_job_destroy(&p->done);
		p->have_done = false;
	}
	char name[64], err[256];
	if (!p->have_next && run_cgpool_name(cfg, slot, name, sizeof name) == 0)
		p->have_next = cg_job_make(&cfg->cg, name, &p->next, err, sizeof err) == 0;
}

void run_cgpool_drop(int slot)
{
	struct cgpool *p = slot < g_npool && g_pool ? &g_pool[slot] : NULL;
	if (!p)
		return;
	if (p->have_done)
		cg_job_destroy(&p->done);
	if (p->have_next)
		cg_job_destroy(&p->next);
	p->have_done = p->have_next = false;
}
