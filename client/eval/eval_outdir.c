/* `sbx eval`'s --out before the workers start: the run's manifest settled
 * against the one already there (a resume of another run is refused), the
 * directory made, the records there picked up (their "turns" rewritten for
 * a longer run, failed turns dropped to be asked again), and the items
 * still to do. */
#include "client/eval/eval_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/eval/manifest.h"
#include "common/errfmt.h"

static int mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return errfmt(err, errlen, "path too long: %s", path);
	for (char *p = buf + 1;; p++) {
		bool end = *p == '\0';
		if (*p == '/' || end) {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return errfmt(err, errlen, "cannot create %s: %s", buf,
					      errfmt_desc(errno));
			if (end)
				return 0;
			*p = '/';
		}
	}
}

static void new_run_id(char *buf, size_t len)
{
	unsigned char rnd[4] = {0};
	if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
		unsigned v = (unsigned)time(NULL) ^ (unsigned)getpid();
		memcpy(rnd, &v, sizeof rnd);
	}
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, len, "%s-%02x%02x%02x%02x", now, rnd[0], rnd[1], rnd[2], rnd[3]);
}

/* Turns whose model command failed are asked again, from the first failed
 * turn of each pair on (the later turns grew from it). */
static int retry_failed(struct eval_ctx *c, const char *path, const struct eval_setting **sets,
			size_t nsets, char *err, size_t errlen)
{
	const char *names[EVAL_MAX_SETTINGS];
	size_t pairs = 0, dropped = 0;
	for (size_t i = 0; i < nsets; i++)
		names[i] = sets[i]->name;
	for (size_t i = 0; i < ri_items(c->resume); i++) {
		const char *setting, *task;
		int sample;
		ri_item_key(c->resume, i, &setting, &task, &sample);
		for (size_t j = 0; j < nsets; j++)
			pairs += strcmp(setting, names[j]) == 0 &&
				 ri_first_failed(c->resume, setting, task, sample) >= 0;
	}
	if (!pairs)
		return 0;
	if (ri_drop_failed(c->resume, path, names, nsets, &dropped, err, errlen) < 0)
		return -1;
	fprintf(stderr,
		"sbx eval: %zu task/setting pair%s had failed model commands: %zu turn%s from the "
		"first failure on are asked again (--no-retry-errors keeps them)\n",
		pairs, pairs == 1 ? "" : "s", dropped, dropped == 1 ? "" : "s");
	ri_free(c->resume);
	c->resume = ri_load(path, true, stderr, err, errlen);
	return c->resume ? 0 : -1;
}

/* Picks up the records already in the out dir. A run can only continue as
 * the same kind of run, and never to fewer turns than it recorded. */
static int open_resume(struct eval_ctx *c, const char *path, const struct eval_setting **sets,
		       size_t nsets, char *err, size_t errlen)
{
	c->resume = ri_load(path, true, stderr, err, errlen);
	if (!c->resume)
		return -1;
	const char *mode = ri_mode(c->resume);
	const char *want = c->static_mode ? MODE_STATIC : MODE_LIVE;
	if (mode && strcmp(mode, want) != 0)
		return errfmt(err, errlen, "%s holds a %s run; this one is %s (use another --out)",
			      path, mode, want);
	int had = -1;
	for (size_t i = 0; i < nsets; i++)
		if (ri_max_turns(c->resume, sets[i]->name) > had)
			had = ri_max_turns(c->resume, sets[i]->name);
	if (had > c->turns)
		return errfmt(err, errlen,
			      "%s was run with --turns %d; continue it with --turns >= %d "
			      "or use another --out",
			      path, had, had);
	if (had >= 0 && had < c->turns) {
		/* Longer conversations: older records say how many turns their
		 * run had, and every record of a setting must agree for scoring. */
		const char *names[EVAL_MAX_SETTINGS];
		for (size_t i = 0; i < nsets; i++)
			names[i] = sets[i]->name;
		ri_free(c->resume);
		c->resume = NULL;
		if (ri_rewrite_turns(path, names, nsets, c->turns, err, errlen) < 0)
			return -1;
		c->resume = ri_load(path, true, stderr, err, errlen);
		if (!c->resume)
			return -1;
	}
	if (c->o->retry_errors && retry_failed(c, path, sets, nsets, err, errlen) < 0)
		return -1;
	/* The manifest's run id (settle_manifest), else the records', else new. */
	if (!c->run_id[0] && ri_run_id(c->resume))
		snprintf(c->run_id, sizeof c->run_id, "%s", ri_run_id(c->resume));
	else if (!c->run_id[0])
		new_run_id(c->run_id, sizeof c->run_id);
	return 0;
}

/* Task-major order: an interrupted run has covered its first tasks in every
 * setting (and sample). Fully recorded items are counted, not queued. */
static int make_items(struct eval_ctx *c, const struct ds_task **tasks, size_t ntasks,
		      const struct eval_setting **sets, size_t nsets, size_t *total, size_t *done,
		      size_t *solved, char *err, size_t errlen)
{
	size_t ns = (size_t)c->samples;
	c->items = calloc(ntasks * nsets * ns + 1, sizeof *c->items);
	if (!c->items)
		return errfmt(err, errlen, "out of memory");
	*total = ntasks * nsets * ns;
	*done = *solved = 0;
	for (size_t i = 0; i < ntasks; i++)
		for (size_t j = 0; j < nsets; j++)
			for (int k = 0; k < c->samples; k++) {
				const char *set = sets[j]->name, *id = tasks[i]->id;
				int have = ri_done_turns(c->resume, set, id, k);
				if (have > c->turns) {
					(*done)++;
					*solved += ri_first_pass(c->resume, set, id, k) >= 0;
					continue;
				}
				c->items[c->nitems++] = (struct eval_item){.set = sets[j],
									   .task = tasks[i],
									   .sample = k,
									   .done_turns = have};
			}
	return 0;
}

/* The manifest of this run, settled against the one in --out (refused
 * when it is of another run and not forced). Nothing is written yet. */
static int settle_manifest(struct eval_ctx *c, const struct eval_setting **sets, size_t nsets,
			   const json_t *ping, const char *turns_path, char *err, size_t errlen)
{
	const struct eval_opts *o = c->o;
	char sha[65];
	if (manifest_sha256_file(o->dataset, sha, err, errlen) < 0)
		return -1;
	if (!(c->manifest = manifest_build(o, sets, nsets, ping, sha)))
		return errfmt(err, errlen, "out of memory");
	bool absent;
	json_t *old = manifest_load(o->out_dir, &absent, err, errlen);
	if (!old && !absent)
		return -1;
	char why[2048];
	int rc = manifest_settle(c->manifest, old, o->force_resume, why, sizeof why);
	if (rc < 0)
		errfmt(err, errlen, "%s: %s", o->out_dir, why);
	const json_t *id = json_object_get(old, "run_id");
	if (json_is_string(id))
		snprintf(c->run_id, sizeof c->run_id, "%s", json_string_value(id));
	json_decref(old);
	struct stat st;
	if (rc == 0 && absent && stat(turns_path, &st) == 0 && st.st_size > 0)
		fprintf(stderr,
			"sbx eval: %s has turns but no %s (a run of an older sbx): this run's is "
			"written, the turns there could not be checked against it\n",
			o->out_dir, MANIFEST_FILE);
	return rc;
}

int eval_outdir_prepare(struct eval_ctx *c, const struct ds_task **tasks, size_t ntasks,
			const struct eval_setting **sets, size_t nsets, const json_t *ping,
			const char *turns_path, size_t *total, size_t *done, size_t *solved,
			char *err, size_t errlen)
{
	int rc = settle_manifest(c, sets, nsets, ping, turns_path, err, errlen);
	if (rc == 0)
		rc = mkdirs(c->o->out_dir, err, errlen);
	if (rc == 0)
		rc = open_resume(c, turns_path, sets, nsets, err, errlen);
	if (rc == 0 && json_object_set_new(c->manifest, "run_id", json_string(c->run_id)) < 0)
		rc = errfmt(err, errlen, "out of memory");
	if (rc == 0)
		rc = make_items(c, tasks, ntasks, sets, nsets, total, done, solved, err, errlen);
	return rc;
}
