/* Skip reports and environment probes for the test suites (see skip.h). */
#include "tests/helpers/skip.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char *program_invocation_short_name;

void sbx_skip_report(const char *test, const char *fmt, ...)
{
	const char *suite = program_invocation_short_name;
	if (strncmp(suite, "test_", 5) == 0)
		suite += 5;
	size_t tl = strlen(test);
	if (tl > 3 && strcmp(test + tl - 3, "_fn") == 0)
		tl -= 3;
	char reason[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	for (char *p = reason; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' '; /* one line per skip: run_suite.sh counts lines */
	char line[1400];
	int n = snprintf(line, sizeof line, "SKIP: %s/%.*s: %s\n", suite, (int)tl, test, reason);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line) {
		n = (int)sizeof line - 1;
		line[n - 1] = '\n';
	}
	/* One write, so the line is never interleaved with Check's output. */
	ssize_t w = write(2, line, (size_t)n);
	(void)w;
}

static void set_why(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_why(char *why, size_t len, const char *fmt, ...)
{
	if (!why || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static int wait_child(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

bool sbx_have_ia32(char *why, size_t len)
{
	const char *o = getenv("SBX_TEST_ASSUME_NO_IA32");
	if (o && *o && strcmp(o, "0") != 0) {
		set_why(why, len,
			"SBX_TEST_ASSUME_NO_IA32=%s (a test-only override: the probe reports no "
			"IA32 emulation without trying)",
			o);
		return false;
	}
#if defined(__x86_64__)
	pid_t pid = fork();
	if (pid < 0) {
		set_why(why, len, "the IA32 probe could not fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		/* A probe that dies must not leave a core file behind. */
		struct rlimit rl = {0, 0};
		setrlimit(RLIMIT_CORE, &rl);
		long nr = 20, ret; /* i386 getpid */
		__asm__ volatile("int $0x80"
				 : "=a"(ret)
				 : "a"(nr)
				 : "rcx", "r8", "r9", "r10", "r11", "memory");
		int r = (int)ret;
		_exit(r == (int)getpid() ? 0 : r == -ENOSYS ? 2 : 3);
	}
	int st = wait_child(pid);
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2)
		set_why(why, len,
			"the kernel has no IA32 emulation: an i386 getpid (int $0x80) returned "
			"-ENOSYS in an unfiltered child");
	else if (st >= 0 && WIFSIGNALED(st))
		set_why(why, len,
			"the kernel has no IA32 emulation (CONFIG_IA32_EMULATION off or "
			"ia32_emulation=0): an i386 getpid (int $0x80) killed an unfiltered child "
			"with %s",
			sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "a signal");
	else
		set_why(
		    why, len,
		    "an i386 getpid (int $0x80) in an unfiltered child returned neither its pid "
		    "nor -ENOSYS (wait status %#x): treated as no IA32 emulation",
		    (unsigned)st);
	return false;
#else
	set_why(why, len, "not an x86_64 build: there is no i386 ABI (int $0x80) to test");
	return false;
#endif
}

bool sbx_have_ipv6_loopback(char *why, size_t len)
{
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_why(why, len, "no IPv6: socket(AF_INET6): %s", strerror(errno));
		return false;
	}
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		set_why(why, len, "no IPv6 loopback: bind([::1]:0): %s", strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

bool sbx_have_mount_setattr(char *why, size_t len)
{
	errno = 0;
	long r = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0);
	if (r < 0 && errno == ENOSYS) {
		set_why(why, len, "the kernel has no mount_setattr(2) (Linux 5.12+): ENOSYS");
		return false;
	}
	return true;
}

bool sbx_python_has(const char *python, const char *modules, char *why, size_t len)
{
	static const char code[] =
	    "import sys\n"
	    "bad = []\n"
	    "for m in sys.argv[1].split():\n"
	    "    try:\n"
	    "        __import__(m)\n"
	    "    except BaseException as e:\n"
	    "        bad.append('%s (%s: %s)' % (m, type(e).__name__, str(e).splitlines()[0] "
	    "if str(e) else ''))\n"
	    "print('; '.join(bad), end='')\n"
	    "sys.exit(1 if bad else 0)\n";
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		set_why(why, len, "pipe: %s", strerror(errno));
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		set_why(why, len, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return false;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(pfd[1], 1) < 0 ||
		    dup2(devnull, 2) < 0)
			_exit(126);
		char *argv[] = {(char *)python, "-B", "-c", (char *)code, (char *)modules, NULL};
		char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/tmp", NULL};
		execve(python, argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	char out[1024];
	size_t got = 0;
	for (;;) {
		ssize_t n = read(pfd[0], out + got, sizeof out - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == sizeof out - 1)
			break;
	}
	out[got] = '\0';
	close(pfd[0]);
	int st = wait_child(pid);
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		set_why(why, len, "%s cannot be run", python);
	else if (out[0])
		set_why(why, len, "not importable by %s: %s", python, out);
	else
		set_why(why, len, "probing %s for %s failed (wait status %#x)", python, modules,
			(unsigned)st);
	return false;
}

bool sbx_have_socket_memcg(char *why, size_t len)
{
	char cmdline[4096] = "";
	FILE *f = fopen("/proc/cmdline", "re");
	if (f) {
		if (!fgets(cmdline, sizeof cmdline, f))
			cmdline[0] = '\0';
		fclose(f);
	}
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
		if (strstr(cmdline, "cgroup.memory=nosocket")) {
			set_why(why, len, "cgroup v2 booted with cgroup.memory=nosocket");
			return false;
		}
		return true;
	}
	if (access("/sys/fs/cgroup/memory/memory.kmem.tcp.limit_in_bytes", F_OK) == 0)
		return true;
	set_why(why, len,
		"cgroup v1 without memory.kmem.tcp.* (kmem accounting off or built out): "
		"nothing charges a job's socket buffers");
	return false;
}
