/* Unit tests for verdict_run: how a finished run (struct jail_result) and
 * its cgroup counters (struct cg_stats) become exactly one verdict and
 * limit_hit, including the documented priority when several things happened.
 * Statuses are built as waitpid reports them. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sandboxd/run/run_priv.h"
#include "tests/helpers/tmain.h"

#ifndef W_EXITCODE
#define W_EXITCODE(ret, sig) ((ret) << 8 | (sig))
#endif

/* A result as jail_run leaves it for a job that ran: no limit, no
 * violation, CPU limit 10 s, no rusage. */
static struct jail_result base(void)
{
	struct jail_result r;
	memset(&r, 0, sizeof r);
	r.started = true;
	r.violation_nr = -1;
	r.hit = JAIL_HIT_NONE;
	r.cpu_limit_ms = 10000;
	r.have_status = true;
	r.status = W_EXITCODE(0, 0);
	return r;
}

static struct jail_result exited(int code)
{
	struct jail_result r = base();
	r.status = W_EXITCODE(code, 0);
	return r;
}

static struct jail_result killed(int sig)
{
	struct jail_result r = base();
	r.status = sig;
	return r;
}

struct outcome {
	enum proto_verdict v;
	enum proto_limit_hit hit;
	char msg[256];
};

static struct outcome judge(const struct jail_result *r, const struct cg_stats *st, bool have_stats)
{
	struct outcome o;
	struct cg_stats zero = {0};
	o.hit = (enum proto_limit_hit) - 1;
	memset(o.msg, 'x', sizeof o.msg);
	o.msg[sizeof o.msg - 1] = '\0';
	struct run_facts f = {.r = *r, .st = st ? *st : zero, .have_stats = have_stats};
	struct run_verdict rv;
	verdict_run(&f, &rv);
	o.v = rv.v;
	o.hit = rv.hit;
	memcpy(o.msg, rv.msg, sizeof o.msg);
	ck_assert_msg(strlen(o.msg) < sizeof o.msg, "message not terminated");
	return o;
}

#define ck_verdict(o, want_v, want_hit)                                                            \
	do {                                                                                       \
		ck_assert_msg((o).v == (want_v), "verdict %s, expected %s (message: %s)",          \
			      proto_verdict_name((o).v), proto_verdict_name(want_v), (o).msg);     \
		ck_assert_msg(                                                                     \
		    (o).hit == (want_hit), "limit_hit %s, expected %s",                            \
		    proto_limit_hit_name((o).hit) ? proto_limit_hit_name((o).hit) : "null",        \
		    proto_limit_hit_name(want_hit) ? proto_limit_hit_name(want_hit) : "null");     \
	} while (0)

#define ck_msg_has(o, sub)                                                                         \
	ck_assert_msg(strstr((o).msg, (sub)) != NULL, "message \"%s\" lacks \"%s\"", (o).msg, (sub))

/* ---- plain endings ------------------------------------------------------- */

START_TEST(test_exit0_pass)
{
	struct jail_result r = exited(0);
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_PASS, HIT_NONE);
	ck_assert_str_eq(o.msg, "");
	o = judge(&r, NULL, false);
	ck_verdict(o, V_PASS, HIT_NONE);
}
END_TEST

START_TEST(test_exit3_runtime_error)
{
	struct jail_result r = exited(3);
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "3");
	r = exited(255);
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "255");
	r = exited(1);
	o = judge(&r, NULL, false);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_assert(o.msg[0] != '\0');
}
END_TEST

START_TEST(test_sigsegv_runtime_error)
{
	struct jail_result r = killed(SIGSEGV);
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "11");
	ck_msg_has(o, strsignal(SIGSEGV));
	/* The same with the core-dump bit set. */
	r.status = SIGSEGV | 0x80;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "11");
	/* Other signals that are not limits. */
	r = killed(SIGABRT);
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, strsignal(SIGABRT));
	r = killed(SIGTERM);
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
}
END_TEST

/* ---- limits the daemon enforced ----------------------------------------- */

START_TEST(test_hit_cpu_timeout)
{
	struct jail_result r = killed(SIGKILL);
	r.hit = JAIL_HIT_CPU;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
	ck_msg_has(o, "CPU");
	/* Even without a status (killed, then init reported nothing). */
	r.have_status = false;
	o = judge(&r, NULL, false);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
}
END_TEST

START_TEST(test_hit_wall_timeout)
{
	struct jail_result r = killed(SIGKILL);
	r.hit = JAIL_HIT_WALL;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_TIMEOUT, HIT_WALL);
	ck_msg_has(o, "wall");
	/* Wins over an exit 0 that raced with the kill. */
	r = exited(0);
	r.hit = JAIL_HIT_WALL;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_TIMEOUT, HIT_WALL);
}
END_TEST

/* The daemon's own kill for memory (cgroup v1: pages and socket buffers
 * past memory_mb) is a memory limit even without an OOM kill. */
START_TEST(test_hit_memory)
{
	struct jail_result r = killed(SIGKILL);
	r.hit = JAIL_HIT_MEMORY;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	ck_msg_has(o, "socket buffers");
}
END_TEST

START_TEST(test_hit_output)
{
	struct jail_result r = killed(SIGKILL);
	r.hit = JAIL_HIT_OUTPUT;
	r.out_trunc = true;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_OUTPUT_LIMIT, HIT_OUTPUT);
	ck_assert(o.msg[0] != '\0');
	ck_msg_has(o, "output");
}
END_TEST

/* ---- seccomp ---------------------------------------------------------------- */

START_TEST(test_violation_nr)
{
	struct jail_result r = killed(SIGKILL);
	r.violation_nr = 101; /* ptrace on x86_64 */
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
#ifdef __x86_64__
	ck_msg_has(o, "ptrace");
#else
	ck_assert(o.msg[0] != '\0');
#endif
	/* Without a status too: the daemon saw the notification first. */
	r.have_status = false;
	o = judge(&r, NULL, false);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
}
END_TEST

START_TEST(test_sigsys_violation)
{
	/* SIGSYS alone proves nothing: the job can send itself one (kill,
	 * raise, a timer, F_SETSIG). Only a notification names a violation. */
	struct jail_result r = killed(SIGSYS);
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "SIGSYS");
	ck_msg_has(o, "not a violation");
	r.violation_nr = 101;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
}
END_TEST

START_TEST(test_violation_foreign_abi)
{
	/* The notifier saw an i386 call (AUDIT_ARCH_I386) or an x32 one (the
	 * x86_64 arch with bit 30 in the number): named with its ABI. */
	struct jail_result r = killed(SIGKILL);
	r.violation_nr = 310;
	r.violation_arch = 0x40000003u;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
#ifdef __x86_64__
	ck_msg_has(o, "i386:unshare");
	r.violation_nr = 0x40000000 | 272;
	r.violation_arch = 0xc000003eu;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
	ck_msg_has(o, "x32:unshare");
	r.violation_nr = 101;
	o = judge(&r, NULL, true);
	ck_msg_has(o, "forbidden syscall ptrace");
#endif
}
END_TEST

/* ---- memory --------------------------------------------------------------- */

START_TEST(test_oom_memory_limit)
{
	struct jail_result r = killed(SIGKILL);
	struct cg_stats st = {.oom_kills = 1};
	struct outcome o = judge(&r, &st, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	ck_msg_has(o, "memory");
	/* A child OOM-killed while the main process exits non-zero. */
	r = exited(1);
	o = judge(&r, &st, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
}
END_TEST

START_TEST(test_oom_without_stats)
{
	/* Never guessed from a signal: no cgroup counters, no memory_limit. */
	struct jail_result r = killed(SIGKILL);
	struct cg_stats st = {.oom_kills = 1};
	struct outcome o = judge(&r, &st, false);
	ck_assert_msg(o.v != V_MEMORY_LIMIT, "memory_limit without cgroup stats");
	ck_assert_msg(o.hit != HIT_MEMORY, "limit_hit memory without cgroup stats");
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "9");
}
END_TEST

START_TEST(test_oom_but_exit0_pass)
{
	/* A child was OOM-killed and the parent exited 0: the limit still fired. */
	struct jail_result r = exited(0);
	struct cg_stats st = {.oom_kills = 1, .pids_max_hit = 3};
	struct outcome o = judge(&r, &st, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	/* Without an OOM kill, an exit 0 is a pass even if forks were refused. */
	st.oom_kills = 0;
	o = judge(&r, &st, true);
	ck_verdict(o, V_PASS, HIT_NONE);
	ck_assert_str_eq(o.msg, "");
}
END_TEST

/* ---- rlimit backstops -------------------------------------------------------- */

START_TEST(test_sigxcpu_timeout)
{
	/* SIGXCPU at 56 ms of a 10 s limit (the job's own kill, timer_create,
	 * F_SETSIG, or an RLIMIT_CPU it lowered): not a CPU timeout. */
	struct jail_result r = killed(SIGXCPU);
	r.ru.ru_utime.tv_usec = 56000;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "SIGXCPU");
	ck_msg_has(o, "56 ms");
	/* Genuine: the cgroup's count (all processes) reached the limit. */
	struct cg_stats st = {.cpu_ns = 10000ull * 1000000u};
	o = judge(&r, &st, true);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
	/* Just below it: still the job's own. */
	st.cpu_ns -= 1000000u;
	o = judge(&r, &st, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	/* Without cgroup counters, the payload's rusage is the kernel's count. */
	r.ru.ru_utime.tv_sec = 11;
	o = judge(&r, NULL, false);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
}
END_TEST

START_TEST(test_sigkill_after_cpu_limit_timeout)
{
	struct jail_result r = killed(SIGKILL);
	r.cpu_limit_ms = 10000;
	r.ru.ru_utime.tv_sec = 10; /* exactly the limit */
	struct outcome o = judge(&r, NULL, false);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
	/* Split over user and system time, microseconds carrying over. */
	memset(&r.ru, 0, sizeof r.ru);
	r.ru.ru_utime.tv_sec = 9;
	r.ru.ru_utime.tv_usec = 600000;
	r.ru.ru_stime.tv_usec = 500000;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
	/* Just below the limit: an ordinary SIGKILL. */
	memset(&r.ru, 0, sizeof r.ru);
	r.ru.ru_utime.tv_sec = 9;
	r.ru.ru_stime.tv_usec = 999000;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	/* CPU time past the limit but not killed: the program's own exit. */
	r = exited(2);
	r.ru.ru_utime.tv_sec = 20;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
}
END_TEST

START_TEST(test_sigxfsz_file_size)
{
	/* No evidence tells RLIMIT_FSIZE at tmpfs_mb from one the job lowered or
	 * a signal it sent: a runtime_error naming the signal. */
	struct jail_result r = killed(SIGXFSZ);
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
	ck_msg_has(o, "SIGXFSZ");
}
END_TEST

/* ---- pids ------------------------------------------------------------------ */

START_TEST(test_pids_runtime_error)
{
	struct jail_result r = exited(1);
	struct cg_stats st = {.pids_max_hit = 2};
	struct outcome o = judge(&r, &st, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_PIDS);
	ck_msg_has(o, "pids");
	r = killed(SIGSEGV);
	o = judge(&r, &st, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_PIDS);
	ck_msg_has(o, "pids");
	/* Only from the cgroup's counter. */
	r = exited(1);
	o = judge(&r, &st, false);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
}
END_TEST

/* ---- the sandbox itself --------------------------------------------------- */

START_TEST(test_no_status_with_error)
{
	struct jail_result r = base();
	r.have_status = false;
	r.status = 0;
	snprintf(r.error, sizeof r.error, "mount /proc: Operation not permitted");
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_ERROR, HIT_NONE);
	ck_assert_str_eq(o.msg, "mount /proc: Operation not permitted");
}
END_TEST

START_TEST(test_no_status_no_error)
{
	struct jail_result r = base();
	r.have_status = false;
	r.status = 0;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_ERROR, HIT_NONE);
	ck_assert(o.msg[0] != '\0');
	r.started = false;
	o = judge(&r, NULL, false);
	ck_verdict(o, V_ERROR, HIT_NONE);
	ck_assert(o.msg[0] != '\0');
}
END_TEST

START_TEST(test_error_text_with_status)
{
	/* A status arrived: the program's ending decides, not a late error. */
	struct jail_result r = exited(0);
	snprintf(r.error, sizeof r.error, "reading stderr: EIO");
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_PASS, HIT_NONE);
}
END_TEST

/* When the job's cgroup cannot be created the jail never runs: the result is
 * all zero but for violation_nr = -1 and the error text (as run_one in
 * sandboxd/run/run.c builds it). It must be an "error", not a "violation" of
 * syscall 0 (HEAD's run_job left violation_nr at 0 and got exactly that). */
START_TEST(test_cgroup_failure_result_is_error)
{
	struct jail_result r;
	memset(&r, 0, sizeof r);
	r.violation_nr = -1;
	snprintf(r.error, sizeof r.error, "cgroup: %.200s", "mkdir: No space left on device");
	struct outcome o = judge(&r, NULL, false);
	ck_verdict(o, V_ERROR, HIT_NONE);
	ck_assert_str_eq(o.msg, "cgroup: mkdir: No space left on device");
}
END_TEST

/* violation_nr 0 is a real syscall (read on x86_64), not "none". */
START_TEST(test_violation_nr_zero_is_a_syscall)
{
	struct jail_result r = killed(SIGKILL);
	r.violation_nr = 0;
	struct outcome o = judge(&r, NULL, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
#ifdef __x86_64__
	ck_msg_has(o, "read");
#endif
}
END_TEST

/* ---- priority --------------------------------------------------------------- */

START_TEST(test_priority)
{
	struct cg_stats oom = {.oom_kills = 1};
	/* The daemon's own kill comes first. */
	struct jail_result r = killed(SIGKILL);
	r.hit = JAIL_HIT_WALL;
	struct outcome o = judge(&r, &oom, true);
	ck_verdict(o, V_TIMEOUT, HIT_WALL);
	r.hit = JAIL_HIT_CPU;
	r.violation_nr = 101;
	o = judge(&r, &oom, true);
	ck_verdict(o, V_TIMEOUT, HIT_CPU);
	r.hit = JAIL_HIT_OUTPUT;
	o = judge(&r, &oom, true);
	ck_verdict(o, V_OUTPUT_LIMIT, HIT_OUTPUT);
	/* Then a forbidden syscall, before an OOM kill. */
	r.hit = JAIL_HIT_NONE;
	o = judge(&r, &oom, true);
	ck_verdict(o, V_VIOLATION, HIT_NONE);
	/* Then the OOM kill, before what the signal alone would say. */
	r = killed(SIGSYS);
	o = judge(&r, &oom, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	r = killed(SIGXCPU);
	o = judge(&r, &oom, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	/* OOM wins over the pids counter. */
	struct cg_stats both = {.oom_kills = 1, .pids_max_hit = 1};
	r = exited(1);
	o = judge(&r, &both, true);
	ck_verdict(o, V_MEMORY_LIMIT, HIT_MEMORY);
	/* SIGSYS is neither a violation nor the CPU backstop, whatever the CPU. */
	r = killed(SIGSYS);
	r.ru.ru_utime.tv_sec = 100;
	o = judge(&r, NULL, true);
	ck_verdict(o, V_RUNTIME_ERROR, HIT_NONE);
}
END_TEST

START_TEST(test_message_bounded)
{
	/* A long error text is cut to the caller's buffer, never overrun. */
	struct jail_result r = base();
	r.have_status = false;
	memset(r.error, 'e', sizeof r.error - 1);
	r.error[sizeof r.error - 1] = '\0';
	struct run_facts f = {.r = r};
	struct run_verdict rv;
	memset(rv.msg, 'x', sizeof rv.msg);
	verdict_run(&f, &rv);
	ck_assert_int_eq(rv.v, V_ERROR);
	ck_assert_uint_eq(strlen(rv.msg), sizeof rv.msg - 1);
}
END_TEST

/* ---- stdio: the whole request's budget and each case's limits -------------- */

static const struct proto_limits CASE_LIM = {.cpu_ms = 1000,
					     .wall_ms = 3000,
					     .memory_mb = 64,
					     .pids = 8,
					     .output_kb = 64,
					     .tmpfs_mb = 8,
					     .case_cpu_ms = 400,
					     .case_wall_ms = 2000};

START_TEST(test_case_limit_names_binding_limit)
{
	struct run_verdict rv = {.v = V_TIMEOUT, .hit = HIT_WALL};
	/* What was left of wall_ms was the binding limit: the request's. */
	verdict_case_limit(&rv, &CASE_LIM, false, true);
	ck_assert_int_eq(rv.hit, HIT_WALL);
	ck_assert_msg(strstr(rv.msg, "whole request") && strstr(rv.msg, "wall_ms 3000"), "%s",
		      rv.msg);
	/* The case's own. */
	rv = (struct run_verdict){.v = V_TIMEOUT, .hit = HIT_WALL};
	verdict_case_limit(&rv, &CASE_LIM, true, false);
	ck_assert_int_eq(rv.hit, HIT_CASE_WALL);
	ck_assert_msg(strstr(rv.msg, "case_wall_ms 2000"), "%s", rv.msg);
	rv = (struct run_verdict){.v = V_TIMEOUT, .hit = HIT_CPU};
	verdict_case_limit(&rv, &CASE_LIM, false, true);
	ck_assert_int_eq(rv.hit, HIT_CASE_CPU);
	ck_assert_str_eq(proto_limit_hit_name(rv.hit), "case_cpu");
	ck_assert_msg(strstr(rv.msg, "case_cpu_ms 400"), "%s", rv.msg);
	rv = (struct run_verdict){.v = V_TIMEOUT, .hit = HIT_CPU};
	verdict_case_limit(&rv, &CASE_LIM, true, false);
	ck_assert_int_eq(rv.hit, HIT_CPU);
	ck_assert_msg(strstr(rv.msg, "cpu_ms 1000"), "%s", rv.msg);
	/* Anything but a time limit is left alone. */
	rv = (struct run_verdict){.v = V_MEMORY_LIMIT, .hit = HIT_MEMORY, .msg = "m"};
	verdict_case_limit(&rv, &CASE_LIM, false, false);
	ck_assert_int_eq(rv.hit, HIT_MEMORY);
	ck_assert_str_eq(rv.msg, "m");
}
END_TEST

START_TEST(test_budget_spent_and_not_run)
{
	struct fb_run fb;
	fb_init(&fb, "", -1);
	ck_assert_int_eq(fb_add_test(&fb, "case 1", OUT_PASSED, "", "", 10), 0);
	ck_assert_int_eq(fb_add_test(&fb, "case 2", OUT_SKIPPED, "not run", "", 0), 0);
	struct run_verdict acc = {.v = V_PASS};
	verdict_budget_spent(&acc, &CASE_LIM, false, 1);
	ck_assert_int_eq(acc.v, V_TIMEOUT);
	ck_assert_int_eq(acc.hit, HIT_WALL);
	verdict_cases_done(&acc, &fb);
	ck_assert_msg(strstr(acc.msg, "case 2: wall time limit of the whole request") &&
			  strstr(acc.msg, "; 1 not run"),
		      "%s", acc.msg);
	/* fail_fast: a plain failure says how many were not run. */
	ck_assert_int_eq(fb_add_test(&fb, "case 3", OUT_FAILED, "wrong answer", "", 5), 0);
	acc = (struct run_verdict){.v = V_FAIL};
	verdict_cases_done(&acc, &fb);
	ck_assert_str_eq(acc.msg, "1 of 3 tests did not pass: 1 failed, 0 errors, 0 timeouts; "
				  "1 not run");
	/* A pass stays silent. */
	acc = (struct run_verdict){.v = V_PASS};
	verdict_cases_done(&acc, &fb);
	ck_assert_str_eq(acc.msg, "");
	fb_free(&fb);
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *t = tcase_create("verdict_run");
	tcase_add_test(t, test_exit0_pass);
	tcase_add_test(t, test_exit3_runtime_error);
	tcase_add_test(t, test_sigsegv_runtime_error);
	tcase_add_test(t, test_hit_cpu_timeout);
	tcase_add_test(t, test_hit_wall_timeout);
	tcase_add_test(t, test_hit_output);
	tcase_add_test(t, test_hit_memory);
	tcase_add_test(t, test_violation_nr);
	tcase_add_test(t, test_sigsys_violation);
	tcase_add_test(t, test_violation_foreign_abi);
	tcase_add_test(t, test_oom_memory_limit);
	tcase_add_test(t, test_oom_without_stats);
	tcase_add_test(t, test_oom_but_exit0_pass);
	tcase_add_test(t, test_sigxcpu_timeout);
	tcase_add_test(t, test_sigkill_after_cpu_limit_timeout);
	tcase_add_test(t, test_sigxfsz_file_size);
	tcase_add_test(t, test_pids_runtime_error);
	tcase_add_test(t, test_no_status_with_error);
	tcase_add_test(t, test_no_status_no_error);
	tcase_add_test(t, test_error_text_with_status);
	tcase_add_test(t, test_cgroup_failure_result_is_error);
	tcase_add_test(t, test_violation_nr_zero_is_a_syscall);
	tcase_add_test(t, test_priority);
	tcase_add_test(t, test_message_bounded);
	suite_add_tcase(s, t);
	t = tcase_create("stdio_limits");
	tcase_add_test(t, test_case_limit_names_binding_limit);
	tcase_add_test(t, test_budget_spent_and_not_run);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(verdict_suite, NULL);
}
