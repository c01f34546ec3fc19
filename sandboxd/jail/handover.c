/* The job's hand-overs to the supervisor (handover.h). */
#include "sandboxd/jail/handover.h"

#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/reclaim.h"
#include "sandboxd/jail/workfiles.h"

bool handover_take(const struct jail_spec *s, struct jail_result *r, int fd, char tag)
{
	/* /work: kept when the request fetches files and it is what it must
	 * be (workfiles_check). The namespace: kept if it is a mount
	 * namespace. Anything else, or a second one, is closed. */
	if (tag == FDPASS_WORK && s->keep_work && !r->have_work && workfiles_check(fd) == 0) {
		r->work_fd = fd;
		r->have_work = true;
	} else if (tag == FDPASS_MNTNS && !r->have_mnt && ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNS) {
		r->mnt_fd = fd;
		r->have_mnt = true;
	} else if (tag == FDPASS_WORK || tag == FDPASS_MNTNS) {
		close(fd);
	} else {
		return false;
	}
	return true;
}

void handover_release(struct jail_result *r)
{
	if (r->have_work)
		close(r->work_fd);
	r->have_work = false;
	if (r->have_mnt)
		reclaim_fd(r->mnt_fd);
	r->have_mnt = false;
}
