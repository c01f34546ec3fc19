/* Finding the cgroup hierarchies: which version, where the daemon's own
 * cgroup is in each, and where its job cgroups go. Works on the text of
 * /proc/self/mountinfo and /proc/self/cgroup, so tests can feed fake ones. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup_internal.h"

/* Slots for the own-cgroup paths and mounts found by cg_detect. */
enum { CG_IX_V2, CG_IX_MEM, CG_IX_PIDS, CG_IX_CPUACCT, CG_IX_CPU, CG_IX_N };
static const char *const cg_ctl[CG_IX_N] = {"", "memory", "pids", "cpuacct", "cpu"};
struct cg_mnt {
	bool found, match;
	char point[PATH_MAX], root[PATH_MAX];
};

struct cg_scan {
	char own[CG_IX_N][PATH_MAX];
	struct cg_mnt m[CG_IX_N];
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static int cg_unescape(char *s)
{
	char *o = s;
	for (const char *i = s; *i; i++) {
		if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' &&
		    i[3] >= '0' && i[3] <= '7') {
			*o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
			i += 3;
		} else {
			*o++ = *i;
		}
	}
	*o = '\0';
	return o - s < PATH_MAX ? 0 : cg_errno(ENAMETOOLONG);
}

static char *cg_field(char **s)
{
	char *t;
	while ((t = strsep(s, " ")) != NULL && !*t)
		;
	return t;
}

/* True when the mount's root is an ancestor of (or is) own; *rel is then own
 * relative to the mount point, else own unchanged. */
static bool cg_under(const char *own, const char *root, const char **rel)
{
	size_t rl = strlen(root);
	*rel = own;
	if (strcmp(root, "/") == 0)
		return true;
	if (strncmp(own, root, rl) != 0 || (own[rl] && own[rl] != '/'))
		return false;
	*rel = own + rl;
	return true;
}

/* "id parent maj:min root point opts [optional...] - fstype source superopts" */
static int cg_mount_line(char *l, struct cg_scan *sc)
{
	char *f[6], *t;
	for (int i = 0; i < 6; i++)
		if ((f[i] = cg_field(&l)) == NULL)
			return -1;
	while ((t = cg_field(&l)) != NULL && strcmp(t, "-") != 0)
		;
	char *fs = t ? cg_field(&l) : NULL, *src = fs ? cg_field(&l) : NULL;
	char *opts = src ? cg_field(&l) : NULL;
	if (!opts)
		return -1;
	bool v2 = strcmp(fs, "cgroup2") == 0;
	if (!v2 && strcmp(fs, "cgroup") != 0)
		return 0;
	if (cg_unescape(f[3]) < 0 || cg_unescape(f[4]) < 0)
		return -1;
	for (int ix = 0; ix < CG_IX_N; ix++) {
		struct cg_mnt *m = &sc->m[ix];
		const char *rel;
		if (v2 != (ix == CG_IX_V2) || (!v2 && !cg_has_token(opts, cg_ctl[ix])))
			continue;
		bool match = sc->own[ix][0] && cg_under(sc->own[ix], f[3], &rel);
		/* With several mounts of one hierarchy, prefer one that shows our
		 * own cgroup. */
		if (m->found && (m->match || !match))
			continue;
		m->found = true;
		m->match = match;
		snprintf(m->root, sizeof m->root, "%s", f[3]);
		snprintf(m->point, sizeof m->point, "%s", f[4]);
	}
	return 0;
}

/* Lines "id:controllers:path"; v2's is "0::path". */
static int cg_parse_self(char *text, struct cg_scan *sc, char *err, size_t errlen)
{
	char *l;
	for (int ln = 1; (l = strsep(&text, "\n")) != NULL; ln++) {
		char *ctl = strchr(l, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!*l)
			continue;
		if (!path || path[1] != '/' || strlen(path) > PATH_MAX)
			return cg_err(err, errlen, 0, "/proc/self/cgroup line %d malformed", ln);
		*ctl++ = *path++ = '\0';
		for (int ix = 0; ix < CG_IX_N; ix++) {
			bool hit = ix == CG_IX_V2 ? strcmp(l, "0") == 0 && !*ctl
						  : cg_has_token(ctl, cg_ctl[ix]);
			if (hit && !sc->own[ix][0])
				memcpy(sc->own[ix], path, strlen(path) + 1);
		}
	}
	return 0;
}

/* prefix + mount point + own path below the mount root; *rl is the length of
 * that last part ("" when own is the mount root). */
static int cg_base(char *out, const char *prefix, const struct cg_mnt *m, const char *own,
		   size_t *rl)
{
	const char *rel;
	cg_under(own, m->root, &rel);
	if (strcmp(rel, "/") == 0)
		rel = "";
	*rl = strlen(rel);
	int n = snprintf(out, PATH_MAX, "%s%s%s", prefix, m->point, rel);
	return n < 0 || n >= PATH_MAX ? cg_errno(ENAMETOOLONG) : 0;
}

static int cg_pick_v2(struct cg_root *r, const char *prefix, const struct cg_mnt *m,
		      const char *own, char *err, size_t errlen)
{
	char base[PATH_MAX];
	size_t rl, sl = strlen("/" CG_DAEMON);
	if (cg_base(base, prefix, m, own, &rl) < 0)
		return cg_err(err, errlen, errno, "cgroup2 path for %s", own);
	/* Detecting again after cg_setup (or re-exec) finds us in our own leaf;
	 * the cgroup we belong to is its parent. */
	size_t bl = strlen(base);
	if (rl >= sl && strcmp(base + bl - sl, "/" CG_DAEMON) == 0) {
		base[bl - sl] = '\0';
		rl -= sl;
	}
	int n = snprintf(r->v2_mount, PATH_MAX, "%s%s", prefix, m->point);
	if (n < 0 || n >= PATH_MAX)
		return cg_err(err, errlen, ENAMETOOLONG, "cgroup2 mount %s", m->point);
	memcpy(r->v2_home, base, strlen(base) + 1);
	memcpy(r->v2_start, base, strlen(base) + 1);
	if (cg_join(r->v2_jobs, base, CG_JOBS) < 0)
		return cg_err(err, errlen, errno, "%s/%s", base, CG_JOBS);
	/* A cgroup namespace root looks like the mount root but is a real
	 * cgroup (it has cgroup.type) subject to the no-internal-process rule. */
	if ((rl > 0 || cg_exists(base, "cgroup.type")) &&
	    cg_join(r->v2_daemon, base, CG_DAEMON) < 0)
		return cg_err(err, errlen, errno, "%s/%s", base, CG_DAEMON);
	r->version = CG_V2;
	return 0;
}

static int cg_choose(struct cg_root *r, struct cg_scan *sc, const char *prefix, char *err,
		     size_t errlen)
{
	char buf[CG_SMALL], dir[PATH_MAX];
	const struct cg_mnt *m = sc->m;
	int n = snprintf(dir, sizeof dir, "%s%s", prefix, m[CG_IX_V2].point);
	if (m[CG_IX_V2].found && sc->own[CG_IX_V2][0] && n > 0 && n < PATH_MAX &&
	    cg_read(dir, "cgroup.controllers", buf, sizeof buf) >= 0 &&
	    cg_has_token(buf, "memory") && cg_has_token(buf, "pids"))
		return cg_pick_v2(r, prefix, &m[CG_IX_V2], sc->own[CG_IX_V2], err, errlen);
	char *dst[CG_IX_N] = {NULL, r->v1_memory, r->v1_pids, r->v1_cpuacct, r->v1_cpu};
	char *mnt[CG_IX_N] = {NULL, r->v1_mnt_memory, r->v1_mnt_pids, r->v1_mnt_cpuacct,
			      r->v1_mnt_cpu};
	for (int ix = CG_IX_MEM; ix < CG_IX_N; ix++) {
		size_t rl;
		if (!m[ix].found || !sc->own[ix][0]) {
			if (ix == CG_IX_CPUACCT || ix == CG_IX_CPU)
				continue;
			memset(r, 0, sizeof *r); /* no usable v1 either: rlimits only */
			return 0;
		}
		if (cg_base(dir, prefix, &m[ix], sc->own[ix], &rl) < 0 ||
		    cg_join(dst[ix], dir, CG_JOBS) < 0)
			return cg_err(err, errlen, errno, "cgroup %s path", cg_ctl[ix]);
		/* The mount point with the prefix: cg_base of the mount root. */
		if (cg_base(mnt[ix], prefix, &m[ix], m[ix].root, &rl) < 0)
			return cg_err(err, errlen, errno, "cgroup %s mount", cg_ctl[ix]);
		if (ix == CG_IX_MEM) {
			r->v1_memsw = cg_exists(dir, "memory.memsw.limit_in_bytes");
			r->v1_kmem_tcp = cg_exists(dir, "memory.kmem.tcp.limit_in_bytes");
		}
	}
	r->version = CG_V1;
	return 0;
}

int cg_detect(struct cg_root *r, const char *mountinfo, const char *self_cgroup, const char *prefix,
	      char *err, size_t errlen)
{
	if (!r || !mountinfo || !self_cgroup || !prefix)
		return cg_err(err, errlen, EINVAL, "cg_detect: missing argument");
	memset(r, 0, sizeof *r);
	/* Parsed in writable copies; the scan state is too big for a stack. */
	struct cg_scan *sc = calloc(1, sizeof *sc);
	char *mi = strdup(mountinfo), *self = strdup(self_cgroup), *p = mi, *l;
	int rc = sc && mi && self ? cg_parse_self(self, sc, err, errlen)
				  : cg_err(err, errlen, ENOMEM, "cg_detect");
	for (int ln = 1; rc == 0 && (l = strsep(&p, "\n")) != NULL; ln++)
		if (*l && cg_mount_line(l, sc) < 0)
			rc = cg_err(err, errlen, 0, "mountinfo line %d malformed or too long", ln);
	if (rc == 0)
		rc = cg_choose(r, sc, prefix, err, errlen);
	free(self);
	free(mi);
	free(sc);
	return rc;
}

int cg_detect_system(struct cg_root *r, char *err, size_t errlen)
{
	const char *path[2] = {"/proc/self/mountinfo", "/proc/self/cgroup"};
	char *text[2] = {malloc(CG_TEXT_MAX), malloc(CG_TEXT_MAX)};
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++)
		if (!text[i] || cg_read_path(path[i], text[i], CG_TEXT_MAX) < 0)
			rc = cg_err(err, errlen, text[i] ? errno : ENOMEM, "read %s", path[i]);
	if (rc == 0)
		rc = cg_detect(r, text[0], text[1], "", err, errlen);
	free(text[0]);
	free(text[1]);
	return rc;
}
