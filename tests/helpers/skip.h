/* Skip reports for the Check suites, and the probes that decide them.
 *
 * Check has no "skipped" state: a test that returns early counts as passed.
 * A test whose subject is missing on this machine (a kernel feature, a
 * Python module, a data set) must neither pass silently nor fail because of
 * the machine. It probes first and, when the feature is absent, ends with
 *
 *     SKIP_TEST("no IA32 emulation: %s", why);
 *
 * which writes one line on stderr
 *
 *     SKIP: <suite>/<test>: <reason>
 *
 * (<suite> is the binary's name without "test_", <test> the Check test) and
 * returns from the test. tests/run_suite.sh counts these lines, moves each
 * such test from "passed" to "skipped" and lists the lines. A skip must be
 * the last thing a test does (SKIP_TEST returns), so a skipped test cannot
 * also fail. sbx_skip_report() is the same without the return, for a driver
 * that names its own unit (test_hostile.c: one hostile program).
 *
 * The probes run in the calling process (unfiltered), return true when the
 * feature is there and otherwise false with a one-line reason in why. */
#ifndef SBX_TEST_SKIP_H
#define SBX_TEST_SKIP_H

#include <stdbool.h>
#include <stddef.h>

void sbx_skip_report(const char *test, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* In a START_TEST body __func__ is "<test>_fn"; the report drops the "_fn". */
#define SKIP_TEST(...)                                                                             \
	do {                                                                                       \
		sbx_skip_report(__func__, __VA_ARGS__);                                            \
		return;                                                                            \
	} while (0)

/* The i386 ABI (int $0x80) works: an i386 getpid in a forked child returns
 * the child's pid. Absent when the child dies (SIGSEGV: CONFIG_IA32_EMULATION
 * off, or ia32_emulation=0) or gets -ENOSYS, and on non-x86_64 builds.
 * Test-only override: SBX_TEST_ASSUME_NO_IA32=1 (any value but "" and "0")
 * makes it report absence without probing, so the skip paths can be run on
 * a machine that has the ABI. */
bool sbx_have_ia32(char *why, size_t len);

/* IPv6 on the loopback: an AF_INET6 datagram socket binds [::1]:0. */
bool sbx_have_ipv6_loopback(char *why, size_t len);

/* mount_setattr(2) (Linux 5.12+) exists: a call with a bad fd is not ENOSYS. */
bool sbx_have_mount_setattr(char *why, size_t len);

/* The kernel charges socket buffers to a job's memory cgroup: cgroup v2
 * (memory.current counts them) unless booted with cgroup.memory=nosocket,
 * or cgroup v1 with the memory.kmem.tcp.* files (absent when kmem
 * accounting is built out or off, cgroup.memory=nokmem). */
bool sbx_have_socket_memcg(char *why, size_t len);

/* Every module in the space-separated list imports in `python` (run with
 * -B -c, a minimal environment); why names the ones that do not and the
 * error of the first. */
bool sbx_python_has(const char *python, const char *modules, char *why, size_t len);

#endif
