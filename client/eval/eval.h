/* `sbx eval`: ConvCodeWorld's multi-turn loop against a sandboxd daemon.
 * Turn 0 is the model's first code; each later turn gives the model the
 * task, its previous code and the feedback its setting includes. */
#ifndef SBX_EVAL_H
#define SBX_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/protocol.h"
#include "client/eval/dataset.h"
#include "client/lib/sbx.h"

enum verbal_level { VERBAL_NONE, VERBAL_NOVICE, VERBAL_EXPERT };

/* One of ConvCodeWorld's nine feedback settings. */
struct eval_setting {
	const char *name;	  /* as in ConvCodeWorld's result files, e.g. CF_EF_UNIT_SNF */
	bool exec;		  /* execution feedback shown at all */
	enum proto_coverage cov;  /* COV_PARTIAL for EF_UNIT, COV_FULL for EF_FULL */
	enum verbal_level verbal; /* SNF novice, SEF expert */
};

/* NULL when unknown. */
const struct eval_setting *eval_setting_find(const char *name);
/* All nine, in ConvCodeWorld's table order. */
const struct eval_setting *eval_settings(size_t *n);

#define EVAL_MAX_SETTINGS 9
/* --max-errors: by default the run stops once the model commands failed in
 * more than a tenth of the turns asked, and never for fewer failures than
 * EVAL_MIN_ERRORS (one flaky call must not stop a long run). */
#define EVAL_MAX_ERROR_RATE 0.1
#define EVAL_MIN_ERRORS 5
/* The seed without --seed (recorded in manifest.json): each task's test
 * runs get their own seed derived from it (manifest_task_seed). */
#define EVAL_DEFAULT_SEED 42
/* --temperature: the largest a generator is given (model APIs take 0..2). */
#define EVAL_MAX_TEMPERATURE 10.0

struct eval_opts {
	const char *socket;
	const char *dataset;
	enum ds_format format;
	const char *generator; /* shell command */
	const char *verbal;    /* shell command, or NULL (settings with SNF/SEF need it) */
	const char *reference; /* ConvCodeBench: a reference run's directory, or NULL */
	const char *settings[EVAL_MAX_SETTINGS];
	size_t nsettings;
	int turns; /* feedback turns after turn 0 (ConvCodeWorld: 10) */
	int jobs;  /* concurrent tasks; 0 = the daemon's worker count */
	const char *out_dir;
	int shard_i, shard_n;	  /* this process does tasks with index % n == i */
	const char *const *tasks; /* only these task ids (NULL = all) */
	size_t ntasks;
	long long seed; /* every test run's seed; -1: EVAL_DEFAULT_SEED's per-task seeds */
	bool always_regenerate;
	const char *model;	    /* recorded in traces ("model"); default "unknown" */
	int gen_timeout_ms;	    /* per generator / verbal call */
	struct proto_limits limits; /* per sandbox run; -1 = the daemon's defaults */
	bool progress;		    /* a live line on stderr (only when it is a terminal) */
	struct sbx_retry retry;	    /* for `busy` (sbx.h); a run refused past it stops */
	/* The run stops when its generator and verbal-command failures exceed
	 * max_error_rate of the turns it asked (and EVAL_MIN_ERRORS), or, when
	 * max_errors >= 0, exceed max_errors. */
	double max_error_rate;
	long max_errors;
	bool catch_sigint; /* Ctrl-C stops the run cleanly (EVAL_INTERRUPTED); a second kills */
	/* A resume asks again the turns whose generator or verbal command
	 * failed (and the turns after them); false keeps them as recorded. */
	bool retry_errors;
	/* Continue a run in out_dir even when its manifest.json says it was
	 * another one (the override is recorded there). */
	bool force_resume;
	/* Run every task's reference solution first (reference.h) and leave
	 * out the tasks whose reference fails here, unless keep_broken. */
	bool check_reference;
	bool keep_broken;
	/* Set by eval_run: the limits that came from the format's defaults
	 * (fmt_limits.h), a mask of proto_limit_names indices. */
	unsigned limits_defaulted;
	/* stdio tasks: the feedback text hides each case's expected output
	 * past its first expected_visible chars (protocol expected_output
	 * "hide"), so a model cannot copy answers into its code; show_expected
	 * shows them whole (--show-expected). expected_visible -1: not given
	 * (0). */
	bool show_expected;
	long expected_visible;
	/* Which tests EF_UNIT settings show: the fixed rule (the first 3 test
	 * methods) or ConvCodeWorld's own (--partial-mode convcodeworld: the
	 * first 3 method definitions, setUp and helpers included), for scores
	 * comparable with its published ones. */
	enum proto_partial_mode partial_mode;
	/* --samples: independent episodes per task and setting
	 * (1..PASSK_MAX_SAMPLES); --temperature for the generator (< 0: not
	 * given, the generator's own default). */
	int samples;
	double temperature;
};

/* What eval_run returns: 0, or why it did not finish. */
enum eval_status {
	EVAL_OK = 0,
	EVAL_FAILED = -1,	/* bad options or data, the log unwritable, --max-errors */
	EVAL_UNREACHABLE = -2,	/* sandboxd could not be reached, or went away */
	EVAL_DAEMON_ERROR = -3, /* sandboxd refused to go on (shutting down, limits, ...) */
	EVAL_INTERRUPTED = -4,	/* SIGINT (catch_sigint) */
};

void eval_opts_default(struct eval_opts *o);
/* Runs (or resumes) the evaluation and writes turns.jsonl, traces.jsonl and
 * summary.json into out_dir; prints the score table to stdout. Nothing is
 * created in out_dir before sandboxd answered a ping. An enum eval_status,
 * with err set when not EVAL_OK. */
int eval_run(const struct eval_opts *o, char *err, size_t errlen);

#endif
