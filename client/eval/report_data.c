/* What the `sbx report` page shows of each record, kept while the files
 * are read (score_load_each hands over exactly the records the scores
 * count). report_rows.c then puts it in order for the page.
 *
 * Records are hostile text and can be huge: every text is cut to text_cap
 * bytes (at a UTF-8 character, since jansson keeps strings valid) and the
 * bytes left out are noted beside it ("cut": {field: bytes}); what is kept
 * draws on the load budget, past which a turn keeps its verdict and flags
 * but no text and is marked "trimmed". A code, user message or feedback
 * equal (as kept) to the same text of the turn just before is marked
 * "same": {field: true} instead of kept twice: carried turns repeat their
 * code and feedback, and are most turns of a long run. Escaping is not done
 * here: the page writes the data with every '<', '>' and '&' escaped and
 * the script only ever sets text, never markup. */
#include "client/eval/report.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	d->load_budget = opts && opts->load_budget ? opts->load_budget : REPORT_LOAD_BUDGET;
	d->load_left = d->load_budget;
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

/* One turn being added: its row's memory of the turn before. */
struct adding {
	struct report_data *d;
	json_t *t;    /* the turn */
	json_t *last; /* the row's texts of its latest turn, by field */
	bool follows; /* that latest turn is this turn - 1 */
	bool trimmed; /* a text did not fit the load budget */
};

/* Copies src (when a string) to dst[key], cut to the cap and charged to the
 * budget, or marks it "same" when the turn before had it, as kept. field
 * names it in the row's memory (NULL: never compared). -1 out of memory. */
static int keep_text(struct adding *a, json_t *dst, const char *key, const char *field,
		     const json_t *src)
{
	const char *s = json_string_value(src);
	json_t *was = field ? json_object_get(a->last, field) : NULL;
	if (!s) {
		if (field)
			json_object_del(a->last, field);
		return 0;
	}
	size_t n = json_string_length(src), k = utf8_cut(s, n, a->d->text_cap);
	/* Kept as [text, bytes left out]. */
	if (a->follows && was && json_string_length(json_array_get(was, 0)) == k &&
	    !memcmp(json_string_value(json_array_get(was, 0)), s, k) &&
	    json_integer_value(json_array_get(was, 1)) == (json_int_t)(n - k)) {
		json_t *same = child(dst, "same", false);
		return same ? json_object_set_new(same, key, json_true()) : -1;
	}
	if (k > a->d->load_left) {
		a->trimmed = true;
		if (field)
			json_object_del(a->last, field);
		return 0;
	}
	a->d->load_left -= k;
	json_t *v = json_stringn(s, k);
	if (json_object_set_new(dst, key, v) < 0)
		return -1;
	if (k < n) {
		json_t *cut = child(dst, "cut", false);
		if (!cut || json_object_set_new(cut, key, json_integer((json_int_t)(n - k))) < 0)
			return -1;
	}
	return field ? json_object_set_new(a->last, field,
					   json_pack("[O, I]", v, (json_int_t)(n - k)))
		     : 0;
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

/* The integers the page shows of an object (the daemon's test counts, the
 * run's time); the rest would only make a long run's page longer. */
static int keep_ints(json_t *dst, const char *key, const json_t *src, const char *a, const char *b)
{
	json_t *o = NULL;
	const char *names[] = {a, b};
	for (size_t i = 0; i < 2 && names[i]; i++) {
		json_t *v = json_object_get(src, names[i]);
		if (!json_is_integer(v))
			continue;
		if ((!o && !(o = child(dst, key, false))) || json_object_set(o, names[i], v) < 0)
			return -1;
	}
	return 0;
}

static int keep_texts(struct adding *a, const json_t *r)
{
	static const char *const errors[] = {"generator_error", "verbal_error", "daemon_error",
					     "message"};
	int rc = keep_text(a, a->t, "code", "code", json_object_get(r, "code"));
	rc |=
	    keep_text(a, a->t, "user_message", "user_message", json_object_get(r, "user_message"));
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		rc |= keep_text(a, a->t, errors[i], NULL, json_object_get(r, errors[i]));
	const json_t *fb = json_object_get(r, "feedback");
	static const char *const kinds[] = {"compilation", "execution", "verbal"};
	json_t *f = json_is_object(fb) ? child(a->t, "feedback", false) : NULL;
	rc |= json_is_object(fb) && !f ? -1 : 0;
	for (size_t i = 0; i < 3; i++) {
		char field[32];
		snprintf(field, sizeof field, "feedback.%s", kinds[i]);
		rc |= keep_text(a, f, kinds[i], field, f ? json_object_get(fb, kinds[i]) : NULL);
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
		json_t *e = child(a->t, "stderr", false);
		rc |= e ? keep_text(a, e, k, NULL, v) : -1;
	}
	return rc;
}

int report_data_add(const json_t *r, void *ctx)
{
	struct report_data *d = ctx;
	if (!d->groups || !d->models || !d->run_ids)
		return -1;
	/* score.c checked these: non-empty strings without NULs, turn >= 0. */
	json_t *g = child(d->groups, json_string_value(json_object_get(r, "setting")), false);
	/* --samples: each episode is its own row, "ID [sample N]", so the
	 * timelines of a task's samples never mix. */
	const char *id = json_string_value(json_object_get(r, "task_id"));
	const json_t *sample = json_object_get(r, "sample");
	char *key = NULL;
	if (json_is_integer(sample) &&
	    asprintf(&key, "%s [sample %lld]", id, (long long)json_integer_value(sample)) < 0)
		return -1;
	json_t *row = g ? child(g, key ? key : id, false) : NULL;
	free(key);
	/* The task itself, for the header's count of tasks (not episodes). */
	if (key && row && json_object_set_new(row, "task_id", json_string(id)) < 0)
		return -1;
	json_t *turns = row ? child(row, "turns", true) : NULL;
	json_t *last = row ? child(row, "last", false) : NULL;
	json_t *t = json_object();
	if (!turns || !last || json_array_append_new(turns, t) < 0)
		return -1;
	json_int_t turn = json_integer_value(json_object_get(r, "turn"));
	const json_t *verdict = json_object_get(r, "verdict");
	struct adding a = {
	    .d = d,
	    .t = t,
	    .last = last,
	    .follows = json_integer_value(json_object_get(row, "last_turn")) == turn - 1 &&
		       json_object_get(row, "last_turn"),
	};
	int rc = json_object_set(t, "turn", json_object_get(r, "turn"));
	rc |= json_object_set_new(row, "last_turn", json_integer(turn));
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
	if (json_integer_value(json_object_get(r, "generator_ms")) > 0)
		rc |= json_object_set(t, "generator_ms", json_object_get(r, "generator_ms"));
	rc |= keep_ints(t, "summary", json_object_get(r, "summary"), "total", "passed");
	rc |= keep_ints(t, "usage", json_object_get(r, "usage"), "wall_ms", NULL);
	rc |= keep_texts(&a, r);
	if (a.trimmed) {
		rc |= json_object_set_new(t, "trimmed", json_true());
		d->trimmed++;
	}
	rc |= add_name(d->models, json_object_get(r, "model"));
	rc |= add_name(d->run_ids, json_object_get(r, "run_id"));
	return rc ? -1 : 0;
}
