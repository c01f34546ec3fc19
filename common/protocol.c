/* Request parsing and validation. Every byte here came from a client the
 * daemon does not trust: sizes are bounded before use, every field is
 * type-checked, unknown fields are refused, and nothing is half-accepted. */
#include "common/protocol.h"

#include "common/text.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[V_COUNT] = {"pass",	    "fail",	 "compile_error",
						   "runtime_error", "timeout",	 "memory_limit",
						   "output_limit",  "violation", "error"};
static const char *const hit_names[HIT_COUNT] = {NULL,	 "cpu",	   "wall",     "memory",
						 "pids", "output", "file_size"};
static const char *const err_names[E_COUNT] = {
    "bad_json",	      "bad_request", "too_large", "bad_limits", "bad_path",
    "unknown_policy", "busy",	     "forbidden", "internal",	"shutting_down"};
static const char *const format_names[FMT_COUNT] = {NULL, "unittest", "humaneval", "asserts",
						    "stdio"};
static const char *const coverage_names[COV_COUNT] = {"full", "partial", "none"};
static const char *const outcome_names[OUT_COUNT] = {"passed", "failed", "error", "timeout",
						     "skipped"};
const char *const proto_limit_names[PROTO_NLIMITS] = {L_CPU_MS,	   L_WALL_MS,  L_MEMORY_MB, L_PIDS,
						      L_OUTPUT_KB, L_TMPFS_MB, L_CPUS};

const char *proto_verdict_name(enum proto_verdict v)
{
	return (unsigned)v < V_COUNT ? verdict_names[v] : "error";
}

const char *proto_limit_hit_name(enum proto_limit_hit h)
{
	return (unsigned)h < HIT_COUNT ? hit_names[h] : NULL;
}

const char *proto_errcode_name(enum proto_errcode e)
{
	return (unsigned)e < E_COUNT ? err_names[e] : "internal";
}

const char *proto_format_name(enum proto_format f)
{
	return (unsigned)f < FMT_COUNT ? format_names[f] : NULL;
}

const char *proto_coverage_name(enum proto_coverage c)
{
	return (unsigned)c < COV_COUNT ? coverage_names[c] : "full";
}

const char *proto_outcome_name(enum proto_outcome o)
{
	return (unsigned)o < OUT_COUNT ? outcome_names[o] : "error";
}

int proto_outcome_parse(const char *name)
{
	for (int i = 0; i < OUT_COUNT; i++)
		if (strcmp(name, outcome_names[i]) == 0)
			return i;
	return -1;
}

long *proto_limit_ref(struct proto_limits *l, int i)
{
	long *v[PROTO_NLIMITS] = {&l->cpu_ms,	 &l->wall_ms,  &l->memory_mb, &l->pids,
				  &l->output_kb, &l->tmpfs_mb, &l->cpus};
	return (i >= 0 && i < PROTO_NLIMITS) ? v[i] : NULL;
}

long proto_limit_get(const struct proto_limits *l, int i)
{
	return *proto_limit_ref((struct proto_limits *)l, i);
}

void proto_bounds_default(struct proto_bounds *b)
{
	b->max_line = 16u << 20;
	b->max_id = 256;
	b->max_files = 256;
	b->max_path = 255;
	b->max_depth = 16;
	b->max_tests = 10000;
}

static int fail(struct proto_error *err, enum proto_errcode code, const char *fmt, ...)
{
	va_list ap;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return -1;
}

int proto_check_path(const char *path, const struct proto_bounds *b, char *msg, size_t msglen)
{
	size_t len = strlen(path), depth = 0;
	const char *why = NULL;
	if (len == 0)
		why = "empty path";
	else if (len > b->max_path)
		why = "path too long";
	else if (path[0] == '/')
		why = "absolute path";
	else if (path[len - 1] == '/')
		why = "path ends with '/'";
	for (const char *p = path; !why && *p;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			why = "empty path component";
		else if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			why = "'.' or '..' component";
		for (size_t i = 0; !why && i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				why = "control character in path";
		if (++depth > b->max_depth)
			why = "path too deep";
		p = end ? end + 1 : p + n;
	}
	if (!why && (strcmp(path, "main.py") == 0 || strncmp(path, "main.py/", 8) == 0))
		why = "main.py is reserved for the code";
	if (why)
		snprintf(msg, msglen, "%s", why);
	return why ? -1 : 0;
}

/* Copies a JSON string, keeping embedded NULs (stdin and files may be binary-ish). */
static char *dup_string(const json_t *s, size_t *len)
{
	size_t n = json_string_length(s);
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, json_string_value(s), n);
	d[n] = '\0';
	if (len)
		*len = n;
	return d;
}

static int parse_limits(const json_t *o, struct proto_limits *l, struct proto_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o))
		return fail(err, E_BAD_REQUEST, "\"limits\" must be an object");
	json_object_foreach((json_t *)o, key, v)
	{
		int i = 0;
		while (i < PROTO_NLIMITS && strcmp(key, proto_limit_names[i]) != 0)
			i++;
		if (i == PROTO_NLIMITS)
			return fail(err, E_BAD_LIMITS, "unknown limit \"%.64s\"", key);
		if (!json_is_integer(v))
			return fail(err, E_BAD_LIMITS, "limit \"%s\" must be an integer", key);
		json_int_t x = json_integer_value(v);
		if (x <= 0)
			return fail(err, E_BAD_LIMITS, "limit \"%s\" must be positive", key);
		/* Absurd values are clamped later to the profile maximum; keep them representable.
		 */
		*proto_limit_ref(l, i) = x > (json_int_t)(1L << 40) ? (1L << 40) : (long)x;
	}
	return 0;
}

static int parse_files(const json_t *o, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o))
		return fail(err, E_BAD_REQUEST, "\"files\" must be an object of path -> content");
	size_t n = json_object_size(o);
	if (n > b->max_files)
		return fail(err, E_TOO_LARGE, "too many files (%zu > %zu)", n, b->max_files);
	r->files = calloc(n ? n : 1, sizeof *r->files);
	if (!r->files)
		return fail(err, E_INTERNAL, "out of memory");
	json_object_foreach((json_t *)o, key, v)
	{
		char why[64];
		if (proto_check_path(key, b, why, sizeof why) < 0)
			return fail(err, E_BAD_PATH, "file \"%.100s\": %s", key, why);
		if (!json_is_string(v))
			return fail(err, E_BAD_REQUEST, "file \"%.100s\": content must be a string",
				    key);
		/* A path that is a prefix directory of another is a conflict the
		 * jail would have to resolve; refuse it here instead. */
		for (size_t i = 0; i < r->nfiles; i++) {
			const char *a = r->files[i].path, *s = strlen(a) < strlen(key) ? a : key,
				   *l = s == a ? key : a;
			if (strncmp(s, l, strlen(s)) == 0 && l[strlen(s)] == '/')
				return fail(err, E_BAD_PATH, "file \"%.100s\" is also a directory",
					    s);
		}
		struct proto_file *f = &r->files[r->nfiles];
		f->path = strdup(key);
		f->data = dup_string(v, &f->len);
		r->nfiles++;
		if (!f->path || !f->data)
			return fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

static int parse_policy(const json_t *v, struct proto_request *r, struct proto_error *err)
{
	if (!json_is_string(v))
		return fail(err, E_BAD_REQUEST, "\"policy\" must be a string");
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n == 0 || n > 63 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-") != n)
		return fail(err, E_UNKNOWN_POLICY, "invalid policy name");
	r->policy = strdup(s);
	return r->policy ? 0 : fail(err, E_INTERNAL, "out of memory");
}

static const char *const test_fields[] = {F_TESTS,    F_FORMAT,		 F_ENTRY_POINT,
					  F_COVERAGE, F_PARTIAL_TESTS,	 F_TEST_TIMEOUT_MS,
					  F_SEED,     F_FLOAT_TOLERANCE, NULL};

static bool is_test_field(const char *key)
{
	for (int i = 0; test_fields[i]; i++)
		if (strcmp(key, test_fields[i]) == 0)
			return true;
	return false;
}

static bool is_identifier(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

/* An integer field within [lo, hi]; absent leaves *out untouched. */
static int get_int(json_t *root, const char *key, long long lo, long long hi, long long *out,
		   struct proto_error *err)
{
	json_t *v = json_object_get(root, key);
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return fail(err, E_BAD_REQUEST, "\"%s\" must be an integer in [%lld, %lld]", key,
			    lo, hi);
	*out = json_integer_value(v);
	return 0;
}

static int parse_asserts(json_t *t, const struct proto_bounds *b, struct proto_request *r,
			 struct proto_error *err)
{
	size_t n = json_array_size(t), i;
	json_t *v;
	if (!json_is_array(t) || n == 0)
		return fail(err, E_BAD_REQUEST,
			    "asserts: \"tests\" must be a non-empty array of "
			    "strings");
	if (n > b->max_tests)
		return fail(err, E_TOO_LARGE, "too many tests (%zu > %zu)", n, b->max_tests);
	r->asserts = calloc(n, sizeof *r->asserts);
	if (!r->asserts)
		return fail(err, E_INTERNAL, "out of memory");
	json_array_foreach(t, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    memchr(json_string_value(v), 0, json_string_length(v)))
			return fail(err, E_BAD_REQUEST, "tests[%zu] must be a non-empty string", i);
		if (!(r->asserts[r->nasserts++] = strdup(json_string_value(v))))
			return fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

static int parse_cases(json_t *t, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	size_t n = json_array_size(t), i;
	json_t *v;
	if (!json_is_array(t) || n == 0)
		return fail(err, E_BAD_REQUEST,
			    "stdio: \"tests\" must be a non-empty array of {input, output}");
	if (n > b->max_tests)
		return fail(err, E_TOO_LARGE, "too many tests (%zu > %zu)", n, b->max_tests);
	r->cases = calloc(n, sizeof *r->cases);
	if (!r->cases)
		return fail(err, E_INTERNAL, "out of memory");
	json_array_foreach(t, i, v)
	{
		json_t *in = json_object_get(v, F_CASE_INPUT),
		       *out = json_object_get(v, F_CASE_OUTPUT);
		if (!json_is_object(v) || !json_is_string(in) || !json_is_string(out) ||
		    json_object_size(v) != 2)
			return fail(err, E_BAD_REQUEST,
				    "tests[%zu] must be {\"input\": string, \"output\": string}",
				    i);
		struct proto_case *c = &r->cases[r->ncases++];
		c->input = dup_string(in, &c->input_len);
		c->output = dup_string(out, &c->output_len);
		if (!c->input || !c->output)
			return fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

/* The feedback fields: all or nothing, and only in combinations that mean
 * something, so a harness learns of a typo instead of getting a plain run. */
static int parse_tests(json_t *root, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	json_t *fmt = json_object_get(root, F_FORMAT), *tests = json_object_get(root, F_TESTS);
	r->partial_tests = 3;
	r->test_timeout_ms = -1;
	r->seed = -1;
	r->float_tolerance = -1;
	if (!fmt && !tests) {
		for (int i = 0; test_fields[i]; i++)
			if (json_object_get(root, test_fields[i]))
				return fail(err, E_BAD_REQUEST,
					    "\"%s\" needs \"tests\" and \"format\"",
					    test_fields[i]);
		return 0;
	}
	if (!fmt || !tests)
		return fail(err, E_BAD_REQUEST, "\"tests\" and \"format\" go together");
	if (!json_is_string(fmt))
		return fail(err, E_BAD_REQUEST, "\"format\" must be a string");
	for (int f = FMT_UNITTEST; f < FMT_COUNT; f++)
		if (strcmp(json_string_value(fmt), format_names[f]) == 0)
			r->format = (enum proto_format)f;
	if (r->format == FMT_NONE)
		return fail(err, E_BAD_REQUEST,
			    "\"format\" must be unittest, humaneval, asserts or stdio");
	int rc = 0;
	if (r->format == FMT_UNITTEST || r->format == FMT_HUMANEVAL) {
		if (!json_is_string(tests) || json_string_length(tests) == 0 ||
		    memchr(json_string_value(tests), 0, json_string_length(tests)))
			return fail(err, E_BAD_REQUEST, "%s: \"tests\" must be a non-empty string",
				    format_names[r->format]);
		r->tests_text = dup_string(tests, &r->tests_len);
		if (!r->tests_text)
			return fail(err, E_INTERNAL, "out of memory");
	} else if (r->format == FMT_ASSERTS) {
		rc = parse_asserts(tests, b, r, err);
	} else {
		rc = parse_cases(tests, b, r, err);
	}
	if (rc < 0)
		return -1;
	json_t *ep = json_object_get(root, F_ENTRY_POINT);
	if (ep && (!json_is_string(ep) || !is_identifier(json_string_value(ep))))
		return fail(err, E_BAD_REQUEST, "\"entry_point\" must be a Python identifier");
	if (ep && !(r->entry_point = strdup(json_string_value(ep))))
		return fail(err, E_INTERNAL, "out of memory");
	if (r->format == FMT_HUMANEVAL && !ep)
		return fail(err, E_BAD_REQUEST, "humaneval needs \"entry_point\"");
	json_t *cov = json_object_get(root, F_COVERAGE);
	if (cov) {
		int c = COV_COUNT;
		for (int i = 0; json_is_string(cov) && i < COV_COUNT; i++)
			if (strcmp(json_string_value(cov), coverage_names[i]) == 0)
				c = i;
		if (c == COV_COUNT)
			return fail(err, E_BAD_REQUEST,
				    "\"coverage\" must be full, partial or none");
		r->coverage = (enum proto_coverage)c;
	}
	long long v = r->partial_tests;
	if (get_int(root, F_PARTIAL_TESTS, 1, 10000, &v, err) < 0)
		return -1;
	r->partial_tests = (long)v;
	v = -1;
	if (get_int(root, F_TEST_TIMEOUT_MS, 1, 1LL << 31, &v, err) < 0)
		return -1;
	r->test_timeout_ms = (long)v;
	if (get_int(root, F_SEED, 0, 4294967295LL, &r->seed, err) < 0)
		return -1;
	json_t *tol = json_object_get(root, F_FLOAT_TOLERANCE);
	if (tol) {
		if (r->format != FMT_STDIO)
			return fail(err, E_BAD_REQUEST,
				    "\"float_tolerance\" applies to stdio only");
		if (!json_is_number(tol) || json_number_value(tol) < 0 ||
		    json_number_value(tol) > 1e6)
			return fail(err, E_BAD_REQUEST,
				    "\"float_tolerance\" must be a number in [0, 1e6]");
		r->float_tolerance = json_number_value(tol);
	}
	if (r->format == FMT_STDIO && r->stdin_data)
		return fail(err, E_BAD_REQUEST,
			    "stdio takes each case's input from \"tests\", "
			    "not \"stdin\"");
	return 0;
}

static int parse_fields(json_t *root, const struct proto_bounds *b, struct proto_request *r,
			struct proto_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v)
	{
		int rc = 0;
		if (strcmp(key, F_ID) == 0 || strcmp(key, F_OP) == 0 || is_test_field(key)) {
			continue; /* handled by the caller / parse_tests */
		} else if (strcmp(key, F_CODE) == 0 || strcmp(key, F_STDIN) == 0) {
			if (!json_is_string(v))
				return fail(err, E_BAD_REQUEST, "\"%s\" must be a string", key);
			bool is_code = strcmp(key, F_CODE) == 0;
			if (is_code) {
				if (memchr(json_string_value(v), 0, json_string_length(v)))
					return fail(err, E_BAD_REQUEST,
						    "\"code\" contains a NUL byte");
				r->code = dup_string(v, &r->code_len);
			} else {
				r->stdin_data = dup_string(v, &r->stdin_len);
			}
			if (!(is_code ? r->code : r->stdin_data))
				return fail(err, E_INTERNAL, "out of memory");
		} else if (strcmp(key, F_FILES) == 0) {
			rc = parse_files(v, b, r, err);
		} else if (strcmp(key, F_LIMITS) == 0) {
			rc = parse_limits(v, &r->limits, err);
		} else if (strcmp(key, F_POLICY) == 0) {
			rc = parse_policy(v, r, err);
		} else {
			return fail(err, E_BAD_REQUEST, "unknown field \"%.64s\"", key);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

int proto_parse_request(const char *line, size_t len, const struct proto_bounds *b,
			struct proto_request *r, char **id_out, struct proto_error *err)
{
	json_error_t jerr;
	struct proto_limits unset = PROTO_LIMITS_UNSET;
	memset(r, 0, sizeof *r);
	r->limits = unset;
	*id_out = NULL;
	if (len > b->max_line)
		return fail(err, E_TOO_LARGE, "request of %zu bytes exceeds %zu", len, b->max_line);
	json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!root)
		return fail(err, E_BAD_JSON, "invalid JSON at column %d: %s", jerr.column,
			    jerr.text);
	int rc = -1;
	if (!json_is_object(root)) {
		fail(err, E_BAD_JSON, "a request must be a JSON object");
		goto out;
	}
	json_t *id = json_object_get(root, F_ID);
	if (!json_is_string(id) || json_string_length(id) == 0 ||
	    json_string_length(id) > b->max_id ||
	    memchr(json_string_value(id), 0, json_string_length(id))) {
		fail(err, E_BAD_REQUEST, "\"id\" must be a non-empty string of at most %zu bytes",
		     b->max_id);
		goto out;
	}
	*id_out = strdup(json_string_value(id));
	r->id = strdup(json_string_value(id));
	if (!*id_out || !r->id) {
		fail(err, E_INTERNAL, "out of memory");
		goto out;
	}
	json_t *op = json_object_get(root, F_OP);
	if (op &&
	    (!json_is_string(op) || strlen(json_string_value(op)) != json_string_length(op))) {
		fail(err, E_BAD_REQUEST, "\"op\" must be a string without NUL bytes");
		goto out;
	}
	if (!op || strcmp(json_string_value(op), "run") == 0) {
		r->op = OP_RUN;
	} else if (strcmp(json_string_value(op), "ping") == 0) {
		r->op = OP_PING;
		if (json_object_size(root) != 2) {
			fail(err, E_BAD_REQUEST, "\"ping\" takes only \"id\" and \"op\"");
			goto out;
		}
	} else {
		fail(err, E_BAD_REQUEST, "unknown op \"%.32s\"", json_string_value(op));
		goto out;
	}
	if (parse_fields(root, b, r, err) < 0 || parse_tests(root, b, r, err) < 0)
		goto out;
	if (r->op == OP_RUN && !r->code) {
		fail(err, E_BAD_REQUEST, "missing \"code\"");
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0)
		proto_request_free(r);
	return rc;
}

void proto_request_free(struct proto_request *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].data);
	}
	free(r->files);
	for (size_t i = 0; i < r->nasserts; i++)
		free(r->asserts[i]);
	free(r->asserts);
	for (size_t i = 0; i < r->ncases; i++) {
		free(r->cases[i].input);
		free(r->cases[i].output);
	}
	free(r->cases);
	free(r->tests_text);
	free(r->entry_point);
	free(r->id);
	free(r->code);
	free(r->stdin_data);
	free(r->policy);
	memset(r, 0, sizeof *r);
}

char *proto_error_line(const char *id, enum proto_errcode code, const char *message)
{
	json_t *o = json_pack("{s:o,s:{s:s,s:o}}", F_ID, id ? json_string(id) : json_null(),
			      R_ERROR, R_ERROR_CODE, proto_errcode_name(code), R_ERROR_MESSAGE,
			      proto_json_bytes(message, strlen(message)));
	if (!o)
		return NULL;
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

json_t *proto_json_bytes(const char *data, size_t len)
{
	size_t n;
	char *clean = text_utf8_clean(data, len, &n);
	if (!clean)
		return json_string("");
	json_t *s = json_stringn_nocheck(clean, n);
	free(clean);
	return s;
}
