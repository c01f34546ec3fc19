/* The job's view of /proc. A fresh proc mount still shows host-wide files:
 * the kernel command line, boot_id, the kernel config, host memory, load and
 * CPU counts, key users, timers. procview_prepare() (daemon side) formats the
 * job's own meminfo, stat, cpuinfo and loadavg from its limits;
 * procview_apply() (in the job's init, before any job code) binds them
 * read-only over the host's, and binds an empty file or directory over every
 * entry a Python program has no need for. The files are a snapshot taken
 * when the job starts: they never change while it runs. */
#ifndef SBX_PROCVIEW_H
#define SBX_PROCVIEW_H

#include <stddef.h>

struct jail_limits;

/* More CPUs than this are shown as this many (the cap is a bandwidth; a
 * count past the host's is never shown either). */
#define PROCVIEW_MAX_CPUS 64

struct procview {
	char meminfo[2048];
	char stat[4096];
	char cpuinfo[49152];
	char loadavg[64];
	int ncpus; /* what the view shows: the cap, clamped */
};

/* Formats the view for a job with these limits (memory_mb, cpus). Takes
 * the fields that are not the job's to change from the host's
 * /proc/cpuinfo, /proc/stat (btime) and /proc/meminfo (Hugepagesize), read
 * once per process, at its first call. Returns 0, or -1 when a file does
 * not fit (it cannot with the bounds above). */
int procview_prepare(struct procview *pv, const struct jail_limits *lim);

/* In the job's init, with the new root's directory as cwd and /proc mounted
 * at "proc": plain syscalls only, no allocation. procview_apply is
 * procview_mask, then procview_fill. procview_mask needs nothing of the
 * job's: it mounts its staging tmpfs on `stage`, an existing directory
 * outside the new root, binds the (still empty) own files and every mask
 * from it, and keeps the own files open for writing; the caller detaches
 * the stage (mounts_prepare: the old root's /proc, detached with the old
 * root, one unmount for both). A job forked ahead does it before its job
 * comes (mounts_prepare); procview_fill writes the job's texts through
 * those descriptors and closes them, wherever the cwd and the root are by
 * then. */
int procview_apply(const struct procview *pv, const char *stage);
int procview_mask(const char *stage);
int procview_fill(const struct procview *pv);

#endif
