#include "sandboxd/jail/uid.h"

#include <sys/syscall.h>
#include <unistd.h>

int uid_apply(uid_t uid, gid_t gid)
{
	/* Raw syscalls, not glibc's wrappers: in a process cloned from the
	 * multithreaded daemon, glibc still believes the other threads exist
	 * and would wait forever for them to change their ids too. */
	if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, gid, gid, gid) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0)
		return -1;
	/* Verify rather than trust: a kernel or LSM that silently kept any id 0
	 * would leave a root job. */
	uid_t r, e, s;
	gid_t rg, eg, sg;
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0)
		return -1;
	return (r == uid && e == uid && s == uid && rg == gid && eg == gid && sg == gid) ? 0 : -1;
}
