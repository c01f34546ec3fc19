/* `sbx report`: one self-contained HTML page from `sbx eval` outputs: the
 * score table (score.c's numbers), the Pass@1 curves (score_plot.c's SVG),
 * and per task and setting a timeline of its turns (verdict, code diff from
 * the turn before, the feedback, the generator's errors) with filters by
 * setting and outcome in inline JavaScript. No external asset: it opens
 * offline, from a mail attachment or a CI artifact. */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/eval/score.h"

/* Each text from a record (code, each feedback, the user message, an error)
 * is kept to this many bytes, and so is a diff: a model's output can be
 * megabytes. */
#define REPORT_TEXT_CAP (8u << 10)
/* The record text of one page (texts and diffs), at most. When there is
 * more, each kind of text is cut to a length that fits, the same for all
 * turns, in this order of what matters: errors, diffs, feedback, code (the
 * code of a turn with a diff last), user messages; the page says the
 * lengths. 48 MiB: a page a browser still opens in seconds. */
#define REPORT_BUDGET (48u << 20)
/* The text kept in memory while the files are read, at most; past it the
 * later turns (in file order) keep their verdict and flags but no text, and
 * the page says how many. A full ConvCodeWorld run (1140 tasks x 9 settings
 * x 11 turns) fits, since a turn that repeats the one before (carried) is
 * kept once. */
#define REPORT_LOAD_BUDGET (512u << 20)

struct report_opts {
	size_t text_cap;    /* 0: REPORT_TEXT_CAP */
	size_t budget;	    /* 0: REPORT_BUDGET */
	size_t load_budget; /* 0: REPORT_LOAD_BUDGET */
};

struct report_stats {
	size_t tasks;	/* distinct task ids */
	size_t rows;	/* task x setting timelines */
	size_t trimmed; /* turns whose texts were left out (REPORT_LOAD_BUDGET) */
	bool cut;	/* texts were cut to fit REPORT_BUDGET */
	size_t records; /* records read (duplicates too, as sbx score counts) */
};

/* Reads the files or directories (DIR/turns.jsonl) as `sbx score` does, so
 * shards merge the same way, and writes the page to out atomically. Bad
 * lines are reported to warn. 0, or -1 with a message: unreadable input, no
 * records, out unwritable (then out is as it was). opts and st may be
 * NULL. */
int report_write(const char *const *paths, size_t n, const char *out,
		 const struct report_opts *opts, FILE *warn, struct report_stats *st, char *err,
		 size_t errlen);

/* The parts, for report.c and the tests. */

/* Collects what the page shows of each record score_load_each takes. A
 * text equal to the same text of the turn before (a carried turn's code and
 * feedback) is not kept again but marked "same" (docs/eval.md). */
struct report_data {
	json_t *groups;		  /* setting -> task id -> {"turns": [...], ...} */
	json_t *models, *run_ids; /* sets (object keys), a few at most */
	size_t text_cap, budget, load_budget, load_left, trimmed;
};

void report_data_init(struct report_data *d, const struct report_opts *opts);
int report_data_add(const json_t *record, void *ctx); /* a score_each_fn */
void report_data_free(struct report_data *d);

/* The page's data (docs/eval.md): the rows in task order (numbers in ids
 * compared as numbers), then the table's setting order, each with its
 * turns in order, the diffs between them, and the texts cut to fit the
 * budget. NULL when out of memory. */
json_t *report_rows_json(struct report_data *d, const struct score_table *t);

/* The page around the data: the table, the plot, the data block, the
 * script. sources are named in the page (escaped). */
void report_html_write(FILE *f, const struct score_table *t, const json_t *data,
		       const char *const *sources, size_t nsources);

/* The inline style sheet and script of the page (report_page.c). */
extern const char report_page_css[];
extern const char report_page_js[];

#endif
