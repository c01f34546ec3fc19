/* A request's way through the run component: a plain run, or the plan of
 * runs of a test request (plan.c); each run's evidence becomes a verdict
 * (verdict.c) and the response is built once (response.c). */
#include "sandboxd/run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/run/run_priv.h"

/* A seeded plain run is a "main" job: no interpreter option seeds random
 * and numpy before the program, the runner does (PYTHONHASHSEED comes with
 * it), and the program keeps its name, /work/main.py. */
static void run_plain_one(const struct config *cfg, int slot, const struct job *j,
			  struct run_facts *f)
{
	char key[REC_KEY_LEN + 1];
	struct run_in in = {0};
	if (j->req.seed < 0) {
		run_one(cfg, slot, j, NULL, f);
	} else if (run_main_in(&in, key, "/work/main.py", j->req.seed)) {
		run_one(cfg, slot, j, &in, f);
	} else {
		memset(f, 0, sizeof *f);
		f->r.violation_nr = -1;
		snprintf(f->error, sizeof f->error, "cannot prepare the seeded run");
	}
	free((char *)in.job_json);
}

static json_t *run_plain(const struct config *cfg, int slot, const struct job *j)
{
	struct run_facts f;
	struct run_verdict v;
	struct run_timing t;
	run_timing_begin(&t, j);
	run_plain_one(cfg, slot, j, &f);
	run_timing_add(&t, &f, NULL);
	json_t *resp = NULL;
	if (!f.r.cancelled) {
		verdict_run(&f, &v);
		struct response_in in = {.rep = &f, .verdict = &v, .timing = &t};
		resp = response_build(cfg, j, &in);
	}
	run_facts_free(&f);
	return resp;
}

json_t *run_request(const struct config *cfg, int slot, const struct job *j)
{
	if (j->req.format == FMT_NONE)
		return run_plain(cfg, slot, j);
	if (j->req.format == FMT_STDIO)
		return plan_stdio(cfg, slot, j);
	return plan_runner(cfg, slot, j);
}
