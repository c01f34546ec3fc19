/* The wire protocol shared by sandboxd and sbx: every field name, verdict,
 * limit name and error code lives here, and docs/protocol.md documents each
 * one (tests/unit/test_common_protocol_docs.c fails when the two drift apart). */
#ifndef SBX_PROTOCOL_H
#define SBX_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#define PROTO_VERSION "0.1.0"

/* Request fields. */
#define F_ID "id"
#define F_OP "op"
#define F_CODE "code"
#define F_STDIN "stdin"
#define F_FILES "files"
#define F_LIMITS "limits"
#define F_POLICY "policy"
/* Binary files: a "files" value may be {"base64": "…"} instead of a string;
 * the fetched files of a response use the same object. */
#define F_FILE_BASE64 "base64"
/* Paths under /work the job wrote, returned in the response's "files"
 * (docs/protocol.md, "Fetching files"): at most PROTO_FETCH_MAX_FILES paths,
 * PROTO_FETCH_MAX_BYTES bytes in all (before base64). */
#define F_FETCH_FILES "fetch_files"
#define PROTO_FETCH_MAX_FILES 64
#define PROTO_FETCH_MAX_BYTES (16u << 20)
/* Who the job is for, behind a trusted front (--trust-uid): 1..PROTO_TENANT_MAX
 * bytes of [A-Za-z0-9_.-]; fairness and per-peer limits then count per
 * (uid, tenant). */
#define F_TENANT "tenant"
#define PROTO_TENANT_MAX 64
/* true: the response carries "timing", the run's phases as the daemon's
 * monotonic clock saw them (docs/protocol.md, "Timing"). */
#define F_TIMING "timing"
/* Test requests (structured feedback). */
#define F_TESTS "tests"
#define F_FORMAT "format"
#define F_ENTRY_POINT "entry_point"
#define F_COVERAGE "coverage"
#define F_PARTIAL_TESTS "partial_tests"
#define F_TEST_TIMEOUT_MS "test_timeout_ms"
#define F_SEED "seed"
#define F_FLOAT_TOLERANCE "float_tolerance"
#define F_FAIL_FAST "fail_fast"
#define F_ISOLATION "isolation"
#define F_CASE_INPUT "input"
#define F_CASE_OUTPUT "output"
/* stdio: whether the feedback text (the tests' traceback and
 * feedback.execution) shows each case's expected output, "show" (the
 * default), or "hide"s it past its first expected_visible_chars characters
 * (0 by default, at most PROTO_VISIBLE_CHARS_MAX: what the text shows of
 * any part); the tests' "expected" keeps it either way, for the harness. */
#define F_EXPECTED_OUTPUT "expected_output"
#define F_EXPECTED_VISIBLE_CHARS "expected_visible_chars"
#define EXPECTED_SHOW "show"
#define EXPECTED_HIDE "hide"
#define PROTO_VISIBLE_CHARS_MAX 1000
/* Which tests coverage "partial" shows: "fixed" (the default), the first
 * partial_tests test methods; or "convcodeworld" (unittest only), the
 * tests among the first partial_tests method definitions of the test
 * source's classes, setUp and helpers counted, as ConvCodeWorld's
 * published numbers were computed (docs/eval.md). */
#define F_PARTIAL_MODE "partial_mode"
#define PARTIAL_MODE_FIXED "fixed"
#define PARTIAL_MODE_CONVCODEWORLD "convcodeworld"
enum proto_partial_mode { PM_FIXED, PM_CONVCODEWORLD };

/* Limit keys (request "limits", response "limits"). */
#define L_CPU_MS "cpu_ms"
#define L_WALL_MS "wall_ms"
#define L_MEMORY_MB "memory_mb"
#define L_PIDS "pids"
#define L_OUTPUT_KB "output_kb"
#define L_TMPFS_MB "tmpfs_mb"
/* stdio: each case's own limits; cpu_ms and wall_ms bound the whole request. */
#define L_CASE_CPU_MS "case_cpu_ms"
#define L_CASE_WALL_MS "case_wall_ms"
#define L_CPUS "cpus" /* CPU bandwidth cap, in whole CPUs */

/* Response fields. */
#define R_VERDICT "verdict"
#define R_EXIT_CODE "exit_code"
#define R_SIGNAL "signal"
#define R_STDOUT "stdout"
#define R_STDERR "stderr"
#define R_STDOUT_TRUNC "stdout_truncated"
#define R_STDERR_TRUNC "stderr_truncated"
#define R_USAGE "usage"
#define R_LIMITS "limits"
#define R_LIMIT_HIT "limit_hit"
#define R_ENFORCEMENT "enforcement"
/* Which way the job was started: "warm" (forked from a slot's fork server)
 * or "cold" (a fresh interpreter); docs/protocol.md, "Warm and cold". */
#define R_PATH "path"
#define PATH_WARM "warm"
#define PATH_COLD "cold"
/* The fetched files: path -> {"base64": …} or {"error": why}. */
#define R_FILES "files"
#define R_FILE_ERROR "error"
#define R_VIOLATION "violation"
#define R_MESSAGE "message"
#define R_ERROR "error"
#define R_ERROR_CODE "code"
#define R_ERROR_MESSAGE "message"
#define R_COMPILE "compile"
#define R_TESTS "tests"
#define R_SUMMARY "summary"
#define R_FEEDBACK "feedback"
#define R_INTEGRITY "integrity"
#define C_OK "ok"
#define C_ERRORS "errors"
#define C_TYPE "type"
#define C_LINE "line"
#define C_COLUMN "column"
#define C_TEXT "text"
#define T_NAME "name"
#define T_OUTCOME "outcome"
#define T_MESSAGE "message"
#define T_TRACEBACK "traceback"
#define T_DURATION_MS "duration_ms"
/* stdio tests: the case's expected output and the program's standard
 * output (null for a case not run), each at most PROTO_STDIO_TEXT_MAX
 * bytes cut on a character boundary, and at most PROTO_STDIO_TEXT_TOTAL
 * bytes of them in one response as JSON encodes them (a quarter of
 * --max-response-mb when that is less), in case order; *_truncated:
 * something was cut off. */
#define T_EXPECTED "expected"
#define T_ACTUAL "actual"
#define T_EXPECTED_TRUNC "expected_truncated"
#define T_ACTUAL_TRUNC "actual_truncated"
#define PROTO_STDIO_TEXT_MAX 4096
#define PROTO_STDIO_TEXT_TOTAL (16u << 20)
#define S_TOTAL "total"
#define S_PASSED "passed"
#define S_FAILED "failed"
#define S_ERRORS "errors"
#define S_TIMEOUTS "timeouts"
#define S_SKIPPED "skipped"
#define FB_COMPILATION "compilation"
#define FB_EXECUTION "execution"
/* The "timing" object's keys: phase durations in microseconds, and the
 * number of runs they were summed over. */
#define TM_ACCEPT_US "accept_us"
#define TM_QUEUE_US "queue_us"
#define TM_SETUP_HOST_US "setup_host_us"
#define TM_FORK_US "fork_us"
#define TM_SETUP_JAIL_US "setup_jail_us"
#define TM_START_US "start_us"
#define TM_USER_CODE_US "user_code_us"
#define TM_TESTS_US "tests_us"
#define TM_EXIT_US "exit_us"
#define TM_RUN_US "run_us"
#define TM_TEARDOWN_US "teardown_us"
#define TM_RESPONSE_US "response_us"
#define TM_TOTAL_US "total_us"
#define TM_RUNS "runs"
#define I_BAD_RECORDS "bad_records"
#define I_EXTRA_TESTS "extra_tests"
#define U_CPU_MS "cpu_ms"
#define U_WALL_MS "wall_ms"
#define U_MEMORY_KB "memory_kb"
/* ping answer */
#define P_VERSION "version"
#define P_WORKERS "workers"
#define P_QUEUED "queued"
#define P_RUNNING "running"
#define P_MEMORY_BUDGET_MB "memory_budget_mb"
/* The fork servers: how many are ready, and their resident memory together
 * (KiB; what the warm path costs while idle). */
#define P_WARM_SERVERS "warm_servers"
#define P_WARM_READY "warm_ready"
#define P_WARM_RSS_KB "warm_rss_kb"
#define P_MEMORY_ADMITTED_MB "memory_admitted_mb"
/* The daemon's own version (PROTO_VERSION is the protocol's), and each
 * profile by name: its interpreter, that interpreter's version and the
 * distributions (name -> version) a job of the profile can import, as a
 * job found them at start (null until then, or when it could not tell);
 * at most PROTO_PING_LIBS_MAX of them, names and versions bounded. */
#define P_DAEMON_VERSION "daemon_version"
#define P_PROFILES "profiles"
#define P_INTERPRETER "interpreter"
#define P_INTERPRETER_VERSION "interpreter_version"
#define P_LIBRARIES "libraries"
#define PROTO_PING_LIBS_MAX 512
#define PROTO_PING_NAME_MAX 100
#define PROTO_PING_VERSION_MAX 64

enum proto_op { OP_RUN, OP_PING };

enum proto_format { FMT_NONE, FMT_UNITTEST, FMT_HUMANEVAL, FMT_ASSERTS, FMT_STDIO, FMT_COUNT };
enum proto_coverage { COV_FULL, COV_PARTIAL, COV_NONE, COV_COUNT };
/* Where the candidate runs for call-based formats: in the tests' process (the
 * reference harnesses' way, the default) or in a process of its own. */
enum proto_isolation { ISO_NONE, ISO_PROCESS, ISO_COUNT };
#define ISOLATION_NONE "none"
#define ISOLATION_PROCESS "process"
enum proto_outcome { OUT_PASSED, OUT_FAILED, OUT_ERROR, OUT_TIMEOUT, OUT_SKIPPED, OUT_COUNT };

enum proto_verdict {
	V_PASS,
	V_FAIL,
	V_COMPILE_ERROR,
	V_RUNTIME_ERROR,
	V_TIMEOUT,
	V_MEMORY_LIMIT,
	V_OUTPUT_LIMIT,
	V_VIOLATION,
	V_ERROR,
	V_COUNT
};

enum proto_limit_hit {
	HIT_NONE,
	HIT_CPU,
	HIT_WALL,
	HIT_MEMORY,
	HIT_PIDS,
	HIT_OUTPUT,
	HIT_FILE_SIZE, /* kept for clients; no longer produced (no evidence exists) */
	HIT_CASE_CPU,  /* stdio: one case's case_cpu_ms */
	HIT_CASE_WALL,
	HIT_COUNT
};

/* An error code clients act on by name (libsbx retries it) without linking
 * the name tables. */
#define ERROR_BUSY "busy"

enum proto_errcode {
	E_BAD_JSON,    /* not a JSON object */
	E_BAD_REQUEST, /* unknown field, wrong type, missing field */
	E_TOO_LARGE,   /* line or field above its bound */
	E_BAD_LIMITS,  /* a limit is not a positive integer */
	E_BAD_PATH,    /* a "files" path escapes the work dir or is malformed */
	E_UNKNOWN_POLICY,
	E_BUSY,	     /* the job queue is full */
	E_FORBIDDEN, /* peer uid/gid not served */
	E_INTERNAL,
	E_SHUTTING_DOWN,
	E_COUNT
};

const char *proto_verdict_name(enum proto_verdict v);
const char *proto_limit_hit_name(enum proto_limit_hit h); /* NULL for HIT_NONE */
const char *proto_errcode_name(enum proto_errcode e);
const char *proto_format_name(enum proto_format f); /* NULL for FMT_NONE */
const char *proto_coverage_name(enum proto_coverage c);
const char *proto_isolation_name(enum proto_isolation i);
const char *proto_outcome_name(enum proto_outcome o);
/* Parses a name back; -1 when unknown. */
int proto_outcome_parse(const char *name);

/* A limit of -1 means "not given"; the daemon fills it from the profile. */
struct proto_limits {
	long cpu_ms, wall_ms, memory_mb, pids, output_kb, tmpfs_mb;
	long case_cpu_ms, case_wall_ms;
	long cpus;
};
#define PROTO_LIMITS_UNSET                                                                         \
	{                                                                                          \
		-1, -1, -1, -1, -1, -1, -1, -1, -1                                                 \
	}
/* Iterate limits by name: name table and pointer accessor, in one order. */
#define PROTO_NLIMITS 9
extern const char *const proto_limit_names[PROTO_NLIMITS];
long *proto_limit_ref(struct proto_limits *l, int i);
long proto_limit_get(const struct proto_limits *l, int i);

struct proto_file {
	char *path; /* validated: relative, no "." or ".." components */
	char *data;
	size_t len;
};

/* Hard bounds on what a client may send; checked before anything else. */
struct proto_bounds {
	size_t max_line;  /* whole request line, bytes */
	size_t max_id;	  /* id string bytes */
	size_t max_files; /* entries in "files" */
	size_t max_path;  /* one file path, bytes */
	size_t max_depth; /* directory depth of a file path */
	size_t max_tests; /* asserts or stdio cases */
};
void proto_bounds_default(struct proto_bounds *b);

/* One stdio case: input fed on stdin, expected output compared by the daemon. */
struct proto_case {
	char *input, *output;
	size_t input_len, output_len;
};

struct proto_request {
	char *id; /* never NULL after a successful parse */
	enum proto_op op;
	char *code;
	size_t code_len;
	char *stdin_data;
	size_t stdin_len;
	struct proto_file *files;
	size_t nfiles;
	char **fetch; /* fetch_files: validated paths, no duplicates */
	size_t nfetch;
	struct proto_limits limits;
	char *policy; /* NULL: the default profile */
	char *tenant; /* NULL: none (validated charset and length) */
	/* Test requests; format FMT_NONE means a plain run. */
	enum proto_format format;
	char *tests_text; /* unittest, humaneval */
	size_t tests_len;
	char **asserts; /* asserts */
	size_t nasserts;
	struct proto_case *cases; /* stdio */
	size_t ncases;
	char *entry_point;
	enum proto_coverage coverage;
	long partial_tests; /* default 3 */
	enum proto_partial_mode partial_mode;
	long test_timeout_ms;	/* -1: none */
	long long seed;		/* -1: none */
	double float_tolerance; /* < 0: exact comparison */
	bool fail_fast;		/* stdio: stop at the first case that does not pass */
	bool hide_expected;	/* stdio: expected_output "hide" */
	long visible_chars;	/* with hide_expected: characters still shown */
	enum proto_isolation isolation;
	bool timing; /* the response carries the phase timings */
};

struct proto_error {
	enum proto_errcode code;
	char message[256];
};

/* Parses and validates one request line. On failure fills err and, when the
 * id could be read, *id_out (caller frees) so the error can carry it. */
int proto_parse_request(const char *line, size_t len, const struct proto_bounds *b,
			struct proto_request *req, char **id_out, struct proto_error *err);
void proto_request_free(struct proto_request *req);

/* Checks one "files" path; returns 0 or -1 with a message. */
int proto_check_path(const char *path, const struct proto_bounds *b, char *msg, size_t msglen);

/* Builds {"id":…,"error":{"code":…,"message":…}} as one line (no newline); caller frees. */
char *proto_error_line(const char *id, enum proto_errcode code, const char *message);

/* A JSON string from arbitrary bytes: invalid UTF-8 becomes U+FFFD so the
 * response is always valid JSON whatever the candidate printed. */
struct json_t;
struct json_t *proto_json_bytes(const char *data, size_t len);

#endif
