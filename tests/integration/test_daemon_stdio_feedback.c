/* stdio feedback a model can act on (docs/protocol.md, "Test requests"):
 *   - a case that raises shows a traceback naming solution.py, the name its
 *     compile step gives the code, with the source line, on the warm path
 *     and under --cold alike, never main.py;
 *   - each test carries the case's expected output and the program's as
 *     data (expected, actual, bounded, with *_truncated; actual null for a
 *     case not run), whatever its outcome;
 *   - the feedback text is the same whether a case's input, expected
 *     output or actual output ends with a newline or not;
 *   - expected_output "hide" keeps the expected output out of the text (or
 *     all but its first expected_visible_chars characters) and says so,
 *     while the test's expected field keeps it.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"

#define CALL_MS 60000

/* A second daemon in the same test needs uids of its own. */
static char g_base2[32];
static const char *base2(const struct test_daemon *first)
{
	snprintf(g_base2, sizeof g_base2, "%u", (unsigned)first->uid_base + 64u);
	return g_base2;
}

static json_t *one_case(const char *id, const char *code, const char *in, const char *out)
{
	return treq(id, code, "stdio",
		    json_pack("[{s:s,s:s}]", F_CASE_INPUT, in, F_CASE_OUTPUT, out));
}

START_TEST(test_runtime_traceback_names_solution_py)
{
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	ck_assert_msg(td_wait_warm(&w, 60000) == 0, "%s", w.err);
	const char *code = "import sys\n"
			   "def parse(s):\n"
			   "    return int(s)\n"
			   "print(parse(sys.stdin.read()))\n";
	struct test_daemon *ds[] = {&w, &k};
	const char *paths[] = {PATH_WARM, PATH_COLD};
	for (int d = 0; d < 2; d++) {
		json_t *r = run1(ds[d], one_case("tb", code, "x\n", "1\n"), CALL_MS);
		CHECK_R(r, streq(verdict(r), "fail"));
		CHECK_R(r, streq(sget(r, R_PATH), paths[d]));
		CHECK_OUTCOMES(r, "error");
		const char *tb = sget0(test_at(r, 0), T_TRACEBACK);
		CHECK_RM(r,
			 strstr(tb, "  File \"solution.py\", line 4, in <module>\n"
				    "    print(parse(sys.stdin.read()))\n"),
			 "%s: no solution.py frame with its line", paths[d]);
		CHECK_RM(r,
			 strstr(tb, "  File \"solution.py\", line 3, in parse\n"
				    "    return int(s)\n"),
			 "%s: no solution.py frame for the function", paths[d]);
		CHECK_R(r, strstr(tb, "ValueError: invalid literal for int()"));
		CHECK_RM(r, !strstr(tb, "main.py") && !strstr(sget0(r, R_STDERR), "main.py"),
			 "%s: a traceback names main.py", paths[d]);
		CHECK_R(r, str_starts(execution(r), "case 1\nTraceback (most recent call last):\n"
						    "  File \"solution.py\", line 4"));
		json_decref(r);
	}
	stop_ok(&w);
	stop_ok(&k);
}
END_TEST

static const char *tstr(const json_t *r, size_t i, const char *k)
{
	return json_string_value(json_object_get(test_at(r, i), k));
}

static bool tflag(const json_t *r, size_t i, const char *k)
{
	return json_is_true(json_object_get(test_at(r, i), k));
}

START_TEST(test_expected_and_actual_fields)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	/* pass, wrong answer, a long answer, an error, then fail_fast stops. */
	const char *code = "import sys\n"
			   "n = sys.stdin.read().strip()\n"
			   "if n == 'big':\n"
			   "    print('\\u00e9' * 5000)\n"
			   "elif n == 'boom':\n"
			   "    print('partial', flush=True); raise SystemExit(3)\n"
			   "else:\n"
			   "    print(int(n) * 2)\n";
	json_t *req =
	    treq("io", code, "stdio",
		 json_pack("[{s:s,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:s}]", F_CASE_INPUT,
			   "2\n", F_CASE_OUTPUT, "4\n", F_CASE_INPUT, "3", F_CASE_OUTPUT, "7\n",
			   F_CASE_INPUT, "big", F_CASE_OUTPUT, "e", F_CASE_INPUT, "boom",
			   F_CASE_OUTPUT, "x", F_CASE_INPUT, "5", F_CASE_OUTPUT, "10"));
	json_object_set_new(req, F_FAIL_FAST, json_false());
	json_t *r = run1(&d, req, CALL_MS);
	CHECK_OUTCOMES(r, "passed,failed,failed,error,passed");
	CHECK_R(r, streq(tstr(r, 0, T_EXPECTED), "4\n") && streq(tstr(r, 0, T_ACTUAL), "4\n"));
	CHECK_R(r, streq(tstr(r, 1, T_EXPECTED), "7\n") && streq(tstr(r, 1, T_ACTUAL), "6\n"));
	CHECK_R(r, !tflag(r, 1, T_EXPECTED_TRUNC) && !tflag(r, 1, T_ACTUAL_TRUNC));
	/* 10,001 bytes printed: at most 4 KiB kept, whole characters only. */
	const char *big = tstr(r, 2, T_ACTUAL);
	CHECK_R(r, big && strlen(big) <= PROTO_STDIO_TEXT_MAX &&
		       strlen(big) >= PROTO_STDIO_TEXT_MAX - 1);
	CHECK_R(r, big && strlen(big) % 2 == 0 && !strstr(big, "\xef\xbf\xbd"));
	CHECK_R(r, tflag(r, 2, T_ACTUAL_TRUNC) && !tflag(r, 2, T_EXPECTED_TRUNC));
	CHECK_R(r, streq(tstr(r, 3, T_ACTUAL), "partial\n") && streq(tstr(r, 3, T_EXPECTED), "x"));
	json_decref(r);
	/* With fail_fast the cases after the first failure are not run: their
	 * expected output is there, their actual null. */
	req = treq("ff", code, "stdio",
		   json_pack("[{s:s,s:s},{s:s,s:s}]", F_CASE_INPUT, "3", F_CASE_OUTPUT, "7",
			     F_CASE_INPUT, "5", F_CASE_OUTPUT, "10"));
	json_object_set_new(req, F_FAIL_FAST, json_true());
	r = run1(&d, req, CALL_MS);
	CHECK_OUTCOMES(r, "failed,skipped");
	CHECK_R(r, streq(tstr(r, 1, T_EXPECTED), "10"));
	CHECK_R(r, json_is_null(json_object_get(test_at(r, 1), T_ACTUAL)));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* The same wrong answer, once with every part ending in a newline and once
 * without: one feedback text. */
START_TEST(test_layout_same_with_and_without_newlines)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *reqs[2] = {
	    one_case("nl", "import sys\nprint(int(sys.stdin.read()) + 1)\n", "5\n", "7\n"),
	    one_case("no-nl", "import sys\nsys.stdout.write(str(int(sys.stdin.read()) + 1))\n", "5",
		     "7"),
	};
	json_t *resps[2];
	run_batch(&d, reqs, resps, 2);
	const char *want = "case 1\nInput:\n5\nExpected output:\n7\nActual output:\n6";
	for (int i = 0; i < 2; i++) {
		CHECK_OUTCOMES(resps[i], "failed");
		CHECK_RM(resps[i], streq(execution(resps[i]), want), "the text is not %s", want);
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

START_TEST(test_hidden_expected_output)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *code = "print('wrong')\n";
	json_t *reqs[3] = {
	    one_case("show", code, "1\n", "SECRET-42\n"),
	    set_str(one_case("hide", code, "1\n", "SECRET-42\n"), F_EXPECTED_OUTPUT, EXPECTED_HIDE),
	    set_int(set_str(one_case("hide3", code, "1\n", "SECRET-42\n"), F_EXPECTED_OUTPUT,
			    EXPECTED_HIDE),
		    F_EXPECTED_VISIBLE_CHARS, 3),
	};
	json_t *resps[3];
	run_batch(&d, reqs, resps, 3);
	CHECK_R(resps[0], strstr(execution(resps[0]), "Expected output:\nSECRET-42\n"));
	CHECK_R(resps[1], streq(execution(resps[1]), "case 1\nInput:\n1\nExpected output: hidden\n"
						     "Actual output:\nwrong"));
	CHECK_R(resps[2],
		streq(execution(resps[2]), "case 1\nInput:\n1\n"
					   "Expected output (hidden past its first 3 characters):\n"
					   "SEC\nActual output:\nwrong"));
	for (int i = 0; i < 3; i++) {
		CHECK_OUTCOMES(resps[i], "failed");
		/* The harness still reads it; the model's text (the test's
		 * traceback too) never has it whole when hidden. */
		CHECK_R(resps[i], streq(tstr(resps[i], 0, T_EXPECTED), "SECRET-42\n"));
		CHECK_R(resps[i],
			i == 0 || !strstr(sget0(test_at(resps[i], 0), T_TRACEBACK), "SECRET-42"));
		CHECK_R(resps[i], i == 0 || !strstr(execution(resps[i]), "SECRET-42"));
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

/* The expected and actual outputs are budgeted as the response encodes
 * them: a program that prints control bytes (6 bytes each as JSON) in every
 * case must still get its verdict, not a too_large error for a response past
 * --max-response-mb (a candidate could otherwise turn a wrong answer into an
 * error of the daemon's). 64 cases of 4 KiB of \x01: 256 KiB of raw bytes,
 * a quarter of 1 MiB, but 1.5 MiB as JSON. */
START_TEST(test_io_budget_counts_encoded_bytes)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--max-response-mb", "1");
	json_t *cases = json_array();
	for (int i = 0; i < 64; i++)
		json_array_append_new(
		    cases, json_pack("{s:s,s:s}", F_CASE_INPUT, "1", F_CASE_OUTPUT, "x"));
	json_t *r =
	    run1(&d, treq("ctl", "import sys\nsys.stdout.write('\\x01' * 4096)\n", "stdio", cases),
		 CALL_MS);
	CHECK_RM(r, streq(verdict(r), "fail"), "%s", "a wrong answer in every case is not a fail");
	CHECK_R(r, json_array_size(json_object_get(r, R_TESTS)) == 64);
	size_t enc = 0;
	for (size_t i = 0; i < 64; i++) {
		const char *a = tstr(r, i, T_ACTUAL), *e = tstr(r, i, T_EXPECTED);
		for (size_t k = 0; a && a[k]; k++)
			enc += a[k] == 1 ? 6 : 1;
		enc += e ? strlen(e) : 0;
	}
	CHECK_RM(r, enc <= (1u << 20) / 4, "the outputs take %zu bytes as JSON", enc);
	CHECK_R(r, tflag(r, 63, T_ACTUAL_TRUNC));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* The rest of what a case's program writes reaches the response too: each
 * test's traceback and message (a runtime error's standard error, a wrong
 * answer's diff) and the stdout of the first failing case. None of it may
 * take the response past --max-response-mb, whatever the number of cases:
 * 64 runtime errors each writing 4,000 bytes of \x01 to stderr (24 KB of
 * traceback each as JSON), and 64 wrong answers each printing 760 KiB
 * (the first one's stdout in the response, beside the outputs' quarter)
 * must get a verdict (fail; output_limit), not a too_large error. */
START_TEST(test_case_text_fits_response)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--max-response-mb", "1");
	const char *codes[] = {"import sys\nsys.stderr.write('\\x01' * 4000)\nsys.exit(1)\n",
			       "import sys\nsys.stdout.write('a' * (760 << 10))\n"};
	/* The second one's output is cut to what the response has room for. */
	const char *outcome[] = {"error", NULL}, *verdicts[] = {"fail", "output_limit"};
	for (int k = 0; k < 2; k++) {
		json_t *cases = json_array();
		for (int i = 0; i < 64; i++)
			json_array_append_new(
			    cases, json_pack("{s:s,s:s}", F_CASE_INPUT, "1", F_CASE_OUTPUT, "x"));
		json_t *r = run1(&d, treq("text", codes[k], "stdio", cases), CALL_MS);
		CHECK_RM(r, streq(verdict(r), verdicts[k]), "program %d: not %s", k, verdicts[k]);
		CHECK_R(r, json_array_size(json_object_get(r, R_TESTS)) == 64);
		CHECK_R(r, !outcome[k] || streq(sget0(test_at(r, 63), T_OUTCOME), outcome[k]));
		json_decref(r);
	}
	stop_ok(&d);
}
END_TEST

static Suite *stdio_feedback_suite(void)
{
	Suite *s = suite_create("daemon_stdio_feedback");
	TCase *t = tmain_tcase(s, "stdio_feedback", 90);
	tcase_add_test(t, test_runtime_traceback_names_solution_py);
	tcase_add_test(t, test_expected_and_actual_fields);
	tcase_add_test(t, test_layout_same_with_and_without_newlines);
	tcase_add_test(t, test_hidden_expected_output);
	tcase_add_test(t, test_io_budget_counts_encoded_bytes);
	tcase_add_test(t, test_case_text_fits_response);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-stdio-fb",
					       .max_msg = 16 * 1024};
	return tmain(stdio_feedback_suite, &opts);
}
