/* The job uids a daemon will use must belong to nobody else: an account
 * there would share its files, signals and ptrace rights with jobs, and a
 * running process would share the per-uid process count (RLIMIT_NPROC) that
 * bounds a job's fork bomb. */
#ifndef SBX_UIDRANGE_H
#define SBX_UIDRANGE_H

#include <stddef.h>
#include <sys/types.h>

/* The job uids of `workers` slots from base: slot s runs its job as base + s
 * and its second, grader-side process as base + workers + s, so the range
 * is [base, base + 2 * workers). */
#define UIDRANGE_WIDTH(workers) (3u * (unsigned)(workers))

/* 0 when no account or group has an id in [base, base + n) and no process
 * runs with a uid there (real, effective, saved or file-system); else -1
 * with a message naming --uid-base. Processes get up to wait_ms to go (the
 * jobs of a crashed daemon dying with their init). */
int uidrange_check(uid_t base, unsigned n, int wait_ms, char *err, size_t errlen);

#endif
