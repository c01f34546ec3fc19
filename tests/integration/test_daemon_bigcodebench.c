/* Integration tests of structured test feedback on BigCodeBench: a spread of
 * its tasks whose libraries the jail has (canonical solutions pass, with every
 * test method counted; stubbed mutants fail with a traceback through the
 * solution), and the tasks that fail here for a known reason outside the
 * sandbox, each checked to fail for that reason. The benchmark data is read in
 * place from ../shared/datasets, or $SBX_DATASETS (tests/helpers/datasets.h);
 * a data set that is not there is a skip. A real sandboxd
 * (tests/helpers/daemon.c starts one per test) runs the candidates; the
 * assertions are on the response's compile / tests / summary / feedback /
 * integrity fields and on the verdict rules of docs/protocol.md (requests and
 * responses: tests/helpers/tfeedback.h).
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/datasets.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfeedback.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"
#include "tests/helpers/tstr.h"

#define CALL_MS 60000 /* how long one ordinary response may take */

/* --- 2. BigCodeBench -------------------------------------------------------- */

/* Modules a task may use to be eligible: the standard library ones the
 * tasks use (nothing that needs the network or other processes) and the
 * Debian python3-* packages the Makefile installs (bcb_third_party, which
 * are probed: a machine may lack some). */
static const char *const bcb_libs_ok[] = {
    "numpy",   "pandas", "matplotlib",	"scipy",      "sklearn",     "seaborn",	 "dateutil",
    "pytz",    "random", "itertools",	"re",	      "collections", "json",	 "datetime",
    "string",  "csv",	 "math",	"statistics", "os",	     "shutil",	 "glob",
    "hashlib", "base64", "io",		"operator",   "heapq",	     "binascii", "functools",
    "bisect",  "struct", "unicodedata", "difflib",    "typing",	     "codecs",	 "textwrap",
    "copy",    "array",	 "fractions",	"decimal",    "calendar",    "enum",	 "uuid",
    "pathlib", "zlib",	 "gzip",	"zipfile",    "tarfile",     "time",	 "warnings",
    "secrets", "hmac",	 "ast",		"types",      "sys",	     NULL,
};

/* The libraries of bcb_libs_ok that are not part of Python: each is
 * imported by the jail's interpreter (outside the jail) before the tasks are
 * picked, and a picked task that needs a missing one is not run. */
static const char *const bcb_third_party[] = {
    "numpy", "pandas", "matplotlib", "scipy", "sklearn", "seaborn", "dateutil", "pytz", NULL,
};
#define NTHIRD (sizeof bcb_third_party / sizeof bcb_third_party[0] - 1)

/* Marks the bcb_third_party modules the interpreter cannot import; returns
 * how many, with their import errors in why. */
static size_t bcb_probe_libs(bool missing[NTHIRD], char *why, size_t len)
{
	const char *py = tprofile_python();
	char all[256] = "";
	for (size_t i = 0; i < NTHIRD; i++) {
		missing[i] = false;
		snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? " " : "",
			 bcb_third_party[i]);
	}
	why[0] = '\0';
	if (sbx_python_has(py, all, why, len))
		return 0; /* the usual case: one interpreter start */
	size_t n = 0;
	for (size_t i = 0; i < NTHIRD; i++) {
		char one[512];
		if (!sbx_python_has(py, bcb_third_party[i], one, sizeof one)) {
			missing[i] = true;
			n++;
		}
	}
	return n;
}

/* The text has `import NAME` or `from NAME`, NAME not followed by more of
 * an identifier (so numpy is not numpyro). */
static bool imports(const char *text, const char *name)
{
	static const char *const kw[] = {"import ", "from "};
	size_t nl = strlen(name);
	for (int k = 0; k < 2; k++)
		for (const char *p = text; p && (p = strstr(p, kw[k])) != NULL; p++) {
			const char *q = p + strlen(kw[k]);
			char after = q[nl];
			if (strncmp(q, name, nl) == 0 &&
			    !(after == '_' || (after >= 'a' && after <= 'z') ||
			      (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9')))
				return true;
		}
	return false;
}

/* The first missing library the task names in libs or imports in its
 * prompt, solution or tests; NULL when it needs none of them. */
static const char *bcb_needs_missing(const json_t *task, const bool missing[NTHIRD])
{
	const char *libs = sget0(task, "libs");
	for (size_t i = 0; i < NTHIRD; i++) {
		if (!missing[i])
			continue;
		const char *m = bcb_third_party[i];
		char q1[64], q2[64];
		snprintf(q1, sizeof q1, "'%s'", m);
		snprintf(q2, sizeof q2, "\"%s\"", m);
		if (strstr(libs, q1) || strstr(libs, q2) ||
		    imports(sget0(task, "code_prompt"), m) ||
		    imports(sget0(task, "canonical_solution"), m) ||
		    imports(sget0(task, "test"), m))
			return m;
	}
	return NULL;
}

/* Eligible tasks whose canonical solution fails here, each with why and a
 * text its failing feedback must contain, so the reason is checked whenever
 * the task runs. Every one was run outside the jail too, with the same
 * /usr/bin/python3 and libraries: each fails there identically, so none is
 * the sandbox's doing (BigCodeBench pins newer libraries than Debian 12 and
 * a few tests import packages its `libs` does not list). `run`: among the
 * picked tasks, so the exclusion itself is exercised. */
#define FAKER "test imports faker (not in libs, not installed)", "No module named 'faker'"
#define MPL36 "matplotlib 3.6 (Debian 12) returns AxesSubplot; the test wants >= 3.7's Axes"
static const struct {
	const char *task, *why, *feedback;
	bool run;
} bcb_excluded[] = {
    {"BigCodeBench/85", MPL36, "matplotlib Axes object", true},
    {"BigCodeBench/101", "downloads a data set over HTTP; the jail has no network", "urlopen error",
     true},
    {"BigCodeBench/111", "pandas/seaborn version: the heatmap data has None where 0.0 is expected",
     "DataFrame contents should match", false},
    {"BigCodeBench/160", "installed pandas/scipy do not raise the TypeError the test expects",
     "TypeError not raised", false},
    {"BigCodeBench/169", "test imports skimage (not in libs, not installed)",
     "No module named 'skimage'", false},
    {"BigCodeBench/196", "matplotlib/seaborn version: bar container datavalues differ",
     "ax.containers[0].datavalues", false},
    {"BigCodeBench/236", FAKER, false},
    {"BigCodeBench/238", FAKER, false},
    {"BigCodeBench/270", FAKER, true},
    {"BigCodeBench/276", "scipy version: skew of the test's data is NaN", "np.isnan(skew)", false},
    {"BigCodeBench/286", FAKER, false},
    {"BigCodeBench/287", FAKER, false},
    {"BigCodeBench/292", FAKER, false},
    {"BigCodeBench/295", FAKER, false},
    {"BigCodeBench/300", FAKER, false},
    {"BigCodeBench/302", "installed pandas does not raise the ValueError the test expects",
     "ValueError not raised", false},
    {"BigCodeBench/307", MPL36, "AxesSubplot", false},
    {"BigCodeBench/313", FAKER, false},
    {"BigCodeBench/323", "scikit-learn version: the mixture's fitted means differ",
     "within 2 places", false},
    {"BigCodeBench/337", FAKER, false},
    {"BigCodeBench/347", FAKER, false},
    {"BigCodeBench/392", FAKER, false},
    {"BigCodeBench/422", "scikit-learn version: train_test_split raises another error",
     "test_size=-999", false},
    {"BigCodeBench/699", "scikit-learn version: KMeans labels differ", "labels[0], 0", false},
    {"BigCodeBench/719", "test imports pyfakefs (not installed)", "No module named 'pyfakefs'",
     true},
    {"BigCodeBench/764", FAKER, false},
    {"BigCodeBench/778", FAKER, false},
    {"BigCodeBench/780", "pandas version: a grouped column's dtype differs", "are different",
     false},
    {"BigCodeBench/786", FAKER, false},
    {"BigCodeBench/788", FAKER, false},
    {"BigCodeBench/790", FAKER, false},
    {"BigCodeBench/792", FAKER, false},
    {"BigCodeBench/797", FAKER, false},
    {"BigCodeBench/799", FAKER, false},
    {"BigCodeBench/805", FAKER, false},
    {"BigCodeBench/807", FAKER, false},
    {"BigCodeBench/815", FAKER, false},
    {"BigCodeBench/826", FAKER, false},
    {"BigCodeBench/829", FAKER, false},
    {"BigCodeBench/830", FAKER, false},
    {"BigCodeBench/831", FAKER, false},
    {"BigCodeBench/839", FAKER, false},
    {"BigCodeBench/848", FAKER, false},
    {"BigCodeBench/865", FAKER, false},
    {"BigCodeBench/866", FAKER, false},
    {"BigCodeBench/873", FAKER, false},
    {"BigCodeBench/878", FAKER, false},
    {"BigCodeBench/880", "scikit-learn version: KMeans labels differ", "assert_equal(labels",
     false},
    {"BigCodeBench/884", FAKER, false},
    {"BigCodeBench/1058", "seaborn 0.12's countplot has no legend= parameter",
     "unexpected keyword argument 'legend'", false},
};
#define NEXCLUDED (sizeof bcb_excluded / sizeof bcb_excluded[0])

static int bcb_excluded_at(const char *task)
{
	for (size_t i = 0; i < NEXCLUDED; i++)
		if (streq(task, bcb_excluded[i].task))
			return (int)i;
	return -1;
}

static const char *bcb_exclusion(const char *task)
{
	int i = bcb_excluded_at(task);
	return i >= 0 ? bcb_excluded[i].feedback : NULL;
}

/* The libs field is a Python list literal: every quoted name must be allowed. */
static bool bcb_libs_importable(const char *libs)
{
	const char *p = libs;
	int names = 0;
	while (p && *p) {
		const char *q = strpbrk(p, "'\"");
		if (!q)
			break;
		const char *e = strchr(q + 1, *q);
		if (!e)
			return false;
		bool ok = false;
		for (int i = 0; bcb_libs_ok[i]; i++)
			if (strlen(bcb_libs_ok[i]) == (size_t)(e - q - 1) &&
			    strncmp(bcb_libs_ok[i], q + 1, (size_t)(e - q - 1)) == 0)
				ok = true;
		if (!ok)
			return false;
		names++;
		p = e + 1;
	}
	return names > 0;
}

/* The distinct test* method names of the TestCases class body (a crude
 * reading of the source: `    def test...(` lines until the next top-level
 * statement; a name defined twice is one method, as Python sees it). */
static size_t count_test_methods(const char *tests)
{
	const char *p = strstr(tests, "class TestCases");
	char names[256][128];
	size_t n = 0;
	if (!p || (p != tests && p[-1] != '\n'))
		return 0;
	for (p = strchr(p, '\n'); p && *p; p = strchr(p, '\n')) {
		p++;
		if (*p && !strchr(" \t\r\n#", *p))
			break; /* the class body ended */
		if (strncmp(p, "    def test", 12) != 0)
			continue;
		size_t len = strcspn(p + 8, "( :\n");
		if (len >= sizeof names[0])
			continue;
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = strlen(names[i]) == len && strncmp(names[i], p + 8, len) == 0;
		if (!seen && n < 256) {
			memcpy(names[n], p + 8, len);
			names[n++][len] = '\0';
		}
	}
	return n;
}

#define BCB_PICK 40
#define BCB_STRIDE 22 /* spread the picks over the eligible tasks (~890) */
#define BCB_MUTANTS 10

START_TEST(test_bigcodebench)
{
	NEED_DATASET("BigCodeBench.jsonl.gz");
	size_t n;
	json_t **tasks = tds_load_jsonl_gz("BigCodeBench.jsonl.gz", &n);
	ck_assert_msg(n >= 1000, "BigCodeBench has %zu tasks", n);
	/* Every BCB_STRIDE-th eligible task (from the second), and the
	 * excluded tasks marked `run`, BCB_PICK in all. */
	json_t *picked[BCB_PICK];
	size_t np = 0, eligible = 0, nrun = 0, nstride = 0;
	for (size_t i = 0; i < NEXCLUDED; i++)
		nrun += bcb_excluded[i].run;
	for (size_t i = 0; i < n; i++) {
		const char *tid = sget(tasks[i], "task_id");
		int x = bcb_excluded_at(tid);
		if (!bcb_libs_importable(sget0(tasks[i], "libs")))
			continue;
		bool take = x >= 0 ? bcb_excluded[x].run
				   : eligible % BCB_STRIDE == 1 && nstride < BCB_PICK - nrun;
		nstride += take && x < 0;
		eligible++;
		if (take && np < BCB_PICK)
			picked[np++] = tasks[i];
	}
	ck_assert_msg(np >= BCB_PICK, "only %zu tasks picked of %zu eligible", np, eligible);

	/* Picked tasks that need a library this machine lacks are not run (and
	 * the test ends in a skip that names them, so it never passes as if
	 * they had). The picks stay those of a complete machine: each was
	 * checked there, and the exclusions above are for them. */
	bool missing[NTHIRD];
	char libs_why[1024];
	size_t nmissing = bcb_probe_libs(missing, libs_why, sizeof libs_why);
	struct sb dropped = {0}, missing_names = {0};
	size_t ndropped = 0, elig_needing = 0;
	if (nmissing > 0) {
		for (size_t i = 0; i < NTHIRD; i++)
			if (missing[i])
				sb_add(&missing_names, "%s%s", missing_names.len ? ", " : "",
				       bcb_third_party[i]);
		for (size_t i = 0; i < n; i++)
			elig_needing += bcb_libs_importable(sget0(tasks[i], "libs")) &&
					bcb_needs_missing(tasks[i], missing);
		size_t keep = 0;
		for (size_t i = 0; i < np; i++) {
			const char *lib = bcb_needs_missing(picked[i], missing);
			if (lib) {
				sb_add(&dropped, "%s%s (%s)", ndropped ? ", " : "",
				       sget(picked[i], "task_id"), lib);
				ndropped++;
			} else {
				picked[keep++] = picked[i];
			}
		}
		np = keep;
		fprintf(stderr,
			"bigcodebench: %zu of %zu picked tasks dropped (%zu of %zu eligible need "
			"%s): %s\n",
			ndropped, np + ndropped, elig_needing, eligible, sb_str(&missing_names),
			sb_str(&dropped));
	}
	if (np == 0) {
		char msg[2048];
		snprintf(
		    msg, sizeof msg,
		    "no picked BigCodeBench task can run: %zu of %zu eligible tasks need %s, %s",
		    elig_needing, eligible, sb_str(&missing_names), libs_why);
		free(dropped.s);
		free(missing_names.s);
		tds_free_all(tasks, n);
		SKIP_TEST("%s", msg);
	}

	struct test_daemon d;
	START(d, "--workers", "2");
	json_t **reqs = calloc(np, sizeof *reqs), **resps = calloc(np, sizeof *resps);
	for (size_t i = 0; i < np; i++) {
		char id[64];
		struct sb code = {0};
		snprintf(id, sizeof id, "bcb-%s", sget(picked[i], "task_id"));
		sb_add(&code, "%s%s", sget(picked[i], "code_prompt"),
		       sget(picked[i], "canonical_solution"));
		reqs[i] = ut(id, sb_str(&code), sget(picked[i], "test"));
		lim(lim(lim(reqs[i], L_CPU_MS, 60000), L_WALL_MS, 120000), L_MEMORY_MB, 2048);
		free(code.s);
	}
	run_batch(&d, reqs, resps, np);
	struct sb bad = {0};
	size_t nbad = 0, nexcluded = 0;
	for (size_t i = 0; i < np; i++) {
		json_t *r = resps[i];
		const char *tid = sget(picked[i], "task_id"), *why = bcb_exclusion(tid);
		size_t methods = count_test_methods(sget(picked[i], "test"));
		CHECK_RM(r, methods >= 1, "%s: no test method found in its TestCases", tid);
		CHECK_RM(r, summary(r, S_TOTAL) == (json_int_t)methods,
			 "%s: summary.total is %lld, the TestCases source has %zu test methods",
			 tid, (long long)summary(r, S_TOTAL), methods);
		CHECK_RM(r, streq(compilation(r), "No syntax errors"), "%s", tid);
		if (why) {
			nexcluded++;
			/* Excluded: when it fails, it must be for the stated reason. */
			CHECK_RM(r, streq(verdict(r), "pass") || strstr(execution(r), why),
				 "%s (excluded) failed, but not for the stated reason (\"%s\")",
				 tid, why);
			continue;
		}
		if (!streq(verdict(r), "pass")) {
			nbad++;
			sb_add(&bad, "\n%s (%s, %s): %.600s", tid, verdict(r), sget0(r, R_MESSAGE),
			       execution(r));
		} else {
			CHECK_RM(
			    r, summary(r, S_PASSED) + summary(r, S_SKIPPED) == (json_int_t)methods,
			    "%s", tid);
			CHECK_RM(r, streq(execution(r), "Passed all test runs"), "%s", tid);
		}
	}
	fprintf(stderr, "bigcodebench: %zu tasks run (%zu eligible), %zu excluded\n", np, eligible,
		nexcluded);
	ck_assert_msg(nbad == 0, "%zu of %zu BigCodeBench canonical solutions did not pass:%s",
		      nbad, np - nexcluded, sb_cut(&bad, 20000));
	free(bad.s);
	tds_free_all(resps, np);
	resps = calloc(BCB_MUTANTS, sizeof *resps);

	/* Mutants: the body replaced by a stub; each must fail, with a
	 * traceback through solution.py. */
	json_t *mreqs[BCB_MUTANTS];
	size_t nm = 0;
	for (size_t i = 0; i < np && nm < BCB_MUTANTS; i += 3) {
		if (bcb_exclusion(sget(picked[i], "task_id")))
			continue;
		char id[64];
		struct sb code = {0};
		snprintf(id, sizeof id, "bcb-mut-%s", sget(picked[i], "task_id"));
		sb_add(&code, "%s%s", sget(picked[i], "code_prompt"),
		       nm % 2 ? "    raise NotImplementedError\n" : "    return None\n");
		mreqs[nm] = ut(id, sb_str(&code), sget(picked[i], "test"));
		lim(lim(lim(mreqs[nm], L_CPU_MS, 60000), L_WALL_MS, 120000), L_MEMORY_MB, 2048);
		free(code.s);
		nm++;
	}
	if (ndropped == 0)
		ck_assert_uint_eq(nm, BCB_MUTANTS);
	run_batch(&d, mreqs, resps, nm);
	for (size_t i = 0; i < nm; i++) {
		json_t *r = resps[i];
		const char *id = sget(mreqs[i], F_ID);
		CHECK_RM(r, streq(verdict(r), "fail"), "%s", id);
		bool traced = false;
		for (size_t t = 0; t < ntests(r); t++) {
			const char *o = outcome(r, t);
			if ((streq(o, "failed") || streq(o, "error")) &&
			    strstr(sget0(test_at(r, t), T_TRACEBACK), "File \"solution.py\""))
				traced = true;
		}
		CHECK_RM(r, traced, "%s: no failing test with a solution.py traceback", id);
		CHECK_RM(r, summary(r, S_FAILED) + summary(r, S_ERRORS) >= 1, "%s", id);
		json_decref(mreqs[i]);
	}
	tds_free_all(resps, nm);
	tds_free_all(reqs, np);
	tds_free_all(tasks, n);
	stop_ok(&d);
	char msg[2048];
	snprintf(msg, sizeof msg,
		 "ran %zu of %zu picked tasks and %zu mutants; %zu not run, they need %s (%zu of "
		 "%zu eligible tasks do; %s): %s",
		 np, np + ndropped, nm, ndropped, sb_str(&missing_names), elig_needing, eligible,
		 libs_why, sb_cut(&dropped, 400));
	free(dropped.s);
	free(missing_names.s);
	if (ndropped > 0)
		SKIP_TEST("%s", msg);
}
END_TEST

static Suite *daemon_bigcodebench_suite(void)
{
	Suite *s = suite_create("daemon_bigcodebench");
	TCase *t = tmain_tcase(s, "datasets", 300);
	tcase_add_test(t, test_bigcodebench);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-feedback", .max_msg = 64 * 1024};
	return tmain(daemon_bigcodebench_suite, &opts);
}
