/* `sbx report`: one self-contained HTML page from `sbx eval` outputs: the
 * score table (score.c's numbers), the Pass@1 curves (score_plot.c's SVG),
 * and per task and setting a timeline of its turns (verdict, code diff from
 * the turn before, the feedback, the generator's errors) with filters by
 * setting and outcome in inline JavaScript. No external asset: it opens
 * offline, from a mail attachment or a CI artifact. */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "client/eval/score.h"

/* Each text from a record (code, each feedback, the user message, an error,
 * a diff) is cut to this many bytes: a model's output can be megabytes. */
#define REPORT_TEXT_CAP (8u << 10)
/* All the record text of one page, at most (then the texts of the later
 * turns, and their diffs, are left out and the page says how many): the
 * page of a full ConvCodeWorld run (1140 tasks x 9 settings x 11 turns)
 * stays one a browser opens. */
#define REPORT_BUDGET (48u << 20)

struct report_opts {
	size_t text_cap; /* 0: REPORT_TEXT_CAP */
	size_t budget;	 /* 0: REPORT_BUDGET */
};

struct report_stats {
	size_t tasks;	/* distinct task ids */
	size_t rows;	/* task x setting timelines */
	size_t trimmed; /* turns with a text left out for the budget */
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

/* Collects what the page shows of each record score_load_each takes. */
struct report_data {
	json_t *groups;		  /* setting -> task id -> [turn objects] */
	json_t *models, *run_ids; /* sets (object keys), a few at most */
	size_t text_cap, budget, budget_left, trimmed;
};

void report_data_init(struct report_data *d, const struct report_opts *opts);
int report_data_add(const json_t *record, void *ctx); /* a score_each_fn */
/* The page's data: {"rows": [...], "settings": [...], ...} (docs/eval.md),
 * the rows in task order (numbers in ids compared as numbers), then in the
 * table's setting order; NULL when out of memory. */
json_t *report_data_json(struct report_data *d, const struct score_table *t);
void report_data_free(struct report_data *d);

/* The page around the data: the table, the plot, the data block, the
 * script. sources are named in the page (escaped). */
void report_html_write(FILE *f, const struct score_table *t, const json_t *data,
		       const char *const *sources, size_t nsources);

/* The inline style sheet and script of the page (report_page.c). */
extern const char report_page_css[];
extern const char report_page_js[];

#endif
