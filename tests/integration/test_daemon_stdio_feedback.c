/* stdio feedback a model can act on (docs/protocol.md, "Test requests"):
 *   - a case that raises shows a traceback naming solution.py, the name its
 *     compile step gives the code, with the source line, on the warm path
 *     and under --cold alike, never main.py;
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

static Suite *stdio_feedback_suite(void)
{
	Suite *s = suite_create("daemon_stdio_feedback");
	TCase *t = tmain_tcase(s, "stdio_feedback", 90);
	tcase_add_test(t, test_runtime_traceback_names_solution_py);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-stdio-fb", .max_msg = 16 * 1024};
	return tmain(stdio_feedback_suite, &opts);
}
