/* Unit tests for passk.c (the unbiased pass@k estimator and the ks
 * reported) and its use in score.c for `sbx eval --samples N`: episodes keyed
 * by "sample", Pass@1/MRR/Recall averaged over episodes, pass@k per turn,
 * shards merging into the same bits, the JSON and the printed table. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/eval/passk.h"
#include "client/eval/score.h"
#include "tests/helpers/tmain.h"

#define EPS 1e-12

START_TEST(test_estimator_hand_computed)
{
	/* n = 5, c = 2: 1 - C(3,k)/C(5,k). */
	ck_assert_double_eq_tol(passk_estimate(5, 2, 1), 1 - 3.0 / 5, EPS);
	ck_assert_double_eq_tol(passk_estimate(5, 2, 2), 1 - 3.0 / 10, EPS);
	ck_assert_double_eq_tol(passk_estimate(5, 2, 3), 1 - 1.0 / 10, EPS);
	/* n - c < k: every draw of k holds a solving episode. */
	ck_assert_double_eq(passk_estimate(5, 2, 4), 1.0);
	ck_assert_double_eq(passk_estimate(5, 2, 5), 1.0);
	/* n = 10, c = 3, k = 5: 1 - C(7,5)/C(10,5) = 1 - 21/252. */
	ck_assert_double_eq_tol(passk_estimate(10, 3, 5), 1 - 21.0 / 252, EPS);
	/* c = 0 never passes, c = n always. */
	for (int k = 1; k <= 5; k++) {
		ck_assert_double_eq(passk_estimate(5, 0, k), 0.0);
		ck_assert_double_eq(passk_estimate(5, 5, k), 1.0);
	}
	/* pass@1 is c / n. */
	ck_assert_double_eq_tol(passk_estimate(7, 3, 1), 3.0 / 7, EPS);
	/* Large n stays finite and in [0, 1] (C(1000, 500) would overflow). */
	double big = passk_estimate(1000, 1, 500);
	ck_assert_double_eq_tol(big, 0.5, 1e-9);
	/* Undefined: k outside 1..n, c outside 0..n, no episodes. */
	ck_assert_double_eq(passk_estimate(5, 2, 0), -1);
	ck_assert_double_eq(passk_estimate(5, 2, 6), -1);
	ck_assert_double_eq(passk_estimate(5, 6, 1), -1);
	ck_assert_double_eq(passk_estimate(5, -1, 1), -1);
	ck_assert_double_eq(passk_estimate(0, 0, 1), -1);
}
END_TEST

START_TEST(test_ks)
{
	int ks[PASSK_MAX_KS];
	ck_assert_uint_eq(passk_ks(0, ks), 0);
	ck_assert_uint_eq(passk_ks(1, ks), 1);
	ck_assert_int_eq(ks[0], 1);
	ck_assert_uint_eq(passk_ks(5, ks), 4);
	ck_assert(ks[0] == 1 && ks[1] == 2 && ks[2] == 4 && ks[3] == 5);
	ck_assert_uint_eq(passk_ks(8, ks), 4);
	ck_assert(ks[2] == 4 && ks[3] == 8);
	size_t m = passk_ks(PASSK_MAX_SAMPLES, ks);
	ck_assert_uint_le(m, PASSK_MAX_KS);
	ck_assert_int_eq(ks[m - 1], PASSK_MAX_SAMPLES);
	ck_assert_int_eq(ks[m - 2], 128);
}
END_TEST

/* 2 tasks x 4 samples, 2 feedback turns, CF:
 *   A: sample 0 passes at turn 0, sample 1 at turn 2, samples 2, 3 never
 *   B: sample 1 passes at turn 1, the others never
 * as JSON lines (records stop at a pass, as the loop writes them). */
static const int fp[2][4] = {{0, 2, -1, -1}, {-1, 1, -1, -1}};

static size_t make_lines(char ***out, bool with_sample)
{
	char **v = calloc(64, sizeof *v);
	size_t n = 0;
	for (int t = 0; t < 2; t++)
		for (int s = 0; s < (with_sample ? 4 : 1); s++)
			for (int turn = 0; turn <= 2; turn++) {
				json_t *r =
				    json_pack("{s:s, s:s, s:i, s:i, s:s}", "setting", "CF",
					      "task_id", t ? "B" : "A", "turn", turn, "turns", 2,
					      "verdict", turn == fp[t][s] ? "pass" : "fail");
				if (with_sample)
					json_object_set_new(r, "sample", json_integer(s));
				v[n++] = json_dumps(r, JSON_COMPACT);
				json_decref(r);
				if (turn == fp[t][s])
					break;
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

static void load_lines(struct score_table *t, char **v, size_t n)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_loads(v[i], 0, NULL);
		ck_assert_int_eq(score_add_record(t, r), 0);
		json_decref(r);
	}
	score_finish(t);
}

static void check_row(const double *got, const double *want, int n)
{
	for (int k = 0; k < n; k++)
		ck_assert_msg(fabs(got[k] - want[k]) < EPS, "turn %d: %.15g, want %.15g", k, got[k],
			      want[k]);
}

START_TEST(test_score_samples)
{
	char **v;
	size_t n = make_lines(&v, true);
	struct score_table t;
	load_lines(&t, v, n);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.duplicates, 0); /* the same turn of another sample is no duplicate */
	const struct score_setting *s = &t.v[0];
	ck_assert_uint_eq(s->tasks, 2);
	ck_assert_uint_eq(s->episodes, 8);
	ck_assert_int_eq(s->samples, 4);
	/* Over the 8 episodes. */
	check_row(s->pass_at_1, (double[]){1.0 / 8, 2.0 / 8, 3.0 / 8}, 3);
	ck_assert_double_eq_tol(s->mrr, (1 + 1.0 / 2 + 1.0 / 3) / 8, EPS);
	ck_assert_double_eq_tol(s->recall, 3.0 / 8, EPS);
	/* k = 1, 2, 4: per turn, A's and B's c are (1,0), (1,1), (2,1) of 4. */
	ck_assert_uint_eq(s->nk, 3);
	ck_assert(s->ks[0] == 1 && s->ks[1] == 2 && s->ks[2] == 4);
	check_row(s->pass_at_k[0], (double[]){0.125, 0.25, 0.375}, 3);
	check_row(s->pass_at_k[1], (double[]){0.25, 0.5, (5.0 / 6 + 0.5) / 2}, 3);
	check_row(s->pass_at_k[2], (double[]){0.5, 1, 1}, 3);

	/* The JSON has them keyed by k; the table prints them. */
	json_t *j = score_to_json(&t);
	json_t *cf = json_object_get(json_object_get(j, "settings"), "CF");
	ck_assert_int_eq(json_integer_value(json_object_get(cf, "samples")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(cf, "episodes")), 8);
	json_t *pk = json_object_get(cf, "pass_at_k");
	ck_assert_uint_eq(json_object_size(pk), 3);
	ck_assert_double_eq_tol(json_real_value(json_array_get(json_object_get(pk, "2"), 2)),
				(5.0 / 6 + 0.5) / 2, EPS);
	ck_assert_ptr_nonnull(json_object_get(pk, "4"));
	json_decref(j);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	score_print(&t, f);
	fclose(f);
	ck_assert_msg(strstr(buf, "pass@k") && strstr(buf, "66.7") && strstr(buf, "episodes"), "%s",
		      buf);
	free(buf);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

/* Without "sample" (a run without --samples) nothing new appears. */
START_TEST(test_score_one_sample_unchanged)
{
	char **v;
	size_t n = make_lines(&v, false);
	struct score_table t;
	load_lines(&t, v, n);
	ck_assert_uint_eq(t.v[0].episodes, 2);
	ck_assert_uint_eq(t.v[0].nk, 0);
	check_row(t.v[0].pass_at_1, (double[]){0.5, 0.5, 0.5}, 3);
	json_t *j = score_to_json(&t);
	json_t *cf = json_object_get(json_object_get(j, "settings"), "CF");
	ck_assert_ptr_null(json_object_get(cf, "pass_at_k"));
	ck_assert_ptr_null(json_object_get(cf, "samples"));
	ck_assert_uint_eq(json_object_size(cf), 7);
	json_decref(j);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	score_print(&t, f);
	fclose(f);
	ck_assert_msg(!strstr(buf, "pass@k"), "%s", buf);
	free(buf);
	score_free(&t);
	free_lines(v, n);
}
END_TEST

/* Duplicates are per (setting, task, sample, turn); bad samples are bad
 * records. */
START_TEST(test_score_sample_keys)
{
	struct score_table t = {0};
	const char *lines[] = {
	    "{\"setting\":\"CF\",\"task_id\":\"A\",\"turn\":0,\"turns\":0,\"verdict\":\"fail\"}",
	    /* sample 0 written out: the same episode, a duplicate (first wins) */
	    "{\"setting\":\"CF\",\"task_id\":\"A\",\"turn\":0,\"turns\":0,\"verdict\":\"pass\","
	    "\"sample\":0}",
	    "{\"setting\":\"CF\",\"task_id\":\"A\",\"turn\":0,\"turns\":0,\"verdict\":\"pass\","
	    "\"sample\":1}",
	    "{\"setting\":\"CF\",\"task_id\":\"A\",\"turn\":0,\"turns\":0,\"verdict\":\"fail\","
	    "\"sample\":1}",
	};
	for (size_t i = 0; i < 4; i++) {
		json_t *r = json_loads(lines[i], 0, NULL);
		ck_assert_int_eq(score_add_record(&t, r), 0);
		json_decref(r);
	}
	const char *bad[] = {"\"x\"", "-1", "200", "1.5"};
	for (size_t i = 0; i < 4; i++) {
		char l[256];
		snprintf(l, sizeof l,
			 "{\"setting\":\"CF\",\"task_id\":\"A\",\"turn\":0,\"turns\":0,"
			 "\"verdict\":\"pass\",\"sample\":%s}",
			 bad[i]);
		json_t *r = json_loads(l, 0, NULL);
		ck_assert_msg(score_add_record(&t, r) == -1, "sample %s taken", bad[i]);
		json_decref(r);
	}
	score_finish(&t);
	ck_assert_uint_eq(t.duplicates, 2);
	ck_assert_uint_eq(t.v[0].episodes, 2);
	ck_assert_double_eq_tol(t.v[0].pass_at_1[0], 0.5, EPS);
	ck_assert_double_eq_tol(t.v[0].pass_at_k[1][0], 1.0, EPS);
	score_free(&t);
}
END_TEST

static void assert_same(const struct score_table *a, const struct score_table *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_uint_eq(a->v[i].nk, b->v[i].nk);
		ck_assert(a->v[i].mrr == b->v[i].mrr);
		for (int k = 0; k <= a->v[i].turns; k++) {
			ck_assert(a->v[i].pass_at_1[k] == b->v[i].pass_at_1[k]);
			for (size_t j = 0; j < a->v[i].nk; j++)
				ck_assert(a->v[i].pass_at_k[j][k] == b->v[i].pass_at_k[j][k]);
		}
	}
}

/* Shards (or files in any order) give the same bits: per-task values are
 * summed in a fixed order. Many tasks with distinct (n, c), so an order
 * dependence would show. */
START_TEST(test_score_samples_merge_exactly)
{
	char dir[] = "/tmp/sbx-passk-XXXXXX", p0[64], p1[64];
	ck_assert(mkdtemp(dir));
	snprintf(p0, sizeof p0, "%s/a.jsonl", dir);
	snprintf(p1, sizeof p1, "%s/b.jsonl", dir);
	FILE *f0 = fopen(p0, "w"), *f1 = fopen(p1, "w");
	ck_assert(f0 && f1);
	for (int task = 0; task < 40; task++)
		for (int s = 0; s < 7; s++) {
			int pass_at = (task * 7 + s * 3) % 5 - 1; /* -1: never */
			for (int turn = 0; turn <= 2; turn++) {
				FILE *f = (task * 13 + s + turn) % 3 ? f0 : f1;
				fprintf(
				    f,
				    "{\"setting\":\"CF_EF_FULL\",\"task_id\":\"T%d\",\"turn\":%d,"
				    "\"turns\":2,\"sample\":%d,\"verdict\":\"%s\"}\n",
				    task, turn, s, turn == pass_at ? "pass" : "fail");
				if (turn == pass_at)
					break;
			}
		}
	fclose(f0);
	fclose(f1);
	struct score_table a, b;
	char err[256];
	const char *ab[] = {p0, p1}, *ba[] = {p1, p0};
	ck_assert_int_eq(score_load(ab, 2, stderr, &a, err, sizeof err), 0);
	ck_assert_int_eq(score_load(ba, 2, stderr, &b, err, sizeof err), 0);
	ck_assert_int_eq(a.v[0].samples, 7);
	ck_assert_uint_eq(a.v[0].nk, 4); /* 1 2 4 7 */
	assert_same(&a, &b);
	score_free(&a);
	score_free(&b);
	unlink(p0);
	unlink(p1);
	rmdir(dir);
}
END_TEST

/* A task with fewer episodes (a run cut short) limits the ks to what every
 * task has. */
START_TEST(test_score_uneven_samples)
{
	struct score_table t = {0};
	for (int s = 0; s < 4; s++) {
		json_t *r = json_pack("{s:s, s:s, s:i, s:i, s:s, s:i}", "setting", "CF", "task_id",
				      "A", "turn", 0, "turns", 0, "verdict", "pass", "sample", s);
		score_add_record(&t, r);
		json_decref(r);
	}
	json_t *r = json_pack("{s:s, s:s, s:i, s:i, s:s, s:i}", "setting", "CF", "task_id", "B",
			      "turn", 0, "turns", 0, "verdict", "fail", "sample", 0);
	score_add_record(&t, r);
	json_decref(r);
	score_finish(&t);
	ck_assert_int_eq(t.v[0].samples, 1);
	ck_assert_int_eq(t.v[0].max_samples, 4);
	ck_assert_uint_eq(t.v[0].nk, 1);
	ck_assert_double_eq_tol(t.v[0].pass_at_k[0][0], 0.5, EPS);
	ck_assert_double_eq_tol(t.v[0].pass_at_1[0], 4.0 / 5, EPS);
	score_free(&t);
}
END_TEST

static Suite *passk_suite(void)
{
	Suite *s = suite_create("passk");
	TCase *t = tcase_create("core");
	tcase_add_test(t, test_estimator_hand_computed);
	tcase_add_test(t, test_ks);
	tcase_add_test(t, test_score_samples);
	tcase_add_test(t, test_score_one_sample_unchanged);
	tcase_add_test(t, test_score_sample_keys);
	tcase_add_test(t, test_score_samples_merge_exactly);
	tcase_add_test(t, test_score_uneven_samples);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(passk_suite, NULL);
}
