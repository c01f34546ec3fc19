/* `sbx report`: load as `sbx score` does (score_load_each hands every
 * counted record to report_data), build the page's data, write the page
 * atomically. */
#include "client/eval/report.h"

#include <string.h>

#include "client/eval/atomic_file.h"

struct page {
	const struct score_table *t;
	const json_t *data;
	const char *const *sources;
	size_t nsources;
};

static int fill_page(FILE *f, void *ctx, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	const struct page *p = ctx;
	report_html_write(f, p->t, p->data, p->sources, p->nsources);
	return 0;
}

int report_write(const char *const *paths, size_t n, const char *out,
		 const struct report_opts *opts, FILE *warn, struct report_stats *st, char *err,
		 size_t errlen)
{
	struct report_data d;
	struct score_table t;
	report_data_init(&d, opts);
	if (score_load_each(paths, n, warn, report_data_add, &d, &t, err, errlen) < 0) {
		report_data_free(&d);
		return -1;
	}
	int rc = -1;
	json_t *data = NULL;
	if (!t.n) {
		snprintf(err, errlen,
			 "no records in %s%s (an sbx eval output directory or its "
			 "turns.jsonl)",
			 paths[0], n > 1 ? " and the others" : "");
		goto out;
	}
	if (!(data = report_rows_json(&d, &t))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	struct page p = {&t, data, paths, n};
	if (atomic_file_write(out, fill_page, &p, err, errlen) < 0)
		goto out;
	if (st) {
		st->tasks = (size_t)json_integer_value(json_object_get(data, "tasks"));
		st->rows = json_array_size(json_object_get(data, "rows"));
		st->trimmed = (size_t)json_integer_value(json_object_get(data, "trimmed"));
		st->cut = json_is_true(json_object_get(json_object_get(data, "caps"), "over"));
		st->records = t.records;
	}
	rc = 0;
out:
	json_decref(data);
	score_free(&t);
	report_data_free(&d);
	return rc;
}
