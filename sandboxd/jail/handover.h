/* What a job's process hands the supervisor before its code runs, besides
 * its seccomp listener: its /work (FDPASS_WORK, when the request fetches
 * files) and its mount namespace (FDPASS_MNTNS, let go after the answer:
 * reclaim.h). Both are checked for what they must be, kept once, and let
 * go with the result. */
#ifndef SBX_HANDOVER_H
#define SBX_HANDOVER_H

#include <stdbool.h>

#include "sandboxd/jail/jail.h"

/* fd came with tag: true when the tag is one of the above, and then fd is
 * kept in r or closed; false for any other tag (fd untouched). */
bool handover_take(const struct jail_spec *s, struct jail_result *r, int fd, char tag);
/* Lets go of what r kept: /work closed, the namespace to the reclaim
 * thread. */
void handover_release(struct jail_result *r);

#endif
