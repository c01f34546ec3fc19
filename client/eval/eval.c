/* `sbx eval`: the run as a whole. Checks the options, loads and selects the
 * tasks (--tasks, --shard), picks up an earlier run in the same --out
 * (resume) and a --reference run (ConvCodeBench static mode), hands the
 * (setting, task) pairs to --jobs workers with one daemon connection each,
 * then writes traces.jsonl and summary.json and prints the score table. */
#include "client/eval/eval_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/eval/atomic_file.h"
#include "client/eval/gen.h"
#include "client/eval/manifest.h"
#include "client/eval/reference.h"
#include "client/eval/passk.h"
#include "client/eval/score.h"
#include "common/errfmt.h"

#define DEFAULT_TURNS 10	      /* ConvCodeWorld's feedback turns */
#define DEFAULT_GEN_TIMEOUT_MS 600000 /* a slow model endpoint still answers */
#define MAX_TURNS 100

static const struct eval_setting settings[] = {
    {"CF", false, COV_NONE, VERBAL_NONE},
    {"CF_EF_UNIT", true, COV_PARTIAL, VERBAL_NONE},
    {"CF_EF_FULL", true, COV_FULL, VERBAL_NONE},
    {"CF_SNF", false, COV_NONE, VERBAL_NOVICE},
    {"CF_EF_UNIT_SNF", true, COV_PARTIAL, VERBAL_NOVICE},
    {"CF_EF_FULL_SNF", true, COV_FULL, VERBAL_NOVICE},
    {"CF_SEF", false, COV_NONE, VERBAL_EXPERT},
    {"CF_EF_UNIT_SEF", true, COV_PARTIAL, VERBAL_EXPERT},
    {"CF_EF_FULL_SEF", true, COV_FULL, VERBAL_EXPERT},
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

const struct eval_setting *eval_setting_find(const char *name)
{
	for (size_t i = 0; name && i < NSETTINGS; i++)
		if (strcmp(settings[i].name, name) == 0)
			return &settings[i];
	return NULL;
}

const struct eval_setting *eval_settings(size_t *n)
{
	*n = NSETTINGS;
	return settings;
}

void eval_opts_default(struct eval_opts *o)
{
	*o = (struct eval_opts){
	    .socket = sbx_default_socket(),
	    .format = DS_BIGCODEBENCH,
	    .turns = DEFAULT_TURNS,
	    .out_dir = "sbx-eval",
	    .shard_i = 0,
	    .shard_n = 1,
	    .seed = -1,
	    .model = "unknown",
	    .gen_timeout_ms = DEFAULT_GEN_TIMEOUT_MS,
	    .limits = PROTO_LIMITS_UNSET,
	    .progress = true,
	    .max_error_rate = EVAL_MAX_ERROR_RATE,
	    .max_errors = -1,
	    .retry_errors = true,
	    .expected_visible = -1,
	    .samples = 1,
	    .temperature = -1,
	};
	sbx_retry_default(&o->retry);
}

/* --- options ---------------------------------------------------------------- */

static int check_opts(const struct eval_opts *o, const struct eval_setting **sets, size_t *nsets,
		      char *err, size_t errlen)
{
	if (!o->dataset || !o->generator || !o->out_dir || !*o->out_dir)
		return errfmt(err, errlen, "a dataset, a generator command and --out are required");
	if (o->turns < 0 || o->turns > MAX_TURNS)
		return errfmt(err, errlen, "--turns must be 0..%d", MAX_TURNS);
	if (o->samples < 1 || o->samples > PASSK_MAX_SAMPLES ||
	    !(o->temperature < 0 || o->temperature <= EVAL_MAX_TEMPERATURE))
		return errfmt(err, errlen, "--samples must be 1..%d and --temperature 0..%g",
			      PASSK_MAX_SAMPLES, EVAL_MAX_TEMPERATURE);
	if (o->shard_n < 1 || o->shard_i < 0 || o->shard_i >= o->shard_n)
		return errfmt(err, errlen, "--shard wants I/N with 0 <= I < N");
	if (o->jobs < 0 || o->gen_timeout_ms <= 0)
		return errfmt(err, errlen, "--jobs and the generator timeout must be positive");
	if (!(o->max_error_rate >= 0 && o->max_error_rate <= 1))
		return errfmt(err, errlen, "--max-errors wants a fraction 0..1 or a count");
	if (o->show_expected && o->expected_visible >= 0)
		return errfmt(err, errlen,
			      "--expected-visible is how much of a hidden expected output "
			      "shows; --show-expected shows all of it: give one");
	if (o->expected_visible > PROTO_VISIBLE_CHARS_MAX)
		return errfmt(err, errlen, "--expected-visible must be 0..%d",
			      PROTO_VISIBLE_CHARS_MAX);
	/* ConvCodeWorld's rule counts the method definitions of a unittest
	 * suite: only BigCodeBench tasks have one. */
	if (o->partial_mode == PM_CONVCODEWORLD && o->format != DS_BIGCODEBENCH)
		return errfmt(err, errlen,
			      "--partial-mode %s needs unittest suites (--format bigcodebench), "
			      "not %s",
			      PARTIAL_MODE_CONVCODEWORLD, ds_format_name(o->format));
	for (int i = 0; i < PROTO_NLIMITS; i++)
		if (proto_limit_get(&o->limits, i) == 0)
			return errfmt(err, errlen, "limit %s must be positive",
				      proto_limit_names[i]);
	*nsets = 0;
	for (size_t i = 0; i < o->nsettings && i < EVAL_MAX_SETTINGS; i++) {
		const struct eval_setting *s = eval_setting_find(o->settings[i]);
		if (!s)
			return errfmt(err, errlen, "unknown setting %s", o->settings[i]);
		bool dup = false;
		for (size_t j = 0; j < *nsets; j++)
			dup |= sets[j] == s;
		if (dup)
			continue;
		/* Live verbal feedback needs a writer; static mode replays the
		 * reference's logged feedback instead. */
		if (s->verbal != VERBAL_NONE && !o->verbal && !o->reference)
			return errfmt(err, errlen,
				      "setting %s needs --verbal CMD (a verbal-feedback "
				      "command)",
				      s->name);
		sets[(*nsets)++] = s;
	}
	if (*nsets == 0)
		return errfmt(err, errlen, "no --setting given");
	return 0;
}

/* --- tasks -------------------------------------------------------------------- */

static bool wanted(const struct eval_opts *o, const char *id)
{
	for (size_t i = 0; i < o->ntasks; i++)
		if (strcmp(o->tasks[i], id) == 0)
			return true;
	return false;
}

/* --tasks, then --shard over the remaining order, so every shard sees the
 * same numbering and the shards together are exactly the whole run. */
int eval_select_tasks(const struct eval_opts *o, const struct ds_set *ds,
		      const struct ds_task ***out, size_t *n, char *err, size_t errlen)
{
	if (o->tasks) {
		char missing[512] = "";
		size_t nmiss = 0;
		for (size_t i = 0; i < o->ntasks; i++) {
			bool found = false;
			for (size_t j = 0; j < ds->n && !found; j++)
				found = strcmp(ds->v[j].id, o->tasks[i]) == 0;
			if (!found && nmiss++ < 8) {
				size_t l = strlen(missing);
				snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "",
					 o->tasks[i]);
			}
		}
		if (nmiss)
			return errfmt(err, errlen, "%zu task id%s not in %s: %s%s", nmiss,
				      nmiss > 1 ? "s" : "", o->dataset, missing,
				      nmiss > 8 ? ", ..." : "");
	}
	const struct ds_task **v = calloc(ds->n + 1, sizeof *v);
	if (!v)
		return errfmt(err, errlen, "out of memory");
	size_t k = 0, idx = 0;
	for (size_t j = 0; j < ds->n; j++) {
		if (o->tasks && !wanted(o, ds->v[j].id))
			continue;
		if (idx++ % (size_t)o->shard_n == (size_t)o->shard_i)
			v[k++] = &ds->v[j];
	}
	*out = v;
	*n = k;
	return 0;
}

/* An expert compares the code with the reference solution: a task without
 * one cannot get expert feedback, so say so before anything runs. */
static int check_references(const struct ds_task **tasks, size_t n,
			    const struct eval_setting **sets, size_t nsets, bool live, char *err,
			    size_t errlen)
{
	bool expert = false;
	for (size_t i = 0; i < nsets; i++)
		expert |= sets[i]->verbal == VERBAL_EXPERT;
	for (size_t i = 0; live && expert && i < n; i++)
		if (!tasks[i]->reference || !*tasks[i]->reference)
			return errfmt(err, errlen,
				      "task %s has no reference solution, which expert "
				      "feedback (SEF) needs",
				      tasks[i]->id);
	return 0;
}

/* ConvCodeBench replays a complete reference log: every selected task needs
 * the reference's turns 0..N-1 in its setting (fewer once it passed). */
static int check_reference_log(const struct rec_index *ref, const struct eval_ctx *c,
			       const char *dir, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->nitems; i++) {
		const struct eval_item *it = &c->items[i];
		if (!ri_has_setting(ref, it->set->name))
			return errfmt(err, errlen, "reference %s has no records for setting %s",
				      dir, it->set->name);
		int last = c->turns > 0 ? c->turns - 1 : 0;
		/* Every sample replays the reference's first episode. */
		int fp = ri_first_pass(ref, it->set->name, it->task->id, 0);
		if (fp >= 0 && fp < last)
			last = fp;
		int have = ri_done_turns(ref, it->set->name, it->task->id, 0);
		if (have <= last)
			return errfmt(err, errlen,
				      "reference %s has no record for setting %s, task "
				      "%s, turn %d (static mode replays turns 0..%d)",
				      dir, it->set->name, it->task->id, have, last);
	}
	return 0;
}

/* --- workers ---------------------------------------------------------------------- */

static void *worker(void *arg)
{
	struct eval_ctx *c = arg;
	char err[1024];
	/* One connection and one request in flight per worker: the daemon's
	 * queue holds at most --jobs of ours. */
	struct sbx_conn *conn = sbx_connect(c->o->socket, err, sizeof err);
	if (!conn) {
		eval_errors_stop(c, EVAL_UNREACHABLE, err);
		return NULL;
	}
	sbx_set_retry(conn, &c->o->retry);
	while (!eval_errors_stopping(c)) {
		pthread_mutex_lock(&c->mu);
		size_t i = c->next++;
		pthread_mutex_unlock(&c->mu);
		if (i >= c->nitems)
			break;
		bool solved = false;
		int rc = eval_item_run(c, conn, &c->items[i], &solved, err, sizeof err);
		if (rc < 0) {
			eval_errors_stop(c, rc, err);
			break;
		}
		progress_item(c->prog, solved);
	}
	sbx_close(conn);
	return NULL;
}

/* The daemon's answer to a ping: its fields go into the manifest, and its
 * worker count is the default for --jobs. Sent before anything is created
 * in --out, so a daemon that is not there leaves no trace. A daemon that
 * answers with an error is there (an HTTP front adds a tenant a ping may
 * not have, and sbx-http-bridge passes its refusal on): the run goes on
 * when --jobs is given, with {} as the answer. NULL with *status and err
 * when it cannot. */
json_t *eval_daemon_ping(const char *sock, const struct sbx_retry *retry, bool need_workers,
			 int *status, char *err, size_t errlen)
{
	*status = EVAL_UNREACHABLE;
	struct sbx_conn *conn = sbx_connect(sock, err, errlen);
	if (!conn)
		return NULL;
	sbx_set_retry(conn, retry);
	json_t *req = json_pack("{s:s, s:s}", F_ID, "eval-ping", F_OP, "ping");
	json_t *resp = req ? sbx_call(conn, req, 30000, err, errlen) : NULL;
	json_t *w = json_object_get(resp, P_WORKERS);
	const json_t *e = json_object_get(resp, R_ERROR);
	if (resp && e && !need_workers) {
		json_decref(resp);
		resp = json_object();
		*status = resp ? EVAL_OK : EVAL_FAILED;
	} else if (resp && e) {
		*status = EVAL_DAEMON_ERROR;
		errfmt(err, errlen,
		       "sandboxd refused the ping (give --jobs N to go without it): %s: %s",
		       json_string_value(json_object_get(e, R_ERROR_CODE)),
		       json_string_value(json_object_get(e, R_ERROR_MESSAGE)));
	} else if (resp && need_workers && !(json_is_integer(w) && json_integer_value(w) > 0)) {
		*status = EVAL_DAEMON_ERROR;
		errfmt(err, errlen, "sandboxd did not answer the ping with a worker count");
	} else if (resp) {
		*status = EVAL_OK;
	}
	json_decref(req);
	sbx_close(conn);
	if (*status != EVAL_OK) {
		json_decref(resp);
		return NULL;
	}
	json_object_del(resp, F_ID);
	return resp;
}

static int run_workers(struct eval_ctx *c, int jobs)
{
	if ((size_t)jobs > c->nitems)
		jobs = (int)c->nitems;
	pthread_t *th = calloc((size_t)jobs + 1, sizeof *th);
	int started = 0;
	for (int i = 0; th && i < jobs; i++)
		if (pthread_create(&th[started], NULL, worker, c) == 0)
			started++;
	if (!started && c->nitems)
		worker(c); /* no thread could start: one worker in this thread */
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	return c->failed || gen_cancelled() ? -1 : 0;
}

/* --- outputs --------------------------------------------------------------------------- */

static int write_summary(const char *turns_path, const char *dir, const json_t *refsum, char *err,
			 size_t errlen)
{
	struct score_table t;
	const char *paths[] = {turns_path};
	if (score_load(paths, 1, stderr, &t, err, errlen) < 0)
		return -1;
	score_finish(&t);
	json_t *j = score_to_json(&t);
	size_t scored = reference_scored(&t);
	/* How many tasks the numbers are over, and which were left out. */
	if (j && (json_object_set_new(j, "tasks_scored", json_integer((json_int_t)scored)) < 0 ||
		  (refsum && json_object_set(j, "reference", (json_t *)refsum) < 0))) {
		json_decref(j);
		j = NULL;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, SUMMARY_FILE);
	int rc = j ? atomic_file_write_json(path, j, err, errlen)
		   : errfmt(err, errlen, "cannot write %s: out of memory", path);
	if (rc == 0) {
		score_print(&t, stdout);
		reference_print(refsum, scored, stdout);
	}
	json_decref(j);
	score_free(&t);
	return rc;
}

/* traces.jsonl and summary.json from everything turns.jsonl holds now. */
static int write_outputs(const char *dir, const char *turns_path, const json_t *refsum, char *err,
			 size_t errlen)
{
	struct rec_index *ri = ri_load(turns_path, false, stderr, err, errlen);
	if (!ri)
		return -1;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, TRACES_FILE);
	int rc = trace_write(ri, path, err, errlen);
	ri_free(ri);
	if (rc < 0)
		return -1;
	return write_summary(turns_path, dir, refsum, err, errlen);
}

/* --- the run ---------------------------------------------------------------------------- */

static int prepare(struct eval_ctx *c, const struct ds_set *ds, const struct eval_setting **sets,
		   size_t nsets, const json_t *ping, const char *turns_path, size_t *total,
		   size_t *done, size_t *solved, char *err, size_t errlen)
{
	const struct eval_opts *o = c->o;
	const struct ds_task **tasks = NULL;
	size_t ntasks = 0;
	int rc = eval_select_tasks(o, ds, &tasks, &ntasks, err, errlen);
	if (rc == 0)
		rc = check_references(tasks, ntasks, sets, nsets, !c->static_mode, err, errlen);
	if (rc == 0 && c->static_mode) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", o->reference, TURNS_FILE);
		struct stat st;
		if (stat(path, &st) < 0)
			rc = errfmt(err, errlen, "--reference %s: no %s there", o->reference,
				    TURNS_FILE);
		else if (!(c->ref = ri_load(path, false, stderr, err, errlen)))
			rc = -1;
	}
	if (rc == 0)
		rc = eval_outdir_prepare(c, tasks, ntasks, sets, nsets, ping, turns_path, total,
					 done, solved, err, errlen);
	if (rc == 0 && c->static_mode)
		rc = check_reference_log(c->ref, c, o->reference, err, errlen);
	/* Only a run that starts says what it is. */
	if (rc == 0)
		rc = manifest_write(o->out_dir, c->manifest, err, errlen);
	if (rc == 0 && o->check_reference)
		rc = reference_run_eval(c, tasks, ntasks, ping, total, err, errlen);
	free(tasks);
	return rc;
}

static void on_sigint(int sig)
{
	(void)sig;
	gen_cancel(); /* wakes every model command and stops the workers */
}

/* The status and message of a run whose workers stopped early. */
static int stopped(const struct eval_ctx *c, char *err, size_t errlen)
{
	if (gen_cancelled()) {
		errfmt(err, errlen, "interrupted; the finished turns are kept in %s/%s",
		       c->o->out_dir, TURNS_FILE);
		return EVAL_INTERRUPTED;
	}
	errfmt(err, errlen,
	       "%s. The finished turns are kept; rerun with the same --out to resume%s", c->err,
	       c->status == EVAL_FAILED && c->errors ? " (failed turns are retried)" : "");
	return c->status ? c->status : EVAL_FAILED;
}

int eval_run(const struct eval_opts *o, char *err, size_t errlen)
{
	const struct eval_setting *sets[EVAL_MAX_SETTINGS];
	size_t nsets = 0, total = 0, done = 0, solved = 0;
	if (check_opts(o, sets, &nsets, err, errlen) < 0)
		return EVAL_FAILED;
	int rc = EVAL_OK;
	/* A Ctrl-C before this run must not stop it (nor its manifest's
	 * `python3 --version`). */
	gen_cancel_init();
	gen_cancel_reset();
	json_t *ping = eval_daemon_ping(o->socket, &o->retry, o->jobs <= 0, &rc, err, errlen);
	if (!ping)
		return rc;
	struct eval_opts with_limits = *o;
	fmt_limits_opts(&with_limits, ping, "sbx eval");
	o = &with_limits;
	struct eval_ctx c = {.o = o,
			     .log_fd = -1,
			     .turns = o->turns,
			     .samples = o->samples,
			     .seed = o->seed >= 0 ? o->seed : EVAL_DEFAULT_SEED,
			     .seed_per_task = o->seed < 0};
	c.model = o->model && *o->model ? o->model : "unknown";
	c.static_mode = o->reference != NULL;
	pthread_mutex_init(&c.mu, NULL);
	pthread_mutex_init(&c.log_mu, NULL);
	struct ds_set ds = {0};
	char turns_path[4096];
	snprintf(turns_path, sizeof turns_path, "%s/%s", o->out_dir, TURNS_FILE);
	rc = ds_load(o->dataset, o->format, stderr, &ds, err, errlen);
	if (rc == 0)
		rc = prepare(&c, &ds, sets, nsets, ping, turns_path, &total, &done, &solved, err,
			     errlen);
	if (rc == 0) {
		c.log_fd = open(turns_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (c.log_fd < 0)
			rc = errfmt(err, errlen, "cannot open %s: %s", turns_path,
				    errfmt_desc(errno));
	}
	int jobs =
	    o->jobs > 0 ? o->jobs : (int)json_integer_value(json_object_get(ping, P_WORKERS));
	struct sigaction old_int, on_int = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND};
	/* With SA_RESETHAND a second Ctrl-C kills at once: the log survives
	 * that too. */
	bool caught = rc == 0 && o->catch_sigint && sigaction(SIGINT, &on_int, &old_int) == 0;
	if (rc == 0) {
		c.prog = progress_new(o->progress, total, done, solved);
		int wrc = c.nitems ? run_workers(&c, jobs) : 0;
		progress_end(c.prog);
		int prc = eval_verbal_patch(&c, turns_path, c.err, sizeof c.err);
		/* Even after a failure, what finished is scored and traced; the
		 * next run with the same --out picks up from there. */
		rc = write_outputs(o->out_dir, turns_path, c.refsum, err, errlen);
		if (wrc < 0)
			rc = stopped(&c, err, errlen);
		else if (prc < 0)
			rc = errfmt(err, errlen, "%s", c.err);
	}
	if (caught)
		sigaction(SIGINT, &old_int, NULL);
	json_decref(ping);
	json_decref(c.manifest);
	json_decref(c.refsum);
	if (c.log_fd >= 0)
		close(c.log_fd);
	ri_free(c.resume);
	ri_free(c.ref);
	free(c.items);
	ds_free(&ds);
	pthread_mutex_destroy(&c.mu);
	pthread_mutex_destroy(&c.log_mu);
	return rc;
}
