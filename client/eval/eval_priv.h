/* Internals of `sbx eval` shared by eval.c (the run: options, resume,
 * workers), eval_turn.c (one task × setting through its turns),
 * eval_errors.c (stopping the run), eval_outdir.c (--out before the run),
 * eval_sample.c (--samples), eval_verbal.c (late verbal feedback),
 * recindex.c (the turns.jsonl log's
 * index and rewrites), trace.c (traces.jsonl) and progress.c. */
#ifndef SBX_EVAL_PRIV_H
#define SBX_EVAL_PRIV_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/eval/eval.h"
#include "client/lib/sbx.h"

/* Record fields of turns.jsonl (docs/eval.md documents each one). */
#define K_RUN_ID "run_id"
#define K_MODEL "model"
#define K_SETTING "setting"
#define K_TASK_ID "task_id"
#define K_TURN "turn"
#define K_TURNS "turns"
#define K_MODE "mode"
#define K_CODE "code"
#define K_VERDICT "verdict"
#define K_SUMMARY "summary"
#define K_FEEDBACK "feedback"
#define K_FB_COMP "compilation"
#define K_FB_EXEC "execution"
#define K_FB_VERBAL "verbal"
#define K_USAGE "usage"
#define K_GEN_MS "generator_ms"
#define K_GEN_ERROR "generator_error"
#define K_VERBAL_ERROR "verbal_error"
#define K_GEN_STDERR "generator_stderr"
#define K_VERBAL_STDERR "verbal_stderr"
#define K_DAEMON_ERROR "daemon_error"
#define K_CARRIED "carried"
#define K_FROM_REF "from_reference"
#define K_USER_MSG "user_message"
#define K_SYSTEM_MSG "system_message"
#define K_ASSISTANT_MSG "assistant_message"
#define K_TIME "time"
#define K_SAMPLE "sample" /* --samples N > 1 only: the episode, 0..N-1 */

#define MODE_LIVE "live"
#define MODE_STATIC "static"

#define TURNS_FILE "turns.jsonl"
#define TRACES_FILE "traces.jsonl"
#define SUMMARY_FILE "summary.json"

/* --- the record index (recindex.c) ---------------------------------------
 * Where each (setting, task, turn) record sits in a turns.jsonl, so a resume
 * or a ConvCodeBench replay reads one record at a time instead of holding a
 * whole run (records carry code and prompts: a full run is large). */
struct rec_index;

/* Indexes path. With repair, a torn last line (a run killed mid-write) is
 * cut off the file. A missing file is an empty index. Malformed lines in the
 * middle and duplicate (setting, task, turn) keys are reported to warn and
 * skipped (the first wins). NULL on failure with err set. */
struct rec_index *ri_load(const char *path, bool repair, FILE *warn, char *err, size_t errlen);
void ri_free(struct rec_index *ri);
/* Records indexed; the largest "turns" the records of a setting carry (-1
 * when none); the "mode" and "run_id" of the first record (NULL when empty). */
size_t ri_count(const struct rec_index *ri);
int ri_max_turns(const struct rec_index *ri, const char *setting);
const char *ri_mode(const struct rec_index *ri);
const char *ri_run_id(const struct rec_index *ri);
bool ri_has_setting(const struct rec_index *ri, const char *setting);
/* A (setting, task, sample) is one episode: a whole conversation (sample 0
 * for records without "sample"). */
/* Number of records from turn 0 on with no gap (the turns a resume keeps). */
int ri_done_turns(const struct rec_index *ri, const char *setting, const char *task, int sample);
/* The first turn recorded as passing, or -1. */
int ri_first_pass(const struct rec_index *ri, const char *setting, const char *task, int sample);
/* The first turn whose generator or verbal command failed, or -1. */
int ri_first_failed(const struct rec_index *ri, const char *setting, const char *task, int sample);
/* The record, read back from the file (new reference), or NULL when absent. */
json_t *ri_get(const struct rec_index *ri, const char *setting, const char *task, int sample,
	       int turn);
/* The largest sample indexed (0 without --samples). */
int ri_max_sample(const struct rec_index *ri);
/* A record's "sample": 0 when absent, -1 when not an integer
 * 0..PASSK_MAX_SAMPLES-1. */
int ri_record_sample(const json_t *r);
/* Rewrites every record of these settings with "turns" = turns (tmp file +
 * rename), for a rerun with a larger --turns. */
int ri_rewrite_turns(const char *path, const char *const *settings, size_t n, int turns, char *err,
		     size_t errlen);
/* Rewrites path (the file ri indexes; ri is stale afterwards) without the
 * records of these settings from each pair's first failed turn on, so a
 * resume asks them again; *dropped counts them. */
int ri_drop_failed(const struct rec_index *ri, const char *path, const char *const *settings,
		   size_t n, size_t *dropped, char *err, size_t errlen);
/* The (setting, task, sample) episodes indexed, in order of first appearance. */
size_t ri_items(const struct rec_index *ri);
void ri_item_key(const struct rec_index *ri, size_t i, const char **setting, const char **task,
		 int *sample);
/* traces.jsonl from an index of the run's turns.jsonl (tmp file + rename;
 * trace.c). */
int trace_write(const struct rec_index *ri, const char *path, char *err, size_t errlen);

/* --- progress (progress.c) ------------------------------------------------ */
struct progress;
/* NULL (a no-op progress) unless enabled and stderr is a terminal. */
struct progress *progress_new(bool enabled, size_t total, size_t already_done,
			      size_t already_solved);
void progress_job(struct progress *p);		     /* a sandbox run finished */
void progress_item(struct progress *p, bool solved); /* a task × setting finished */
void progress_end(struct progress *p);		     /* final line, newline, free */

/* --- the run (eval.c) and one work item (eval_turn.c) -------------------- */
struct eval_item {
	const struct eval_setting *set;
	const struct ds_task *task;
	int sample;	/* --samples: the episode, 0..samples-1 */
	int done_turns; /* records already in turns.jsonl (resume) */
};

struct eval_ctx {
	const struct eval_opts *o;
	const char *model;
	char run_id[64];
	json_t *manifest;   /* what this run is (manifest.h), written before it starts */
	long long seed;	    /* the test runs' seed, or the base of per-task ones */
	bool seed_per_task; /* each task's runs get manifest_task_seed(seed, id) */
	bool static_mode;
	int turns;
	int samples;		  /* episodes per task and setting (--samples) */
	int log_fd;		  /* turns.jsonl, O_APPEND */
	pthread_mutex_t log_mu;	  /* one write() per record line, whole lines only */
	struct rec_index *resume; /* the out dir's records at start */
	struct rec_index *ref;	  /* --reference records, or NULL */
	struct eval_item *items;
	size_t nitems;
	size_t next;	    /* next item to hand out (under mu) */
	pthread_mutex_t mu; /* next, failed, status, err, the error counts */
	bool failed;	    /* a failure of the run stops every worker */
	int status;	    /* its enum eval_status */
	char err[1024];
	/* Records of earlier last turns whose verbal feedback this resume
	 * asked (under mu), for eval_verbal_patch. */
	json_t *verbal_patches;
	size_t asked;	       /* generator calls of this run */
	size_t errors;	       /* generator and verbal calls that failed */
	char first_error[768]; /* the first of them, with its stderr's last line */
	struct progress *prog;
	json_t *refsum; /* --check-reference: the summary's "reference", or NULL */
};

/* --- failures (eval_errors.c) ---------------------------------------------- */
/* Stops the run (the first call's status and message win). */
void eval_errors_stop(struct eval_ctx *c, int status, const char *msg);
/* True once the run is stopping (a failure, --max-errors, Ctrl-C). */
bool eval_errors_stopping(struct eval_ctx *c);
/* Counts one model-command call of this run: a generator call (generator)
 * or a verbal one, failed when why is non-NULL (stderr: its stderr's tail).
 * Past --max-errors it stops the run with a message that names the first
 * failure. */
void eval_errors_count(struct eval_ctx *c, const struct eval_item *it, int turn, bool generator,
		       const char *why, const char *stderr_tail);

/* --out before the workers start (eval_outdir.c): the manifest settled in
 * c->manifest (not written), the directory, the records there (c->resume,
 * c->run_id) and the items to do (c->items; total, done, solved count the
 * pairs). 0, or -1 with err. */
int eval_outdir_prepare(struct eval_ctx *c, const struct ds_task **tasks, size_t ntasks,
			const struct eval_setting **sets, size_t nsets, const json_t *ping,
			const char *turns_path, size_t *total, size_t *done, size_t *solved,
			char *err, size_t errlen);

/* The daemon's ping answer (eval.c); NULL with *status and err. */
json_t *eval_daemon_ping(const char *sock, const struct sbx_retry *retry, bool need_workers,
			 int *status, char *err, size_t errlen);
/* The tasks --tasks and --shard select, in data set order (eval.c). */
int eval_select_tasks(const struct eval_opts *o, const struct ds_set *ds,
		      const struct ds_task ***out, size_t *n, char *err, size_t errlen);
/* The format's default limits (fmt_limits.h) for those o leaves unset,
 * within the daemon's memory budget (ping); o->limits_defaulted says
 * which, and who ("sbx eval") prints the limits used on stderr. */
void fmt_limits_opts(struct eval_opts *o, const json_t *ping, const char *who);

/* --- reference checks (reference_run.c) ----------------------------------- */
/* Each task's reference record (reference.h), checking those that
 * out_dir/reference.jsonl lacks with jobs connections; new reference by
 * task id, or NULL with *status (enum eval_status) and err. */
json_t *reference_run_check(const struct eval_opts *o, const struct ds_task **tasks, size_t n,
			    const json_t *ping, int jobs, int *status, char *err, size_t errlen);
/* --check-reference in `sbx eval`: the check, c->refsum, and the broken
 * tasks' items dropped unless --keep-broken (*total less them). */
int reference_run_eval(struct eval_ctx *c, const struct ds_task **tasks, size_t n,
		       const json_t *ping, size_t *total, char *err, size_t errlen);

/* Runs one item's remaining turns, appending each record as it finishes,
 * until they are done or the run is stopping. An enum eval_status (with
 * err) when the evaluation cannot go on: the daemon is gone or refuses,
 * the log cannot be written, Ctrl-C. Model and sandbox failures are
 * records. */
int eval_item_run(struct eval_ctx *c, struct sbx_conn *conn, const struct eval_item *it,
		  bool *solved, char *err, size_t errlen);
/* Late verbal feedback (eval_verbal.c): a record of an earlier last turn
 * whose verbal feedback this resume asked, queued (a reference; r must not
 * change after) to be
 * rewritten in turns.jsonl. 0, or -1 when out of memory. */
int eval_verbal_queue(struct eval_ctx *c, const json_t *r);
/* After the workers: rewrites turns.jsonl with the queued records. 0 or -1. */
int eval_verbal_patch(struct eval_ctx *c, const char *turns_path, char *err, size_t errlen);
/* Rewrites path with each record of patches (a JSON array) in place of the
 * record with its (setting, task, sample, turn). 0 or -1 with err. */
int ri_patch_records(const char *path, const json_t *patches, char *err, size_t errlen);
/* --samples and --temperature in a generator input: "sample" and "seed"
 * (manifest_sample_seed) with N > 1, "temperature" when given
 * (eval_sample.c). 0 or -1. */
int eval_sample_input(const struct eval_ctx *c, const struct eval_item *it, json_t *in);
/* Appends one record as one line (one write() under log_mu). */
int eval_log_append(struct eval_ctx *c, const json_t *rec, char *err, size_t errlen);
/* ISO-8601 UTC time, now. */
void eval_now_iso(char *buf, size_t len);
/* The readable prompt a generator input stands for (what the model saw;
 * eval_prompt.c). */
char *eval_render_prompt(const json_t *input);
/* The system message the generator is asked to send (eval_prompt.c). */
const char *eval_system_prompt(void);

#endif
