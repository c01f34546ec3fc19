/* Unit tests for the protocol's binary files and fetch_files
 * (common/protocol.c): a files value is a string or exactly
 * {"base64": padded base64}, decoded to its bytes (NULs included) and
 * mixed freely with string files; fetch_files is an array of at most
 * PROTO_FETCH_MAX_FILES distinct paths under the files path rules
 * (main.py allowed). Pure: no daemon, no root. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"
#include "tests/helpers/tmain.h"

static struct proto_bounds B;

static void setup_bounds(void)
{
	proto_bounds_default(&B);
}

static int parse(const char *line, struct proto_request *r, struct proto_error *err)
{
	char *id = NULL;
	int rc = proto_parse_request(line, strlen(line), &B, r, &id, err);
	free(id);
	return rc;
}

static void expect(const char *line, enum proto_errcode code, const char *sub)
{
	struct proto_request r;
	struct proto_error err = {.code = E_COUNT, .message = ""};
	ck_assert_msg(parse(line, &r, &err) == -1, "accepted: %s", line);
	ck_assert_msg(err.code == code, "%s: %s (%s), expected %s", line,
		      proto_errcode_name(err.code), err.message, proto_errcode_name(code));
	if (sub)
		ck_assert_msg(strstr(err.message, sub), "%s: message '%s' lacks '%s'", line,
			      err.message, sub);
}

START_TEST(test_base64_files_decoded)
{
	struct proto_request r;
	struct proto_error err;
	ck_assert_int_eq(parse("{\"id\":\"1\",\"code\":\"x\",\"files\":{\"a.bin\":{\"base64\":"
			       "\"AAEC/w==\"},\"t.txt\":\"text\",\"e\":{\"base64\":\"\"}}}",
			       &r, &err),
			 0);
	ck_assert_uint_eq(r.nfiles, 3);
	for (size_t i = 0; i < r.nfiles; i++) {
		const struct proto_file *f = &r.files[i];
		if (strcmp(f->path, "a.bin") == 0) {
			ck_assert_uint_eq(f->len, 4);
			ck_assert_mem_eq(f->data, "\x00\x01\x02\xff", 4);
		} else if (strcmp(f->path, "t.txt") == 0) {
			ck_assert_str_eq(f->data, "text");
		} else {
			ck_assert_str_eq(f->path, "e");
			ck_assert_uint_eq(f->len, 0);
		}
	}
	proto_request_free(&r);
}
END_TEST

START_TEST(test_base64_files_refused)
{
	const char *bad[] = {
	    "{\"base64\":\"AAE\"}",		 /* unpadded */
	    "{\"base64\":\"AA E=\"}",		 /* white space */
	    "{\"base64\":\"AAEC/w==\",\"x\":1}", /* another key */
	    "{\"b64\":\"AAEC\"}",		 /* another key alone */
	    "{\"base64\":5}",			 /* not a string */
	    "{}",				 /* empty */
	    "[\"AAEC\"]",			 /* an array */
	    "{\"base64\":\"AAEC/w=\\u0000\"}",	 /* a NUL in it */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char line[256];
		snprintf(line, sizeof line, "{\"id\":\"1\",\"code\":\"x\",\"files\":{\"f\":%s}}",
			 bad[i]);
		expect(line, E_BAD_REQUEST, "\"f\"");
	}
}
END_TEST

START_TEST(test_fetch_files_parsed)
{
	struct proto_request r;
	struct proto_error err;
	ck_assert_int_eq(parse("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[\"out.txt\","
			       "\"d/e.bin\",\"main.py\"]}",
			       &r, &err),
			 0);
	ck_assert_uint_eq(r.nfetch, 3);
	ck_assert_str_eq(r.fetch[0], "out.txt");
	ck_assert_str_eq(r.fetch[1], "d/e.bin");
	ck_assert_str_eq(r.fetch[2], "main.py");
	proto_request_free(&r);
	ck_assert_int_eq(parse("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[]}", &r, &err), 0);
	ck_assert_uint_eq(r.nfetch, 0);
	proto_request_free(&r);
}
END_TEST

START_TEST(test_fetch_files_refused)
{
	expect("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":\"a\"}", E_BAD_REQUEST, "fetch_files");
	expect("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[1]}", E_BAD_REQUEST, "fetch_files");
	expect("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[\"a\\u0000b\"]}", E_BAD_REQUEST,
	       "NUL");
	expect("{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[\"a\",\"a\"]}", E_BAD_REQUEST,
	       "twice");
	const char *paths[] = {"../x", "/etc/passwd", "a/../b",	  "./a", "a//b", "a/",
			       "",     "a\\u0001b",   "main.py/x"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		char line[256];
		snprintf(line, sizeof line,
			 "{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[\"%s\"]}", paths[i]);
		expect(line, E_BAD_PATH, "fetch");
	}
	/* one past the count */
	char line[PROTO_FETCH_MAX_FILES * 12 + 64];
	int n = snprintf(line, sizeof line, "{\"id\":\"1\",\"code\":\"x\",\"fetch_files\":[");
	for (int i = 0; i <= PROTO_FETCH_MAX_FILES; i++)
		n += snprintf(line + n, sizeof line - (size_t)n, "%s\"f%d\"", i ? "," : "", i);
	snprintf(line + n, sizeof line - (size_t)n, "]}");
	expect(line, E_TOO_LARGE, "fetch_files");
	/* ping takes no other field */
	expect("{\"id\":\"1\",\"op\":\"ping\",\"fetch_files\":[]}", E_BAD_REQUEST, NULL);
}
END_TEST

static Suite *files_suite(void)
{
	Suite *s = suite_create("common_protocol_files");
	TCase *t = tcase_create("files");
	tcase_add_unchecked_fixture(t, setup_bounds, NULL);
	tcase_add_test(t, test_base64_files_decoded);
	tcase_add_test(t, test_base64_files_refused);
	tcase_add_test(t, test_fetch_files_parsed);
	tcase_add_test(t, test_fetch_files_refused);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(files_suite, NULL);
}
