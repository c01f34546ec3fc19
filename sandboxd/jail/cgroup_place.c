/* Where the daemon's cgroups go. On v2 a cgroup can hand controllers to its
 * children only while it holds no process of its own, so the daemon's own
 * cgroup is usable only when it is alone there (a systemd unit with
 * Delegate=yes) or it is the root. Started from a login shell, or under a
 * parent that does not delegate memory and pids, it makes a home of its own
 * instead of quietly falling back to rlimits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup_internal.h"

int cg_ctl_line(const char *dir, char *ctl, size_t len, char *err, size_t errlen)
{
	char buf[CG_SMALL];
	if (cg_read(dir, "cgroup.controllers", buf, sizeof buf) < 0)
		return cg_err(err, errlen, errno, "read %s/cgroup.controllers", dir);
	if (!cg_has_token(buf, "memory") || !cg_has_token(buf, "pids"))
		return cg_err(err, errlen, 0,
			      "%s is not offered the memory and pids controllers (its parent "
			      "does not delegate them; it has: %.100s)",
			      dir, buf);
	snprintf(ctl, len, "+memory +pids%s", cg_has_token(buf, "cpu") ? " +cpu" : "");
	return 0;
}

/* True when the cgroup's procs file lists a process other than us. */
static bool cg_has_others(const char *dir)
{
	char buf[CG_SMALL];
	if (cg_read(dir, "cgroup.procs", buf, sizeof buf) < 0)
		return errno != ENOENT; /* a full or unreadable file: assume others */
	char *p = buf, *l;
	while ((l = strsep(&p, "\n")) != NULL)
		if (*l && atoi(l) != (int)getpid())
			return true;
	return false;
}

/* Enables ctl in dir's subtree_control unless every part already is. */
static int cg_delegate(const char *dir, const char *ctl, bool root, char *err, size_t errlen)
{
	char have[CG_SMALL], want[64];
	if (cg_read(dir, "cgroup.subtree_control", have, sizeof have) < 0)
		have[0] = '\0';
	snprintf(want, sizeof want, "%s", ctl);
	bool missing = false;
	char *p = want, *t;
	while ((t = strsep(&p, " ")) != NULL)
		missing |= *t == '+' && !cg_has_token(have, t + 1);
	if (!missing)
		return 0;
	/* The kernel would say EBUSY; say which rule and where. */
	if (!root && cg_has_others(dir))
		return cg_err(err, errlen, 0,
			      "cannot delegate controllers below %s: it holds processes (the "
			      "no-internal-processes rule of cgroup v2)",
			      dir);
	return cg_write(dir, "cgroup.subtree_control", ctl, err, errlen);
}

int cg_mkpath(const char *from, const char *path, const char *ctl, char *err, size_t errlen)
{
	size_t fl = strlen(from);
	char p[PATH_MAX];
	if (strncmp(path, from, fl) != 0 || (path[fl] && path[fl] != '/') ||
	    strlen(path) >= sizeof p)
		return cg_err(err, errlen, EINVAL, "%s is not below %s", path, from);
	memcpy(p, path, strlen(path) + 1);
	if (ctl && path[fl] && cg_delegate(from, ctl, true, err, errlen) < 0)
		return -1;
	for (char *s = p + fl; *s;) {
		char *slash = strchr(s + 1, '/');
		if (slash)
			*slash = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return cg_err(err, errlen, errno, "mkdir %s", p);
		if (!slash)
			break;
		if (ctl && cg_delegate(p, ctl, false, err, errlen) < 0)
			return -1;
		*slash = '/';
		s = slash;
	}
	return 0;
}

/* A cgroup path as a user writes it: absolute, plain components only. */
static bool cg_path_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || s[0] != '/' || s[n - 1] == '/' || n > 512 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./@:") != n)
		return false;
	return !strstr(s, "//") && !strstr(s, "/./") && !strstr(s, "/../") &&
	       strcmp(s + n - 2, "/.") != 0 && strcmp(s + n - 3, "/..") != 0;
}

static int cg_set_home(struct cg_root *r, const char *home, bool made, char *err, size_t errlen)
{
	if (cg_join(r->v2_jobs, home, CG_JOBS) < 0 || cg_join(r->v2_daemon, home, CG_DAEMON) < 0 ||
	    strlen(home) >= sizeof r->v2_home)
		return cg_err(err, errlen, ENAMETOOLONG, "cgroup home %s", home);
	memcpy(r->v2_home, home, strlen(home) + 1);
	r->v2_made_home = made;
	return 0;
}

static int cg_place_v1(struct cg_root *r, const char *parent, char *err, size_t errlen)
{
	char *dst[4] = {r->v1_memory, r->v1_pids, r->v1_cpuacct, r->v1_cpu};
	const char *mnt[4] = {r->v1_mnt_memory, r->v1_mnt_pids, r->v1_mnt_cpuacct, r->v1_mnt_cpu};
	for (int i = 0; i < 4; i++) {
		if (!dst[i][0])
			continue;
		int n =
		    snprintf(dst[i], PATH_MAX, "%s%s/%s/%s", mnt[i], parent, r->instance, CG_JOBS);
		if (n < 0 || n >= PATH_MAX)
			return cg_err(err, errlen, ENAMETOOLONG, "--cgroup-parent %s", parent);
	}
	return 0;
}

/* The recorded home is used only if it is a plain path below the mount whose
 * daemon leaf is empty: a live daemon there is not ours to join. */
static bool cg_prev_ok(const struct cg_root *r, const char *prev)
{
	char leaf[PATH_MAX], buf[CG_SMALL];
	size_t ml = strlen(r->v2_mount);
	if (!prev || strncmp(prev, r->v2_mount, ml) != 0 || !cg_path_ok(prev + ml))
		return false;
	if (cg_read(prev, "cgroup.subtree_control", buf, sizeof buf) < 0 ||
	    !cg_has_token(buf, "memory") || !cg_has_token(buf, "pids"))
		return false;
	if (cg_join(leaf, prev, CG_DAEMON) < 0 ||
	    cg_read(leaf, "cgroup.procs", buf, sizeof buf) < 0)
		return false;
	return strspn(buf, "\n") == strlen(buf);
}

int cg_place(struct cg_root *r, const char *parent, const char *prev_home, char *note,
	     size_t notelen, char *err, size_t errlen)
{
	char home[PATH_MAX], why[PATH_MAX + 200], ctl[64];
	if (note && notelen)
		note[0] = '\0';
	if (!r || r->version == CG_NONE)
		return 0;
	if (!r->instance[0] || strchr(r->instance, '/'))
		return cg_err(err, errlen, EINVAL, "cg_place: no instance name");
	if (parent && !cg_path_ok(parent))
		return cg_err(err, errlen, EINVAL,
			      "--cgroup-parent %.200s: give an absolute cgroup path such as "
			      "/sandboxd (plain names, no . or ..)",
			      parent);
	if (r->version == CG_V1)
		return parent ? cg_place_v1(r, parent, err, errlen) : 0;
	if (parent) {
		int n = snprintf(home, sizeof home, "%s%s/%s", r->v2_mount, parent, r->instance);
		if (n < 0 || n >= (int)sizeof home)
			return cg_err(err, errlen, ENAMETOOLONG, "--cgroup-parent %s", parent);
		return cg_set_home(r, home, true, err, errlen);
	}
	/* The root cgroup (no leaf needed) is always usable. */
	if (!r->v2_daemon[0])
		return 0;
	if (cg_ctl_line(r->v2_home, ctl, sizeof ctl, why, sizeof why) == 0) {
		if (!cg_has_others(r->v2_home))
			return 0;
		snprintf(why, sizeof why,
			 "own cgroup %s holds other processes (a login session's scope?)",
			 r->v2_home);
	}
	if (cg_prev_ok(r, prev_home)) {
		snprintf(note, notelen, "%s; rejoining the home of an earlier run, %s", why,
			 prev_home);
		return cg_set_home(r, prev_home, true, err, errlen);
	}
	int n = snprintf(home, sizeof home, "%s/%s/%s", r->v2_mount, CG_FALLBACK, r->instance);
	if (n < 0 || n >= (int)sizeof home)
		return cg_err(err, errlen, ENAMETOOLONG, "cgroup home below %s", r->v2_mount);
	snprintf(note, notelen, "%s; using a delegated subtree of its own, %s", why, home);
	return cg_set_home(r, home, true, err, errlen);
}
