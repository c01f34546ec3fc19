/* Unit tests for gen_run (external model commands through /bin/sh: pipes,
 * timeouts, process groups, threads) and gen_extract_code (the code block
 * in a model's answer). */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/eval/gen.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tmain.h"

#define MB (1024 * 1024)

static struct gen_result run(const char *cmd, const char *input, int timeout_ms, size_t max_out)
{
	struct gen_result r;
	ck_assert_int_eq(gen_run(cmd, input, timeout_ms, max_out, &r), 0);
	ck_assert_ptr_nonnull(r.output);
	return r;
}

static char *pattern(size_t n, unsigned seed)
{
	char *s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)('a' + (i * 7 + seed + i / 4093) % 26);
	s[n] = '\0';
	return s;
}

START_TEST(test_cat_echoes_input)
{
	struct gen_result r = run("cat", "{\"prompt\": \"hi\"}\n", 5000, MB);
	ck_assert_str_eq(r.output, "{\"prompt\": \"hi\"}\n");
	ck_assert_str_eq(r.error, "");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	ck_assert(!r.timed_out && !r.truncated);
	ck_assert(r.ms >= 0 && r.ms < 5000);
	gen_result_free(&r);
	ck_assert_ptr_null(r.output);
}
END_TEST

START_TEST(test_printf_and_null_input)
{
	struct gen_result r = run("printf 'a\\nb'", NULL, 5000, MB);
	ck_assert_str_eq(r.output, "a\nb");
	ck_assert_str_eq(r.error, "");
	gen_result_free(&r);
	r = run("printf '%s' \"$(cat)\" | tr a-z A-Z", "abc", 0, MB);
	ck_assert_str_eq(r.output, "ABC");
	gen_result_free(&r);
}
END_TEST

START_TEST(test_exit_status)
{
	struct gen_result r = run("sh -c 'exit 3'", "x", 5000, MB);
	ck_assert_str_eq(r.error, "exited with status 3");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	gen_result_free(&r);
	/* output does not make a failed exit a success */
	r = run("echo code; exit 1", "", 5000, MB);
	ck_assert_str_eq(r.output, "code\n");
	ck_assert_str_eq(r.error, "exited with status 1");
	gen_result_free(&r);
}
END_TEST

START_TEST(test_killed_by_signal)
{
	struct gen_result r = run("echo x; kill -TERM $$", "", 5000, MB);
	ck_assert_str_eq(r.error, "killed by signal 15");
	ck_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	gen_result_free(&r);
}
END_TEST

/* Orphaned grandchildren come to us instead of a PID 1 that may not reap,
 * so "the group is gone" does not wait on somebody else's zombies. Check
 * runs each test in its own process, so this stays inside the test. */
static bool group_gone(pid_t pgid, int within_ms)
{
	long long end = td_now_ms() + within_ms;
	do {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (kill(-pgid, 0) < 0 && errno == ESRCH)
			return true;
		usleep(10000);
	} while (td_now_ms() < end);
	return false;
}

START_TEST(test_timeout_kills_the_group)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	long long t0 = td_now_ms();
	/* A background and a foreground sleep: both must go. */
	struct gen_result r = run("echo $$; sleep 5 & sleep 5", "", 300, MB);
	long long took = td_now_ms() - t0;
	ck_assert(r.timed_out);
	ck_assert_str_eq(r.error, "timed out after 300 ms");
	ck_assert_msg(took < 2000, "took %lld ms", took);
	ck_assert(r.ms >= 290 && r.ms < 2000);
	pid_t pgid = (pid_t)atol(r.output);
	ck_assert_int_gt(pgid, 1);
	ck_assert_msg(group_gone(pgid, 1000), "process group %d still has members", (int)pgid);
	gen_result_free(&r);
}
END_TEST

START_TEST(test_plain_sleep_times_out)
{
	long long t0 = td_now_ms();
	struct gen_result r = run("sleep 5", "", 300, MB);
	ck_assert(r.timed_out);
	ck_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	ck_assert_str_eq(r.error, "timed out after 300 ms");
	ck_assert_int_lt(td_now_ms() - t0, 2000);
	gen_result_free(&r);
}
END_TEST

START_TEST(test_closed_stdout_still_timed)
{
	/* Output ends early, the command keeps running: the deadline holds. */
	long long t0 = td_now_ms();
	struct gen_result r = run("echo early; exec >&-; sleep 5", "", 300, MB);
	ck_assert(r.timed_out);
	ck_assert_str_eq(r.output, "early\n");
	ck_assert_int_lt(td_now_ms() - t0, 2000);
	gen_result_free(&r);
	r = run("echo early; exec >&-; sleep 0.2", "", 5000, MB);
	ck_assert(!r.timed_out);
	ck_assert_str_eq(r.error, "");
	ck_assert_int_ge(r.ms, 150);
	gen_result_free(&r);
}
END_TEST

START_TEST(test_command_ignoring_stdin)
{
	char *big = pattern(MB, 1);
	sigset_t mask;
	/* exits at once, exits after the pipe filled, and closes stdin first */
	const char *cmds[] = {"echo hi", "sleep 0.2; echo hi", "exec 0<&-; echo hi",
			      "head -c 10 >/dev/null; echo hi"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		long long t0 = td_now_ms();
		struct gen_result r = run(cmds[i], big, 10000, MB);
		ck_assert_msg(strcmp(r.output, "hi\n") == 0, "%s: \"%s\"", cmds[i], r.output);
		ck_assert_msg(r.error[0] == '\0', "%s: %s", cmds[i], r.error);
		ck_assert_int_lt(td_now_ms() - t0, 5000);
		gen_result_free(&r);
	}
	/* our own mask is as it was, with no SIGPIPE left pending */
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, NULL, &mask), 0);
	ck_assert(!sigismember(&mask, SIGPIPE));
	ck_assert_int_eq(sigpending(&mask), 0);
	ck_assert(!sigismember(&mask, SIGPIPE));
	free(big);
}
END_TEST

START_TEST(test_ten_megabytes_through_cat)
{
	size_t n = 10 * MB;
	char *big = pattern(n, 3);
	struct gen_result r = run("cat", big, 20000, 16 * MB);
	ck_assert_uint_eq(strlen(r.output), n);
	ck_assert(memcmp(r.output, big, n) == 0);
	ck_assert(!r.truncated);
	ck_assert_str_eq(r.error, "");
	gen_result_free(&r);
	free(big);
}
END_TEST

START_TEST(test_max_out_truncates)
{
	struct gen_result r = run("head -c 300000 /dev/zero | tr '\\0' a", "", 5000, 1000);
	ck_assert_uint_eq(strlen(r.output), 1000);
	ck_assert(r.truncated);
	/* the command was read to the end, not killed */
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	ck_assert_str_eq(r.error, "");
	gen_result_free(&r);
	r = run("printf 12345", "", 5000, 5);
	ck_assert_str_eq(r.output, "12345");
	ck_assert(!r.truncated);
	gen_result_free(&r);
	r = run("printf 123456", "", 5000, 5);
	ck_assert_str_eq(r.output, "12345");
	ck_assert(r.truncated);
	gen_result_free(&r);
}
END_TEST

START_TEST(test_empty_output)
{
	struct gen_result r = run("true", "x", 5000, MB);
	ck_assert_str_eq(r.output, "");
	ck_assert_str_eq(r.error, "printed nothing");
	gen_result_free(&r);
	r = run("printf ' \\n\\t\\r\\n'", "x", 5000, MB);
	ck_assert_str_eq(r.error, "printed nothing");
	gen_result_free(&r);
}
END_TEST

START_TEST(test_missing_command)
{
	struct gen_result r = run("exec 2>/dev/null; no_such_command_sbx_test", "x", 5000, MB);
	ck_assert_msg(strstr(r.error, "127") != NULL, "error: %s", r.error);
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127);
	gen_result_free(&r);
}
END_TEST

struct job {
	int i;
	char *input;
	struct gen_result r;
	int rc;
};

static void *job_main(void *arg)
{
	struct job *j = arg;
	/* inputs differ per thread; half the commands add a line of their own */
	j->rc = gen_run(j->i % 2 ? "cat" : "cat; echo", j->input, 20000, 4 * MB, &j->r);
	return NULL;
}

START_TEST(test_concurrent_calls)
{
	enum { N = 8 };
	struct job jobs[N];
	pthread_t th[N];
	for (int i = 0; i < N; i++) {
		jobs[i] =
		    (struct job){.i = i, .input = pattern(200000 + 1000 * (size_t)i, (unsigned)i)};
		ck_assert_int_eq(pthread_create(&th[i], NULL, job_main, &jobs[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
		struct job *j = &jobs[i];
		ck_assert_int_eq(j->rc, 0);
		ck_assert_msg(j->r.error[0] == '\0', "thread %d: %s", i, j->r.error);
		size_t n = strlen(j->input);
		ck_assert_uint_eq(strlen(j->r.output), n + (i % 2 ? 0 : 1));
		ck_assert(memcmp(j->r.output, j->input, n) == 0);
		gen_result_free(&j->r);
		free(j->input);
	}
}
END_TEST

START_TEST(test_child_gets_default_sigpipe)
{
	/* yes(1) only stops through SIGPIPE when head exits. */
	struct gen_result r = run("yes | head -n 2", "", 5000, MB);
	ck_assert_str_eq(r.output, "y\ny\n");
	ck_assert_str_eq(r.error, "");
	gen_result_free(&r);
}
END_TEST

/* ---- stderr and cancelling ---- */

START_TEST(test_stderr_tail_kept)
{
	/* Our stderr goes to a file, to see what is passed through. */
	char path[] = "/tmp/sbx-gen-stderr-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	int saved = dup(2);
	ck_assert_int_eq(dup2(fd, 2), 2);
	/* A short message is kept whole; stdout is not mixed in. */
	struct gen_result a = run("echo out; echo 'endpoint down: 503' >&2; exit 1", "", 5000, MB);
	/* 10,000 bytes then a last line: only the last GEN_STDERR_TAIL bytes,
	 * ending with that line. */
	struct gen_result b =
	    run("head -c 10000 /dev/zero | tr '\\0' x >&2; echo LAST >&2; echo ok", "", 5000, MB);
	/* More stderr than a pipe holds, while stdout is already closed: the
	 * command must not block on it. */
	struct gen_result c =
	    run("exec >&-; head -c 300000 /dev/zero | tr '\\0' y >&2; echo END >&2", "", 5000, MB);
	/* What a command killed at its timeout said is kept too. */
	struct gen_result d = run("echo 'still waiting' >&2; sleep 5", "", 300, MB);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	/* All of it reached our stderr. */
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 19 + 10005 + 300004 + 14);
	close(fd);
	unlink(path);

	ck_assert_str_eq(a.stderr_tail, "endpoint down: 503\n");
	ck_assert_str_eq(a.output, "out\n");
	ck_assert_str_eq(a.error, "exited with status 1");
	ck_assert_uint_eq(strlen(b.stderr_tail), GEN_STDERR_TAIL);
	ck_assert_str_eq(b.stderr_tail + GEN_STDERR_TAIL - 5, "LAST\n");
	ck_assert(b.stderr_tail[0] == 'x');
	ck_assert_str_eq(b.error, "");
	ck_assert(!c.timed_out);
	ck_assert_str_eq(c.stderr_tail + GEN_STDERR_TAIL - 4, "END\n");
	ck_assert(d.timed_out);
	ck_assert_str_eq(d.stderr_tail, "still waiting\n");
	gen_result_free(&a);
	gen_result_free(&b);
	gen_result_free(&c);
	gen_result_free(&d);
}
END_TEST

static void *cancel_later(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	gen_cancel();
	return NULL;
}

START_TEST(test_cancel)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ck_assert_int_eq(gen_cancel_init(), 0);
	gen_cancel_reset();
	/* A call in progress: its whole group is killed, well before its
	 * 20 s timeout, and it says it was interrupted (not timed out). */
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, cancel_later, NULL), 0);
	long long t0 = td_now_ms();
	struct gen_result r = run("echo $$; sleep 20 & sleep 20", "", 20000, MB);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_lt(td_now_ms() - t0, 5000);
	ck_assert(r.interrupted && !r.timed_out);
	ck_assert_str_eq(r.error, "interrupted");
	ck_assert(gen_cancelled());
	pid_t group = (pid_t)atoi(r.output);
	ck_assert_int_gt(group, 0);
	ck_assert_msg(group_gone(group, 1000), "process group %d still has members", (int)group);
	gen_result_free(&r);
	/* A later call is not started at all. */
	r = run("echo started >&2; echo x", "", 5000, MB);
	ck_assert(r.interrupted);
	ck_assert_str_eq(r.output, "");
	ck_assert_str_eq(r.stderr_tail, "");
	gen_result_free(&r);
	/* After a reset, commands run again. */
	gen_cancel_reset();
	ck_assert(!gen_cancelled());
	r = run("echo x", "", 5000, MB);
	ck_assert_str_eq(r.output, "x\n");
	ck_assert_str_eq(r.error, "");
	gen_result_free(&r);
}
END_TEST

/* ---- gen_extract_code ---- */

#define EXTRACT(text, want)                                                                        \
	do {                                                                                       \
		char *got_ = gen_extract_code(text);                                               \
		ck_assert_ptr_nonnull(got_);                                                       \
		ck_assert_str_eq(got_, want);                                                      \
		free(got_);                                                                        \
	} while (0)

START_TEST(test_extract_python_block)
{
	EXTRACT("Here:\n```python\ndef f():\n    return 1\n```\nDone.", "def f():\n    return 1\n");
	EXTRACT("```Python  \nx = 1\n```", "x = 1\n");
	EXTRACT("```python3\nx = 3\n```\n", "x = 3\n");
	EXTRACT("```py\nx = 2\n```", "x = 2\n");
	EXTRACT("```PY\nx = 2\n```", "x = 2\n");
}
END_TEST

START_TEST(test_extract_plain_and_none)
{
	EXTRACT("text\n```\nprint(1)\n```\nmore", "print(1)\n");
	EXTRACT("```text\nhello\n```", "hello\n");
	EXTRACT("def f():\n    return 1\n", "def f():\n    return 1\n");
	EXTRACT("", "");
	/* inline backticks are not a fence */
	EXTRACT("use ```python``` here", "use ```python``` here");
	ck_assert_ptr_null(gen_extract_code(NULL));
}
END_TEST

START_TEST(test_extract_first_python_wins)
{
	EXTRACT("```\nplain\n```\n```python\nfirst\n```\n```python\nsecond\n```", "first\n");
	EXTRACT("```bash\npip install x\n```\n```py\ncode\n```", "code\n");
	EXTRACT("```\nplain one\n```\n```\nplain two\n```", "plain one\n");
	/* a python opener inside a plain block is content, not a block */
	EXTRACT("```\n```python\n```\nafter", "```python\n");
}
END_TEST

START_TEST(test_extract_unterminated)
{
	EXTRACT("```python\ndef f():\n    pass", "def f():\n    pass");
	EXTRACT("intro\n```python\nx = 1\n", "x = 1\n");
	EXTRACT("```python", "");
}
END_TEST

START_TEST(test_extract_crlf)
{
	EXTRACT("Sure:\r\n```python\r\ndef f():\r\n    return 1\r\n```\r\n",
		"def f():\n    return 1\n");
	EXTRACT("```\r\na\r\n```\r\n", "a\n");
}
END_TEST

START_TEST(test_extract_indented_fence)
{
	EXTRACT("1. Code:\n   ```python\n   def f():\n       return 1\n   ```\n",
		"def f():\n    return 1\n");
	EXTRACT("  ```py\n  x = 1\n y = 2\n  ```", "x = 1\ny = 2\n");
	/* four spaces make an indented code line, not a fence */
	EXTRACT("    ```python\n    x = 1\n    ```", "    ```python\n    x = 1\n    ```");
	/* a longer opening fence needs as long a closing one */
	EXTRACT("````python\n```\ninner\n```\n````\n", "```\ninner\n```\n");
}
END_TEST

static Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *run_tc = tcase_create("run");
	tcase_set_timeout(run_tc, 60);
	tcase_add_test(run_tc, test_cat_echoes_input);
	tcase_add_test(run_tc, test_printf_and_null_input);
	tcase_add_test(run_tc, test_exit_status);
	tcase_add_test(run_tc, test_killed_by_signal);
	tcase_add_test(run_tc, test_timeout_kills_the_group);
	tcase_add_test(run_tc, test_plain_sleep_times_out);
	tcase_add_test(run_tc, test_closed_stdout_still_timed);
	tcase_add_test(run_tc, test_command_ignoring_stdin);
	tcase_add_test(run_tc, test_ten_megabytes_through_cat);
	tcase_add_test(run_tc, test_max_out_truncates);
	tcase_add_test(run_tc, test_empty_output);
	tcase_add_test(run_tc, test_missing_command);
	tcase_add_test(run_tc, test_concurrent_calls);
	tcase_add_test(run_tc, test_child_gets_default_sigpipe);
	tcase_add_test(run_tc, test_stderr_tail_kept);
	tcase_add_test(run_tc, test_cancel);
	suite_add_tcase(s, run_tc);
	TCase *ex = tcase_create("extract");
	tcase_add_test(ex, test_extract_python_block);
	tcase_add_test(ex, test_extract_plain_and_none);
	tcase_add_test(ex, test_extract_first_python_wins);
	tcase_add_test(ex, test_extract_unterminated);
	tcase_add_test(ex, test_extract_crlf);
	tcase_add_test(ex, test_extract_indented_fence);
	suite_add_tcase(s, ex);
	return s;
}

int main(void)
{
	return tmain(gen_suite, NULL);
}
