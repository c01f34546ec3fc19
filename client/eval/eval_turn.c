/* One task in one feedback setting, turn by turn: ask the generator (or
 * carry the previous result forward, as ConvCodeWorld does), run the code
 * against the task's tests in sandboxd, ask for verbal feedback, and append
 * the turn's record to turns.jsonl. */
#include "client/eval/eval_priv.h"

#include "common/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/eval/gen.h"
#include "client/eval/manifest.h"
#include "common/errfmt.h"

#define GEN_MAX_OUT (1u << 20)		 /* a model answer or a verbal feedback text */
#define CALL_TIMEOUT_MS (30 * 60 * 1000) /* one sandbox answer, queueing included */
#define PARTIAL_TESTS 3			 /* ConvCodeWorld's partial coverage */
/* The daemon's execution feedback when every test it shows passed. */
#define PASSED_ALL "Passed all test runs"

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : dflt;
}

static const char *fb_get(const json_t *rec, const char *k)
{
	return str_or(json_object_get(rec, K_FEEDBACK), k, "");
}

static bool is_pass(const json_t *rec)
{
	return rec && strcmp(str_or(rec, K_VERDICT, ""), "pass") == 0;
}

/* Code that was tested and compiled (a turn-0 generator failure has none). */
static bool compiled(const json_t *rec)
{
	return rec && *str_or(rec, K_CODE, "") &&
	       strcmp(str_or(rec, K_VERDICT, ""), "compile_error") != 0;
}

/* CF and CF_SNF: once the code compiles, compilation feedback says nothing
 * more and a novice who sees only that feedback has nothing to add, so
 * ConvCodeWorld keeps the code as it is (its CF-only column stays flat). */
static bool carries_compiled(const struct eval_setting *s)
{
	return !s->exec && s->verbal != VERBAL_EXPERT;
}

void eval_now_iso(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int eval_log_append(struct eval_ctx *c, const json_t *rec, char *err, size_t errlen)
{
	char *s = json_dumps(rec, JSON_COMPACT);
	if (!s) {
		errfmt(err, errlen, "cannot encode a turn record");
		return -1;
	}
	size_t n = strlen(s), off = 0;
	s[n++] = '\n'; /* the terminator's byte becomes the newline */
	int rc = 0;
	/* One write per line under the lock: lines of concurrent workers never
	 * interleave, and a kill leaves at most one torn line at the end. */
	pthread_mutex_lock(&c->log_mu);
	while (off < n) {
		ssize_t w = write(c->log_fd, s + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errfmt(err, errlen, "cannot write %s: %s", TURNS_FILE, errfmt_desc(errno));
			rc = -1;
			break;
		}
		off += (size_t)w;
	}
	pthread_mutex_unlock(&c->log_mu);
	free(s);
	return rc;
}

/* --- records ---------------------------------------------------------------- */

static json_t *rec_base(const struct eval_ctx *c, const struct eval_item *it, int turn)
{
	char now[32];
	eval_now_iso(now, sizeof now);
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s}", K_RUN_ID, c->run_id,
			      K_MODEL, c->model, K_SETTING, it->set->name, K_TASK_ID, it->task->id,
			      K_TURN, turn, K_TURNS, c->turns, K_MODE,
			      c->static_mode ? MODE_STATIC : MODE_LIVE, K_TIME, now);
	/* Only with --samples N > 1, so a run without it logs what it did before. */
	if (r && c->samples > 1 && json_object_set_new(r, K_SAMPLE, json_integer(it->sample)) < 0) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static json_t *feedback_obj(const char *comp, const char *exec, const char *verbal)
{
	return json_pack("{s:s, s:s, s:s}", K_FB_COMP, comp, K_FB_EXEC, exec, K_FB_VERBAL, verbal);
}

/* Sets what every record has; code/verdict/summary/feedback come from src
 * (a previous record) when given. */
static int rec_fill(json_t *r, const json_t *src)
{
	json_t *sum = src ? json_object_get(src, K_SUMMARY) : NULL;
	json_t *fb = src ? json_deep_copy(json_object_get(src, K_FEEDBACK)) : NULL;
	int rc = 0;
	rc |= json_object_set_new(r, K_CODE, json_string(src ? str_or(src, K_CODE, "") : ""));
	rc |= json_object_set_new(r, K_VERDICT,
				  json_string(src ? str_or(src, K_VERDICT, "error") : "error"));
	rc |= json_object_set_new(r, K_SUMMARY, sum ? json_deep_copy(sum) : json_null());
	rc |= json_object_set_new(r, K_FEEDBACK, fb ? fb : feedback_obj("", "", ""));
	rc |= json_object_set_new(r, K_USAGE, json_null());
	rc |= json_object_set_new(r, K_GEN_MS, json_integer(0));
	rc |= json_object_set_new(r, K_GEN_ERROR, json_null());
	rc |= json_object_set_new(r, K_GEN_STDERR, json_null());
	rc |= json_object_set_new(r, K_VERBAL_ERROR, json_null());
	rc |= json_object_set_new(r, K_VERBAL_STDERR, json_null());
	rc |= json_object_set_new(r, K_CARRIED, json_false());
	rc |= json_object_set_new(r, K_SYSTEM_MSG, json_null());
	rc |= json_object_set_new(r, K_USER_MSG, json_null());
	rc |= json_object_set_new(r, K_ASSISTANT_MSG, json_null());
	return rc ? -1 : 0;
}

/* A turn that keeps src's result: nothing is generated or run. */
static json_t *carry(const struct eval_ctx *c, const struct eval_item *it, int turn,
		     const json_t *src, bool from_ref)
{
	json_t *r = rec_base(c, it, turn);
	if (!r || rec_fill(r, src) < 0 || json_object_set_new(r, K_CARRIED, json_true()) < 0 ||
	    (from_ref && json_object_set_new(r, K_FROM_REF, json_true()) < 0)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* --- the generator ------------------------------------------------------------ */

/* Exactly the feedback the setting includes, from the turn before; and
 * what makes episodes independent (eval_sample.c). */
static json_t *gen_input(const struct eval_ctx *c, const struct eval_item *it, int turn,
			 const json_t *prev)
{
	const struct eval_setting *s = it->set;
	json_t *in = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id",
			       it->task->id, "turn", turn, "setting", s->name, "system_prompt",
			       eval_system_prompt(), "prompt", it->task->prompt, "entry_point",
			       it->task->entry_point ? it->task->entry_point : "", "previous_code",
			       prev ? str_or(prev, K_CODE, "") : "", "compilation_feedback",
			       prev ? fb_get(prev, K_FB_COMP) : "", "execution_feedback",
			       prev && s->exec ? fb_get(prev, K_FB_EXEC) : "", "verbal_feedback",
			       prev && s->verbal != VERBAL_NONE ? fb_get(prev, K_FB_VERBAL) : "");
	if (in && eval_sample_input(c, it, in) < 0) {
		json_decref(in);
		return NULL;
	}
	return in;
}

/* A model may print any bytes; JSON strings must be UTF-8, so invalid bytes
 * become U+FFFD (as the daemon does with a job's output). */
static char *utf8_clean(const char *text)
{
	return text_utf8_clean(text, strlen(text), NULL);
}

/* What a command call gave besides its text. */
struct call {
	long ms;
	char *raw;	   /* whatever it printed, also when it failed */
	char *stderr_tail; /* its stderr's tail when it failed, else NULL */
	bool interrupted;  /* by Ctrl-C: not a failure of the model, no record */
	char why[512];	   /* why it failed */
};

static void call_free(struct call *k)
{
	free(k->raw);
	free(k->stderr_tail);
}

/* Runs an external command on a JSON input; the text, or NULL (k->why). */
static char *run_command(const char *cmd, const json_t *in, int timeout_ms, struct call *k)
{
	char *s = json_dumps(in, JSON_COMPACT);
	struct gen_result r = {0};
	char *out = NULL;
	*k = (struct call){0};
	if (!s) {
		errfmt(k->why, sizeof k->why, "cannot encode the command's input");
		return NULL;
	}
	int rc = gen_run(cmd, s, timeout_ms, GEN_MAX_OUT, &r);
	free(s);
	k->ms = r.ms;
	k->interrupted = r.interrupted;
	k->raw = utf8_clean(r.output ? r.output : "");
	if (rc < 0 || r.error[0]) {
		errfmt(k->why, sizeof k->why, "%s",
		       r.error[0] ? r.error : "cannot start the command");
		k->stderr_tail = utf8_clean(r.stderr_tail);
	} else if (!k->raw || !(out = strdup(k->raw))) {
		errfmt(k->why, sizeof k->why, "out of memory");
	}
	gen_result_free(&r);
	return out;
}

/* --- sandboxd -------------------------------------------------------------------- */

static json_t *test_request(const struct eval_ctx *c, const struct eval_item *it, const char *code,
			    const char *id)
{
	const struct ds_task *t = it->task;
	const struct eval_opts *o = c->o;
	enum proto_coverage cov = it->set->exec ? it->set->cov : COV_NONE;
	char *joined = NULL;
	if (t->test_setup) {
		/* MBPP's harness: code, then its setup, then the tests. Appended, so
		 * the candidate's line numbers are unchanged. */
		size_t n = strlen(code) + strlen(t->test_setup) + 2;
		if (!(joined = malloc(n)))
			return NULL;
		snprintf(joined, n, "%s\n%s", code, t->test_setup);
		code = joined;
	}
	json_t *req = json_pack("{s:s, s:s, s:s, s:O, s:s, s:i}", F_ID, id, F_CODE, code, F_FORMAT,
				proto_format_name(t->test_format), F_TESTS, t->tests, F_COVERAGE,
				proto_coverage_name(cov), F_PARTIAL_TESTS, PARTIAL_TESTS);
	free(joined);
	if (!req)
		return NULL;
	int rc = 0;
	if (t->entry_point)
		rc |= json_object_set_new(req, F_ENTRY_POINT, json_string(t->entry_point));
	if (o->partial_mode == PM_CONVCODEWORLD && cov == COV_PARTIAL &&
	    t->test_format == FMT_UNITTEST)
		rc |= json_object_set_new(req, F_PARTIAL_MODE,
					  json_string(PARTIAL_MODE_CONVCODEWORLD));
	/* A model in this loop could copy a case's expected output into its
	 * code: stdio feedback hides it unless asked (the daemon's default
	 * shows it). */
	if (t->test_format == FMT_STDIO && !o->show_expected) {
		rc |= json_object_set_new(req, F_EXPECTED_OUTPUT, json_string(EXPECTED_HIDE));
		rc |= json_object_set_new(
		    req, F_EXPECTED_VISIBLE_CHARS,
		    json_integer(o->expected_visible > 0 ? o->expected_visible : 0));
	}
	/* Per task, so a task's runs do not depend on the order, the shard or
	 * the other tasks of the run. */
	rc |= json_object_set_new(req, F_SEED,
				  json_integer(c->seed_per_task
						   ? (json_int_t)manifest_task_seed(c->seed, t->id)
						   : (json_int_t)c->seed));
	json_t *lim = json_object();
	for (int i = 0; lim && i < PROTO_NLIMITS; i++)
		if (proto_limit_get(&o->limits, i) > 0)
			rc |= json_object_set_new(lim, proto_limit_names[i],
						  json_integer(proto_limit_get(&o->limits, i)));
	if (lim && json_object_size(lim))
		rc |= json_object_set(req, F_LIMITS, lim);
	json_decref(lim);
	if (rc || !lim) {
		json_decref(req);
		return NULL;
	}
	return req;
}

/* Errors about this one request are the turn's result; the others (the
 * daemon stopping, refusing us, failing inside) stop the evaluation, since
 * recording them would make a resume skip turns that never ran. */
static bool request_error(const char *code)
{
	return strcmp(code, "bad_json") == 0 || strcmp(code, "bad_request") == 0 ||
	       strcmp(code, "too_large") == 0 || strcmp(code, "bad_path") == 0;
}

/* Why the last turn of this thread could not go on (an enum eval_status):
 * set where the cause is known, deep in a turn, and read by eval_item_run,
 * so the functions between need no extra channel. */
static _Thread_local int turn_status;

/* The daemon's answer (a result or an error about this request), or NULL
 * when the evaluation cannot go on. */
static json_t *run_tests(struct eval_ctx *c, struct sbx_conn *conn, const struct eval_item *it,
			 int turn, const char *code, char *err, size_t errlen)
{
	char id[96];
	static unsigned long seq; /* ids only need to be unique per connection */
	snprintf(id, sizeof id, "t%d-%lu", turn, __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	json_t *req = test_request(c, it, code, id);
	if (!req) {
		errfmt(err, errlen, "cannot build the test request for %s", it->task->id);
		return NULL;
	}
	/* libsbx retries `busy` (o->retry); one that still comes back stops
	 * the evaluation like any refusal. */
	json_t *resp = sbx_call(conn, req, CALL_TIMEOUT_MS, err, errlen);
	json_decref(req);
	if (!resp) {
		turn_status = EVAL_UNREACHABLE; /* gone, or no answer in time */
		return NULL;
	}
	const json_t *e = json_object_get(resp, R_ERROR);
	const char *ecode = str_or(e, R_ERROR_CODE, "");
	if (!e || request_error(ecode))
		return resp;
	turn_status = EVAL_DAEMON_ERROR;
	errfmt(err, errlen, "sandboxd: %s: %s", ecode, str_or(e, R_ERROR_MESSAGE, ""));
	json_decref(resp);
	return NULL;
}

/* The setting's view of the daemon's answer. */
static int fill_result(json_t *r, const json_t *resp, const struct eval_setting *s)
{
	const json_t *e = json_object_get(resp, R_ERROR);
	const json_t *fb = json_object_get(resp, R_FEEDBACK);
	const json_t *sum = json_object_get(resp, R_SUMMARY), *use = json_object_get(resp, R_USAGE);
	int rc = 0;
	rc |= json_object_set_new(r, K_VERDICT,
				  json_string(e ? "error" : str_or(resp, R_VERDICT, "error")));
	rc |= json_object_set_new(r, K_SUMMARY, sum ? json_deep_copy(sum) : json_null());
	rc |= json_object_set_new(r, K_USAGE, use ? json_deep_copy(use) : json_null());
	rc |= json_object_set_new(r, K_FEEDBACK,
				  feedback_obj(str_or(fb, FB_COMPILATION, ""),
					       s->exec ? str_or(fb, FB_EXECUTION, "") : "", ""));
	if (e)
		rc |= json_object_set_new(r, K_DAEMON_ERROR,
					  json_string(str_or(e, R_ERROR_MESSAGE, "error")));
	else if (*str_or(resp, R_MESSAGE, ""))
		rc |= json_object_set_new(r, R_MESSAGE, json_string(str_or(resp, R_MESSAGE, "")));
	return rc ? -1 : 0;
}

/* --- verbal feedback --------------------------------------------------------------- */

/* A novice sees the task, the code and the feedback the setting shows; an
 * expert also sees the reference solution (and is told not to reveal it).
 * False when Ctrl-C interrupted it (the turn is then not recorded). */
static bool verbal_feedback(struct eval_ctx *c, const struct eval_item *it, int turn, json_t *r)
{
	bool expert = it->set->verbal == VERBAL_EXPERT;
	json_t *in = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", it->task->id, "level",
			       expert ? "expert" : "novice", "prompt", it->task->prompt, "code",
			       str_or(r, K_CODE, ""), "compilation_feedback", fb_get(r, K_FB_COMP),
			       "execution_feedback", fb_get(r, K_FB_EXEC));
	struct call k = {0};
	char *text = NULL;
	if (in && expert)
		json_object_set_new(in, "reference_solution",
				    json_string(it->task->reference ? it->task->reference : ""));
	if (in)
		text = run_command(c->o->verbal, in, c->o->gen_timeout_ms, &k);
	else
		snprintf(k.why, sizeof k.why, "cannot build the verbal command's input");
	json_decref(in);
	if (k.interrupted) {
		free(text);
		call_free(&k);
		return false;
	}
	eval_errors_count(c, it, turn, false, text ? NULL : k.why, k.stderr_tail);
	if (text) {
		size_t n = strlen(text);
		while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
			text[--n] = '\0';
	}
	json_object_set_new(json_object_get(r, K_FEEDBACK), K_FB_VERBAL,
			    json_string(text ? text : ""));
	if (!text) {
		json_object_set_new(r, K_VERBAL_ERROR, json_string(k.why));
		json_object_set_new(r, K_VERBAL_STDERR,
				    json_string(k.stderr_tail ? k.stderr_tail : ""));
	}
	free(text);
	call_free(&k);
	return true;
}

/* Verbal feedback is for the next turn: none after the last turn (it would
 * be a paid call nobody reads; a resume with more turns asks it then), none
 * when the task is solved, none when the next turn carries this code
 * forward anyway, none in static mode (the next turn replays the
 * reference's), and no novice when the tests the setting shows all passed:
 * a novice who sees only that has nothing to say (ConvCodeWorld asks no
 * novice then either). */
static bool wants_verbal(const struct eval_ctx *c, const struct eval_item *it, const json_t *r,
			 int turn)
{
	const struct eval_setting *s = it->set;
	if (turn >= c->turns || c->static_mode || s->verbal == VERBAL_NONE || is_pass(r))
		return false;
	if (!c->o->always_regenerate && carries_compiled(s) && compiled(r))
		return false;
	return !(s->verbal == VERBAL_NOVICE && s->exec &&
		 strcmp(fb_get(r, K_FB_EXEC), PASSED_ALL) == 0);
}

/* The record of a run's last turn, resumed with a larger --turns: it got no
 * verbal feedback then, and the next turn needs it. Not for carried turns
 * or failed generators, which never ask, nor when a call was made (its
 * text, or its failure, is there). */
static bool verbal_missing(const struct eval_ctx *c, const struct eval_item *it, const json_t *r,
			   int turn)
{
	return !json_is_true(json_object_get(r, K_CARRIED)) &&
	       !json_is_string(json_object_get(r, K_GEN_ERROR)) &&
	       !json_is_string(json_object_get(r, K_VERBAL_ERROR)) && !*fb_get(r, K_FB_VERBAL) &&
	       wants_verbal(c, it, r, turn);
}

/* --- one turn ----------------------------------------------------------------------- */

/* Asks the generator with ctx (the turn the model improves on: its own
 * previous turn, or the reference's in static mode) and tests the answer. */
static json_t *generate(struct eval_ctx *c, struct sbx_conn *conn, const struct eval_item *it,
			int turn, const json_t *ctx, char *err, size_t errlen)
{
	json_t *in = gen_input(c, it, turn, ctx);
	char *user = in ? eval_render_prompt(in) : NULL;
	json_t *r = rec_base(c, it, turn);
	if (!in || !user || !r || rec_fill(r, ctx) < 0) {
		errfmt(err, errlen, "out of memory");
		goto fail;
	}
	struct call k;
	char *answer = run_command(c->o->generator, in, c->o->gen_timeout_ms, &k);
	if (k.interrupted) {
		free(answer);
		call_free(&k);
		turn_status = EVAL_INTERRUPTED;
		errfmt(err, errlen, "interrupted");
		goto fail;
	}
	eval_errors_count(c, it, turn, true, answer ? NULL : k.why, k.stderr_tail);
	json_object_set_new(r, K_GEN_MS, json_integer(k.ms));
	json_object_set_new(r, K_SYSTEM_MSG, json_string(eval_system_prompt()));
	json_object_set_new(r, K_USER_MSG, json_string(user));
	json_object_set_new(r, K_ASSISTANT_MSG, json_string(k.raw ? k.raw : ""));
	if (!answer) {
		/* The model failed, not the evaluation: the turn keeps the code and
		 * result it was asked to improve, and the next turn asks again. */
		json_object_set_new(r, K_GEN_ERROR, json_string(k.why));
		json_object_set_new(r, K_GEN_STDERR,
				    json_string(k.stderr_tail ? k.stderr_tail : ""));
		call_free(&k);
		goto done;
	}
	call_free(&k);
	char *code = gen_extract_code(answer);
	free(answer);
	json_t *resp = code ? run_tests(c, conn, it, turn, code, err, errlen) : NULL;
	if (!code)
		errfmt(err, errlen, "out of memory");
	if (!resp) {
		free(code);
		goto fail;
	}
	progress_job(c->prog);
	json_object_set_new(r, K_CODE, json_string(code));
	free(code);
	int frc = fill_result(r, resp, it->set);
	json_decref(resp);
	if (frc < 0) {
		errfmt(err, errlen, "out of memory");
		goto fail;
	}
	if (wants_verbal(c, it, r, turn) && !verbal_feedback(c, it, turn, r)) {
		turn_status = EVAL_INTERRUPTED;
		errfmt(err, errlen, "interrupted");
		goto fail;
	}
done:
	json_decref(in);
	free(user);
	return r;
fail:
	json_decref(in);
	free(user);
	json_decref(r);
	return NULL;
}

/* The record of one turn, or NULL when the evaluation cannot go on. */
static json_t *turn_run(struct eval_ctx *c, struct sbx_conn *conn, const struct eval_item *it,
			int turn, const json_t *prev, char *err, size_t errlen)
{
	if (is_pass(prev))
		return carry(c, it, turn, prev, false); /* solved: never asked again */
	json_t *ref_prev = NULL, *r = NULL;
	const json_t *ctx = prev;
	if (c->static_mode) {
		/* ConvCodeBench: when the reference's own conversation has passing
		 * code at this turn, the task counts as solved here (turn 0 always;
		 * later turns up to N-1) and the model is not asked. */
		if (turn == 0 || turn < c->turns) {
			json_t *ref = ri_get(c->ref, it->set->name, it->task->id, 0, turn);
			if (!ref) {
				errfmt(err, errlen, "reference has no record for %s %s turn %d",
				       it->set->name, it->task->id, turn);
				return NULL;
			}
			r = is_pass(ref) ? carry(c, it, turn, ref, true) : NULL;
			json_decref(ref);
			if (r)
				return r;
		}
		if (turn > 0) {
			ref_prev = ri_get(c->ref, it->set->name, it->task->id, 0, turn - 1);
			if (!ref_prev) {
				errfmt(err, errlen, "reference has no record for %s %s turn %d",
				       it->set->name, it->task->id, turn - 1);
				return NULL;
			}
		}
		ctx = ref_prev;
	}
	if (turn > 0 && !c->o->always_regenerate && carries_compiled(it->set) && compiled(ctx))
		r = carry(c, it, turn, ctx, c->static_mode);
	else
		r = generate(c, conn, it, turn, ctx, err, errlen);
	if (!r && !*err)
		errfmt(err, errlen, "out of memory");
	json_decref(ref_prev);
	return r;
}

int eval_item_run(struct eval_ctx *c, struct sbx_conn *conn, const struct eval_item *it,
		  bool *solved, char *err, size_t errlen)
{
	json_t *prev = NULL;
	*err = '\0';
	turn_status = EVAL_FAILED;
	if (it->done_turns > 0) {
		/* Resume from the last finished turn's record: its code, verdict and
		 * feedback are all the next turn needs. */
		prev =
		    ri_get(c->resume, it->set->name, it->task->id, it->sample, it->done_turns - 1);
		if (!prev) {
			errfmt(err, errlen, "cannot read back %s %s turn %d from %s", it->set->name,
			       it->task->id, it->done_turns - 1, TURNS_FILE);
			return -1;
		}
	}
	int rc = 0;
	/* Asked now, and the record rewritten when the run ends (eval_verbal.c);
	 * a failed call is recorded there as at any turn. */
	if (prev && verbal_missing(c, it, prev, it->done_turns - 1)) {
		if (!verbal_feedback(c, it, it->done_turns - 1, prev))
			rc = EVAL_INTERRUPTED;
		else if (eval_verbal_queue(c, prev) < 0)
			rc = EVAL_FAILED;
		if (rc < 0) {
			errfmt(err, errlen, rc == EVAL_FAILED ? "out of memory" : "interrupted");
			json_decref(prev);
			return rc;
		}
	}
	/* A run that is stopping leaves the item where it is: a resume goes on
	 * from its last record. */
	for (int t = it->done_turns; t <= c->turns && !eval_errors_stopping(c); t++) {
		json_t *r = turn_run(c, conn, it, t, prev, err, errlen);
		if (!r || eval_log_append(c, r, err, errlen) < 0) {
			json_decref(r);
			rc = r ? EVAL_FAILED : turn_status;
			break;
		}
		json_decref(prev);
		prev = r;
	}
	*solved = is_pass(prev);
	json_decref(prev);
	/* Durable per task: a crash loses at most the task in flight. */
	if (fsync(c->log_fd) < 0 && rc == 0) {
		errfmt(err, errlen, "cannot sync %s: %s", TURNS_FILE, errfmt_desc(errno));
		rc = EVAL_FAILED;
	}
	return rc;
}
