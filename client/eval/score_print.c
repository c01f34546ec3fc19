/* The printed forms of a score table: JSON, the text table of `sbx score`
 * (the SVG plot is score_plot.c). Split from score.c, which computes. */
#include "client/eval/score.h"

#include <stdbool.h>
#include <string.h>

static json_t *real_array(const double *v, int n)
{
	json_t *p = json_array();
	for (int k = 0; p && k < n; k++)
		if (json_array_append_new(p, json_real(v[k])) < 0) {
			json_decref(p);
			return NULL;
		}
	return p;
}

/* --samples: the episodes and pass@k per turn, keyed by k ("1", "2", ...);
 * nothing is added with one episode per task (the output stays as it was). */
static int add_passk(json_t *o, const struct score_setting *s)
{
	if (s->max_samples < 2)
		return 0;
	json_t *pk = json_object();
	int rc = pk ? 0 : -1;
	for (size_t j = 0; rc == 0 && j < s->nk; j++) {
		char key[16];
		snprintf(key, sizeof key, "%d", s->ks[j]);
		json_t *p = real_array(s->pass_at_k[j], s->turns + 1);
		rc = p ? json_object_set_new(pk, key, p) : -1;
	}
	rc |= json_object_set_new(o, "samples", json_integer(s->samples));
	rc |= json_object_set_new(o, "episodes", json_integer((json_int_t)s->episodes));
	rc |= json_object_set_new(o, "pass_at_k", pk);
	return rc ? -1 : 0;
}

json_t *score_to_json(const struct score_table *t)
{
	json_t *sets = json_object();
	json_t *root = json_pack("{s:o}", "settings", sets);
	if (!root)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		json_t *p = real_array(s->pass_at_1, s->turns + 1);
		json_t *o = p ? json_pack("{s:I, s:i, s:o, s:f, s:f, s:I, s:I}", "tasks",
					  (json_int_t)s->tasks, "turns", s->turns, "pass_at_1", p,
					  "mrr", s->mrr, "recall", s->recall, "generator_errors",
					  (json_int_t)s->generator_errors, "verbal_errors",
					  (json_int_t)s->verbal_errors)
			      : NULL;
		if (!o || add_passk(o, s) < 0 || json_object_set_new(sets, s->name, o) < 0) {
			json_decref(root);
			return NULL;
		}
	}
	return root;
}

int score_max_turns(const struct score_table *t)
{
	int n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].turns > n)
			n = t->v[i].turns;
	return n;
}

/* --samples: one row per setting and k, under the turns' columns. */
static void print_passk(const struct score_table *t, FILE *f, int w, int nt)
{
	fprintf(f, "%-*s %6s", w, "pass@k", "k");
	for (int k = 0; k <= nt; k++) {
		char h[16];
		snprintf(h, sizeof h, "T%d", k);
		fprintf(f, " %6s", h);
	}
	fprintf(f, " %8s\n", "episodes");
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		for (size_t j = 0; j < s->nk; j++) {
			fprintf(f, "%-*s %6d", w, s->name, s->ks[j]);
			for (int k = 0; k <= nt; k++)
				if (k <= s->turns)
					fprintf(f, " %6.1f", 100 * s->pass_at_k[j][k]);
				else
					fprintf(f, " %6s", "-");
			fprintf(f, " %8zu\n", s->episodes);
		}
	}
}

/* All turns are printed, however many: a wrapped table is harder to read
 * than a wide one, and the usual 11 columns fit a terminal. */
void score_print(const struct score_table *t, FILE *f)
{
	if (!t->n) {
		fprintf(f, "no records\n");
		return;
	}
	int w = (int)strlen("setting"), nt = score_max_turns(t);
	for (size_t i = 0; i < t->n; i++)
		if ((int)strlen(t->v[i].name) > w)
			w = (int)strlen(t->v[i].name);
	fprintf(f, "%-*s %6s", w, "setting", "tasks");
	for (int k = 0; k <= nt; k++) {
		char h[16];
		snprintf(h, sizeof h, "T%d", k);
		fprintf(f, " %6s", h);
	}
	fprintf(f, " %6s %6s %7s %7s\n", "MRR", "Recall", "GenErr", "VerbErr");
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		fprintf(f, "%-*s %6zu", w, s->name, s->tasks);
		for (int k = 0; k <= nt; k++)
			if (k <= s->turns)
				fprintf(f, " %6.1f", 100 * s->pass_at_1[k]);
			else
				fprintf(f, " %6s", "-");
		fprintf(f, " %6.1f %6.1f %7zu %7zu\n", 100 * s->mrr, 100 * s->recall,
			s->generator_errors, s->verbal_errors);
	}
	bool samples = false;
	for (size_t i = 0; i < t->n; i++)
		samples |= t->v[i].max_samples > 1;
	if (samples)
		print_passk(t, f, w, nt);
	fprintf(f,
		"(Pass@1 after each turn, MRR and Recall in %%%s; GenErr and VerbErr: turns whose "
		"generator or verbal command failed; %zu records, %zu duplicates ignored)\n",
		samples ? ", averaged over the episodes (samples); pass@k: the unbiased estimator"
			: "",
		t->records, t->duplicates);
}
