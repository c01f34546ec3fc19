/* Unit tests for the daemon's log: a line carries client- and job-chosen
 * text (request ids, exception names), so no byte of it may end the line
 * and forge a record of its own. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "tests/helpers/tmain.h"

START_TEST(test_escape_controls)
{
	char out[128];
	log_escape("plain text, é ✓", out, sizeof out);
	ck_assert_str_eq(out, "plain text, é ✓");
	log_escape("a\nb\tc\\d\re\x1b[31m\x7f", out, sizeof out);
	ck_assert_str_eq(out, "a\\nb\\tc\\\\d\\x0de\\x1b[31m\\x7f");
}
END_TEST

/* Cut on a whole escape, always terminated, never past the buffer. */
START_TEST(test_escape_bounded)
{
	char out[8];
	memset(out, 'Z', sizeof out);
	size_t n = log_escape("ab\n\n\n\n", out, sizeof out);
	ck_assert_uint_eq(n, strlen(out));
	ck_assert_str_eq(out, "ab\\n\\n");
	n = log_escape("\x01\x02", out, 6);
	ck_assert_str_eq(out, "\\x01");
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(log_escape("x", out, 0), 0);
}
END_TEST

/* The forgery of the review: an id with a newline and a fake record. The
 * log keeps it on the one line it belongs to. */
START_TEST(test_forged_record_stays_one_line)
{
	char path[] = "/tmp/sbx-log.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	int saved = dup(2);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fd, 2), 0);
	log_msg("job %s: %s", "x\n2026-12-01T00:00:00.000Z sandboxd: job admin: pass",
		"ZeroDivisionError\r\nsandboxd: stopped");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	unlink(path);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	/* Exactly one line, and the fake parts are inside it, escaped. */
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + n - 1);
	ck_assert_msg(strstr(buf, "job x\\n2026-12-01T00:00:00.000Z sandboxd: job admin: pass") &&
			  strstr(buf, "ZeroDivisionError\\x0d\\nsandboxd: stopped"),
		      "log line: %s", buf);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("common_log");
	TCase *t = tcase_create("log");
	tcase_add_test(t, test_escape_controls);
	tcase_add_test(t, test_escape_bounded);
	tcase_add_test(t, test_forged_record_stays_one_line);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(log_suite, NULL);
}
