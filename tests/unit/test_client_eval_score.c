/* Unit tests for score.c: Pass@1 per turn, MRR and Recall per setting from
 * turns.jsonl records, duplicates, bad lines, sharded files merging into
 * exactly the single-file numbers, the JSON, the table and the SVG plot. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/eval/score.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"

#define EPS 1e-12

static json_t *rec(const char *setting, const char *task, int turn, int turns, const char *verdict)
{
	json_t *r =
	    json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "setting", setting, "task_id", task, "turn",
		      turn, "turns", turns, "verdict", verdict, "code", "def f():\n    return 1\n");
	ck_assert_ptr_nonnull(r);
	return r;
}

static void add(struct score_table *t, const char *setting, const char *task, int turn, int turns,
		const char *verdict)
{
	json_t *r = rec(setting, task, turn, turns, verdict);
	ck_assert_int_eq(score_add_record(t, r), 0);
	json_decref(r);
}

/* The reference data set, as ConvCodeWorld's loop writes it (a task's
 * records stop at its first pass), 3 feedback turns:
 *   CF:             t0 passes at 0, t1 at 2, t2 never, t3 at 3
 *   CF_EF_FULL_SEF: t0 and t1 pass at 1, t2 and t3 never.
 * Returned as JSON lines, in a fixed order. */
static const int first_pass[2][4] = {{0, 2, -1, 3}, {1, 1, -1, -1}};
static const char *const names[2] = {"CF", "CF_EF_FULL_SEF"};

static size_t make_lines(char ***out)
{
	char **v = calloc(256, sizeof *v);
	size_t n = 0;
	/* The later setting first, so the table's order comes from sorting. */
	for (int s = 1; s >= 0; s--)
		for (int k = 0; k < 4; k++) {
			char task[32];
			snprintf(task, sizeof task, "BigCodeBench/%d", k);
			int fp = first_pass[s][k];
			for (int turn = 0; turn <= 3; turn++) {
				json_t *r =
				    rec(names[s], task, turn, 3, turn == fp ? "pass" : "fail");
				v[n++] = json_dumps(r, JSON_COMPACT);
				json_decref(r);
				if (turn == fp)
					break;
			}
		}
	*out = v;
	return n;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void add_lines(struct score_table *t, char **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_loads(v[i], 0, NULL);
		ck_assert_int_eq(score_add_record(t, r), 0);
		json_decref(r);
	}
}

static void check_pass(const struct score_setting *s, size_t tasks, const double *want, int nwant)
{
	ck_assert_uint_eq(s->tasks, tasks);
	ck_assert_int_eq(s->turns, nwant - 1);
	for (int k = 0; k < nwant; k++)
		ck_assert_double_eq_tol(s->pass_at_1[k], want[k], EPS);
}

/* The reference numbers for the data of make_lines. */
static void check_reference(const struct score_table *t)
{
	ck_assert_uint_eq(t->n, 2);
	ck_assert_str_eq(t->v[0].name, "CF");
	ck_assert_str_eq(t->v[1].name, "CF_EF_FULL_SEF");
	check_pass(&t->v[0], 4, (double[]){0.25, 0.25, 0.5, 0.75}, 4);
	ck_assert_double_eq_tol(t->v[0].mrr, (1 + 1.0 / 3 + 0 + 1.0 / 4) / 4, EPS);
	ck_assert_double_eq_tol(t->v[0].recall, 0.75, EPS);
	check_pass(&t->v[1], 4, (double[]){0, 0.5, 0.5, 0.5}, 4);
	ck_assert_double_eq_tol(t->v[1].mrr, (0.5 + 0.5) / 4, EPS);
	ck_assert_double_eq_tol(t->v[1].recall, 0.5, EPS);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/test_score.XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

static char *path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void rm_rf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

START_TEST(test_reference_numbers)
{
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	score_finish(&t);
	check_reference(&t);
	ck_assert_uint_eq(t.records, n);
	ck_assert_uint_eq(t.duplicates, 0);
	/* Finishing again (say after printing) gives the same numbers. */
	score_finish(&t);
	check_reference(&t);
	score_free(&t);
	ck_assert_ptr_null(t.v);
	ck_assert_ptr_null(t.priv);
	free_lines(v, n);
}
END_TEST

START_TEST(test_carried_records)
{
	/* A loop that keeps going after a pass repeats it (or even fails
	 * later): solved by turn t means some turn <= t passed. */
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	add(&t, "CF", "BigCodeBench/0", 1, 3, "pass");
	add(&t, "CF", "BigCodeBench/0", 2, 3, "fail");
	add(&t, "CF", "BigCodeBench/0", 3, 3, "pass");
	add(&t, "CF", "BigCodeBench/1", 3, 3, "pass");
	add(&t, "CF_EF_FULL_SEF", "BigCodeBench/0", 2, 3, "pass");
	score_finish(&t);
	check_reference(&t);
	ck_assert_uint_eq(t.records, n + 5);
	ck_assert_uint_eq(t.duplicates, 0);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

START_TEST(test_short_tasks_count)
{
	/* Tasks whose records stop at turn 0 still count, solved or not. */
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	add(&t, "CF", "only-turn-0-fail", 0, 3, "fail");
	add(&t, "CF", "only-turn-0-pass", 0, 3, "pass");
	score_finish(&t);
	check_pass(&t.v[0], 6, (double[]){2.0 / 6, 2.0 / 6, 3.0 / 6, 4.0 / 6}, 4);
	ck_assert_double_eq_tol(t.v[0].mrr, (1 + 1.0 / 3 + 1.0 / 4 + 1) / 6, EPS);
	ck_assert_double_eq_tol(t.v[0].recall, 4.0 / 6, EPS);
	/* The other setting is untouched. */
	check_pass(&t.v[1], 4, (double[]){0, 0.5, 0.5, 0.5}, 4);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

START_TEST(test_turns_disagree)
{
	/* The setting's N is the largest "turns"; a task from a shorter run
	 * keeps its state up to N. */
	struct score_table t = {0};
	add(&t, "CF", "a", 0, 1, "fail");
	add(&t, "CF", "a", 1, 1, "pass");
	add(&t, "CF", "b", 0, 3, "fail");
	add(&t, "CF", "b", 3, 3, "pass");
	score_finish(&t);
	ck_assert_uint_eq(t.n, 1);
	check_pass(&t.v[0], 2, (double[]){0, 0.5, 0.5, 1}, 4);
	ck_assert_double_eq_tol(t.v[0].recall, 1, EPS);
	score_free(&t);
}
END_TEST

START_TEST(test_duplicates_first_wins)
{
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	/* A pass after a fail at the same turn is ignored ... */
	add(&t, "CF", "BigCodeBench/2", 1, 3, "pass");
	/* ... and so is a fail after a pass. */
	add(&t, "CF", "BigCodeBench/0", 0, 3, "fail");
	/* The same task and turn under another setting is no duplicate. */
	add(&t, "CF_SNF", "BigCodeBench/0", 0, 3, "pass");
	score_finish(&t);
	ck_assert_uint_eq(t.duplicates, 2);
	ck_assert_uint_eq(t.records, n + 3);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(t.v[0].name, "CF");
	ck_assert_str_eq(t.v[1].name, "CF_SNF");
	ck_assert_str_eq(t.v[2].name, "CF_EF_FULL_SEF");
	check_pass(&t.v[0], 4, (double[]){0.25, 0.25, 0.5, 0.75}, 4);
	ck_assert_double_eq_tol(t.v[0].mrr, (1 + 1.0 / 3 + 0 + 1.0 / 4) / 4, EPS);
	check_pass(&t.v[1], 1, (double[]){1, 1, 1, 1}, 4);
	score_free(&t);

	/* First wins in the other direction too: pass first, then fail. */
	struct score_table u = {0};
	add(&u, "CF", "x", 0, 0, "pass");
	add(&u, "CF", "x", 0, 0, "fail");
	score_finish(&u);
	ck_assert_double_eq_tol(u.v[0].pass_at_1[0], 1, EPS);
	ck_assert_uint_eq(u.duplicates, 1);
	score_free(&u);
	free_lines(v, n);
}
END_TEST

START_TEST(test_setting_order)
{
	struct score_table t = {0};
	const char *in[] = {"zeta",   "CF_EF_FULL_SEF", "CF_EF_UNIT_SEF",
			    "CF_SEF", "CF_EF_FULL_SNF", "CF_EF_UNIT_SNF",
			    "CF_SNF", "CF_EF_FULL",	"CF_EF_UNIT",
			    "CF",     "Alpha"};
	const char *want[] = {"CF",
			      "CF_EF_UNIT",
			      "CF_EF_FULL",
			      "CF_SNF",
			      "CF_EF_UNIT_SNF",
			      "CF_EF_FULL_SNF",
			      "CF_SEF",
			      "CF_EF_UNIT_SEF",
			      "CF_EF_FULL_SEF",
			      "Alpha",
			      "zeta"};
	for (size_t i = 0; i < 11; i++)
		add(&t, in[i], "t", 0, 0, "fail");
	score_finish(&t);
	ck_assert_uint_eq(t.n, 11);
	for (size_t i = 0; i < 11; i++)
		ck_assert_str_eq(t.v[i].name, want[i]);
	score_free(&t);
}
END_TEST

static void assert_same(const struct score_table *a, const struct score_table *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->records, b->records);
	ck_assert_uint_eq(a->duplicates, b->duplicates);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_str_eq(a->v[i].name, b->v[i].name);
		ck_assert_uint_eq(a->v[i].tasks, b->v[i].tasks);
		ck_assert_int_eq(a->v[i].turns, b->v[i].turns);
		/* Exactly, not within a tolerance. */
		for (int k = 0; k <= a->v[i].turns; k++)
			ck_assert(a->v[i].pass_at_1[k] == b->v[i].pass_at_1[k]);
		ck_assert(a->v[i].mrr == b->v[i].mrr);
		ck_assert(a->v[i].recall == b->v[i].recall);
	}
}

START_TEST(test_shards_merge_exactly)
{
	char **v;
	size_t n = make_lines(&v);
	/* More tasks with odd MRRs, so summation order would show. */
	for (int k = 0; k < 20; k++)
		for (int turn = 0; turn <= 3; turn++) {
			char task[32];
			snprintf(task, sizeof task, "extra/%d", k);
			json_t *r = rec("CF_SNF", task, turn, 3, turn == k % 5 ? "pass" : "fail");
			v[n++] = json_dumps(r, JSON_COMPACT);
			json_decref(r);
			if (turn == k % 5)
				break;
		}
	ck_assert_uint_le(n, 256);
	char *dir = tmpdir(), *single = path_in(dir, "single.jsonl");
	char *sub = path_in(dir, "shard0");
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	char *files[3] = {path_in(sub, "turns.jsonl"), path_in(dir, "s1.jsonl"),
			  path_in(dir, "s2.jsonl")};
	FILE *fs = fopen(single, "w"), *fo[3];
	for (int i = 0; i < 3; i++)
		fo[i] = fopen(files[i], "w");
	/* A fixed permutation; lines round-robin over the shards, so one
	 * task's turns land in different files, out of order. */
	for (size_t i = 0; i < n; i++) {
		fprintf(fs, "%s\n", v[i]);
		size_t j = (i * 37 + 11) % n;
		fprintf(fo[i % 3], "%s\n", v[n - 1 - j]);
	}
	fclose(fs);
	for (int i = 0; i < 3; i++)
		fclose(fo[i]);
	/* (37 is coprime to n, so that really is a permutation.) */
	ck_assert_uint_ne(n % 37, 0);

	char err[256] = "";
	struct score_table one, three, rev;
	const char *p1[] = {single};
	ck_assert_int_eq(score_load(p1, 1, stderr, &one, err, sizeof err), 0);
	/* The directory stands for DIR/turns.jsonl. */
	const char *p3[] = {sub, files[1], files[2]};
	ck_assert_int_eq(score_load(p3, 3, stderr, &three, err, sizeof err), 0);
	const char *p3r[] = {files[2], files[1], sub};
	ck_assert_int_eq(score_load(p3r, 3, stderr, &rev, err, sizeof err), 0);
	ck_assert_uint_eq(one.records, n);
	ck_assert_uint_eq(one.n, 3);
	assert_same(&one, &three);
	assert_same(&one, &rev);
	/* score_load finished the table: the reference numbers are there. */
	ck_assert_str_eq(one.v[0].name, "CF");
	check_pass(&one.v[0], 4, (double[]){0.25, 0.25, 0.5, 0.75}, 4);
	ck_assert_uint_eq(one.v[1].tasks, 20);
	score_free(&one);
	score_free(&three);
	score_free(&rev);
	rm_rf(dir);
	for (int i = 0; i < 3; i++)
		free(files[i]);
	free(sub);
	free(single);
	free(dir);
	free_lines(v, n);
}
END_TEST

/* What score_load_each hands on: "setting/task/turn/verdict" per record. */
struct seen {
	char buf[1024];
	int calls, fail_at;
};

static int each_record(const json_t *r, void *ctx)
{
	struct seen *s = ctx;
	if (++s->calls == s->fail_at)
		return -1;
	size_t n = strlen(s->buf);
	snprintf(s->buf + n, sizeof s->buf - n, "%s/%s/%d/%s ",
		 json_string_value(json_object_get(r, "setting")),
		 json_string_value(json_object_get(r, "task_id")),
		 (int)json_integer_value(json_object_get(r, "turn")),
		 json_string_value(json_object_get(r, "verdict")));
	return 0;
}

START_TEST(test_load_each)
{
	char *dir = tmpdir(), *a = path_in(dir, "a.jsonl"), *b = path_in(dir, "b.jsonl");
	/* A bad line, a blank one and a duplicate that disagrees: the hook
	 * sees the records the scores count, the first duplicate only. */
	tf_write(a, "{\"setting\":\"CF\",\"task_id\":\"x\",\"turn\":0,\"turns\":1,"
		    "\"verdict\":\"fail\"}\n"
		    "not json\n"
		    "\n"
		    "{\"setting\":\"CF\",\"task_id\":\"x\",\"turn\":1,\"turns\":1,"
		    "\"verdict\":\"pass\"}\n");
	tf_write(b, "{\"setting\":\"CF\",\"task_id\":\"x\",\"turn\":1,\"turns\":1,"
		    "\"verdict\":\"fail\"}\n"
		    "{\"setting\":\"CF\",\"task_id\":\"y\",\"turn\":0,\"turns\":1}\n"
		    "{\"setting\":\"CF\",\"task_id\":\"y\",\"turn\":0,\"turns\":1,"
		    "\"verdict\":\"fail\"}\n");
	const char *paths[] = {a, b};
	struct seen s = {.fail_at = 0};
	struct score_table t;
	char err[256] = "";
	FILE *quiet = fopen("/dev/null", "w");
	ck_assert_int_eq(score_load_each(paths, 2, quiet, each_record, &s, &t, err, sizeof err), 0);
	ck_assert_str_eq(s.buf, "CF/x/0/fail CF/x/1/pass CF/y/0/fail ");
	ck_assert_uint_eq(t.records, 4);
	ck_assert_uint_eq(t.duplicates, 1);
	ck_assert_double_eq_tol(t.v[0].recall, 0.5, EPS);
	score_free(&t);

	/* A hook that fails (out of memory) fails the load, leaving it empty. */
	struct seen f = {.fail_at = 2};
	ck_assert_int_eq(score_load_each(paths, 2, quiet, each_record, &f, &t, err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "a.jsonl:4: out of memory"), "err: %s", err);
	ck_assert_uint_eq(t.n, 0);
	fclose(quiet);
	rm_rf(dir);
	free(a);
	free(b);
	free(dir);
}
END_TEST

START_TEST(test_bad_lines)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl");
	tf_write(
	    file,
	    "{\"setting\":\"CF\",\"task_id\":\"a\",\"turn\":0,\"turns\":1,\"verdict\":\"fail\"}\n"
	    "garbage{\n"
	    "{\"task_id\":\"b\",\"turn\":0,\"turns\":1,\"verdict\":\"pass\"}\n"
	    "\n"
	    "{\"setting\":\"CF\",\"task_id\":\"c\",\"turn\":-1,\"turns\":1,\"verdict\":\"pass\"}\n"
	    "{\"setting\":\"CF\",\"task_id\":\"d\",\"turn\":\"0\",\"turns\":1,\"verdict\":\"pass\"}"
	    "\n"
	    "{\"setting\":\"CF\",\"task_id\":\"e\",\"turn\":2,\"turns\":1,\"verdict\":\"pass\"}\n"
	    "{\"setting\":\"CF\",\"task_id\":\"f\",\"turn\":0,\"turns\":1}\n"
	    "[1,2]\n"
	    "{\"setting\":\"CF\",\"task_id\":\"a\",\"turn\":1,\"turns\":1,\"verdict\":\"pass\"}\n"
	    "{\"setting\":\"CF\",\"task_id\":\"g\",\"turn\":0,\"turns\":1,\"verdict\":null}\n"
	    "{\"setting\":\"CF\",\"task_id\":\"h\",\"turn\":0,\"turns\":5000,\"verdict\":"
	    "\"pass\"}");
	char *wbuf = NULL;
	size_t wlen = 0;
	FILE *warn = open_memstream(&wbuf, &wlen);
	char err[256] = "";
	struct score_table t;
	const char *p[] = {dir};
	ck_assert_int_eq(score_load(p, 1, warn, &t, err, sizeof err), 0);
	fclose(warn);
	char want[512];
	const int bad[] = {2, 3, 5, 6, 7, 8, 9, 12};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(want, sizeof want, "%s:%d: bad record (", file, bad[i]);
		ck_assert_msg(strstr(wbuf, want), "no warning for line %d in:\n%s", bad[i], wbuf);
	}
	ck_assert_uint_eq(count(wbuf, ": bad record ("), 8);
	ck_assert_ptr_nonnull(strstr(wbuf, "\n8 bad records skipped\n"));
	ck_assert_ptr_nonnull(strstr(wbuf, "(turns out of range)"));
	ck_assert_ptr_nonnull(strstr(wbuf, "(negative turn)"));
	ck_assert_ptr_nonnull(strstr(wbuf, "(missing or non-integer turn)"));
	ck_assert_ptr_nonnull(strstr(wbuf, "(turn beyond turns)"));
	/* The good lines before and after the bad ones were all read. */
	ck_assert_uint_eq(t.records, 3);
	ck_assert_uint_eq(t.n, 1);
	check_pass(&t.v[0], 2, (double[]){0, 0.5}, 2);
	free(wbuf);

	/* score_add_record refuses the same things. */
	struct score_table u = {0};
	json_t *r = json_loads("{\"setting\":\"CF\",\"task_id\":\"c\",\"turn\":-1,\"turns\":1,"
			       "\"verdict\":\"pass\"}",
			       0, NULL);
	ck_assert_int_eq(score_add_record(&u, r), -1);
	json_decref(r);
	r = json_string("not an object");
	ck_assert_int_eq(score_add_record(&u, r), -1);
	json_decref(r);
	ck_assert_uint_eq(u.records, 0);
	score_finish(&u);
	ck_assert_uint_eq(u.n, 0);
	score_free(&u);

	/* A missing file fails the load and names the file. */
	char *missing = path_in(dir, "nope.jsonl");
	const char *pm[] = {file, missing};
	ck_assert_int_eq(score_load(pm, 2, NULL, &u, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, missing));
	ck_assert_uint_eq(u.n, 0);
	ck_assert_ptr_null(u.priv);
	free(missing);
	score_free(&t);
	rm_rf(dir);
	free(file);
	free(dir);
}
END_TEST

START_TEST(test_warnings_capped)
{
	/* A file of garbage reports its first 50 lines, then only a count. */
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl");
	FILE *f = fopen(file, "w");
	for (int i = 0; i < 120; i++)
		fputs("not json\n", f);
	fclose(f);
	char *wbuf = NULL, err[256];
	size_t wlen = 0;
	FILE *warn = open_memstream(&wbuf, &wlen);
	struct score_table t;
	const char *p[] = {file};
	ck_assert_int_eq(score_load(p, 1, warn, &t, err, sizeof err), 0);
	fclose(warn);
	ck_assert_uint_eq(count(wbuf, ": bad record ("), 50);
	ck_assert_ptr_nonnull(strstr(wbuf, "120 bad records skipped"));
	ck_assert_uint_eq(t.records, 0);
	ck_assert_uint_eq(t.n, 0);
	free(wbuf);
	score_free(&t);
	rm_rf(dir);
	free(file);
	free(dir);
}
END_TEST

START_TEST(test_long_lines)
{
	/* Records carry code and feedback: far longer than any fixed buffer. */
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl");
	size_t big = 1 << 20;
	char *code = malloc(big + 1);
	memset(code, 'x', big);
	code[big] = '\0';
	FILE *f = fopen(file, "w");
	for (int k = 0; k < 3; k++) {
		json_t *r = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "setting", "CF", "task_id",
				      k == 2 ? "b" : "a", "turn", k == 2 ? 0 : k, "turns", 1,
				      "verdict", k == 1 ? "pass" : "fail", "code", code);
		json_dumpf(r, f, JSON_COMPACT);
		fputc('\n', f);
		json_decref(r);
	}
	fclose(f);
	char err[256];
	struct score_table t;
	const char *p[] = {file};
	ck_assert_int_eq(score_load(p, 1, stderr, &t, err, sizeof err), 0);
	ck_assert_uint_eq(t.records, 3);
	check_pass(&t.v[0], 2, (double[]){0, 0.5}, 2);
	score_free(&t);
	free(code);
	rm_rf(dir);
	free(file);
	free(dir);
}
END_TEST

/* Failed model commands are counted per setting: a record with a string
 * generator_error or verbal_error counts once (null does not, nor does a
 * duplicate), in the table, its JSON and the printed table. */
START_TEST(test_error_counts)
{
	struct score_table t = {0};
	const struct {
		const char *setting, *task;
		int turn;
		const char *gen, *verbal;
	} v[] = {
	    {"CF_EF_FULL", "a", 0, "exited with status 1", NULL},
	    {"CF_EF_FULL", "a", 1, "timed out after 600000 ms", NULL},
	    {"CF_EF_FULL", "a", 1, "exited with status 1", NULL}, /* a duplicate */
	    {"CF_EF_FULL", "b", 0, NULL, NULL},
	    {"CF_EF_FULL_SNF", "a", 0, NULL, "exited with status 2"},
	    {"CF_EF_FULL_SNF", "a", 1, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		json_t *r = rec(v[i].setting, v[i].task, v[i].turn, 1, "fail");
		json_object_set_new(r, "generator_error",
				    v[i].gen ? json_string(v[i].gen) : json_null());
		json_object_set_new(r, "verbal_error",
				    v[i].verbal ? json_string(v[i].verbal) : json_null());
		ck_assert_int_eq(score_add_record(&t, r), 0);
		json_decref(r);
	}
	score_finish(&t);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_str_eq(t.v[0].name, "CF_EF_FULL");
	ck_assert_uint_eq(t.v[0].generator_errors, 2);
	ck_assert_uint_eq(t.v[0].verbal_errors, 0);
	ck_assert_uint_eq(t.v[1].generator_errors, 0);
	ck_assert_uint_eq(t.v[1].verbal_errors, 1);
	json_t *j = score_to_json(&t);
	json_t *full = json_object_get(json_object_get(j, "settings"), "CF_EF_FULL");
	ck_assert_int_eq(json_integer_value(json_object_get(full, "generator_errors")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(full, "verbal_errors")), 0);
	json_decref(j);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	score_print(&t, f);
	fclose(f);
	ck_assert_msg(strstr(buf, "GenErr") && strstr(buf, "VerbErr"), "%s", buf);
	char *row = strstr(buf, "\nCF_EF_FULL "), *eol = row ? strchr(row + 1, '\n') : NULL;
	ck_assert_ptr_nonnull(eol);
	*eol = '\0';
	ck_assert_msg(strstr(row, "      2       0"), "row: %s", row + 1);
	free(buf);
	score_free(&t);
}
END_TEST

START_TEST(test_json)
{
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	score_finish(&t);
	json_t *j = score_to_json(&t);
	ck_assert_ptr_nonnull(j);
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	json_t *back = json_loads(s, 0, NULL);
	free(s);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(json_object_size(back), 1);
	json_t *sets = json_object_get(back, "settings");
	ck_assert(json_is_object(sets));
	ck_assert_uint_eq(json_object_size(sets), 2);
	for (size_t i = 0; i < t.n; i++) {
		json_t *o = json_object_get(sets, t.v[i].name);
		ck_assert_msg(json_is_object(o), "no %s", t.v[i].name);
		ck_assert_uint_eq(json_object_size(o), 7);
		ck_assert(json_is_integer(json_object_get(o, "generator_errors")));
		ck_assert(json_is_integer(json_object_get(o, "verbal_errors")));
		ck_assert(json_is_integer(json_object_get(o, "tasks")));
		ck_assert_int_eq(json_integer_value(json_object_get(o, "tasks")), 4);
		ck_assert_int_eq(json_integer_value(json_object_get(o, "turns")), 3);
		json_t *p = json_object_get(o, "pass_at_1");
		ck_assert(json_is_array(p));
		ck_assert_uint_eq(json_array_size(p), 4);
		for (size_t k = 0; k < 4; k++) {
			ck_assert(json_is_real(json_array_get(p, k)));
			ck_assert_double_eq_tol(json_real_value(json_array_get(p, k)),
						t.v[i].pass_at_1[k], EPS);
		}
		ck_assert(json_is_real(json_object_get(o, "mrr")));
		ck_assert_double_eq_tol(json_real_value(json_object_get(o, "mrr")), t.v[i].mrr,
					EPS);
		ck_assert_double_eq_tol(json_real_value(json_object_get(o, "recall")),
					t.v[i].recall, EPS);
	}
	ck_assert_double_eq_tol(
	    json_real_value(json_object_get(json_object_get(sets, "CF"), "recall")), 0.75, EPS);
	json_decref(back);

	/* An empty table is an empty "settings". */
	struct score_table e = {0};
	score_finish(&e);
	j = score_to_json(&e);
	ck_assert_uint_eq(json_object_size(json_object_get(j, "settings")), 0);
	json_decref(j);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

START_TEST(test_print)
{
	char **v;
	size_t n = make_lines(&v);
	struct score_table t = {0};
	add_lines(&t, v, n);
	add(&t, "CF_SNF", "z", 0, 3, "fail");
	score_finish(&t);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	score_print(&t, f);
	fclose(f);
	ck_assert_msg(!strncmp(buf, "setting", 7), "header: %s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "MRR"));
	ck_assert_ptr_nonnull(strstr(buf, "Recall"));
	ck_assert_ptr_nonnull(strstr(buf, " T0 "));
	ck_assert_ptr_nonnull(strstr(buf, " T3 "));
	ck_assert_ptr_null(strstr(buf, " T4 "));
	char *cf = strstr(buf, "\nCF "), *snf = strstr(buf, "\nCF_SNF "),
	     *sef = strstr(buf, "\nCF_EF_FULL_SEF ");
	ck_assert_ptr_nonnull(cf);
	ck_assert_ptr_nonnull(snf);
	ck_assert_ptr_nonnull(sef);
	ck_assert(cf < snf);
	ck_assert(snf < sef);
	/* The CF row in percent: 25.0 25.0 50.0 75.0, MRR 39.6, Recall 75.0. */
	char *eol = strchr(cf + 1, '\n');
	*eol = '\0';
	ck_assert_msg(strstr(cf, "25.0   25.0   50.0   75.0   39.6   75.0"), "row: %s", cf);
	free(buf);

	struct score_table e = {0};
	buf = NULL;
	f = open_memstream(&buf, &len);
	score_print(&e, f);
	fclose(f);
	ck_assert_str_eq(buf, "no records\n");
	free(buf);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

static void assert_xml_ok(const char *path)
{
	char cmd[512];
	snprintf(
	    cmd, sizeof cmd,
	    "python3 -c \"import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])\" '%s'",
	    path);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_svg)
{
	struct score_table t = {0};
	add(&t, "CF", "a", 0, 2, "fail");
	add(&t, "CF", "a", 1, 2, "pass");
	add(&t, "CF", "b", 0, 2, "fail");
	add(&t, "A&B<C>", "a", 0, 2, "pass");
	add(&t, "CF_SNF", "a", 0, 2, "fail");
	add(&t, "quote\"'name", "a", 0, 2, "fail");
	score_finish(&t);
	char *dir = tmpdir(), *file = path_in(dir, "pass_at_1.svg");
	tf_write(file, "old plot");
	char err[256] = "";
	ck_assert_int_eq(score_plot_svg(&t, file, err, sizeof err), 0);
	char *s = tf_read(file);
	const char *svg = s;
	if (!strncmp(svg, "<?xml", 5))
		svg = strstr(svg, "?>") + 2;
	svg += strspn(svg, " \n");
	ck_assert_msg(!strncmp(svg, "<svg", 4), "starts: %.40s", s);
	ck_assert_uint_eq(count(s, "<polyline"), 4);
	/* CF_SNF and quote"'name score the same at every turn: their curves
	 * coincide, so they must differ in dash or marker (the issue: identical
	 * series drawn on top of each other). Every pair of the four does. */
	char style[4][256];
	const char *g = s;
	for (int i = 0; i < 4; i++) {
		g = strstr(g, "<g class=\"series\">");
		ck_assert_ptr_nonnull(g);
		const char *pl = strstr(g, "<polyline"), *pts = strstr(pl, "points=\"");
		const char *m = strstr(strstr(pts, "/>"), "<");
		size_t dl = (size_t)(pts - pl), ml = strcspn(m, " ");
		ck_assert_uint_lt(dl + ml, sizeof style[i]);
		/* The line's attributes but its colour and points, and the
		 * marker's element name. */
		snprintf(style[i], sizeof style[i], "%.*s|%.*s", (int)dl, pl, (int)ml, m);
		char *col = strstr(style[i], "stroke=\"#");
		ck_assert_ptr_nonnull(col);
		memset(col, '_', 16);
		g = pl;
	}
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			ck_assert_msg(strcmp(style[i], style[j]) != 0,
				      "series %d and %d look alike: %s", i, j, style[i]);
	ck_assert_ptr_nonnull(strstr(s, ">A&amp;B&lt;C&gt;</text>"));
	ck_assert_ptr_null(strstr(s, "A&B"));
	ck_assert_ptr_nonnull(strstr(s, "Pass@1 per turn"));
	ck_assert_ptr_nonnull(strstr(s, ">CF_SNF</text>"));
	ck_assert_ptr_nonnull(strstr(s, "</svg>"));
	assert_xml_ok(file);
	free(s);

	/* Nothing else is left in the directory: the temp file was renamed. */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "test \"$(ls '%s')\" = pass_at_1.svg", dir);
	ck_assert_int_eq(system(cmd), 0);

	/* An empty table still gives a valid (empty) plot. */
	struct score_table e = {0};
	score_finish(&e);
	ck_assert_int_eq(score_plot_svg(&e, file, err, sizeof err), 0);
	s = tf_read(file);
	ck_assert_uint_eq(count(s, "<polyline"), 0);
	free(s);
	assert_xml_ok(file);

	/* An unwritable place fails with a message. */
	char *bad = path_in(dir, "no/such/dir.svg");
	ck_assert_int_eq(score_plot_svg(&t, bad, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no/such/dir.svg"));
	free(bad);
	score_free(&t);
	rm_rf(dir);
	free(file);
	free(dir);
}
END_TEST

START_TEST(test_large)
{
	/* ConvCodeWorld's full size: 1140 tasks x 9 settings x 11 turns. */
	static const char *const nine[] = {"CF",     "CF_EF_UNIT",     "CF_EF_FULL",
					   "CF_SNF", "CF_EF_UNIT_SNF", "CF_EF_FULL_SNF",
					   "CF_SEF", "CF_EF_UNIT_SEF", "CF_EF_FULL_SEF"};
	struct score_table t = {0};
	for (int s = 0; s < 9; s++)
		for (int k = 0; k < 1140; k++) {
			char task[32];
			snprintf(task, sizeof task, "BigCodeBench/%d", k);
			for (int turn = 0; turn <= 10; turn++) {
				json_t *r = rec(nine[s], task, turn, 10,
						(k + s) % 13 == turn ? "pass" : "fail");
				ck_assert_int_eq(score_add_record(&t, r), 0);
				json_decref(r);
			}
		}
	score_finish(&t);
	ck_assert_uint_eq(t.records, 9 * 1140 * 11);
	ck_assert_uint_eq(t.duplicates, 0);
	ck_assert_uint_eq(t.n, 9);
	for (int s = 0; s < 9; s++) {
		ck_assert_str_eq(t.v[s].name, nine[s]);
		ck_assert_uint_eq(t.v[s].tasks, 1140);
		ck_assert_int_eq(t.v[s].turns, 10);
		/* (k + s) % 13 <= 10 for 11 of every 13 tasks. */
		size_t solved = 0;
		for (int k = 0; k < 1140; k++)
			solved += (k + s) % 13 <= 10;
		ck_assert_double_eq_tol(t.v[s].recall, (double)solved / 1140, EPS);
	}
	score_free(&t);
}
END_TEST

static Suite *score_suite(void)
{
	Suite *s = suite_create("score");
	TCase *t = tcase_create("score");
	tcase_add_test(t, test_reference_numbers);
	tcase_add_test(t, test_carried_records);
	tcase_add_test(t, test_short_tasks_count);
	tcase_add_test(t, test_turns_disagree);
	tcase_add_test(t, test_duplicates_first_wins);
	tcase_add_test(t, test_setting_order);
	tcase_add_test(t, test_shards_merge_exactly);
	tcase_add_test(t, test_load_each);
	tcase_add_test(t, test_bad_lines);
	tcase_add_test(t, test_warnings_capped);
	tcase_add_test(t, test_long_lines);
	tcase_add_test(t, test_json);
	tcase_add_test(t, test_error_counts);
	tcase_add_test(t, test_print);
	tcase_add_test(t, test_svg);
	tcase_add_test(t, test_large);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(score_suite, NULL);
}
