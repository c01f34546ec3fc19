/* One test of `sbx eval` (client/eval/) against a real sandboxd, for the
 * integration suites test_eval_*.c: a daemon, a scratch directory, and the
 * fake model commands of tests/eval/ (fake_gen.py logs every generator input
 * it gets, so a test can say exactly which feedback each setting passed and
 * how often the model was asked), with readers of the run's outputs
 * (turns.jsonl, summary.json). eval_run() is called directly. Header-only
 * (static inline). */
#ifndef SBX_EVALENV_H
#define SBX_EVALENV_H

#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/eval/eval.h"
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

static inline void env_start(struct env *e)
{
	memset(e, 0, sizeof *e);
	ck_assert_msg(td_start(&e->d, "--workers", "2", NULL) == 0, "daemon: %s", e->d.err);
	snprintf(e->dir, sizeof e->dir, "/tmp/sbx-eval-test-XXXXXX");
	ck_assert(mkdtemp(e->dir));
	snprintf(e->glog, sizeof e->glog, "%s/gen.log", e->dir);
	snprintf(e->vlog, sizeof e->vlog, "%s/verbal.log", e->dir);
}

static inline void env_end(struct env *e)
{
	td_stop(&e->d, 10000);
	td_cleanup(&e->d);
	td_rmtree(e->dir);
}

/* An out dir path inside the scratch directory. */
static inline const char *sub(const struct env *e, const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 512, "%s/%s", e->dir, name);
	return p;
}

/* Options for a run over tests/eval/tasks.jsonl with fake_gen.py in MODES,
 * fake_verbal.py (ok) and the settings after turns (NULL-terminated). */
static inline void opts(struct eval_opts *o, struct env *e, const char *out, const char *modes,
			int turns, ...)
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

static inline void run_ok(const struct eval_opts *o)
{
	char err[1024] = "";
	ck_assert_msg(eval_run(o, err, sizeof err) == 0, "eval_run: %s", err);
}

/* --- reading the outputs --- */

/* Every line of a JSONL file as one array (an absent file is empty). */
static inline json_t *load_jsonl(const char *path)
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

static inline json_t *load_turns(const char *out)
{
	char p[600];
	snprintf(p, sizeof p, "%s/turns.jsonl", out);
	return load_jsonl(p);
}

static inline const char *fb(const json_t *r, const char *k)
{
	return json_string_value(json_object_get(json_object_get(r, "feedback"), k));
}

/* Records (or generator inputs) matching setting/task/turn; NULL or -1 match all. */
static inline size_t count(const json_t *a, const char *setting, const char *task, int turn)
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

static inline json_t *find(const json_t *a, const char *setting, const char *task, int turn)
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

static inline json_t *rec(const json_t *a, const char *setting, const char *task, int turn)
{
	json_t *r = find(a, setting, task, turn);
	ck_assert_msg(r, "no record %s %s turn %d", setting, task, turn);
	return r;
}

static inline bool carried(const json_t *r)
{
	return json_is_true(json_object_get(r, "carried"));
}

/* Every (setting, task, turn) exactly once, turns 0..n for each pair. */
static inline void assert_complete(const json_t *recs, const char *const *settings, size_t nset,
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
static inline void assert_summary(const char *out, const char *setting, size_t tasks,
				  const double *pass, int turns, double mrr, double recall)
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

/* The tasks of tests/eval/tasks.jsonl, in order. */
static const char *const ALL_TASKS[] = {"t/double", "t/negate", "t/square", "t/inc"};

/* Records of a JSONL file (0 when it does not exist). */
static inline size_t lines_in(const char *path)
{
	json_t *a = load_jsonl(path);
	size_t n = json_array_size(a);
	json_decref(a);
	return n;
}

/* --- the sbx binary --- */

/* $SBX_BUILD/sbx (SBX_BUILD defaulting to "build"). */
static inline const char *cli_path(void)
{
	static char p[512];
	snprintf(p, sizeof p, "%s/sbx", td_build_dir());
	return p;
}

/* Starts sbx with args (NULL-terminated, after the program name), its stdout
 * and stderr into the files given; its pid. */
static inline pid_t cli_start(const char *const *args, const char *out, const char *errf)
{
	const char *argv[64] = {cli_path()};
	size_t n = 1;
	for (; args[n - 1] && n < 63; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Its exit status, or 128 + the signal that killed it. */
static inline int cli_wait(pid_t pid)
{
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs sbx to the end: its exit status; *out and *err get what it printed
 * (malloc'd), the files being dir/sbx.out and dir/sbx.err. */
static inline int cli_run(const struct env *e, const char *const *args, char **out, char **err)
{
	char po[600], pe[600];
	snprintf(po, sizeof po, "%s/sbx.out", e->dir);
	snprintf(pe, sizeof pe, "%s/sbx.err", e->dir);
	int rc = cli_wait(cli_start(args, po, pe));
	size_t n;
	*out = sbx_read_file(po, 1 << 22, &n, NULL, 0);
	*err = sbx_read_file(pe, 1 << 22, &n, NULL, 0);
	ck_assert(*out && *err);
	return rc;
}

#endif
