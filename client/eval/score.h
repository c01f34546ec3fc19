/* Scores from turns.jsonl records: Pass@1 after each turn, MRR and Recall
 * per feedback setting (ConvCodeWorld's definitions), merged over any number
 * of files so shard outputs add up to exactly the single-run numbers. */
#ifndef SBX_SCORE_H
#define SBX_SCORE_H

#include <jansson.h>
#include <stdio.h>

#include "client/eval/passk.h"

struct score_setting {
	char *name;
	size_t tasks;
	int turns;	   /* feedback turns after turn 0 (the records' "turns") */
	double *pass_at_1; /* turns + 1 values: episodes solved by turn t / episodes */
	double mrr;	   /* mean over episodes of 1 / (first passing turn + 1), 0 if never */
	double recall;	   /* episodes solved by the last turn / episodes */
	/* --samples: an episode is one sample's conversation (the records'
	 * "sample", 0 when absent); without it, one per task. */
	size_t episodes;
	int samples, max_samples; /* the fewest and most episodes of a task */
	/* When a task has several episodes: the unbiased pass@k per turn for
	 * each k of passk_ks(samples), over all tasks (turns + 1 values each). */
	size_t nk;
	int ks[PASSK_MAX_KS];
	double *pass_at_k[PASSK_MAX_KS];
	/* Records whose generator / verbal command failed (a non-null
	 * "generator_error" / "verbal_error"). */
	size_t generator_errors, verbal_errors;
};

struct score_table {
	struct score_setting *v; /* sorted by ConvCodeWorld's setting order, then name */
	size_t n;
	size_t records;	   /* records read */
	size_t duplicates; /* (setting, task, turn) seen more than once */
	void *priv;	   /* accumulation state of score.c */
};

/* A record counts when it has string "setting", "task_id", integer "turn" ≥ 0,
 * integer "turns" (≤ 1000, ≥ turn), a "verdict" (string or null) and, if
 * any, an integer "sample" 0..PASSK_MAX_SAMPLES-1; it is solved when verdict
 * == "pass". An episode (setting, task, sample) is solved at turn t if any
 * of its turns ≤ t passed; (setting, task, sample, turn) is the key of
 * duplicates. The table starts zeroed. Returns 0 when the record was
 * taken (a duplicate too), -1 when it is invalid or memory ran out. */
int score_add_record(struct score_table *t, const json_t *record);
/* Reads files (or DIR/turns.jsonl for a directory) into a fresh table and
 * computes the metrics. Bad lines are reported to warn with FILE:LINE. */
int score_load(const char *const *paths, size_t n, FILE *warn, struct score_table *out, char *err,
	       size_t errlen);
/* score_load, and each record it takes is also given to each (in file
 * order; not the duplicates the scores ignore, nor bad lines), so a caller
 * sees exactly the records the numbers come from. each returns 0, or -1 when
 * out of memory, which fails the load. */
typedef int (*score_each_fn)(const json_t *record, void *ctx);
int score_load_each(const char *const *paths, size_t n, FILE *warn, score_each_fn each, void *ctx,
		    struct score_table *out, char *err, size_t errlen);
/* Computes the metrics after records were added (again, if called twice). */
void score_finish(struct score_table *t);
/* {"settings": {NAME: {"tasks", "turns", "pass_at_1": [...], "mrr", "recall",
 * "generator_errors", "verbal_errors"}}}, and when a task has several
 * episodes also "samples", "episodes" and "pass_at_k": {"K": [...]}. */
json_t *score_to_json(const struct score_table *t);
/* The largest number of turns among the settings. */
int score_max_turns(const struct score_table *t);
/* A readable table: setting × Pass@1 per turn, MRR, Recall (percentages),
 * and the generator and verbal-command failures. */
void score_print(const struct score_table *t, FILE *f);
/* Pass@1 per turn, one line per setting: the <svg> element alone (for
 * inlining in HTML), and as a standalone SVG file written atomically. */
void score_svg_write(const struct score_table *t, FILE *f);
int score_plot_svg(const struct score_table *t, const char *path, char *err, size_t errlen);
void score_free(struct score_table *t);

#endif
