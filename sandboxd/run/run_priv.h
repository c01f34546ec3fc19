/* What the files of the run component share: the evidence of one run, the
 * verdict made of it, and the response built from final values. */
#ifndef SBX_RUN_PRIV_H
#define SBX_RUN_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/protocol.h"
#include "sandboxd/config.h"
#include "sandboxd/feedback/feedback.h"
#include "sandboxd/jail/cgroup.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/server/runq.h"

/* Room left in a response (--max-response-mb) for what is not output: a
 * plain run's fields take about 600 bytes. */
#define RUN_RESPONSE_HEADROOM (256u << 10)

/* How one run differs from a plain run of the request. */
struct run_in {
	const char *stdin_data; /* NULL: the request's stdin */
	size_t stdin_len;
	const char *job_json; /* non-NULL: run the in-jail runner on this job */
	size_t job_len;
	const char *key;
	long long seed;
	/* A "main" job: the runner runs /work/main.py, written as for a plain
	 * run (a stdio case, a seeded plain run). */
	bool main_py;
	const struct jail_hooks *hooks;
	long cpu_ms, wall_ms; /* > 0: this run's own limits (a stdio case's share) */
	/* isolation "process": the runner is the grader, and the candidate runs
	 * beside it in a second payload under the slot's peer uid. */
	bool isolate;
	/* The daemon's own probe (run_probe.c): never forked from a fork
	 * server (its profile must not take the slot's servers), and run as
	 * the slot's second uid, which no process of the idle slot holds, so
	 * nothing that watches the job uids takes it for a job. */
	bool probe;
};

/* run_main.c: in becomes a "main" job's (the runner runs /work/main.py, its code
 * compiled under filename, seeded when seed >= 0); in->job_json is the
 * caller's to free. false without memory or randomness. */
bool run_main_in(struct run_in *in, char key[REC_KEY_LEN + 1], const char *filename,
		 long long seed);

/* Evidence of one finished run: what the jail saw and what its cgroup
 * counted. Nothing here is a judgement. */
struct run_facts {
	struct jail_result r;
	struct cg_stats st;
	bool have_stats, have_cg;
	bool leftover;	 /* processes remained in the cgroup after the kill (logged) */
	uint64_t end_ns; /* the run is over: reaped, swept, its cgroup removed */
	char error[256]; /* the run could not be set up (cgroup, spec) */
};

struct run_verdict {
	enum proto_verdict v;
	enum proto_limit_hit hit;
	char msg[256];
};

/* run.c: one run in a fresh cgroup: create, attach (through the jail), CPU
 * reads, one kill sweep, stats, removal. */
void run_one(const struct config *cfg, int slot, const struct job *j, const struct run_in *in,
	     struct run_facts *f);
void run_facts_free(struct run_facts *f);
/* CPU (the cgroup's, else the init's rusage), wall and peak memory. */
void run_facts_usage(const struct run_facts *f, uint64_t *cpu_ms, uint64_t *wall_ms,
		     uint64_t *mem_kb);
uint64_t run_rusage_cpu_ms(const struct rusage *ru);

/* run_warm.c: the slot's fork servers. pick: a ready server this job may be
 * forked from, or NULL (run it cold); done: after a warm run, rebuilds a
 * server that failed or grew. */
struct warm_server *run_warm_pick(const struct config *cfg, int slot, const struct job *j,
				  const struct run_in *in, struct cg_job *cg, bool *have_cg);
/* A picked server whose job's cgroup could not take its limits: the server
 * and that cgroup are removed. */
void run_warm_fail(const struct config *cfg, int slot, struct warm_server *w, struct cg_job *cg);
void run_warm_done(const struct config *cfg, int slot, struct warm_server *w);

/* run_cgpool.c: a run's fresh cgroup, made ahead of time when the slot was
 * idle (take), and handed back after its counters are read, to be removed
 * when the slot is idle again (retire). */
int run_cgpool_name(const struct config *cfg, int slot, char *name, size_t len);
/* The cgroup limits of j's runs. */
void run_cgpool_limits(const struct job *j, struct cg_limits *cl);
int run_cgpool_take(const struct config *cfg, int slot, const struct cg_limits *l, struct cg_job *j,
		    char *err, size_t errlen);
void run_cgpool_retire(int slot, struct cg_job *j);

/* fetch.c: the request's fetch_files, read from the job's kept /work:
 * path -> {"base64": …} or {"error": why}; NULL when out of memory. At
 * most fetch_budget() bytes in all (a quarter of --max-response-mb, at
 * most PROTO_FETCH_MAX_BYTES), which run_one keeps free of output. */
size_t fetch_budget(const struct config *cfg);
/* stdio: the response's share for the tests' expected and actual outputs,
 * and as much again for their messages and tracebacks (what each case's
 * program wrote): a quarter of --max-response-mb each, at most
 * PROTO_STDIO_TEXT_TOTAL, counted as the response encodes them (plan.c).
 * A stdio run's output_total leaves room for both (run_one.c). In a file
 * of its own (stdio_budget.c): plan.c and run_one.c both need it, and
 * plan.c calls run_one.c. */
size_t stdio_budget(const struct config *cfg);
json_t *fetch_json(const struct config *cfg, const struct job *j, const struct jail_result *r);

/* verdict.c: every verdict of the daemon. */
void verdict_run(const struct run_facts *f, struct run_verdict *out);
/* What the runner's records add up to, given the run's own verdict (a job
 * limit, a sandbox error): settles every test's outcome; msg keeps the
 * run's message or gets the reason. */
enum proto_verdict verdict_records(struct fb_run *fb, enum proto_verdict run_v, bool watchdog,
				   char *msg, size_t len);
/* A runner request's verdict, as the response states it. */
void verdict_tests(struct fb_run *fb, const struct run_verdict *run, bool watchdog,
		   struct run_verdict *out);
/* stdio: a case's timeout names the limit that was binding: the request's
 * (cpu, wall: what was left of cpu_ms or wall_ms) or the case's own
 * (case_cpu, case_wall). */
void verdict_case_limit(struct run_verdict *rv, const struct proto_limits *lim, bool cpu_is_request,
			bool wall_is_request);
/* stdio: the request's budget was spent before case i could start. */
void verdict_budget_spent(struct run_verdict *acc, const struct proto_limits *lim, bool cpu,
			  size_t i);
/* stdio: folds case i's run verdict into the request's (acc starts as pass). */
void verdict_fold_case(struct run_verdict *acc, const struct run_verdict *rv, bool bad, size_t i);
/* After the last case: a plain failure says what failed (and how many
 * cases were not run). */
void verdict_cases_done(struct run_verdict *acc, const struct fb_run *fb);

/* plan.c: the runs of a test request. */
json_t *plan_runner(const struct config *cfg, int slot, const struct job *j);
json_t *plan_stdio(const struct config *cfg, int slot, const struct job *j);

/* run_timing.c: the response's "timing", phases in order. */
enum run_tm {
	RUN_TM_ACCEPT,
	RUN_TM_QUEUE,
	RUN_TM_SETUP_HOST,
	RUN_TM_FORK,
	RUN_TM_SETUP_JAIL,
	RUN_TM_START,
	RUN_TM_USER_CODE,
	RUN_TM_TESTS,
	RUN_TM_EXIT,
	RUN_TM_RUN,
	RUN_TM_TEARDOWN,
	RUN_TM_RESPONSE,
	RUN_TM_COUNT
};
struct run_timing {
	bool on; /* the request asked for it */
	uint64_t mark;
	bool mark_ok; /* mark is a boundary that was seen */
	uint64_t ns[RUN_TM_COUNT];
	bool have[RUN_TM_COUNT];
	unsigned runs;
};
/* From the line's arrival to a worker taking the job. */
void run_timing_begin(struct run_timing *t, const struct job *j);
/* One run's phases (fb: the runner's records; NULL for a plain run), summed
 * with the request's earlier runs. */
void run_timing_add(struct run_timing *t, const struct run_facts *f, const struct fb_run *fb);
/* The response phase ends now; adds "timing" to resp when t->on. */
void run_timing_json(struct run_timing *t, const struct job *j, json_t *resp);

/* response.c: the response, built once. `rep` supplies output, exit status
 * and the violation; usage is rep's unless `usage` is given (stdio totals);
 * fb adds the test fields. */
struct response_in {
	const struct run_facts *rep;
	const struct run_verdict *verdict;
	const uint64_t *usage; /* cpu_ms, wall_ms, memory_kb; NULL: rep's */
	const struct fb_run *fb;
	struct run_timing *timing; /* NULL: none */
};
json_t *response_build(const struct config *cfg, const struct job *j, const struct response_in *in);

#endif
