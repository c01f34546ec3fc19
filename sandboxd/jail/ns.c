#include "sandboxd/jail/ns.h"

#include <sched.h>
#include <unistd.h>

int ns_clone_flags(void)
{
	/* PID: the job's init is pid 1 and when it dies the kernel kills the rest.
	 * NS: mounts never reach the host. NET: only a private loopback.
	 * IPC: SysV/POSIX queues cannot meet other jobs. UTS: its own hostname. */
	return CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
}

int ns_apply_cgroup(void)
{
	return unshare(CLONE_NEWCGROUP);
}

int ns_apply_uts(void)
{
	static const char name[] = "sandbox";
	if (sethostname(name, sizeof name - 1) < 0)
		return -1;
	return setdomainname("", 0);
}
