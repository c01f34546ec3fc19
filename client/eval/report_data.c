/* The data of the `sbx report` page: what each record shows, kept while
 * the files are read (score_load_each hands over exactly the records the
 * scores count), then the rows of the page in order with the code diffs
 * between consecutive turns.
 *
 * Records are hostile text and can be huge: every text is cut to text_cap
 * bytes (at a UTF-8 character, since jansson keeps strings valid), the
 * bytes left out are noted beside it ("cut": {field: bytes}), and all the
 * texts and diffs together draw on one budget; past it a turn keeps its
 * verdict and flags but not its texts, and is marked "trimmed". Escaping is
 * not done here: the page writes the data with every '<', '>' and '&'
 * escaped and the script only ever sets text, never markup. */
#include "client/eval/report.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/report_diff.h"
#include "client/eval/utf8.h"

/* Distinct models and run ids named in the page, and their length. */
#define MAX_NAMES 20
#define NAME_CAP 200
/* Verdicts and times are short by nature; a long one is garbage. */
#define SHORT_CAP 64

void report_data_init(struct report_data *d, const struct report_opts *opts)
{
	memset(d, 0, sizeof *d);
	d->text_cap = opts && opts->text_cap ? opts->text_cap : REPORT_TEXT_CAP;
	d->budget = opts && opts->budget ? opts->budget : REPORT_BUDGET;
	d->budget_left = d->budget;
	d->groups = json_object();
	d->models = json_object();
	d->run_ids = json_object();
}

void report_data_free(struct report_data *d)
{
	json_decref(d->groups);
	json_decref(d->models);
	json_decref(d->run_ids);
	memset(d, 0, sizeof *d);
}

/* dst[key], an object or array created when missing; NULL out of memory. */
static json_t *child(json_t *dst, const char *key, bool array)
{
	json_t *c = json_object_get(dst, key);
	if (c)
		return c;
	c = array ? json_array() : json_object();
	return json_object_set_new(dst, key, c) < 0 ? NULL : c;
}

static int set_short(json_t *dst, const char *key, const json_t *src)
{
	const char *s = json_string_value(src);
	if (!s)
		return 0;
	size_t n = json_string_length(src);
	return json_object_set_new(dst, key, json_stringn(s, utf8_cut(s, n, SHORT_CAP)));
}

/* Copies src (when a string) to dst[key], cut to the cap and charged to the
 * budget; *trimmed when the budget could not take it. -1 out of memory. */
static int keep_text(struct report_data *d, json_t *dst, const char *key, const json_t *src,
		     bool *trimmed)
{
	const char *s = json_string_value(src);
	if (!s)
		return 0;
	size_t n = json_string_length(src), k = utf8_cut(s, n, d->text_cap);
	if (k > d->budget_left) {
		*trimmed = true;
		return 0;
	}
	d->budget_left -= k;
	if (json_object_set_new(dst, key, json_stringn(s, k)) < 0)
		return -1;
	json_t *cut = k < n ? child(dst, "cut", false) : NULL;
	if (k < n && (!cut || json_object_set_new(cut, key, json_integer((json_int_t)(n - k))) < 0))
		return -1;
	return 0;
}

static int add_name(json_t *set, const json_t *v)
{
	const char *s = json_string_value(v);
	if (!s || json_object_size(set) >= MAX_NAMES)
		return 0;
	size_t n = utf8_cut(s, json_string_length(v), NAME_CAP);
	return json_object_setn_new(set, s, n, json_true());
}

static bool nonempty_string(const json_t *v)
{
	return json_is_string(v) && json_string_length(v) > 0;
}

/* The integer members of the daemon's test counts (total, passed, ...). */
static int keep_counts(json_t *dst, const char *key, const json_t *src, size_t max)
{
	if (!json_is_object(src))
		return 0;
	json_t *o = NULL;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)src, k, v)
	{
		if (!json_is_integer(v) || strlen(k) > SHORT_CAP)
			continue;
		if (!o && !(o = child(dst, key, false)))
			return -1;
		if (json_object_size(o) >= max)
			break;
		if (json_object_set(o, k, v) < 0)
			return -1;
	}
	return 0;
}

int report_data_add(const json_t *r, void *ctx)
{
	struct report_data *d = ctx;
	if (!d->groups || !d->models || !d->run_ids)
		return -1;
	/* score.c checked these: non-empty strings without NULs, turn >= 0. */
	json_t *g = child(d->groups, json_string_value(json_object_get(r, "setting")), false);
	json_t *turns = g ? child(g, json_string_value(json_object_get(r, "task_id")), true) : NULL;
	json_t *t = json_object();
	if (!turns || json_array_append_new(turns, t) < 0)
		return -1;
	const json_t *verdict = json_object_get(r, "verdict"), *fb = json_object_get(r, "feedback");
	const json_t *usage = json_object_get(r, "usage");
	bool trimmed = false;
	int rc = json_object_set(t, "turn", json_object_get(r, "turn"));
	rc |= json_is_string(verdict) ? set_short(t, "verdict", verdict)
				      : json_object_set_new(t, "verdict", json_null());
	if (json_is_true(json_object_get(r, "carried")))
		rc |= json_object_set_new(t, "carried", json_true());
	if (json_is_true(json_object_get(r, "from_reference")))
		rc |= json_object_set_new(t, "from_reference", json_true());
	/* A turn with an error: the filter's "errors", kept even when the
	 * budget leaves the error's text out. */
	if (nonempty_string(json_object_get(r, "generator_error")) ||
	    nonempty_string(json_object_get(r, "verbal_error")) ||
	    nonempty_string(json_object_get(r, "daemon_error")) ||
	    (json_is_string(verdict) && !strcmp(json_string_value(verdict), "error")))
		rc |= json_object_set_new(t, "error", json_true());
	rc |= set_short(t, "time", json_object_get(r, "time"));
	if (json_is_integer(json_object_get(r, "generator_ms")))
		rc |= json_object_set(t, "generator_ms", json_object_get(r, "generator_ms"));
	rc |= keep_counts(t, "summary", json_object_get(r, "summary"), 8);
	rc |= keep_counts(t, "usage", usage, 4);
	static const char *const texts[] = {"code",	    "generator_error", "verbal_error",
					    "daemon_error", "message",	       "user_message"};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		rc |= keep_text(d, t, texts[i], json_object_get(r, texts[i]), &trimmed);
	if (json_is_object(fb)) {
		json_t *f = child(t, "feedback", false);
		rc |= f ? 0 : -1;
		static const char *const kinds[] = {"compilation", "execution", "verbal"};
		for (size_t i = 0; f && i < 3; i++)
			rc |= keep_text(d, f, kinds[i], json_object_get(fb, kinds[i]), &trimmed);
	}
	/* Whatever a producer logged of a command's stderr. */
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)r, k, v)
	{
		size_t n = strlen(k);
		if (!json_is_string(v) || n > SHORT_CAP ||
		    (strcmp(k, "stderr") && (n < 7 || strcmp(k + n - 7, "_stderr"))))
			continue;
		json_t *e = child(t, "stderr", false);
		rc |= e ? keep_text(d, e, k, v, &trimmed) : -1;
	}
	if (trimmed) {
		rc |= json_object_set_new(t, "trimmed", json_true());
		d->trimmed++;
	}
	rc |= add_name(d->models, json_object_get(r, "model"));
	rc |= add_name(d->run_ids, json_object_get(r, "run_id"));
	return rc ? -1 : 0;
}

/* Task ids in the order a person expects: "BigCodeBench/9" before
 * "BigCodeBench/10" (digit runs compare as numbers), then bytewise. */
static int natural_cmp(const char *a, const char *b)
{
	const char *p = a, *q = b;
	while (*p && *q) {
		if (isdigit((unsigned char)*p) && isdigit((unsigned char)*q)) {
			while (*p == '0' && isdigit((unsigned char)p[1]))
				p++;
			while (*q == '0' && isdigit((unsigned char)q[1]))
				q++;
			size_t np = 0, nq = 0;
			while (isdigit((unsigned char)p[np]))
				np++;
			while (isdigit((unsigned char)q[nq]))
				nq++;
			if (np != nq)
				return np < nq ? -1 : 1;
			int c = memcmp(p, q, np);
			if (c)
				return c;
			p += np, q += nq;
		} else if (*p != *q) {
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		} else {
			p++, q++;
		}
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return strcmp(a, b);
}

struct row {
	const char *task;
	size_t setting; /* index in the score table */
	json_t *turns;
};

static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c = natural_cmp(a->task, b->task);
	return c ? c : a->setting < b->setting ? -1 : a->setting > b->setting;
}

static int cmp_turn(const void *x, const void *y)
{
	json_int_t a = json_integer_value(json_object_get(*(json_t *const *)x, "turn"));
	json_int_t b = json_integer_value(json_object_get(*(json_t *const *)y, "turn"));
	return a < b ? -1 : a > b;
}

/* The turns by number, each but the first with the diff of its code from
 * the turn before (when both codes were kept); the row's outcome. */
static int finish_row(struct report_data *d, json_t *out, json_t *turns)
{
	size_t n = json_array_size(turns);
	json_t **v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(turns, i);
	qsort(v, n, sizeof *v, cmp_turn);
	json_t *sorted = json_array();
	json_int_t first_pass = -1;
	bool errors = false;
	int rc = json_object_set_new(out, "turns", sorted);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *verdict = json_string_value(json_object_get(v[i], "verdict"));
		if (verdict && !strcmp(verdict, "pass") && first_pass < 0)
			first_pass = json_integer_value(json_object_get(v[i], "turn"));
		errors |= json_is_true(json_object_get(v[i], "error"));
		const json_t *a = i ? json_object_get(v[i - 1], "code") : NULL,
			     *b = json_object_get(v[i], "code");
		if (a && b) {
			size_t len;
			char *diff = report_diff(json_string_value(a), json_string_length(a),
						 json_string_value(b), json_string_length(b),
						 d->text_cap, &len);
			if (!diff) {
				rc = -1;
			} else if (len > d->budget_left) {
				if (!json_is_true(json_object_get(v[i], "trimmed")))
					d->trimmed++;
				rc = json_object_set_new(v[i], "trimmed", json_true());
			} else {
				d->budget_left -= len;
				rc = json_object_set_new(v[i], "diff", json_stringn(diff, len));
			}
			free(diff);
		}
		rc |= json_array_append(sorted, v[i]);
	}
	free(v);
	rc |= json_object_set_new(out, "solved", json_boolean(first_pass >= 0));
	rc |= json_object_set_new(out, "first_pass",
				  first_pass >= 0 ? json_integer(first_pass) : json_null());
	rc |= json_object_set_new(out, "errors", json_boolean(errors));
	return rc ? -1 : 0;
}

static json_t *names(const json_t *set)
{
	json_t *a = json_array();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)set, k, v)
	{
		(void)v;
		if (json_array_append_new(a, json_string(k)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *report_data_json(struct report_data *d, const struct score_table *t)
{
	size_t n = 0;
	for (size_t s = 0; s < t->n; s++)
		n += json_object_size(json_object_get(d->groups, t->v[s].name));
	struct row *rows = malloc((n ? n : 1) * sizeof *rows);
	json_t *out = json_object(), *settings = json_array(), *list = json_array();
	json_t *tasks = json_object(), *scores = score_to_json(t);
	int rc = rows && out && tasks && scores ? 0 : -1;
	rc |= json_object_set_new(out, "settings", settings);
	rc |= json_object_set_new(out, "rows", list);
	size_t k = 0;
	for (size_t s = 0; rc == 0 && s < t->n; s++) {
		rc |= json_array_append_new(settings, json_string(t->v[s].name));
		const char *id;
		json_t *turns;
		json_object_foreach(json_object_get(d->groups, t->v[s].name), id, turns)
		{
			rows[k++] = (struct row){id, s, turns};
			rc |= json_object_set_new(tasks, id, json_true());
		}
	}
	if (rc == 0)
		qsort(rows, k, sizeof *rows, cmp_row);
	for (size_t i = 0; rc == 0 && i < k; i++) {
		json_t *r = json_pack("{s:s, s:I}", "task", rows[i].task, "setting",
				      (json_int_t)rows[i].setting);
		rc |= json_array_append_new(list, r);
		rc |= r ? finish_row(d, r, rows[i].turns) : -1;
	}
	rc |= json_object_set_new(out, "tasks", json_integer((json_int_t)json_object_size(tasks)));
	rc |= json_object_set(out, "scores", json_object_get(scores, "settings"));
	rc |= json_object_set_new(out, "models", names(d->models));
	rc |= json_object_set_new(out, "run_ids", names(d->run_ids));
	rc |= json_object_set_new(out, "records", json_integer((json_int_t)t->records));
	rc |= json_object_set_new(out, "duplicates", json_integer((json_int_t)t->duplicates));
	rc |= json_object_set_new(out, "text_cap", json_integer((json_int_t)d->text_cap));
	rc |= json_object_set_new(out, "budget", json_integer((json_int_t)d->budget));
	/* After the diffs, which draw on the budget too. */
	rc |= json_object_set_new(out, "trimmed", json_integer((json_int_t)d->trimmed));
	free(rows);
	json_decref(tasks);
	json_decref(scores);
	if (rc) {
		json_decref(out);
		return NULL;
	}
	return out;
}
