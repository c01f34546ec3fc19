/* Integration tests of `sbx eval` (client/eval/): a broken data set and bad
 * options, and the shipped OpenAI-compatible model commands
 * (examples/generators/openai_chat.py, examples/verbal/openai_verbal.py)
 * against a fake endpoint.
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

/* --- option and dataset errors ------------------------------------------------------------ */

/* Runs eval_run with stderr captured into a file; returns its text. */
static char *run_capturing(const struct eval_opts *o, int *rc, char *err, size_t errlen,
			   const char *path)
{
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	*rc = eval_run(o, err, errlen);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n;
	char *s = sbx_read_file(path, 1 << 20, &n, NULL, 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_dataset_and_option_errors)
{
	struct env e;
	env_start(&e);
	/* Line 2 is broken: reported with its line number and skipped. */
	char ds[600];
	snprintf(ds, sizeof ds, "%s/tasks.jsonl", e.dir);
	json_t *tasks = load_jsonl(TASKS);
	FILE *f = fopen(ds, "w");
	ck_assert_ptr_nonnull(f);
	char *l0 = json_dumps(json_array_get(tasks, 0), JSON_COMPACT);
	char *l1 = json_dumps(json_array_get(tasks, 1), JSON_COMPACT);
	fprintf(f, "%s\n{\"task_id\": \"t/broken\", \n%s\n", l0, l1);
	fclose(f);
	free(l0);
	free(l1);
	json_decref(tasks);
	struct eval_opts o;
	opts(&o, &e, sub(&e, "skip"), "right", 1, "CF", NULL);
	o.dataset = ds;
	o.progress = true; /* asked for, but stderr is not a terminal */
	int rc;
	char err[512] = "";
	char *log = run_capturing(&o, &rc, err, sizeof err, sub(&e, "stderr"));
	ck_assert_msg(rc == 0, "%s", err);
	char want[700];
	snprintf(want, sizeof want, "%s:2:", ds);
	ck_assert_msg(strstr(log, want) && strstr(log, "skipped"), "stderr: %s", log);
	ck_assert_msg(!strstr(log, "tasks done"), "progress on a non-terminal: %s", log);
	free(log);
	json_t *recs = load_turns(sub(&e, "skip"));
	ck_assert_uint_eq(json_array_size(recs), 4); /* 2 tasks x 2 turns */
	json_decref(recs);

	/* Unknown --tasks ids: an error naming them, nothing run. */
	const char *ids[] = {"t/double", "t/nope", "t/gone"};
	opts(&o, &e, sub(&e, "unknown"), "right", 1, "CF", NULL);
	o.tasks = ids;
	o.ntasks = 3;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "t/nope") && strstr(err, "t/gone") && !strstr(err, "t/double"),
		      "%s", err);
	/* A verbal setting without --verbal; an unknown setting. */
	opts(&o, &e, sub(&e, "noverbal"), "right", 1, "CF_EF_UNIT_SNF", NULL);
	o.verbal = NULL;
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "--verbal"), "%s", err);
	opts(&o, &e, sub(&e, "badset"), "right", 1, "CF_XF", NULL);
	ck_assert_int_eq(eval_run(&o, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "CF_XF"), "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), 2); /* only the first run asked */
	env_end(&e);
}
END_TEST

/* --- the shipped OpenAI-compatible commands ------------------------------------------------- */

/* Runs CMD with input on stdin, returns its stdout parsed as JSON. */
static json_t *run_json(const char *cmd, const json_t *input, const char *dir)
{
	char in[600], outp[600], sh[2048];
	snprintf(in, sizeof in, "%s/in.json", dir);
	snprintf(outp, sizeof outp, "%s/out.json", dir);
	ck_assert_int_eq(json_dump_file(input, in, 0), 0);
	snprintf(sh, sizeof sh, "%s < %s > %s", cmd, in, outp);
	ck_assert_int_eq(system(sh), 0);
	json_t *o = json_load_file(outp, 0, NULL);
	ck_assert_msg(o, "%s printed no JSON", cmd);
	return o;
}

static const char *msg(const json_t *req, size_t i)
{
	return sget(json_array_get(json_object_get(req, "messages"), i), "content");
}

START_TEST(test_openai_dry_run)
{
	char dir[] = "/tmp/sbx-eval-dry-XXXXXX";
	ck_assert(mkdtemp(dir));
	/* The generator's user message is byte for byte the logged one. */
	json_t *in = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", "t/x",
			       "turn", 1, "setting", "CF_EF_FULL_SNF", "prompt",
			       "Do things — with ünïcode.\n\n", "entry_point", "task_func",
			       "previous_code", "def task_func():\n    return '```'\n\n",
			       "compilation_feedback", "No syntax errors", "execution_feedback",
			       "test_1\nTraceback ...\n", "verbal_feedback", "It is wrong.");
	for (int turn0 = 0; turn0 < 2; turn0++) {
		if (turn0) {
			json_object_set_new(in, "previous_code", json_string(""));
			json_object_set_new(in, "execution_feedback", json_string(""));
			json_object_set_new(in, "entry_point", json_string(""));
		}
		json_t *req =
		    run_json("python3 examples/generators/openai_chat.py --dry-run", in, dir);
		char *want = eval_render_prompt(in);
		ck_assert_str_eq(msg(req, 1), want);
		ck_assert_str_eq(sget(json_array_get(json_object_get(req, "messages"), 0), "role"),
				 "system");
		free(want);
		json_decref(req);
	}
	json_decref(in);
	/* The verbal writer: only the expert sees the reference. */
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "task_id", "t/x", "level",
			      "expert", "prompt", "P", "code", "def f(): pass",
			      "compilation_feedback", "No syntax errors", "execution_feedback",
			      "test_1 failed", "reference_solution", "SECRET_REFERENCE");
	json_t *ex = run_json("python3 examples/verbal/openai_verbal.py --dry-run", v, dir);
	ck_assert_ptr_nonnull(strstr(msg(ex, 1), "SECRET_REFERENCE"));
	ck_assert_ptr_nonnull(strstr(msg(ex, 0), "never reveal"));
	json_object_set_new(v, "level", json_string("novice"));
	json_object_del(v, "reference_solution");
	json_t *nv = run_json("python3 examples/verbal/openai_verbal.py --dry-run", v, dir);
	ck_assert_ptr_null(strstr(msg(nv, 1), "SECRET_REFERENCE"));
	ck_assert_ptr_nonnull(strstr(msg(nv, 1), "test_1 failed"));
	ck_assert_str_ne(msg(nv, 0), msg(ex, 0));
	json_decref(ex);
	json_decref(nv);
	json_decref(v);
	td_rmtree(dir);
}
END_TEST

START_TEST(test_openai_fake_server)
{
	struct env e;
	env_start(&e);
	char portfile[600], slog[600];
	snprintf(portfile, sizeof portfile, "%s/port", e.dir);
	snprintf(slog, sizeof slog, "%s/server.log", e.dir);
	pid_t srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		execlp("python3", "python3", "tests/eval/fake_openai.py", portfile, slog,
		       (char *)NULL);
		_exit(127);
	}
	long long deadline = td_now_ms() + 20000;
	while (access(portfile, F_OK) != 0 && td_now_ms() < deadline)
		td_sleep_ms(20);
	size_t n;
	char *port = sbx_read_file(portfile, 64, &n, NULL, 0);
	ck_assert_ptr_nonnull(port);
	struct eval_opts o;
	const char *out = sub(&e, "openai");
	opts(&o, &e, out, "unused", 1, "CF_EF_FULL", NULL);
	/* Loopback only: no proxy from the environment may get in between. */
	snprintf(e.gen, sizeof e.gen,
		 "env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY "
		 "OPENAI_BASE_URL=http://127.0.0.1:%s/v1 OPENAI_API_KEY=test-key "
		 "SBX_MODEL=fake-model python3 examples/generators/openai_chat.py",
		 port);
	free(port);
	const char *tasks[] = {"t/double", "t/inc"};
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	json_t *recs = load_turns(out), *reqs = load_jsonl(slog);
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 0), "verdict"), "pass");
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/inc", 1), "verdict"), "fail");
	ck_assert(
	    json_is_null(json_object_get(rec(recs, "CF_EF_FULL", "t/inc", 1), "generator_error")));
	ck_assert_uint_eq(json_array_size(reqs), 3); /* double 0, inc 0 and 1 */
	size_t i;
	json_t *q;
	json_array_foreach(reqs, i, q)
	{
		ck_assert_str_eq(sget(q, "path"), "/v1/chat/completions");
		ck_assert_str_eq(sget(q, "authorization"), "Bearer test-key");
		ck_assert_str_eq(sget(json_object_get(q, "body"), "model"), "fake-model");
	}
	/* What the endpoint got is what the log says the model saw. */
	json_t *r = rec(recs, "CF_EF_FULL", "t/inc", 1);
	bool matched = false;
	json_array_foreach(reqs, i, q)
	{
		matched |= streq(msg(json_object_get(q, "body"), 1), sget(r, "user_message"));
	}
	ck_assert(matched);
	json_decref(recs);
	json_decref(reqs);
	env_end(&e);
}
END_TEST

static Suite *eval_commands_suite(void)
{
	Suite *s = suite_create("eval_commands");
	TCase *t = tmain_tcase(s, "eval", 120);
	tcase_add_test(t, test_dataset_and_option_errors);
	tcase_add_test(t, test_openai_dry_run);
	tcase_add_test(t, test_openai_fake_server);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true, .daemon = true, .tmpdir = "sbx-eval"};
	return tmain(eval_commands_suite, &opts);
}
