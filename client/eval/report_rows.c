/* The rows of the `sbx report` page from what report_data.c kept: in order,
 * each with its turns in order, the diff of each turn's code from the turn
 * before, its outcome; then every text cut to fit the page's budget.
 *
 * The budget is shared out by kind of text, in order of what matters to a
 * reader (errors, diffs, feedback, code, the code of a turn that has a
 * diff, user messages): each kind in turn gets one length, the largest with
 * which all its texts fit what is left, so every turn of every task keeps
 * the same share and none is left out for coming late. */
#include "client/eval/report.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/report_diff.h"
#include "client/eval/utf8.h"

enum kind { K_ERROR, K_DIFF, K_FEEDBACK, K_CODE, K_CODE_DIFFED, K_USER, NKINDS };
static const char *const kind_names[NKINDS] = {"error", "diff",		  "feedback",
					       "code",	"code_with_diff", "user_message"};

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

static bool is_same(const json_t *dst, const char *key)
{
	return json_is_true(json_object_get(json_object_get(dst, "same"), key));
}

static bool was_cut(const json_t *dst, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(dst, "cut"), key)) > 0;
}

/* The turns by number, each after the first with the diff of its code
 * from the turn before's ("" when marked the same); the row's outcome. */
static int finish_row(const struct report_data *d, json_t *out, json_t *turns)
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
	/* The code of the turn before, as kept, and whether it was cut. */
	const json_t *prev = NULL;
	bool prev_cut = false;
	int rc = json_object_set_new(out, "turns", sorted);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		json_t *t = v[i];
		const char *verdict = json_string_value(json_object_get(t, "verdict"));
		if (verdict && !strcmp(verdict, "pass") && first_pass < 0)
			first_pass = json_integer_value(json_object_get(t, "turn"));
		errors |= json_is_true(json_object_get(t, "error"));
		const json_t *code = json_object_get(t, "code");
		if (i && is_same(t, "code")) {
			rc |= json_object_set_new(t, "diff", json_string(""));
		} else if (prev && code) {
			size_t len;
			char *diff = report_diff(json_string_value(prev), json_string_length(prev),
						 json_string_value(code), json_string_length(code),
						 d->text_cap, &len);
			rc |= diff ? json_object_set_new(t, "diff", json_stringn(diff, len)) : -1;
			if (prev_cut || was_cut(t, "code"))
				rc |= json_object_set_new(t, "diff_partial", json_true());
			free(diff);
		}
		/* A turn without code (trimmed, or none logged) breaks the
		 * chain: no diff against an older turn's code. */
		if (!is_same(t, "code")) {
			prev = code;
			prev_cut = was_cut(t, "code");
		}
		rc |= json_array_append(sorted, t);
	}
	free(v);
	rc |= json_object_set_new(out, "solved", json_boolean(first_pass >= 0));
	rc |= json_object_set_new(out, "first_pass",
				  first_pass >= 0 ? json_integer(first_pass) : json_null());
	rc |= json_object_set_new(out, "errors", json_boolean(errors));
	return rc ? -1 : 0;
}

/* Every text of the page with its kind, for counting or cutting. */
struct texts {
	size_t *len[NKINDS], n[NKINDS], cap[NKINDS];
	bool oom;
};

typedef void (*text_fn)(struct texts *x, enum kind k, json_t *dst, const char *key);

/* The string members of dst: their keys first, since fn may change dst. */
static void visit(struct texts *x, json_t *dst, enum kind k, text_fn fn)
{
	size_t n = 0;
	const char **keys = malloc((json_object_size(dst) + 1) * sizeof *keys);
	const char *key;
	json_t *v;
	if (!keys) {
		x->oom = true;
		return;
	}
	json_object_foreach(dst, key, v)
	{
		if (json_is_string(v))
			keys[n++] = key;
	}
	for (size_t i = 0; i < n; i++)
		fn(x, k, dst, keys[i]);
	free(keys);
}

static void visit_turn(struct texts *x, json_t *t, text_fn fn)
{
	static const char *const errors[] = {"generator_error", "verbal_error", "daemon_error",
					     "message"};
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (json_is_string(json_object_get(t, errors[i])))
			fn(x, K_ERROR, t, errors[i]);
	visit(x, json_object_get(t, "stderr"), K_ERROR, fn);
	if (json_is_string(json_object_get(t, "diff")))
		fn(x, K_DIFF, t, "diff");
	visit(x, json_object_get(t, "feedback"), K_FEEDBACK, fn);
	if (json_is_string(json_object_get(t, "code")))
		fn(x, json_object_get(t, "diff") ? K_CODE_DIFFED : K_CODE, t, "code");
	if (json_is_string(json_object_get(t, "user_message")))
		fn(x, K_USER, t, "user_message");
}

static void count_text(struct texts *x, enum kind k, json_t *dst, const char *key)
{
	if (x->oom)
		return;
	size_t *p = realloc(x->len[k], (x->n[k] + 1) * sizeof *p);
	if (!p) {
		x->oom = true;
		return;
	}
	x->len[k] = p;
	p[x->n[k]++] = json_string_length(json_object_get(dst, key));
}

/* Cuts the text to its kind's length, adding what it left out to "cut". */
static void cut_text(struct texts *x, enum kind k, json_t *dst, const char *key)
{
	const json_t *v = json_object_get(dst, key);
	const char *s = json_string_value(v);
	size_t n = json_string_length(v), m = utf8_cut(s, n, x->cap[k]);
	if (m == n || x->oom)
		return;
	/* None of the kind fits: the page says so once, not every turn. */
	if (x->cap[k] == 0) {
		json_object_del(dst, key);
		json_object_del(json_object_get(dst, "cut"), key);
		return;
	}
	json_t *cut = json_object_get(dst, "cut");
	if (!cut && json_object_set_new(dst, "cut", cut = json_object()) < 0) {
		x->oom = true;
		return;
	}
	json_int_t before = json_integer_value(json_object_get(cut, key));
	if (json_object_set_new(cut, key, json_integer(before + (json_int_t)(n - m))) < 0 ||
	    json_object_set_new(dst, key, json_stringn(s, m)) < 0)
		x->oom = true;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* The largest length c <= max with sum(min(len, c)) <= *avail, which it
 * then takes from *avail. */
static size_t fit(size_t *len, size_t n, size_t *avail, size_t max)
{
	if (n) /* an empty kind has no array: qsort(NULL, 0) is undefined */
		qsort(len, n, sizeof *len, cmp_size);
	size_t below = 0, c = max;
	for (size_t i = 0; i < n; i++) {
		/* Lengths from i on are cut to c: c is what is left for each. */
		if (below + (n - i) * len[i] > *avail) {
			c = (*avail - below) / (n - i);
			break;
		}
		below += len[i];
	}
	size_t used = 0;
	for (size_t i = 0; i < n; i++)
		used += len[i] < c ? len[i] : c;
	*avail -= used;
	return c;
}

static void visit_all(struct texts *x, const json_t *rows, text_fn fn)
{
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *turns = json_object_get(json_array_get(rows, i), "turns");
		for (size_t j = 0; j < json_array_size(turns); j++)
			visit_turn(x, json_array_get(turns, j), fn);
	}
}

/* Cuts the page's texts to the budget; the lengths used go to caps. */
static int share_out(const struct report_data *d, json_t *rows, json_t *caps)
{
	struct texts x = {0};
	size_t total = 0, avail = d->budget;
	visit_all(&x, rows, count_text);
	for (int k = 0; k < NKINDS; k++)
		for (size_t m = 0; m < x.n[k]; m++)
			total += x.len[k][m];
	bool over = total > d->budget;
	for (int k = 0; k < NKINDS; k++)
		x.cap[k] = over ? fit(x.len[k], x.n[k], &avail, d->text_cap) : d->text_cap;
	if (over && !x.oom)
		visit_all(&x, rows, cut_text);
	int rc = x.oom ? -1 : 0;
	for (int k = 0; k < NKINDS; k++) {
		rc |= json_object_set_new(caps, kind_names[k], json_integer((json_int_t)x.cap[k]));
		free(x.len[k]);
	}
	rc |= json_object_set_new(caps, "over", json_boolean(over));
	return rc;
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

json_t *report_rows_json(struct report_data *d, const struct score_table *t)
{
	size_t n = 0;
	for (size_t s = 0; s < t->n; s++)
		n += json_object_size(json_object_get(d->groups, t->v[s].name));
	struct row *rows = malloc((n ? n : 1) * sizeof *rows);
	json_t *out = json_object(), *settings = json_array(), *list = json_array();
	json_t *tasks = json_object(), *scores = score_to_json(t), *caps = json_object();
	int rc = rows && out && tasks && scores ? 0 : -1;
	rc |= json_object_set_new(out, "settings", settings);
	rc |= json_object_set_new(out, "rows", list);
	rc |= json_object_set_new(out, "caps", caps);
	size_t k = 0;
	for (size_t s = 0; rc == 0 && s < t->n; s++) {
		rc |= json_array_append_new(settings, json_string(t->v[s].name));
		const char *id;
		json_t *row;
		json_object_foreach(json_object_get(d->groups, t->v[s].name), id, row)
		{
			rows[k++] = (struct row){id, s, json_object_get(row, "turns")};
			const char *task = json_string_value(json_object_get(row, "task_id"));
			rc |= json_object_set_new(tasks, task ? task : id, json_true());
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
	if (rc == 0)
		rc |= share_out(d, list, caps);
	rc |= json_object_set_new(out, "tasks", json_integer((json_int_t)json_object_size(tasks)));
	rc |= json_object_set(out, "scores", json_object_get(scores, "settings"));
	rc |= json_object_set_new(out, "models", names(d->models));
	rc |= json_object_set_new(out, "run_ids", names(d->run_ids));
	rc |= json_object_set_new(out, "records", json_integer((json_int_t)t->records));
	rc |= json_object_set_new(out, "duplicates", json_integer((json_int_t)t->duplicates));
	rc |= json_object_set_new(out, "text_cap", json_integer((json_int_t)d->text_cap));
	rc |= json_object_set_new(out, "budget", json_integer((json_int_t)d->budget));
	rc |= json_object_set_new(out, "load_budget", json_integer((json_int_t)d->load_budget));
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
