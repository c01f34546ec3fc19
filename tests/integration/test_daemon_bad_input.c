/* Bad input at the socket of a real sandboxd started per test
 * (tests/helpers/daemon.c): garbage, over-long lines, deep nesting, wrong
 * types, absurd limits, NUL bytes, invalid UTF-8, half-written requests, an
 * 8 MB request; after each the same daemon still serves (on the same
 * connection where the protocol says it stays usable, and on a new one).
 *
 * Run as root from the repository root:
 *   make build/tests/test_daemon_bad_input && SBX_BUILD=build build/tests/test_daemon_bad_input */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"
#include "tests/helpers/traw.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one job's response may take */

/* --- raw requests ------------------------------------------------------------ */

/* A printable rendering of (possibly binary) request bytes for messages. */
static char *show(const char *buf, size_t len)
{
	size_t max = len > 120 ? 120 : len;
	char *s = malloc(max * 4 + 32), *o = s;
	for (size_t i = 0; i < max; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			*o++ = (char)c;
		else
			o += sprintf(o, "\\x%02x", c);
	}
	if (len > max)
		o += sprintf(o, "...(%zu bytes)", len);
	*o = '\0';
	return s;
}

/* The response is an error object whose code is one of the '|'-separated
 * codes, whose message is a string, and whose id is want_id (NULL: null). */
static void check_error(const json_t *r, const char *req, size_t len, const char *codes,
			const char *want_id)
{
	char *what = show(req, len);
	ck_assert_msg(r != NULL, "no (JSON) response to %s", what);
	const char *code = errcode(r);
	bool ok = false;
	if (code) {
		char buf[128];
		snprintf(buf, sizeof buf, "|%s|", codes);
		char pat[64];
		snprintf(pat, sizeof pat, "|%s|", code);
		ok = strstr(buf, pat) != NULL;
	}
	CHECK_RM(r, ok, "request %s: want error %s", what, codes);
	CHECK_RM(r, json_is_string(json_object_get(json_object_get(r, "error"), "message")),
		 "request %s: error without a message", what);
	CHECK_RM(r, !json_object_get(r, "verdict"), "request %s: an error with a verdict", what);
	if (want_id)
		CHECK_RM(r, streq(sget(r, "id"), want_id), "request %s: want id %s", what, want_id);
	else
		CHECK_RM(r, json_is_null(json_object_get(r, "id")), "request %s: want id null",
			 what);
	free(what);
}

static void expect_error(int fd, const char *req, size_t len, const char *codes,
			 const char *want_id)
{
	json_t *r = raw_req(fd, req, len, 10000);
	check_error(r, req, len, codes, want_id);
	json_decref(r);
}

/* A job on the raw connection fd: must pass with its own output. */
static void raw_run_ok(int fd, const char *id)
{
	char req[160], want[64];
	snprintf(req, sizeof req, "{\"id\":\"%s\",\"code\":\"print('%s')\"}", id, id);
	snprintf(want, sizeof want, "%s\n", id);
	json_t *r = raw_req(fd, req, strlen(req), CALL_MS);
	ck_assert_msg(r != NULL, "no response to the valid request %s", req);
	CHECK_R(r, streq(sget(r, "id"), id));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), want));
	json_decref(r);
}

/* After bad input: the daemon is alive, the connection fd (when >= 0) still
 * runs a job, and so does a new connection. */
static void assert_serves(struct test_daemon *d, int fd, const char *after)
{
	assert_alive(d, after);
	if (fd >= 0)
		raw_run_ok(fd, "same_conn");
	int nfd = raw_open(d);
	raw_run_ok(nfd, "new_conn");
	close(nfd);
}

/* --- bad input ----------------------------------------------------------------- */

START_TEST(test_garbage_bytes)
{
	enum { LINES = 40 };
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = raw_open(&d);
	for (int i = 0; i < LINES; i++) {
		size_t n = 1 + rnd() % (i < 20 ? 64 : 4096);
		char *g = malloc(n + 8);
		for (size_t k = 0; k < n; k++) {
			do
				g[k] = (char)(rnd() & 0xff);
			while (g[k] == '\n');
		}
		/* Every line has a 0xff and a NUL somewhere (1-byte lines: one of them). */
		g[rnd() % n] = (char)0xff;
		g[rnd() % n] = '\0';
		if (i == 0) { /* and one that starts like a request */
			memcpy(g, "{\"\xff\0", 4);
			n = 4;
		}
		expect_error(fd, g, n, "bad_json", NULL);
		free(g);
	}
	assert_serves(&d, fd, "garbage lines");
	close(fd);
	/* Garbage then a close without a newline: nothing breaks. */
	fd = raw_open(&d);
	raw_send(fd, LIT("\xff\x00\xfe garbage \x01\x02"));
	close(fd);
	assert_serves(&d, -1, "unterminated garbage then a close");
	stop_ok(&d);
}
END_TEST

START_TEST(test_overlong_line_200k)
{
	enum { BIG = 200 * 1024 };
	struct test_daemon d;
	START(d, "--workers", "1", "--max-request", "65536");
	int fd = raw_open(&d);
	char *big = malloc(BIG);
	const char *head = "{\"id\":\"long\",\"code\":\"print(1)\\n#";
	memcpy(big, head, strlen(head));
	memset(big + strlen(head), 'x', BIG - strlen(head));
	raw_send(fd, big, BIG);
	free(big);
	raw_send(fd, "\n", 1);
	json_t *r = td_raw_read_json(fd, 10000);
	ck_assert_msg(r != NULL, "no answer to a 200 KB line; log:\n%s", log_tail(&d));
	CHECK_R(r, streq(errcode(r), "too_large"));
	CHECK_R(r, json_is_null(json_object_get(r, "id")));
	json_decref(r);
	/* Exactly one answer: the next line is the next request's. */
	raw_run_ok(fd, "ok");
	bool eof = false;
	char *extra = td_raw_read_line(fd, 300, NULL, &eof);
	ck_assert_msg(!extra && !eof, "unexpected %s after the valid answer",
		      extra ? extra : "EOF");
	assert_serves(&d, fd, "a 200 KB line");
	close(fd);
	stop_ok(&d);
}
END_TEST

static char *repeat(const char *unit, size_t times, const char *mid, const char *unit2,
		    size_t times2, size_t *len)
{
	size_t u = strlen(unit), m = strlen(mid), u2 = strlen(unit2);
	size_t n = u * times + m + u2 * times2;
	char *s = malloc(n + 1), *o = s;
	for (size_t i = 0; i < times; i++, o += u)
		memcpy(o, unit, u);
	memcpy(o, mid, m);
	o += m;
	for (size_t i = 0; i < times2; i++, o += u2)
		memcpy(o, unit2, u2);
	*o = '\0';
	*len = n;
	return s;
}

START_TEST(test_deep_nesting)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = raw_open(&d);
	size_t n;
	char *s = repeat("[", 100000, "", "", 0, &n);
	expect_error(fd, s, n, "bad_json|bad_request", NULL);
	assert_alive(&d, "100,000 '['");
	free(s);
	s = repeat("[", 100000, "", "]", 100000, &n);
	expect_error(fd, s, n, "bad_json|bad_request", NULL);
	assert_alive(&d, "100,000 nested arrays");
	free(s);
	s = repeat("{\"a\":", 10000, "1", "}", 10000, &n);
	expect_error(fd, s, n, "bad_json|bad_request", NULL);
	assert_alive(&d, "objects nested 10,000 deep");
	free(s);
	s = repeat("{\"a\":", 10000, "", "", 0, &n);
	expect_error(fd, s, n, "bad_json|bad_request", NULL);
	assert_alive(&d, "10,000 unclosed objects");
	free(s);
	/* Deep inside an otherwise valid request. */
	char *inner = repeat("{\"a\":", 10000, "1", "}", 10000, &n);
	size_t cap = n + 128;
	char *req = malloc(cap);
	int rn = snprintf(req, cap, "{\"id\":\"deep\",\"code\":\"print(1)\",\"limits\":%s}", inner);
	expect_error(fd, req, (size_t)rn, "bad_json|bad_request|bad_limits", NULL);
	free(inner);
	free(req);
	/* Deep but within what a parser may accept (1,000 levels) as a value
	 * of the wrong type: a validation error naming the request. */
	inner = repeat("[", 1000, "1", "]", 1000, &n);
	cap = n + 128;
	req = malloc(cap);
	rn = snprintf(req, cap, "{\"id\":\"deep2\",\"code\":\"print(1)\",\"files\":{\"a\":%s}}",
		      inner);
	expect_error(fd, req, (size_t)rn, "bad_request", "deep2");
	free(inner);
	free(req);
	assert_serves(&d, fd, "deeply nested JSON");
	close(fd);
	stop_ok(&d);
}
END_TEST

START_TEST(test_wrong_types)
{
	static const struct {
		const char *line, *id;
	} cases[] = {
	    {"{\"id\":5,\"code\":\"print(1)\"}", NULL},
	    {"{\"id\":[\"x\"],\"code\":\"print(1)\"}", NULL},
	    {"{\"id\":null,\"code\":\"print(1)\"}", NULL},
	    {"{\"id\":\"\",\"code\":\"print(1)\"}", NULL},
	    {"{\"id\":\"t1\",\"code\":[\"print(1)\"]}", "t1"},
	    {"{\"id\":\"t2\",\"code\":true}", "t2"},
	    {"{\"id\":\"t3\",\"code\":null}", "t3"},
	    {"{\"id\":\"t4\",\"code\":\"print(1)\",\"limits\":\"cpu_ms=5\"}", "t4"},
	    {"{\"id\":\"t5\",\"code\":\"print(1)\",\"limits\":[1000]}", "t5"},
	    {"{\"id\":\"t6\",\"code\":\"print(1)\",\"files\":[\"a.py\"]}", "t6"},
	    {"{\"id\":\"t7\",\"code\":\"print(1)\",\"files\":{\"a.py\":5}}", "t7"},
	    {"{\"id\":\"t8\",\"code\":\"print(1)\",\"stdin\":{\"a\":1}}", "t8"},
	    {"{\"id\":\"t9\",\"code\":\"print(1)\",\"stdin\":5}", "t9"},
	    {"{\"id\":\"t10\",\"code\":\"print(1)\",\"policy\":5}", "t10"},
	    {"{\"id\":\"t11\",\"op\":true}", "t11"},
	    {"{\"id\":\"t12\",\"code\":\"print(1)\",\"op\":true}", "t12"},
	    {"{\"id\":\"t13\",\"code\":\"print(1)\",\"op\":[\"run\"]}", "t13"},
	    {"{\"id\":\"t14\",\"op\":\"ping\",\"extra\":1}", "t14"},
	    /* partial_mode: a string, one of two, convcodeworld for unittest only */
	    {"{\"id\":\"t15\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
	     "\"partial_mode\":\"first3\"}",
	     "t15"},
	    {"{\"id\":\"t16\",\"code\":\"x\",\"format\":\"unittest\",\"tests\":\"t\","
	     "\"partial_mode\":[\"convcodeworld\"]}",
	     "t16"},
	    {"{\"id\":\"t17\",\"code\":\"x\",\"format\":\"asserts\",\"tests\":[\"assert 1\"],"
	     "\"partial_mode\":\"convcodeworld\"}",
	     "t17"},
	    {"{\"id\":\"t18\",\"code\":\"x\",\"partial_mode\":\"fixed\"}", "t18"},
	};
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = raw_open(&d);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(fd, cases[i].line, strlen(cases[i].line), "bad_request", cases[i].id);
	/* An id one byte too long (257) cannot be echoed. */
	char idl[400];
	int n = snprintf(idl, sizeof idl, "{\"id\":\"%0257d\",\"code\":\"print(1)\"}", 0);
	expect_error(fd, idl, (size_t)n, "bad_request", NULL);
	assert_serves(&d, fd, "wrong types");
	close(fd);
	stop_ok(&d);
}
END_TEST

START_TEST(test_absurd_limits)
{
	static const char *const refused[] = {
	    "1e300", "-1",   "0",  "-0", "\"1000\"", "1.5", "-9223372036854775808",
	    "true",  "null", "{}",
	};
	/* Numbers beyond a 64-bit integer: docs/protocol.md does not say. */
	static const char *const unrepresentable[] = {
	    "9223372036854775808",
	    "18446744073709551616",
	    "1e400",
	    "-9223372036854775809",
	};
	struct test_daemon d;
	/* A budget any clamped job fits, on a small machine too (admission is
	 * test_daemon_peers.c's subject). */
	START(d, "--workers", "1", "--memory-budget", "1000000");
	int fd = raw_open(&d);
	char line[512];
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		char id[16];
		snprintf(id, sizeof id, "r%zu", i);
		int n = snprintf(line, sizeof line,
				 "{\"id\":\"%s\",\"code\":\"print(1)\",\"limits\":{\"cpu_ms\":%s}}",
				 id, refused[i]);
		expect_error(fd, line, (size_t)n, "bad_limits", id);
	}
	for (size_t i = 0; i < sizeof unrepresentable / sizeof unrepresentable[0]; i++) {
		int n =
		    snprintf(line, sizeof line,
			     "{\"id\":\"u%zu\",\"code\":\"print(1)\",\"limits\":{\"cpu_ms\":%s}}",
			     i, unrepresentable[i]);
		json_t *r = raw_req(fd, line, (size_t)n, 10000);
		ck_assert_msg(r != NULL, "no answer to %s", line);
		CHECK_RM(r, errcode(r) != NULL && !json_object_get(r, "verdict"),
			 "cpu_ms %s: want an error object", unrepresentable[i]);
		fprintf(stderr, "[limits] cpu_ms %s -> error %s (id %s)\n", unrepresentable[i],
			errcode(r), sget(r, "id") ? sget(r, "id") : "null");
		json_decref(r);
	}
	/* Huge positive integers are clamped to the profile's maxima. */
	json_int_t huge[] = {INT64_MAX, 1000000000000000LL, (json_int_t)1 << 62, 1LL << 41};
	for (size_t h = 0; h < sizeof huge / sizeof huge[0]; h++) {
		char id[16];
		snprintf(id, sizeof id, "huge%zu", h);
		int n = snprintf(line, sizeof line,
				 "{\"id\":\"%s\",\"code\":\"print(1)\",\"limits\":{", id);
		for (int i = 0; i < PROTO_NLIMITS; i++)
			n += snprintf(line + n, sizeof line - (size_t)n, "%s\"%s\":%lld",
				      i ? "," : "", proto_limit_names[i], (long long)huge[h]);
		n += snprintf(line + n, sizeof line - (size_t)n, "}}");
		json_t *r = raw_req(fd, line, (size_t)n, CALL_MS);
		ck_assert_msg(r != NULL, "no answer to %s", line);
		CHECK_R(r, streq(sget(r, "id"), id));
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		for (int i = 0; i < PROTO_NLIMITS; i++) {
			const char *k = proto_limit_names[i];
			CHECK_RM(r, iget2(r, "limits", k) == iget(tprofile_max, k),
				 "%s %lld: applied %lld, profile max %lld", k, (long long)huge[h],
				 (long long)iget2(r, "limits", k),
				 (long long)iget(tprofile_max, k));
		}
		json_decref(r);
	}
	/* memory_mb 10^15 alone. */
	const char *mem = "{\"id\":\"mem\",\"code\":\"print(1)\",\"limits\":{\"memory_mb\":"
			  "1000000000000000}}";
	json_t *r = raw_req(fd, mem, strlen(mem), CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget2(r, "limits", "memory_mb") == iget(tprofile_max, "memory_mb"));
	json_decref(r);
	assert_serves(&d, fd, "absurd limits");
	close(fd);
	stop_ok(&d);
}
END_TEST

START_TEST(test_nul_bytes)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = raw_open(&d);
	/* Escaped NUL in code: code cannot hold one. */
	expect_error(fd, LIT("{\"id\":\"n1\",\"code\":\"a\\u0000b\"}"), "bad_request", "n1");
	/* ... nor can an id (it could not be echoed faithfully). */
	expect_error(fd, LIT("{\"id\":\"a\\u0000b\",\"code\":\"print(1)\"}"), "bad_request", NULL);
	/* A raw NUL byte outside any string, and one raw inside a string. */
	expect_error(fd, LIT("{\"id\":\"n2\",\0\"code\":\"print(1)\"}"), "bad_json", NULL);
	expect_error(fd, LIT("{\"id\":\"n3\",\"code\":\"print(1)\0\"}"), "bad_json", NULL);
	expect_error(fd, LIT("\0"), "bad_json", NULL);
	/* A NUL in a file path: refused (as bad JSON or a bad path). */
	expect_error(fd,
		     LIT("{\"id\":\"n4\",\"code\":\"print(1)\",\"files\":{\"a\\u0000b\":\"x\"}}"),
		     "bad_json|bad_path", NULL);
	/* Escaped NUL in stdin and in a file's content: delivered as is. */
	const char *in = "{\"id\":\"n5\",\"stdin\":\"a\\u0000b\",\"code\":"
			 "\"import sys\\nprint(repr(sys.stdin.read()))\"}";
	json_t *r = raw_req(fd, in, strlen(in), CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "'a\\x00b'\n"));
	json_decref(r);
	const char *file = "{\"id\":\"n6\",\"files\":{\"d.bin\":\"x\\u0000y\"},\"code\":"
			   "\"print(repr(open('d.bin', 'rb').read()))\"}";
	r = raw_req(fd, file, strlen(file), CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "b'x\\x00y'\n"));
	json_decref(r);
	assert_serves(&d, fd, "NUL bytes");
	close(fd);
	stop_ok(&d);
}
END_TEST

START_TEST(test_invalid_utf8)
{
	static const struct {
		const char *line;
		size_t len;
	} cases[] = {
	    {LIT("{\"id\":\"u1\",\"code\":\"print('\xff')\"}")},
	    {LIT("{\"id\":\"u2\",\"code\":\"print('\xc0\xaf')\"}")},	     /* overlong '/' */
	    {LIT("{\"id\":\"u3\",\"code\":\"print('\xed\xa0\x80')\"}")},     /* UTF-8 surrogate */
	    {LIT("{\"id\":\"u4\",\"code\":\"print('\xe2\x82')\"}")},	     /* truncated */
	    {LIT("{\"id\":\"u5\",\"code\":\"print('\xf5\x80\x80\x80')\"}")}, /* > U+10FFFF */
	    {LIT("{\"id\":\"u6\",\"code\":\"print('\x80')\"}")},	     /* lone continuation */
	    {LIT("{\"id\":\"u7\xfe\",\"code\":\"print(1)\"}")},		     /* in the id */
	    {LIT("{\"id\":\"u8\",\"code\":\"print(1)\",\"stdin\":\"\xff\xfe\"}")},
	    {LIT("{\"id\":\"u9\",\"code\":\"print(1)\",\"files\":{\"\xff.py\":\"x\"}}")},
	    {LIT("{\"id\":\"u10\",\"code\":\"print(1)\",\"files\":{\"a.py\":\"\xc3\"}}")},
	    {LIT("{\"id\":\"u11\",\"\xff\":1,\"code\":\"print(1)\"}")}, /* in a key */
	};
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = raw_open(&d);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(fd, cases[i].line, cases[i].len, "bad_json", NULL);
	/* A lone surrogate as an escape is not Unicode either. */
	expect_error(fd, LIT("{\"id\":\"s1\",\"code\":\"print('\\ud800')\"}"),
		     "bad_json|bad_request", NULL);
	/* Valid multi-byte text passes through unchanged (the control case). */
	const char *ok = "{\"id\":\"v\",\"code\":\"print('\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
			 "\\u00e9')\"}";
	json_t *r = raw_req(fd, ok, strlen(ok), CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\n"));
	json_decref(r);
	assert_serves(&d, fd, "invalid UTF-8");
	close(fd);
	stop_ok(&d);
}
END_TEST

START_TEST(test_half_request_then_disconnect)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	/* 1: cut in the middle of a string. */
	int fd = raw_open(&d);
	raw_send(fd, LIT("{\"id\":\"halfjob1\",\"code\":\"print("));
	close(fd);
	/* 2: a complete object, but no newline: not a request yet. */
	fd = raw_open(&d);
	raw_send(fd, LIT("{\"id\":\"halfjob2\",\"code\":\"print(2)\"}"));
	close(fd);
	/* 3: a large request cut after 1 MB. */
	fd = raw_open(&d);
	size_t big = 1u << 20;
	char *b = malloc(big);
	const char *head = "{\"id\":\"halfjob3\",\"code\":\"#";
	memcpy(b, head, strlen(head));
	memset(b + strlen(head), 'y', big - strlen(head));
	raw_send(fd, b, big);
	free(b);
	close(fd);
	/* 4: a valid request, then half a second one, then a close: the first
	 * is cancelled with the connection (or answered), the second never runs. */
	fd = raw_open(&d);
	raw_send(fd, LIT("{\"id\":\"halfjob4\",\"code\":\"print(4)\"}\n{\"id\":\"halfjob5\",\"co"));
	close(fd);
	/* 5: half a request then a half-close: an error, a clean close, never a hang. */
	fd = raw_open(&d);
	raw_send(fd, LIT("{\"id\":\"halfjob6\",\"code\":\"print(6)\"}"));
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	bool eof = false;
	char *line = td_raw_read_line(fd, 5000, NULL, &eof);
	bool answered = line != NULL;
	ck_assert_msg(line || eof, "no answer and no close within 5 s of a half-close after an "
				   "unterminated request");
	if (line) {
		json_t *r = json_loads(line, 0, NULL);
		ck_assert_msg(r != NULL, "not JSON: %s", line);
		json_decref(r);
		free(line);
	}
	close(fd);
	assert_alive(&d, "half-written requests");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "p");
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	json_decref(p);
	/* A job after all of them: once it is logged, so would be theirs. */
	json_t *r = call(c, job("after", "print('after')"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	p = ping_idle(c, 3000);
	CHECK_R(p, iget(p, "running") == 0 && iget(p, "queued") == 0);
	json_decref(p);
	sbx_close(c);
	char *log = td_log(&d);
	static const char *const never[] = {"job halfjob1", "job halfjob2", "job halfjob3",
					    "job halfjob5"};
	for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
		ck_assert_msg(!strstr(log, never[i]), "\"%s\" in the log:\n%s", never[i],
			      log_tail(&d));
	if (!answered)
		ck_assert_msg(!strstr(log, "job halfjob6: "),
			      "halfjob6 ran though its connection was closed without an answer");
	free(log);
	stop_ok(&d);
}
END_TEST

START_TEST(test_8mb_request)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	size_t len = 8u << 20;
	char *s = malloc(len + 1);
	const char *head = "{\"id\":\"big8\",\"code\":\"print(len(open(__file__).read()))\\n#";
	const char *tail = "\"}";
	size_t h = strlen(head), t = strlen(tail);
	memcpy(s, head, h);
	memset(s + h, 'c', len - h - t);
	memcpy(s + len - t, tail, t);
	s[len] = '\n';
	/* The code is everything between the quotes, with "\n" unescaped. */
	size_t code_len = len - strlen("{\"id\":\"big8\",\"code\":\"") - t - 1;
	int fd = raw_open(&d);
	long long t0 = td_now_ms();
	raw_send(fd, s, len + 1);
	free(s);
	json_t *r = td_raw_read_json(fd, 60000);
	long long took = td_now_ms() - t0;
	ck_assert_msg(r != NULL, "no answer to an 8 MB request; log:\n%s", log_tail(&d));
	char want[32];
	snprintf(want, sizeof want, "%zu\n", code_len);
	CHECK_R(r, streq(sget(r, "id"), "big8"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_RM(r, streq(sget(r, "stdout"), want), "want stdout %s", want);
	fprintf(stderr, "[8mb] answered in %lld ms\n", took);
	json_decref(r);
	assert_serves(&d, fd, "an 8 MB request");
	close(fd);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_bad_input_suite(void)
{
	Suite *s = suite_create("daemon_bad_input");
	TCase *t = tmain_tcase(s, "bad_input", TIMEOUT_S);
	tcase_add_test(t, test_garbage_bytes);
	tcase_add_test(t, test_overlong_line_200k);
	tcase_add_test(t, test_deep_nesting);
	tcase_add_test(t, test_wrong_types);
	tcase_add_test(t, test_absurd_limits);
	tcase_add_test(t, test_nul_bytes);
	tcase_add_test(t, test_invalid_utf8);
	tcase_add_test(t, test_half_request_then_disconnect);
	tcase_add_test(t, test_8mb_request);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-faults",
					       .ignore_sigpipe = true,
					       .setup = tprofile_load,
					       .teardown = tprofile_free};
	return tmain(daemon_bad_input_suite, &opts);
}
