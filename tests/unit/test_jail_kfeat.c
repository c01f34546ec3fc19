/* Unit tests for the kernel feature probes: each probe against an
 * independent look at the same feature on the running kernel, and the
 * start-up check's messages on made-up kernels.
 *
 * Distribution kernels backport features, so a feature is never expected
 * by release number: each test uses the feature its own way (a different
 * call from sandboxd/kfeat.c's, and where it can, one whose effect is
 * observed) and compares. Only notify_hup_safe is a behaviour rather than
 * a syscall (a receive after a hang-up fails instead of blocking, 6.6+);
 * kfeat reads it from the release, and so does its test. A test whose own
 * look cannot be taken here (not root, say) reports a skip with the reason. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/kfeat.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* struct mount_attr (linux/mount.h, 5.12), spelled out so the test builds
 * against older headers too. */
struct test_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define TEST_MOUNT_ATTR_RDONLY 0x1

static int g_major, g_minor;

static bool newer_than(int major, int minor)
{
	return g_major > major || (g_major == major && g_minor >= minor);
}

/* The answer of an independent probe: present, absent, or unknown (this
 * machine does not let the test look; a skip). */
enum look { ABSENT, PRESENT, UNKNOWN };

static const char *look_name(enum look l)
{
	return l == PRESENT ? "present" : l == ABSENT ? "absent" : "unknown";
}

/* Runs fn in a forked child, which writes one line to fd: "present ...",
 * "absent ..." or anything else (unknown); that line is the answer and
 * its text the reason. A child that dies is described by its wait status. */
static enum look in_child(void (*fn)(int fd, void *arg), void *arg, char *why, size_t len)
{
	int p[2];
	ck_assert(pipe2(p, O_CLOEXEC) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		/* A probe that dies must leave no core file in the working
		 * directory (the repository) nor hand one to a core_pattern pipe. */
		struct rlimit rl = {0, 0};
		setrlimit(RLIMIT_CORE, &rl);
		prctl(PR_SET_DUMPABLE, 0);
		fn(p[1], arg);
		_exit(0);
	}
	close(p[1]);
	char buf[512];
	size_t got = 0;
	ssize_t n;
	while (got < sizeof buf - 1 && (n = read(p[0], buf + got, sizeof buf - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(p[0]);
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid);
	if (!buf[0]) {
		snprintf(why, len, "the probe child wrote nothing (wait status %#x)", (unsigned)st);
		return UNKNOWN;
	}
	snprintf(why, len, "%s", buf);
	if (strncmp(buf, "present", 7) == 0)
		return PRESENT;
	if (strncmp(buf, "absent", 6) == 0)
		return ABSENT;
	if (strncmp(buf, "unknown: ", 9) == 0)
		snprintf(why, len, "%s", buf + 9);
	return UNKNOWN;
}

__attribute__((format(printf, 2, 3))) static void say(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
}

/* Compares kfeat's answer with the test's own. */
#define SAME(name, kval, look, why)                                                                \
	ck_assert_msg((kval) == ((look) == PRESENT),                                               \
		      "kfeat says %s %s, the test's own probe says %s (%s)", name,                 \
		      (kval) ? "present" : "absent", look_name(look), why)

/* --- the probes, each the test's own way -------------------------------- */

/* close_range on one descriptor of ours: present when it is then closed. */
static enum look look_close_range(char *why, size_t len)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert(fd >= 0);
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	ck_assert(hi >= 0);
	close(fd);
	errno = 0;
	long r = syscall(SYS_close_range, (unsigned)hi, (unsigned)hi, 0);
	int e = errno;
	bool closed = fcntl(hi, F_GETFD) < 0 && errno == EBADF;
	if (!closed)
		close(hi);
	if (r == 0 && closed) {
		snprintf(why, len, "close_range(%d, %d, 0) closed it", hi, hi);
		return PRESENT;
	}
	snprintf(why, len, "close_range(%d, %d, 0) returned %ld (%s), descriptor %s", hi, hi, r,
		 r < 0 ? strerror(e) : "no error", closed ? "closed" : "still open");
	return ABSENT;
}

/* In a private mount namespace: a tmpfs with a tmpfs submount, made
 * read-only recursively; present when a file cannot be made in the
 * submount (EROFS). */
static void mount_setattr_child(int fd, void *arg)
{
	const char *dir = arg;
	char sub[PATH_MAX], file[PATH_MAX];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(file, sizeof file, "%s/sub/x", dir);
	if (unshare(CLONE_NEWNS) < 0) {
		say(fd, "unknown: unshare(CLONE_NEWNS): %s", strerror(errno));
		return;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=64k") < 0 || mkdir(sub, 0755) < 0 ||
	    mount("tmpfs", sub, "tmpfs", 0, "size=64k") < 0) {
		say(fd, "unknown: setting up tmpfs mounts at %s: %s", dir, strerror(errno));
		return;
	}
	struct test_mount_attr a = {.attr_set = TEST_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, dir, AT_RECURSIVE, &a, sizeof a) < 0) {
		say(fd, "%s: mount_setattr(%s, AT_RECURSIVE, MOUNT_ATTR_RDONLY): %s",
		    errno == ENOSYS ? "absent" : "unknown", dir, strerror(errno));
		return;
	}
	int f = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (f < 0 && errno == EROFS)
		say(fd, "present: a recursive read-only mount_setattr made a submount read-only");
	else
		say(fd,
		    "absent: mount_setattr(AT_RECURSIVE, MOUNT_ATTR_RDONLY) returned 0 but "
		    "creating %s gave %s",
		    file, f < 0 ? strerror(errno) : "a file");
}

static enum look look_mount_setattr(char *why, size_t len)
{
	if (geteuid() != 0) {
		snprintf(why, len, "needs root for a private mount namespace (uid %d)",
			 (int)geteuid());
		return UNKNOWN;
	}
	char dir[] = "/tmp/test_kfeat.XXXXXX";
	ck_assert(mkdtemp(dir) != NULL);
	enum look l = in_child(mount_setattr_child, dir, why, len);
	rmdir(dir); /* the mounts went with the child's namespace */
	return l;
}

/* Installs an allow-everything filter with the given flags; present when
 * the kernel takes it. */
static void seccomp_child(int fd, void *arg)
{
	unsigned long flags = *(const unsigned long *)arg;
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = allow};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		say(fd, "unknown: PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return;
	}
	long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (rc >= 0)
		say(fd, "present: an allow-all filter with flags %#lx was installed", flags);
	else if (errno == EINVAL || errno == ENOSYS)
		say(fd, "absent: installing an allow-all filter with flags %#lx: %s", flags,
		    strerror(errno));
	else
		say(fd, "unknown: installing an allow-all filter with flags %#lx: %s", flags,
		    strerror(errno));
}

static enum look look_seccomp(unsigned long flags, char *why, size_t len)
{
	return in_child(seccomp_child, &flags, why, len);
}

/* A pidfd of a child that exits becomes readable. */
static enum look look_pidfd(char *why, size_t len)
{
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0)
		_exit(0);
	long fd = syscall(SYS_pidfd_open, c, 0);
	int e = errno;
	enum look l = ABSENT;
	if (fd < 0) {
		snprintf(why, len, "pidfd_open(child): %s", strerror(e));
	} else {
		struct pollfd p = {.fd = (int)fd, .events = POLLIN};
		int n = poll(&p, 1, 5000);
		l = n == 1 && (p.revents & POLLIN) ? PRESENT : ABSENT;
		snprintf(why, len, "the child's pidfd %s readable when it exited",
			 l == PRESENT ? "became" : "did not become");
		close((int)fd);
	}
	ck_assert(waitpid(c, NULL, 0) == c);
	return l;
}

/* Each namespace on its own, in a child. */
static void namespaces_child(int fd, void *arg)
{
	(void)arg;
	static const struct {
		int flag;
		const char *name;
	} ns[] = {{CLONE_NEWNS, "mount"}, {CLONE_NEWPID, "PID"}, {CLONE_NEWNET, "net"},
		  {CLONE_NEWIPC, "IPC"},  {CLONE_NEWUTS, "UTS"}, {CLONE_NEWCGROUP, "cgroup"}};
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		if (unshare(ns[i].flag) < 0) {
			say(fd, "absent: unshare of a %s namespace: %s", ns[i].name,
			    strerror(errno));
			return;
		}
	say(fd, "present: each of the six namespaces could be unshared");
}

/* The i386 getpid (20) through int $0x80 returns our pid; without IA32
 * emulation the child gets SIGSEGV (or -ENOSYS). */
static void ia32_child(int fd, void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(20L)
			 : "rcx", "r8", "r9", "r10", "r11", "memory");
	if (r == (long)getpid())
		say(fd, "present: the i386 getpid returned our pid");
	else
		say(fd, "absent: the i386 getpid returned %ld", r);
#else
	say(fd, "absent: not an x86_64 build, there is no i386 ABI");
#endif
}

/* --- the tests ----------------------------------------------------------- */

START_TEST(test_version)
{
	struct kfeat k;
	kfeat_probe(&k);
	ck_assert_int_eq(k.major, g_major);
	ck_assert_int_eq(k.minor, g_minor);
	/* A behaviour, not a syscall: read from the release on purpose. */
	ck_assert_int_eq(k.notify_hup_safe, newer_than(6, 6));
	char line[512];
	kfeat_describe(&k, line, sizeof line);
	ck_assert_msg(strstr(line, "kernel ") && strstr(line, k.pidfd ? "pidfd yes" : "pidfd no"),
		      "%s", line);
	fprintf(stderr, "[kfeat] %s\n", line);
}
END_TEST

START_TEST(test_close_range)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l = look_close_range(why, sizeof why);
	SAME("close_range", k.close_range, l, why);
}
END_TEST

START_TEST(test_mount_setattr)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l = look_mount_setattr(why, sizeof why);
	if (l == UNKNOWN)
		SKIP_TEST("cannot try mount_setattr(2) here: %s", why);
	SAME("mount_setattr", k.mount_setattr, l, why);
}
END_TEST

START_TEST(test_seccomp)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512], why2[512];
	enum look filt = look_seccomp(0, why, sizeof why);
	enum look notif = look_seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER, why2, sizeof why2);
	if (filt == UNKNOWN)
		SKIP_TEST("cannot install a seccomp filter here: %s", why);
	if (notif == UNKNOWN)
		SKIP_TEST("cannot install a seccomp filter with a listener here: %s", why2);
	SAME("the seccomp filter mode", k.seccomp_filter, filt, why);
	SAME("seccomp user notification", k.seccomp_notify, notif, why2);
}
END_TEST

START_TEST(test_wait_killable)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l =
	    look_seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			 why, sizeof why);
	if (l == UNKNOWN)
		SKIP_TEST("cannot install a seccomp filter here: %s", why);
	SAME("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", k.wait_killable, l, why);
}
END_TEST

START_TEST(test_pidfd)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l = look_pidfd(why, sizeof why);
	SAME("pidfd_open", k.pidfd, l, why);
}
END_TEST

START_TEST(test_namespaces)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l = in_child(namespaces_child, NULL, why, sizeof why);
	if (l == UNKNOWN)
		SKIP_TEST("cannot try namespaces here: %s", why);
	SAME("namespaces", k.namespaces, l, why);
}
END_TEST

START_TEST(test_ia32)
{
	struct kfeat k;
	kfeat_probe(&k);
	char why[512];
	enum look l = in_child(ia32_child, NULL, why, sizeof why);
	/* A child killed by the missing ABI wrote nothing: that is absence. */
	if (l == UNKNOWN && strstr(why, "wrote nothing"))
		l = ABSENT;
	SAME("32-bit emulation", k.ia32, l, why);
}
END_TEST

START_TEST(test_check_messages)
{
	struct kfeat k = {.namespaces = true, .seccomp_filter = true, .seccomp_notify = true};
	char err[512] = "";
	ck_assert_int_eq(kfeat_check(&k, true, err, sizeof err), 0);
	k.seccomp_notify = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), 0);
	ck_assert_int_eq(kfeat_check(&k, true, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "user notification"), "%s", err);
	k.seccomp_filter = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "SECCOMP_FILTER"), "%s", err);
	k.namespaces = false;
	ck_assert_int_eq(kfeat_check(&k, false, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "namespaces"), "%s", err);
}
END_TEST

/* The running kernel's version, for the tests that go by release; and no
 * core files: kfeat_probe's own IA32 child dies on a kernel without the
 * emulation, and the tests' children inherit this, so none is left in the
 * repository. */
static int setup(void)
{
	struct utsname u;
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &g_major, &g_minor) != 2)
		return -1;
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);
	return 0;
}

static Suite *kfeat_suite(void)
{
	Suite *s = suite_create("kfeat");
	TCase *tc = tcase_create("probe");
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_close_range);
	tcase_add_test(tc, test_mount_setattr);
	tcase_add_test(tc, test_seccomp);
	tcase_add_test(tc, test_wait_killable);
	tcase_add_test(tc, test_pidfd);
	tcase_add_test(tc, test_namespaces);
	tcase_add_test(tc, test_ia32);
	tcase_add_test(tc, test_check_messages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.setup = setup};
	return tmain(kfeat_suite, &opts);
}
