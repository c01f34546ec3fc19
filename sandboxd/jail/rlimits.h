/* rlimits layer: the second line behind the cgroup (and the only one
 * without cgroups). Values are computed in the parent, set in the child. */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include <stdbool.h>
#include <sys/resource.h>

#define RL_COUNT 8
struct rlimit_set {
	int resource[RL_COUNT];
	struct rlimit value[RL_COUNT];
	int n;
};

/* with_cgroup=false adds RLIMIT_AS for memory (the only memory bound left). */
struct jail_limits;
void rlimits_prepare(struct rlimit_set *rs, const struct jail_limits *l, bool with_cgroup);
/* Async-signal-safe; returns 0 or -1 (errno set). */
int rlimits_apply(const struct rlimit_set *rs);

#endif
