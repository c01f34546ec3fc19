/* What cgroup.c (job cgroups) and cgroup_detect.c (finding the hierarchies)
 * share: the names of the directories the daemon creates and small file
 * helpers that report errors the same way. */
#ifndef SBX_CGROUP_INTERNAL_H
#define SBX_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"

#define CG_JOBS "sandboxd"
#define CG_DAEMON "sandboxd-daemon"
#define CG_SMALL 4096
#define CG_TEXT_MAX (1 << 20)

__attribute__((format(printf, 4, 5))) int cg_err(char *err, size_t errlen, int e, const char *fmt,
						 ...);
int cg_errno(int e);
int cg_join(char *out, const char *dir, const char *name);
bool cg_exists(const char *dir, const char *file);
ssize_t cg_read_path(const char *p, char *buf, size_t size);
ssize_t cg_read(const char *dir, const char *file, char *buf, size_t size);
bool cg_has_token(const char *s, const char *tok);

#endif
