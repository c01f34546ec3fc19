/* Loading a compiled filter (struct scmp_prog, the sock_filter words
 * seccomp.c exported with seccomp_export_bpf): apart from seccomp.c so that
 * sandboxd-init needs no libseccomp. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandboxd/jail/seccomp.h"

/* Runs in the job's payload: only a raw syscall, no libseccomp, so the
 * static job init links this file alone. */
int scmp_apply(const struct scmp_prog *p, int *listener)
{
	if (listener)
		*listener = -1;
	if (!p || !p->insns || p->len == 0 || (p->notify && !listener)) {
		errno = EINVAL;
		return -1;
	}
	struct sock_fprog fprog = {.len = p->len, .filter = p->insns};
	unsigned long flags = p->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
	if (rc < 0)
		return -1;
	/* The kernel opens the listener O_CLOEXEC: the child must hand it to
	 * the daemon before execve, or kill-listed calls fail with ENOSYS. */
	if (p->notify)
		*listener = (int)rc;
	return 0;
}
