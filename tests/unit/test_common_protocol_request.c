/* Unit tests for the wire protocol's requests (common/protocol.c): parsing and
 * validation, every kind of bad input with its error code and the id echoed
 * when it could be read. Error lines, UTF-8 sanitising and the name tables
 * are in test_common_protocol_output.c. Everything here is pure: no daemon,
 * no root. */
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

/* Parses line[0..len) and checks it fails with `code`, *id_out equal to
 * want_id (NULL: not filled), a non-empty message and, when msg_sub is given,
 * a message containing it. `what` names the case in failure messages. */
static void expect_error_n(const char *what, const char *line, size_t len, enum proto_errcode code,
			   const char *want_id, const char *msg_sub)
{
	struct proto_request req;
	struct proto_error err = {.code = E_COUNT, .message = ""};
	char *id = (char *)"sentinel";
	int rc = proto_parse_request(line, len, &B, &req, &id, &err);
	ck_assert_msg(rc == -1, "%s: parse succeeded, expected %s", what, proto_errcode_name(code));
	ck_assert_msg(err.code == code, "%s: error code %s (%s), expected %s", what,
		      proto_errcode_name(err.code), err.message, proto_errcode_name(code));
	ck_assert_msg(err.message[0] != '\0', "%s: empty error message", what);
	if (msg_sub)
		ck_assert_msg(strstr(err.message, msg_sub) != NULL,
			      "%s: message \"%s\" does not mention \"%s\"", what, err.message,
			      msg_sub);
	if (want_id) {
		ck_assert_msg(id != NULL, "%s: id_out not filled, expected \"%s\"", what, want_id);
		ck_assert_msg(strcmp(id, want_id) == 0, "%s: id_out \"%s\", expected \"%s\"", what,
			      id, want_id);
	} else {
		ck_assert_msg(id == NULL, "%s: id_out is \"%s\", expected NULL", what,
			      id ? id : "(null)");
	}
	/* A failed parse leaves nothing to free; freeing again must be harmless. */
	ck_assert_ptr_null(req.id);
	ck_assert_ptr_null(req.code);
	ck_assert_ptr_null(req.files);
	proto_request_free(&req);
	free(id);
}

static void expect_error(const char *what, const char *line, enum proto_errcode code,
			 const char *want_id, const char *msg_sub)
{
	expect_error_n(what, line, strlen(line), code, want_id, msg_sub);
}

/* Parses a line that must be accepted; the caller frees req. */
static void parse_ok_n(const char *what, const char *line, size_t len, struct proto_request *req)
{
	struct proto_error err = {.code = E_COUNT, .message = ""};
	char *id = NULL;
	int rc = proto_parse_request(line, len, &B, req, &id, &err);
	ck_assert_msg(rc == 0, "%s: refused with %s: %s", what, proto_errcode_name(err.code),
		      err.message);
	ck_assert_ptr_nonnull(req->id);
	free(id);
}

static void parse_ok(const char *what, const char *line, struct proto_request *req)
{
	parse_ok_n(what, line, strlen(line), req);
}

static const struct proto_file *find_file(const struct proto_request *r, const char *path)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (strcmp(r->files[i].path, path) == 0)
			return &r->files[i];
	return NULL;
}

/* ---- valid requests ---------------------------------------------------- */

START_TEST(test_minimal_request)
{
	struct proto_request r;
	struct proto_error err;
	char *id = NULL;
	const char *line = "{\"id\":\"1\",\"code\":\"print(1)\"}";
	ck_assert_int_eq(proto_parse_request(line, strlen(line), &B, &r, &id, &err), 0);
	ck_assert_str_eq(r.id, "1");
	ck_assert_int_eq(r.op, OP_RUN);
	ck_assert_str_eq(r.code, "print(1)");
	ck_assert_uint_eq(r.code_len, 8);
	ck_assert_ptr_null(r.stdin_data);
	ck_assert_uint_eq(r.stdin_len, 0);
	ck_assert_ptr_null(r.files);
	ck_assert_uint_eq(r.nfiles, 0);
	ck_assert_ptr_null(r.policy);
	for (int i = 0; i < PROTO_NLIMITS; i++)
		ck_assert_msg(proto_limit_get(&r.limits, i) == -1, "limit %s is %ld, expected -1",
			      proto_limit_names[i], proto_limit_get(&r.limits, i));
	/* The id is handed out on success too (the caller frees it). */
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(id, "1");
	free(id);
	proto_request_free(&r);
	ck_assert_ptr_null(r.id);
	ck_assert_ptr_null(r.code);
}
END_TEST

START_TEST(test_explicit_run_and_whitespace)
{
	struct proto_request r;
	parse_ok("op run", " {\"op\":\"run\",\"code\":\"x=1\",\"id\":\"abc\"}\n", &r);
	ck_assert_int_eq(r.op, OP_RUN);
	ck_assert_str_eq(r.id, "abc");
	ck_assert_str_eq(r.code, "x=1");
	proto_request_free(&r);
}
END_TEST

START_TEST(test_ping)
{
	struct proto_request r;
	parse_ok("ping", "{\"id\":\"p\",\"op\":\"ping\"}", &r);
	ck_assert_int_eq(r.op, OP_PING);
	ck_assert_str_eq(r.id, "p");
	ck_assert_ptr_null(r.code);
	proto_request_free(&r);
	parse_ok("ping, op first", "{\"op\":\"ping\",\"id\":\"q\"}", &r);
	ck_assert_int_eq(r.op, OP_PING);
	ck_assert_str_eq(r.id, "q");
	proto_request_free(&r);
}
END_TEST

START_TEST(test_ping_with_extra_field)
{
	expect_error("ping + code", "{\"id\":\"p\",\"op\":\"ping\",\"code\":\"x\"}", E_BAD_REQUEST,
		     "p", "ping");
	expect_error("ping + unknown", "{\"id\":\"p\",\"op\":\"ping\",\"x\":1}", E_BAD_REQUEST, "p",
		     NULL);
	expect_error("ping + limits", "{\"id\":\"p\",\"op\":\"ping\",\"limits\":{}}", E_BAD_REQUEST,
		     "p", NULL);
}
END_TEST

START_TEST(test_full_request_content_preserved)
{
	struct proto_request r;
	const char *line = "{\"id\":\"full\",\"code\":\"print('\xc3\xa9')\","
			   "\"stdin\":\"in\\u0000put\\n\","
			   "\"files\":{\"pkg/mod.py\":\"x = 1\\n\",\"data/bin.dat\":\"a\\u0000b\","
			   "\"empty\":\"\",\"pkg/sub/main.py\":\"# not reserved here\"},"
			   "\"limits\":{\"cpu_ms\":1500,\"wall_ms\":3000,\"memory_mb\":256,"
			   "\"pids\":32,\"output_kb\":100,\"tmpfs_mb\":16},"
			   "\"policy\":\"python\"}";
	parse_ok("full", line, &r);
	ck_assert_int_eq(r.op, OP_RUN);
	ck_assert_str_eq(r.code, "print('\xc3\xa9')");
	ck_assert_uint_eq(r.code_len, strlen("print('\xc3\xa9')"));
	ck_assert_uint_eq(r.stdin_len, 7);
	ck_assert_int_eq(memcmp(r.stdin_data, "in\0put\n", 7), 0);
	ck_assert_uint_eq(r.nfiles, 4);
	const struct proto_file *f = find_file(&r, "pkg/mod.py");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 6);
	ck_assert_int_eq(memcmp(f->data, "x = 1\n", 6), 0);
	f = find_file(&r, "data/bin.dat");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 3);
	ck_assert_int_eq(memcmp(f->data, "a\0b", 3), 0);
	f = find_file(&r, "empty");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 0);
	ck_assert_str_eq(f->data, "");
	ck_assert_ptr_nonnull(find_file(&r, "pkg/sub/main.py"));
	ck_assert_int_eq(r.limits.cpu_ms, 1500);
	ck_assert_int_eq(r.limits.wall_ms, 3000);
	ck_assert_int_eq(r.limits.memory_mb, 256);
	ck_assert_int_eq(r.limits.pids, 32);
	ck_assert_int_eq(r.limits.output_kb, 100);
	ck_assert_int_eq(r.limits.tmpfs_mb, 16);
	ck_assert_str_eq(r.policy, "python");
	proto_request_free(&r);
}
END_TEST

START_TEST(test_empty_containers_accepted)
{
	struct proto_request r;
	parse_ok("empty", "{\"id\":\"e\",\"code\":\"\",\"stdin\":\"\",\"files\":{},\"limits\":{}}",
		 &r);
	ck_assert_ptr_nonnull(r.code);
	ck_assert_uint_eq(r.code_len, 0);
	ck_assert_ptr_nonnull(r.stdin_data);
	ck_assert_uint_eq(r.stdin_len, 0);
	ck_assert_uint_eq(r.nfiles, 0);
	for (int i = 0; i < PROTO_NLIMITS; i++)
		ck_assert_int_eq(proto_limit_get(&r.limits, i), -1);
	proto_request_free(&r);
}
END_TEST

START_TEST(test_fail_fast_and_case_limits)
{
	struct proto_request r;
	parse_ok("fail_fast",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":"
		 "\"\",\"output\":\"\"}],\"fail_fast\":true,\"limits\":{\"case_cpu_ms\":7,"
		 "\"case_wall_ms\":9}}",
		 &r);
	ck_assert(r.fail_fast);
	ck_assert_int_eq(r.limits.case_cpu_ms, 7);
	ck_assert_int_eq(r.limits.case_wall_ms, 9);
	ck_assert_int_eq(r.limits.cpu_ms, -1);
	proto_request_free(&r);
	parse_ok("no fail_fast",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":"
		 "\"\",\"output\":\"\"}]}",
		 &r);
	ck_assert(!r.fail_fast);
	ck_assert_int_eq(r.limits.case_cpu_ms, -1);
	proto_request_free(&r);
}
END_TEST

/* A seed on a plain run; expected_output and its count on stdio. */
START_TEST(test_seed_and_expected_output)
{
	struct proto_request r;
	parse_ok("plain seed", "{\"id\":\"s\",\"code\":\"x\",\"seed\":4294967295}", &r);
	ck_assert_int_eq(r.format, FMT_NONE);
	ck_assert_int_eq(r.seed, 4294967295LL);
	proto_request_free(&r);
	parse_ok("no seed", "{\"id\":\"s\",\"code\":\"x\"}", &r);
	ck_assert_int_eq(r.seed, -1);
	ck_assert(!r.hide_expected);
	proto_request_free(&r);
	parse_ok("hide",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":"
		 "\"\",\"output\":\"\"}],\"expected_output\":\"hide\",\"expected_visible_chars\":"
		 "1000}",
		 &r);
	ck_assert(r.hide_expected);
	ck_assert_int_eq(r.visible_chars, 1000);
	proto_request_free(&r);
	parse_ok("hide, no count",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":"
		 "\"\",\"output\":\"\"}],\"expected_output\":\"hide\"}",
		 &r);
	ck_assert(r.hide_expected);
	ck_assert_int_eq(r.visible_chars, 0);
	proto_request_free(&r);
	parse_ok("show",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":"
		 "\"\",\"output\":\"\"}],\"expected_output\":\"show\"}",
		 &r);
	ck_assert(!r.hide_expected);
	proto_request_free(&r);
	parse_ok("partial_mode default",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\"}", &r);
	ck_assert_int_eq(r.partial_mode, PM_FIXED);
	proto_request_free(&r);
	parse_ok("partial_mode convcodeworld",
		 "{\"id\":\"s\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
		 "\"partial_mode\":\"convcodeworld\"}",
		 &r);
	ck_assert_int_eq(r.partial_mode, PM_CONVCODEWORLD);
	proto_request_free(&r);
}
END_TEST

START_TEST(test_limits_partial_and_huge)
{
	struct proto_request r;
	parse_ok("partial", "{\"id\":\"l\",\"code\":\"x\",\"limits\":{\"wall_ms\":1}}", &r);
	ck_assert_int_eq(r.limits.wall_ms, 1);
	ck_assert_int_eq(r.limits.cpu_ms, -1);
	ck_assert_int_eq(r.limits.memory_mb, -1);
	ck_assert_int_eq(r.limits.pids, -1);
	ck_assert_int_eq(r.limits.output_kb, -1);
	ck_assert_int_eq(r.limits.tmpfs_mb, -1);
	proto_request_free(&r);
	/* 2^62 and INT64_MAX are clamped to 2^40, not refused. */
	parse_ok("huge",
		 "{\"id\":\"h\",\"code\":\"x\",\"limits\":{\"cpu_ms\":4611686018427387904,"
		 "\"memory_mb\":9223372036854775807,\"pids\":1099511627776,"
		 "\"tmpfs_mb\":1099511627777}}",
		 &r);
	ck_assert_int_eq(r.limits.cpu_ms, 1L << 40);
	ck_assert_int_eq(r.limits.memory_mb, 1L << 40);
	ck_assert_int_eq(r.limits.pids, 1L << 40);
	ck_assert_int_eq(r.limits.tmpfs_mb, 1L << 40);
	ck_assert_int_eq(r.limits.wall_ms, -1);
	proto_request_free(&r);
}
END_TEST

/* tenant: kept when well-formed (whether the peer may give one is the
 * daemon's decision); its charset and length are bounded here. */
START_TEST(test_tenant_field)
{
	struct proto_request r;
	parse_ok("no tenant", "{\"id\":\"1\",\"code\":\"x\"}", &r);
	ck_assert_ptr_null(r.tenant);
	proto_request_free(&r);
	char long_ok[PROTO_TENANT_MAX + 1], line[256];
	memset(long_ok, 'a', PROTO_TENANT_MAX);
	long_ok[PROTO_TENANT_MAX] = '\0';
	const char *ok[] = {"alice", "team-7.user_3", "X", long_ok};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		snprintf(line, sizeof line, "{\"id\":\"1\",\"code\":\"x\",\"tenant\":\"%s\"}",
			 ok[i]);
		parse_ok(ok[i], line, &r);
		ck_assert_str_eq(r.tenant, ok[i]);
		proto_request_free(&r);
	}
	const char *bad[] = {"\"\"",	      "\"a b\"",   "\"a/b\"", "\"a\\u0000b\"",
			     "\"p\xc3\xa9\"", "\"a\\nb\"", "1",	      "null",
			     "[\"a\"]",	      "\"" /* long: below */};
	for (size_t i = 0; i + 1 < sizeof bad / sizeof *bad; i++) {
		snprintf(line, sizeof line, "{\"id\":\"T\",\"code\":\"x\",\"tenant\":%s}", bad[i]);
		expect_error(bad[i], line, E_BAD_REQUEST, "T", "tenant");
	}
	snprintf(line, sizeof line, "{\"id\":\"T\",\"code\":\"x\",\"tenant\":\"%sb\"}", long_ok);
	expect_error("65 bytes", line, E_BAD_REQUEST, "T", "tenant");
	expect_error("ping with tenant", "{\"id\":\"T\",\"op\":\"ping\",\"tenant\":\"a\"}",
		     E_BAD_REQUEST, "T", NULL);
}
END_TEST

/* "timing" is a boolean, false when absent; ping takes none. */
START_TEST(test_timing_field)
{
	struct proto_request r;
	parse_ok("no timing", "{\"id\":\"1\",\"code\":\"x\"}", &r);
	ck_assert(!r.timing);
	proto_request_free(&r);
	parse_ok("timing true", "{\"id\":\"1\",\"code\":\"x\",\"timing\":true}", &r);
	ck_assert(r.timing);
	proto_request_free(&r);
	parse_ok("timing false", "{\"id\":\"1\",\"code\":\"x\",\"timing\":false}", &r);
	ck_assert(!r.timing);
	proto_request_free(&r);
	const char *bad[] = {"1", "0", "\"true\"", "null", "[true]", "{}"};
	char line[128];
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(line, sizeof line, "{\"id\":\"T\",\"code\":\"x\",\"timing\":%s}", bad[i]);
		expect_error(bad[i], line, E_BAD_REQUEST, "T", "timing");
	}
	expect_error("ping with timing", "{\"id\":\"T\",\"op\":\"ping\",\"timing\":true}",
		     E_BAD_REQUEST, "T", NULL);
}
END_TEST

START_TEST(test_policy_names_valid)
{
	static const char *const ok[] = {
	    "python", "my-policy_2", "P",
	    /* 63 characters: the longest accepted */
	    "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789a"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char line[256];
		struct proto_request r;
		snprintf(line, sizeof line, "{\"id\":\"1\",\"code\":\"x\",\"policy\":\"%s\"}",
			 ok[i]);
		parse_ok(ok[i], line, &r);
		ck_assert_str_eq(r.policy, ok[i]);
		proto_request_free(&r);
	}
}
END_TEST

/* ---- bad input, table-driven -------------------------------------------- */

struct bad_case {
	const char *what;
	const char *line;
	enum proto_errcode code;
	const char *id;	     /* expected id_out, NULL when unreadable */
	const char *msg_sub; /* substring the message must contain, or NULL */
};

static const struct bad_case bad[] = {
    /* not a JSON object */
    {"not JSON", "hello", E_BAD_JSON, NULL, NULL},
    {"empty line", "", E_BAD_JSON, NULL, NULL},
    {"truncated object", "{\"id\":\"1\",\"code\":\"x\"", E_BAD_JSON, NULL, NULL},
    {"JSON array", "[{\"id\":\"1\",\"code\":\"x\"}]", E_BAD_JSON, NULL, "object"},
    {"JSON string", "\"id\"", E_BAD_JSON, NULL, NULL},
    {"JSON null", "null", E_BAD_JSON, NULL, NULL},
    {"JSON number", "42", E_BAD_JSON, NULL, NULL},
    {"trailing garbage", "{\"id\":\"1\",\"code\":\"x\"} x", E_BAD_JSON, NULL, NULL},
    {"two objects", "{\"id\":\"1\",\"code\":\"x\"}{\"id\":\"2\",\"code\":\"x\"}", E_BAD_JSON, NULL,
     NULL},
    {"duplicate id", "{\"id\":\"1\",\"id\":\"2\",\"code\":\"x\"}", E_BAD_JSON, NULL, NULL},
    {"duplicate code", "{\"id\":\"1\",\"code\":\"x\",\"code\":\"y\"}", E_BAD_JSON, NULL, NULL},
    {"duplicate file", "{\"id\":\"1\",\"code\":\"x\",\"files\":{\"a\":\"1\",\"a\":\"2\"}}",
     E_BAD_JSON, NULL, NULL},
    {"duplicate limit", "{\"id\":\"1\",\"code\":\"x\",\"limits\":{\"pids\":1,\"pids\":2}}",
     E_BAD_JSON, NULL, NULL},
    {"invalid UTF-8 in a string", "{\"id\":\"1\",\"code\":\"\xff\"}", E_BAD_JSON, NULL, NULL},
    {"invalid UTF-8 in a key", "{\"id\":\"1\",\"code\":\"x\",\"\xc3\x28\":1}", E_BAD_JSON, NULL,
     NULL},
    {"overlong UTF-8", "{\"id\":\"1\",\"code\":\"\xc0\xaf\"}", E_BAD_JSON, NULL, NULL},
    {"UTF-8 surrogate", "{\"id\":\"1\",\"code\":\"\xed\xa0\x80\"}", E_BAD_JSON, NULL, NULL},
    {"truncated UTF-8", "{\"id\":\"1\",\"code\":\"\xe2\x82\"}", E_BAD_JSON, NULL, NULL},
    {"lone surrogate escape", "{\"id\":\"1\",\"code\":\"\\ud800\"}", E_BAD_JSON, NULL, NULL},
    {"NUL in a key", "{\"id\":\"1\",\"code\":\"x\",\"files\":{\"a\\u0000b\":\"\"}}", E_BAD_JSON,
     NULL, NULL},
    /* the id */
    {"missing id", "{\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"numeric id", "{\"id\":1,\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"null id", "{\"id\":null,\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"object id", "{\"id\":{},\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"empty id", "{\"id\":\"\",\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"id with NUL", "{\"id\":\"a\\u0000b\",\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    {"id with NUL first", "{\"id\":\"\\u0000\",\"code\":\"x\"}", E_BAD_REQUEST, NULL, "id"},
    /* fields and types */
    {"unknown field", "{\"id\":\"u\",\"code\":\"x\",\"extra\":1}", E_BAD_REQUEST, "u", "extra"},
    {"unknown field, case", "{\"id\":\"u\",\"Code\":\"x\"}", E_BAD_REQUEST, "u", NULL},
    {"code number", "{\"id\":\"t\",\"code\":1}", E_BAD_REQUEST, "t", "code"},
    {"code null", "{\"id\":\"t\",\"code\":null}", E_BAD_REQUEST, "t", "code"},
    {"code array", "{\"id\":\"t\",\"code\":[\"x\"]}", E_BAD_REQUEST, "t", "code"},
    {"stdin number", "{\"id\":\"t\",\"code\":\"x\",\"stdin\":5}", E_BAD_REQUEST, "t", "stdin"},
    {"stdin null", "{\"id\":\"t\",\"code\":\"x\",\"stdin\":null}", E_BAD_REQUEST, "t", "stdin"},
    {"files array", "{\"id\":\"t\",\"code\":\"x\",\"files\":[\"a\"]}", E_BAD_REQUEST, "t", "files"},
    {"files string", "{\"id\":\"t\",\"code\":\"x\",\"files\":\"a\"}", E_BAD_REQUEST, "t", "files"},
    {"limits array", "{\"id\":\"t\",\"code\":\"x\",\"limits\":[1]}", E_BAD_REQUEST, "t", "limits"},
    {"limits number", "{\"id\":\"t\",\"code\":\"x\",\"limits\":1000}", E_BAD_REQUEST, "t",
     "limits"},
    {"policy number", "{\"id\":\"t\",\"code\":\"x\",\"policy\":1}", E_BAD_REQUEST, "t", "policy"},
    {"policy null", "{\"id\":\"t\",\"code\":\"x\",\"policy\":null}", E_BAD_REQUEST, "t", "policy"},
    {"op number", "{\"id\":\"t\",\"op\":1,\"code\":\"x\"}", E_BAD_REQUEST, "t", "op"},
    {"op null", "{\"id\":\"t\",\"op\":null,\"code\":\"x\"}", E_BAD_REQUEST, "t", "op"},
    {"code with NUL", "{\"id\":\"n\",\"code\":\"print(1)\\u0000\"}", E_BAD_REQUEST, "n", "NUL"},
    {"missing code", "{\"id\":\"m\"}", E_BAD_REQUEST, "m", "code"},
    {"missing code, other fields", "{\"id\":\"m\",\"stdin\":\"x\",\"files\":{}}", E_BAD_REQUEST,
     "m", "code"},
    {"missing code, op run", "{\"id\":\"m\",\"op\":\"run\"}", E_BAD_REQUEST, "m", "code"},
    {"unknown op", "{\"id\":\"o\",\"op\":\"exec\",\"code\":\"x\"}", E_BAD_REQUEST, "o", "exec"},
    {"op in upper case", "{\"id\":\"o\",\"op\":\"PING\"}", E_BAD_REQUEST, "o", NULL},
    {"empty op", "{\"id\":\"o\",\"op\":\"\",\"code\":\"x\"}", E_BAD_REQUEST, "o", NULL},
    /* limits */
    {"limit unknown key", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"cpu\":1}}", E_BAD_LIMITS, "L",
     "cpu"},
    {"limit string", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"cpu_ms\":\"100\"}}", E_BAD_LIMITS,
     "L", "cpu_ms"},
    {"limit bool", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"pids\":true}}", E_BAD_LIMITS, "L",
     "pids"},
    {"limit null", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"pids\":null}}", E_BAD_LIMITS, "L",
     "pids"},
    {"limit zero", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"wall_ms\":0}}", E_BAD_LIMITS, "L",
     "wall_ms"},
    {"limit negative", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"memory_mb\":-1}}", E_BAD_LIMITS,
     "L", "memory_mb"},
    {"limit very negative",
     "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"memory_mb\":-9223372036854775808}}", E_BAD_LIMITS,
     "L", "memory_mb"},
    {"limit float", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"output_kb\":1.5}}", E_BAD_LIMITS,
     "L", "output_kb"},
    {"limit float, integral", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"tmpfs_mb\":2.0}}",
     E_BAD_LIMITS, "L", "tmpfs_mb"},
    {"limit exponent", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"cpu_ms\":1e3}}", E_BAD_LIMITS,
     "L", "cpu_ms"},
    {"limit object", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"cpu_ms\":{}}}", E_BAD_LIMITS, "L",
     "cpu_ms"},
    {"good limit then bad", "{\"id\":\"L\",\"code\":\"x\",\"limits\":{\"cpu_ms\":5,\"pids\":0}}",
     E_BAD_LIMITS, "L", "pids"},
    /* file paths */
    {"absolute path", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"/etc/passwd\":\"\"}}", E_BAD_PATH,
     "f", "absolute"},
    {"dotdot", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"..\":\"\"}}", E_BAD_PATH, "f", NULL},
    {"dotdot first", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"../x\":\"\"}}", E_BAD_PATH, "f",
     NULL},
    {"dotdot middle", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a/../b\":\"\"}}", E_BAD_PATH, "f",
     "'..'"},
    {"dotdot last", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a/..\":\"\"}}", E_BAD_PATH, "f",
     NULL},
    {"dot first", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"./a\":\"\"}}", E_BAD_PATH, "f", NULL},
    {"dot alone", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\".\":\"\"}}", E_BAD_PATH, "f", NULL},
    {"dot middle", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a/./b\":\"\"}}", E_BAD_PATH, "f",
     NULL},
    {"empty component", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a//b\":\"\"}}", E_BAD_PATH, "f",
     "empty"},
    {"trailing slash", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a/\":\"\"}}", E_BAD_PATH, "f",
     "'/'"},
    {"empty path", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"\":\"\"}}", E_BAD_PATH, "f", "empty"},
    {"control char", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\\u0001b\":\"\"}}", E_BAD_PATH,
     "f", "control"},
    {"newline in path", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\\nb\":\"\"}}", E_BAD_PATH, "f",
     "control"},
    {"DEL in path", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\\u007f\":\"\"}}", E_BAD_PATH, "f",
     "control"},
    {"main.py reserved", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"main.py\":\"\"}}", E_BAD_PATH,
     "f", "main.py"},
    {"content number", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\":1}}", E_BAD_REQUEST, "f",
     "content"},
    {"content null", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\":null}}", E_BAD_REQUEST, "f",
     "content"},
    {"content object", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\":{\"b\":\"x\"}}}",
     E_BAD_REQUEST, "f", "content"},
    {"file and dir", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a\":\"1\",\"a/b\":\"2\"}}",
     E_BAD_PATH, "f", "directory"},
    {"dir and file", "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"a/b\":\"1\",\"a\":\"2\"}}",
     E_BAD_PATH, "f", "directory"},
    {"file and deeper dir",
     "{\"id\":\"f\",\"code\":\"x\",\"files\":{\"p/q\":\"1\",\"z\":\"\",\"p/q/r/s\":\"2\"}}",
     E_BAD_PATH, "f", "directory"},
    /* policy names */
    {"policy empty", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"\"}", E_UNKNOWN_POLICY, "P", NULL},
    {"policy traversal", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"../etc/passwd\"}",
     E_UNKNOWN_POLICY, "P", NULL},
    {"policy slash", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"a/b\"}", E_UNKNOWN_POLICY, "P",
     NULL},
    {"policy dot", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"python.json\"}", E_UNKNOWN_POLICY,
     "P", NULL},
    {"policy space", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"py thon\"}", E_UNKNOWN_POLICY, "P",
     NULL},
    {"policy non-ASCII", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"p\xc3\xa9\"}", E_UNKNOWN_POLICY,
     "P", NULL},
    {"policy NUL", "{\"id\":\"P\",\"code\":\"x\",\"policy\":\"python\\u0000x\"}", E_UNKNOWN_POLICY,
     "P", NULL},
    {"policy 64 chars",
     "{\"id\":\"P\",\"code\":\"x\",\"policy\":"
     "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789ab\"}",
     E_UNKNOWN_POLICY, "P", NULL},
    /* fail_fast: a boolean, stdio only, and a test field like the others */
    {"fail_fast string",
     "{\"id\":\"F\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"fail_fast\":\"yes\"}",
     E_BAD_REQUEST, "F", "fail_fast"},
    {"fail_fast asserts",
     "{\"id\":\"F\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
     "\"fail_fast\":true}",
     E_BAD_REQUEST, "F", "stdio only"},
    {"fail_fast plain run", "{\"id\":\"F\",\"code\":\"x\",\"fail_fast\":false}", E_BAD_REQUEST, "F",
     "fail_fast"},
    /* isolation: a known value, only for the call-based formats */
    {"isolation unknown",
     "{\"id\":\"I\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
     "\"isolation\":\"thread\"}",
     E_BAD_REQUEST, "I", "none or process"},
    {"isolation not a string",
     "{\"id\":\"I\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
     "\"isolation\":1}",
     E_BAD_REQUEST, "I", "none or process"},
    {"isolation process for unittest",
     "{\"id\":\"I\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
     "\"isolation\":\"process\"}",
     E_BAD_REQUEST, "I", "call-based"},
    {"isolation process for stdio",
     "{\"id\":\"I\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"isolation\":\"process\"}",
     E_BAD_REQUEST, "I", "call-based"},
    {"isolation without tests", "{\"id\":\"I\",\"code\":\"x\",\"isolation\":\"process\"}",
     E_BAD_REQUEST, "I", "needs"},
    /* seed: an integer in [0, 2^32-1], for plain runs too */
    {"seed on a plain run too big", "{\"id\":\"S\",\"code\":\"x\",\"seed\":4294967296}",
     E_BAD_REQUEST, "S", "seed"},
    {"seed negative", "{\"id\":\"S\",\"code\":\"x\",\"seed\":-1}", E_BAD_REQUEST, "S", "seed"},
    {"seed string", "{\"id\":\"S\",\"code\":\"x\",\"seed\":\"7\"}", E_BAD_REQUEST, "S", "seed"},
    /* expected_output: show or hide, stdio only; the count with hide only */
    {"expected_output unknown",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":\"mask\"}",
     E_BAD_REQUEST, "E", "show or hide"},
    {"expected_output not a string",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":false}",
     E_BAD_REQUEST, "E", "show or hide"},
    {"expected_output asserts",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
     "\"expected_output\":\"hide\"}",
     E_BAD_REQUEST, "E", "stdio only"},
    {"expected_output plain run", "{\"id\":\"E\",\"code\":\"x\",\"expected_output\":\"hide\"}",
     E_BAD_REQUEST, "E", "needs"},
    {"visible chars with show",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":\"show\",\"expected_visible_chars\":3}",
     E_BAD_REQUEST, "E", "goes with"},
    {"visible chars alone",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_visible_chars\":3}",
     E_BAD_REQUEST, "E", "goes with"},
    {"visible chars negative",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":\"hide\",\"expected_visible_chars\":-1}",
     E_BAD_REQUEST, "E", "expected_visible_chars"},
    {"visible chars too many",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":\"hide\",\"expected_visible_chars\":1001}",
     E_BAD_REQUEST, "E", "expected_visible_chars"},
    /* partial_mode: fixed or convcodeworld, convcodeworld for unittest only */
    {"partial_mode unknown",
     "{\"id\":\"P\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
     "\"partial_mode\":\"first3\"}",
     E_BAD_REQUEST, "P", "fixed or convcodeworld"},
    {"partial_mode not a string",
     "{\"id\":\"P\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
     "\"partial_mode\":3}",
     E_BAD_REQUEST, "P", "fixed or convcodeworld"},
    {"partial_mode convcodeworld humaneval",
     "{\"id\":\"P\",\"code\":\"x\",\"format\":\"humaneval\",\"tests\":\"t\","
     "\"entry_point\":\"f\",\"partial_mode\":\"convcodeworld\"}",
     E_BAD_REQUEST, "P", "unittest"},
    {"partial_mode plain run", "{\"id\":\"P\",\"code\":\"x\",\"partial_mode\":\"fixed\"}",
     E_BAD_REQUEST, "P", "needs"},
    {"visible chars a number",
     "{\"id\":\"E\",\"code\":\"x\",\"format\":\"stdio\",\"tests\":[{\"input\":\"\","
     "\"output\":\"\"}],\"expected_output\":\"hide\",\"expected_visible_chars\":2.5}",
     E_BAD_REQUEST, "E", "expected_visible_chars"},
};

START_TEST(test_bad_request)
{
	const struct bad_case *c = &bad[_i];
	expect_error(c->what, c->line, c->code, c->id, c->msg_sub);
}
END_TEST

/* ---- bad input needing generated lines ---------------------------------- */

START_TEST(test_id_length_bound)
{
	char *id = str_repeat('i', 256);
	char line[1024];
	struct proto_request r;
	snprintf(line, sizeof line, "{\"id\":\"%s\",\"code\":\"x\"}", id);
	parse_ok("id of 256 bytes", line, &r);
	ck_assert_str_eq(r.id, id);
	proto_request_free(&r);
	free(id);
	id = str_repeat('i', 257);
	snprintf(line, sizeof line, "{\"id\":\"%s\",\"code\":\"x\"}", id);
	expect_error("id of 257 bytes", line, E_BAD_REQUEST, NULL, "id");
	free(id);
	/* 86 three-byte characters are 258 bytes: the bound is in bytes. */
	char big[1024] = "{\"id\":\"";
	for (int i = 0; i < 86; i++)
		strcat(big, "\xe2\x82\xac");
	strcat(big, "\",\"code\":\"x\"}");
	expect_error("id of 258 UTF-8 bytes", big, E_BAD_REQUEST, NULL, "id");
}
END_TEST

START_TEST(test_line_length_bound)
{
	const char *line = "{\"id\":\"big\",\"code\":\"print(1)\"}";
	size_t n = strlen(line);
	struct proto_request r;
	B.max_line = n;
	parse_ok_n("exactly max_line", line, n, &r);
	proto_request_free(&r);
	B.max_line = n - 1;
	/* Refused before parsing: the id is not read even though it is there. */
	expect_error_n("max_line + 1", line, n, E_TOO_LARGE, NULL, NULL);

	/* The default bound, 16 MiB: one byte more is refused unread. */
	proto_bounds_default(&B);
	size_t big = B.max_line + 1;
	char *buf = str_repeat(' ', big);
	memcpy(buf, line, n);
	expect_error_n("16 MiB + 1", buf, big, E_TOO_LARGE, NULL, NULL);
	free(buf);
}
END_TEST

static char *files_request(const char *id, const char *path)
{
	size_t n = strlen(path) + strlen(id) + 64;
	char *s = malloc(n);
	ck_assert_ptr_nonnull(s);
	snprintf(s, n, "{\"id\":\"%s\",\"code\":\"x\",\"files\":{\"%s\":\"c\"}}", id, path);
	return s;
}

START_TEST(test_path_depth_bound)
{
	char path[128] = "";
	struct proto_request r;
	for (int i = 0; i < 16; i++)
		strcat(path, i ? "/d" : "d");
	char *line = files_request("deep", path); /* 16 components */
	parse_ok("16 levels", line, &r);
	ck_assert_uint_eq(r.nfiles, 1);
	ck_assert_str_eq(r.files[0].path, path);
	proto_request_free(&r);
	free(line);
	strcat(path, "/d"); /* 17 components */
	line = files_request("deep", path);
	expect_error("17 levels", line, E_BAD_PATH, "deep", "deep");
	free(line);
}
END_TEST

START_TEST(test_path_length_bound)
{
	struct proto_request r;
	char *path = str_repeat('p', 255);
	char *line = files_request("len", path);
	parse_ok("255-byte path", line, &r);
	ck_assert_str_eq(r.files[0].path, path);
	proto_request_free(&r);
	free(line);
	free(path);
	path = str_repeat('p', 256);
	line = files_request("len", path);
	expect_error("256-byte path", line, E_BAD_PATH, "len", "long");
	free(line);
	free(path);
	/* Long in total though each component is short. */
	path = str_repeat('a', 256);
	for (int i = 1; i < 256; i += 2)
		path[i] = '/';
	path[255] = 'z';
	line = files_request("len", path);
	expect_error("256-byte path of short components", line, E_BAD_PATH, "len", NULL);
	free(line);
	free(path);
}
END_TEST

static char *many_files_request(size_t n)
{
	size_t cap = 64 + n * 32;
	char *s = malloc(cap);
	ck_assert_ptr_nonnull(s);
	size_t o = (size_t)snprintf(s, cap, "{\"id\":\"many\",\"code\":\"x\",\"files\":{");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, cap - o, "%s\"f%zu\":\"%zu\"", i ? "," : "", i, i);
	snprintf(s + o, cap - o, "}}");
	return s;
}

START_TEST(test_file_count_bound)
{
	struct proto_request r;
	char *line = many_files_request(256);
	parse_ok("256 files", line, &r);
	ck_assert_uint_eq(r.nfiles, 256);
	const struct proto_file *f = find_file(&r, "f255");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->data, "255");
	proto_request_free(&r);
	free(line);
	line = many_files_request(257);
	expect_error("257 files", line, E_TOO_LARGE, "many", NULL);
	free(line);
}
END_TEST

START_TEST(test_deep_nesting)
{
	size_t n = 100000;
	char *s = str_repeat('[', n);
	expect_error_n("100000 '['", s, n, E_BAD_JSON, NULL, NULL);
	free(s);
	/* The same inside a request whose id has already been seen. */
	const char *head = "{\"id\":\"nest\",\"code\":\"x\",\"files\":";
	size_t h = strlen(head);
	s = malloc(h + n + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, head, h);
	memset(s + h, '[', n);
	s[h + n] = '\0';
	expect_error_n("nested in files", s, h + n, E_BAD_JSON, NULL, NULL);
	/* Balanced nesting far past the parser's depth bound. */
	char *bal = malloc(2 * n + 1);
	ck_assert_ptr_nonnull(bal);
	memset(bal, '[', n);
	memset(bal + n, ']', n);
	bal[2 * n] = '\0';
	expect_error_n("balanced 100000", bal, 2 * n, E_BAD_JSON, NULL, NULL);
	free(bal);
	free(s);
}
END_TEST

START_TEST(test_len_is_authoritative)
{
	/* Only len bytes are parsed: a valid request followed by junk past len. */
	const char *buf = "{\"id\":\"1\",\"code\":\"x\"}GARBAGE";
	struct proto_request r;
	parse_ok_n("prefix", buf, strlen("{\"id\":\"1\",\"code\":\"x\"}"), &r);
	proto_request_free(&r);
	/* And a NUL byte inside the line is not the end of it. */
	const char nul[] = "{\"id\":\"1\",\"code\":\"x\"}\0 ";
	expect_error_n("raw NUL in line", nul, sizeof nul - 1, E_BAD_JSON, NULL, NULL);
}
END_TEST

/* BUG probe: "main.py" is reserved for the code, but a path that makes
 * main.py a directory ("main.py/x") is accepted; the jail then creates the
 * directory /work/main.py and fails writing the code there (EEXIST), so the
 * client gets verdict "error" instead of a bad_path refusal. */
START_TEST(test_main_py_as_directory_refused)
{
	expect_error("main.py/x", "{\"id\":\"mp\",\"code\":\"x\",\"files\":{\"main.py/x\":\"\"}}",
		     E_BAD_PATH, "mp", NULL);
}
END_TEST

/* BUG probe: op is compared with strcmp, so a NUL inside it truncates the
 * comparison and "run\u0000junk" is accepted as "run". */
START_TEST(test_op_with_nul_refused)
{
	expect_error("op run+NUL", "{\"id\":\"o\",\"op\":\"run\\u0000junk\",\"code\":\"x\"}",
		     E_BAD_REQUEST, "o", NULL);
	expect_error("op ping+NUL", "{\"id\":\"o\",\"op\":\"ping\\u0000junk\"}", E_BAD_REQUEST, "o",
		     NULL);
}
END_TEST

START_TEST(test_check_path_direct)
{
	static const char *const good[] = {"a",	  "pkg/mod.py", ".hidden",     "..a",
					   "a..", "a.b/c.d",	"main.py.bak", "sub/main.py",
					   "x y", "\xc3\xa9"};
	static const char *const badp[] = {"",	    "/a",   "a/",     "a//b",	".",
					   "..",    "./a",  "a/.",    "a/../b", "\x01",
					   "a\x1f", "\x7f", "main.py"};
	char msg[64];
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		msg[0] = '\0';
		ck_assert_msg(proto_check_path(good[i], &B, msg, sizeof msg) == 0,
			      "\"%s\" refused: %s", good[i], msg);
	}
	for (size_t i = 0; i < sizeof badp / sizeof badp[0]; i++) {
		msg[0] = '\0';
		ck_assert_msg(proto_check_path(badp[i], &B, msg, sizeof msg) == -1,
			      "bad path #%zu accepted", i);
		ck_assert_msg(msg[0] != '\0', "bad path #%zu: no message", i);
	}
	/* Custom bounds are honoured. */
	struct proto_bounds small = B;
	small.max_depth = 2;
	small.max_path = 5;
	ck_assert_int_eq(proto_check_path("a/b", &small, msg, sizeof msg), 0);
	ck_assert_int_eq(proto_check_path("a/b/c", &small, msg, sizeof msg), -1);
	ck_assert_int_eq(proto_check_path("abcde", &small, msg, sizeof msg), 0);
	ck_assert_int_eq(proto_check_path("abcdef", &small, msg, sizeof msg), -1);
}
END_TEST

START_TEST(test_files_non_conflicts)
{
	struct proto_request r;
	parse_ok("siblings and prefixes",
		 "{\"id\":\"c\",\"code\":\"x\",\"files\":{\"a/b\":\"1\",\"a/c\":\"2\",\"ab\":\"3\","
		 "\"a.b\":\"4\",\"abc/d\":\"5\",\"a/bc\":\"6\"}}",
		 &r);
	ck_assert_uint_eq(r.nfiles, 6);
	ck_assert_str_eq(find_file(&r, "abc/d")->data, "5");
	ck_assert_str_eq(find_file(&r, "a/bc")->data, "6");
	proto_request_free(&r);
}
END_TEST

START_TEST(test_isolation_values)
{
	static const struct {
		const char *line;
		enum proto_isolation want;
	} cases[] = {
	    {"{\"id\":\"i\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"]}",
	     ISO_NONE},
	    {"{\"id\":\"i\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
	     "\"isolation\":\"process\"}",
	     ISO_PROCESS},
	    {"{\"id\":\"i\",\"code\":\"x\",\"format\":\"humaneval\",\"tests\":\"t\","
	     "\"entry_point\":\"f\",\"isolation\":\"process\"}",
	     ISO_PROCESS},
	    {"{\"id\":\"i\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
	     "\"isolation\":\"none\"}",
	     ISO_NONE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct proto_request r;
		parse_ok("isolation", cases[i].line, &r);
		ck_assert_int_eq(r.isolation, cases[i].want);
		proto_request_free(&r);
	}
	ck_assert_str_eq(proto_isolation_name(ISO_PROCESS), "process");
	ck_assert_str_eq(proto_isolation_name(ISO_NONE), "none");
}
END_TEST

START_TEST(test_bounds_default)
{
	struct proto_bounds b;
	memset(&b, 0, sizeof b);
	proto_bounds_default(&b);
	ck_assert_uint_eq(b.max_line, 16u << 20);
	ck_assert_uint_eq(b.max_id, 256);
	ck_assert_uint_eq(b.max_files, 256);
	ck_assert_uint_eq(b.max_path, 255);
	ck_assert_uint_eq(b.max_depth, 16);
}
END_TEST

static Suite *protocol_request_suite(void)
{
	Suite *s = suite_create("protocol_request");

	TCase *ok = tcase_create("valid");
	tcase_add_checked_fixture(ok, setup_bounds, NULL);
	tcase_add_test(ok, test_minimal_request);
	tcase_add_test(ok, test_explicit_run_and_whitespace);
	tcase_add_test(ok, test_ping);
	tcase_add_test(ok, test_full_request_content_preserved);
	tcase_add_test(ok, test_empty_containers_accepted);
	tcase_add_test(ok, test_limits_partial_and_huge);
	tcase_add_test(ok, test_fail_fast_and_case_limits);
	tcase_add_test(ok, test_seed_and_expected_output);
	tcase_add_test(ok, test_policy_names_valid);
	tcase_add_test(ok, test_tenant_field);
	tcase_add_test(ok, test_timing_field);
	tcase_add_test(ok, test_files_non_conflicts);
	tcase_add_test(ok, test_bounds_default);
	tcase_add_test(ok, test_isolation_values);
	suite_add_tcase(s, ok);

	TCase *bad_tc = tcase_create("invalid");
	tcase_add_checked_fixture(bad_tc, setup_bounds, NULL);
	tcase_set_timeout(bad_tc, 60);
	tcase_add_test(bad_tc, test_ping_with_extra_field);
	tcase_add_loop_test(bad_tc, test_bad_request, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(bad_tc, test_id_length_bound);
	tcase_add_test(bad_tc, test_line_length_bound);
	tcase_add_test(bad_tc, test_path_depth_bound);
	tcase_add_test(bad_tc, test_path_length_bound);
	tcase_add_test(bad_tc, test_file_count_bound);
	tcase_add_test(bad_tc, test_deep_nesting);
	tcase_add_test(bad_tc, test_len_is_authoritative);
	tcase_add_test(bad_tc, test_check_path_direct);
	tcase_add_test(bad_tc, test_main_py_as_directory_refused);
	tcase_add_test(bad_tc, test_op_with_nul_refused);
	suite_add_tcase(s, bad_tc);
	return s;
}

int main(void)
{
	return tmain(protocol_request_suite, NULL);
}
