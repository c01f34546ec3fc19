/* A fork server's network namespace for its jobs (docs/architecture.md,
 * "The warm path"): made once, lent to one job at a time, and kept only
 * while every job leaves it as it was made. Creating and destroying a
 * network namespace is the largest single cost of a warm job's layers; a
 * job that sends no packet and leaves no socket leaves nothing in one. */
#ifndef SBX_WARM_NET_H
#define SBX_WARM_NET_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The namespace's /proc/net files the check reads (warm_net.c). */
#define WARM_NET_FILES 8

struct warm_net {
	int ns;	   /* the namespace (nsfs), or -1: none, jobs make their own */
	bool lent; /* a job had it since it was last found clean */
	int files[WARM_NET_FILES];
	char *pristine[WARM_NET_FILES]; /* as made, global figures cut out */
	size_t len[WARM_NET_FILES];
};

/* No namespace yet (every descriptor -1). */
void warm_net_init(struct warm_net *n);
/* Makes a namespace owned by the user namespace of process userns_of (a
 * fork server's init), with lo up as a job's own would have it, and reads
 * its files as they are. 0, or -1 with err set (n stays empty). */
int warm_net_make(struct warm_net *n, pid_t userns_of, char *err, size_t errlen);
/* Whether the namespace is as it was made: no socket of any kind, no
 * TIME_WAIT, no packet counted on lo, no protocol counter moved, no IPv6
 * flow label and no route looked up into a per-CPU copy. Only when no job
 * is in it. */
bool warm_net_clean(const struct warm_net *n);
/* Once the job that had it is gone, and before it is lent again: keeps it
 * if clean, else drops it. */
void warm_net_settle(struct warm_net *n);
/* Closes it (the kernel frees it once no job is in it). */
void warm_net_drop(struct warm_net *n);

#endif
