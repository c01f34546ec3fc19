/* Unit tests for what the wire protocol writes (common/protocol.c): error
 * lines, UTF-8 sanitising of arbitrary bytes (proto_json_bytes), and the
 * name tables. Requests are in test_common_protocol_request.c. Everything
 * here is pure: no daemon, no root. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

#define FFFD "\xef\xbf\xbd"

static struct proto_bounds B;

static void setup_bounds(void)
{
	proto_bounds_default(&B);
}

/* ---- error lines --------------------------------------------------------- */

static json_t *load_line(const char *s)
{
	json_error_t je;
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(strchr(s, '\n'));
	json_t *o = json_loads(s, JSON_REJECT_DUPLICATES, &je);
	ck_assert_msg(o != NULL, "not valid JSON (%s): %s", je.text, s);
	ck_assert(json_is_object(o));
	ck_assert_uint_eq(json_object_size(o), 2);
	return o;
}

START_TEST(test_error_line_null_id)
{
	char *s = proto_error_line(NULL, E_BAD_JSON, "invalid JSON at column 1");
	json_t *o = load_line(s);
	ck_assert(json_is_null(json_object_get(o, "id")));
	json_t *e = json_object_get(o, "error");
	ck_assert(json_is_object(e));
	ck_assert_uint_eq(json_object_size(e), 2);
	ck_assert_str_eq(json_string_value(json_object_get(e, "code")), "bad_json");
	ck_assert_str_eq(json_string_value(json_object_get(e, "message")),
			 "invalid JSON at column 1");
	json_decref(o);
	free(s);
}
END_TEST

START_TEST(test_error_line_with_id)
{
	const char *id = "id \"quoted\" \\ \xc3\xa9\n";
	char *s = proto_error_line(id, E_BAD_LIMITS, "limit \"pids\" must be positive");
	json_t *o = load_line(s);
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), id);
	json_t *e = json_object_get(o, "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "code")), "bad_limits");
	ck_assert_str_eq(json_string_value(json_object_get(e, "message")),
			 "limit \"pids\" must be positive");
	json_decref(o);
	free(s);
	for (int c = 0; c < E_COUNT; c++) {
		s = proto_error_line("x", (enum proto_errcode)c, "");
		o = load_line(s);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(o, "error"), "code")),
		    proto_errcode_name((enum proto_errcode)c));
		json_decref(o);
		free(s);
	}
}
END_TEST

START_TEST(test_error_line_sanitises_message)
{
	char *s = proto_error_line("7", E_BAD_PATH, "file \"a\xff\xc3\": bad");
	json_t *o = load_line(s);
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "7");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "error"), "message")),
			 "file \"a" FFFD FFFD "\": bad");
	json_decref(o);
	free(s);
}
END_TEST

/* The parser truncates keys with "%.64s"; a multi-byte key can be cut inside a
 * character, and the error line must still be valid JSON. */
START_TEST(test_error_line_after_truncated_key)
{
	char line[512] = "{\"id\":\"k\",\"code\":\"x\",\"";
	strcat(line, "a");
	for (int i = 0; i < 40; i++)
		strcat(line, "\xc3\xa9");
	strcat(line, "\":1}");
	struct proto_request r;
	struct proto_error err;
	char *id = NULL;
	ck_assert_int_eq(proto_parse_request(line, strlen(line), &B, &r, &id, &err), -1);
	ck_assert_int_eq(err.code, E_BAD_REQUEST);
	char *s = proto_error_line(id, err.code, err.message);
	json_t *o = load_line(s);
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "k");
	const char *m = json_string_value(json_object_get(json_object_get(o, "error"), "message"));
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(strstr(m, FFFD));
	json_decref(o);
	free(s);
	free(id);
}
END_TEST

/* ---- proto_json_bytes ---------------------------------------------------- */

struct bytes_case {
	const char *what;
	const char *in;
	size_t in_len;
	const char *out;
	size_t out_len;
};

#define BC(w, i, o)                                                                                \
	{                                                                                          \
		w, i, sizeof(i) - 1, o, sizeof(o) - 1                                              \
	}
static const struct bytes_case bytes_cases[] = {
    BC("empty", "", ""),
    BC("ascii", "hello, world\n\t", "hello, world\n\t"),
    BC("2-byte", "caf\xc3\xa9", "caf\xc3\xa9"),
    BC("3-byte", "\xe2\x82\xac 5", "\xe2\x82\xac 5"),
    BC("4-byte emoji", "hi \xf0\x9f\x98\x80!", "hi \xf0\x9f\x98\x80!"),
    BC("U+10FFFF", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"),
    BC("U+D7FF", "\xed\x9f\xbf", "\xed\x9f\xbf"),
    BC("U+E000", "\xee\x80\x80", "\xee\x80\x80"),
    BC("U+FFFD itself", FFFD, FFFD),
    BC("U+0080", "\xc2\x80", "\xc2\x80"),
    BC("U+0800", "\xe0\xa0\x80", "\xe0\xa0\x80"),
    BC("U+10000", "\xf0\x90\x80\x80", "\xf0\x90\x80\x80"),
    BC("0xff", "\xff", FFFD),
    BC("0xff inside",
       "a\xff"
       "b",
       "a" FFFD "b"),
    BC("0xfe", "\xfe", FFFD),
    BC("lone continuation", "\x80", FFFD),
    BC("continuation inside", "x\x80y", "x" FFFD "y"),
    BC("overlong NUL c0 80", "\xc0\x80", FFFD FFFD),
    BC("overlong c1 bf", "\xc1\xbf", FFFD FFFD),
    BC("overlong 3-byte", "\xe0\x80\xaf", FFFD FFFD FFFD),
    BC("overlong 4-byte", "\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD),
    BC("surrogate ED A0 80", "\xed\xa0\x80", FFFD FFFD FFFD),
    BC("surrogate ED BF BF", "\xed\xbf\xbf", FFFD FFFD FFFD),
    BC("above U+10FFFF", "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD),
    BC("f5 lead", "\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD),
    BC("truncated 2-byte at end", "ab\xc3", "ab" FFFD),
    BC("truncated 3-byte at end", "ab\xe2\x82", "ab" FFFD FFFD),
    BC("truncated 4-byte at end", "\xf0\x9f\x98", FFFD FFFD FFFD),
    BC("truncated then ascii",
       "\xe2\x82"
       "a",
       FFFD FFFD "a"),
    BC("lead then lead", "\xc3\xc3\xa9", FFFD "\xc3\xa9"),
    BC("embedded NUL", "a\0b", "a\0b"),
    BC("NUL then invalid", "\0\xff\0", "\0" FFFD "\0"),
};

START_TEST(test_json_bytes)
{
	const struct bytes_case *c = &bytes_cases[_i];
	json_t *j = proto_json_bytes(c->in, c->in_len);
	ck_assert_msg(j != NULL && json_is_string(j), "%s: not a JSON string", c->what);
	size_t n = json_string_length(j);
	ck_assert_msg(n == c->out_len, "%s: length %zu, expected %zu", c->what, n, c->out_len);
	ck_assert_msg(memcmp(json_string_value(j), c->out, n) == 0, "%s: bytes differ", c->what);
	/* It must serialise and read back identically: valid JSON whatever the input. */
	json_t *arr = json_pack("[O]", j);
	char *s = json_dumps(arr, JSON_COMPACT);
	ck_assert_msg(s != NULL, "%s: does not serialise", c->what);
	json_error_t je;
	json_t *back = json_loads(s, JSON_ALLOW_NUL, &je);
	ck_assert_msg(back != NULL, "%s: serialised form is not valid JSON: %s", c->what, je.text);
	json_t *b0 = json_array_get(back, 0);
	ck_assert_uint_eq(json_string_length(b0), c->out_len);
	ck_assert(memcmp(json_string_value(b0), c->out, c->out_len) == 0);
	json_decref(back);
	free(s);
	json_decref(arr);
	json_decref(j);
}
END_TEST

START_TEST(test_json_bytes_all_invalid_large)
{
	/* Every byte bad: the output is three times the input. */
	size_t n = 100000;
	char *in = str_repeat('\xff', n);
	json_t *j = proto_json_bytes(in, n);
	ck_assert_uint_eq(json_string_length(j), 3 * n);
	const char *v = json_string_value(j);
	for (size_t i = 0; i < n; i++)
		ck_assert(memcmp(v + 3 * i, FFFD, 3) == 0);
	json_decref(j);
	/* Only len bytes are read: the rest of the buffer is ignored. */
	j = proto_json_bytes("abc\xff", 3);
	ck_assert_uint_eq(json_string_length(j), 3);
	ck_assert_str_eq(json_string_value(j), "abc");
	json_decref(j);
	free(in);
}
END_TEST

START_TEST(test_json_bytes_every_byte_value)
{
	/* Each single byte: below 0x80 kept, anything else replaced. */
	for (int b = 0; b < 256; b++) {
		char in = (char)b;
		json_t *j = proto_json_bytes(&in, 1);
		ck_assert_ptr_nonnull(j);
		if (b < 0x80) {
			ck_assert_uint_eq(json_string_length(j), 1);
			ck_assert_int_eq((unsigned char)json_string_value(j)[0], b);
		} else {
			ck_assert_msg(json_string_length(j) == 3 &&
					  memcmp(json_string_value(j), FFFD, 3) == 0,
				      "byte 0x%02x not replaced", b);
		}
		json_decref(j);
	}
}
END_TEST

/* ---- names ---------------------------------------------------------------- */

START_TEST(test_verdict_names)
{
	static const char *const want[V_COUNT] = {
	    [V_PASS] = "pass",
	    [V_FAIL] = "fail",
	    [V_COMPILE_ERROR] = "compile_error",
	    [V_RUNTIME_ERROR] = "runtime_error",
	    [V_TIMEOUT] = "timeout",
	    [V_MEMORY_LIMIT] = "memory_limit",
	    [V_OUTPUT_LIMIT] = "output_limit",
	    [V_VIOLATION] = "violation",
	    [V_ERROR] = "error",
	};
	for (int v = 0; v < V_COUNT; v++) {
		const char *n = proto_verdict_name((enum proto_verdict)v);
		ck_assert_msg(n != NULL, "verdict %d has no name", v);
		ck_assert_str_eq(n, want[v]);
	}
	ck_assert_str_eq(proto_verdict_name(V_COUNT), "error");
	ck_assert_str_eq(proto_verdict_name((enum proto_verdict) - 1), "error");
}
END_TEST

START_TEST(test_limit_hit_names)
{
	static const char *const want[HIT_COUNT] = {
	    [HIT_NONE] = NULL,
	    [HIT_CPU] = "cpu",
	    [HIT_WALL] = "wall",
	    [HIT_MEMORY] = "memory",
	    [HIT_PIDS] = "pids",
	    [HIT_OUTPUT] = "output",
	    [HIT_FILE_SIZE] = "file_size",
	    [HIT_CASE_CPU] = "case_cpu",
	    [HIT_CASE_WALL] = "case_wall",
	};
	ck_assert_ptr_null(proto_limit_hit_name(HIT_NONE));
	for (int h = 1; h < HIT_COUNT; h++) {
		const char *n = proto_limit_hit_name((enum proto_limit_hit)h);
		ck_assert_msg(n != NULL, "limit hit %d has no name", h);
		ck_assert_str_eq(n, want[h]);
	}
	ck_assert_ptr_null(proto_limit_hit_name(HIT_COUNT));
}
END_TEST

START_TEST(test_errcode_names)
{
	static const char *const want[E_COUNT] = {
	    [E_BAD_JSON] = "bad_json",	 [E_BAD_REQUEST] = "bad_request",
	    [E_TOO_LARGE] = "too_large", [E_BAD_LIMITS] = "bad_limits",
	    [E_BAD_PATH] = "bad_path",	 [E_UNKNOWN_POLICY] = "unknown_policy",
	    [E_BUSY] = "busy",		 [E_FORBIDDEN] = "forbidden",
	    [E_INTERNAL] = "internal",	 [E_SHUTTING_DOWN] = "shutting_down",
	};
	for (int e = 0; e < E_COUNT; e++) {
		const char *n = proto_errcode_name((enum proto_errcode)e);
		ck_assert_msg(n != NULL, "error code %d has no name", e);
		ck_assert_str_eq(n, want[e]);
	}
	ck_assert_str_eq(proto_errcode_name(E_COUNT), "internal");
}
END_TEST

START_TEST(test_limit_table)
{
	static const char *const want[PROTO_NLIMITS] = {"cpu_ms",      "wall_ms",      "memory_mb",
							"pids",	       "output_kb",    "tmpfs_mb",
							"case_cpu_ms", "case_wall_ms", "cpus"};
	struct proto_limits l = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		ck_assert_str_eq(proto_limit_names[i], want[i]);
		ck_assert_int_eq(proto_limit_get(&l, i), i + 1);
	}
	ck_assert_ptr_eq(proto_limit_ref(&l, 0), &l.cpu_ms);
	ck_assert_ptr_eq(proto_limit_ref(&l, 1), &l.wall_ms);
	ck_assert_ptr_eq(proto_limit_ref(&l, 2), &l.memory_mb);
	ck_assert_ptr_eq(proto_limit_ref(&l, 3), &l.pids);
	ck_assert_ptr_eq(proto_limit_ref(&l, 4), &l.output_kb);
	ck_assert_ptr_eq(proto_limit_ref(&l, 5), &l.tmpfs_mb);
	ck_assert_ptr_eq(proto_limit_ref(&l, 6), &l.case_cpu_ms);
	ck_assert_ptr_eq(proto_limit_ref(&l, 7), &l.case_wall_ms);
	ck_assert_ptr_eq(proto_limit_ref(&l, 8), &l.cpus);
	ck_assert_ptr_null(proto_limit_ref(&l, -1));
	ck_assert_ptr_null(proto_limit_ref(&l, PROTO_NLIMITS));
	struct proto_limits u = PROTO_LIMITS_UNSET;
	for (int i = 0; i < PROTO_NLIMITS; i++)
		ck_assert_int_eq(proto_limit_get(&u, i), -1);
}
END_TEST

static Suite *protocol_output_suite(void)
{
	Suite *s = suite_create("protocol_output");

	TCase *lines = tcase_create("error_line");
	tcase_add_checked_fixture(lines, setup_bounds, NULL);
	tcase_add_test(lines, test_error_line_null_id);
	tcase_add_test(lines, test_error_line_with_id);
	tcase_add_test(lines, test_error_line_sanitises_message);
	tcase_add_test(lines, test_error_line_after_truncated_key);
	suite_add_tcase(s, lines);

	TCase *bytes = tcase_create("json_bytes");
	tcase_add_loop_test(bytes, test_json_bytes, 0,
			    (int)(sizeof bytes_cases / sizeof bytes_cases[0]));
	tcase_add_test(bytes, test_json_bytes_all_invalid_large);
	tcase_add_test(bytes, test_json_bytes_every_byte_value);
	suite_add_tcase(s, bytes);

	TCase *names = tcase_create("names");
	tcase_add_test(names, test_verdict_names);
	tcase_add_test(names, test_limit_hit_names);
	tcase_add_test(names, test_errcode_names);
	tcase_add_test(names, test_limit_table);
	suite_add_tcase(s, names);
	return s;
}

int main(void)
{
	return tmain(protocol_output_suite, NULL);
}
