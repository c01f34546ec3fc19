/* Integration tests of `sbx eval` (client/eval.c and friends): ConvCodeWorld's
 * multi-turn loop run against a real sandboxd with fake model commands from
 * tests/eval/ (fake_gen.py logs every generator input it gets, so the tests
 * can say exactly which feedback each setting passed and how often the
 * model was asked). eval_run() is called directly.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/eval/eval.h"
#include "client/eval/eval_priv.h"
#include "client/eval/score.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"

#define TASKS "tests/eval/tasks.jsonl"
#define FAKE_GEN "python3 tests/eval/fake_gen.py"
#define FAKE_VERBAL "python3 tests/eval/fake_verbal.py"

/* One test's daemon, scratch directory and fake-command logs. */
struct env {
	struct test_daemon d;
	char dir[256];
	char glog[300], vlog[300]; /* generator and verbal inputs, one JSON per line */
	char gen[1024], verbal[1024];
};

static void env_start(struct env *e)
{
	memset(e, 0, sizeof *e);
	ck_assert_msg(td_start(&e->d, "--workers", "2", NULL) == 0, "daemon: %s", e->d.err);
	snprintf(e->dir, sizeof e->dir, "/tmp/sbx-eval-test-XXXXXX");
	ck_assert(mkdtemp(e->dir));
	snprintf(e->glog, sizeof e->glog, "%s/gen.log", e->dir);
	snprintf(e->vlog, sizeof e->vlog, "%s/verbal.log", e->dir);
}

static void env_end(struct env *e)
{
	td_stop(&e->d, 10000);
	td_cleanup(&e->d);
	td_rmtree(e->dir);
}

/* An out dir path inside the scratch directory. */
static const char *sub(const struct env *e, const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 512, "%s/%s", e->dir, name);
	return p;
}

/* Options for a run over tests/eval/tasks.jsonl with fake_gen.py in MODES,
 * fake_verbal.py (ok) and the settings after turns (NULL-terminated). */
static void opts(struct eval_opts *o, struct env *e, const char *out, const char *modes, int turns,
		 ...)
{
	eval_opts_default(o);
	o->socket = e->d.sock;
	o->dataset = TASKS;
	o->format = DS_BIGCODEBENCH;
	snprintf(e->gen, sizeof e->gen, "%s %s '%s'", FAKE_GEN, e->glog, modes);
	snprintf(e->verbal, sizeof e->verbal, "%s %s ok", FAKE_VERBAL, e->vlog);
	o->generator = e->gen;
	o->verbal = e->verbal;
	o->out_dir = out;
	o->turns = turns;
	o->model = "fake/gen-1";
	o->progress = false;
	va_list ap;
	va_start(ap, turns);
	for (const char *s; (s = va_arg(ap, const char *));)
		o->settings[o->nsettings++] = s;
	va_end(ap);
}

static void run_ok(const struct eval_opts *o)
{
	char err[1024] = "";
	ck_assert_msg(eval_run(o, err, sizeof err) == 0, "eval_run: %s", err);
}

/* --- reading the outputs ------------------------------------------------------ */

/* Every line of a JSONL file as one array (an absent file is empty). */
static json_t *load_jsonl(const char *path)
{
	json_t *a = json_array();
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		ck_assert_msg(o, "%s: unparsable line: %.200s", path, line);
		json_array_append_new(a, o);
	}
	free(line);
	if (f)
		fclose(f);
	return a;
}

static json_t *load_turns(const char *out)
{
	char p[600];
	snprintf(p, sizeof p, "%s/turns.jsonl", out);
	return load_jsonl(p);
}

static const char *fb(const json_t *r, const char *k)
{
	return json_string_value(json_object_get(json_object_get(r, "feedback"), k));
}

/* Records (or generator inputs) matching setting/task/turn; NULL or -1 match all. */
static size_t count(const json_t *a, const char *setting, const char *task, int turn)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(a, i, r)
	{
		if ((!setting || streq(sget(r, "setting"), setting)) &&
		    (!task || streq(sget(r, "task_id"), task)) &&
		    (turn < 0 || json_integer_value(json_object_get(r, "turn")) == turn))
			n++;
	}
	return n;
}

static json_t *find(const json_t *a, const char *setting, const char *task, int turn)
{
	size_t i;
	json_t *r;
	json_array_foreach(a, i, r)
	{
		if (streq(sget(r, "setting"), setting) && streq(sget(r, "task_id"), task) &&
		    json_integer_value(json_object_get(r, "turn")) == turn)
			return r;
	}
	return NULL;
}

static json_t *rec(const json_t *a, const char *setting, const char *task, int turn)
{
	json_t *r = find(a, setting, task, turn);
	ck_assert_msg(r, "no record %s %s turn %d", setting, task, turn);
	return r;
}

static bool carried(const json_t *r)
{
	return json_is_true(json_object_get(r, "carried"));
}

/* Every (setting, task, turn) exactly once, turns 0..n for each pair. */
static void assert_complete(const json_t *recs, const char *const *settings, size_t nset,
			    const char *const *tasks, size_t ntask, int turns)
{
	ck_assert_uint_eq(json_array_size(recs), nset * ntask * (size_t)(turns + 1));
	for (size_t s = 0; s < nset; s++)
		for (size_t t = 0; t < ntask; t++)
			for (int k = 0; k <= turns; k++) {
				ck_assert_msg(count(recs, settings[s], tasks[t], k) == 1,
					      "%s %s turn %d recorded %zu times", settings[s],
					      tasks[t], k, count(recs, settings[s], tasks[t], k));
				ck_assert_int_eq(
				    json_integer_value(json_object_get(
					find(recs, settings[s], tasks[t], k), "turns")),
				    turns);
			}
}

/* summary.json's numbers for one setting. */
static void assert_summary(const char *out, const char *setting, size_t tasks, const double *pass,
			   int turns, double mrr, double recall)
{
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", out);
	json_t *j = json_load_file(p, 0, NULL);
	ck_assert_msg(j, "no %s", p);
	json_t *s = json_object_get(json_object_get(j, "settings"), setting);
	ck_assert_msg(s, "summary has no %s", setting);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "tasks")), (json_int_t)tasks);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "turns")), turns);
	json_t *pa = json_object_get(s, "pass_at_1");
	ck_assert_uint_eq(json_array_size(pa), (size_t)turns + 1);
	for (int k = 0; k <= turns; k++)
		ck_assert_msg(fabs(json_number_value(json_array_get(pa, (size_t)k)) - pass[k]) <
				  1e-9,
			      "%s pass@1[%d] = %g, want %g", setting, k,
			      json_number_value(json_array_get(pa, (size_t)k)), pass[k]);
	ck_assert_msg(fabs(json_number_value(json_object_get(s, "mrr")) - mrr) < 1e-9,
		      "%s mrr %g want %g", setting, json_number_value(json_object_get(s, "mrr")),
		      mrr);
	ck_assert_msg(fabs(json_number_value(json_object_get(s, "recall")) - recall) < 1e-9,
		      "%s recall %g want %g", setting,
		      json_number_value(json_object_get(s, "recall")), recall);
	json_decref(j);
}

static const char *const ALL_TASKS[] = {"t/double", "t/negate", "t/square", "t/inc"};

/* --- what each setting passes ---------------------------------------------------- */

START_TEST(test_settings_feedback)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "all");
	/* Right only once execution feedback is non-empty: settings without
	 * EF never fix the code, settings with it fix it at turn 1. */
	opts(&o, &e, out, "exec", 2, NULL);
	size_t nset;
	const struct eval_setting *all = eval_settings(&nset);
	ck_assert_uint_eq(nset, 9);
	for (size_t i = 0; i < nset; i++)
		o.settings[o.nsettings++] = all[i].name;
	const char *tasks[] = {"t/double", "t/negate"};
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	json_t *recs = load_turns(out), *gin = load_jsonl(e.glog), *vin = load_jsonl(e.vlog);
	const char *names[9];
	for (size_t i = 0; i < nset; i++)
		names[i] = all[i].name;
	assert_complete(recs, names, 9, tasks, 2, 2);

	/* Turn 0: exactly the protocol's nine fields, no feedback at all. */
	json_t *g0 = NULL;
	size_t i;
	json_t *g;
	json_array_foreach(gin, i, g)
	{
		if (json_integer_value(json_object_get(g, "turn")) == 0)
			g0 = g;
	}
	ck_assert_ptr_nonnull(g0);
	ck_assert_uint_eq(json_object_size(g0), 9);
	const char *keys[] = {"task_id",
			      "turn",
			      "setting",
			      "prompt",
			      "entry_point",
			      "previous_code",
			      "compilation_feedback",
			      "execution_feedback",
			      "verbal_feedback"};
	for (size_t k = 0; k < 9; k++)
		ck_assert_msg(json_object_get(g0, keys[k]), "turn-0 input lacks %s", keys[k]);
	ck_assert_str_eq(sget(g0, "previous_code"), "");
	ck_assert_str_eq(sget(g0, "compilation_feedback"), "");
	ck_assert_str_eq(sget(g0, "entry_point"), "task_func");
	ck_assert_uint_eq(count(gin, NULL, NULL, 0), 18);

	/* CF and CF_SNF: the wrong code compiles, so it is carried and the
	 * model is never asked again; no novice is asked either. */
	ck_assert_uint_eq(count(gin, "CF", NULL, -1), 2);
	ck_assert_uint_eq(count(gin, "CF_SNF", NULL, -1), 2);
	for (int t = 1; t <= 2; t++) {
		ck_assert(carried(rec(recs, "CF", "t/double", t)));
		ck_assert_str_eq(sget(rec(recs, "CF", "t/double", t), "verdict"), "fail");
		ck_assert(
		    json_is_null(json_object_get(rec(recs, "CF", "t/double", t), "user_message")));
	}
	ck_assert(!carried(rec(recs, "CF", "t/double", 0)));
	ck_assert_str_eq(fb(rec(recs, "CF", "t/double", 0), "execution"), "");

	/* EF settings: turn 1 sees the previous code and its feedback. */
	json_t *u = find(gin, "CF_EF_UNIT", "t/double", 1),
	       *f = find(gin, "CF_EF_FULL", "t/double", 1);
	ck_assert_ptr_nonnull(u);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(sget(u, "compilation_feedback"), "No syntax errors");
	ck_assert_ptr_nonnull(strstr(sget(u, "previous_code"), "return 0"));
	ck_assert_ptr_nonnull(strstr(sget(u, "execution_feedback"), "test_3"));
	ck_assert_ptr_null(strstr(sget(u, "execution_feedback"), "test_4")); /* partial: 3 tests */
	ck_assert_ptr_nonnull(strstr(sget(f, "execution_feedback"), "test_4")); /* full */
	ck_assert_str_eq(sget(u, "verbal_feedback"), "");
	ck_assert_str_eq(sget(f, "verbal_feedback"), "");
	/* Solved at turn 1, so turn 2 is carried and not asked. */
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 1), "verdict"), "pass");
	ck_assert(carried(rec(recs, "CF_EF_FULL", "t/double", 2)));
	ck_assert_uint_eq(count(gin, "CF_EF_FULL", NULL, 2), 0);

	/* Verbal settings: the novice's and the expert's texts reach the model. */
	json_t *sn = find(gin, "CF_EF_UNIT_SNF", "t/double", 1),
	       *se = find(gin, "CF_SEF", "t/double", 1);
	ck_assert_ptr_nonnull(sn);
	ck_assert_ptr_nonnull(se);
	ck_assert_ptr_nonnull(strstr(sget(sn, "verbal_feedback"), "novice says"));
	ck_assert_ptr_null(strstr(sget(sn, "execution_feedback"), "test_4"));
	ck_assert_ptr_nonnull(strstr(sget(se, "verbal_feedback"), "expert says"));
	ck_assert_str_eq(sget(se, "execution_feedback"), ""); /* CF_SEF: no EF */
	/* CF_SEF never gets execution feedback, so fake_gen never fixes it and
	 * is asked at every turn. */
	ck_assert_uint_eq(count(gin, "CF_SEF", NULL, -1), 6);
	ck_assert_str_eq(sget(rec(recs, "CF_SEF", "t/negate", 2), "verdict"), "fail");

	/* What the verbal command saw: the expert has the reference, the novice
	 * not; each sees only its setting's feedback. */
	size_t nnov = 0, nexp = 0;
	json_t *v;
	json_array_foreach(vin, i, v)
	{
		const char *level = sget(v, "level");
		if (streq(level, "novice")) {
			nnov++;
			ck_assert_ptr_null(json_object_get(v, "reference_solution"));
			ck_assert_ptr_nonnull(strstr(sget(v, "execution_feedback"), "test_1"));
		} else {
			ck_assert_str_eq(level, "expert");
			nexp++;
			ck_assert_ptr_nonnull(
			    strstr(sget(v, "reference_solution"), "def task_func"));
			ck_assert_ptr_nonnull(strstr(sget(v, "code"), "return 0"));
		}
	}
	/* Novice: CF_EF_UNIT_SNF and CF_EF_FULL_SNF at turn 0 for 2 tasks (fixed at
	 * turn 1); expert: those two EF settings the same, plus CF_SEF at turns
	 * 0, 1, 2 for 2 tasks. */
	ck_assert_uint_eq(nnov, 4);
	ck_assert_uint_eq(nexp, 4 + 6);
	json_t *r = rec(recs, "CF_SEF", "t/double", 0);
	ck_assert_ptr_nonnull(strstr(fb(r, "verbal"), "expert says"));
	ck_assert_str_eq(fb(r, "execution"), "");
	ck_assert(json_is_null(json_object_get(r, "verbal_error")));
	ck_assert(json_is_null(json_object_get(r, "generator_error")));
	ck_assert_str_eq(sget(r, "mode"), "live");
	ck_assert_str_eq(sget(r, "model"), "fake/gen-1");
	ck_assert_ptr_nonnull(strstr(sget(r, "assistant_message"), "Here you go."));
	ck_assert_str_eq(sget(r, "code"), "def task_func(x):\n    return 0\n");
	ck_assert(json_is_object(json_object_get(r, "usage")));
	ck_assert(json_is_object(json_object_get(r, "summary")));
	ck_assert(json_is_integer(json_object_get(r, "generator_ms")));
	json_decref(recs);
	json_decref(gin);
	json_decref(vin);
	env_end(&e);
}
END_TEST

START_TEST(test_always_regenerate)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *tasks[] = {"t/double", "t/negate"};
	opts(&o, &e, sub(&e, "regen"), "t/double=badutf8,*=turn2", 3, "CF", NULL);
	o.tasks = tasks;
	o.ntasks = 2;
	o.always_regenerate = true;
	run_ok(&o);
	json_t *recs = load_turns(sub(&e, "regen")), *gin = load_jsonl(e.glog);
	/* Asked at every turn while unsolved; t/negate is solved at turn 2. */
	ck_assert_uint_eq(count(gin, "CF", "t/double", -1), 4);
	ck_assert_uint_eq(count(gin, "CF", "t/negate", -1), 3);
	ck_assert(!carried(rec(recs, "CF", "t/double", 3)));
	/* Bytes that are not UTF-8 became U+FFFD; the code still ran. */
	ck_assert_str_eq(
	    sget(rec(recs, "CF", "t/double", 0), "code"),
	    "def task_func(x):\n    return 0  # \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
	ck_assert_str_eq(sget(rec(recs, "CF", "t/double", 0), "verdict"), "fail");
	ck_assert_str_eq(sget(rec(recs, "CF", "t/negate", 2), "verdict"), "pass");
	ck_assert(carried(rec(recs, "CF", "t/negate", 3)));
	json_decref(recs);
	json_decref(gin);
	env_end(&e);
}
END_TEST

/* Partial coverage hides the failing test: the novice, who sees only
 * "Passed all test runs", is not asked; with full coverage it is. */
START_TEST(test_quiet_novice)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "novice");
	const char *one[] = {"t/double"};
	opts(&o, &e, out, "first3", 1, "CF_EF_UNIT_SNF", "CF_EF_FULL_SNF", NULL);
	o.tasks = one;
	o.ntasks = 1;
	run_ok(&o);
	json_t *recs = load_turns(out), *vin = load_jsonl(e.vlog);
	json_t *u = rec(recs, "CF_EF_UNIT_SNF", "t/double", 0);
	json_t *f = rec(recs, "CF_EF_FULL_SNF", "t/double", 0);
	ck_assert_str_eq(sget(u, "verdict"), "fail");
	ck_assert_str_eq(fb(u, "execution"), "Passed all test runs");
	ck_assert_str_eq(fb(u, "verbal"), "");
	ck_assert_ptr_nonnull(strstr(fb(f, "execution"), "test_4"));
	ck_assert_ptr_nonnull(strstr(fb(f, "verbal"), "novice says"));
	ck_assert_uint_eq(json_array_size(vin), 2); /* CF_EF_FULL_SNF turns 0 and 1 */
	json_decref(recs);
	json_decref(vin);
	env_end(&e);
}
END_TEST

/* --- failures of the model commands ----------------------------------------------- */

START_TEST(test_generator_failures)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "fail");
	opts(&o, &e, out, "t/double=fail-turn1,t/negate=empty,t/square=sleep,t/inc=fail", 2,
	     "CF_EF_FULL", NULL);
	o.gen_timeout_ms = 2500; /* python3 starts well within it, even on a busy machine */
	run_ok(&o);
	json_t *recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 2);
	/* Non-zero exit at turn 1: the turn keeps turn 0's code and verdict,
	 * and turn 2 asks again (and is fixed). */
	json_t *r0 = rec(recs, "CF_EF_FULL", "t/double", 0),
	       *r1 = rec(recs, "CF_EF_FULL", "t/double", 1);
	ck_assert_msg(
	    strstr(sget(r1, "generator_error") ? sget(r1, "generator_error") : "", "status 3"),
	    "turn 1: %s", sget(r1, "generator_error"));
	ck_assert_str_eq(sget(r1, "code"), sget(r0, "code"));
	ck_assert_str_eq(sget(r1, "verdict"), "fail");
	ck_assert_str_eq(fb(r1, "execution"), fb(r0, "execution"));
	ck_assert(!carried(r1));
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 2), "verdict"), "pass");
	/* Nothing printed, a timeout, a failure at turn 0: no code, verdict
	 * "error", nothing sent to the daemon, and the next turns go on. */
	const struct {
		const char *task, *why;
	} cases[] = {
	    {"t/negate", "printed nothing"}, {"t/square", "timed out"}, {"t/inc", "status 1"}};
	for (size_t i = 0; i < 3; i++)
		for (int t = 0; t <= 2; t++) {
			json_t *r = rec(recs, "CF_EF_FULL", cases[i].task, t);
			ck_assert_msg(
			    strstr(sget(r, "generator_error") ? sget(r, "generator_error") : "",
				   cases[i].why),
			    "%s turn %d: %s", cases[i].task, t, sget(r, "generator_error"));
			ck_assert_str_eq(sget(r, "code"), "");
			ck_assert_str_eq(sget(r, "verdict"), "error");
			ck_assert(json_is_null(json_object_get(r, "usage")));
		}
	/* A failing verbal command: recorded, and the model gets no verbal text. */
	const char *vout = sub(&e, "verbal-fail");
	opts(&o, &e, vout, "verbal", 1, "CF_EF_FULL_SNF", NULL);
	snprintf(e.verbal, sizeof e.verbal, "%s %s fail", FAKE_VERBAL, e.vlog);
	const char *one[] = {"t/inc"};
	o.tasks = one;
	o.ntasks = 1;
	run_ok(&o);
	json_t *vrecs = load_turns(vout), *gin = load_jsonl(e.glog);
	json_t *v0 = rec(vrecs, "CF_EF_FULL_SNF", "t/inc", 0);
	ck_assert_ptr_nonnull(strstr(sget(v0, "verbal_error"), "status 2"));
	ck_assert_str_eq(fb(v0, "verbal"), "");
	json_t *g1 = find(gin, "CF_EF_FULL_SNF", "t/inc", 1);
	ck_assert_ptr_nonnull(g1);
	ck_assert_str_eq(sget(g1, "verbal_feedback"), "");
	ck_assert_str_eq(sget(rec(vrecs, "CF_EF_FULL_SNF", "t/inc", 1), "verdict"), "fail");
	json_decref(vrecs);
	json_decref(gin);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* --- metrics, traces --------------------------------------------------------------- */

START_TEST(test_summary_and_traces)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "sum");
	opts(&o, &e, out, "t/double=right,t/negate=exec,t/square=turn2,t/inc=wrong", 3, "CF",
	     "CF_EF_FULL", NULL);
	run_ok(&o);
	/* By hand. CF_EF_FULL: double at 0, negate at 1, square at 2, inc
	 * never. CF: only double (the others compile and are carried). */
	const double full[] = {0.25, 0.5, 0.75, 0.75}, cf[] = {0.25, 0.25, 0.25, 0.25};
	assert_summary(out, "CF_EF_FULL", 4, full, 3, (1 + 1.0 / 2 + 1.0 / 3) / 4, 0.75);
	assert_summary(out, "CF", 4, cf, 3, 0.25, 0.25);

	char p[600];
	snprintf(p, sizeof p, "%s/traces.jsonl", out);
	json_t *tr = load_jsonl(p);
	ck_assert_uint_eq(json_array_size(tr), 8);
	size_t i;
	json_t *t;
	bool seen = false;
	json_array_foreach(tr, i, t)
	{
		const char *fields[] = {"conversations",  "agent",	    "model",
					"model_provider", "date",	    "task",
					"episode",	  "run_id",	    "trial_name",
					"result",	  "verifier_output"};
		for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
			ck_assert_msg(json_object_get(t, fields[k]), "trace lacks %s", fields[k]);
		ck_assert_str_eq(sget(t, "agent"), "sbx-eval");
		ck_assert_str_eq(sget(t, "model_provider"), "fake");
		ck_assert_int_eq(strlen(sget(t, "date")), 20); /* 2025-01-01T00:00:00Z */
		if (!streq(sget(t, "task"), "t/square") || !streq(sget(t, "episode"), "CF_EF_FULL"))
			continue;
		seen = true;
		ck_assert_str_eq(sget(t, "trial_name"), "t/square__CF_EF_FULL");
		json_t *res = json_object_get(t, "result");
		ck_assert(json_is_true(json_object_get(res, "solved")));
		ck_assert_int_eq(json_integer_value(json_object_get(res, "first_pass_turn")), 2);
		ck_assert_str_eq(sget(res, "verdict"), "pass");
		/* Turns 0, 1, 2 asked the model; turn 3 was carried. */
		json_t *conv = json_object_get(t, "conversations");
		ck_assert_uint_eq(json_array_size(conv), 6);
		ck_assert_str_eq(sget(json_array_get(conv, 0), "role"), "user");
		ck_assert_str_eq(sget(json_array_get(conv, 1), "role"), "assistant");
		ck_assert_ptr_nonnull(
		    strstr(sget(json_array_get(conv, 2), "content"), "## Execution feedback"));
		ck_assert_ptr_nonnull(strstr(sget(t, "verifier_output"), "Passed all test runs"));
	}
	ck_assert(seen);
	json_t *inc = NULL;
	json_array_foreach(tr, i, t)
	{
		if (streq(sget(t, "task"), "t/inc") && streq(sget(t, "episode"), "CF"))
			inc = t;
	}
	ck_assert_ptr_nonnull(inc);
	ck_assert(json_is_null(json_object_get(json_object_get(inc, "result"), "first_pass_turn")));
	ck_assert(!json_is_true(json_object_get(json_object_get(inc, "result"), "solved")));
	ck_assert_uint_eq(json_array_size(json_object_get(inc, "conversations")), 2);
	json_decref(tr);
	env_end(&e);
}
END_TEST

/* --- resume ----------------------------------------------------------------------------- */

START_TEST(test_resume_more_turns)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "resume");
	const char *tasks[] = {"t/double", "t/inc"};
	opts(&o, &e, out, "t/double=right,*=wrong", 1, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	json_t *gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 3); /* double 0; inc 0, 1 */
	json_decref(gin);
	json_t *recs = load_turns(out);
	const char *run_id = strdup(sget(json_array_get(recs, 0), "run_id"));
	json_decref(recs);

	o.turns = 3;
	run_ok(&o);
	gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 5); /* only inc's turns 2 and 3 are new */
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(gin, 3), "turn")), 2);
	/* Turn 2 continues from turn 1's recorded state. */
	ck_assert_ptr_nonnull(strstr(sget(json_array_get(gin, 3), "execution_feedback"), "test_1"));
	json_decref(gin);
	recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL"};
	assert_complete(recs, set, 1, tasks, 2, 3); /* old records now say turns 3 */
	ck_assert_str_eq(sget(json_array_get(recs, 7), "run_id"), run_id);
	ck_assert(carried(rec(recs, "CF_EF_FULL", "t/double", 3)));
	json_decref(recs);

	/* Again: nothing left to do. Fewer turns than recorded: refused. */
	run_ok(&o);
	gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 5);
	json_decref(gin);
	o.turns = 2;
	char err[512];
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "--turns 3"));
	free((void *)run_id);
	env_end(&e);
}
END_TEST

static size_t lines_in(const char *path)
{
	json_t *a = load_jsonl(path);
	size_t n = json_array_size(a);
	json_decref(a);
	return n;
}

START_TEST(test_kill_and_resume)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "killed");
	char turns[600];
	snprintf(turns, sizeof turns, "%s/turns.jsonl", out);
	opts(&o, &e, out, "slow", 3, "CF_EF_FULL", "CF_EF_UNIT", NULL);
	o.jobs = 2;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[512];
		_exit(eval_run(&o, err, sizeof err) == 0 ? 0 : 1);
	}
	long long deadline = td_now_ms() + 60000;
	while (lines_in(turns) < 6 && td_now_ms() < deadline)
		td_sleep_ms(50);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	size_t before = lines_in(turns);
	ck_assert_uint_lt(before, 32);
	/* As if the kill had landed in the middle of a line. */
	int fd = open(turns, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "{\"run_id\":\"torn", 15), 15);
	close(fd);

	run_ok(&o);
	json_t *recs = load_turns(out); /* fails on any unparsable line */
	const char *set[] = {"CF_EF_FULL", "CF_EF_UNIT"};
	assert_complete(recs, set, 2, ALL_TASKS, 4, 3);
	/* Every turn of every task was asked once across both runs, plus at
	 * most the turns in flight when the kill came (one per worker). */
	json_t *gin = load_jsonl(e.glog);
	ck_assert_uint_ge(json_array_size(gin), 32);
	ck_assert_uint_le(json_array_size(gin), 34);
	json_decref(gin);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* --- shards ------------------------------------------------------------------------------ */

static char *score_json(const char *const *paths, size_t n)
{
	struct score_table t;
	char err[512];
	ck_assert_msg(score_load(paths, n, stderr, &t, err, sizeof err) == 0, "%s", err);
	score_finish(&t);
	json_t *j = score_to_json(&t);
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(j);
	score_free(&t);
	return s;
}

START_TEST(test_shards_merge)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *modes = "t/double=right,t/negate=exec,t/square=turn2,t/inc=wrong";
	opts(&o, &e, sub(&e, "single"), modes, 2, "CF", "CF_EF_UNIT", NULL);
	run_ok(&o);
	for (int i = 0; i < 2; i++) {
		char name[32];
		snprintf(name, sizeof name, "shard%d", i);
		opts(&o, &e, sub(&e, name), modes, 2, "CF", "CF_EF_UNIT", NULL);
		o.shard_i = i;
		o.shard_n = 2;
		run_ok(&o);
	}
	json_t *s0 = load_turns(sub(&e, "shard0")), *s1 = load_turns(sub(&e, "shard1"));
	/* Index % 2: tasks 0 and 2 in shard 0, 1 and 3 in shard 1. */
	ck_assert_uint_eq(count(s0, NULL, "t/double", -1), 6);
	ck_assert_uint_eq(count(s0, NULL, "t/square", -1), 6);
	ck_assert_uint_eq(count(s0, NULL, "t/negate", -1), 0);
	ck_assert_uint_eq(count(s1, NULL, "t/negate", -1), 6);
	ck_assert_uint_eq(count(s1, NULL, "t/inc", -1), 6);
	json_decref(s0);
	json_decref(s1);
	char p0[512], p1[512], ps[512];
	snprintf(p0, sizeof p0, "%s", sub(&e, "shard0"));
	snprintf(p1, sizeof p1, "%s", sub(&e, "shard1"));
	snprintf(ps, sizeof ps, "%s", sub(&e, "single"));
	const char *merged[] = {p0, p1}, *single[] = {ps};
	char *a = score_json(merged, 2), *b = score_json(single, 1);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	env_end(&e);
}
END_TEST

/* --- ConvCodeBench static mode ---------------------------------------------------------- */

START_TEST(test_static_replay)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *ref = sub(&e, "reference");
	char refdir[512];
	snprintf(refdir, sizeof refdir, "%s", ref);
	/* The reference model: double at turn 0, negate at turn 2, the others never. */
	opts(&o, &e, refdir, "t/double=right,t/negate=turn2,*=wrong", 3, "CF_EF_FULL_SNF", NULL);
	run_ok(&o);
	json_t *rrecs = load_turns(refdir);
	size_t ref_calls = lines_in(e.glog), ref_verbal = lines_in(e.vlog);
	ck_assert_uint_gt(ref_verbal, 0);

	/* The model under test: square is fixed as soon as it gets (the
	 * reference's) verbal feedback; the others never. */
	const char *out = sub(&e, "static");
	char outdir[512];
	snprintf(outdir, sizeof outdir, "%s", out);
	opts(&o, &e, outdir, "t/square=verbal,*=wrong", 3, "CF_EF_FULL_SNF", NULL);
	o.reference = refdir;
	o.verbal = NULL; /* static mode replays logged verbal feedback */
	run_ok(&o);
	json_t *recs = load_turns(outdir), *all = load_jsonl(e.glog);
	const char *set[] = {"CF_EF_FULL_SNF"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 3);
	ck_assert_uint_eq(lines_in(e.vlog), ref_verbal); /* no live verbal call */
	json_t *gin = json_array();
	for (size_t i = ref_calls; i < json_array_size(all); i++)
		json_array_append(gin, json_array_get(all, i));
	const char *S = "CF_EF_FULL_SNF";
	/* double: the reference passed at turn 0, so it counts there, unasked. */
	ck_assert_uint_eq(count(gin, S, "t/double", -1), 0);
	json_t *d0 = rec(recs, S, "t/double", 0);
	ck_assert_str_eq(sget(d0, "verdict"), "pass");
	ck_assert(json_is_true(json_object_get(d0, "from_reference")));
	ck_assert_str_eq(sget(d0, "mode"), "static");
	/* negate: asked at turns 0 and 1; the reference's passing turn 2 counts
	 * at turn 2 (ConvCodeBench: reference solved by i-1 < N). */
	ck_assert_uint_eq(count(gin, S, "t/negate", -1), 2);
	ck_assert_str_eq(sget(rec(recs, S, "t/negate", 1), "verdict"), "fail");
	ck_assert(json_is_true(json_object_get(rec(recs, S, "t/negate", 2), "from_reference")));
	ck_assert_str_eq(sget(rec(recs, S, "t/negate", 2), "verdict"), "pass");
	/* square: turn 1 gets the reference's turn-0 code, feedback and verbal
	 * feedback, and passes. */
	json_t *g = find(gin, S, "t/square", 1), *r0 = rec(rrecs, S, "t/square", 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(sget(g, "previous_code"), sget(r0, "code"));
	ck_assert_str_eq(sget(g, "compilation_feedback"), fb(r0, "compilation"));
	ck_assert_str_eq(sget(g, "execution_feedback"), fb(r0, "execution"));
	ck_assert_str_eq(sget(g, "verbal_feedback"), fb(r0, "verbal"));
	ck_assert_ptr_nonnull(strstr(sget(g, "verbal_feedback"), "novice says"));
	ck_assert_str_eq(sget(rec(recs, S, "t/square", 1), "verdict"), "pass");
	/* inc: asked at every turn, turn 3 with the reference's turn 2. */
	ck_assert_uint_eq(count(gin, S, "t/inc", -1), 4);
	ck_assert_str_eq(sget(find(gin, S, "t/inc", 3), "previous_code"),
			 sget(rec(rrecs, S, "t/inc", 2), "code"));
	const double pass[] = {0.25, 0.5, 0.75, 0.75};
	assert_summary(outdir, S, 4, pass, 3, (1 + 1.0 / 3 + 1.0 / 2) / 4, 0.75);

	/* A reference without the turns a longer replay needs: refused before
	 * anything runs. */
	size_t calls = lines_in(e.glog);
	opts(&o, &e, sub(&e, "static5"), "wrong", 5, "CF_EF_FULL_SNF", NULL);
	o.reference = refdir;
	char err[512];
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "turn 4"), "%s", err);
	opts(&o, &e, sub(&e, "static-cf"), "wrong", 3, "CF", NULL);
	o.reference = refdir;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "setting CF"), "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), calls);
	json_decref(gin);
	json_decref(all);
	json_decref(recs);
	json_decref(rrecs);
	env_end(&e);
}
END_TEST

/* --- option and dataset errors ------------------------------------------------------------ */

/* Runs eval_run with stderr captured into a file; returns its text. */
static char *run_capturing(const struct eval_opts *o, int *rc, char *err, size_t errlen,
			   const char *path)
{
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	*rc = eval_run(o, err, errlen);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n;
	char *s = sbx_read_file(path, 1 << 20, &n, NULL, 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_dataset_and_option_errors)
{
	struct env e;
	env_start(&e);
	/* Line 2 is broken: reported with its line number and skipped. */
	char ds[600];
	snprintf(ds, sizeof ds, "%s/tasks.jsonl", e.dir);
	json_t *tasks = load_jsonl(TASKS);
	FILE *f = fopen(ds, "w");
	ck_assert_ptr_nonnull(f);
	char *l0 = json_dumps(json_array_get(tasks, 0), JSON_COMPACT);
	char *l1 = json_dumps(json_array_get(tasks, 1), JSON_COMPACT);
	fprintf(f, "%s\n{\"task_id\": \"t/broken\", \n%s\n", l0, l1);
	fclose(f);
	free(l0);
	free(l1);
	json_decref(tasks);
	struct eval_opts o;
	opts(&o, &e, sub(&e, "skip"), "right", 1, "CF", NULL);
	o.dataset = ds;
	o.progress = true; /* asked for, but stderr is not a terminal */
	int rc;
	char err[512] = "";
	char *log = run_capturing(&o, &rc, err, sizeof err, sub(&e, "stderr"));
	ck_assert_msg(rc == 0, "%s", err);
	char want[700];
	snprintf(want, sizeof want, "%s:2:", ds);
	ck_assert_msg(strstr(log, want) && strstr(log, "skipped"), "stderr: %s", log);
	ck_assert_msg(!strstr(log, "tasks done"), "progress on a non-terminal: %s", log);
	free(log);
	json_t *recs = load_turns(sub(&e, "skip"));
	ck_assert_uint_eq(json_array_size(recs), 4); /* 2 tasks x 2 turns */
	json_decref(recs);

	/* Unknown --tasks ids: an error naming them, nothing run. */
	const char *ids[] = {"t/double", "t/nope", "t/gone"};
	opts(&o, &e, sub(&e, "unknown"), "right", 1, "CF", NULL);
	o.tasks = ids;
	o.ntasks = 3;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "t/nope") && strstr(err, "t/gone") && !strstr(err, "t/double"),
		      "%s", err);
	/* A verbal setting without --verbal; an unknown setting. */
	opts(&o, &e, sub(&e, "noverbal"), "right", 1, "CF_EF_UNIT_SNF", NULL);
	o.verbal = NULL;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "--verbal"), "%s", err);
	opts(&o, &e, sub(&e, "badset"), "right", 1, "CF_XF", NULL);
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "CF_XF"), "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), 2); /* only the first run asked */
	env_end(&e);
}
END_TEST

/* --- the shipped OpenAI-compatible commands ------------------------------------------------- */

/* Runs CMD with input on stdin, returns its stdout parsed as JSON. */
static json_t *run_json(const char *cmd, const json_t *input, const char *dir)
{
	char in[600], outp[600], sh[2048];
	snprintf(in, sizeof in, "%s/in.json", dir);
	snprintf(outp, sizeof outp, "%s/out.json", dir);
	ck_assert_int_eq(json_dump_file(input, in, 0), 0);
	snprintf(sh, sizeof sh, "%s < %s > %s", cmd, in, outp);
	ck_assert_int_eq(system(sh), 0);
	json_t *o = json_load_file(outp, 0, NULL);
	ck_assert_msg(o, "%s printed no JSON", cmd);
	return o;
}

static const char *msg(const json_t *req, size_t i)
{
	return sget(json_array_get(json_object_get(req, "messages"), i), "content");
}

START_TEST(test_openai_dry_run)
{
	char dir[] = "/tmp/sbx-eval-dry-XXXXXX";
	ck_assert(mkdtemp(dir));
	/* The generator's user message is byte for byte the logged one. */
	json_t *in = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", "t/x",
			       "turn", 1, "setting", "CF_EF_FULL_SNF", "prompt",
			       "Do things — with ünïcode.\n\n", "entry_point", "task_func",
			       "previous_code", "def task_func():\n    return '```'\n\n",
			       "compilation_feedback", "No syntax errors", "execution_feedback",
			       "test_1\nTraceback ...\n", "verbal_feedback", "It is wrong.");
	for (int turn0 = 0; turn0 < 2; turn0++) {
		if (turn0) {
			json_object_set_new(in, "previous_code", json_string(""));
			json_object_set_new(in, "execution_feedback", json_string(""));
			json_object_set_new(in, "entry_point", json_string(""));
		}
		json_t *req =
		    run_json("python3 examples/generators/openai_chat.py --dry-run", in, dir);
		char *want = eval_render_prompt(in);
		ck_assert_str_eq(msg(req, 1), want);
		ck_assert_str_eq(sget(json_array_get(json_object_get(req, "messages"), 0), "role"),
				 "system");
		free(want);
		json_decref(req);
	}
	json_decref(in);
	/* The verbal writer: only the expert sees the reference. */
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", "t/x", "level",
			      "expert", "prompt", "P", "code", "def f(): pass",
			      "compilation_feedback", "No syntax errors", "execution_feedback",
			      "test_1 failed", "reference_solution", "SECRET_REFERENCE");
	json_t *ex = run_json("python3 examples/verbal/openai_verbal.py --dry-run", v, dir);
	ck_assert_ptr_nonnull(strstr(msg(ex, 1), "SECRET_REFERENCE"));
	ck_assert_ptr_nonnull(strstr(msg(ex, 0), "never reveal"));
	json_object_set_new(v, "level", json_string("novice"));
	json_object_del(v, "reference_solution");
	json_t *nv = run_json("python3 examples/verbal/openai_verbal.py --dry-run", v, dir);
	ck_assert_ptr_null(strstr(msg(nv, 1), "SECRET_REFERENCE"));
	ck_assert_ptr_nonnull(strstr(msg(nv, 1), "test_1 failed"));
	ck_assert_str_ne(msg(nv, 0), msg(ex, 0));
	json_decref(ex);
	json_decref(nv);
	json_decref(v);
	td_rmtree(dir);
}
END_TEST

START_TEST(test_openai_fake_server)
{
	struct env e;
	env_start(&e);
	char portfile[600], slog[600];
	snprintf(portfile, sizeof portfile, "%s/port", e.dir);
	snprintf(slog, sizeof slog, "%s/server.log", e.dir);
	pid_t srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		execlp("python3", "python3", "tests/eval/fake_openai.py", portfile, slog,
		       (char *)NULL);
		_exit(127);
	}
	long long deadline = td_now_ms() + 20000;
	while (access(portfile, F_OK) != 0 && td_now_ms() < deadline)
		td_sleep_ms(20);
	size_t n;
	char *port = sbx_read_file(portfile, 64, &n, NULL, 0);
	ck_assert_ptr_nonnull(port);
	struct eval_opts o;
	const char *out = sub(&e, "openai");
	opts(&o, &e, out, "unused", 1, "CF_EF_FULL", NULL);
	/* Loopback only: no proxy from the environment may get in between. */
	snprintf(e.gen, sizeof e.gen,
		 "env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY "
		 "OPENAI_BASE_URL=http://127.0.0.1:%s/v1 OPENAI_API_KEY=test-key "
		 "SBX_MODEL=fake-model python3 examples/generators/openai_chat.py",
		 port);
	free(port);
	const char *tasks[] = {"t/double", "t/inc"};
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	json_t *recs = load_turns(out), *reqs = load_jsonl(slog);
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 0), "verdict"), "pass");
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/inc", 1), "verdict"), "fail");
	ck_assert(
	    json_is_null(json_object_get(rec(recs, "CF_EF_FULL", "t/inc", 1), "generator_error")));
	ck_assert_uint_eq(json_array_size(reqs), 3); /* double 0, inc 0 and 1 */
	size_t i;
	json_t *q;
	json_array_foreach(reqs, i, q)
	{
		ck_assert_str_eq(sget(q, "path"), "/v1/chat/completions");
		ck_assert_str_eq(sget(q, "authorization"), "Bearer test-key");
		ck_assert_str_eq(sget(json_object_get(q, "body"), "model"), "fake-model");
	}
	/* What the endpoint got is what the log says the model saw. */
	json_t *r = rec(recs, "CF_EF_FULL", "t/inc", 1);
	bool matched = false;
	json_array_foreach(reqs, i, q)
	{
		matched |= streq(msg(json_object_get(q, "body"), 1), sget(r, "user_message"));
	}
	ck_assert(matched);
	json_decref(recs);
	json_decref(reqs);
	env_end(&e);
}
END_TEST

/* --- suite -------------------------------------------------------------------------------- */

static Suite *eval_suite(void)
{
	Suite *s = suite_create("eval");
	TCase *t = tcase_create("eval");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_settings_feedback);
	tcase_add_test(t, test_always_regenerate);
	tcase_add_test(t, test_quiet_novice);
	tcase_add_test(t, test_generator_failures);
	tcase_add_test(t, test_summary_and_traces);
	tcase_add_test(t, test_resume_more_turns);
	tcase_add_test(t, test_kill_and_resume);
	tcase_add_test(t, test_shards_merge);
	tcase_add_test(t, test_static_replay);
	tcase_add_test(t, test_dataset_and_option_errors);
	tcase_add_test(t, test_openai_dry_run);
	tcase_add_test(t, test_openai_fake_server);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_eval: needs root (the daemon builds namespaces)\n");
		return 1;
	}
	/* Every daemon directory lives under one base removed at the end, so a
	 * test that failed half-way leaves nothing in /tmp. */
	char base[] = "/tmp/sbx-eval.XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("SBX_TEST_TMPDIR", base, 1);
	SRunner *sr = srunner_create(eval_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	td_rmtree(base);
	return failed ? 1 : 0;
}
