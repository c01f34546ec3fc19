/* Profiles: the named policies in policies/ — interpreter, extra read-only
 * paths, limit defaults and maxima, and the seccomp profile they use. */
#ifndef SBX_PROFILE_H
#define SBX_PROFILE_H

#include <limits.h>
#include <stddef.h>

#include "common/protocol.h"
#include "sandboxd/jail/seccomp.h"

#define PROFILE_MAX_ARGS 8
#define PROFILE_MAX_RO 32
#define PROFILE_MAX_PRELOAD 32

struct profile {
	char name[64];
	char interpreter[PATH_MAX];
	char *args[PROFILE_MAX_ARGS + 1]; /* interpreter options before the script */
	size_t nargs;
	char *ro_paths[PROFILE_MAX_RO]; /* host paths bound read-only at the same place */
	size_t n_ro;
	/* The interpreter's own /etc dir (e.g. /etc/python3.11, named after the
	 * binary the interpreter resolves to), or "" when the host has none. */
	char interpreter_etc[PATH_MAX];
	struct proto_limits defaults, maxima;
	struct scmp_prog seccomp;
	/* Modules a fork server imports before its first job ("preload"): module
	 * names, checked here; the ones the host lacks are skipped there. */
	char *preload[PROFILE_MAX_PRELOAD + 1];
	size_t npreload;
};

struct profile_set {
	struct profile *v;
	size_t n;
};

/* Loads every "<name>.json" in dir (not "*.seccomp.json"); each names its
 * seccomp file. Any error stops the load with a message naming the file and
 * the field. A "python" profile must exist: it is the default. */
int profile_load_dir(const char *dir, bool want_notify, struct profile_set *out, char *err,
		     size_t errlen);
/* One profile from text (tests); seccomp file paths resolve against dir. */
int profile_load_text(const char *dir, const char *fname, const char *text, bool want_notify,
		      struct profile *p, char *err, size_t errlen);
/* name NULL: the default ("python"). */
const struct profile *profile_find(const struct profile_set *s, const char *name);
void profile_free(struct profile *p);
void profile_set_free(struct profile_set *s);

/* The CPUs the daemon may run on (its affinity), at least 1: the maximum of
 * the cpus limit when a profile names none. */
long profile_host_cpus(void);

/* The fewest tasks a job's cgroup can hold and still run it: the jail's
 * pid 1 and the program. A profile may not go below it, and a request's
 * smaller pids limit is raised to it. */
#define LIMITS_PIDS_MIN 2

/* Fills unset limits from the defaults, rejects non-positive ones and clamps
 * each to the profile's maximum, and pids up to LIMITS_PIDS_MIN. When
 * cpu_ms is given and wall_ms is not, wall_ms is max(its default, 2 x
 * cpu_ms), clamped. case_cpu_ms and case_wall_ms left out are cpu_ms and
 * wall_ms; given, they are clamped to them. Returns 0 or -1 with a message. */
int limits_resolve(const struct proto_limits *req, const struct profile *p,
		   struct proto_limits *out, char *msg, size_t msglen);

#endif
