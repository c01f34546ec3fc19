/* Integration tests of `sbx eval` (client/eval/): its outputs (summary,
 * traces), resuming a run (more turns, after a kill), merging shards, and
 * ConvCodeBench's static replay.
 *
 * Each test runs its own daemon and fake model commands (tests/eval/,
 * tests/helpers/evalenv.h). Run as root from the repository root (make
 * integration), SBX_BUILD naming the build directory. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/eval/eval.h"
#include "client/eval/eval_priv.h"
#include "client/eval/score.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/evalenv.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

/* --- metrics, traces --------------------------------------------------------------- */

START_TEST(test_summary_and_traces)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "sum");
	opts(&o, &e, out, "t/double=right,t/negate=exec,t/square=turn2,t/inc=wrong", 3, "CF",
	     "CF_EF_FULL", NULL);
	run_ok(&o);
	/* By hand. CF_EF_FULL: double at 0, negate at 1, square at 2, inc
	 * never. CF: only double (the others compile and are carried). */
	const double full[] = {0.25, 0.5, 0.75, 0.75}, cf[] = {0.25, 0.25, 0.25, 0.25};
	assert_summary(out, "CF_EF_FULL", 4, full, 3, (1 + 1.0 / 2 + 1.0 / 3) / 4, 0.75);
	assert_summary(out, "CF", 4, cf, 3, 0.25, 0.25);

	char p[600];
	snprintf(p, sizeof p, "%s/traces.jsonl", out);
	json_t *tr = load_jsonl(p);
	/* One line per call of the model: CF asks each task once (turn 0),
	 * CF_EF_FULL double 1, negate 2, square 3, inc 4 times. */
	ck_assert_uint_eq(json_array_size(tr), 4 + 10);
	size_t i;
	json_t *t;
	size_t square = 0;
	json_array_foreach(tr, i, t)
	{
		const char *fields[] = {
		    "conversations", "agent",  "model",		  "model_provider",
		    "date",	     "task",   "episode",	  "run_id",
		    "trial_name",    "result", "verifier_output", "trace_source"};
		for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
			ck_assert_msg(json_object_get(t, fields[k]), "trace lacks %s", fields[k]);
		ck_assert_str_eq(sget(t, "agent"), "sbx-eval");
		ck_assert_str_eq(sget(t, "model_provider"), "fake");
		ck_assert_int_eq(strlen(sget(t, "date")), 20); /* 2025-01-01T00:00:00Z */
		if (!streq(sget(t, "trial_name"), "t/square__CF_EF_FULL"))
			continue;
		/* Turns 0, 1, 2 asked the model, each a conversation of its own;
		 * turn 3 was carried. */
		square++;
		json_int_t turn = json_integer_value(json_object_get(t, "turn"));
		char ep[32];
		snprintf(ep, sizeof ep, "episode-%d", (int)turn);
		ck_assert_str_eq(sget(t, "episode"), ep);
		json_t *conv = json_object_get(t, "conversations");
		ck_assert_uint_eq(json_array_size(conv), 3);
		ck_assert_str_eq(sget(json_array_get(conv, 0), "role"), "system");
		ck_assert_str_eq(sget(json_array_get(conv, 1), "role"), "user");
		ck_assert_str_eq(sget(json_array_get(conv, 2), "role"), "assistant");
		ck_assert_str_eq(sget(t, "result"), turn == 2 ? "pass" : "fail");
		ck_assert(!strstr(sget(json_array_get(conv, 1), "content"),
				  "## Execution feedback") == (turn == 0));
		ck_assert_ptr_nonnull(strstr(sget(t, "verifier_output"),
					     turn == 2 ? "Passed all test runs" : "Traceback"));
	}
	ck_assert_uint_eq(square, 3);
	json_decref(tr);
	env_end(&e);
}
END_TEST

/* --- resume ----------------------------------------------------------------------------- */

START_TEST(test_resume_more_turns)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "resume");
	const char *tasks[] = {"t/double", "t/inc"};
	opts(&o, &e, out, "t/double=right,*=wrong", 1, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	json_t *gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 3); /* double 0; inc 0, 1 */
	json_decref(gin);
	json_t *recs = load_turns(out);
	const char *run_id = strdup(sget(json_array_get(recs, 0), "run_id"));
	json_decref(recs);

	o.turns = 3;
	run_ok(&o);
	gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 5); /* only inc's turns 2 and 3 are new */
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(gin, 3), "turn")), 2);
	/* Turn 2 continues from turn 1's recorded state. */
	ck_assert_ptr_nonnull(strstr(sget(json_array_get(gin, 3), "execution_feedback"), "test_1"));
	json_decref(gin);
	recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL"};
	assert_complete(recs, set, 1, tasks, 2, 3); /* old records now say turns 3 */
	ck_assert_str_eq(sget(json_array_get(recs, 7), "run_id"), run_id);
	ck_assert(carried(rec(recs, "CF_EF_FULL", "t/double", 3)));
	json_decref(recs);

	/* Again: nothing left to do. Fewer turns than recorded: refused. */
	run_ok(&o);
	gin = load_jsonl(e.glog);
	ck_assert_uint_eq(json_array_size(gin), 5);
	json_decref(gin);
	o.turns = 2;
	char err[512];
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "--turns 3"));
	free((void *)run_id);
	env_end(&e);
}
END_TEST

START_TEST(test_kill_and_resume)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "killed");
	char turns[600];
	snprintf(turns, sizeof turns, "%s/turns.jsonl", out);
	opts(&o, &e, out, "slow", 3, "CF_EF_FULL", "CF_EF_UNIT", NULL);
	o.jobs = 2;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[512];
		_exit(eval_run(&o, err, sizeof err) == 0 ? 0 : 1);
	}
	long long deadline = td_now_ms() + 60000;
	while (lines_in(turns) < 6 && td_now_ms() < deadline)
		td_sleep_ms(50);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	size_t before = lines_in(turns);
	ck_assert_uint_lt(before, 32);
	/* As if the kill had landed in the middle of a line. */
	int fd = open(turns, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "{\"run_id\":\"torn", 15), 15);
	close(fd);

	run_ok(&o);
	json_t *recs = load_turns(out); /* fails on any unparsable line */
	const char *set[] = {"CF_EF_FULL", "CF_EF_UNIT"};
	assert_complete(recs, set, 2, ALL_TASKS, 4, 3);
	/* Every turn of every task was asked once across both runs, plus at
	 * most the turns in flight when the kill came (one per worker). */
	json_t *gin = load_jsonl(e.glog);
	ck_assert_uint_ge(json_array_size(gin), 32);
	ck_assert_uint_le(json_array_size(gin), 34);
	json_decref(gin);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* --- shards ------------------------------------------------------------------------------ */

static char *score_json(const char *const *paths, size_t n)
{
	struct score_table t;
	char err[512];
	ck_assert_msg(score_load(paths, n, stderr, &t, err, sizeof err) == 0, "%s", err);
	score_finish(&t);
	json_t *j = score_to_json(&t);
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(j);
	score_free(&t);
	return s;
}

START_TEST(test_shards_merge)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *modes = "t/double=right,t/negate=exec,t/square=turn2,t/inc=wrong";
	opts(&o, &e, sub(&e, "single"), modes, 2, "CF", "CF_EF_UNIT", NULL);
	run_ok(&o);
	for (int i = 0; i < 2; i++) {
		char name[32];
		snprintf(name, sizeof name, "shard%d", i);
		opts(&o, &e, sub(&e, name), modes, 2, "CF", "CF_EF_UNIT", NULL);
		o.shard_i = i;
		o.shard_n = 2;
		run_ok(&o);
	}
	json_t *s0 = load_turns(sub(&e, "shard0")), *s1 = load_turns(sub(&e, "shard1"));
	/* Index % 2: tasks 0 and 2 in shard 0, 1 and 3 in shard 1. */
	ck_assert_uint_eq(count(s0, NULL, "t/double", -1), 6);
	ck_assert_uint_eq(count(s0, NULL, "t/square", -1), 6);
	ck_assert_uint_eq(count(s0, NULL, "t/negate", -1), 0);
	ck_assert_uint_eq(count(s1, NULL, "t/negate", -1), 6);
	ck_assert_uint_eq(count(s1, NULL, "t/inc", -1), 6);
	json_decref(s0);
	json_decref(s1);
	char p0[512], p1[512], ps[512];
	snprintf(p0, sizeof p0, "%s", sub(&e, "shard0"));
	snprintf(p1, sizeof p1, "%s", sub(&e, "shard1"));
	snprintf(ps, sizeof ps, "%s", sub(&e, "single"));
	const char *merged[] = {p0, p1}, *single[] = {ps};
	char *a = score_json(merged, 2), *b = score_json(single, 1);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	env_end(&e);
}
END_TEST

/* --- ConvCodeBench static mode ---------------------------------------------------------- */

START_TEST(test_static_replay)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *ref = sub(&e, "reference");
	char refdir[512];
	snprintf(refdir, sizeof refdir, "%s", ref);
	/* The reference model: double at turn 0, negate at turn 2, the others never. */
	opts(&o, &e, refdir, "t/double=right,t/negate=turn2,*=wrong", 3, "CF_EF_FULL_SNF", NULL);
	run_ok(&o);
	json_t *rrecs = load_turns(refdir);
	size_t ref_calls = lines_in(e.glog), ref_verbal = lines_in(e.vlog);
	ck_assert_uint_gt(ref_verbal, 0);

	/* The model under test: square is fixed as soon as it gets (the
	 * reference's) verbal feedback; the others never. */
	const char *out = sub(&e, "static");
	char outdir[512];
	snprintf(outdir, sizeof outdir, "%s", out);
	opts(&o, &e, outdir, "t/square=verbal,*=wrong", 3, "CF_EF_FULL_SNF", NULL);
	o.reference = refdir;
	o.verbal = NULL; /* static mode replays logged verbal feedback */
	run_ok(&o);
	json_t *recs = load_turns(outdir), *all = load_jsonl(e.glog);
	const char *set[] = {"CF_EF_FULL_SNF"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 3);
	ck_assert_uint_eq(lines_in(e.vlog), ref_verbal); /* no live verbal call */
	json_t *gin = json_array();
	for (size_t i = ref_calls; i < json_array_size(all); i++)
		json_array_append(gin, json_array_get(all, i));
	const char *S = "CF_EF_FULL_SNF";
	/* double: the reference passed at turn 0, so it counts there, unasked. */
	ck_assert_uint_eq(count(gin, S, "t/double", -1), 0);
	json_t *d0 = rec(recs, S, "t/double", 0);
	ck_assert_str_eq(sget(d0, "verdict"), "pass");
	ck_assert(json_is_true(json_object_get(d0, "from_reference")));
	ck_assert_str_eq(sget(d0, "mode"), "static");
	/* negate: asked at turns 0 and 1; the reference's passing turn 2 counts
	 * at turn 2 (ConvCodeBench: reference solved by i-1 < N). */
	ck_assert_uint_eq(count(gin, S, "t/negate", -1), 2);
	ck_assert_str_eq(sget(rec(recs, S, "t/negate", 1), "verdict"), "fail");
	ck_assert(json_is_true(json_object_get(rec(recs, S, "t/negate", 2), "from_reference")));
	ck_assert_str_eq(sget(rec(recs, S, "t/negate", 2), "verdict"), "pass");
	/* square: turn 1 gets the reference's turn-0 code, feedback and verbal
	 * feedback, and passes. */
	json_t *g = find(gin, S, "t/square", 1), *r0 = rec(rrecs, S, "t/square", 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(sget(g, "previous_code"), sget(r0, "code"));
	ck_assert_str_eq(sget(g, "compilation_feedback"), fb(r0, "compilation"));
	ck_assert_str_eq(sget(g, "execution_feedback"), fb(r0, "execution"));
	ck_assert_str_eq(sget(g, "verbal_feedback"), fb(r0, "verbal"));
	ck_assert_ptr_nonnull(strstr(sget(g, "verbal_feedback"), "novice says"));
	ck_assert_str_eq(sget(rec(recs, S, "t/square", 1), "verdict"), "pass");
	/* inc: asked at every turn, turn 3 with the reference's turn 2. */
	ck_assert_uint_eq(count(gin, S, "t/inc", -1), 4);
	ck_assert_str_eq(sget(find(gin, S, "t/inc", 3), "previous_code"),
			 sget(rec(rrecs, S, "t/inc", 2), "code"));
	const double pass[] = {0.25, 0.5, 0.75, 0.75};
	assert_summary(outdir, S, 4, pass, 3, (1 + 1.0 / 3 + 1.0 / 2) / 4, 0.75);

	/* A reference without the turns a longer replay needs: refused before
	 * anything runs. */
	size_t calls = lines_in(e.glog);
	opts(&o, &e, sub(&e, "static5"), "wrong", 5, "CF_EF_FULL_SNF", NULL);
	o.reference = refdir;
	char err[512];
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "turn 4"), "%s", err);
	opts(&o, &e, sub(&e, "static-cf"), "wrong", 3, "CF", NULL);
	o.reference = refdir;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "setting CF"), "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), calls);
	json_decref(gin);
	json_decref(all);
	json_decref(recs);
	json_decref(rrecs);
	env_end(&e);
}
END_TEST

static Suite *eval_resume_suite(void)
{
	Suite *s = suite_create("eval_resume");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_summary_and_traces);
	tcase_add_test(t, test_resume_more_turns);
	tcase_add_test(t, test_kill_and_resume);
	tcase_add_test(t, test_shards_merge);
	tcase_add_test(t, test_static_replay);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-eval"};
	return tmain(eval_resume_suite, &opts);
}
