/* One jail run of a job in a fresh cgroup, and the response fields every
 * run has. Test requests (testrun.c) are built from one or more of these. */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <jansson.h>

#include "config.h"
#include "jail.h"
#include "runq.h"

struct run_params {
	const char *stdin_data; /* NULL: the request's stdin */
	size_t stdin_len;
	const char *job_json; /* non-NULL: run the in-jail runner on this job */
	size_t job_len;
	const char *key;
	long long seed;
	const struct jail_hooks *hooks;
};

struct run_out {
	struct jail_result r;
	struct cg_stats st;
	bool have_stats, have_cg;
	enum proto_verdict v;
	enum proto_limit_hit hit;
	char msg[256];
};

void run_once(const struct config *cfg, int slot, const struct job *j, const struct run_params *p,
	      struct run_out *o);
void run_out_free(struct run_out *o);

/* The fields of a plain run's response (id, verdict, output, usage, limits,
 * limit_hit, violation, message, enforcement). */
json_t *response_base(const struct config *cfg, const struct job *j, const struct run_out *o);
json_t *response_usage(uint64_t cpu_ms, uint64_t wall_ms, uint64_t memory_kb);
void run_usage(const struct run_out *o, uint64_t *cpu_ms, uint64_t *wall_ms, uint64_t *mem_kb);

/* Test requests: a whole response, or NULL when the client went away. */
json_t *testrun_runner(const struct config *cfg, int slot, const struct job *j);
json_t *testrun_stdio(const struct config *cfg, int slot, const struct job *j);

#endif
