/* Scores from turns.jsonl: Pass@1 after each turn, MRR and Recall per
 * feedback setting, as ConvCodeWorld defines them.
 *
 * Only a task's first passing turn matters: "solved by turn t" is "some turn
 * <= t passed", so a task whose records stop early (it passed and the loop
 * ended, or a shard was cut short) keeps its latest state up to the last
 * turn. Every metric is computed from integer counts in a fixed order, so
 * the same records split over any number of files, in any order, give
 * bit-identical numbers.
 *
 * Duplicates of (setting, task_id, sample, turn) are counted and ignored: the first
 * one seen wins, also when it disagrees on the verdict. That is the only
 * place where the order of the files (and of the lines) can matter.
 *
 * A table must start zeroed (struct score_table t = {0}) before
 * score_add_record; score_load zeroes its output itself. */
#include "client/eval/score.h"
#include "client/eval/passk.h"
#include "common/errfmt.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Beyond this, "turns" is corruption, not a run: it would only make us
 * allocate a huge Pass@1 array. ConvCodeWorld uses 10. */
#define MAX_TURNS 1000
/* A file of garbage must not flood the terminal: the first bad lines of a
 * score_load are reported one by one, the rest only counted. */
#define MAX_WARNINGS 50
#define NEVER INT_MAX

/* ConvCodeWorld's table order; other names follow alphabetically. */
static const char *const setting_order[] = {
    "CF",     "CF_EF_UNIT",	"CF_EF_FULL",	  "CF_SNF", "CF_EF_UNIT_SNF", "CF_EF_FULL_SNF",
    "CF_SEF", "CF_EF_UNIT_SEF", "CF_EF_FULL_SEF",
};
#define NORDER (sizeof setting_order / sizeof setting_order[0])

struct acc_setting {
	char *name;
	int turns; /* max over its records */
	size_t gen_errors, verbal_errors;
};

/* One episode of a task (--samples: each sample is a whole conversation). */
struct acc_ep {
	int first_pass;	     /* NEVER if no turn passed */
	unsigned char *seen; /* one bit per turn, to recognise duplicates */
	size_t seen_len;
	bool present; /* some record has this sample */
};

struct acc_task {
	size_t setting;
	char *id;
	struct acc_ep *ep; /* by "sample" (0 when absent) */
	size_t nep;
};

/* Open addressing with linear probing; idx1 = item index + 1, 0 = empty.
 * The hash is kept so growing does not rehash the strings. */
struct slot {
	uint64_t hash;
	size_t idx1;
};
struct map {
	struct slot *s;
	size_t cap, n;
};

struct acc {
	struct acc_setting *set;
	size_t nset, capset;
	struct acc_task *task;
	size_t ntask, captask;
	struct map setmap, taskmap; /* name -> set[], (setting, id) -> task[] */
};

/* FNV-1a over the setting index and the string. Lookups then compare the
 * index and the string exactly, so unlike a joined "setting\x1ftask" key no
 * name can be mistaken for another, whatever bytes it holds. */
static uint64_t hash_key(size_t setting, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof setting; i++) {
		h ^= (setting >> (8 * i)) & 0xff;
		h *= 1099511628211ull;
	}
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot holding the key, or the empty slot where it would go. */
static struct slot *probe(const struct acc *a, const struct map *m, bool tasks, uint64_t h,
			  size_t setting, const char *key)
{
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct slot *sl = &m->s[i];
		if (!sl->idx1)
			return sl;
		if (sl->hash != h)
			continue;
		size_t k = sl->idx1 - 1;
		if (tasks ? a->task[k].setting == setting && !strcmp(a->task[k].id, key)
			  : !strcmp(a->set[k].name, key))
			return sl;
	}
}

/* Keeps the load at most 1/2 so probes stay short. */
static int map_reserve(struct map *m)
{
	if ((m->n + 1) * 2 <= m->cap)
		return 0;
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct slot *s = calloc(cap, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->s[i].idx1)
			continue;
		size_t j = m->s[i].hash & (cap - 1);
		while (s[j].idx1)
			j = (j + 1) & (cap - 1);
		s[j] = m->s[i];
	}
	free(m->s);
	m->s = s;
	m->cap = cap;
	return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *p = realloc(*v, nc * size);
	if (!p)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}

/* Index of the setting, added if new; -1 when out of memory. */
static long setting_index(struct acc *a, const char *name)
{
	if (map_reserve(&a->setmap) < 0)
		return -1;
	uint64_t h = hash_key(0, name);
	struct slot *sl = probe(a, &a->setmap, false, h, 0, name);
	if (sl->idx1)
		return (long)(sl->idx1 - 1);
	if (grow((void **)&a->set, &a->capset, a->nset, sizeof *a->set) < 0)
		return -1;
	char *copy = strdup(name);
	if (!copy)
		return -1;
	a->set[a->nset] = (struct acc_setting){.name = copy, .turns = 0};
	*sl = (struct slot){.hash = h, .idx1 = ++a->nset};
	a->setmap.n++;
	return (long)(a->nset - 1);
}

static struct acc_task *task_get(struct acc *a, size_t setting, const char *id)
{
	if (map_reserve(&a->taskmap) < 0)
		return NULL;
	uint64_t h = hash_key(setting, id);
	struct slot *sl = probe(a, &a->taskmap, true, h, setting, id);
	if (sl->idx1)
		return &a->task[sl->idx1 - 1];
	if (grow((void **)&a->task, &a->captask, a->ntask, sizeof *a->task) < 0)
		return NULL;
	char *copy = strdup(id);
	if (!copy)
		return NULL;
	a->task[a->ntask] = (struct acc_task){.setting = setting, .id = copy};
	*sl = (struct slot){.hash = h, .idx1 = ++a->ntask};
	a->taskmap.n++;
	return &a->task[a->ntask - 1];
}

/* The task's episode for a sample, added (with any below it) if new. */
static struct acc_ep *episode(struct acc_task *k, size_t sample)
{
	if (sample >= k->nep) {
		struct acc_ep *p = realloc(k->ep, (sample + 1) * sizeof *p);
		if (!p)
			return NULL;
		for (size_t i = k->nep; i <= sample; i++)
			p[i] = (struct acc_ep){.first_pass = NEVER};
		k->ep = p;
		k->nep = sample + 1;
	}
	k->ep[sample].present = true;
	return &k->ep[sample];
}

/* A non-empty string without embedded NULs (which C strings would
 * silently truncate, merging distinct names). */
static const char *get_name(const json_t *r, const char *key)
{
	const json_t *v = json_object_get(r, key);
	if (!json_is_string(v) || !json_string_length(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* 0 added (or a duplicate), 1 bad record (*why says why), -1 out of memory. */
static int add(struct score_table *t, const json_t *r, const char **why)
{
	if (!json_is_object(r))
		return *why = "not a JSON object", 1;
	const char *setting = get_name(r, "setting"), *id = get_name(r, "task_id");
	const json_t *turn = json_object_get(r, "turn"), *turns = json_object_get(r, "turns");
	const json_t *verdict = json_object_get(r, "verdict");
	if (!setting)
		return *why = "missing, empty or non-string setting", 1;
	if (!id)
		return *why = "missing, empty or non-string task_id", 1;
	if (!json_is_integer(turn))
		return *why = "missing or non-integer turn", 1;
	if (!json_is_integer(turns))
		return *why = "missing or non-integer turns", 1;
	json_int_t tn = json_integer_value(turn), tns = json_integer_value(turns);
	if (tn < 0)
		return *why = "negative turn", 1;
	if (tns < 0 || tns > MAX_TURNS)
		return *why = "turns out of range", 1;
	if (tn > tns)
		return *why = "turn beyond turns", 1;
	/* null is tolerated as "no verdict" (not a pass): a turn whose code
	 * could not be run still is a turn. */
	if (!verdict || !(json_is_string(verdict) || json_is_null(verdict)))
		return *why = "missing or non-string verdict", 1;
	bool pass = json_is_string(verdict) && !strcmp(json_string_value(verdict), "pass");
	/* Absent in runs without --samples: their one episode is sample 0. */
	const json_t *sample = json_object_get(r, "sample");
	if (sample && !json_is_integer(sample))
		return *why = "non-integer sample", 1;
	json_int_t sn = sample ? json_integer_value(sample) : 0;
	if (sn < 0 || sn >= PASSK_MAX_SAMPLES)
		return *why = "sample out of range", 1;

	if (!t->priv && !(t->priv = calloc(1, sizeof(struct acc))))
		return -1;
	struct acc *a = t->priv;
	long si = setting_index(a, setting);
	struct acc_task *k = si < 0 ? NULL : task_get(a, (size_t)si, id);
	struct acc_ep *e = k ? episode(k, (size_t)sn) : NULL;
	if (!e)
		return -1;
	size_t byte = (size_t)tn / 8;
	if (byte >= e->seen_len) {
		unsigned char *p = realloc(e->seen, byte + 1);
		if (!p)
			return -1;
		memset(p + e->seen_len, 0, byte + 1 - e->seen_len);
		e->seen = p;
		e->seen_len = byte + 1;
	}
	t->records++;
	unsigned char bit = (unsigned char)(1u << (tn % 8));
	if (e->seen[byte] & bit) {
		t->duplicates++;
		return 0;
	}
	e->seen[byte] |= bit;
	if (pass && tn < e->first_pass)
		e->first_pass = (int)tn;
	/* A failed model command is counted where it happened, not where a
	 * later record repeats the state it left (those have null). */
	a->set[si].gen_errors += json_is_string(json_object_get(r, "generator_error"));
	a->set[si].verbal_errors += json_is_string(json_object_get(r, "verbal_error"));
	if (tns > a->set[si].turns)
		a->set[si].turns = (int)tns;
	return 0;
}

int score_add_record(struct score_table *t, const json_t *record)
{
	const char *why = NULL;
	return add(t, record, &why) == 0 ? 0 : -1;
}

static void free_results(struct score_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].pass_at_1);
		for (size_t j = 0; j < t->v[i].nk; j++)
			free(t->v[i].pass_at_k[j]);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

void score_free(struct score_table *t)
{
	if (!t)
		return;
	free_results(t);
	struct acc *a = t->priv;
	if (a) {
		for (size_t i = 0; i < a->nset; i++)
			free(a->set[i].name);
		for (size_t i = 0; i < a->ntask; i++) {
			free(a->task[i].id);
			for (size_t j = 0; j < a->task[i].nep; j++)
				free(a->task[i].ep[j].seen);
			free(a->task[i].ep);
		}
		free(a->set);
		free(a->task);
		free(a->setmap.s);
		free(a->taskmap.s);
		free(a);
	}
	memset(t, 0, sizeof *t);
}

static size_t rank(const char *name)
{
	for (size_t i = 0; i < NORDER; i++)
		if (!strcmp(name, setting_order[i]))
			return i;
	return NORDER;
}

static int cmp_setting(const void *x, const void *y)
{
	const struct score_setting *a = x, *b = y;
	size_t ra = rank(a->name), rb = rank(b->name);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* A task's episodes and how many of them were solved by some turn. */
struct nc {
	int n, c;
};

static int cmp_nc(const void *x, const void *y)
{
	const struct nc *a = x, *b = y;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return (a->c > b->c) - (a->c < b->c);
}

static int episodes_of(const struct acc_task *k)
{
	int n = 0;
	for (size_t j = 0; j < k->nep; j++)
		n += k->ep[j].present;
	return n;
}

/* pass@k per turn of setting si, for the ks its fewest-episode task allows
 * (every task then has n >= k, as the estimator needs). The per-task values
 * are summed in (n, c) order, so shards in any order give the same bits. */
static int finish_passk(const struct acc *a, size_t si, struct score_setting *s)
{
	if (s->max_samples < 2)
		return 0;
	struct nc *v = calloc(s->tasks + 1, sizeof *v);
	if (!v)
		return -1;
	s->nk = passk_ks(s->samples, s->ks);
	for (size_t j = 0; j < s->nk; j++)
		if (!(s->pass_at_k[j] = calloc((size_t)s->turns + 1, sizeof(double)))) {
			free(v);
			return -1;
		}
	for (int turn = 0; turn <= s->turns; turn++) {
		size_t m = 0;
		for (size_t i = 0; i < a->ntask && m < s->tasks; i++) {
			const struct acc_task *k = &a->task[i];
			if (k->setting != si)
				continue;
			v[m] = (struct nc){episodes_of(k), 0};
			for (size_t j = 0; j < k->nep; j++)
				v[m].c += k->ep[j].present && k->ep[j].first_pass <= turn;
			m++;
		}
		if (m) /* qsort(NULL, 0) is undefined */
			qsort(v, m, sizeof *v, cmp_nc);
		for (size_t j = 0; j < s->nk; j++) {
			double sum = 0;
			for (size_t i = 0; i < m; i++)
				sum += passk_estimate(v[i].n, v[i].c, s->ks[j]);
			s->pass_at_k[j][turn] = m ? sum / (double)m : 0;
		}
	}
	free(v);
	return 0;
}

/* Recomputes from scratch, so it may be called again after more records.
 * Out of memory leaves an empty table (n == 0): the interface has no error
 * channel here, and no numbers beat wrong ones. */
void score_finish(struct score_table *t)
{
	free_results(t);
	struct acc *a = t->priv;
	if (!a || !a->nset)
		return;
	struct score_setting *v = calloc(a->nset, sizeof *v);
	if (!v)
		return;
	t->v = v;
	t->n = a->nset;
	for (size_t i = 0; i < a->nset; i++) {
		v[i].name = a->set[i].name; /* owned by priv, freed with it */
		v[i].turns = a->set[i].turns;
		v[i].generator_errors = a->set[i].gen_errors;
		v[i].verbal_errors = a->set[i].verbal_errors;
		v[i].samples = INT_MAX;
		v[i].pass_at_1 = calloc((size_t)v[i].turns + 1, sizeof(double));
		if (!v[i].pass_at_1) {
			free_results(t);
			return;
		}
	}
	/* pass_at_1[t] first holds how many episodes first passed at turn t. */
	for (size_t i = 0; i < a->ntask; i++) {
		const struct acc_task *k = &a->task[i];
		struct score_setting *s = &v[k->setting];
		int n = episodes_of(k);
		s->tasks++;
		s->episodes += (size_t)n;
		s->samples = n < s->samples ? n : s->samples;
		s->max_samples = n > s->max_samples ? n : s->max_samples;
		for (size_t j = 0; j < k->nep; j++)
			if (k->ep[j].present && k->ep[j].first_pass != NEVER)
				s->pass_at_1[k->ep[j].first_pass] += 1;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct score_setting *s = &v[i];
		/* 0 tasks only after running out of memory mid-record. */
		double solved = 0, rr = 0, n = s->episodes ? (double)s->episodes : 1;
		for (int k = 0; k <= s->turns; k++) {
			rr += s->pass_at_1[k] / (k + 1);
			solved += s->pass_at_1[k];
			s->pass_at_1[k] = solved / n;
		}
		s->mrr = rr / n;
		s->recall = s->pass_at_1[s->turns];
		if (s->samples == INT_MAX)
			s->samples = 0;
		if (finish_passk(a, i, s) < 0) {
			free_results(t);
			return;
		}
	}
	if (t->n)
		qsort(v, t->n, sizeof *v, cmp_setting);
}

/* PATH, or PATH/turns.jsonl when PATH is a directory. */
static char *resolve(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return strdup(path);
	size_t n = strlen(path);
	char *p = malloc(n + sizeof "/turns.jsonl");
	if (p)
		sprintf(p, "%s%sturns.jsonl", path, n && path[n - 1] == '/' ? "" : "/");
	return p;
}

struct hook {
	score_each_fn fn;
	void *ctx;
};

/* Adds one file's lines; bad ones are counted in *bad. 0 or -1. */
static int load_file(struct score_table *t, const char *file, FILE *warn, const struct hook *h,
		     size_t *bad, char *err, size_t errlen)
{
	FILE *f = fopen(file, "re");
	if (!f) {
		errfmt(err, errlen, "cannot open %s: %s", file, errfmt_desc(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (strspn(line, " \t") == (size_t)len)
			continue; /* blank lines (a trailing one, say) are not records */
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)len, 0, &je);
		const char *why = r ? NULL : je.text;
		size_t dups = t->duplicates;
		int k = r ? add(t, r, &why) : 1;
		/* The first of duplicates is the one the scores count. */
		if (k == 0 && h->fn && t->duplicates == dups && h->fn(r, h->ctx) < 0)
			k = -1;
		json_decref(r);
		if (k < 0) {
			errfmt(err, errlen, "%s:%zu: out of memory", file, lineno);
			rc = -1;
			break;
		}
		if (k > 0 && ++*bad <= MAX_WARNINGS && warn)
			fprintf(warn, "%s:%zu: bad record (%s)\n", file, lineno, why);
	}
	if (rc == 0 && ferror(f)) {
		errfmt(err, errlen, "cannot read %s: %s", file, errfmt_desc(errno));
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}

/* *out is overwritten (it need not be initialised) and finished on
 * success; on failure it is left empty. */
int score_load(const char *const *paths, size_t n, FILE *warn, struct score_table *out, char *err,
	       size_t errlen)
{
	return score_load_each(paths, n, warn, NULL, NULL, out, err, errlen);
}

int score_load_each(const char *const *paths, size_t n, FILE *warn, score_each_fn each, void *ctx,
		    struct score_table *out, char *err, size_t errlen)
{
	const struct hook h = {each, ctx};
	memset(out, 0, sizeof *out);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		char *file = resolve(paths[i]);
		if (!file) {
			errfmt(err, errlen, "out of memory");
			score_free(out);
			return -1;
		}
		int rc = load_file(out, file, warn, &h, &bad, err, errlen);
		free(file);
		if (rc < 0) {
			score_free(out);
			return -1;
		}
	}
	if (bad && warn)
		fprintf(warn, "%zu bad record%s skipped%s\n", bad, bad == 1 ? "" : "s",
			bad > MAX_WARNINGS ? " (only the first ones shown)" : "");
	score_finish(out);
	return 0;
}
