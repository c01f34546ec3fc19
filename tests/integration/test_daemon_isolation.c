/* Integration tests of isolation "process" (humaneval and asserts): the
 * tests run in the grader (the runner, the job's uid), the candidate in a
 * second payload under the slot's peer uid (uid_base + workers + slot),
 * connected by a socketpair that carries only data.
 *
 * test_forgeries runs every tests/hostile/grading/NAME.py (a candidate that
 * answers wrongly and tries to be reported as passing; its header names the
 * format and the verdict of each mode, see tests/hostile/grading/README.md)
 * in both modes: the in-process result the header documents (the contrast:
 * key theft, monkeypatching, sys.modules and exec tampering do pass there),
 * and never a pass in process mode. The other tests check the jail's side
 * (uids, who reads the tests and /work, signals and /proc/PID/mem between
 * the two), the request validation, and HumanEval through the jail in
 * process mode.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/datasets.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

#define CALL_MS 60000
#define MAX_PROGS 32

static const char HE_TESTS[] = "import math\n"
			       "def check(candidate):\n"
			       "    assert math.isclose(candidate(2.0), 5.0)\n"
			       "    assert math.isclose(candidate(0.5), 3.5)\n";

/* The value of "# key: value" among the leading comments, or "". */
static void header(const char *text, const char *key, char *out, size_t len)
{
	char pat[64];
	snprintf(pat, sizeof pat, "# %s: ", key);
	out[0] = '\0';
	const char *p = strstr(text, pat);
	if (!p)
		return;
	p += strlen(pat);
	size_t n = strcspn(p, "\n");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* A request for the task of tests/hostile/grading/README.md, or for the
 * program's own tests (its "# tests: JSON" header) when it has them. */
static json_t *grading_req(const char *id, const char *code, const char *format,
			   const char *isolation)
{
	char own[4096];
	header(code, "tests", own, sizeof own);
	json_t *tests = own[0] ? json_loads(own, JSON_DECODE_ANY, NULL)
			: strcmp(format, "humaneval") == 0
			    ? json_string(HE_TESTS)
			    : json_pack("[s,s]", "assert math.isclose(solve(2.0), 5.0)",
					"assert math.isclose(solve(0.5), 3.5)");
	ck_assert_msg(tests != NULL, "%s: a tests header that is not JSON", id);
	json_t *r = treq(id, code, format, tests);
	if (strcmp(format, "humaneval") == 0)
		set_str(r, F_ENTRY_POINT, "solve");
	set_int(r, F_TEST_TIMEOUT_MS, 5000);
	return set_str(r, F_ISOLATION, isolation);
}

START_TEST(test_forgeries)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	glob_t g;
	ck_assert_int_eq(glob("tests/hostile/grading/*.py", 0, NULL, &g), 0);
	ck_assert_msg(g.gl_pathc >= 8 && g.gl_pathc <= MAX_PROGS, "%zu programs", g.gl_pathc);
	json_t *reqs[2 * MAX_PROGS], *resps[2 * MAX_PROGS];
	char want[2 * MAX_PROGS][16];
	size_t n = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *code = tf_read(g.gl_pathv[i]);
		char format[32], id[64];
		header(code, "format", format, sizeof format);
		ck_assert_msg(format[0], "%s: no format header", g.gl_pathv[i]);
		static const char *const modes[2][2] = {{ISOLATION_NONE, "in-process"},
							{ISOLATION_PROCESS, "process"}};
		for (int m = 0; m < 2; m++) {
			header(code, modes[m][1], want[n], sizeof want[n]);
			ck_assert_msg(strcmp(want[n], "pass") == 0 || strcmp(want[n], "fail") == 0,
				      "%s: bad %s header", g.gl_pathv[i], modes[m][1]);
			/* The whole point: no forgery passes in process mode. */
			ck_assert_msg(m == 0 || strcmp(want[n], "fail") == 0,
				      "%s: a process-mode header must say fail", g.gl_pathv[i]);
			snprintf(id, sizeof id, "%zu-%s", i, modes[m][0]);
			reqs[n++] = grading_req(id, code, format, modes[m][0]);
		}
		free(code);
	}
	run_batch(&d, reqs, resps, n);
	for (size_t k = 0; k < n; k++) {
		const char *prog = g.gl_pathv[k / 2], *v = verdict(resps[k]);
		bool passed = v && strcmp(v, "pass") == 0;
		CHECK_RM(resps[k], v && (strcmp(v, "pass") == 0 || strcmp(v, "fail") == 0),
			 "%s (%s): verdict %s", prog, k % 2 ? "process" : "in-process", v);
		CHECK_RM(resps[k], passed == (strcmp(want[k], "pass") == 0),
			 "%s (%s): verdict %s, its header says %s", prog,
			 k % 2 ? "process" : "in-process", v, want[k]);
		json_decref(reqs[k]);
		json_decref(resps[k]);
	}
	globfree(&g);
	stop_ok(&d);
}
END_TEST

/* The candidate reports what it can see and do. */
static const char PROBE[] =
    "import os, signal, sys\n"
    "def solve(x):\n"
    "    me = os.getpid()\n"
    "    other = [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, me)]\n"
    "    out = ['UID %d' % os.getuid(), 'CWD %s' % os.getcwd()]\n"
    "    out += ['PEER %d' % os.stat('/proc/%d' % p).st_uid for p in other]\n"
    "    try:\n"
    "        open('/sandboxd/job.json').read(); out.append('JOB readable')\n"
    "    except OSError as e: out.append('JOB ' + e.strerror)\n"
    "    for p in other:\n"
    "        try:\n"
    "            open('/proc/%d/mem' % p, 'rb').read(1); out.append('MEM readable')\n"
    "        except OSError as e: out.append('MEM ' + e.strerror)\n"
    "        try:\n"
    "            os.kill(p, signal.SIGSTOP); out.append('KILL allowed')\n"
    "        except OSError as e: out.append('KILL ' + e.strerror)\n"
    "    out.append('FILE ' + open('data.txt').read())\n"
    "    print(' | '.join(out), file=sys.stderr)\n"
    "    return x + 3\n";

START_TEST(test_jail_side)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *req = grading_req("probe", PROBE, "humaneval", ISOLATION_PROCESS);
	json_object_set_new(req, F_FILES, json_pack("{s:s}", "data.txt", "from files"));
	json_t *r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	const char *err = sget0(r, R_STDERR);
	unsigned uid = 0, peer = 0;
	const char *u = strstr(err, "UID "), *p = strstr(err, "PEER ");
	CHECK_R(r, u && sscanf(u, "UID %u", &uid) == 1);
	CHECK_R(r, p && sscanf(p, "PEER %u", &peer) == 1);
	/* Slot s: the grader is uid_base + s, the candidate uid_base + workers + s. */
	unsigned base = (unsigned)d.uid_base, w = (unsigned)d.workers;
	CHECK_RM(r, peer < base + w && peer >= base, "grader uid %u", peer);
	CHECK_RM(r, uid == peer + w, "candidate uid %u, grader uid %u", uid, peer);
	CHECK_R(r, strstr(err, "CWD /work"));
	CHECK_R(r, strstr(err, "JOB Permission denied"));
	CHECK_R(r, strstr(err, "MEM Permission denied"));
	CHECK_R(r, strstr(err, "KILL Operation not permitted"));
	CHECK_R(r, !strstr(err, "readable") && !strstr(err, "allowed"));
	CHECK_R(r, strstr(err, "FILE from files"));
	json_decref(r);

	/* The same candidate in process: one process, the job's uid. */
	req = grading_req("probe-in", PROBE, "humaneval", ISOLATION_NONE);
	json_object_set_new(req, F_FILES, json_pack("{s:s}", "data.txt", "from files"));
	r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, strstr(sget0(r, R_STDERR), "JOB readable"));
	CHECK_R(r, !strstr(sget0(r, R_STDERR), "PEER "));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_bad_requests)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	static const struct {
		const char *format, *isolation, *needle;
	} cases[] = {
	    {"unittest", ISOLATION_PROCESS, "call-based"},
	    {"stdio", ISOLATION_PROCESS, "call-based"},
	    {"humaneval", "thread", "must be none or process"},
	    {NULL, ISOLATION_PROCESS, "needs \"tests\" and \"format\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *req;
		if (!cases[i].format)
			req = job("plain", "print(1)\n");
		else if (strcmp(cases[i].format, "stdio") == 0)
			req =
			    treq("s", "print(1)\n", "stdio",
				 json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "1\n"));
		else if (strcmp(cases[i].format, "unittest") == 0)
			req = ut("u", "x = 1\n", "import unittest\n");
		else
			req = grading_req("h", "def solve(x):\n    return x\n", "humaneval",
					  ISOLATION_NONE);
		set_str(req, F_ISOLATION, cases[i].isolation);
		json_t *r = run1(&d, req, CALL_MS);
		CHECK_R(r, streq(errcode(r), "bad_request"));
		CHECK_RM(
		    r, strstr(sget0(json_object_get(r, R_ERROR), R_ERROR_MESSAGE), cases[i].needle),
		    "case %zu", i);
		json_decref(r);
	}
	/* "none" is the default, accepted everywhere a test request goes. */
	json_t *r = run1(&d,
			 set_str(ut("u", "x = 1\n",
				    "import unittest\nclass TestCases(unittest.TestCase):\n"
				    "    def test_x(self):\n        self.assertEqual(x, 1)\n"),
				 F_ISOLATION, ISOLATION_NONE),
			 CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* HumanEval through the jail in process mode: every canonical solution
 * passes, and a `return None` stub gets the verdict and outcome it gets in
 * process (the same data crosses, exactly typed). */
START_TEST(test_humaneval_process)
{
	NEED_DATASET("HumanEval.jsonl.gz");
	size_t n;
	json_t **tasks = tds_load_jsonl_gz("HumanEval.jsonl.gz", &n);
	ck_assert_msg(n == 164, "HumanEval has %zu tasks, expected 164", n);
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t **reqs = calloc(3 * n, sizeof *reqs), **resps = calloc(3 * n, sizeof *resps);
	ck_assert_ptr_nonnull(reqs);
	ck_assert_ptr_nonnull(resps);
	for (size_t i = 0; i < 3 * n; i++) {
		const json_t *t = tasks[i % n];
		size_t kind = i / n; /* 0: canonical, process; 1, 2: stub, process / none */
		char id[64];
		struct sb code = {0};
		snprintf(id, sizeof id, "he-%zu-%zu", kind, i % n);
		sb_add(&code, "%s%s", sget(t, "prompt"),
		       kind == 0 ? sget(t, "canonical_solution") : "    return None\n");
		reqs[i] = treq(id, sb_str(&code), "humaneval", json_string(sget(t, "test")));
		set_str(reqs[i], F_ENTRY_POINT, sget(t, "entry_point"));
		set_str(reqs[i], F_ISOLATION, kind == 2 ? ISOLATION_NONE : ISOLATION_PROCESS);
		free(code.s);
	}
	run_batch(&d, reqs, resps, 3 * n);
	struct sb bad = {0};
	size_t nbad = 0;
	for (size_t i = 0; i < n; i++) {
		const char *tid = sget(tasks[i], "task_id");
		if (!streq(verdict(resps[i]), "pass")) {
			nbad++;
			sb_add(&bad, " %s canonical: %s (%.200s)", tid, verdict(resps[i]),
			       execution(resps[i]));
		}
		json_t *p = resps[n + i], *q = resps[2 * n + i];
		if (!streq(verdict(p), verdict(q)) || !outcome(p, 0) || !outcome(q, 0) ||
		    !streq(outcome(p, 0), outcome(q, 0))) {
			nbad++;
			sb_add(&bad, " %s stub: %s/%s in process mode, %s/%s in process", tid,
			       verdict(p), outcome(p, 0), verdict(q), outcome(q, 0));
		}
	}
	ck_assert_msg(nbad == 0, "%zu differences:%s", nbad, sb_cut(&bad, 20000));
	free(bad.s);
	tds_free_all(reqs, 3 * n);
	tds_free_all(resps, 3 * n);
	tds_free_all(tasks, n);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_isolation_suite(void)
{
	Suite *s = suite_create("daemon_isolation");
	TCase *t = tmain_tcase(s, "isolation", 120);
	tcase_add_test(t, test_forgeries);
	tcase_add_test(t, test_jail_side);
	tcase_add_test(t, test_bad_requests);
	tcase_add_test(t, test_humaneval_process);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-isolation",
					       .max_msg = 64 * 1024};
	return tmain(daemon_isolation_suite, &opts);
}
