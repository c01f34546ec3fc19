/* The printed forms of a score table: JSON, the text table of `sbx score`
 * (the SVG plot is score_plot.c). Split from score.c, which computes. */
#include "client/eval/score.h"

#include <string.h>

json_t *score_to_json(const struct score_table *t)
{
	json_t *sets = json_object();
	json_t *root = json_pack("{s:o}", "settings", sets);
	if (!root)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		json_t *p = json_array();
		for (int k = 0; p && k <= s->turns; k++)
			if (json_array_append_new(p, json_real(s->pass_at_1[k])) < 0) {
				json_decref(p);
				p = NULL;
			}
		json_t *o = p ? json_pack("{s:I, s:i, s:o, s:f, s:f, s:I, s:I}", "tasks",
					  (json_int_t)s->tasks, "turns", s->turns, "pass_at_1", p,
					  "mrr", s->mrr, "recall", s->recall, "generator_errors",
					  (json_int_t)s->generator_errors, "verbal_errors",
					  (json_int_t)s->verbal_errors)
			      : NULL;
		if (!o || json_object_set_new(sets, s->name, o) < 0) {
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
	fprintf(f,
		"(Pass@1 after each turn, MRR and Recall in %%; GenErr and VerbErr: turns whose "
		"generator or verbal command failed; %zu records, %zu duplicates ignored)\n",
		t->records, t->duplicates);
}
