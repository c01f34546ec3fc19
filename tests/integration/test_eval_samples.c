/* Integration tests of `sbx eval --samples N --temperature T` (pass@k) and
 * of when the verbal-feedback command is called (never after the last
 * turn; a resume with more turns asks the one the old last turn lacks).
 *
 * Each test runs its own daemon and fake model commands (tests/eval/,
 * tests/helpers/evalenv.h). Run as root from the repository root (make
 * integration), SBX_BUILD naming the build directory. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/eval/eval.h"
#include "client/eval/manifest.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/evalenv.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

static json_t *load_json(const char *out, const char *name)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", out, name);
	json_t *j = json_load_file(p, 0, NULL);
	ck_assert_msg(j, "no %s", p);
	return j;
}

static void check_series(const json_t *a, const double *want, size_t n, const char *what)
{
	ck_assert_uint_eq(json_array_size(a), n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(fabs(json_number_value(json_array_get(a, i)) - want[i]) < 1e-9,
			      "%s[%zu] = %g, want %g", what, i,
			      json_number_value(json_array_get(a, i)), want[i]);
}

/* Records of one sample. */
static size_t count_sample(const json_t *recs, int sample)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(recs, i, r)
	{
		n += json_integer_value(json_object_get(r, "sample")) == sample &&
		     json_is_integer(json_object_get(r, "sample"));
	}
	return n;
}

/* 2 tasks x 3 samples, CF_EF_FULL, 2 turns. t/double: right on even
 * samples (0 and 2, at turn 0), never on 1. t/negate: sample s is right
 * from turn s on. */
START_TEST(test_samples_pass_at_k)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "samples");
	const char *tasks[] = {"t/double", "t/negate"};
	opts(&o, &e, out, "t/double=even,t/negate=sampleturn", 2, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 2;
	o.samples = 3;
	o.temperature = 0.7;
	run_ok(&o);

	/* turns.jsonl: each episode whole, with its sample index. */
	json_t *recs = load_turns(out);
	ck_assert_uint_eq(json_array_size(recs), 2 * 3 * 3);
	for (int s = 0; s < 3; s++)
		ck_assert_uint_eq(count_sample(recs, s), 6);

	/* The generator saw each episode's sample, its own seed, the temperature. */
	json_t *gin = load_jsonl(e.glog);
	size_t i;
	json_t *g;
	json_array_foreach(gin, i, g)
	{
		json_t *smp = json_object_get(g, "sample");
		ck_assert(json_is_integer(smp));
		int s = (int)json_integer_value(smp);
		ck_assert(s >= 0 && s < 3);
		ck_assert_msg(
		    fabs(json_number_value(json_object_get(g, "temperature")) - 0.7) < 1e-12,
		    "temperature %g", json_number_value(json_object_get(g, "temperature")));
		ck_assert_int_eq(json_integer_value(json_object_get(g, "seed")),
				 (json_int_t)manifest_sample_seed(42, sget(g, "task_id"), s));
	}
	/* Distinct per episode: 6 different seeds. */
	json_int_t seeds[6];
	for (size_t t = 0; t < 2; t++)
		for (int s = 0; s < 3; s++) {
			seeds[t * 3 + (size_t)s] =
			    (json_int_t)manifest_sample_seed(42, tasks[t], s);
			for (size_t k = 0; k < t * 3 + (size_t)s; k++)
				ck_assert(seeds[k] != seeds[t * 3 + (size_t)s]);
		}
	/* Asked: double 3 episodes, passing ones not again: s0 1, s1 3, s2 1;
	 * negate s0 1, s1 2, s2 3. */
	ck_assert_uint_eq(json_array_size(gin), 5 + 6);

	/* summary.json: episodes solved by turn: 3, 4, 5 of 6. */
	json_t *sum = load_json(out, "summary.json");
	json_t *s = json_object_get(json_object_get(sum, "settings"), "CF_EF_FULL");
	ck_assert_int_eq(json_integer_value(json_object_get(s, "tasks")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "samples")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "episodes")), 6);
	check_series(json_object_get(s, "pass_at_1"), (double[]){0.5, 4.0 / 6, 5.0 / 6}, 3,
		     "pass_at_1");
	ck_assert_double_eq_tol(json_number_value(json_object_get(s, "mrr")),
				(3 + 1.0 / 2 + 1.0 / 3) / 6, 1e-9);
	ck_assert_double_eq_tol(json_number_value(json_object_get(s, "recall")), 5.0 / 6, 1e-9);
	/* c per turn (double, negate): (2,1) (2,2) (2,3) of n = 3. */
	json_t *pk = json_object_get(s, "pass_at_k");
	ck_assert_uint_eq(json_object_size(pk), 3);
	check_series(json_object_get(pk, "1"), (double[]){0.5, 2.0 / 3, 5.0 / 6}, 3, "pass@1");
	check_series(json_object_get(pk, "2"), (double[]){5.0 / 6, 1, 1}, 3, "pass@2");
	check_series(json_object_get(pk, "3"), (double[]){1, 1, 1}, 3, "pass@3");
	json_decref(sum);

	/* The manifest records them; traces are per episode. */
	json_t *m = load_json(out, "manifest.json");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "samples")), 3);
	ck_assert_double_eq_tol(json_number_value(json_object_get(m, "temperature")), 0.7, 1e-12);
	json_decref(m);
	char p[600];
	snprintf(p, sizeof p, "%s/traces.jsonl", out);
	json_t *tr = load_jsonl(p);
	/* One line per call of the model: the records that asked it. */
	json_t *all = load_turns(out);
	size_t calls = 0;
	json_array_foreach(all, i, g)
	{
		calls += !json_is_true(json_object_get(g, "carried")) &&
			 json_is_string(json_object_get(g, "user_message"));
	}
	json_decref(all);
	ck_assert_uint_ge(calls, 6);
	ck_assert_uint_eq(json_array_size(tr), calls);
	bool s2 = false;
	json_array_foreach(tr, i, g)
	{
		s2 |= streq(sget(g, "trial_name"), "t/negate__CF_EF_FULL__s2") &&
		      json_integer_value(json_object_get(g, "sample")) == 2;
	}
	ck_assert(s2);
	json_decref(tr);
	/* The sample lines follow the schema too (its trial_name and sample). */
	char cmd[1200], msg[4096];
	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 tests/eval/check_traces.py docs/traces.schema.json %s 2>&1", p);
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	size_t mn = fread(msg, 1, sizeof msg - 1, pp);
	msg[mn] = '\0';
	int st = pclose(pp);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		fprintf(stderr, "note: the traces' schema check did not run: %s", msg);
	else
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "schema: %s", msg);

	/* A resume of the same run asks nothing; another sample count or
	 * temperature is another run. */
	size_t asked = lines_in(e.glog);
	run_ok(&o);
	ck_assert_uint_eq(lines_in(e.glog), asked);
	char err[1024] = "";
	o.samples = 2;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "samples (was 3, now 2)"), "%s", err);
	o.samples = 3;
	o.temperature = -1;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "temperature"), "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), asked);

	/* sbx report keeps each episode a row of its own. */
	const char *rargs[] = {"report", out, NULL};
	char *rout, *rerr;
	ck_assert_int_eq(cli_run(&e, rargs, &rout, &rerr), 0);
	free(rout);
	free(rerr);
	snprintf(p, sizeof p, "%s/report.html", out);
	size_t plen;
	char *page = sbx_read_file(p, 1 << 24, &plen, NULL, 0);
	ck_assert_ptr_nonnull(page);
	/* Its pass@k table has sbx score's numbers (summary.json's, above). */
	ck_assert_ptr_nonnull(strstr(page, "id=\"passk-table\""));
	ck_assert_msg(strstr(page, "CF_EF_FULL</th><td>2</td><td>83.3</td><td>100.0</td>"
				   "<td>100.0</td><td>6</td></tr>"),
		      "no pass@2 row in the page");
	ck_assert_ptr_nonnull(strstr(page, "CF_EF_FULL</th><td>3</td><td>100.0</td>"));
	ck_assert(strstr(page, "t/negate [sample 2]") && strstr(page, "t/double [sample 0]"));
	/* The header counts tasks, not episodes (the data block's "tasks"). */
	char *blk = strstr(page, "id=\"report-data\">");
	ck_assert_ptr_nonnull(blk);
	blk = strchr(blk, '>') + 1;
	char *end = strstr(blk, "</script>");
	ck_assert_ptr_nonnull(end);
	json_t *data = json_loadb(blk, (size_t)(end - blk), 0, NULL);
	ck_assert_ptr_nonnull(data);
	ck_assert_int_eq(json_integer_value(json_object_get(data, "tasks")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(data, "rows")), 6);
	json_decref(data);
	free(page);

	/* Shards of the same run: `sbx score --json` over both gives the single
	 * run's numbers, pass@k included. */
	json_t *whole = load_json(out, "summary.json");
	const char *shard_dirs[2] = {sub(&e, "shard0"), sub(&e, "shard1")};
	char sd[2][512];
	for (int k = 0; k < 2; k++) {
		snprintf(sd[k], sizeof sd[k], "%s", shard_dirs[k]);
		opts(&o, &e, sd[k], "t/double=even,t/negate=sampleturn", 2, "CF_EF_FULL", NULL);
		o.tasks = tasks;
		o.ntasks = 2;
		o.samples = 3;
		o.temperature = 0.7;
		o.shard_i = k;
		o.shard_n = 2;
		run_ok(&o);
	}
	const char *jargs[] = {"score", "--json", sd[0], sd[1], NULL};
	char *jout, *jerr;
	ck_assert_int_eq(cli_run(&e, jargs, &jout, &jerr), 0);
	json_t *merged = json_loads(jout, 0, NULL);
	ck_assert_msg(merged, "%s", jout);
	/* (summary.json also says how many tasks were scored; score does not.) */
	ck_assert_msg(
	    json_equal(json_object_get(merged, "settings"), json_object_get(whole, "settings")),
	    "shards: %s", jout);
	free(jout);
	free(jerr);
	json_decref(merged);
	json_decref(whole);

	/* sbx score prints the pass@k rows. */
	const char *args[] = {"score", out, NULL};
	char *sout, *serr;
	ck_assert_int_eq(cli_run(&e, args, &sout, &serr), 0);
	ck_assert_msg(strstr(sout, "pass@k") && strstr(sout, "83.3"), "%s", sout);
	free(sout);
	free(serr);
	json_decref(recs);
	json_decref(gin);
	env_end(&e);
}
END_TEST

/* Without --samples and --temperature nothing changes: no "sample" in the
 * records, no "sample", "seed" or "temperature" in the generator's input,
 * no pass@k in the summary. */
START_TEST(test_one_sample_unchanged)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "one");
	const char *tasks[] = {"t/double"};
	opts(&o, &e, out, "even", 1, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 1;
	run_ok(&o);
	json_t *recs = load_turns(out), *gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(recs), 2);
	ck_assert_ptr_null(json_object_get(json_array_get(recs, 0), "sample"));
	ck_assert_uint_eq(json_array_size(gin), 1);
	ck_assert_ptr_null(json_object_get(json_array_get(gin, 0), "seed"));
	ck_assert_ptr_null(json_object_get(json_array_get(gin, 0), "temperature"));
	/* The generator input of an sbx before --samples, plus system_prompt. */
	ck_assert_uint_eq(json_object_size(json_array_get(gin, 0)), 10);
	json_t *sum = load_json(out, "summary.json");
	json_t *s = json_object_get(json_object_get(sum, "settings"), "CF_EF_FULL");
	ck_assert_ptr_null(json_object_get(s, "pass_at_k"));
	json_t *m = load_json(out, "manifest.json");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "samples")), 1);
	ck_assert(json_is_null(json_object_get(m, "temperature")));
	/* A manifest of an sbx before --samples (no such keys) is the same run. */
	json_object_del(m, "samples");
	json_object_del(m, "temperature");
	char p[600], err[1024] = "";
	snprintf(p, sizeof p, "%s/manifest.json", out);
	ck_assert_int_eq(json_dump_file(m, p, JSON_INDENT(2)), 0);
	ck_assert_msg(eval_run(&o, err, sizeof err) == 0, "%s", err);
	json_decref(m);
	json_decref(sum);
	json_decref(recs);
	json_decref(gin);
	env_end(&e);
}
END_TEST

/* The verbal command is asked only when a later turn reads its text: not
 * after the last turn, not for a solved task. A resume with more turns asks
 * it for the old last turn, whose record then gets the text. */
START_TEST(test_verbal_calls)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "verbal");
	opts(&o, &e, out, "t/double=right,*=wrong", 1, "CF_EF_FULL_SNF", NULL);
	run_ok(&o);
	/* 3 unsolved tasks, asked after turn 0 only. */
	ck_assert_uint_eq(lines_in(e.vlog), 3);
	json_t *recs = load_turns(out);
	ck_assert_ptr_nonnull(
	    strstr(fb(rec(recs, "CF_EF_FULL_SNF", "t/inc", 0), "verbal"), "novice says"));
	ck_assert_str_eq(fb(rec(recs, "CF_EF_FULL_SNF", "t/inc", 1), "verbal"), "");
	json_decref(recs);

	/* Resume to 3 turns: turn 1's feedback now (3), turn 2's (3), not turn 3's. */
	o.turns = 3;
	run_ok(&o);
	ck_assert_uint_eq(lines_in(e.vlog), 3 + 3 + 3);
	recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL_SNF"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 3);
	json_t *gin = load_jsonl(e.glog);
	for (size_t t = 1; t < 4; t++) {
		json_t *r1 = rec(recs, "CF_EF_FULL_SNF", ALL_TASKS[t], 1);
		ck_assert_msg(strstr(fb(r1, "verbal"), "novice says"), "%s turn 1: '%s'",
			      ALL_TASKS[t], fb(r1, "verbal"));
		ck_assert(json_is_null(json_object_get(r1, "verbal_error")));
		/* The model got it at turn 2. */
		json_t *g2 = find(gin, "CF_EF_FULL_SNF", ALL_TASKS[t], 2);
		ck_assert_ptr_nonnull(g2);
		ck_assert_str_eq(sget(g2, "verbal_feedback"), fb(r1, "verbal"));
		ck_assert_str_eq(fb(rec(recs, "CF_EF_FULL_SNF", ALL_TASKS[t], 3), "verbal"), "");
	}
	ck_assert_uint_eq(count(recs, NULL, "t/double", -1), 4);
	/* Resuming the finished run asks nothing more. */
	run_ok(&o);
	ck_assert_uint_eq(lines_in(e.vlog), 9);
	json_decref(gin);
	json_decref(recs);

	/* A late call that fails is a failed verbal call like any: the old
	 * last turn gets verbal_error, the next turn empty verbal feedback. */
	const char *out2 = sub(&e, "verbal-fail");
	const char *one[] = {"t/inc"};
	opts(&o, &e, out2, "wrong", 1, "CF_EF_FULL_SNF", NULL);
	o.tasks = one;
	o.ntasks = 1;
	run_ok(&o);
	snprintf(e.verbal, sizeof e.verbal, "%s %s fail", FAKE_VERBAL, e.vlog);
	o.turns = 2;
	o.retry_errors = false;
	o.force_resume = true; /* the verbal command is part of the run */
	run_ok(&o);
	ck_assert_uint_eq(lines_in(e.vlog), 9 + 1 + 1);
	recs = load_turns(out2);
	const char *inc[] = {"t/inc"};
	assert_complete(recs, set, 1, inc, 1, 2);
	json_t *r1 = rec(recs, "CF_EF_FULL_SNF", "t/inc", 1);
	ck_assert_msg(strstr(sget(r1, "verbal_error") ? sget(r1, "verbal_error") : "", "status 2"),
		      "turn 1: %s", sget(r1, "verbal_error"));
	ck_assert_str_eq(fb(r1, "verbal"), "");
	gin = load_jsonl(e.glog); /* this run's t/inc turn 2 is the last line */
	json_t *last = json_array_get(gin, json_array_size(gin) - 1);
	ck_assert_int_eq(json_integer_value(json_object_get(last, "turn")), 2);
	ck_assert_str_eq(sget(last, "task_id"), "t/inc");
	ck_assert_str_eq(sget(last, "verbal_feedback"), "");
	json_decref(gin);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* The flags' bounds: usage errors (exit 2) before anything runs. */
START_TEST(test_flags)
{
	struct env e;
	env_start(&e);
	const char *bad[][2] = {{"--samples", "0"},	 {"--samples", "201"},
				{"--samples", "x"},	 {"--temperature", "-0.5"},
				{"--temperature", "11"}, {"--temperature", "nan"},
				{"--temperature", "1x"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {
		    "--socket",	      e.d.sock,	     "eval",	"--dataset", TASKS, "--format",
		    "bigcodebench",   "--generator", FAKE_GEN,	"--setting", "CF",  "--out",
		    sub(&e, "flags"), bad[i][0],     bad[i][1], NULL};
		char *out, *err;
		ck_assert_msg(cli_run(&e, args, &out, &err) == 2, "%s %s accepted", bad[i][0],
			      bad[i][1]);
		free(out);
		free(err);
	}
	ck_assert_int_ne(access(sub(&e, "flags"), F_OK), 0);
	const char *help[] = {"eval", "--help", NULL};
	char *out, *err;
	ck_assert_int_eq(cli_run(&e, help, &out, &err), 0);
	ck_assert(strstr(out, "--samples N") && strstr(out, "--temperature T"));
	free(out);
	free(err);
	env_end(&e);
}
END_TEST

static Suite *eval_samples_suite(void)
{
	Suite *s = suite_create("eval_samples");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_samples_pass_at_k);
	tcase_add_test(t, test_one_sample_unchanged);
	tcase_add_test(t, test_verbal_calls);
	tcase_add_test(t, test_flags);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-eval"};
	return tmain(eval_samples_suite, &opts);
}
