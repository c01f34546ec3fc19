/* Integration tests of `sbx eval` (client/eval/): a broken data set and bad
 * options, and the shipped OpenAI-compatible model commands
 * (examples/generators/openai_chat.py, examples/verbal/openai_verbal.py)
 * against a fake endpoint.
 *
 * Each test runs its own daemon and fake model commands (tests/eval/,
 * tests/helpers/evalenv.h). Run as root from the repository root (make
 * integration), SBX_BUILD naming the build directory. */
#include <check.h>
#include <dirent.h>
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

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
			json_object_set_new(in, "system_prompt", json_string("SYSTEM-FROM-SBX"));
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
		/* The system message is the one sbx eval gives (and logs), and an
		 * input without it (an older sbx) gets the same text. */
		ck_assert_str_eq(msg(req, 0), turn0 ? "SYSTEM-FROM-SBX" : eval_system_prompt());
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

/* tests/eval/fake_openai.py on 127.0.0.1:port (0: any free one), its
 * requests logged to slog; its pid, and the port in *bound. */
static pid_t start_fake_openai(const struct env *e, int port, const char *slog, int *bound)
{
	char portfile[600], pstr[16];
	snprintf(portfile, sizeof portfile, "%s/port-%d", e->dir, port);
	snprintf(pstr, sizeof pstr, "%d", port);
	pid_t srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		execlp("python3", "python3", "tests/eval/fake_openai.py", portfile, slog, pstr,
		       (char *)NULL);
		_exit(127);
	}
	long long deadline = td_now_ms() + 20000;
	while (access(portfile, F_OK) != 0 && td_now_ms() < deadline)
		td_sleep_ms(20);
	size_t n;
	char *text = sbx_read_file(portfile, 64, &n, NULL, 0);
	ck_assert_msg(text, "fake_openai.py did not start");
	*bound = atoi(text);
	free(text);
	return srv;
}

/* openai_chat.py against 127.0.0.1:port. Loopback only: no proxy from the
 * environment may get in between. */
static void openai_generator(char *buf, size_t len, int port)
{
	snprintf(buf, len,
		 "env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY "
		 "OPENAI_BASE_URL=http://127.0.0.1:%d/v1 OPENAI_API_KEY=test-key "
		 "SBX_MODEL=fake-model python3 examples/generators/openai_chat.py",
		 port);
}

START_TEST(test_openai_fake_server)
{
	struct env e;
	env_start(&e);
	char slog[600];
	snprintf(slog, sizeof slog, "%s/server.log", e.dir);
	int port;
	pid_t srv = start_fake_openai(&e, 0, slog, &port);
	struct eval_opts o;
	const char *out = sub(&e, "openai");
	opts(&o, &e, out, "unused", 1, "CF_EF_FULL", NULL);
	openai_generator(e.gen, sizeof e.gen, port);
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

/* --- failures must show --------------------------------------------------------------------- */

/* A loopback port nothing listens on (bound to learn a free one, closed). */
static int closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
		  getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	close(fd);
	return ntohs(a.sin_port);
}

static char *slurp_turns(const char *out)
{
	char p[600];
	size_t n;
	snprintf(p, sizeof p, "%s/turns.jsonl", out);
	char *s = sbx_read_file(p, 1 << 22, &n, NULL, 0);
	ck_assert_msg(s, "no %s", p);
	return s;
}

static json_t *summary_of(const char *out, const char *setting)
{
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", out);
	json_t *j = json_load_file(p, 0, NULL);
	ck_assert_msg(j, "no %s", p);
	json_t *s = json_incref(json_object_get(json_object_get(j, "settings"), setting));
	json_decref(j);
	ck_assert_msg(s, "summary has no %s", setting);
	return s;
}

static json_int_t ival(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* The model's endpoint is down: the shipped OpenAI client fails every call.
 * The run stops past --max-errors with exit 1 and says why; every failure
 * is a record with the client's stderr, counted in summary.json and the
 * table, and marked in the traces. With the endpoint back, the same command
 * resumes and asks the failed turns again. */
START_TEST(test_endpoint_down)
{
	struct env e;
	env_start(&e);
	int port = closed_port();
	char gen[1024];
	openai_generator(gen, sizeof gen, port);
	const char *out = sub(&e, "down");
	const char *args[] = {"--socket",
			      e.d.sock,
			      "eval",
			      "--dataset",
			      TASKS,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF_EF_FULL",
			      "--turns",
			      "2",
			      "--out",
			      out,
			      "--no-progress",
			      NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 1, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(se, "stopped: the model commands failed") &&
			  strstr(se, "--max-errors") && strstr(se, "Connection refused") &&
			  strstr(se, "rerun with the same --out"),
		      "stderr:\n%s", se);
	ck_assert_msg(strstr(so, "GenErr"), "stdout:\n%s", so);
	free(so);
	free(se);
	/* More than 5 failures (and a tenth of the turns asked) stop it: the
	 * 6th, and at most the other worker's turn in flight. 12 turns in all. */
	json_t *recs = load_turns(out);
	size_t n = json_array_size(recs), i;
	ck_assert_msg(n >= 6 && n <= 7, "%zu records", n);
	json_t *r;
	json_array_foreach(recs, i, r)
	{
		ck_assert_str_eq(sget(r, "generator_error"), "exited with status 1");
		ck_assert_msg(strstr(sget(r, "generator_stderr"), "Connection refused"), "%s",
			      sget(r, "generator_stderr"));
		ck_assert_str_eq(sget(r, "verdict"), "error");
		ck_assert(json_is_null(json_object_get(r, "verbal_error")));
	}
	json_t *sum = summary_of(out, "CF_EF_FULL");
	ck_assert_int_eq(ival(sum, "generator_errors"), (json_int_t)n);
	ck_assert_int_eq(ival(sum, "verbal_errors"), 0);
	json_decref(sum);
	/* The traces mark each failed call; no empty message stands for an
	 * answer. */
	char tp[600];
	snprintf(tp, sizeof tp, "%s/traces.jsonl", out);
	json_t *tr = load_jsonl(tp), *t, *m;
	size_t failed = 0, j;
	json_array_foreach(tr, i, t)
	{
		json_array_foreach(json_object_get(t, "conversations"), j, m)
		    ck_assert(!streq(sget(m, "role"), "assistant"));
		ck_assert_str_eq(sget(t, "result"), "generator_error");
		ck_assert_str_eq(sget(t, "error"), "exited with status 1");
		failed++;
	}
	ck_assert_uint_eq(failed, n);
	json_decref(tr);
	json_decref(recs);

	/* The endpoint is back, on the same port: the same command resumes and
	 * asks every failed turn again. */
	char slog[600];
	snprintf(slog, sizeof slog, "%s/server.log", e.dir);
	int bound;
	pid_t srv = start_fake_openai(&e, port, slog, &bound);
	ck_assert_int_eq(bound, port);
	rc = cli_run(&e, args, &so, &se);
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(se, "asked again"), "stderr:\n%s", se);
	free(so);
	free(se);
	recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 2);
	json_array_foreach(recs, i, r)
	{
		ck_assert(json_is_null(json_object_get(r, "generator_error")));
		ck_assert(json_is_null(json_object_get(r, "generator_stderr")));
	}
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 0), "verdict"), "pass");
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/inc", 2), "verdict"), "fail");
	/* t/double at turn 0, the three others at turns 0, 1 and 2. */
	ck_assert_uint_eq(lines_in(slog), 10);
	sum = summary_of(out, "CF_EF_FULL");
	ck_assert_int_eq(ival(sum, "generator_errors"), 0);
	json_decref(sum);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* --max-errors as a count, and 1.0 (never stop): the limit is what stops a
 * run. --no-retry-errors keeps the failed turns on a resume. */
START_TEST(test_max_errors_and_keeping_failures)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	char err[2048];
	const char *out = sub(&e, "count");
	opts(&o, &e, out, "fail", 2, "CF_EF_FULL", NULL);
	o.max_errors = 2;
	o.jobs = 1; /* one turn at a time: the stop comes at exactly the third */
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "failed 3 times in 3 turns") && strstr(err, "more than 2"), "%s",
		      err);
	ck_assert_uint_eq(lines_in(e.glog), 3);
	/* Its stderr's last line is in the message, and all of it in the record. */
	ck_assert_msg(strstr(err, "the generator for t/double (CF_EF_FULL, turn 0) exited with "
				  "status 1 (nothing on stderr)"),
		      "%s", err);
	json_t *recs = load_turns(out);
	ck_assert_uint_eq(json_array_size(recs), 3);
	ck_assert_str_eq(sget(json_array_get(recs, 0), "generator_stderr"), "");
	json_decref(recs);

	const char *all = sub(&e, "never");
	opts(&o, &e, all, "t/double=fail-turn1,*=fail", 2, "CF_EF_FULL", NULL);
	o.max_error_rate = 1.0;
	run_ok(&o);
	recs = load_turns(all);
	const char *set[] = {"CF_EF_FULL"};
	assert_complete(recs, set, 1, ALL_TASKS, 4, 2);
	json_t *r = rec(recs, "CF_EF_FULL", "t/double", 1);
	ck_assert_str_eq(sget(r, "generator_error"), "exited with status 3");
	ck_assert_str_eq(sget(r, "generator_stderr"), "fake_gen: failing on purpose\n");
	json_decref(recs);
	json_t *sum = summary_of(all, "CF_EF_FULL");
	ck_assert_int_eq(ival(sum, "generator_errors"), 10); /* 3 × 3 + double's turn 1 */
	json_decref(sum);
	/* A resume that keeps them asks nothing; the default asks them all again. */
	size_t asked = lines_in(e.glog);
	o.retry_errors = false;
	run_ok(&o);
	ck_assert_uint_eq(lines_in(e.glog), asked);
	ck_assert_uint_eq(lines_in(sub(&e, "never/turns.jsonl")), 12);
	o.retry_errors = true;
	run_ok(&o);
	/* double from turn 1 (2 turns), the others from turn 0 (3 turns each) */
	ck_assert_uint_eq(lines_in(e.glog), asked + 2 + 9);
	recs = load_turns(all);
	assert_complete(recs, set, 1, ALL_TASKS, 4, 2);
	ck_assert_str_eq(sget(rec(recs, "CF_EF_FULL", "t/double", 0), "verdict"), "fail");
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* --- exit codes, Ctrl-C, sbx score ------------------------------------------------------------ */

/* The daemon is not there: exit 3 as for `sbx run`, and --out is not even
 * created (nor anything in it when it exists). */
START_TEST(test_daemon_unreachable)
{
	struct env e;
	env_start(&e);
	char sock[600];
	snprintf(sock, sizeof sock, "%s/no-daemon.sock", e.dir);
	const char *out = sub(&e, "unreachable");
	char gen[1024];
	snprintf(gen, sizeof gen, "%s %s right", FAKE_GEN, e.glog);
	const char *args[] = {"--socket",
			      sock,
			      "eval",
			      "--dataset",
			      TASKS,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF",
			      "--turns",
			      "1",
			      "--out",
			      out,
			      "--no-progress",
			      NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 3, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(se, sock), "stderr:\n%s", se);
	free(so);
	free(se);
	struct stat st;
	ck_assert_int_eq(stat(out, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	/* The library says the same; an existing --out stays empty. */
	ck_assert_int_eq(mkdir(out, 0755), 0);
	struct eval_opts o;
	opts(&o, &e, out, "right", 1, "CF", NULL);
	o.socket = sock;
	char err[512];
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_UNREACHABLE);
	DIR *d = opendir(out);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *de; (de = readdir(d));)
		ck_assert_msg(de->d_name[0] == '.', "%s left in --out", de->d_name);
	closedir(d);
	/* The control: the same command against the daemon runs. */
	args[1] = e.d.sock;
	rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	free(so);
	free(se);
	ck_assert_uint_eq(lines_in(sub(&e, "unreachable/turns.jsonl")), 8);
	env_end(&e);
}
END_TEST

/* The line after "to resume" in sbx's stderr: the command to run. */
static char *resume_line(const char *err)
{
	const char *p = strstr(err, "to resume, run the same command");
	p = p ? strchr(p, '\n') : NULL;
	ck_assert_msg(p, "no resume line in:\n%s", err);
	const char *end = strchr(p + 1, '\n');
	return strndup(p + 1, end ? (size_t)(end - p - 1) : strlen(p + 1));
}

/* Ctrl-C during a generator call: the call is killed (not waited for),
 * the turn is not recorded, exit 130, and stderr says how to resume: the
 * exact command line, which run as printed finishes the evaluation. */
START_TEST(test_sigint_says_how_to_resume)
{
	struct env e;
	env_start(&e);
	char pause[400], gen[1024];
	snprintf(pause, sizeof pause, "%s.pause", e.glog);
	FILE *f = fopen(pause, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(gen, sizeof gen, "%s %s pause", FAKE_GEN, e.glog);
	const char *out = sub(&e, "sigint");
	const char *args[] = {"--socket",
			      e.d.sock,
			      "eval",
			      "--dataset",
			      TASKS,
			      "--format",
			      "bigcodebench",
			      "--generator",
			      gen,
			      "--setting",
			      "CF_EF_FULL",
			      "--turns",
			      "1",
			      "--tasks",
			      "t/double,t/inc",
			      "--out",
			      out,
			      "--no-progress",
			      NULL};
	char po[600], pe[600];
	snprintf(po, sizeof po, "%s/sbx.out", e.dir);
	snprintf(pe, sizeof pe, "%s/sbx.err", e.dir);
	pid_t pid = cli_start(args, po, pe);
	long long deadline = td_now_ms() + 20000;
	while (lines_in(e.glog) < 2 && td_now_ms() < deadline)
		td_sleep_ms(20);
	ck_assert_uint_eq(lines_in(e.glog), 2); /* both workers wait in a generator */
	long long t0 = td_now_ms();
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	int rc = cli_wait(pid);
	ck_assert_msg(td_now_ms() - t0 < 10000, "took %lld ms", td_now_ms() - t0);
	size_t n;
	char *se = sbx_read_file(pe, 1 << 20, &n, NULL, 0);
	ck_assert_msg(rc == 130, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(se, "interrupted"), "stderr:\n%s", se);
	ck_assert_uint_eq(lines_in(sub(&e, "sigint/turns.jsonl")), 0);
	char *line = resume_line(se);
	char want[700];
	snprintf(want, sizeof want, " --out %s --no-progress", out);
	ck_assert_msg(strstr(line, want) && strstr(line, cli_path()), "line: %s", line);
	free(se);
	/* Run as printed, it resumes: both tasks, turns 0 and 1 (double passes). */
	ck_assert_int_eq(unlink(pause), 0);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s >/dev/null 2>&1", line);
	ck_assert_int_eq(system(cmd), 0);
	free(line);
	json_t *recs = load_turns(out);
	const char *set[] = {"CF_EF_FULL"}, *tasks[] = {"t/double", "t/inc"};
	assert_complete(recs, set, 1, tasks, 2, 1);
	json_decref(recs);
	env_end(&e);
}
END_TEST

/* `sbx score`: no records is an error with a message, --help is not. */
START_TEST(test_score_cli)
{
	struct env e;
	env_start(&e);
	const char *empty = sub(&e, "empty");
	ck_assert_int_eq(mkdir(empty, 0755), 0);
	const char *args[] = {"score", empty, NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 1, "exit %d", rc);
	ck_assert_msg(strstr(se, empty), "stderr:\n%s", se);
	free(so);
	free(se);
	/* An empty turns.jsonl (an evaluation that never ran a turn). */
	FILE *f = fopen(sub(&e, "empty/turns.jsonl"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 1, "exit %d", rc);
	ck_assert_msg(strstr(se, "no turn records"), "stderr:\n%s", se);
	ck_assert_str_eq(so, "");
	free(so);
	free(se);
	const char *help[] = {"score", "--help", NULL};
	rc = cli_run(&e, help, &so, &se);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(so, "usage: sbx score"), "stdout:\n%s", so);
	free(so);
	free(se);
	/* The control: a directory with records scores, exit 0. */
	struct eval_opts o;
	const char *out = sub(&e, "scored");
	opts(&o, &e, out, "right", 1, "CF", NULL);
	run_ok(&o);
	const char *ok[] = {"score", out, NULL};
	rc = cli_run(&e, ok, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(so, "Recall"), "stdout:\n%s", so);
	free(so);
	free(se);
	env_end(&e);
}
END_TEST

/* --- runs that can be reproduced ------------------------------------------------------------- */

/* What a shell command prints, trailing newline cut (malloc'd). */
static char *sh_output(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	char buf[512] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return strdup(buf);
}

/* The seed docs/eval.md promises for a task: the first 4 bytes of the
 * SHA-256 of "SEED:TASK_ID", computed here by sha256sum(1), not by sbx. */
static unsigned long expected_seed(long seed, const char *task)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "printf '%%s' '%ld:%s' | sha256sum | cut -c1-8", seed, task);
	char *hex = sh_output(cmd);
	unsigned long v = strtoul(hex, NULL, 16);
	free(hex);
	return v;
}

static json_t *manifest_of(const char *out)
{
	char p[600];
	snprintf(p, sizeof p, "%s/manifest.json", out);
	json_t *m = json_load_file(p, 0, NULL);
	ck_assert_msg(json_is_object(m), "no %s", p);
	return m;
}

/* The seed each task's test runs got, as its execution feedback shows it
 * (fake_gen.py's seedprobe raises "SEED-PROBE <PYTHONHASHSEED>"). */
static long probed_seed(const json_t *recs, const char *task)
{
	const char *exec = fb(rec(recs, "CF_EF_FULL", task, 0), "execution");
	const char *p = exec ? strstr(exec, "ValueError: SEED-PROBE ") : NULL;
	ck_assert_msg(p, "%s: no probe in %s", task, exec);
	return strtol(p + strlen("ValueError: SEED-PROBE "), NULL, 10);
}

/* manifest.json says what the run is; without --seed each task's runs get
 * the seed derived from the default one, the same in every run. */
START_TEST(test_manifest_and_default_seeds)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *tasks[] = {"t/inc", "t/double", "t/inc"}; /* a set: order, repeats */
	const char *a = sub(&e, "seed-a");
	opts(&o, &e, a, "seedprobe", 0, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 3;
	o.limits.wall_ms = 20000;
	run_ok(&o);
	json_t *m = manifest_of(a), *recs = load_turns(a);
	const char *want_keys[] = {"manifest_version",
				   "run_id",
				   "created",
				   "mode",
				   "dataset",
				   "tasks",
				   "shard",
				   "settings",
				   "turns",
				   "model",
				   "generator",
				   "verbal",
				   "reference",
				   "always_regenerate",
				   "seed",
				   "seed_per_task",
				   "limits",
				   "gen_timeout_ms",
				   "daemon",
				   "python"};
	for (size_t i = 0; i < sizeof want_keys / sizeof want_keys[0]; i++)
		ck_assert_msg(json_object_get(m, want_keys[i]), "manifest lacks %s", want_keys[i]);
	ck_assert_str_eq(sget(m, "run_id"), sget(json_array_get(recs, 0), "run_id"));
	ck_assert_str_eq(sget(m, "mode"), "live");
	json_t *ds = json_object_get(m, "dataset");
	char *sum = sh_output("sha256sum " TASKS " | cut -c1-64");
	ck_assert_str_eq(sget(ds, "sha256"), sum);
	free(sum);
	ck_assert_str_eq(sget(ds, "path"), TASKS);
	ck_assert_str_eq(sget(ds, "format"), "bigcodebench");
	char *tl = json_dumps(json_object_get(m, "tasks"), JSON_COMPACT);
	ck_assert_str_eq(tl, "[\"t/double\",\"t/inc\"]");
	free(tl);
	ck_assert_str_eq(sget(m, "shard"), "0/1");
	json_t *sets = json_object_get(m, "settings");
	ck_assert_uint_eq(json_array_size(sets), 1);
	ck_assert_str_eq(json_string_value(json_array_get(sets, 0)), "CF_EF_FULL");
	ck_assert_int_eq(ival(m, "turns"), 0);
	ck_assert_str_eq(sget(m, "model"), "fake/gen-1");
	ck_assert_str_eq(sget(m, "generator"), e.gen);
	ck_assert(json_is_null(json_object_get(m, "verbal"))); /* no setting asks it */
	ck_assert(json_is_null(json_object_get(m, "reference")));
	ck_assert_int_eq(ival(m, "seed"), EVAL_DEFAULT_SEED);
	ck_assert(json_is_true(json_object_get(m, "seed_per_task")));
	ck_assert_int_eq(ival(json_object_get(m, "limits"), "wall_ms"), 20000);
	ck_assert_int_eq(ival(json_object_get(m, "daemon"), "workers"), 2);
	ck_assert_str_eq(sget(json_object_get(m, "daemon"), "version"), PROTO_VERSION);
	char *py = sh_output("python3 --version");
	ck_assert_str_eq(sget(m, "python"), py);
	free(py);
	/* Each task's seed is the documented derivation, and differs by task. */
	long sd = probed_seed(recs, "t/double"), si = probed_seed(recs, "t/inc");
	ck_assert_int_eq(sd, (long)expected_seed(EVAL_DEFAULT_SEED, "t/double"));
	ck_assert_int_eq(si, (long)expected_seed(EVAL_DEFAULT_SEED, "t/inc"));
	ck_assert_int_ne(sd, si);
	json_decref(recs);
	json_decref(m);
	/* A second run, in another directory and another task order (t/inc
	 * alone first): the same seeds. */
	const char *b = sub(&e, "seed-b");
	opts(&o, &e, b, "seedprobe", 0, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 1;
	o.limits.wall_ms = 20000;
	run_ok(&o);
	recs = load_turns(b);
	ck_assert_int_eq(probed_seed(recs, "t/inc"), si);
	json_decref(recs);
	/* The control: --seed N gives every task N, as before. */
	const char *c = sub(&e, "seed-c");
	opts(&o, &e, c, "seedprobe", 0, "CF_EF_FULL", NULL);
	o.seed = 7;
	run_ok(&o);
	recs = load_turns(c);
	ck_assert_int_eq(probed_seed(recs, "t/double"), 7);
	ck_assert_int_eq(probed_seed(recs, "t/inc"), 7);
	json_decref(recs);
	m = manifest_of(c);
	ck_assert_int_eq(ival(m, "seed"), 7);
	ck_assert(json_is_false(json_object_get(m, "seed_per_task")));
	json_decref(m);
	env_end(&e);
}
END_TEST

/* A resume into an --out whose manifest says it was another run is
 * refused, naming what differs, before anything is asked or rewritten;
 * --force-resume continues it and records the override. */
START_TEST(test_resume_refuses_another_run)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *out = sub(&e, "refuse");
	const char *tasks[] = {"t/double", "t/inc"};
	opts(&o, &e, out, "t/double=exec,*=wrong", 1, "CF_EF_FULL", NULL);
	o.tasks = tasks;
	o.ntasks = 2;
	run_ok(&o);
	size_t asked = lines_in(e.glog);
	char *before = slurp_turns(out);
	json_t *m0 = manifest_of(out);

	char err[2048];
	o.turns = 2; /* a longer run alone is a resume */
	o.seed = 7;
	o.model = "other/model";
	ck_assert_int_eq(eval_run(&o, err, sizeof err), EVAL_FAILED);
	ck_assert_msg(strstr(err, "seed (was 42, now 7)") && strstr(err, "seed_per_task") &&
			  strstr(err, "model (was \"fake/gen-1\", now \"other/model\")") &&
			  strstr(err, "--force-resume") && !strstr(err, "turns"),
		      "%s", err);
	ck_assert_uint_eq(lines_in(e.glog), asked);
	char *after = slurp_turns(out);
	ck_assert_str_eq(after, before);
	free(after);
	json_t *m1 = manifest_of(out);
	ck_assert(json_equal(m0, m1));
	json_decref(m1);
	/* The CLI says the same, exit 1. */
	char gen[1024];
	snprintf(gen, sizeof gen, "%s", e.gen);
	const char *args[] = {
	    "--socket",	  e.d.sock,	   "eval",	  "--dataset", TASKS,
	    "--format",	  "bigcodebench",  "--generator", gen,	       "--setting",
	    "CF_EF_FULL", "--turns",	   "1",		  "--tasks",   "t/double,t/inc",
	    "--model",	  "fake/gen-1",	   "--seed",	  "7",	       "--out",
	    out,	  "--no-progress", NULL};
	char *so, *se;
	int rc = cli_run(&e, args, &so, &se);
	ck_assert_msg(rc == 1 && strstr(se, "seed (was 42, now 7)") && !strstr(se, "model"),
		      "exit %d; stderr:\n%s", rc, se);
	free(so);
	free(se);

	/* Forced: it runs on, and the manifest says what was overridden. */
	o.force_resume = true;
	run_ok(&o);
	ck_assert_uint_gt(lines_in(e.glog), asked);
	json_t *m2 = manifest_of(out);
	ck_assert_int_eq(ival(m2, "seed"), 7);
	ck_assert_str_eq(sget(m2, "model"), "other/model");
	ck_assert_int_eq(ival(m2, "turns"), 2);
	ck_assert_str_eq(sget(m2, "run_id"), sget(m0, "run_id"));
	ck_assert_str_eq(sget(m2, "created"), sget(m0, "created"));
	json_t *forced = json_object_get(m2, "forced_resumes");
	ck_assert_uint_eq(json_array_size(forced), 1);
	json_t *f0 = json_array_get(forced, 0);
	char *keys = json_dumps(json_object_get(f0, "keys"), JSON_COMPACT);
	ck_assert_str_eq(keys, "[\"model\",\"seed\",\"seed_per_task\"]");
	free(keys);
	json_t *prev = json_object_get(f0, "previous");
	ck_assert_int_eq(ival(prev, "seed"), 42);
	ck_assert_str_eq(sget(prev, "model"), "fake/gen-1");
	ck_assert(json_is_string(json_object_get(f0, "time")));
	json_decref(m2);
	/* The same again is no override: nothing more is recorded. */
	o.force_resume = false;
	run_ok(&o);
	m2 = manifest_of(out);
	ck_assert_uint_eq(json_array_size(json_object_get(m2, "forced_resumes")), 1);
	json_decref(m2);
	json_decref(m0);
	free(before);
	env_end(&e);
}
END_TEST

/* `sbx score` merges the shards of one run, and refuses directories whose
 * manifests differ in more than the shard, naming the keys. */
START_TEST(test_score_refuses_other_shards)
{
	struct env e;
	env_start(&e);
	struct eval_opts o;
	const char *modes = "t/double=right,t/negate=exec,*=wrong";
	char dirs[3][512];
	for (int i = 0; i < 3; i++) {
		snprintf(dirs[i], sizeof dirs[i], "%s/shard%d", e.dir, i);
		opts(&o, &e, dirs[i], modes, 1, "CF_EF_FULL", NULL);
		o.shard_i = i == 0 ? 0 : 1;
		o.shard_n = 2;
		if (i == 2)
			o.model = "other/model"; /* shard 1 of another run */
		run_ok(&o);
	}
	const char *good[] = {"score", dirs[0], dirs[1], NULL};
	char *so, *se;
	int rc = cli_run(&e, good, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	ck_assert_msg(strstr(so, "CF_EF_FULL") && strstr(so, " 4 "), "stdout:\n%s", so);
	free(so);
	free(se);
	const char *bad[] = {"score", dirs[0], dirs[2], NULL};
	rc = cli_run(&e, bad, &so, &se);
	ck_assert_msg(rc == 1, "exit %d", rc);
	ck_assert_msg(strstr(se, "not shards of one run") && strstr(se, "model") &&
			  !strstr(se, "shard ("),
		      "stderr:\n%s", se);
	ck_assert_str_eq(so, "");
	free(so);
	free(se);
	/* Their turns.jsonl files themselves merge unchecked. */
	char f0[600], f2[600];
	snprintf(f0, sizeof f0, "%s/turns.jsonl", dirs[0]);
	snprintf(f2, sizeof f2, "%s/turns.jsonl", dirs[2]);
	const char *files[] = {"score", f0, f2, NULL};
	rc = cli_run(&e, files, &so, &se);
	ck_assert_msg(rc == 0, "exit %d; stderr:\n%s", rc, se);
	free(so);
	free(se);
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
	tcase_add_test(t, test_endpoint_down);
	tcase_add_test(t, test_max_errors_and_keeping_failures);
	tcase_add_test(t, test_daemon_unreachable);
	tcase_add_test(t, test_sigint_says_how_to_resume);
	tcase_add_test(t, test_score_cli);
	tcase_add_test(t, test_manifest_and_default_seeds);
	tcase_add_test(t, test_resume_refuses_another_run);
	tcase_add_test(t, test_score_refuses_other_shards);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-eval"};
	return tmain(eval_commands_suite, &opts);
}
