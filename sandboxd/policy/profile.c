/* Loads the named profiles from policies/. A profile is read once at start;
 * a broken one stops the daemon with the file and field named, because a
 * silently ignored policy on a root daemon is worse than no start at all. */
#include "sandboxd/policy/profile.h"
#include "common/errfmt.h"
#include "common/file.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool path_is_clean(const char *p)
{
	size_t n = strlen(p);
	if (p[0] != '/' || n >= PATH_MAX || n < 2 || p[n - 1] == '/')
		return false;
	if (strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//"))
		return false;
	return !(n >= 3 && strcmp(p + n - 3, "/..") == 0) && !(strcmp(p + n - 2, "/.") == 0);
}

long profile_host_cpus(void)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static int load_limits(const char *fname, const char *which, json_t *o, struct proto_limits *l,
		       char *err, size_t errlen)
{
	if (!json_is_object(o))
		return errfmt(err, errlen, "%s: limits.%s: must be an object", fname, which);
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v)
	{
		int i = 0;
		while (i < PROTO_NLIMITS && strcmp(key, proto_limit_names[i]) != 0)
			i++;
		if (i == PROTO_NLIMITS)
			return errfmt(err, errlen, "%s: limits.%s.%s: unknown limit", fname, which,
				      key);
		if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
		    json_integer_value(v) > (1LL << 40))
			return errfmt(err, errlen, "%s: limits.%s.%s: must be a positive integer",
				      fname, which, key);
		*proto_limit_ref(l, i) = (long)json_integer_value(v);
	}
	/* The stdio case limits are optional: load_object fills them. */
	/* cpus came later: a profile without it gets one CPU by default and
	 * at most the CPUs the daemon may run on. */
	if (l->cpus <= 0)
		l->cpus = strcmp(which, "default") == 0 ? 1 : profile_host_cpus();
	for (int i = 0; i < PROTO_NLIMITS; i++)
		if (proto_limit_get(l, i) <= 0 && proto_limit_ref(l, i) != &l->case_cpu_ms &&
		    proto_limit_ref(l, i) != &l->case_wall_ms)
			return errfmt(err, errlen, "%s: limits.%s.%s: missing", fname, which,
				      proto_limit_names[i]);
	return 0;
}

static int load_strings(const char *fname, const char *field, json_t *a, char **out, size_t max,
			size_t *n, bool paths, char *err, size_t errlen)
{
	if (!json_is_array(a))
		return errfmt(err, errlen, "%s: %s: must be an array of strings", fname, field);
	if (json_array_size(a) > max)
		return errfmt(err, errlen, "%s: %s: at most %zu entries", fname, field, max);
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    json_string_length(v) >= PATH_MAX)
			return errfmt(err, errlen, "%s: %s[%zu]: must be a non-empty string", fname,
				      field, i);
		const char *s = json_string_value(v);
		if (paths && !path_is_clean(s))
			return errfmt(err, errlen,
				      "%s: %s[%zu]: \"%s\" is not a clean absolute path", fname,
				      field, i, s);
		if (paths && access(s, F_OK) < 0)
			return errfmt(err, errlen, "%s: %s[%zu]: \"%s\": %s", fname, field, i, s,
				      errfmt_desc(errno));
		out[(*n)++] = strdup(s);
		if (!out[*n - 1])
			return errfmt(err, errlen, "out of memory");
	}
	return 0;
}

/* A dotted Python module name: identifiers of ASCII letters, digits and _. */
static bool module_name_ok(const char *s)
{
	bool start = true;
	for (; *s; s++) {
		if (*s == '.' && !start) {
			start = true;
			continue;
		}
		bool alpha = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
		if (!alpha && !(!start && *s >= '0' && *s <= '9'))
			return false;
		start = false;
	}
	return !start;
}

/* The interpreter's own /etc directory (Debian's /etc/python3.11 holds its
 * sitecustomize.py), named after the binary the interpreter path resolves
 * to, is bound read-only when the host has it. */
static void find_interpreter_etc(struct profile *p)
{
	char real[PATH_MAX];
	struct stat st;
	p->interpreter_etc[0] = '\0';
	if (!realpath(p->interpreter, real))
		return;
	const char *base = strrchr(real, '/');
	snprintf(p->interpreter_etc, sizeof p->interpreter_etc, "/etc/%.200s",
		 base ? base + 1 : real);
	if (stat(p->interpreter_etc, &st) < 0 || !S_ISDIR(st.st_mode))
		p->interpreter_etc[0] = '\0';
}

/* The interpreter must be visible inside the jail: under /usr or under one of
 * the profile's read-only paths. */
static bool interpreter_reachable(const struct profile *p)
{
	if (strncmp(p->interpreter, "/usr/", 5) == 0)
		return true;
	for (size_t i = 0; i < p->n_ro; i++) {
		size_t n = strlen(p->ro_paths[i]);
		if (strncmp(p->interpreter, p->ro_paths[i], n) == 0 && p->interpreter[n] == '/')
			return true;
	}
	return false;
}

static int load_object(const char *dir, const char *fname, json_t *root, bool want_notify,
		       struct profile *p, char *err, size_t errlen)
{
	const char *key;
	json_t *v;
	const char *seccomp = NULL;
	json_t *limits = NULL;
	struct proto_limits unset = PROTO_LIMITS_UNSET;
	p->defaults = p->maxima = unset;
	if (!json_is_object(root))
		return errfmt(err, errlen, "%s: the profile must be a JSON object", fname);
	json_object_foreach(root, key, v)
	{
		int rc = 0;
		if (strcmp(key, "interpreter") == 0) {
			if (!json_is_string(v) || !path_is_clean(json_string_value(v)))
				return errfmt(err, errlen,
					      "%s: interpreter: must be a clean absolute path",
					      fname);
			snprintf(p->interpreter, sizeof p->interpreter, "%s", json_string_value(v));
		} else if (strcmp(key, "args") == 0) {
			rc = load_strings(fname, key, v, p->args, PROFILE_MAX_ARGS, &p->nargs,
					  false, err, errlen);
		} else if (strcmp(key, "preload") == 0) {
			rc = load_strings(fname, key, v, p->preload, PROFILE_MAX_PRELOAD,
					  &p->npreload, false, err, errlen);
			for (size_t i = 0; rc == 0 && i < p->npreload; i++)
				if (!module_name_ok(p->preload[i]))
					rc = errfmt(err, errlen,
						    "%s: preload[%zu]: \"%s\" is not a module name",
						    fname, i, p->preload[i]);
		} else if (strcmp(key, "readonly_paths") == 0) {
			rc = load_strings(fname, key, v, p->ro_paths, PROFILE_MAX_RO, &p->n_ro,
					  true, err, errlen);
		} else if (strcmp(key, "seccomp") == 0) {
			if (!json_is_string(v) || strchr(json_string_value(v), '/') ||
			    json_string_length(v) == 0)
				return errfmt(err, errlen,
					      "%s: seccomp: must be a file name in the policies "
					      "directory",
					      fname);
			seccomp = json_string_value(v);
		} else if (strcmp(key, "limits") == 0) {
			limits = v;
		} else if (strcmp(key, "description") == 0) {
			if (!json_is_string(v))
				return errfmt(err, errlen, "%s: description: must be a string",
					      fname);
		} else {
			return errfmt(err, errlen, "%s: %s: unknown field", fname, key);
		}
		if (rc < 0)
			return -1;
	}
	if (!p->interpreter[0])
		return errfmt(err, errlen, "%s: interpreter: missing", fname);
	struct stat st;
	if (stat(p->interpreter, &st) < 0 || access(p->interpreter, X_OK) < 0)
		return errfmt(err, errlen, "%s: interpreter: \"%s\": %s", fname, p->interpreter,
			      errfmt_desc(errno));
	if (!S_ISREG(st.st_mode))
		return errfmt(err, errlen, "%s: interpreter: \"%s\" is not a regular file", fname,
			      p->interpreter);
	if (!interpreter_reachable(p))
		return errfmt(err, errlen,
			      "%s: interpreter: \"%s\" is neither under /usr nor under a "
			      "readonly_paths entry",
			      fname, p->interpreter);
	find_interpreter_etc(p);
	if (!limits || !json_is_object(limits))
		return errfmt(err, errlen, "%s: limits: missing or not an object", fname);
	json_object_foreach(limits, key, v)
	{
		if (strcmp(key, "default") != 0 && strcmp(key, "max") != 0)
			return errfmt(err, errlen, "%s: limits.%s: unknown field", fname, key);
	}
	if (load_limits(fname, "default", json_object_get(limits, "default"), &p->defaults, err,
			errlen) < 0 ||
	    load_limits(fname, "max", json_object_get(limits, "max"), &p->maxima, err, errlen) < 0)
		return -1;
	/* Left out, a case may use the whole request's limit: its maximum is
	 * the whole one's, its default its maximum (limits_resolve then clamps
	 * it to the request's cpu_ms and wall_ms). */
	if (p->maxima.case_cpu_ms <= 0)
		p->maxima.case_cpu_ms = p->maxima.cpu_ms;
	if (p->maxima.case_wall_ms <= 0)
		p->maxima.case_wall_ms = p->maxima.wall_ms;
	if (p->defaults.case_cpu_ms <= 0)
		p->defaults.case_cpu_ms = p->maxima.case_cpu_ms;
	if (p->defaults.case_wall_ms <= 0)
		p->defaults.case_wall_ms = p->maxima.case_wall_ms;
	for (int i = 0; i < PROTO_NLIMITS; i++)
		if (proto_limit_get(&p->defaults, i) > proto_limit_get(&p->maxima, i))
			return errfmt(err, errlen, "%s: limits.default.%s: above limits.max", fname,
				      proto_limit_names[i]);
	if (p->maxima.pids < LIMITS_PIDS_MIN || p->defaults.pids < LIMITS_PIDS_MIN)
		return errfmt(
		    err, errlen, "%s: limits.%s.pids: below %d (the jail's pid 1 and the program)",
		    fname, p->maxima.pids < LIMITS_PIDS_MIN ? "max" : "default", LIMITS_PIDS_MIN);
	if (!seccomp)
		return errfmt(err, errlen, "%s: seccomp: missing", fname);
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/%s", dir, seccomp) >= (int)sizeof path)
		return errfmt(err, errlen, "%s: seccomp: path too long", fname);
	char why[400];
	if (scmp_load_file(path, want_notify, &p->seccomp, why, sizeof why) < 0)
		return errfmt(err, errlen, "%s: seccomp: %s", fname, why);
	return 0;
}

int profile_load_text(const char *dir, const char *fname, const char *text, bool want_notify,
		      struct profile *p, char *err, size_t errlen)
{
	json_error_t jerr;
	memset(p, 0, sizeof *p);
	size_t n = strlen(fname);
	if (n < 6 || n - 5 >= sizeof p->name)
		return errfmt(err, errlen, "%s: profile file name too short or too long", fname);
	memcpy(p->name, fname, n - 5); /* strip ".json" */
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errfmt(err, errlen, "%s: invalid JSON at line %d: %s", fname, jerr.line,
			      jerr.text);
	int rc = load_object(dir, fname, root, want_notify, p, err, errlen);
	json_decref(root);
	if (rc < 0)
		profile_free(p);
	return rc;
}

static bool is_profile_name(const char *n)
{
	size_t len = strlen(n);
	return len > 5 && strcmp(n + len - 5, ".json") == 0 &&
	       !(len > 13 && strcmp(n + len - 13, ".seccomp.json") == 0);
}

/* Policy files are small: anything from 1 MiB - 1 bytes up is refused. */
static char *read_small(const char *path, char *err, size_t errlen)
{
	size_t len;
	return file_read_all(path, (1 << 20) - 2, &len, err, errlen);
}

int profile_load_dir(const char *dir, bool want_notify, struct profile_set *out, char *err,
		     size_t errlen)
{
	memset(out, 0, sizeof *out);
	DIR *d = opendir(dir);
	if (!d)
		return errfmt(err, errlen, "policies directory %s: %s", dir, errfmt_desc(errno));
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		if (!is_profile_name(e->d_name))
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		char *text = read_small(path, err, errlen);
		struct profile *nv = realloc(out->v, (out->n + 1) * sizeof *nv);
		if (!text || !nv) {
			free(text);
			if (nv)
				out->v = nv;
			rc = text ? errfmt(err, errlen, "out of memory") : -1;
			break;
		}
		out->v = nv;
		rc = profile_load_text(dir, e->d_name, text, want_notify, &out->v[out->n], err,
				       errlen);
		free(text);
		if (rc == 0)
			out->n++;
	}
	closedir(d);
	if (rc == 0 && !profile_find(out, "python"))
		rc = errfmt(err, errlen, "%s: no python.json profile (the default)", dir);
	if (rc < 0)
		profile_set_free(out);
	return rc;
}

const struct profile *profile_find(const struct profile_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name ? name : "python") == 0)
			return &s->v[i];
	return NULL;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nargs; i++)
		free(p->args[i]);
	for (size_t i = 0; i < p->n_ro; i++)
		free(p->ro_paths[i]);
	for (size_t i = 0; i < p->npreload; i++)
		free(p->preload[i]);
	scmp_prog_free(&p->seccomp);
	memset(p, 0, sizeof *p);
}

void profile_set_free(struct profile_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		profile_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int limits_resolve(const struct proto_limits *req, const struct profile *p,
		   struct proto_limits *out, char *msg, size_t msglen)
{
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		long v = proto_limit_get(req, i);
		if (v == -1)
			v = proto_limit_get(&p->defaults, i);
		if (v <= 0)
			return errfmt(msg, msglen, "limit \"%s\" must be positive",
				      proto_limit_names[i]);
		long max = proto_limit_get(&p->maxima, i);
		*proto_limit_ref(out, i) = v > max ? max : v;
	}
	/* The job's pid 1 counts in its cgroup: below two tasks a cold job's
	 * init cannot fork its program, while a warm one, forked before its
	 * limits, would run with more tasks than its limit. Raised, as a
	 * limit above the maximum is lowered: both paths then run it alike. */
	if (out->pids < LIMITS_PIDS_MIN)
		out->pids = LIMITS_PIDS_MIN;
	/* A request that raises cpu_ms without giving wall_ms would otherwise
	 * end as a wall timeout at the default: the wall limit follows, at
	 * twice the CPU limit (still within the profile's maximum). */
	if (req->cpu_ms != -1 && req->wall_ms == -1 && out->wall_ms / 2 < out->cpu_ms) {
		long want = out->cpu_ms > LONG_MAX / 2 ? LONG_MAX : 2 * out->cpu_ms;
		out->wall_ms = want > p->maxima.wall_ms ? p->maxima.wall_ms : want;
	}
	/* cpu_ms and wall_ms bound a whole stdio request: no case gets more. */
	if (out->case_cpu_ms > out->cpu_ms)
		out->case_cpu_ms = out->cpu_ms;
	if (out->case_wall_ms > out->wall_ms)
		out->case_wall_ms = out->wall_ms;
	return 0;
}
