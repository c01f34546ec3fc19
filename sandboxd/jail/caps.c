/* Capabilities layer: the job keeps nothing, in every set. Plain prctl and
 * capset syscalls, no libcap, so the static job init (sandboxd-init) links
 * this file alone. */
#include "sandboxd/jail/caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Number of capabilities the running kernel knows: PR_CAPBSET_READ answers
 * EINVAL past the last one, so ones newer than our headers count too. */
static int caps_count;

int caps_init(void)
{
	int c = 0;
	while (c < 1024 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0)
		c++;
	caps_count = c;
	return caps_count > 0 && errno == EINVAL ? 0 : -1;
}

int caps_drop_bounding(void)
{
	for (int c = 0; c < caps_count; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return -1;
	/* Before Linux 4.3 there is no ambient set: nothing to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	return 0;
}

int caps_drop_all(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}, {0, 0, 0}};
	if (syscall(SYS_capset, &h, d) < 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
