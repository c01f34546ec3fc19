/* Namespace layer: which namespaces a job gets, and the ones applied after
 * clone() (cgroup, UTS). Network setup lives in net.c. */
#ifndef SBX_NS_H
#define SBX_NS_H

/* PID, mount, network, IPC and UTS namespaces are created by clone() itself. */
int ns_clone_flags(void);
/* The cgroup namespace is unshared only after the parent has moved the job
 * into its cgroup, so the job sees its own cgroup as the root. */
int ns_apply_cgroup(void);
int ns_apply_uts(void);

#endif
