/* The HTML of `sbx report` around its data: head, the score table and the
 * Pass@1 plot written here (every text from a record escaped by
 * markup_escape), the data for the script as JSON in a <script
 * type="application/json"> block, and the inline style and script.
 *
 * The data block cannot end early or change the parser's state: every '<',
 * '>' and '&' in it is written as \u003c, \u003e, \u0026 (JSON structure
 * has none of them, so only string contents change, to equal strings), so
 * no "</script" and no "<!--" can occur inside it. The page's CSP allows
 * no network access at all: even a bug that let markup through could not
 * load anything. */
#include <stdbool.h>
#include <string.h>

#include "client/eval/markup.h"
#include "client/eval/report.h"

static void esc(FILE *f, const char *s)
{
	markup_escape(f, s, strlen(s));
}

static int dump_escaped(const char *buf, size_t n, void *ctx)
{
	FILE *f = ctx;
	size_t run = 0; /* bytes since the last one replaced, written at once */
	for (size_t i = 0; i < n; i++) {
		const char *e = buf[i] == '<'	? "\\u003c"
				: buf[i] == '>' ? "\\u003e"
				: buf[i] == '&' ? "\\u0026"
						: NULL;
		if (!e)
			continue;
		fwrite(buf + run, 1, i - run, f);
		fputs(e, f);
		run = i + 1;
	}
	fwrite(buf + run, 1, n - run, f);
	return 0;
}

/* "8 KiB" for the notes on the caps. */
static void size_text(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
}

/* What the page left out, so no reader takes a cut text for the whole. */
static void limits(FILE *f, const json_t *data)
{
	static const char *const kinds[][2] = {{"error", "errors"},
					       {"diff", "diffs"},
					       {"feedback", "feedback"},
					       {"code", "code"},
					       {"code_with_diff", "the code of turns with a diff"},
					       {"user_message", "user messages"}};
	const json_t *caps = json_object_get(data, "caps");
	size_t cap = (size_t)json_integer_value(json_object_get(data, "text_cap"));
	json_int_t trimmed = json_integer_value(json_object_get(data, "trimmed"));
	char buf[32];
	size_text(buf, sizeof buf, cap);
	fprintf(f,
		"<p class=\"meta\" id=\"limits\">Each text of a turn (code, feedback, messages, "
		"errors, diff) keeps at most its first %s.",
		buf);
	if (json_is_true(json_object_get(caps, "over"))) {
		size_text(buf, sizeof buf,
			  (size_t)json_integer_value(json_object_get(data, "budget")));
		fprintf(f,
			" To keep the page under %s of record text, texts were cut further:", buf);
		const char *sep = " ";
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
			size_t c = (size_t)json_integer_value(json_object_get(caps, kinds[i][0]));
			if (c >= cap)
				continue;
			size_text(buf, sizeof buf, c);
			fprintf(f, "%s%s %s%s", sep, kinds[i][1], c ? "to " : "left out",
				c ? buf : "");
			sep = ", ";
		}
		fputs(".", f);
	}
	if (trimmed) {
		size_text(buf, sizeof buf,
			  (size_t)json_integer_value(json_object_get(data, "load_budget")));
		fprintf(f,
			" The texts of <span id=\"n-trimmed\">%lld</span> turns (the last ones "
			"read) were left out: the report holds at most %s of record text while it "
			"reads; their verdicts are all there.",
			(long long)trimmed, buf);
	}
	fputs("</p>\n", f);
}

static void names_line(FILE *f, const char *label, const json_t *a)
{
	if (!json_array_size(a))
		return;
	fprintf(f, "<br>%s: ", label);
	for (size_t i = 0; i < json_array_size(a); i++) {
		fputs(i ? ", <b>" : "<b>", f);
		esc(f, json_string_value(json_array_get(a, i)));
		fputs("</b>", f);
	}
}

/* The same numbers, rounding and "-" as score_print: a reader comparing the
 * page with `sbx score` sees the same table. */
static void score_table(FILE *f, const struct score_table *t)
{
	int nt = score_max_turns(t);
	fputs("<table id=\"score-table\">\n<thead><tr><th>setting</th><th>tasks</th>", f);
	for (int k = 0; k <= nt; k++)
		fprintf(f, "<th>T%d</th>", k);
	fputs("<th>MRR</th><th>Recall</th><th>GenErr</th><th>VerbErr</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		fputs("<tr><th scope=\"row\">", f);
		esc(f, s->name);
		fprintf(f, "</th><td>%zu</td>", s->tasks);
		for (int k = 0; k <= nt; k++)
			if (k <= s->turns)
				fprintf(f, "<td>%.1f</td>", 100 * s->pass_at_1[k]);
			else
				fputs("<td>-</td>", f);
		fprintf(f, "<td>%.1f</td><td>%.1f</td><td>%zu</td><td>%zu</td></tr>\n",
			100 * s->mrr, 100 * s->recall, s->generator_errors, s->verbal_errors);
	}
	fprintf(f,
		"</tbody>\n</table>\n<p class=\"note\">Pass@1 after each turn (a task counts "
		"from its first passing turn on), MRR and Recall, in %%, and the turns whose "
		"generator (GenErr) or verbal-feedback command (VerbErr) failed, as <code>sbx "
		"score</code> prints them; %zu records, %zu duplicates ignored.</p>\n",
		t->records, t->duplicates);
}

/* With --samples, the unbiased pass@k per setting and k, as score_print's
 * pass@k rows (the same numbers and rounding); nothing without samples. */
static void passk_table(FILE *f, const struct score_table *t)
{
	bool any = false;
	for (size_t i = 0; i < t->n; i++)
		any |= t->v[i].nk > 0;
	if (!any)
		return;
	int nt = score_max_turns(t);
	fputs("<table id=\"passk-table\">\n<thead><tr><th>setting</th><th>k</th>", f);
	for (int k = 0; k <= nt; k++)
		fprintf(f, "<th>T%d</th>", k);
	fputs("<th>episodes</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		for (size_t j = 0; j < s->nk; j++) {
			fputs("<tr><th scope=\"row\" class=\"passk\">", f);
			esc(f, s->name);
			fprintf(f, "</th><td>%d</td>", s->ks[j]);
			for (int k = 0; k <= nt; k++)
				if (k <= s->turns)
					fprintf(f, "<td>%.1f</td>", 100 * s->pass_at_k[j][k]);
				else
					fputs("<td>-</td>", f);
			fprintf(f, "<td>%zu</td></tr>\n", s->episodes);
		}
	}
	fputs("</tbody>\n</table>\n<p class=\"note\">The unbiased pass@k (Chen et al.) after "
	      "each turn, in %, over each task's episodes (<code>--samples</code>), as "
	      "<code>sbx score</code> prints it.</p>\n",
	      f);
}

void report_html_write(FILE *f, const struct score_table *t, const json_t *data,
		       const char *const *sources, size_t nsources)
{
	size_t rows = json_array_size(json_object_get(data, "rows"));
	json_int_t tasks = json_integer_value(json_object_get(data, "tasks"));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>sbx report",
	      f);
	const json_t *models = json_object_get(data, "models");
	if (json_array_size(models) == 1) {
		fputs(": ", f);
		esc(f, json_string_value(json_array_get(models, 0)));
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n", report_page_css);
	fprintf(
	    f,
	    "<h1>Evaluation report</h1>\n<p class=\"meta\"><span id=\"n-tasks\">%lld</span> "
	    "tasks, <span id=\"n-settings\">%zu</span> settings, <span id=\"n-rows\">%zu</span> "
	    "timelines (task &times; setting) from <span id=\"n-records\">%zu</span> records",
	    (long long)tasks, t->n, rows, t->records);
	names_line(f, "model", models);
	names_line(f, "run", json_object_get(data, "run_ids"));
	fputs("<br>from: ", f);
	for (size_t i = 0; i < nsources; i++) {
		fputs(i ? ", <code>" : "<code>", f);
		esc(f, sources[i]);
		fputs("</code>", f);
	}
	fputs("</p>\n", f);
	limits(f, data);
	fputs("</header>\n<section id=\"scores\">\n<h2>Scores</h2>\n", f);
	score_table(f, t);
	passk_table(f, t);
	fputs("</section>\n<section id=\"curves\">\n<h2>Pass@1 per turn</h2>\n", f);
	score_svg_write(t, f);
	fprintf(f,
		"</section>\n<section id=\"timelines\">\n<h2>Task timelines</h2>\n"
		"<div id=\"filters\"></div>\n<p id=\"shown-line\">Showing <span "
		"id=\"n-shown\">%zu</span> of %zu timelines.</p>\n<div id=\"list\"></div>\n"
		"<noscript><p>The timelines and their filters need JavaScript; the data is in "
		"the <code>report-data</code> block of this file.</p></noscript>\n</section>\n"
		"<script type=\"application/json\" id=\"report-data\">",
		rows, rows);
	json_dump_callback(data, dump_escaped, f, JSON_COMPACT);
	fprintf(f, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", report_page_js);
}
