/* What the running kernel offers, probed once at start, so that a missing
 * feature is a clear message (or a documented fallback) at start instead of
 * a failure at the first job. docs/kernel.md lists each with its fallback. */
#ifndef SBX_KFEAT_H
#define SBX_KFEAT_H

#include <stdbool.h>
#include <stddef.h>

struct kfeat {
	bool namespaces;      /* mount, PID, net, IPC, UTS, cgroup namespaces: required */
	bool seccomp_filter;  /* seccomp(SECCOMP_SET_MODE_FILTER): required */
	bool seccomp_notify;  /* SECCOMP_RET_USER_NOTIF (5.0): required to name violations */
	bool notify_hup_safe; /* 6.6+: a receive after a hang-up fails instead of blocking */
	bool wait_killable;   /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19) */
	bool pidfd;	      /* pidfd_open (5.3); else waitpid is polled every 10 ms */
	bool close_range;     /* close_range (5.9); else descriptors are closed one by one */
	bool mount_setattr;   /* mount_setattr (5.12); else non-recursive read-only binds */
	bool ia32;	      /* 32-bit syscall emulation (the filter kills it either way) */
	int major, minor;     /* uname release */
};

/* Probes the running kernel (forks a short-lived child for the namespace
 * probe). Never fails: what cannot be probed counts as absent. */
void kfeat_probe(struct kfeat *k);

/* One line for the log: "kernel 6.1: pidfd yes, close_range yes, ...". */
void kfeat_describe(const struct kfeat *k, char *buf, size_t len);

/* 0 when the daemon can run here; else -1 with what is missing and why in
 * err. needs_notify: a loaded profile names violations through the notifier. */
int kfeat_check(const struct kfeat *k, bool needs_notify, char *err, size_t errlen);

#endif
