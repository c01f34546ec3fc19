/* The runs of a test request. unittest, humaneval and asserts run the
 * in-jail runner once and trust only what feedback.c validated; stdio
 * compiles in the jail, then runs each case as its own job and compares the
 * output here, outside the jail, where the candidate cannot reach the
 * comparison. Each run's evidence goes to verdict.c, and the response is
 * built once, at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/text.h"
#include "sandboxd/feedback/runner_job.h"
#include "sandboxd/feedback/stdio_match.h"
#include "sandboxd/run/run_priv.h"
#include "common/records.h"

#define CASE_TRACEBACK_MAX 4000

/* Runs the runner once on `format`; fills fb and f. false: cancelled. */
static bool plan_run_runner(const struct config *cfg, int slot, const struct job *j,
			    const char *format, struct fb_run *fb, struct run_facts *f,
			    struct run_timing *t)
{
	char key[REC_KEY_LEN + 1];
	char *job = runner_job_key(key) == 0 ? runner_job_json(&j->req, format) : NULL;
	fb_init(fb, job ? key : "", j->req.test_timeout_ms);
	fb->want_partial = j->req.partial_mode == PM_CONVCODEWORLD;
	if (!job) {
		memset(f, 0, sizeof *f);
		f->r.violation_nr = -1;
		snprintf(f->error, sizeof f->error, "cannot prepare the test job");
		return true;
	}
	struct jail_hooks h = {fb_on_record, fb_deadline, fb};
	struct run_in in = {.job_json = job,
			    .job_len = strlen(job),
			    .key = key,
			    .seed = j->req.seed,
			    .hooks = &h,
			    .isolate =
				j->req.isolation == ISO_PROCESS && strcmp(format, "compile") != 0};
	run_one(cfg, slot, j, &in, f);
	run_timing_add(t, f, fb);
	free(job);
	return !f->r.cancelled;
}

json_t *plan_runner(const struct config *cfg, int slot, const struct job *j)
{
	struct fb_run fb;
	struct run_facts f;
	struct run_verdict rv, final;
	struct run_timing t;
	json_t *resp = NULL;
	run_timing_begin(&t, j);
	if (plan_run_runner(cfg, slot, j, proto_format_name(j->req.format), &fb, &f, &t)) {
		verdict_run(&f, &rv);
		verdict_tests(&fb, &rv, f.r.watchdog, &final);
		struct response_in in = {.rep = &f, .verdict = &final, .fb = &fb, .timing = &t};
		resp = response_build(cfg, j, &in);
	}
	run_facts_free(&f);
	fb_free(&fb);
	return resp;
}

/* s cut (on a character boundary) to what is left of *left as the response
 * encodes it, which it spends: a case's message and traceback are what its
 * program wrote (4,000 bytes of \x01 on stderr are 24 KB of JSON), and
 * 10,000 cases of them must not take the response past --max-response-mb. */
static const char *plan_spend(char *s, size_t *left)
{
	struct text_json_meter m = {0, 0};
	size_t len = strlen(s), n = text_json_meter(&m, s, len, *left, true);
	s[n] = '\0';
	*left -= m.enc;
	return s;
}

/* One case's outcome from its run; *text_left: what its message and
 * traceback may still take of the response. */
static void plan_judge_case(struct fb_run *fb, const struct job *j, size_t i,
			    const struct run_facts *f, const struct run_verdict *rv,
			    size_t *text_left)
{
	const struct proto_case *c = &j->req.cases[i];
	const struct jail_result *r = &f->r;
	char name[32], line[256];
	uint64_t cpu, wall, mem;
	run_facts_usage(f, &cpu, &wall, &mem);
	snprintf(name, sizeof name, "case %zu", i + 1);
	if (rv->v == V_PASS) {
		bool ok = stdio_match_output(r->out ? r->out : "", r->out_len, c->output,
					     c->output_len, j->req.float_tolerance);
		char *diff = ok ? NULL
				: stdio_match_diff(c, r->out, r->out_len, j->req.hide_expected,
						   j->req.visible_chars);
		fb_add_test(fb, name, ok ? OUT_PASSED : OUT_FAILED, ok ? "" : "wrong answer",
			    diff ? plan_spend(diff, text_left) : "", (long)wall);
		free(diff);
	} else if (rv->v == V_RUNTIME_ERROR) {
		char *tb = strndup(r->err ? r->err : "", r->err_len);
		char *trimmed = tb ? text_trim(tb, CASE_TRACEBACK_MAX) : NULL;
		if (r->err_len) {
			stdio_match_last_line(r->err, r->err_len, line, sizeof line);
			plan_spend(line, text_left);
		}
		const char *m = r->err_len ? line : rv->msg;
		fb_add_test(fb, name, OUT_ERROR, m, trimmed ? plan_spend(trimmed, text_left) : "",
			    (long)wall);
		free(tb);
		free(trimmed);
	} else {
		fb_add_test(fb, name, rv->v == V_TIMEOUT ? OUT_TIMEOUT : OUT_ERROR, rv->msg, "",
			    (long)wall);
	}
	/* Whatever the outcome, the harness gets both outputs as data. */
	if (i < fb->ntests)
		fb_set_io(fb, i, c->output, c->output_len, r->out ? r->out : "", r->out_len);
}

/* The compile step failed (or the sandbox did): that is the response. */
static json_t *plan_compile_failed(const struct config *cfg, const struct job *j, struct fb_run *fb,
				   const struct run_facts *f, const struct run_verdict *rv,
				   struct run_timing *t)
{
	struct run_verdict final;
	verdict_tests(fb, rv, false, &final);
	struct response_in in = {.rep = f, .verdict = &final, .fb = fb, .timing = t};
	return response_build(cfg, j, &in);
}

/* What is left of the request's cpu_ms and wall_ms: the compile step and
 * every case draw on them (wall time as the daemon sees it, setup included). */
struct plan_budget {
	uint64_t t0, cpu_used; /* ns since, ms */
};

static long plan_left(const struct plan_budget *b, long limit, bool cpu)
{
	uint64_t used = cpu ? b->cpu_used : (clock_mono_ns() - b->t0) / 1000000u;
	return used >= (uint64_t)limit ? 0 : limit - (long)used;
}

/* Cases from i on are not run (fail_fast, or the budget is spent). */
static void plan_not_run(struct fb_run *fb, const struct job *j, size_t i, const char *why)
{
	for (char name[32]; i < j->req.ncases; i++) {
		snprintf(name, sizeof name, "case %zu", i + 1);
		if (fb_add_test(fb, name, OUT_SKIPPED, why, "", 0) == 0 && i < fb->ntests)
			fb_set_io(fb, i, j->req.cases[i].output, j->req.cases[i].output_len, NULL,
				  0);
	}
}

/* Runs case i within what is left of the budget; false: cancelled. */
static bool plan_run_case(const struct config *cfg, int slot, const struct job *j, size_t i,
			  struct plan_budget *b, struct run_facts *f, struct run_verdict *rv,
			  struct run_timing *t)
{
	const struct proto_limits *l = &j->lim;
	long cpu_left = plan_left(b, l->cpu_ms, true), wall_left = plan_left(b, l->wall_ms, false);
	struct run_in in = {.stdin_data = j->req.cases[i].input,
			    .stdin_len = j->req.cases[i].input_len,
			    .cpu_ms = cpu_left < l->case_cpu_ms ? cpu_left : l->case_cpu_ms,
			    .wall_ms = wall_left < l->case_wall_ms ? wall_left : l->case_wall_ms};
	/* Each case is a "main" job: its tracebacks name the file the compile
	 * step named (solution.py), and a seed applies as to test requests. */
	char key[REC_KEY_LEN + 1];
	if (run_main_in(&in, key, RUNNER_FILENAME, j->req.seed)) {
		run_one(cfg, slot, j, &in, f);
	} else {
		memset(f, 0, sizeof *f);
		f->r.violation_nr = -1;
		snprintf(f->error, sizeof f->error, "cannot prepare the case");
	}
	free((char *)in.job_json);
	run_timing_add(t, f, NULL);
	if (f->r.cancelled)
		return false;
	verdict_run(f, rv);
	verdict_case_limit(rv, l, cpu_left <= l->case_cpu_ms, wall_left <= l->case_wall_ms);
	return true;
}

json_t *plan_stdio(const struct config *cfg, int slot, const struct job *j)
{
	struct fb_run fb;
	struct run_facts f, rep = {.r.violation_nr = -1};
	struct run_verdict rv, acc = {.v = V_PASS};
	struct plan_budget b = {.t0 = clock_mono_ns()};
	struct run_timing t;
	json_t *resp = NULL;
	bool have_rep = false, rep_is_bad = false, cancelled = false;
	run_timing_begin(&t, j);
	if (!plan_run_runner(cfg, slot, j, "compile", &fb, &f, &t)) {
		run_facts_free(&f);
		fb_free(&fb);
		return NULL;
	}
	verdict_run(&f, &rv);
	if (!fb.have_compile || !fb.compile_ok || rv.v != V_PASS) {
		resp = plan_compile_failed(cfg, j, &fb, &f, &rv, &t);
		run_facts_free(&f);
		fb_free(&fb);
		return resp;
	}
	/* CPU summed over the compile step and the cases, memory the peak. */
	/* The tests' expected and actual outputs get a quarter of a response
	 * at most, as fetched files do. */
	fb.io_left = stdio_budget(cfg);
	size_t text_left = stdio_budget(cfg);
	uint64_t usage[3] = {0, 0, 0};
	run_facts_usage(&f, &usage[0], &usage[1], &usage[2]);
	b.cpu_used = usage[0];
	run_facts_free(&f);
	for (size_t i = 0; i < j->req.ncases && !cancelled; i++) {
		bool cpu_spent = plan_left(&b, j->lim.cpu_ms, true) == 0;
		if (cpu_spent || plan_left(&b, j->lim.wall_ms, false) == 0) {
			verdict_budget_spent(&acc, &j->lim, cpu_spent, i);
			plan_not_run(&fb, j, i, "not run: the request's time limit was spent");
			break;
		}
		if ((cancelled = !plan_run_case(cfg, slot, j, i, &b, &f, &rv, &t))) {
			run_facts_free(&f);
			break;
		}
		uint64_t cpu, wall, mem;
		run_facts_usage(&f, &cpu, &wall, &mem);
		b.cpu_used = usage[0] += cpu;
		usage[2] = mem > usage[2] ? mem : usage[2];
		plan_judge_case(&fb, j, i, &f, &rv, &text_left);
		bool bad = fb.tests[i].outcome != OUT_PASSED;
		verdict_fold_case(&acc, &rv, bad, i);
		/* The response's stdout/stderr are those of the first case that did
		 * not pass, else of the last case. */
		if (!rep_is_bad) {
			if (have_rep)
				run_facts_free(&rep);
			rep = f;
			have_rep = true;
			rep_is_bad = bad;
		} else {
			run_facts_free(&f);
		}
		bool whole = rv.v == V_TIMEOUT && (rv.hit == HIT_CPU || rv.hit == HIT_WALL);
		if (whole || (bad && j->req.fail_fast)) {
			plan_not_run(&fb, j, i + 1,
				     whole
					 ? "not run: the request's time limit was spent"
					 : "not run: fail_fast stopped at the first failing case");
			break;
		}
	}
	if (!cancelled) {
		usage[1] = (clock_mono_ns() - b.t0) / 1000000u;
		fb.done = true;
		verdict_cases_done(&acc, &fb);
		struct response_in in = {
		    .rep = &rep, .verdict = &acc, .usage = usage, .fb = &fb, .timing = &t};
		resp = response_build(cfg, j, &in);
	}
	if (have_rep)
		run_facts_free(&rep);
	fb_free(&fb);
	return resp;
}
