/* Kernel feature probes. Each calls the syscall in a way that cannot change
 * anything and reads "unknown" (ENOSYS, EINVAL for an unknown flag) apart
 * from "known" (any other answer). */
#include "sandboxd/jail/kfeat.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif

/* A seccomp filter flag is known when a NULL program fails with EFAULT
 * (the flag passed validation) rather than EINVAL. */
static bool kfeat_seccomp_flag(unsigned long flag)
{
	long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flag, NULL);
	return rc < 0 && errno == EFAULT;
}

/* The probe child exited 0. */
static bool kfeat_child_ok(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool kfeat_namespaces(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
			      CLONE_NEWUTS | CLONE_NEWCGROUP) == 0
			  ? 0
			  : 1);
	return kfeat_child_ok(pid);
}

/* i386 getpid (20) through int 0x80 in a child: without the emulation the
 * kernel answers with SIGSEGV. */
static bool kfeat_ia32(void)
{
#if defined(__x86_64__)
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		/* Without the emulation the child dies of SIGSEGV: no core file. */
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		_exit(r > 0 ? 0 : 1);
	}
	return kfeat_child_ok(pid);
#else
	return false;
#endif
}

void kfeat_probe(struct kfeat *k)
{
	memset(k, 0, sizeof *k);
	struct utsname u;
	if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &k->major, &k->minor) != 2)
		k->major = k->minor = 0;
	k->namespaces = kfeat_namespaces();
	k->seccomp_filter = kfeat_seccomp_flag(0);
	unsigned int act = SECCOMP_RET_USER_NOTIF;
	k->seccomp_notify = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == 0;
	k->wait_killable = kfeat_seccomp_flag(SECCOMP_FILTER_FLAG_NEW_LISTENER |
					      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
	k->notify_hup_safe = k->major > 6 || (k->major == 6 && k->minor >= 6);
	long fd = syscall(SYS_pidfd_open, getpid(), 0);
	k->pidfd = fd >= 0;
	if (fd >= 0)
		close((int)fd);
	/* An empty range above every descriptor closes nothing. */
	k->close_range = syscall(SYS_close_range, ~0U - 1, ~0U - 1, 0) == 0;
	errno = 0;
	k->mount_setattr = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0) < 0 && errno != ENOSYS;
	k->ia32 = kfeat_ia32();
}

void kfeat_describe(const struct kfeat *k, char *buf, size_t len)
{
#define YN(x) ((x) ? "yes" : "no")
	snprintf(buf, len,
		 "kernel %d.%d: namespaces %s, seccomp %s, user notification %s%s, "
		 "wait-killable recv %s, pidfd %s, close_range %s, mount_setattr %s, "
		 "32-bit emulation %s",
		 k->major, k->minor, YN(k->namespaces), YN(k->seccomp_filter),
		 YN(k->seccomp_notify), k->notify_hup_safe ? "" : " (receive only on POLLIN)",
		 YN(k->wait_killable), YN(k->pidfd), YN(k->close_range), YN(k->mount_setattr),
		 YN(k->ia32));
#undef YN
}

int kfeat_check(const struct kfeat *k, bool needs_notify, char *err, size_t errlen)
{
	if (!k->namespaces)
		snprintf(err, errlen,
			 "the kernel refuses new mount/PID/net/IPC/UTS/cgroup namespaces (not "
			 "built in, or forbidden to this process by a container's seccomp or "
			 "AppArmor profile); every jail layer needs them");
	else if (!k->seccomp_filter)
		snprintf(err, errlen,
			 "the kernel has no seccomp filter mode (CONFIG_SECCOMP_FILTER)");
	else if (needs_notify && !k->seccomp_notify)
		snprintf(
		    err, errlen,
		    "the kernel has no seccomp user notification (Linux 5.0+), which names "
		    "the forbidden syscall of a violation; use a profile whose kill actions are "
		    "SCMP_ACT_KILL_PROCESS, or a newer kernel");
	else
		return 0;
	return -1;
}
