/* Integration tests of reference checking (client/eval/reference*.c)
 * against a real sandboxd: `sbx check-reference` and `sbx eval
 * --check-reference` on a data set written here with one good reference,
 * one that imports a module no environment has, and one task without a
 * reference. The broken task must be listed with the missing module,
 * excluded from the score (and never shown to the model) unless
 * --keep-broken, and the summary must say how many tasks were scored.
 *
 * Run as root from the repository root (make integration), SBX_BUILD
 * naming the build directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers/daemon.h"
#include "tests/helpers/evalenv.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define MISSING "sbx_no_such_module_xyz"

static const char *const TEST_INC =
    "import unittest\nclass TestCases(unittest.TestCase):\n"
    "    def test_1(self):\n        self.assertEqual(task_func(1), 2)\n"
    "    def test_2(self):\n        self.assertEqual(task_func(5), 6)\n";

/* The data set: t/good, t/broken (its reference imports MISSING), t/noref. */
static void write_dataset(const char *path)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	const char *refs[][2] = {{"t/good", "def task_func(x):\n"},
				 {"t/broken", "import " MISSING "\ndef task_func(x):\n"},
				 {"t/noref", NULL}};
	for (int i = 0; i < 3; i++) {
		json_t *r =
		    json_pack("{s:s, s:s, s:s, s:s}", "task_id", refs[i][0], "instruct_prompt",
			      "Return x + 1.", "test", TEST_INC, "entry_point", "task_func");
		if (refs[i][1]) {
			json_object_set_new(r, "code_prompt", json_string(refs[i][1]));
			json_object_set_new(r, "canonical_solution",
					    json_string("    return x + 1\n"));
		}
		char *s = json_dumps(r, JSON_COMPACT);
		fprintf(f, "%s\n", s);
		free(s);
		json_decref(r);
	}
	fclose(f);
}

/* A "model" that answers right for every task and logs each task id it is
 * asked about, so a test sees which tasks reached the model. */
static void write_generator(const char *path, const char *log)
{
	char *txt = NULL;
	ck_assert_int_ge(
	    asprintf(&txt,
		     "import json, sys\n"
		     "t = json.load(sys.stdin)\n"
		     "open('%s', 'a').write(t['task_id'] + '\\n')\n"
		     "print('```python\\ndef task_func(x):\\n    return x + 1\\n```')\n",
		     log),
	    0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(txt, f);
	fclose(f);
	free(txt);
}

static json_int_t ival(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static json_t *by_task(const json_t *recs, const char *id)
{
	size_t i;
	json_t *r;
	json_array_foreach(recs, i, r)
	{
		if (streq(sget(r, "task_id"), id))
			return r;
	}
	return NULL;
}

static json_t *load_json(const char *dir, const char *name)
{
	char p[700];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	json_t *j = json_load_file(p, 0, NULL);
	ck_assert_msg(j, "cannot read %s", p);
	return j;
}

static void check_reference_records(const char *dir)
{
	char p[700];
	snprintf(p, sizeof p, "%s/reference.jsonl", dir);
	json_t *recs = load_jsonl(p);
	ck_assert_uint_eq(json_array_size(recs), 3);
	json_t *good = by_task(recs, "t/good"), *broken = by_task(recs, "t/broken"),
	       *noref = by_task(recs, "t/noref");
	ck_assert(good && broken && noref);
	ck_assert_str_eq(sget(good, "verdict"), "pass");
	ck_assert_int_eq(json_integer_value(json_object_get(good, "passed")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(good, "total")), 2);
	ck_assert(json_is_object(json_object_get(good, "usage")));
	ck_assert_str_ne(sget(broken, "verdict"), "pass");
	ck_assert_str_eq(sget(broken, "missing_module"), MISSING);
	ck_assert_msg(strstr(sget(broken, "reason"), "missing module " MISSING), "%s",
		      sget(broken, "reason"));
	ck_assert_str_eq(sget(noref, "verdict"), "no_reference");
	/* The check key says how the references ran: BigCodeBench's defaults. */
	json_t *lim = json_object_get(json_object_get(good, "check"), "limits");
	ck_assert_int_eq(json_integer_value(json_object_get(lim, "cpu_ms")), 240000);
	json_decref(recs);
}

START_TEST(test_check_reference_cli)
{
	struct env e;
	env_start(&e);
	char ds[300], out[300];
	snprintf(ds, sizeof ds, "%s/tasks.jsonl", e.dir);
	snprintf(out, sizeof out, "%s/ref", e.dir);
	write_dataset(ds);
	const char *args[] = {
	    "--socket", e.d.sock, "check-reference", "--format", "bigcodebench", "--out", out,
	    ds,		NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(so, "t/broken") && strstr(so, "missing module " MISSING) &&
			  strstr(so, "1 reference pass, 1 fail here, 1 without a reference") &&
			  !strstr(so, "t/good"),
		      "stdout:\n%s", so);
	ck_assert_msg(strstr(se, "cpu_ms 240000"), "the limits used are said: %s", se);
	free(so);
	free(se);
	check_reference_records(out);
	/* Again: every record is reused, none run. */
	rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 0 && strstr(se, "3 reference results reused"), "stderr:\n%s", se);
	free(so);
	free(se);
	/* Other limits: the old records are not reused. */
	const char *other[] = {"--socket", e.d.sock, "check-reference", "--format", "bigcodebench",
			       "--cpu",	   "30",     "--out",		out,	    ds,
			       NULL};
	rc = cli_run(&e, other, &so, &se);
	ck_assert_msg(rc == 0 && !strstr(se, "reused") && strstr(se, "3 records"), "stderr:\n%s",
		      se);
	free(so);
	free(se);
	/* Usage errors and an unreachable daemon, as sbx eval. */
	const char *nofmt[] = {"--socket", e.d.sock, "check-reference", ds, NULL};
	rc = cli_run(&e, nofmt, &so, &se);
	ck_assert_int_eq(rc, 2);
	free(so);
	free(se);
	const char *gone[] = {"--socket",
			      "/nonexistent/s.sock",
			      "check-reference",
			      "--format",
			      "bigcodebench",
			      "--out",
			      sub(&e, "gone"),
			      ds,
			      NULL};
	rc = cli_run(&e, gone, &so, &se);
	ck_assert_int_eq(rc, 3);
	free(so);
	free(se);
	env_end(&e);
}
END_TEST

/* Runs sbx eval on the data set into out with extra flags; its stdout. */
static char *eval_cli(struct env *e, const char *ds, const char *gen, const char *out,
		      const char *flag1, const char *flag2)
{
	const char *args[] = {"--socket",
			      e->d.sock,
			      "eval",
			      "--dataset",
			      ds,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF_EF_FULL",
			      "--turns",
			      "1",
			      "--no-progress",
			      "--out",
			      out,
			      flag1,
			      flag2,
			      NULL};
	char *so, *se;
	int rc = cli_run(e, args, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	free(se);
	return so;
}

START_TEST(test_eval_excludes_broken)
{
	struct env e;
	env_start(&e);
	char ds[300]; /* sub()'s buffers are reused after four calls */
	snprintf(ds, sizeof ds, "%s/tasks.jsonl", e.dir);
	write_dataset(ds);
	char genpy[600], log[600], gen[1400];
	snprintf(genpy, sizeof genpy, "%s/gen.py", e.dir);
	snprintf(log, sizeof log, "%s/asked.log", e.dir);
	write_generator(genpy, log);
	snprintf(gen, sizeof gen, "python3 %s", genpy);

	/* Without the check every task is scored: the count is said. */
	char *so = eval_cli(&e, ds, gen, sub(&e, "plain"), NULL, NULL);
	ck_assert_msg(strstr(so, "Tasks scored: 3 (reference solutions not checked"), "%s", so);
	free(so);
	json_t *sum = load_json(sub(&e, "plain"), "summary.json");
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "tasks_scored")), 3);
	ck_assert_ptr_null(json_object_get(sum, "reference"));
	json_decref(sum);
	json_t *m = load_json(sub(&e, "plain"), "manifest.json");
	ck_assert_int_eq(ival(json_object_get(m, "limits"), "cpu_ms"), 240000);
	ck_assert_uint_eq(json_array_size(json_object_get(m, "limits_defaulted")), 4);
	ck_assert_ptr_null(json_object_get(m, "reference_check"));
	json_decref(m);

	/* --check-reference: t/broken is left out, never asked, and listed. */
	unlink(log);
	char out[300];
	snprintf(out, sizeof out, "%s/checked", e.dir);
	so = eval_cli(&e, ds, gen, out, "--check-reference", NULL);
	ck_assert_msg(strstr(so, "Tasks scored: 2;") &&
			  strstr(so, "excluded t/broken: missing module " MISSING),
		      "%s", so);
	free(so);
	check_reference_records(out);
	json_t *recs = load_turns(out);
	ck_assert_uint_eq(count(recs, NULL, "t/broken", -1), 0);
	ck_assert_uint_eq(count(recs, NULL, "t/good", -1), 2);
	ck_assert_uint_eq(count(recs, NULL, "t/noref", -1), 2); /* cannot be checked: kept */
	json_decref(recs);
	/* Asked about t/good and t/noref at turn 0 only (turn 1 carries a pass). */
	char *asked = sbx_read_file(log, 1 << 20, &(size_t){0}, NULL, 0);
	ck_assert_msg(asked && strstr(asked, "t/good\n") && strstr(asked, "t/noref\n") &&
			  !strstr(asked, "t/broken"),
		      "asked: %s", asked ? asked : "(none)");
	free(asked);
	sum = load_json(out, "summary.json");
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "tasks_scored")), 2);
	json_t *ref = json_object_get(sum, "reference");
	ck_assert_int_eq(ival(ref, "broken"), 1);
	ck_assert_int_eq(ival(ref, "unchecked"), 1);
	json_t *ex = json_array_get(json_object_get(ref, "excluded"), 0);
	ck_assert_str_eq(sget(ex, "task_id"), "t/broken");
	ck_assert_ptr_nonnull(strstr(sget(ex, "reason"), MISSING));
	ck_assert_int_eq(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(sum, "settings"), "CF_EF_FULL"), "tasks")),
	    2);
	json_decref(sum);
	m = load_json(out, "manifest.json");
	ck_assert(
	    json_is_false(json_object_get(json_object_get(m, "reference_check"), "keep_broken")));
	json_decref(m);
	/* A resume reuses reference.jsonl and runs no reference again. */
	const char *args[] = {"--socket",
			      e.d.sock,
			      "eval",
			      "--dataset",
			      ds,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF_EF_FULL",
			      "--turns",
			      "1",
			      "--no-progress",
			      "--out",
			      out,
			      "--check-reference",
			      NULL};
	char *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 0 && strstr(se, "3 reference results reused"), "stderr:\n%s", se);
	ck_assert_msg(strstr(so, "excluded t/broken"), "%s", so);
	free(so);
	free(se);
	/* The same out without the check is another run: refused. */
	const char *nocheck[] = {"--socket", e.d.sock,	      "eval",	      "--dataset",
				 ds,	     "--format",      "bigcodebench", "--generator",
				 gen,	     "--setting",     "CF_EF_FULL",   "--turns",
				 "1",	     "--no-progress", "--out",	      out,
				 NULL};
	rc = cli_run(&e, nocheck, &so, &se);
	ck_assert_msg(rc == 1 && strstr(se, "reference_check"), "exit %d; stderr:\n%s", rc, se);
	free(so);
	free(se);

	/* --keep-broken: scored, and listed as kept. */
	snprintf(out, sizeof out, "%s/kept", e.dir);
	so = eval_cli(&e, ds, gen, out, "--check-reference", "--keep-broken");
	ck_assert_msg(strstr(so, "Tasks scored: 3;") && strstr(so, "kept t/broken"), "%s", so);
	free(so);
	recs = load_turns(out);
	ck_assert_uint_eq(count(recs, NULL, "t/broken", -1), 2);
	json_decref(recs);
	sum = load_json(out, "summary.json");
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "tasks_scored")), 3);
	ck_assert_uint_eq(
	    json_array_size(json_object_get(json_object_get(sum, "reference"), "kept")), 1);
	json_decref(sum);
	/* --keep-broken alone is a usage error. */
	const char *alone[] = {"--socket", e.d.sock,	    "eval",	   "--dataset", ds,
			       "--format", "bigcodebench",  "--generator", gen,		"--setting",
			       "CF",	   "--keep-broken", NULL};
	rc = cli_run(&e, alone, &so, &se);
	ck_assert_int_eq(rc, 2);
	free(so);
	free(se);
	env_end(&e);
}
END_TEST

static Suite *eval_reference_suite(void)
{
	Suite *s = suite_create("eval_reference");
	TCase *t = tmain_tcase(s, "reference", 120);
	tcase_add_test(t, test_check_reference_cli);
	tcase_add_test(t, test_eval_excludes_broken);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-eval"};
	return tmain(eval_reference_suite, &opts);
}
