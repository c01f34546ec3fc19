/* What cgroup.c (job cgroups) and cgroup_detect.c (finding the hierarchies)
 * share: the names of the directories the daemon creates and small file
 * helpers that report errors the same way. */
#ifndef SBX_CGROUP_INTERNAL_H
#define SBX_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sandboxd/jail/cgroup.h"

#define CG_JOBS "sandboxd"
#define CG_DAEMON "sandboxd-daemon"
#define CG_FALLBACK "sandboxd" /* below the v2 mount: the homes cg_place makes */
#define CG_SMALL 4096
#define CG_TEXT_MAX (1 << 20)

__attribute__((format(printf, 4, 5))) int cg_err(char *err, size_t errlen, int e, const char *fmt,
						 ...);
int cg_errno(int e);
int cg_join(char *out, const char *dir, const char *name);
bool cg_exists(const char *dir, const char *file);
int cg_write(const char *dir, const char *file, const char *val, char *err, size_t errlen);
ssize_t cg_read_path(const char *p, char *buf, size_t size);
ssize_t cg_read(const char *dir, const char *file, char *buf, size_t size);
bool cg_has_token(const char *s, const char *tok);
/* "+memory +pids" and " +cpu" when dir's cgroup.controllers offers cpu. */
int cg_ctl_line(const char *dir, char *ctl, size_t len, char *err, size_t errlen);
/* Creates every missing directory of path below `from` (which exists). On
 * v2, with ctl non-NULL, enables ctl in the subtree_control of `from` and of
 * every directory made or passed on the way, except the last. */
int cg_mkpath(const char *from, const char *path, const char *ctl, char *err, size_t errlen);

/* cgroup_kill.c: SIGKILLs everything in up to five cgroups and waits up to
 * timeout_ms for them to empty (0, or -1 with EBUSY when they did not). */
int cg_kill_dirs(const char *const *dirs, int n, int timeout_ms);

/* cgroup_cpu.c: the job's CPU bandwidth cap (cpus CPUs per period), when
 * r->cpu_cap; else nothing. */
int cg_cpu_cap(const struct cg_root *r, struct cg_job *j, uint64_t cpus, char *err, size_t errlen);
/* The normal CPU weight back after cg_job_background (nothing to do
 * without it). */
int cg_cpu_foreground(struct cg_job *j, char *err, size_t errlen);
/* Sets r->cpu_cap from the files the jobs dir offers (after cg_setup). */
void cg_cpu_detect(struct cg_root *r);

#endif
