/* Unit tests for the seccomp layer: profile parsing and its error messages,
 * and the compiled python profile enforced on real child processes (run as
 * root from the repository root).
 *
 * What the machine must have for a test, probed first; when it is missing
 * the test is reported as skipped with the reason (tests/helpers/skip.h),
 * never passed silently:
 *   test_i386_abi_killed         the kernel's IA32 emulation (int $0x80)
 *   test_notify_names_syscall    seccomp user notification (libseccomp API 5+)
 *   test_notify_names_foreign_abi  the same; its i386 half the IA32 emulation
 *   test_python_ipv6_loopback    IPv6 on the loopback
 *   test_python_numpy_pandas     numpy and pandas importable by /usr/bin/python3
 * test_x32_abi_killed needs nothing: the x86_64 filter sends every x32
 * number (bit 30 set) to its bad-arch action before the kernel looks the
 * number up, so the kill is the same whether or not CONFIG_X86_X32_ABI is
 * set. SBX_TEST_ASSUME_NO_IA32=1 (tests only) makes the IA32 probe report
 * absence, to run the skip path on a machine that has the ABI. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/seccomp.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

#define PROFILE "policies/python.seccomp.json"
#define PYTHON "/usr/bin/python3"

static struct scmp_prog load_python(bool notify)
{
	struct scmp_prog p;
	char err[512];
	int rc = scmp_load_file(PROFILE, notify, &p, err, sizeof err);
	ck_assert_msg(rc == 0, "loading %s: %s", PROFILE, err);
	return p;
}

/* Child exit codes: 0 = all checks passed, else 1 + the failing check's
 * line mod 255 (never 0), so a failure points at the source. */
#define CHILD_CHECK(cond)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			_exit(__LINE__ % 255 + 1);                                                 \
	} while (0)

static void enter_filter(const struct scmp_prog *p)
{
	int listener;
	/* SIGSYS dumps core by default; keep the repository free of cores. */
	struct rlimit rl = {0, 0};
	CHILD_CHECK(setrlimit(RLIMIT_CORE, &rl) == 0);
	CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	CHILD_CHECK(scmp_apply(p, &listener) == 0);
	CHILD_CHECK(listener == -1);
}

/* Forks, runs body under the python profile (no notify), returns the wait
 * status. */
static int run_filtered(void (*body)(void))
{
	struct scmp_prog p = load_python(false);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		enter_filter(&p);
		body();
		_exit(0);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	scmp_prog_free(&p);
	return st;
}

static void assert_exit0(int st)
{
	ck_assert_msg(WIFEXITED(st), "child killed by signal %d",
		      WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	ck_assert_msg(WEXITSTATUS(st) == 0, "child check failed at line %d (mod 255)",
		      WEXITSTATUS(st) - 1);
}

static void assert_sigsys(int st)
{
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "expected SIGSYS, got status %#x",
		      st);
}

/* ---- parsing ---- */

START_TEST(test_shipped_profile_loads)
{
	struct scmp_prog p = load_python(false);
	ck_assert_ptr_nonnull(p.insns);
	ck_assert_uint_gt(p.len, 10);
	ck_assert(!p.notify);
	scmp_prog_free(&p);
	ck_assert_ptr_null(p.insns);
	ck_assert_uint_eq(p.len, 0);

	/* The kill list makes a notify build need a listener (api >= 5 here). */
	p = load_python(true);
	ck_assert_msg(seccomp_api_get() < 5 || p.notify, "notify not compiled in");
	scmp_prog_free(&p);
}
END_TEST

static const struct {
	const char *text;
	const char *want; /* the whole message begins with this */
} bad[] = {
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\",\n\"syscalls\": [}", "x.json: invalid JSON at line 2"},
    {"[]", "x.json: top level is not a JSON object"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_LOG\"}",
     "x.json: invalid JSON at line 1: duplicate object key"},
    {"{\"syscalls\": []}", "x.json: defaultAction: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_NOPE\"}",
     "x.json: defaultAction: unknown action \"SCMP_ACT_NOPE\""},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"frobnicate\": 1}",
     "x.json: frobnicate: unknown key"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": 1}",
     "x.json: defaultErrnoRet: only valid with SCMP_ACT_ERRNO or SCMP_ACT_TRACE"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 5000}",
     "x.json: defaultErrnoRet: 5000 out of range 0..4095"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": {}}", "x.json: syscalls: not an array"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [7]}",
     "x.json: syscalls[0]: not an object"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
     "{\"names\": [\"read\", \"write\", 3], \"action\": \"SCMP_ACT_ERRNO\"}]}",
     "x.json: syscalls[1].names[2]: not a string"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": \"read\", "
     "\"action\": \"SCMP_ACT_ERRNO\"}]}",
     "x.json: syscalls[0].names: not an array"},
    {"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"action\": \"SCMP_ACT_ERRNO\"}]}",
     "x.json: syscalls[0].names: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"]}, "
     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
     "x.json: syscalls[0].action: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\"}, {}]}",
     "x.json: syscalls[1].names: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [], "
     "\"action\": \"SCMP_ACT_ALLOW\"}]}",
     "x.json: syscalls[0].names: empty"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_FOO\"}]}",
     "x.json: syscalls[0].action: unknown action \"SCMP_ACT_FOO\""},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_NOTIFY\"}]}",
     "x.json: syscalls[0].action: SCMP_ACT_NOTIFY is not supported"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"errnoRet\": 1}]}",
     "x.json: syscalls[0].errnoRet: only valid with"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"nmes\": []}]}",
     "x.json: syscalls[0].nmes: unknown key"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": {}}]}",
     "x.json: syscalls[0].args: not an array"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [3]}]}",
     "x.json: syscalls[0].args[0]: not an object"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}, "
     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\", "
     "\"args\": [{\"index\": 0, \"value\": 1}]}]}",
     "x.json: syscalls[2].args[0].op: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 1, "
     "\"op\": \"SCMP_CMP_SORTA\"}]}]}",
     "x.json: syscalls[0].args[0].op: unknown operator \"SCMP_CMP_SORTA\""},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 1, "
     "\"op\": \"SCMP_CMP_EQ\"}, {\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
     "x.json: syscalls[0].args[1].index: 6 out of range 0..5"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
     "x.json: syscalls[0].args[0].index: missing"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": \"1\", "
     "\"op\": \"SCMP_CMP_EQ\"}]}]}",
     "x.json: syscalls[0].args[0].value: not an integer"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 1, "
     "\"op\": \"SCMP_CMP_EQ\", \"valu\": 2}]}]}",
     "x.json: syscalls[0].args[0].valu: unknown key"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\", "
     "\"SCMP_ARCH_FOO\"]}",
     "x.json: architectures[1]: unknown architecture \"SCMP_ARCH_FOO\""},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": \"SCMP_ARCH_X86_64\"}",
     "x.json: architectures: not an array"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_S390X\"]}",
     "x.json: architectures: native architecture not listed"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [{\"architecture\": "
     "\"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_X86\", \"SCMP_ARCH_Z80\"]}]}",
     "x.json: archMap[0].subArchitectures[1]: unknown architecture \"SCMP_ARCH_Z80\""},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"flags\": [\"SECCOMP_FILTER_FLAG_NOPE\"]}",
     "x.json: flags[0]: unknown flag \"SECCOMP_FILTER_FLAG_NOPE\""},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
     "\"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"write\", \"read\"], "
     "\"action\": \"SCMP_ACT_KILL_PROCESS\"}]}",
     "x.json: syscalls[1].names[1]: \"read\" conflicts with syscalls[0] (different action)"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"socket\"], "
     "\"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ERRNO\", "
     "\"args\": [{\"index\": 0, \"value\": 16, \"op\": \"SCMP_CMP_EQ\"}]}]}",
     "x.json: syscalls[1].names[0]: \"socket\" conflicts with syscalls[0] (different action)"},
    {"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"socket\"], "
     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 16, "
     "\"op\": \"SCMP_CMP_EQ\"}]}, {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_LOG\", "
     "\"args\": [{\"index\": 0, \"value\": 16, \"op\": \"SCMP_CMP_EQ\"}]}]}",
     "x.json: syscalls[1].names[0]: libseccomp rejected \"socket\": an identical rule"},
};

START_TEST(test_bad_profile)
{
	struct scmp_prog p = {(void *)1, 1, true};
	char err[512];
	int rc = scmp_load_text("x.json", bad[_i].text, strlen(bad[_i].text), false, &p, err,
				sizeof err);
	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_null(p.insns);
	ck_assert_msg(strncmp(err, bad[_i].want, strlen(bad[_i].want)) == 0,
		      "case %d: got \"%s\", want \"%s...\"", _i, err, bad[_i].want);
}
END_TEST

START_TEST(test_docker_extras_accepted)
{
	/* Docker-only fields, syscalls this libseccomp/arch doesn't know, a rule
	 * repeating the default, and ignored top-level keys all load. */
	const char *t =
	    "{\"comment\": \"c\", \"defaultAction\": \"SCMP_ACT_ERRNO\","
	    "\"defaultErrnoRet\": 1, \"listenerPath\": \"/x\", \"listenerMetadata\": \"m\","
	    "\"flags\": [\"SECCOMP_FILTER_FLAG_LOG\"],"
	    "\"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": "
	    "[\"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"]}, {\"architecture\": "
	    "\"SCMP_ARCH_LOONGARCH64\", \"subArchitectures\": null}],"
	    "\"syscalls\": [{\"names\": [\"read\", \"no_such_call\", \"mmap2\", "
	    "\"arm_fadvise64_64\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": "
	    "{\"minKernel\": \"4.8\"}, \"excludes\": {}, \"comment\": \"x\", \"args\": null},"
	    "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},"
	    "{\"names\": [\"ptrace\"], \"action\": \"SCMP_ACT_KILL\"},"
	    "{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 7},"
	    "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0,"
	    " \"value\": 4294967295, \"valueTwo\": 0, \"op\": \"SCMP_CMP_MASKED_EQ\"}, "
	    "{\"index\": 1, \"value\": -1, \"op\": \"SCMP_CMP_NE\"}]}]}";
	struct scmp_prog p;
	char err[512] = "";
	ck_assert_msg(scmp_load_text("d.json", t, strlen(t), true, &p, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_msg(seccomp_api_get() < 5 || p.notify, "KILL should have become NOTIFY");
	scmp_prog_free(&p);

	/* No kill rule: a foreign ABI's call still notifies (the bad-arch
	 * action), so a listener is wanted; without notify, none is. */
	t = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mlock\"],"
	    "\"action\": \"SCMP_ACT_ERRNO\"}]}";
	ck_assert_msg(scmp_load_text("d.json", t, strlen(t), true, &p, err, sizeof err) == 0, "%s",
		      err);
	ck_assert(seccomp_api_get() < 5 || p.notify);
	scmp_prog_free(&p);
	ck_assert_msg(scmp_load_text("d.json", t, strlen(t), false, &p, err, sizeof err) == 0, "%s",
		      err);
	ck_assert(!p.notify);
	scmp_prog_free(&p);
	scmp_prog_free(&p); /* idempotent */
	scmp_prog_free(NULL);
}
END_TEST

START_TEST(test_file_errors)
{
	struct scmp_prog p;
	char err[512], path[] = "/tmp/test_seccomp_XXXXXX";

	ck_assert_int_eq(scmp_load_file("/nonexistent/x.json", false, &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "/nonexistent/x.json: No such file or directory");
	ck_assert_int_eq(scmp_load_file("/tmp", false, &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "/tmp: not a regular file");

	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 5 << 20), 0);
	close(fd);
	int rc = scmp_load_file(path, false, &p, err, sizeof err);
	unlink(path);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, ": profile larger than 4194304 bytes") != NULL, "%s", err);

	/* A tiny error buffer truncates but still terminates. */
	char small[8];
	ck_assert_int_eq(scmp_load_text("x.json", "{", 1, false, &p, small, sizeof small), -1);
	ck_assert_str_eq(small, "x.json:");
	ck_assert_int_eq(scmp_load_text("x.json", "{", 1, false, &p, NULL, 0), -1);
}
END_TEST

START_TEST(test_syscall_name)
{
	char buf[32];
	scmp_syscall_name(SYS_ptrace, buf, sizeof buf);
	ck_assert_str_eq(buf, "ptrace");
	scmp_syscall_name(SYS_openat, buf, sizeof buf);
	ck_assert_str_eq(buf, "openat");
	scmp_syscall_name(99999, buf, sizeof buf);
	ck_assert_str_eq(buf, "#99999");
	scmp_syscall_name(SYS_ptrace, buf, 3);
	ck_assert_str_eq(buf, "pt");
}
END_TEST

START_TEST(test_apply_rejects_bad_args)
{
	struct scmp_prog empty = {0};
	int listener = 5;
	errno = 0;
	ck_assert_int_eq(scmp_apply(&empty, &listener), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(listener, -1);
	struct scmp_prog p = load_python(true);
	if (p.notify) {
		errno = 0;
		ck_assert_int_eq(scmp_apply(&p, NULL), -1);
		ck_assert_int_eq(errno, EINVAL);
	}
	scmp_prog_free(&p);
}
END_TEST

/* ---- enforcement ---- */

static void body_unshare(void)
{
	syscall(SYS_unshare, CLONE_NEWNS);
	_exit(42); /* must not get here */
}

START_TEST(test_unshare_killed)
{
	assert_sigsys(run_filtered(body_unshare));
}
END_TEST

static void body_ptrace(void)
{
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	_exit(42);
}

START_TEST(test_ptrace_killed)
{
	assert_sigsys(run_filtered(body_ptrace));
}
END_TEST

static void body_clone(void)
{
	struct clone_args ca = {.exit_signal = SIGCHLD};
	errno = 0;
	CHILD_CHECK(syscall(SYS_clone3, &ca, sizeof ca) == -1 && errno == ENOSYS);

	pid_t pid = fork(); /* glibc falls back to clone(2) */
	CHILD_CHECK(pid >= 0);
	if (pid == 0)
		_exit(7);
	int st;
	CHILD_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7);

	errno = 0;
	long rc = syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
	if (rc == 0)
		_exit(0); /* a namespaced grandchild: the check below fails */
	CHILD_CHECK(rc == -1 && errno == EPERM);
	errno = 0;
	rc = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (rc == 0)
		_exit(0);
	CHILD_CHECK(rc == -1 && errno == EPERM);
}

START_TEST(test_clone_rules)
{
	assert_exit0(run_filtered(body_clone));
}
END_TEST

static bool g_have_ipv6; /* set by the test before it forks the child */

static void body_sockets(void)
{
	errno = 0;
	CHILD_CHECK(socket(AF_NETLINK, SOCK_RAW, 0) == -1 && errno == EPERM);
	errno = 0;
	CHILD_CHECK(socket(AF_PACKET, SOCK_RAW, 0) == -1 && errno == EPERM);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	CHILD_CHECK(s >= 0);
	close(s);
	/* Allowed by the profile: on a kernel without IPv6 the kernel (not the
	 * filter) refuses it, with EAFNOSUPPORT. */
	errno = 0;
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	CHILD_CHECK(s >= 0 || (!g_have_ipv6 && errno != EPERM));
	if (s >= 0)
		close(s);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	CHILD_CHECK(s >= 0);
	close(s);
	int sv[2];
	CHILD_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	/* Not listed at all: the default action, EPERM (raw syscall: ASan's
	 * mlock() never reaches the kernel). */
	errno = 0;
	CHILD_CHECK(syscall(SYS_mlock, sv, sizeof sv) == -1 && errno == EPERM);
	/* personality: queries pass, changes other than the listed ones don't. */
	CHILD_CHECK(personality(0xffffffff) != -1);
	errno = 0;
	CHILD_CHECK(personality(PER_BSD) == -1 && errno == EPERM);
}

START_TEST(test_socket_and_default_rules)
{
	char why[256];
	g_have_ipv6 = sbx_have_ipv6_loopback(why, sizeof why);
	assert_exit0(run_filtered(body_sockets));
}
END_TEST

#ifdef __x86_64__
/* The i386 getpid through int $0x80. Under the filter the i386 architecture
 * is not in the profile, so the bad-arch action kills the process. */
static void body_int80(void)
{
	long nr = 20, ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr)
			 : "rcx", "r8", "r9", "r10", "r11", "memory");
	_exit(42);
}

/* getpid with the x32 bit (0x40000000) set. */
static void body_x32(void)
{
	syscall(0x40000000 | SYS_getpid);
	_exit(42);
}
#endif

/* Needs the kernel's IA32 emulation: without it int $0x80 never reaches
 * seccomp (the CPU faults and the process dies of SIGSEGV even with no
 * filter), so there is nothing for the filter to refuse. The probe runs the
 * same call unfiltered in a child first. */
START_TEST(test_i386_abi_killed)
{
	char why[512];
	if (!sbx_have_ia32(why, sizeof why))
		SKIP_TEST("%s", why);
#ifdef __x86_64__
	int st = run_filtered(body_int80);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		      "i386 getpid under the filter: expected SIGSYS, got wait status %#x (the "
		      "unfiltered probe's int $0x80 getpid worked)",
		      st);
#endif
}
END_TEST

/* Needs nothing of the kernel (see the top of the file): asserted everywhere. */
START_TEST(test_x32_abi_killed)
{
#ifdef __x86_64__
	assert_sigsys(run_filtered(body_x32));
#else
	SKIP_TEST("not an x86_64 build: there is no x32 ABI to test");
#endif
}
END_TEST

static void child_send_listener(const struct scmp_prog *p, int sock)
{
	int listener = -1;
	struct rlimit rl = {0, 0};
	CHILD_CHECK(setrlimit(RLIMIT_CORE, &rl) == 0);
	CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	CHILD_CHECK(scmp_apply(p, &listener) == 0);
	CHILD_CHECK(listener >= 0);
	CHILD_CHECK((fcntl(listener, F_GETFD) & FD_CLOEXEC) != 0);
	CHILD_CHECK(fdpass_send(sock, listener, FDPASS_LISTENER) == 0);
	close(listener);
	/* Default-action calls are not turned into notifications. */
	errno = 0;
	CHILD_CHECK(socket(AF_NETLINK, SOCK_RAW, 0) == -1 && errno == EPERM);
}

START_TEST(test_notify_names_syscall)
{
	if (seccomp_api_get() < 5)
		SKIP_TEST(
		    "seccomp user notification unavailable (libseccomp API level %u, 5 needed: "
		    "Linux 5.0+ and libseccomp 2.5+)",
		    seccomp_api_get());
	struct scmp_prog p = load_python(true);
	ck_assert(p.notify);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		child_send_listener(&p, sv[1]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		_exit(42); /* only reached if the daemon side answered */
	}
	close(sv[1]);
	char tag = 0;
	int fd = fdpass_recv(sv[0], 0, &tag);
	ck_assert_msg(fd >= 0, "no listener fd received");
	ck_assert_int_eq(tag, FDPASS_LISTENER);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ck_assert_msg(poll(&pfd, 1, 10000) == 1, "no notification within 10 s");

	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	ck_assert_int_eq(seccomp_notify_alloc(&req, &resp), 0);
	ck_assert_int_eq(seccomp_notify_receive(fd, req), 0);
	ck_assert_int_eq(req->data.nr, SYS_ptrace);
	ck_assert_int_eq((pid_t)req->pid, pid);
	ck_assert_uint_eq(req->data.args[0], PTRACE_TRACEME);
	char name[32];
	scmp_syscall_name(req->data.nr, name, sizeof name);
	ck_assert_str_eq(name, "ptrace");
	/* The child is parked inside the syscall until we act. */
	ck_assert_int_eq(seccomp_notify_id_valid(fd, req->id), 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	seccomp_notify_free(req, resp);
	close(fd);
	close(sv[0]);
	scmp_prog_free(&p);
}
END_TEST

#ifdef __x86_64__
/* A foreign ABI's call under a notify build: the listener sees its arch and
 * number (the bad-arch action notifies instead of killing unseen), and the
 * caller stays parked until it is killed. */
static void assert_foreign_notified(void (*body)(void), uint32_t want_arch, int want_nr,
				    const char *want_name)
{
	struct scmp_prog p = load_python(true);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		child_send_listener(&p, sv[1]);
		body();
	}
	close(sv[1]);
	char tag = 0;
	int fd = fdpass_recv(sv[0], 0, &tag);
	ck_assert_msg(fd >= 0, "no listener fd received");
	ck_assert_int_eq(tag, FDPASS_LISTENER);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ck_assert_msg(poll(&pfd, 1, 10000) == 1, "no notification within 10 s");
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	ck_assert_int_eq(seccomp_notify_alloc(&req, &resp), 0);
	ck_assert_int_eq(seccomp_notify_receive(fd, req), 0);
	ck_assert_uint_eq(req->data.arch, want_arch);
	ck_assert_int_eq(req->data.nr, want_nr);
	char name[32];
	scmp_syscall_name_arch(req->data.arch, req->data.nr, name, sizeof name);
	ck_assert_str_eq(name, want_name);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	seccomp_notify_free(req, resp);
	close(fd);
	close(sv[0]);
	scmp_prog_free(&p);
}
#endif

START_TEST(test_notify_names_foreign_abi)
{
	if (seccomp_api_get() < 5)
		SKIP_TEST("seccomp user notification unavailable (libseccomp API level %u)",
			  seccomp_api_get());
#ifdef __x86_64__
	assert_foreign_notified(body_x32, SCMP_ARCH_X86_64, 0x40000000 | SYS_getpid, "x32:getpid");
	char why[512];
	if (!sbx_have_ia32(why, sizeof why))
		SKIP_TEST("x32 checked; i386: %s", why);
	assert_foreign_notified(body_int80, SCMP_ARCH_X86, 20, "i386:getpid");
#else
	SKIP_TEST("not an x86_64 build: no i386 or x32 ABI to test");
#endif
}
END_TEST

/* Runs /usr/bin/python3 -B -c code, filtered or not; returns the wait status
 * and the combined stdout/stderr in out. */
static int run_python(const char *code, bool filtered, char *out, size_t outlen)
{
	struct scmp_prog p = load_python(false);
	int pfd[2];
	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		CHILD_CHECK(dup2(pfd[1], 1) == 1 && dup2(pfd[1], 2) == 2);
		if (filtered)
			enter_filter(&p);
		char *argv[] = {"python3", "-B", "-c", (char *)code, NULL};
		char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/tmp", NULL};
		execve(PYTHON, argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	size_t got = 0;
	for (;;) {
		ssize_t n = read(pfd[0], out + got, outlen - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == outlen - 1) {
			char sink[4096];
			while (read(pfd[0], sink, sizeof sink) > 0)
				;
			break;
		}
	}
	out[got] = '\0';
	close(pfd[0]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	scmp_prog_free(&p);
	return st;
}

static void assert_python_ok(const char *code, const char *want)
{
	char out[16384];
	int st = run_python(code, true, out, sizeof out);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "python status %#x, output:\n%s", st,
		      out);
	ck_assert_msg(strstr(out, want) != NULL, "missing \"%s\" in output:\n%s", want, out);
}

START_TEST(test_python_end_to_end)
{
	assert_python_ok("import threading,subprocess,multiprocessing,json,ssl,socket,hashlib; "
			 "t=threading.Thread(target=print); t.start(); t.join(); "
			 "print(subprocess.run(['/bin/echo','hi'],capture_output=True).stdout); "
			 "import multiprocessing as m; p=m.Pool(2); print(p.map(abs,[-1,-2])); "
			 "p.close(); p.join()",
			 "b'hi\\n'\n[1, 2]\n");
}
END_TEST

START_TEST(test_python_io_asyncio_sockets)
{
	static const char code[] =
	    "import asyncio, os, shutil, socket, tempfile, time, signal, select, mmap, errno\n"
	    "import concurrent.futures as cf, multiprocessing as mp\n"
	    "d = tempfile.mkdtemp()\n"
	    "p = os.path.join(d, 'a'); open(p, 'w').write('x' * 10000)\n"
	    "shutil.copy(p, p + '2'); os.rename(p + '2', p + '3'); os.symlink(p, p + 'l')\n"
	    "os.chmod(p, 0o600); os.utime(p); os.truncate(p, 5); assert os.readlink(p + 'l') == p\n"
	    "with open(p, 'r+b') as f:\n"
	    "    m = mmap.mmap(f.fileno(), 5); m[0:1] = b'y'; m.flush(); m.close()\n"
	    "os.mkfifo(p + 'f'); os.makedirs(d + '/x/y'); shutil.rmtree(d)\n"
	    "async def handle(r, w):\n"
	    "    w.write(await r.readline()); await w.drain(); w.close()\n"
	    "async def main():\n"
	    "    srv = await asyncio.start_server(handle, '127.0.0.1', 0)\n"
	    "    port = srv.sockets[0].getsockname()[1]\n"
	    "    r, w = await asyncio.open_connection('127.0.0.1', port)\n"
	    "    w.write(b'ping\\n'); line = await r.readline(); w.close()\n"
	    "    srv.close(); await srv.wait_closed()\n"
	    "    proc = await asyncio.create_subprocess_exec('/bin/true'); await proc.wait()\n"
	    "    await asyncio.sleep(0.01)\n"
	    "    return line\n"
	    "assert asyncio.run(main()) == b'ping\\n'\n"
	    "a, b = socket.socketpair(); a.send(b'z'); assert b.recv(1) == b'z'\n"
	    "try:\n"
	    "    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)\n"
	    "except PermissionError: pass\n"
	    "else: raise SystemExit('netlink allowed')\n"
	    "signal.signal(signal.SIGALRM, lambda *a: None); signal.setitimer(signal.ITIMER_REAL, "
	    "0.01); time.sleep(0.05)\n"
	    "with cf.ThreadPoolExecutor(4) as ex: assert sum(ex.map(abs, range(-50, 0))) == 1275\n"
	    "with cf.ProcessPoolExecutor(2) as ex: assert list(ex.map(abs, [-3])) == [3]\n"
	    "ctx = mp.get_context('spawn'); q = ctx.Queue(); pr = ctx.Process(target=q.put, "
	    "args=(5,)); pr.start(); assert q.get() == 5; pr.join()\n"
	    "l = mp.Lock(); l.acquire(); l.release(); v = mp.Value('i', 3); assert v.value == 3\n"
	    "os.sched_getaffinity(0); os.cpu_count(); os.urandom(8); os.getloadavg()\n"
	    "print('io ok')\n";
	assert_python_ok(code, "io ok\n");
}
END_TEST

/* IPv6 on the loopback under the filter (AF_INET6 is allowed). */
START_TEST(test_python_ipv6_loopback)
{
	char why[256];
	if (!sbx_have_ipv6_loopback(why, sizeof why))
		SKIP_TEST("%s", why);
	assert_python_ok(
	    "import socket\n"
	    "u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u.bind(('::1', 0))\n"
	    "u.sendto(b'q', u.getsockname()); assert u.recvfrom(1)[0] == b'q'\n"
	    "print('ipv6 ok')\n",
	    "ipv6 ok\n");
}
END_TEST

START_TEST(test_python_numpy_pandas)
{
	char why[1200];
	if (!sbx_python_has(PYTHON, "numpy pandas", why, sizeof why))
		SKIP_TEST("numpy/pandas: %s", why);
	assert_python_ok("import numpy as np, pandas as pd\n"
			 "a = np.arange(250000, dtype=float).reshape(500, 500)\n"
			 "print(int((a @ a.T).trace()) > 0)\n"
			 "df = pd.DataFrame({'k': [1, 2, 1], 'v': [1.0, 2.0, 3.0]})\n"
			 "print(df.groupby('k').v.sum().to_dict())\n"
			 "try:\n"
			 "    import scipy.linalg; print(scipy.linalg.det(np.eye(3)))\n"
			 "except ImportError: print(1.0)\n",
			 "True\n{1: 4.0, 2: 2.0}\n1.0\n");
}
END_TEST

static Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *parse = tcase_create("parse");
	tcase_add_test(parse, test_shipped_profile_loads);
	tcase_add_loop_test(parse, test_bad_profile, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(parse, test_docker_extras_accepted);
	tcase_add_test(parse, test_file_errors);
	tcase_add_test(parse, test_syscall_name);
	tcase_add_test(parse, test_apply_rejects_bad_args);
	suite_add_tcase(s, parse);

	TCase *run = tcase_create("enforce");
	tcase_set_timeout(run, 120);
	tcase_add_test(run, test_unshare_killed);
	tcase_add_test(run, test_ptrace_killed);
	tcase_add_test(run, test_clone_rules);
	tcase_add_test(run, test_socket_and_default_rules);
	tcase_add_test(run, test_i386_abi_killed);
	tcase_add_test(run, test_x32_abi_killed);
	tcase_add_test(run, test_notify_names_syscall);
	tcase_add_test(run, test_notify_names_foreign_abi);
	tcase_add_test(run, test_python_end_to_end);
	tcase_add_test(run, test_python_io_asyncio_sockets);
	tcase_add_test(run, test_python_ipv6_loopback);
	tcase_add_test(run, test_python_numpy_pandas);
	suite_add_tcase(s, run);
	return s;
}

int main(void)
{
	return tmain(seccomp_suite, NULL);
}
