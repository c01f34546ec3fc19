/* uid layer: the job runs as an unprivileged uid/gid that is unique to its
 * worker slot, so RLIMIT_NPROC and kill(-1) cannot reach other jobs. */
#ifndef SBX_UID_H
#define SBX_UID_H

#include <sys/types.h>

/* Drops supplementary groups, then gid, then uid (the order matters: once
 * the uid is not 0 the process may no longer change its groups). */
int uid_apply(uid_t uid, gid_t gid);

#endif
