/* Request parsing, the test half: the fields of a test request (format,
 * tests, entry point, coverage, limits per test, seed, tolerance, fail_fast,
 * isolation). Every byte came from an untrusted client, as in protocol.c. */
#include "common/protocol.h"
#include "common/protocol_priv.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const test_fields[] = {F_TESTS,
					  F_FORMAT,
					  F_ENTRY_POINT,
					  F_COVERAGE,
					  F_PARTIAL_TESTS,
					  F_TEST_TIMEOUT_MS,
					  F_SEED,
					  F_FLOAT_TOLERANCE,
					  F_FAIL_FAST,
					  F_ISOLATION,
					  F_EXPECTED_OUTPUT,
					  F_EXPECTED_VISIBLE_CHARS,
					  F_PARTIAL_MODE,
					  NULL};

bool proto_is_test_field(const char *key)
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
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be an integer in [%lld, %lld]",
				  key, lo, hi);
	*out = json_integer_value(v);
	return 0;
}

static int parse_asserts(json_t *t, const struct proto_bounds *b, struct proto_request *r,
			 struct proto_error *err)
{
	size_t n = json_array_size(t), i;
	json_t *v;
	if (!json_is_array(t) || n == 0)
		return proto_fail(err, E_BAD_REQUEST,
				  "asserts: \"tests\" must be a non-empty array of "
				  "strings");
	if (n > b->max_tests)
		return proto_fail(err, E_TOO_LARGE, "too many tests (%zu > %zu)", n, b->max_tests);
	r->asserts = calloc(n, sizeof *r->asserts);
	if (!r->asserts)
		return proto_fail(err, E_INTERNAL, "out of memory");
	json_array_foreach(t, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    memchr(json_string_value(v), 0, json_string_length(v)))
			return proto_fail(err, E_BAD_REQUEST,
					  "tests[%zu] must be a non-empty string", i);
		if (!(r->asserts[r->nasserts++] = strdup(json_string_value(v))))
			return proto_fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

static int parse_cases(json_t *t, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	size_t n = json_array_size(t), i;
	json_t *v;
	if (!json_is_array(t) || n == 0)
		return proto_fail(err, E_BAD_REQUEST,
				  "stdio: \"tests\" must be a non-empty array of {input, output}");
	if (n > b->max_tests)
		return proto_fail(err, E_TOO_LARGE, "too many tests (%zu > %zu)", n, b->max_tests);
	r->cases = calloc(n, sizeof *r->cases);
	if (!r->cases)
		return proto_fail(err, E_INTERNAL, "out of memory");
	json_array_foreach(t, i, v)
	{
		json_t *in = json_object_get(v, F_CASE_INPUT),
		       *out = json_object_get(v, F_CASE_OUTPUT);
		if (!json_is_object(v) || !json_is_string(in) || !json_is_string(out) ||
		    json_object_size(v) != 2)
			return proto_fail(
			    err, E_BAD_REQUEST,
			    "tests[%zu] must be {\"input\": string, \"output\": string}", i);
		struct proto_case *c = &r->cases[r->ncases++];
		c->input = proto_dup_string(in, &c->input_len);
		c->output = proto_dup_string(out, &c->output_len);
		if (!c->input || !c->output)
			return proto_fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

/* expected_output and expected_visible_chars: stdio only, and the count
 * only with "hide" (a count that would change nothing is a mistake to
 * report, not to ignore). */
static int parse_expected(json_t *root, struct proto_request *r, struct proto_error *err)
{
	json_t *eo = json_object_get(root, F_EXPECTED_OUTPUT),
	       *vc = json_object_get(root, F_EXPECTED_VISIBLE_CHARS);
	if ((eo || vc) && r->format != FMT_STDIO)
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" applies to stdio only",
				  eo ? F_EXPECTED_OUTPUT : F_EXPECTED_VISIBLE_CHARS);
	if (eo && !(json_is_string(eo) && (strcmp(json_string_value(eo), EXPECTED_SHOW) == 0 ||
					   strcmp(json_string_value(eo), EXPECTED_HIDE) == 0)))
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be %s or %s", F_EXPECTED_OUTPUT,
				  EXPECTED_SHOW, EXPECTED_HIDE);
	r->hide_expected = eo && strcmp(json_string_value(eo), EXPECTED_HIDE) == 0;
	if (vc && !r->hide_expected)
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" goes with \"%s\": \"%s\"",
				  F_EXPECTED_VISIBLE_CHARS, F_EXPECTED_OUTPUT, EXPECTED_HIDE);
	long long n = 0;
	if (get_int(root, F_EXPECTED_VISIBLE_CHARS, 0, PROTO_VISIBLE_CHARS_MAX, &n, err) < 0)
		return -1;
	r->visible_chars = (long)n;
	return 0;
}

/* partial_mode: ConvCodeWorld's rule counts method definitions in the
 * test source, which only unittest suites have. */
static int parse_partial_mode(json_t *root, struct proto_request *r, struct proto_error *err)
{
	json_t *pm = json_object_get(root, F_PARTIAL_MODE);
	if (!pm)
		return 0;
	const char *v = json_string_value(pm);
	if (!v ||
	    (strcmp(v, PARTIAL_MODE_FIXED) != 0 && strcmp(v, PARTIAL_MODE_CONVCODEWORLD) != 0))
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be %s or %s", F_PARTIAL_MODE,
				  PARTIAL_MODE_FIXED, PARTIAL_MODE_CONVCODEWORLD);
	if (strcmp(v, PARTIAL_MODE_CONVCODEWORLD) == 0 && r->format != FMT_UNITTEST)
		return proto_fail(err, E_BAD_REQUEST,
				  "\"%s\": \"%s\" counts the methods of a unittest suite's "
				  "classes; %s has none",
				  F_PARTIAL_MODE, PARTIAL_MODE_CONVCODEWORLD,
				  proto_format_name(r->format));
	r->partial_mode = strcmp(v, PARTIAL_MODE_CONVCODEWORLD) == 0 ? PM_CONVCODEWORLD : PM_FIXED;
	return 0;
}

/* The feedback fields: all or nothing, and only in combinations that mean
 * something, so a harness learns of a typo instead of getting a plain run. */
int proto_parse_tests(json_t *root, const struct proto_bounds *b, struct proto_request *r,
		      struct proto_error *err)
{
	json_t *fmt = json_object_get(root, F_FORMAT), *tests = json_object_get(root, F_TESTS);
	r->partial_tests = 3;
	r->test_timeout_ms = -1;
	r->seed = -1;
	r->float_tolerance = -1;
	/* A seed applies to plain runs too (sandboxd/run/run.c). */
	if (get_int(root, F_SEED, 0, 4294967295LL, &r->seed, err) < 0)
		return -1;
	if (!fmt && !tests) {
		for (int i = 0; test_fields[i]; i++)
			if (strcmp(test_fields[i], F_SEED) != 0 &&
			    json_object_get(root, test_fields[i]))
				return proto_fail(err, E_BAD_REQUEST,
						  "\"%s\" needs \"tests\" and \"format\"",
						  test_fields[i]);
		return 0;
	}
	if (!fmt || !tests)
		return proto_fail(err, E_BAD_REQUEST, "\"tests\" and \"format\" go together");
	if (!json_is_string(fmt))
		return proto_fail(err, E_BAD_REQUEST, "\"format\" must be a string");
	for (int f = FMT_UNITTEST; f < FMT_COUNT; f++)
		if (strcmp(json_string_value(fmt), proto_format_name(f)) == 0)
			r->format = (enum proto_format)f;
	if (r->format == FMT_NONE)
		return proto_fail(err, E_BAD_REQUEST,
				  "\"format\" must be unittest, humaneval, asserts or stdio");
	int rc = 0;
	if (r->format == FMT_UNITTEST || r->format == FMT_HUMANEVAL) {
		if (!json_is_string(tests) || json_string_length(tests) == 0 ||
		    memchr(json_string_value(tests), 0, json_string_length(tests)))
			return proto_fail(err, E_BAD_REQUEST,
					  "%s: \"tests\" must be a non-empty string",
					  proto_format_name(r->format));
		r->tests_text = proto_dup_string(tests, &r->tests_len);
		if (!r->tests_text)
			return proto_fail(err, E_INTERNAL, "out of memory");
	} else if (r->format == FMT_ASSERTS) {
		rc = parse_asserts(tests, b, r, err);
	} else {
		rc = parse_cases(tests, b, r, err);
	}
	if (rc < 0)
		return -1;
	json_t *ep = json_object_get(root, F_ENTRY_POINT);
	if (ep && (!json_is_string(ep) || !is_identifier(json_string_value(ep))))
		return proto_fail(err, E_BAD_REQUEST,
				  "\"entry_point\" must be a Python identifier");
	if (ep && !(r->entry_point = strdup(json_string_value(ep))))
		return proto_fail(err, E_INTERNAL, "out of memory");
	if (r->format == FMT_HUMANEVAL && !ep)
		return proto_fail(err, E_BAD_REQUEST, "humaneval needs \"entry_point\"");
	json_t *cov = json_object_get(root, F_COVERAGE);
	if (cov) {
		int c = COV_COUNT;
		for (int i = 0; json_is_string(cov) && i < COV_COUNT; i++)
			if (strcmp(json_string_value(cov), proto_coverage_name(i)) == 0)
				c = i;
		if (c == COV_COUNT)
			return proto_fail(err, E_BAD_REQUEST,
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
	json_t *tol = json_object_get(root, F_FLOAT_TOLERANCE);
	if (tol) {
		if (r->format != FMT_STDIO)
			return proto_fail(err, E_BAD_REQUEST,
					  "\"float_tolerance\" applies to stdio only");
		if (!json_is_number(tol) || json_number_value(tol) < 0 ||
		    json_number_value(tol) > 1e6)
			return proto_fail(err, E_BAD_REQUEST,
					  "\"float_tolerance\" must be a number in [0, 1e6]");
		r->float_tolerance = json_number_value(tol);
	}
	json_t *ff = json_object_get(root, F_FAIL_FAST);
	if (ff && r->format != FMT_STDIO)
		return proto_fail(err, E_BAD_REQUEST, "\"fail_fast\" applies to stdio only");
	if (ff && !json_is_boolean(ff))
		return proto_fail(err, E_BAD_REQUEST, "\"fail_fast\" must be true or false");
	r->fail_fast = json_is_true(ff);
	if (parse_expected(root, r, err) < 0 || parse_partial_mode(root, r, err) < 0)
		return -1;
	json_t *iso = json_object_get(root, F_ISOLATION);
	if (iso) {
		int i = ISO_COUNT;
		for (int k = 0; json_is_string(iso) && k < ISO_COUNT; k++)
			if (strcmp(json_string_value(iso), proto_isolation_name(k)) == 0)
				i = k;
		if (i == ISO_COUNT)
			return proto_fail(err, E_BAD_REQUEST,
					  "\"isolation\" must be none or process");
		if (i == ISO_PROCESS && r->format != FMT_HUMANEVAL && r->format != FMT_ASSERTS)
			return proto_fail(
			    err, E_BAD_REQUEST,
			    "\"isolation\": \"process\" is for the call-based formats "
			    "(humaneval, asserts); %s runs %s",
			    proto_format_name(r->format),
			    r->format == FMT_STDIO ? "each case in its own process already"
						   : "its tests in the candidate's process");
		r->isolation = (enum proto_isolation)i;
	}
	if (r->format == FMT_STDIO && r->stdin_data)
		return proto_fail(err, E_BAD_REQUEST,
				  "stdio takes each case's input from \"tests\", "
				  "not \"stdin\"");
	return 0;
}
