#include "sandboxd/jail/caps.h"

#include <sys/capability.h>
#include <sys/prctl.h>

static cap_t empty_caps;

int caps_init(void)
{
	if (!empty_caps)
		empty_caps = cap_init();
	return empty_caps ? 0 : -1;
}

int caps_drop_bounding(void)
{
	/* Every capability the running kernel knows, including ones newer than
	 * libcap's headers: cap_max_bits() asks the kernel. */
	for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++)
		if (cap_drop_bound(c) < 0)
			return -1;
	return cap_reset_ambient();
}

int caps_drop_all(void)
{
	if (!empty_caps || cap_set_proc(empty_caps) < 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
