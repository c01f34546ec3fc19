/* Integration tests of structured test feedback ("test requests"): a real
 * sandboxd (tests/helpers/daemon.c starts one per test) runs candidates
 * against unittest, humaneval, asserts and stdio suites, including the public
 * benchmark data in ../shared/datasets (HumanEval, BigCodeBench, a
 * CodeContests sample; read in place, never copied), and the assertions are
 * on the response's compile / tests / summary / feedback / integrity fields
 * and on the verdict rules of docs/protocol.md.
 *
 * Run as root from the repository root (make integration), SBX_BUILD naming
 * the build directory. SBX_DATASETS overrides the dataset directory. */
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
#include <zlib.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"

#define CALL_MS 60000	/* how long one ordinary response may take */
#define BATCH_MS 180000 /* how long one response of a dataset batch may take */
#define WINDOW 6	/* requests in flight on a batch connection (2 workers) */

/* A string field, "" when missing (for strstr). */
static const char *sget0(const json_t *o, const char *k)
{
	const char *s = sget(o, k);
	return s ? s : "";
}

static const char *sget2(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

static bool starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *verdict(const json_t *r)
{
	return sget(r, R_VERDICT);
}

static const char *execution(const json_t *r)
{
	const char *s = sget2(r, R_FEEDBACK, FB_EXECUTION);
	return s ? s : "";
}

static const char *compilation(const json_t *r)
{
	const char *s = sget2(r, R_FEEDBACK, FB_COMPILATION);
	return s ? s : "";
}

static size_t ntests(const json_t *r)
{
	return json_array_size(json_object_get(r, R_TESTS));
}

static json_t *test_at(const json_t *r, size_t i)
{
	return json_array_get(json_object_get(r, R_TESTS), i);
}

static const char *outcome(const json_t *r, size_t i)
{
	return sget(test_at(r, i), T_OUTCOME);
}

static const char *tname(const json_t *r, size_t i)
{
	return sget(test_at(r, i), T_NAME);
}

static json_int_t summary(const json_t *r, const char *k)
{
	return iget2(r, R_SUMMARY, k);
}

/* The outcomes of all tests, in order, as "passed,failed,...". */
static void outcomes(const json_t *r, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ntests(r) && used < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s", i ? "," : "",
				 outcome(r, i) ? outcome(r, i) : "?");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

#define CHECK_OUTCOMES(r, want)                                                                    \
	do {                                                                                       \
		char got_[512];                                                                    \
		outcomes((r), got_, sizeof got_);                                                  \
		CHECK_RM((r), strcmp(got_, (want)) == 0, "outcomes are %s, expected %s", got_,     \
			 (want));                                                                  \
	} while (0)

/* A growing string for messages and code. */
struct sb {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		ck_assert_ptr_nonnull(b->s);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static const char *sb_str(struct sb *b)
{
	return b->s ? b->s : "";
}

/* sb_str, cut to at most max bytes so an assertion message stays bounded. */
static const char *sb_cut(struct sb *b, size_t max)
{
	if (b->s && b->len > max && max > 16) {
		strcpy(b->s + max - 16, " ...[cut]");
		b->len = strlen(b->s);
	}
	return sb_str(b);
}

/* --- daemon and connection helpers --------------------------------------- */

static json_t *run1(const struct test_daemon *d, json_t *req)
{
	struct sbx_conn *c = conn_open(d);
	json_t *r = call(c, req, CALL_MS);
	sbx_close(c);
	return r;
}

/* A test request; tests is stolen (a string or an array). */
static json_t *treq(const char *id, const char *code, const char *format, json_t *tests)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:o}", F_ID, id, F_CODE, code, F_FORMAT, format,
			      F_TESTS, tests);
	ck_assert_ptr_nonnull(o);
	return o;
}

static json_t *ut(const char *id, const char *code, const char *tests)
{
	return treq(id, code, "unittest", json_string(tests));
}

static json_t *set_str(json_t *req, const char *k, const char *v)
{
	json_object_set_new(req, k, json_string(v));
	return req;
}

static json_t *set_int(json_t *req, const char *k, json_int_t v)
{
	json_object_set_new(req, k, json_integer(v));
	return req;
}

/* Runs n requests (each with a unique id; not consumed) on one connection,
 * at most WINDOW in flight so both workers stay busy and the queue never
 * fills; resps[i] answers reqs[i]. */
static void run_batch(const struct test_daemon *d, json_t **reqs, json_t **resps, size_t n)
{
	char err[512];
	struct sbx_conn *c = conn_open(d);
	size_t next = 0;
	for (; next < n && next < WINDOW; next++)
		ck_assert_msg(sbx_submit(c, reqs[next], err, sizeof err) == 0, "submit: %s", err);
	for (size_t i = 0; i < n; i++) {
		const char *id = sget(reqs[i], F_ID);
		resps[i] = sbx_wait(c, id, BATCH_MS, err, sizeof err);
		ck_assert_msg(resps[i] != NULL, "no response to %s: %s", id, err);
		ck_assert_msg(!json_object_get(resps[i], R_ERROR), "request %s answered %s", id,
			      dump(resps[i]));
		if (next < n) {
			ck_assert_msg(sbx_submit(c, reqs[next], err, sizeof err) == 0, "submit: %s",
				      err);
			next++;
		}
	}
	sbx_close(c);
}

static void free_all(json_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(v[i]);
	free(v);
}

/* --- datasets ------------------------------------------------------------ */

static const char *dataset_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("SBX_DATASETS");
	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "../shared/datasets", name);
	return path;
}

/* A data set that is not there is a skip naming its path, never a failure. */
#define NEED_DATASET(name)                                                                         \
	do {                                                                                       \
		const char *p_ = dataset_path(name);                                               \
		if (access(p_, R_OK) < 0)                                                          \
			SKIP_TEST("data set %s not readable: %s (SBX_DATASETS=DIR names the "      \
				  "directory that holds the data sets)",                           \
				  p_, strerror(errno));                                            \
	} while (0)

/* Every line of a .jsonl.gz as a JSON object. */
static json_t **load_jsonl_gz(const char *name, size_t *count)
{
	const char *path = dataset_path(name);
	gzFile f = gzopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open dataset %s: %s (run from the repository root)", path,
		      strerror(errno));
	size_t n = 0, cap = 0, len = 0, lcap = 1 << 16;
	json_t **out = NULL;
	char *line = malloc(lcap);
	ck_assert_ptr_nonnull(line);
	for (;;) {
		if (lcap - len < 2) {
			lcap *= 2;
			line = realloc(line, lcap);
			ck_assert_ptr_nonnull(line);
		}
		char *got = gzgets(f, line + len, (int)(lcap - len));
		if (got)
			len += strlen(line + len);
		bool eol = len > 0 && line[len - 1] == '\n';
		if (!got || eol) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				len--;
			if (len > 0) {
				json_error_t je;
				json_t *o = json_loadb(line, len, 0, &je);
				ck_assert_msg(json_is_object(o), "%s record %zu: %s", path, n + 1,
					      je.text);
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					out = realloc(out, cap * sizeof *out);
					ck_assert_ptr_nonnull(out);
				}
				out[n++] = o;
			}
			len = 0;
			if (!got)
				break;
		}
	}
	int errnum = 0;
	const char *gerr = gzerror(f, &errnum);
	ck_assert_msg(errnum == Z_OK || errnum == Z_BUF_ERROR, "reading %s: %s", path, gerr);
	gzclose(f);
	free(line);
	*count = n;
	return out;
}

/* A line of the text that is white space and then `assert `. */
static bool has_assert_line(const char *s)
{
	for (const char *p = s; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		p += strspn(p, " \t");
		if (starts(p, "assert "))
			return true;
	}
	return false;
}

/* --- 1. HumanEval --------------------------------------------------------- */

START_TEST(test_humaneval_all)
{
	NEED_DATASET("HumanEval.jsonl.gz");
	size_t n;
	json_t **tasks = load_jsonl_gz("HumanEval.jsonl.gz", &n);
	ck_assert_msg(n == 164, "HumanEval has %zu tasks, expected 164", n);
	struct test_daemon d;
	START(d, "--workers", "2");

	/* The canonical solutions all pass. */
	json_t **reqs = calloc(n, sizeof *reqs), **resps = calloc(n, sizeof *resps);
	for (size_t i = 0; i < n; i++) {
		char id[32];
		struct sb code = {0};
		snprintf(id, sizeof id, "he-good-%zu", i);
		sb_add(&code, "%s%s", sget(tasks[i], "prompt"),
		       sget(tasks[i], "canonical_solution"));
		reqs[i] = treq(id, sb_str(&code), "humaneval", json_string(sget(tasks[i], "test")));
		set_str(reqs[i], F_ENTRY_POINT, sget(tasks[i], "entry_point"));
		set_str(reqs[i], F_COVERAGE, "full");
		free(code.s);
	}
	run_batch(&d, reqs, resps, n);
	struct sb bad = {0};
	size_t nbad = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *r = resps[i];
		if (!streq(verdict(r), "pass")) {
			nbad++;
			sb_add(&bad, " %s (%s: %.200s)", sget(tasks[i], "task_id"), verdict(r),
			       execution(r));
		}
		CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "check"));
		CHECK_R(r, summary(r, S_TOTAL) == 1);
		CHECK_R(r, json_is_true(json_object_get(json_object_get(r, R_COMPILE), C_OK)));
		CHECK_R(r, streq(compilation(r), "No syntax errors"));
		if (streq(verdict(r), "pass"))
			CHECK_R(r, streq(execution(r), "Passed all test runs"));
	}
	ck_assert_msg(nbad == 0, "%zu of %zu canonical HumanEval solutions did not pass:%s", nbad,
		      n, sb_cut(&bad, 20000));
	free(bad.s);
	free_all(reqs, n);
	free_all(resps, n);

	/* A stub that returns None: (nearly) every task fails, with feedback. */
	reqs = calloc(n, sizeof *reqs);
	resps = calloc(n, sizeof *resps);
	for (size_t i = 0; i < n; i++) {
		char id[32];
		struct sb code = {0};
		snprintf(id, sizeof id, "he-none-%zu", i);
		sb_add(&code, "%s    return None\n", sget(tasks[i], "prompt"));
		reqs[i] = treq(id, sb_str(&code), "humaneval", json_string(sget(tasks[i], "test")));
		set_str(reqs[i], F_ENTRY_POINT, sget(tasks[i], "entry_point"));
		set_str(reqs[i], F_COVERAGE, "full");
		free(code.s);
	}
	run_batch(&d, reqs, resps, n);
	size_t nfail = 0, npass = 0, nother = 0;
	struct sb passed = {0}, other = {0};
	for (size_t i = 0; i < n; i++) {
		json_t *r = resps[i];
		const char *tid = sget(tasks[i], "task_id"), *e = execution(r);
		CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "check"));
		if (streq(verdict(r), "fail")) {
			nfail++;
			CHECK_R(r, streq(outcome(r, 0), "failed") || streq(outcome(r, 0), "error"));
			CHECK_RM(r, starts(e, "check\n"), "%s: execution feedback", tid);
			CHECK_RM(r, strstr(e, "Traceback (most recent call last):"),
				 "%s: no traceback", tid);
			CHECK_RM(r, has_assert_line(e), "%s: no assert line in the feedback", tid);
			CHECK_RM(r, strstr(e, "File \"solution.py\", line "),
				 "%s: no solution.py frame", tid);
			CHECK_R(r, summary(r, S_PASSED) == 0 && summary(r, S_TOTAL) == 1);
		} else if (streq(verdict(r), "pass")) {
			npass++;
			sb_add(&passed, " %s", tid);
			/* Legitimate only if the reference harness passes it too:
			 * prompt + stub + test + check(entry_point), one process. */
			struct sb prog = {0};
			sb_add(&prog, "%s    return None\n\n%s\ncheck(%s)\n",
			       sget(tasks[i], "prompt"), sget(tasks[i], "test"),
			       sget(tasks[i], "entry_point"));
			json_t *pr = run1(
			    &d, json_pack("{s:s,s:s}", F_ID, "he-plain", F_CODE, sb_str(&prog)));
			CHECK_RM(pr, streq(verdict(pr), "pass"),
				 "%s passed as a test request with a None stub, but its check() "
				 "fails in a plain run",
				 tid);
			json_decref(pr);
			free(prog.s);
		} else {
			nother++;
			sb_add(&other, " %s (%s)", tid, verdict(r));
		}
	}
	fprintf(stderr, "humaneval: None stub: %zu fail, %zu pass%s%s\n", nfail, npass,
		npass ? ":" : "", sb_str(&passed));
	ck_assert_msg(nother == 0, "None stubs with a verdict other than fail/pass:%s",
		      sb_cut(&other, 20000));
	ck_assert_msg(nfail >= 150, "only %zu of %zu None stubs failed (passed:%s)", nfail, n,
		      sb_cut(&passed, 20000));
	free(passed.s);
	free(other.s);
	free_all(reqs, n);
	free_all(resps, n);
	free_all(tasks, n);
	stop_ok(&d);
}
END_TEST

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

/* The interpreter of the default profile (what the jail runs), from the
 * policies directory beside the build directory. */
static const char *jail_python(void)
{
	static char py[PATH_MAX];
	const char *b = getenv("SBX_BUILD");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/../policies/python.json", b && *b ? b : "build");
	json_t *p = json_load_file(path, 0, NULL);
	const char *i = json_string_value(json_object_get(p, "interpreter"));
	snprintf(py, sizeof py, "%s", i && *i ? i : "/usr/bin/python3");
	json_decref(p);
	return py;
}

/* Marks the bcb_third_party modules the interpreter cannot import; returns
 * how many, with their import errors in why. */
static size_t bcb_probe_libs(bool missing[NTHIRD], char *why, size_t len)
{
	const char *py = jail_python();
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
	json_t **tasks = load_jsonl_gz("BigCodeBench.jsonl.gz", &n);
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
		free_all(tasks, n);
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
	free_all(resps, np);
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
	free_all(resps, nm);
	free_all(reqs, np);
	free_all(tasks, n);
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

/* --- 3. CodeContests ------------------------------------------------------ */

#define CC_CASES 10 /* cases per problem (each case is its own run) */

/* Expected output that is only white space: an empty answer matches it. */
static bool blank(const char *s)
{
	return s && s[strspn(s, " \t\r\n")] == '\0';
}

START_TEST(test_codecontests)
{
	NEED_DATASET("code_contests_sample.jsonl.gz");
	size_t n;
	json_t **probs = load_jsonl_gz("code_contests_sample.jsonl.gz", &n);
	ck_assert_msg(n >= 19, "the CodeContests sample has %zu problems", n);
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t **cases = calloc(n, sizeof *cases);
	json_t **reqs = calloc(3 * n, sizeof *reqs), **resps = calloc(3 * n, sizeof *resps);
	for (size_t p = 0; p < n; p++) {
		json_error_t je;
		json_t *all = json_loads(sget0(probs[p], "test"), 0, &je);
		ck_assert_msg(json_is_array(all) && json_array_size(all) > 0,
			      "problem %zu: test is not a JSON array: %s", p, je.text);
		cases[p] = json_array();
		for (size_t i = 0; i < json_array_size(all) && i < CC_CASES; i++) {
			json_t *c = json_array_get(all, i);
			const char *in = sget(json_object_get(c, "input"), "stdin");
			const char *out = sget(json_object_get(c, "output"), "stdout");
			ck_assert_msg(in && out, "problem %zu case %zu: no stdin/stdout", p, i);
			json_array_append_new(
			    cases[p], json_pack("{s:s,s:s}", F_CASE_INPUT, in, F_CASE_OUTPUT, out));
		}
		json_decref(all);
		char id[64];
		snprintf(id, sizeof id, "cc-%zu-empty", p);
		reqs[3 * p] =
		    treq(id, "import sys\nsys.stdin.read()\n", "stdio", json_deep_copy(cases[p]));
		snprintf(id, sizeof id, "cc-%zu-partial", p);
		reqs[3 * p + 1] =
		    treq(id, "import sys\nsys.stdin.read()\n", "stdio", json_deep_copy(cases[p]));
		set_str(reqs[3 * p + 1], F_COVERAGE, "partial");
		set_int(reqs[3 * p + 1], F_PARTIAL_TESTS, 1);
		snprintf(id, sizeof id, "cc-%zu-syntax", p);
		reqs[3 * p + 2] = treq(id, "import sys\nprint('RAN')\nprint(sys.stdin.read(\n",
				       "stdio", json_deep_copy(cases[p]));
	}
	run_batch(&d, reqs, resps, 3 * n);
	for (size_t p = 0; p < n; p++) {
		size_t nc = json_array_size(cases[p]);
		size_t first_bad = 0; /* 1-based number of the first non-blank case */
		/* Prints nothing: every case with a non-blank answer is a wrong answer. */
		json_t *r = resps[3 * p];
		CHECK_RM(r, streq(verdict(r), "fail"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == nc, "problem %zu: %zu cases sent", p, nc);
		for (size_t i = 0; i < nc; i++) {
			char name[32];
			snprintf(name, sizeof name, "case %zu", i + 1);
			json_t *t = test_at(r, i);
			CHECK_RM(r, streq(sget(t, T_NAME), name), "problem %zu %s", p, name);
			if (blank(sget(json_array_get(cases[p], i), F_CASE_OUTPUT))) {
				CHECK_RM(r, streq(sget(t, T_OUTCOME), "passed"),
					 "problem %zu %s expects only blank output", p, name);
				continue;
			}
			if (!first_bad)
				first_bad = i + 1;
			CHECK_RM(r, streq(sget(t, T_OUTCOME), "failed"), "problem %zu %s", p, name);
			CHECK_RM(r, streq(sget(t, T_MESSAGE), "wrong answer"), "problem %zu %s", p,
				 name);
			CHECK_RM(r, starts(sget(t, T_TRACEBACK), "Input:\n"), "problem %zu %s", p,
				 name);
		}
		ck_assert_msg(first_bad > 0, "problem %zu: every case expects blank output", p);
		char want[64];
		snprintf(want, sizeof want, "case %zu\nInput:\n", first_bad);
		CHECK_RM(r, starts(execution(r), want),
			 "problem %zu: feedback should start with %s", p, want);
		CHECK_R(r, strstr(execution(r), "Expected output:\n"));
		CHECK_R(r, summary(r, S_TOTAL) == (json_int_t)nc);

		/* partial_tests 1: only case 1 is shown. */
		r = resps[3 * p + 1];
		CHECK_RM(r, streq(verdict(r), "fail"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == nc, "problem %zu", p);
		if (first_bad == 1) {
			CHECK_RM(r, starts(execution(r), "case 1\nInput:\n"), "problem %zu", p);
			CHECK_RM(r, !strstr(execution(r), "\n\ncase "),
				 "problem %zu: more than case 1 shown", p);
		} else {
			CHECK_RM(r, streq(execution(r), "Passed all test runs"), "problem %zu", p);
		}

		/* A syntax error: compile_error, and no case ran. */
		r = resps[3 * p + 2];
		CHECK_RM(r, streq(verdict(r), "compile_error"), "problem %zu", p);
		CHECK_RM(r, ntests(r) == 0 && summary(r, S_TOTAL) == 0, "problem %zu", p);
		CHECK_R(r, json_is_false(json_object_get(json_object_get(r, R_COMPILE), C_OK)));
		CHECK_R(r, iget(json_array_get(
				    json_object_get(json_object_get(r, R_COMPILE), C_ERRORS), 0),
				C_LINE) == 3);
		CHECK_R(r, streq(sget0(r, R_STDOUT), ""));
		CHECK_R(r, streq(execution(r), ""));
		CHECK_RM(r,
			 iget2(r, R_USAGE, U_WALL_MS) >= 0 && iget2(r, R_USAGE, U_WALL_MS) < 3000,
			 "problem %zu: usage of one compile run expected", p);
	}
	fprintf(stderr, "codecontests: %zu problems, up to %d cases each\n", n, CC_CASES);
	free_all(reqs, 3 * n);
	free_all(resps, 3 * n);
	free_all(cases, n);
	free_all(probs, n);
	stop_ok(&d);
}
END_TEST

/* --- 4. compile feedback --------------------------------------------------- */

START_TEST(test_compile_feedback)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	struct sb tests = {0};
	sb_add(&tests, "import unittest\n\n\nclass TestCases(unittest.TestCase):\n");
	for (int i = 0; i < 13; i++)
		sb_add(&tests, "    def test_%d(self):\n        self.assertEqual(f(%d), %d)\n", i,
		       i, i);
	sb_add(&tests, "\n");
	json_t *r =
	    run1(&d, ut("syntax", "print(\"RAN\")\nx = 1\ndef f(x) return x\n", sb_str(&tests)));
	json_t *comp = json_object_get(r, R_COMPILE);
	json_t *e0 = json_array_get(json_object_get(comp, C_ERRORS), 0);
	CHECK_R(r, streq(verdict(r), "compile_error"));
	CHECK_R(r, json_is_false(json_object_get(comp, C_OK)));
	CHECK_R(r, json_is_object(e0));
	CHECK_R(r, iget(e0, C_LINE) == 3);
	CHECK_R(r, iget(e0, C_COLUMN) == 10);
	CHECK_R(r, streq(sget(e0, C_TEXT), "def f(x) return x"));
	CHECK_R(r, streq(sget(e0, C_TYPE), "SyntaxError"));
	CHECK_R(r, strlen(sget0(e0, T_MESSAGE)) > 0);
	const char *c = compilation(r);
	CHECK_R(r, strstr(c, "File \"solution.py\", line 3"));
	CHECK_R(r, strstr(c, "\n    def f(x) return x\n"));
	/* A caret line: only white space and at least one '^'. */
	bool caret = false;
	for (const char *p = c; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		size_t sp = strspn(p, " "), car = strspn(p + sp, "^");
		if (car > 0 && (p[sp + car] == '\n' || p[sp + car] == '\0'))
			caret = true;
	}
	CHECK_R(r, caret);
	CHECK_R(r, strstr(c, "SyntaxError: "));
	CHECK_R(r, ntests(r) == 0 && summary(r, S_TOTAL) == 0);
	CHECK_R(r, streq(execution(r), ""));
	/* Never executed: the print before the bad line did not run. */
	CHECK_R(r, streq(sget(r, R_STDOUT), ""));
	CHECK_R(r, streq(sget0(r, R_MESSAGE), ""));
	json_decref(r);

	/* The same tests with the line fixed: 13 tests, all pass (the suite itself is sound). */
	r = run1(&d, ut("fixed", "print(\"RAN\")\nx = 1\ndef f(x): return x\n", sb_str(&tests)));
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, summary(r, S_TOTAL) == 13 && summary(r, S_PASSED) == 13);
	CHECK_R(r, streq(sget(r, R_STDOUT), "RAN\n"));
	CHECK_R(r, streq(compilation(r), "No syntax errors"));
	json_decref(r);
	free(tests.s);
	stop_ok(&d);
}
END_TEST

/* --- 5. coverage ------------------------------------------------------------ */

/* Five tests, in source order test_e, test_d, test_c, test_b, test_a (the
 * reverse of unittest's alphabetical order), after setUp and a helper. */
static char *five_tests(bool first_fails)
{
	struct sb s = {0};
	sb_add(&s,
	       "import unittest\n\nclass TestCases(unittest.TestCase):\n"
	       "    def setUp(self):\n        self.base = 0\n\n"
	       "    def helper(self, x):\n        return f(x) + self.base\n\n"
	       "    def test_e(self):\n        self.assertEqual(self.helper(1), %d)\n\n"
	       "    def test_d(self):\n        self.assertEqual(self.helper(2), 5)\n\n"
	       "    def test_c(self):\n        self.assertEqual(f(3), 3)\n\n"
	       "    def test_b(self):\n        self.assertEqual(f(4), 4)\n\n"
	       "    def test_a(self):\n        self.assertEqual(f(5), 0)\n",
	       first_fails ? 7 : 1);
	return s.s;
}

START_TEST(test_coverage)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *code = "def f(x):\n    return x\n";
	char *tests = five_tests(false), *tests1 = five_tests(true);
	json_t *reqs[6] = {
	    set_str(ut("cov-full", code, tests), F_COVERAGE, "full"),
	    set_str(ut("cov-partial", code, tests), F_COVERAGE, "partial"),
	    set_int(set_str(ut("cov-partial1", code, tests), F_COVERAGE, "partial"),
		    F_PARTIAL_TESTS, 1),
	    set_str(ut("cov-none", code, tests), F_COVERAGE, "none"),
	    ut("cov-default", code, tests),
	    set_int(set_str(ut("cov-first", code, tests1), F_COVERAGE, "partial"), F_PARTIAL_TESTS,
		    1),
	};
	json_t *resps[6];
	run_batch(&d, reqs, resps, 6);
	static const char *const order[] = {"test_e", "test_d", "test_c", "test_b", "test_a"};
	for (int i = 0; i < 6; i++) {
		json_t *r = resps[i];
		CHECK_R(r, streq(verdict(r), "fail"));
		CHECK_R(r, summary(r, S_TOTAL) == 5); /* setUp and helper are not tests */
		CHECK_R(r, ntests(r) == 5);
		for (size_t t = 0; t < 5 && t < ntests(r); t++)
			CHECK_RM(r, streq(tname(r, t), order[t]), "tests[%zu] should be %s", t,
				 order[t]);
	}
	for (int i = 0; i < 5; i++) {
		CHECK_OUTCOMES(resps[i], "passed,failed,passed,passed,failed");
		CHECK_R(resps[i], summary(resps[i], S_FAILED) == 2);
	}
	/* full (explicit and default): both failing tests, in source order. */
	for (int i = 0; i < 5; i += 4) {
		json_t *r = resps[i];
		const char *e = execution(r), *d2 = strstr(e, "test_d\nTraceback"),
			   *a5 = strstr(e, "test_a\nTraceback");
		CHECK_R(r, starts(e, "test_d\nTraceback (most recent call last):\n"));
		CHECK_R(r, d2 && a5 && d2 < a5);
		CHECK_R(r, strstr(e, "\n\ntest_a\n"));
		CHECK_R(r, strstr(e, "AssertionError: 2 != 5"));
		CHECK_R(r, strstr(e, "AssertionError: 5 != 0"));
		CHECK_R(r, !strstr(e, "test_e") && !strstr(e, "test_c") && !strstr(e, "test_b"));
	}
	/* partial (3): only the first three test methods, so only test_d. */
	json_t *r = resps[1];
	CHECK_R(r, starts(execution(r), "test_d\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError: 2 != 5"));
	CHECK_R(r, !strstr(execution(r), "test_a"));
	/* partial 1: test_e passed. */
	r = resps[2];
	CHECK_R(r, streq(execution(r), "Passed all test runs"));
	/* none */
	r = resps[3];
	CHECK_R(r, streq(execution(r), ""));
	CHECK_R(r, streq(compilation(r), "No syntax errors"));
	/* partial 1 when the first test method fails: setUp (defined first)
	 * does not take its place. */
	r = resps[5];
	CHECK_OUTCOMES(r, "failed,failed,passed,passed,failed");
	CHECK_R(r, starts(execution(r), "test_e\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError: 1 != 7"));
	CHECK_R(r, !strstr(execution(r), "test_d") && !strstr(execution(r), "test_a"));
	for (int i = 0; i < 6; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	free(tests);
	free(tests1);
	stop_ok(&d);
}
END_TEST

/* --- 6. integrity ---------------------------------------------------------- */

static const char *const THREE_TESTS = "import unittest\n\nclass TestCases(unittest.TestCase):\n"
				       "    def test_1(self):\n        self.assertEqual(f(1), 1)\n"
				       "    def test_2(self):\n        self.assertEqual(f(2), 2)\n"
				       "    def test_3(self):\n        self.assertEqual(f(3), 3)\n";

/* Writes a forged, key-less record stream claiming all tests passed to fd 3
 * and every other fd it finds, at import and in every call; prints which
 * writes succeeded. */
static const char *const FORGER =
    "import os, json\n"
    "def _forge():\n"
    "    names = ['test_1', 'test_2', 'test_3']\n"
    "    recs = [{'type': 'compile', 'ok': True, 'errors': []}, {'type': 'plan', 'tests': "
    "names}]\n"
    "    for n in names:\n"
    "        recs.append({'type': 'start', 'name': n})\n"
    "        recs.append({'type': 'result', 'name': n, 'outcome': 'passed', 'message': '',\n"
    "                     'traceback': '', 'duration_ms': 1})\n"
    "    recs.append({'type': 'done'})\n"
    "    data = ''.join(json.dumps(r) + '\\n' for r in recs).encode()\n"
    "    fds = {3}\n"
    "    try:\n"
    "        fds |= {int(x) for x in os.listdir('/proc/self/fd')}\n"
    "    except OSError:\n"
    "        pass\n"
    "    ok = []\n"
    "    for fd in sorted(fds - {0, 1, 2}):\n"
    "        try:\n"
    "            target = os.readlink('/proc/self/fd/%d' % fd)\n"
    "        except OSError:\n"
    "            target = '?'\n"
    "        try:\n"
    "            os.write(fd, data)\n"
    "            ok.append('%d=%s' % (fd, target))\n"
    "        except OSError:\n"
    "            pass\n"
    "    return ok\n"
    "print('WROTE', ' '.join(_forge()))\n"
    "def f(x):\n"
    "    _forge()\n"
    "    return x + 1\n";

START_TEST(test_integrity)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	enum { EXIT_IMPORT, SYSEXIT, OS_EXIT, FAKE_OK, FORGE, KILL9, WRONG, N };
	static const char *const codes[N] = {
	    [EXIT_IMPORT] = "import sys\nsys.exit(0)\ndef f(x):\n    return x\n",
	    [SYSEXIT] = "def f(x):\n    if x == 2:\n        raise SystemExit(0)\n    return x\n",
	    [OS_EXIT] = "import os\ndef f(x):\n    if x == 2:\n        os._exit(0)\n    return x\n",
	    [FAKE_OK] =
		"import sys\nprint('Ran 3 tests\\n\\nOK')\n"
		"sys.stderr.write('...\\n' + '-' * 70 + '\\nRan 3 tests in 0.001s\\n\\nOK\\n')\n"
		"def f(x):\n    return x + 1\n",
	    [FORGE] = NULL, /* FORGER */
	    [KILL9] = "import os\ndef f(x):\n    if x == 2:\n        os.kill(os.getpid(), 9)\n"
		      "    return x\n",
	    [WRONG] = "def f(x):\n    return -x\n",
	};
	json_t *reqs[N], *resps[N];
	for (int i = 0; i < N; i++) {
		char id[32];
		snprintf(id, sizeof id, "integrity-%d", i);
		reqs[i] = ut(id, codes[i] ? codes[i] : FORGER, THREE_TESTS);
	}
	run_batch(&d, reqs, resps, N);
	for (int i = 0; i < N; i++)
		CHECK_RM(resps[i], !streq(verdict(resps[i]), "pass"), "case %d must never pass", i);

	json_t *r = resps[EXIT_IMPORT];
	CHECK_R(r, streq(verdict(r), "runtime_error"));
	CHECK_R(r, summary(r, S_PASSED) == 0);
	CHECK_R(r, strstr(sget0(r, R_MESSAGE), "SystemExit"));

	r = resps[SYSEXIT];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "passed,error,passed");
	CHECK_R(r, strstr(sget0(test_at(r, 1), T_MESSAGE), "SystemExit"));

	r = resps[OS_EXIT];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "passed,error,error");
	CHECK_R(r, starts(sget(test_at(r, 2), T_MESSAGE), "not run"));

	r = resps[FAKE_OK];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, strstr(sget0(r, R_STDOUT), "Ran 3 tests")); /* printed, and ignored */
	CHECK_OUTCOMES(r, "failed,failed,failed");

	r = resps[FORGE];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "failed,failed,failed");
	CHECK_R(r, summary(r, S_PASSED) == 0);
	const char *wrote = strstr(sget0(r, R_STDOUT), "WROTE");
	CHECK_R(r, wrote != NULL);
	/* A forged line that reached a pipe is a rejected record. */
	CHECK_RM(r, iget2(r, R_INTEGRITY, I_BAD_RECORDS) >= 1 || !strstr(wrote, "=pipe:"),
		 "forged records reached a pipe (%.200s) but bad_records is %lld", wrote,
		 (long long)iget2(r, R_INTEGRITY, I_BAD_RECORDS));

	r = resps[KILL9];
	CHECK_R(r, streq(verdict(r), "fail") || streq(verdict(r), "runtime_error"));
	CHECK_R(r, streq(outcome(r, 0), "passed"));
	CHECK_R(r, !streq(outcome(r, 1), "passed") && !streq(outcome(r, 2), "passed"));

	r = resps[WRONG];
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "failed,failed,failed");
	CHECK_R(r, summary(r, S_FAILED) == 3);
	for (int i = 0; i < N; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

/* --- 7. per-test timeout ---------------------------------------------------- */

START_TEST(test_per_test_timeout)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	long long t0 = td_now_ms();
	json_t *r = run1(&d, set_int(ut("tt", "import time\n",
					"import unittest\nclass TestCases(unittest.TestCase):\n"
					"    def test_a(self):\n        while True:\n"
					"            pass\n"
					"    def test_b(self):\n        time.sleep(60)\n"
					"    def test_c(self):\n        self.assertTrue(True)\n"),
				     F_TEST_TIMEOUT_MS, 500));
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_OUTCOMES(r, "timeout,timeout,passed");
	CHECK_R(r, summary(r, S_TIMEOUTS) == 2 && summary(r, S_PASSED) == 1);
	CHECK_R(r, json_is_null(json_object_get(r, R_LIMIT_HIT)));
	CHECK_RM(r, took < 5000, "the response took %lld ms", took);
	CHECK_R(r, strstr(execution(r), "test_a\n") && strstr(execution(r), "test_b\n"));
	json_decref(r);

	/* (unittest runs test methods in name order: the numbers make "later" later.)
	 * Stuck where the runner's alarm cannot act: a C loop holding the GIL
	 * (sum over a huge range), and a test that blocks SIGALRM. The
	 * daemon's watchdog stops the job about 1.5 s in. */
	static const char *const stuck[] = {
	    "sum(range(10**13))",
	    "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n        time.sleep(60)",
	};
	for (int i = 0; i < 2; i++) {
		struct sb tests = {0};
		sb_add(&tests,
		       "import unittest\nclass TestCases(unittest.TestCase):\n"
		       "    def test_1_stuck(self):\n        %s\n"
		       "    def test_2_later(self):\n        self.assertTrue(True)\n",
		       stuck[i]);
		t0 = td_now_ms();
		r = run1(&d, set_int(ut("stuck", "import signal, time\n", sb_str(&tests)),
				     F_TEST_TIMEOUT_MS, 500));
		took = td_now_ms() - t0;
		CHECK_RM(r, streq(verdict(r), "fail"), "%s", stuck[i]);
		CHECK_RM(r, ntests(r) == 2, "%s", stuck[i]);
		CHECK_RM(r, streq(outcome(r, 0), "timeout"), "%s", stuck[i]);
		CHECK_RM(r, streq(outcome(r, 1), "error"), "%s", stuck[i]);
		CHECK_RM(r, starts(sget(test_at(r, 1), T_MESSAGE), "not run"), "%s", stuck[i]);
		CHECK_RM(r, took < 3500, "%s: the response took %lld ms", stuck[i], took);
		CHECK_RM(r, iget2(r, R_USAGE, U_WALL_MS) >= 1200, "%s: stopped too early",
			 stuck[i]);
		CHECK_RM(r, json_is_null(json_object_get(r, R_LIMIT_HIT)), "%s", stuck[i]);
		json_decref(r);
		free(tests.s);
	}

	/* Catastrophic backtracking: Python 3.11's re engine checks for signals,
	 * so the runner's own alarm may stop it (then the later test runs);
	 * either way that test is a timeout, quickly. */
	t0 = td_now_ms();
	r = run1(&d, set_int(ut("re", "import re\n",
				"import unittest\nclass TestCases(unittest.TestCase):\n"
				"    def test_1_re(self):\n"
				"        re.match(r'(a+)+$', 'a' * 40 + 'b')\n"
				"    def test_2_later(self):\n        self.assertTrue(True)\n"),
			     F_TEST_TIMEOUT_MS, 500));
	took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, streq(outcome(r, 0), "timeout"));
	CHECK_R(r, streq(outcome(r, 1), "passed") ||
		       (streq(outcome(r, 1), "error") &&
			starts(sget(test_at(r, 1), T_MESSAGE), "not run")));
	CHECK_RM(r, took < 3500, "the response took %lld ms", took);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 8. a job limit mid-suite ---------------------------------------------- */

START_TEST(test_job_limit_mid_suite)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	long long t0 = td_now_ms();
	json_t *r = run1(&d, lim(ut("wall", "import time\n",
				    "import unittest\nclass TestCases(unittest.TestCase):\n"
				    "    def test_1(self):\n        pass\n"
				    "    def test_2(self):\n        time.sleep(60)\n"
				    "    def test_3(self):\n        pass\n"),
				 L_WALL_MS, 2000));
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(verdict(r), "timeout"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "wall"));
	CHECK_OUTCOMES(r, "passed,timeout,error");
	CHECK_R(r, summary(r, S_PASSED) == 1 && summary(r, S_TIMEOUTS) == 1 &&
		       summary(r, S_ERRORS) == 1);
	CHECK_RM(r, took < 6000, "the response took %lld ms", took);
	/* A memory_limit verdict comes from the memory cgroup's OOM counter;
	 * a daemon on rlimits (--no-cgroups) has none to report. */
	const char *mem_by = sget2(r, R_ENFORCEMENT, L_MEMORY_MB);
	if (!starts(mem_by, "cgroup")) {
		char by[128];
		snprintf(by, sizeof by, "%s", mem_by ? mem_by : "(not reported)");
		json_decref(r);
		stop_ok(&d);
		SKIP_TEST("the memory limit mid-suite needs a memory cgroup; this daemon enforces "
			  "memory_mb with %s (enforcement.memory_mb)",
			  by);
	}
	json_decref(r);

	r = run1(&d, lim(ut("mem", "x = 1\n",
			    "import unittest\nclass TestCases(unittest.TestCase):\n"
			    "    def test_1(self):\n        pass\n"
			    "    def test_2(self):\n        chunks = []\n"
			    "        for i in range(128):\n"
			    "            chunks.append(b'x' * (8 << 20))\n"
			    "    def test_3(self):\n        pass\n"),
			 L_MEMORY_MB, 128));
	CHECK_R(r, streq(verdict(r), "memory_limit"));
	CHECK_R(r, streq(sget(r, R_LIMIT_HIT), "memory"));
	CHECK_OUTCOMES(r, "passed,timeout,error");
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 9. seed ---------------------------------------------------------------- */

START_TEST(test_seed)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *tests = "import unittest\nclass TestCases(unittest.TestCase):\n"
			    "    def test_print(self):\n"
			    "        print(random.random(), hash('abc'))\n";
	const char *code = "import random\nprint(random.random())\n";
	json_t *reqs[4] = {
	    set_int(ut("seed7a", code, tests), F_SEED, 7),
	    set_int(ut("seed7b", code, tests), F_SEED, 7),
	    set_int(ut("seed8", code, tests), F_SEED, 8),
	    set_int(ut("seedmax", code, tests), F_SEED, 4294967295LL),
	};
	json_t *resps[4];
	run_batch(&d, reqs, resps, 4);
	for (int i = 0; i < 4; i++) {
		CHECK_R(resps[i], streq(verdict(resps[i]), "pass"));
		CHECK_R(resps[i], strchr(sget0(resps[i], R_STDOUT), ' ')); /* the test printed */
	}
	const char *a = sget0(resps[0], R_STDOUT), *b = sget0(resps[1], R_STDOUT),
		   *c = sget0(resps[2], R_STDOUT);
	ck_assert_msg(strcmp(a, b) == 0, "seed 7 twice: %s vs %s", a, b);
	ck_assert_msg(strcmp(a, c) != 0, "seed 7 and seed 8 printed the same: %s", a);
	/* The test's own hash('abc') differs too (PYTHONHASHSEED). */
	const char *ha = strrchr(a, ' '), *hc = strrchr(c, ' ');
	ck_assert_msg(ha && hc && strcmp(ha, hc) != 0, "hash('abc') same under seeds 7 and 8: %s",
		      a);
	for (int i = 0; i < 4; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	stop_ok(&d);
}
END_TEST

/* --- 10. asserts ------------------------------------------------------------ */

START_TEST(test_asserts)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *r = run1(&d, treq("asserts", "def f(x):\n    return x\n", "asserts",
				  json_pack("[s,s,s]", "assert f(1) == 1", "assert f(2) == 5",
					    "assert f(1) == 1")));
	CHECK_R(r, streq(verdict(r), "fail"));
	CHECK_R(r, ntests(r) == 3 && summary(r, S_TOTAL) == 3);
	CHECK_OUTCOMES(r, "passed,failed,passed");
	CHECK_R(r, streq(tname(r, 0), "assert f(1) == 1"));
	CHECK_R(r, streq(tname(r, 1), "assert f(2) == 5"));
	CHECK_R(r, starts(tname(r, 2), "assert f(1) == 1"));
	CHECK_R(r, tname(r, 2) && !streq(tname(r, 2), tname(r, 0)));
	CHECK_R(r, starts(execution(r), "assert f(2) == 5\nTraceback"));
	CHECK_R(r, strstr(execution(r), "AssertionError"));
	CHECK_R(r, summary(r, S_FAILED) == 1 && summary(r, S_PASSED) == 2);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 11. stdio comparison ------------------------------------------------------ */

START_TEST(test_stdio_tolerance)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *third = json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "0.333333\n");
	json_t *reqs[4] = {
	    treq("tol", "print(1/3)\n", "stdio", json_deep_copy(third)),
	    treq("exact", "print(1/3)\n", "stdio", json_deep_copy(third)),
	    treq("ws",
		 "import sys\nprint(sys.stdin.read().strip() + '  ')\nprint()\nprint('   ')\n",
		 "stdio",
		 json_pack("[{s:s,s:s},{s:s,s:s}]", F_CASE_INPUT, "1 2\n", F_CASE_OUTPUT, "1 2\n",
			   F_CASE_INPUT, "3", F_CASE_OUTPUT, "3   \n\n\n")),
	    treq("ws-bad", "print('1  2')\n", "stdio",
		 json_pack("[{s:s,s:s}]", F_CASE_INPUT, "", F_CASE_OUTPUT, "1 2\n")),
	};
	json_object_set_new(reqs[0], F_FLOAT_TOLERANCE, json_real(1e-6));
	json_t *resps[4];
	run_batch(&d, reqs, resps, 4);
	CHECK_R(resps[0], streq(verdict(resps[0]), "pass"));
	CHECK_OUTCOMES(resps[0], "passed");
	CHECK_R(resps[1], streq(verdict(resps[1]), "fail"));
	CHECK_OUTCOMES(resps[1], "failed");
	CHECK_R(resps[1], strstr(execution(resps[1]), "Actual output:\n0.3333333333333333"));
	/* Trailing white space and blank lines do not count... */
	CHECK_R(resps[2], streq(verdict(resps[2]), "pass"));
	CHECK_OUTCOMES(resps[2], "passed,passed");
	/* ...white space inside a line does. */
	CHECK_R(resps[3], streq(verdict(resps[3]), "fail"));
	for (int i = 0; i < 4; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	json_decref(third);
	stop_ok(&d);
}
END_TEST

/* --- 12. bad test requests ------------------------------------------------------ */

START_TEST(test_bad_test_requests)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	struct sbx_conn *c = conn_open(&d);
	json_t *bad[] = {
	    json_pack("{s:s,s:s,s:s}", "id", "no-tests", "code", "pass", "format", "unittest"),
	    json_pack("{s:s,s:s,s:s}", "id", "no-format", "code", "pass", "tests", "x"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "pytest", "code", "pass", "tests", "x", "format",
		      "pytest"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "he-no-ep", "code", "pass", "tests",
		      "def check(c): pass", "format", "humaneval"),
	    json_pack("{s:s,s:s,s:s,s:s}", "id", "asserts-str", "code", "pass", "tests",
		      "assert True", "format", "asserts"),
	    json_pack("{s:s,s:s,s:[{s:s,s:s}],s:s,s:s}", "id", "stdio-stdin", "code", "pass",
		      "tests", "input", "", "output", "", "format", "stdio", "stdin", "x"),
	    json_pack("{s:s,s:s,s:s,s:s,s:f}", "id", "tol-unittest", "code", "pass", "tests", "x",
		      "format", "unittest", "float_tolerance", 0.1),
	    json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "cov-some", "code", "pass", "tests", "x",
		      "format", "unittest", "coverage", "some"),
	    json_pack("{s:s,s:s,s:s,s:s,s:i}", "id", "partial-0", "code", "pass", "tests", "x",
		      "format", "unittest", "partial_tests", 0),
	    json_pack("{s:s,s:s,s:s,s:s,s:I}", "id", "seed-big", "code", "pass", "tests", "x",
		      "format", "unittest", "seed", (json_int_t)4294967296LL),
	    json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "ep-bad", "code", "pass", "tests",
		      "def check(c): pass", "format", "humaneval", "entry_point", "1abc"),
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_ptr_nonnull(bad[i]);
		char *id = strdup(sget(bad[i], "id"));
		json_t *r = call(c, bad[i], CALL_MS);
		json_t *e = json_object_get(r, R_ERROR);
		CHECK_RM(r, json_is_object(e), "request %s must be refused", id);
		CHECK_RM(r, streq(sget(e, R_ERROR_CODE), "bad_request"), "request %s", id);
		CHECK_RM(r, strlen(sget0(e, R_ERROR_MESSAGE)) > 0, "request %s", id);
		CHECK_RM(r, streq(sget(r, "id"), id), "request %s", id);
		CHECK_RM(r, !json_object_get(r, R_VERDICT), "request %s", id);
		json_decref(r);
		free(id);
	}
	/* The connection still serves. */
	json_t *r = call(c,
			 treq("good", "def f(x):\n    return x\n", "asserts",
			      json_pack("[s]", "assert f(3) == 3")),
			 CALL_MS);
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, streq(execution(r), "Passed all test runs"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- 14. trimming, inherited and skipped tests ------------------------------ */

START_TEST(test_trim_inherited_skipped)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	/* 60 failing tests with long messages: about 45 KB of feedback. */
	struct sb t = {0};
	sb_add(&t, "import unittest\nclass TestCases(unittest.TestCase):\n");
	for (int i = 0; i < 60; i++)
		sb_add(&t, "    def test_%02d(self):\n        self.assertEqual(f(%d), 'x' * 300)\n",
		       i, i);
	json_t *reqs[3] = {
	    ut("trim", "def f(x):\n    return 'y' * 300\n", sb_str(&t)),
	    ut("inherited", "def f(x):\n    return x\n",
	       "import unittest\nclass Base(unittest.TestCase):\n"
	       "    def test_inherited(self):\n        self.assertEqual(f(1), 2)\n"
	       "class TestCases(Base):\n"
	       "    def test_own(self):\n        self.assertEqual(f(1), 1)\n"),
	    ut("skipped", "def f(x):\n    return x\n",
	       "import unittest\nclass TestCases(unittest.TestCase):\n"
	       "    @unittest.skip('not today')\n"
	       "    def test_1(self):\n        self.assertEqual(f(1), 2)\n"
	       "    def test_2(self):\n        self.assertEqual(f(2), 2)\n"),
	};
	json_t *resps[3];
	run_batch(&d, reqs, resps, 3);
	json_t *r = resps[0];
	const char *e = execution(r);
	CHECK_R(r, streq(verdict(r), "fail") && summary(r, S_FAILED) == 60);
	/* 8,000 bytes of head and tail around the marker. */
	CHECK_RM(r, strlen(e) >= 7900 && strlen(e) <= 8000 + 64, "execution is %zu bytes",
		 strlen(e));
	CHECK_R(r, strstr(e, " characters trimmed] ...\n"));
	CHECK_R(r, starts(e, "test_00\nTraceback"));
	CHECK_R(r, strstr(e, "test_59\nTraceback")); /* the tail is kept */
	/* The full tracebacks stay in tests[]. */
	CHECK_R(r, strstr(sget0(test_at(r, 30), T_TRACEBACK), "AssertionError"));

	r = resps[1];
	CHECK_R(r, streq(verdict(r), "pass"));
	CHECK_R(r, ntests(r) == 1 && streq(tname(r, 0), "test_own"));
	CHECK_R(r, iget2(r, R_INTEGRITY, I_EXTRA_TESTS) == 1);
	CHECK_R(r, iget2(r, R_INTEGRITY, I_BAD_RECORDS) == 0);

	r = resps[2];
	CHECK_R(r, streq(verdict(r), "pass")); /* a skip does not block a pass */
	CHECK_OUTCOMES(r, "skipped,passed");
	CHECK_R(r, summary(r, S_SKIPPED) == 1 && summary(r, S_PASSED) == 1);
	CHECK_R(r, strstr(sget0(test_at(r, 0), T_MESSAGE), "not today"));
	for (int i = 0; i < 3; i++) {
		json_decref(reqs[i]);
		json_decref(resps[i]);
	}
	free(t.s);
	stop_ok(&d);
}
END_TEST

/* --- 13. the CLI ---------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs a shell command; returns its stdout (malloc'd) and exit status. */
static char *run_cmd(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen %s: %s", cmd, strerror(errno));
	struct sb out = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		sb_add(&out, "%.*s", (int)n, buf);
	int st = pclose(p);
	*status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out.s ? out.s : strdup("");
}

START_TEST(test_cli_explain)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	const char *b = getenv("SBX_BUILD");
	char sbx[4096], dir[] = "/tmp/sbx-cli.XXXXXX", path[8][4200], cmd[16384];
	snprintf(sbx, sizeof sbx, "%s/sbx", b && *b ? b : "build");
	ck_assert_msg(access(sbx, X_OK) == 0, "%s: %s", sbx, strerror(errno));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path[0], sizeof path[0], "%s/code.py", dir);
	snprintf(path[1], sizeof path[1], "%s/asserts.json", dir);
	snprintf(path[2], sizeof path[2], "%s/echo.py", dir);
	snprintf(path[3], sizeof path[3], "%s/cases.json", dir);
	write_file(path[0], "def f(x):\n    return x\n");
	write_file(path[1], "[\"assert f(1) == 1\", \"assert f(2) == 5\"]\n");
	write_file(path[2], "print(int(input()))\n");
	write_file(path[3], "[{\"input\": \"1\\n\", \"output\": \"2\\n\"}, "
			    "{\"input\": \"4\\n\", \"output\": \"4\\n\"}]\n");
	int st;
	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format asserts --explain %s",
		 sbx, d.sock, path[1], path[0]);
	char *out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: fail"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "No syntax errors"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "assert f(2) == 5\nTraceback (most recent call last):\n"),
		      "output:\n%s", out);
	ck_assert_msg(strstr(out, "AssertionError"), "output:\n%s", out);
	ck_assert_msg(!strstr(out, "\"verdict\""), "--explain printed JSON:\n%s", out);
	free(out);

	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format stdio --explain %s", sbx,
		 d.sock, path[3], path[2]);
	out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: fail"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "case 1\nInput:\n1\n"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "Expected output:\n2\n"), "output:\n%s", out);
	ck_assert_msg(!strstr(out, "case 2"), "case 2 passed, it must not be shown:\n%s", out);
	free(out);

	/* And a passing one says so. */
	write_file(path[1], "[\"assert f(1) == 1\"]\n");
	snprintf(cmd, sizeof cmd, "%s --socket %s run --tests %s --format asserts --explain %s",
		 sbx, d.sock, path[1], path[0]);
	out = run_cmd(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d; output:\n%s", cmd, st, out);
	ck_assert_msg(strstr(out, "Verdict: pass"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "Passed all test runs"), "output:\n%s", out);
	free(out);
	for (int i = 0; i < 4; i++)
		unlink(path[i]);
	rmdir(dir);
	stop_ok(&d);
}
END_TEST

/* --- suite -------------------------------------------------------------------- */

static TCase *tcase(Suite *s, const char *name, double timeout)
{
	TCase *t = tcase_create(name);
	tcase_set_timeout(t, timeout);
	suite_add_tcase(s, t);
	return t;
}

static Suite *feedback_suite(void)
{
	Suite *s = suite_create("feedback");
	TCase *t = tcase(s, "datasets", 300);
	tcase_add_test(t, test_humaneval_all);
	tcase_add_test(t, test_bigcodebench);
	tcase_add_test(t, test_codecontests);
	t = tcase(s, "feedback", 90);
	tcase_add_test(t, test_compile_feedback);
	tcase_add_test(t, test_coverage);
	tcase_add_test(t, test_integrity);
	tcase_add_test(t, test_per_test_timeout);
	tcase_add_test(t, test_job_limit_mid_suite);
	tcase_add_test(t, test_seed);
	tcase_add_test(t, test_asserts);
	tcase_add_test(t, test_stdio_tolerance);
	tcase_add_test(t, test_bad_test_requests);
	tcase_add_test(t, test_cli_explain);
	tcase_add_test(t, test_trim_inherited_skipped);
	return s;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr,
			"test_feedback_daemon: needs root (the daemon builds namespaces)\n");
		return 1;
	}
	/* Room for a whole response in a failure message (Check's default is 4 KiB). */
	check_set_max_msg_size(64 * 1024);
	/* Every daemon directory lives under one base removed at the end, so
	 * even a test that failed half-way leaves nothing in /tmp. */
	char base[] = "/tmp/sbx-feedback.XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("SBX_TEST_TMPDIR", base, 1);
	SRunner *sr = srunner_create(feedback_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	td_rmtree(base);
	return failed ? 1 : 0;
}
