/* Running the references (reference.h): each selected task's reference
 * solution through the daemon, --jobs connections at once, one record per
 * task appended to reference.jsonl as it finishes. Records of an earlier
 * check made the same way (reference_key: data set, format, limits, seeds,
 * daemon version) are reused, so a resumed evaluation does not run them
 * again. Used by `sbx eval --check-reference` (which then leaves the
 * broken tasks out) and by `sbx check-reference`. */
#include "client/eval/eval_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/eval/fmt_limits.h"
#include "client/eval/manifest.h"
#include "client/eval/reference.h"
#include "common/errfmt.h"

#define REF_CALL_TIMEOUT_MS (30 * 60 * 1000) /* one answer, queueing included */
#define REF_PROGRESS_EVERY 50		     /* tasks between two progress lines */

struct ref_ctx {
	const struct eval_opts *o;
	const struct ds_task **todo;
	size_t ntodo, next, done;
	const json_t *key;
	long long seed;
	bool seed_per_task;
	json_t *byid; /* task id -> record, under mu */
	int fd;	      /* reference.jsonl, O_APPEND */
	pthread_mutex_t mu;
	int status; /* the first failure's enum eval_status */
	char err[1024];
};

static json_t *limits_json(const struct proto_limits *l)
{
	json_t *j = json_object();
	for (int i = 0; j && i < PROTO_NLIMITS; i++)
		if (proto_limit_get(l, i) > 0)
			json_object_set_new(j, proto_limit_names[i],
					    json_integer(proto_limit_get(l, i)));
	return j;
}

/* The reference as the model's code would be sent (eval_turn.c), with
 * full coverage: the same tests, seed and limits. */
static json_t *ref_request(const struct ref_ctx *c, const struct ds_task *t, const char *id)
{
	char *code = t->reference, *joined = NULL;
	if (t->test_setup) {
		size_t n = strlen(code) + strlen(t->test_setup) + 2;
		if (!(joined = malloc(n)))
			return NULL;
		snprintf(joined, n, "%s\n%s", code, t->test_setup);
		code = joined;
	}
	uint32_t tseed = manifest_task_seed(c->seed, t->id);
	json_t *req = json_pack("{s:s, s:s, s:s, s:O, s:s, s:I, s:o}", F_ID, id, F_CODE, code,
				F_FORMAT, proto_format_name(t->test_format), F_TESTS, t->tests,
				F_COVERAGE, proto_coverage_name(COV_FULL), F_SEED,
				(json_int_t)(c->seed_per_task ? (long long)tseed : c->seed),
				F_LIMITS, limits_json(&c->o->limits));
	free(joined);
	if (req && t->entry_point &&
	    json_object_set_new(req, F_ENTRY_POINT, json_string(t->entry_point)) < 0) {
		json_decref(req);
		return NULL;
	}
	return req;
}

static void ref_stop(struct ref_ctx *c, int status, const char *msg)
{
	pthread_mutex_lock(&c->mu);
	if (!c->status) {
		c->status = status;
		snprintf(c->err, sizeof c->err, "%s", msg);
	}
	pthread_mutex_unlock(&c->mu);
}

/* The daemon's answer for one task, or NULL (status set) when the check
 * cannot go on: errors about the request itself are the task's record. */
static json_t *ref_call(struct ref_ctx *c, struct sbx_conn *conn, const struct ds_task *t,
			int *status, char *err, size_t errlen)
{
	static unsigned long seq;
	char id[64];
	snprintf(id, sizeof id, "ref-%lu", __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	json_t *req = ref_request(c, t, id);
	if (!req) {
		*status = EVAL_FAILED;
		errfmt(err, errlen, "cannot build the request for %s", t->id);
		return NULL;
	}
	json_t *resp = sbx_call(conn, req, REF_CALL_TIMEOUT_MS, err, errlen);
	json_decref(req);
	if (!resp) {
		*status = EVAL_UNREACHABLE;
		return NULL;
	}
	const json_t *e = json_object_get(resp, R_ERROR);
	const char *code = json_string_value(json_object_get(e, R_ERROR_CODE));
	if (e && !(code && (strcmp(code, "bad_request") == 0 || strcmp(code, "bad_json") == 0 ||
			    strcmp(code, "too_large") == 0))) {
		*status = EVAL_DAEMON_ERROR;
		errfmt(err, errlen, "sandboxd: %s: %s", code ? code : "error",
		       json_string_value(json_object_get(e, R_ERROR_MESSAGE)));
		json_decref(resp);
		return NULL;
	}
	return resp;
}

static int ref_append(struct ref_ctx *c, const json_t *rec)
{
	char *s = json_dumps(rec, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!s)
		return -1;
	size_t n = strlen(s);
	s[n] = '\n'; /* replaces the terminator: one write() per whole line */
	ssize_t w = write(c->fd, s, n + 1);
	free(s);
	return w == (ssize_t)(n + 1) ? 0 : -1;
}

static void *ref_worker(void *arg)
{
	struct ref_ctx *c = arg;
	char err[1024];
	struct sbx_conn *conn = sbx_connect(c->o->socket, err, sizeof err);
	if (!conn) {
		ref_stop(c, EVAL_UNREACHABLE, err);
		return NULL;
	}
	sbx_set_retry(conn, &c->o->retry);
	for (;;) {
		pthread_mutex_lock(&c->mu);
		size_t i = c->status ? c->ntodo : c->next++;
		pthread_mutex_unlock(&c->mu);
		if (i >= c->ntodo)
			break;
		const struct ds_task *t = c->todo[i];
		int status = 0;
		json_t *resp = NULL;
		if (t->reference && *t->reference) {
			resp = ref_call(c, conn, t, &status, err, sizeof err);
			if (!resp) {
				ref_stop(c, status, err);
				break;
			}
		}
		char now[32];
		eval_now_iso(now, sizeof now);
		json_t *rec = reference_record(t, resp, c->key, now);
		json_decref(resp);
		pthread_mutex_lock(&c->mu);
		int rc = rec ? ref_append(c, rec) : -1;
		if (rc == 0)
			rc = json_object_set(c->byid, t->id, rec);
		c->done++;
		/* A whole data set takes minutes: say how far it got now and then. */
		if (c->done % REF_PROGRESS_EVERY == 0 && c->done < c->ntodo)
			fprintf(stderr, "sbx: references checked: %zu of %zu\n", c->done, c->ntodo);
		pthread_mutex_unlock(&c->mu);
		json_decref(rec);
		if (rc < 0) {
			ref_stop(c, EVAL_FAILED, "cannot write " REFERENCE_FILE);
			break;
		}
	}
	sbx_close(conn);
	return NULL;
}

static void ref_run_workers(struct ref_ctx *c, int jobs)
{
	if (jobs < 1)
		jobs = 1;
	if ((size_t)jobs > c->ntodo)
		jobs = (int)c->ntodo;
	pthread_t *th = calloc((size_t)jobs + 1, sizeof *th);
	int started = 0;
	for (int i = 0; th && i < jobs; i++)
		if (pthread_create(&th[started], NULL, ref_worker, c) == 0)
			started++;
	if (!started && c->ntodo)
		ref_worker(c);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

json_t *reference_run_check(const struct eval_opts *o, const struct ds_task **tasks, size_t n,
			    const json_t *ping, int jobs, int *status, char *err, size_t errlen)
{
	*status = EVAL_FAILED;
	char sha[65], path[4200];
	if (manifest_sha256_file(o->dataset, sha, err, errlen) < 0)
		return NULL;
	struct ref_ctx c = {.o = o,
			    .fd = -1,
			    .seed = o->seed >= 0 ? o->seed : EVAL_DEFAULT_SEED,
			    .seed_per_task = o->seed < 0};
	json_t *lim = limits_json(&o->limits);
	json_t *key =
	    lim ? reference_key(sha, o->format, lim, c.seed, c.seed_per_task, ping) : NULL;
	json_decref(lim);
	if (!key) {
		errfmt(err, errlen, "out of memory");
		return NULL;
	}
	c.key = key;
	snprintf(path, sizeof path, "%s/%s", o->out_dir, REFERENCE_FILE);
	size_t stale = 0;
	c.byid = reference_load(path, key, stderr, &stale, err, errlen);
	/* Only this check's records stay: a file of another data set, other
	 * limits or another daemon would mix two environments. */
	if (c.byid && (stale || access(path, F_OK) == 0) &&
	    reference_rewrite(path, c.byid, err, errlen) < 0) {
		json_decref(c.byid);
		c.byid = NULL;
	}
	if (c.byid) {
		c.todo = calloc(n + 1, sizeof *c.todo);
		if (!c.todo)
			errfmt(err, errlen, "out of memory");
	}
	for (size_t i = 0; c.todo && i < n; i++)
		if (!json_object_get(c.byid, tasks[i]->id))
			c.todo[c.ntodo++] = tasks[i];
	if (c.todo) {
		c.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (c.fd < 0)
			errfmt(err, errlen, "cannot open %s: %s", path, errfmt_desc(errno));
	}
	json_t *out = NULL;
	if (c.fd >= 0) {
		if (n - c.ntodo)
			fprintf(stderr, "sbx: %zu reference result%s reused from %s\n", n - c.ntodo,
				n - c.ntodo == 1 ? "" : "s", path);
		if (stale)
			fprintf(stderr,
				"sbx: %zu record%s of %s made another way (data set, limits, "
				"seed or daemon) dropped\n",
				stale, stale == 1 ? "" : "s", path);
		pthread_mutex_init(&c.mu, NULL);
		ref_run_workers(&c, jobs);
		pthread_mutex_destroy(&c.mu);
		if (c.status) {
			*status = c.status;
			errfmt(err, errlen, "reference check: %s", c.err);
		} else if (fsync(c.fd) < 0) {
			errfmt(err, errlen, "cannot write %s: %s", path, errfmt_desc(errno));
		} else {
			*status = EVAL_OK;
			out = c.byid;
			c.byid = NULL;
		}
		close(c.fd);
	}
	free(c.todo);
	json_decref(c.byid);
	json_decref(key);
	return out;
}

/* --- in `sbx eval` ----------------------------------------------------------------------- */

int reference_run_eval(struct eval_ctx *c, const struct ds_task **tasks, size_t n,
		       const json_t *ping, size_t *total, char *err, size_t errlen)
{
	const struct eval_opts *o = c->o;
	int jobs =
	    o->jobs > 0 ? o->jobs : (int)json_integer_value(json_object_get(ping, P_WORKERS));
	int status;
	fprintf(stderr, "sbx eval: checking the reference solutions of %zu task%s\n", n,
		n == 1 ? "" : "s");
	json_t *byid = reference_run_check(o, tasks, n, ping, jobs, &status, err, errlen);
	if (!byid)
		return status;
	const char **ids = calloc(n + 1, sizeof *ids);
	for (size_t i = 0; ids && i < n; i++)
		ids[i] = tasks[i]->id;
	c->refsum = ids ? reference_summary(byid, ids, n, o->keep_broken) : NULL;
	free(ids);
	if (!c->refsum) {
		json_decref(byid);
		return errfmt(err, errlen, "out of memory");
	}
	/* The broken tasks' items are dropped: no turn of theirs is asked,
	 * run or scored. */
	size_t k = 0;
	for (size_t i = 0; i < c->nitems; i++) {
		const json_t *r = json_object_get(byid, c->items[i].task->id);
		if (!o->keep_broken && r && reference_broken(r))
			continue;
		c->items[k++] = c->items[i];
	}
	*total -= c->nitems - k;
	c->nitems = k;
	json_decref(byid);
	return EVAL_OK;
}
