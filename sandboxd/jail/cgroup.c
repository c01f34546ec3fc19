/* cgroup layer: one fresh cgroup per job, on v2 or (hybrid hosts) v1. Every
 * path comes from cg_detect, so a fake tree in a temp dir can stand in for
 * /sys/fs/cgroup. Errors go back to the caller; nothing here logs or exits. */
#include "sandboxd/jail/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sandboxd/jail/cgroup_internal.h"
#include "common/clock.h"

#define CG_STALE_KILL_MS 2000

static const char *cg_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return NULL;
		x = x * 10 + d;
	}
	*v = x;
	return s;
}

/* With key NULL the file is one number (cpuacct.usage, memory.peak); else
 * it has "key N" lines (cpu.stat, memory.events), `alt` standing in when key
 * is absent. A missing line is an error unless `optional` (then *v is 0). */
static int cg_num(const char *dir, const char *file, const char *key, const char *alt,
		  bool optional, uint64_t *v)
{
	char buf[CG_SMALL], *p = buf, *l;
	const char *e;
	*v = 0;
	if (cg_read(dir, file, buf, sizeof buf) < 0)
		return -1;
	if (!key) {
		e = cg_u64(buf, v);
		return e && (!*e || strcmp(e, "\n") == 0) ? 0 : cg_errno(EINVAL);
	}
	size_t kl = strlen(key), al = alt ? strlen(alt) : 0;
	const char *hit = NULL, *alt_hit = NULL;
	while ((l = strsep(&p, "\n")) != NULL) {
		if (strncmp(l, key, kl) == 0 && l[kl] == ' ')
			hit = l + kl + 1;
		else if (alt && strncmp(l, alt, al) == 0 && l[al] == ' ')
			alt_hit = l + al + 1;
	}
	if (!(hit = hit ? hit : alt_hit))
		return optional ? 0 : cg_errno(EINVAL);
	e = cg_u64(hit, v);
	return e && !*e ? 0 : cg_errno(EINVAL);
}

/* Removes one cgroup directory. */
static int cg_rmdir(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return -1;
	/* Real cgroupfs directories go with rmdir alone; only the unit tests'
	 * fake tree holds plain files. Delete nothing unless every entry is a
	 * regular file, so a directory with anything else is never emptied. */
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int e = 0;
	for (int pass = 0; pass < 2 && !e; pass++) {
		rewinddir(d);
		const struct dirent *de;
		while (!e && (de = readdir(d)) != NULL) {
			struct stat st;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				e = errno;
			else if (!S_ISREG(st.st_mode))
				e = ENOTEMPTY;
			else if (pass == 1 && unlinkat(dirfd(d), de->d_name, 0) < 0)
				e = errno;
		}
	}
	closedir(d);
	return e ? cg_errno(e) : rmdir(dir);
}

/* Collects the distinct non-empty paths (co-mounted v1 controllers share one). */
static int cg_add(const char **v, int n, const char *p)
{
	if (!p[0])
		return n;
	for (int i = 0; i < n; i++)
		if (strcmp(v[i], p) == 0)
			return n;
	v[n] = p;
	return n + 1;
}

static int cg_dirs(const char **v, const char *a, const char *b, const char *c, const char *d,
		   const char *e)
{
	return cg_add(v, cg_add(v, cg_add(v, cg_add(v, cg_add(v, 0, a), b), c), d), e);
}

static int cg_job_dirs(const struct cg_job *j, const char **v)
{
	return cg_dirs(v, j->v2, j->v1_memory, j->v1_pids, j->v1_cpuacct, j->v1_cpu);
}

/* Kills and removes one stale job cgroup (a plain file there is left). */
static int cg_clean_one(const char *jobs, const char *name, char *err, size_t errlen)
{
	char p[PATH_MAX];
	struct stat st;
	if (cg_join(p, jobs, name) < 0)
		return cg_err(err, errlen, errno, "%s/%s", jobs, name);
	if (lstat(p, &st) < 0)
		return cg_err(err, errlen, errno, "stat %s", p);
	if (!S_ISDIR(st.st_mode))
		return 0;
	/* Privileged: a crashed daemon's jobs are untrusted code still
	 * running with nobody to enforce their limits; they must go. */
	const char *one[1] = {p};
	if (cg_kill_dirs(one, 1, CG_STALE_KILL_MS) < 0)
		return cg_err(err, errlen, errno, "killing stale job cgroup %s", p);
	if (cg_rmdir(p) < 0)
		return cg_err(err, errlen, errno, "rmdir stale job cgroup %s", p);
	return 0;
}

static int cg_clean_stale(const char *jobs, const char *instance, char *err, size_t errlen)
{
	size_t il = strlen(instance);
	DIR *d = opendir(jobs);
	if (!d)
		return cg_err(err, errlen, errno, "opendir %s", jobs);
	const struct dirent *de;
	int rc = 0;
	/* Every entry is tried, the first failure reported: one cgroup still
	 * busy must not leave the rest behind. */
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (il && (strncmp(de->d_name, instance, il) != 0 || de->d_name[il] != '-')))
			continue;
		if (cg_clean_one(jobs, de->d_name, rc ? NULL : err, errlen) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

static int cg_setup_v2(const struct cg_root *r, char *err, size_t errlen)
{
	char own[PATH_MAX], buf[CG_SMALL], ctl[32];
	const char *slash = strrchr(r->v2_jobs, '/');
	if (!slash || slash == r->v2_jobs)
		return cg_err(err, errlen, EINVAL, "bad v2 jobs dir '%s'", r->v2_jobs);
	snprintf(own, sizeof own, "%.*s", (int)(slash - r->v2_jobs), r->v2_jobs);
	/* A home of its own: every cgroup from the mount down must hand on the
	 * controllers, and none of them may hold processes. */
	if (r->v2_made_home && (cg_ctl_line(r->v2_mount, ctl, sizeof ctl, err, errlen) < 0 ||
				cg_mkpath(r->v2_mount, own, ctl, err, errlen) < 0))
		return -1;
	if (r->v2_daemon[0]) {
		/* Privileged: v2 refuses to delegate controllers to the children of a
		 * cgroup that holds processes, so the daemon moves into a leaf. */
		if (mkdir(r->v2_daemon, 0755) < 0 && errno != EEXIST)
			return cg_err(err, errlen, errno, "mkdir %s", r->v2_daemon);
		snprintf(buf, sizeof buf, "%d", (int)getpid());
		if (cg_write(r->v2_daemon, "cgroup.procs", buf, err, errlen) < 0)
			return -1;
	}
	/* A made home is offered what was enabled from the mount down (ctl). */
	if (!r->v2_made_home) {
		if (cg_read(own, "cgroup.controllers", buf, sizeof buf) < 0)
			return cg_err(err, errlen, errno, "read %s/cgroup.controllers", own);
		snprintf(ctl, sizeof ctl, "+memory +pids%s",
			 cg_has_token(buf, "cpu") ? " +cpu" : "");
	}
	/* Privileged: without delegation down to the job cgroups they would have
	 * no memory.max or pids.max to set; cpu only adds accounting. */
	if (cg_write(own, "cgroup.subtree_control", ctl, err, errlen) < 0)
		return -1;
	if (mkdir(r->v2_jobs, 0755) < 0 && errno != EEXIST)
		return cg_err(err, errlen, errno, "mkdir %s", r->v2_jobs);
	return cg_write(r->v2_jobs, "cgroup.subtree_control", ctl, err, errlen);
}

int cg_setup(struct cg_root *r, char *err, size_t errlen)
{
	if (!r)
		return cg_err(err, errlen, EINVAL, "cg_setup: no root");
	if (r->version == CG_NONE)
		return 0;
	if (r->version == CG_V2 && cg_setup_v2(r, err, errlen) < 0)
		return -1;
	const char *v[5];
	int n = cg_dirs(v, r->v2_jobs, r->v1_memory, r->v1_pids, r->v1_cpuacct, r->v1_cpu);
	if (r->version == CG_V1) {
		/* --cgroup-parent may name directories that do not exist yet. */
		const char *mnt[4] = {r->v1_mnt_memory, r->v1_mnt_pids, r->v1_mnt_cpuacct,
				      r->v1_mnt_cpu};
		const char *dir[4] = {r->v1_memory, r->v1_pids, r->v1_cpuacct, r->v1_cpu};
		for (int i = 0; i < 4; i++)
			if (dir[i][0] && mnt[i][0] &&
			    cg_mkpath(mnt[i], dir[i], NULL, err, errlen) < 0)
				return -1;
	}
	for (int i = 0; i < n; i++)
		if (mkdir(v[i], 0755) < 0 && errno != EEXIST)
			return cg_err(err, errlen, errno, "mkdir %s", v[i]);
	for (int i = 0; i < n; i++)
		if (cg_clean_stale(v[i], r->instance, err, errlen) < 0)
			return -1;
	cg_cpu_detect(r);
	return 0;
}

int cg_teardown(struct cg_root *r, char *err, size_t errlen)
{
	if (!r || r->version == CG_NONE)
		return 0;
	const char *v[5];
	int n = cg_dirs(v, r->v2_jobs, r->v1_memory, r->v1_pids, r->v1_cpuacct, r->v1_cpu), rc = 0;
	for (int i = 0; i < n; i++)
		if (access(v[i], F_OK) == 0 &&
		    cg_clean_stale(v[i], r->instance, rc ? NULL : err, errlen) < 0)
			rc = -1;
	if (rc < 0 || r->version != CG_V2 || !r->v2_made_home)
		return rc;
	/* Back where it started, so the home can go; where that is refused
	 * (the start cgroup is gone or now delegates), the home stays. */
	char pid[24], up[PATH_MAX];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	if (cg_write(r->v2_start, "cgroup.procs", pid, err, errlen) < 0)
		return -1;
	/* The jobs dir stays while another instance's jobs are in it. */
	if ((cg_rmdir(r->v2_jobs) < 0 && errno != ENOTEMPTY) || cg_rmdir(r->v2_daemon) < 0 ||
	    cg_rmdir(r->v2_home) < 0)
		return cg_err(err, errlen, errno, "removing %s", r->v2_home);
	/* The shared parent of the default homes goes when the last instance
	 * leaves (rmdir fails while another daemon's home is in it). A parent
	 * named by --cgroup-parent is the operator's and stays. */
	int k = snprintf(up, sizeof up, "%s/%s/%s", r->v2_mount, CG_FALLBACK, r->instance);
	if (k > 0 && k < (int)sizeof up && strcmp(up, r->v2_home) == 0) {
		*strrchr(up, '/') = '\0';
		cg_rmdir(up);
	}
	return 0;
}

/* The name becomes a path component: no '/', no dot-dirs, nothing odd. */
static bool cg_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n < sizeof(((struct cg_job *)0)->name) && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == n;
}

/* UINT64_MAX means no limit; the spelling of "no limit" differs by file. */
static void cg_fmt(char *buf, size_t n, uint64_t v, const char *unlimited)
{
	if (v == UINT64_MAX)
		snprintf(buf, n, "%s", unlimited);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

void cg_split_memory(uint64_t total, uint64_t *mem, uint64_t *tcp)
{
	uint64_t t = total / 8, page = 4096;
	if (t < (1u << 20))
		t = 1u << 20;
	if (t > (64u << 20))
		t = 64u << 20;
	/* Never more than half: a tiny budget keeps room for the interpreter. */
	if (t > total / 2)
		t = total / 2;
	t -= t % page;
	*tcp = t;
	*mem = total - t;
}

/* The v1 page counter's share of a memory budget of total bytes: what the
 * socket share (*tcp; 0 when not split) leaves. Unlimited stays unlimited;
 * without the tcp counter (a kernel without kmem accounting) nothing bounds
 * socket buffers: SECURITY.md says so. */
static uint64_t cg_v1_pages(const struct cg_root *r, uint64_t total, uint64_t *tcp)
{
	uint64_t m = total;
	*tcp = 0;
	if (r && r->v1_kmem_tcp && total != UINT64_MAX)
		cg_split_memory(total, &m, tcp);
	return m;
}

/* prev: the memory limit the files hold (0: none written). */
static int cg_set_limits(const struct cg_root *r, struct cg_job *j, const struct cg_limits *l,
			 uint64_t prev, char *err, size_t errlen)
{
	char mem[32], pids[32];
	cg_fmt(pids, sizeof pids, l->pids, "max");
	if (r->version == CG_V2) {
		cg_fmt(mem, sizeof mem, l->memory_bytes, "max");
		if (cg_write(j->v2, "memory.max", mem, err, errlen) < 0)
			return -1;
		/* Swap accounting is global, so the jobs dir has memory.swap.max
		 * exactly when every job does. */
		if (cg_exists(r->v2_jobs, "memory.swap.max") &&
		    cg_write(j->v2, "memory.swap.max", "0", err, errlen) < 0)
			return -1;
		if (cg_write(j->v2, "pids.max", pids, err, errlen) < 0)
			return -1;
		return cg_cpu_cap(r, j, l->cpus, err, errlen);
	}
	uint64_t tcp, m = cg_v1_pages(r, l->memory_bytes, &tcp);
	j->v1_mem_total = j->v1_tcp_share = 0; /* limits written ahead are replaced */
	cg_fmt(mem, sizeof mem, m, "-1");
	/* The tcp limit is set before any socket exists: the kernel charges a
	 * socket only if its cgroup had the limit when the socket was made.
	 * cg_job_over_memory watches the whole and the socket share. */
	if (tcp) {
		j->v1_mem_total = l->memory_bytes;
		j->v1_tcp_share = tcp;
		char t[32];
		cg_fmt(t, sizeof t, tcp, "-1");
		if (cg_write(j->v1_memory, "memory.kmem.tcp.limit_in_bytes", t, err, errlen) < 0)
			return -1;
	}
	/* memsw must stay >= the memory limit: written second, or first when
	 * it raises a limit written before (cg_job_limit_ahead). */
	bool memsw_first = r->v1_memsw && prev && prev != UINT64_MAX && prev < l->memory_bytes;
	if ((memsw_first &&
	     cg_write(j->v1_memory, "memory.memsw.limit_in_bytes", mem, err, errlen) < 0) ||
	    cg_write(j->v1_memory, "memory.limit_in_bytes", mem, err, errlen) < 0 ||
	    (r->v1_memsw && !memsw_first &&
	     cg_write(j->v1_memory, "memory.memsw.limit_in_bytes", mem, err, errlen) < 0))
		return -1;
	if (cg_write(j->v1_pids, "pids.max", pids, err, errlen) < 0)
		return -1;
	return cg_cpu_cap(r, j, l->cpus, err, errlen);
}

int cg_job_make(const struct cg_root *r, const char *name, struct cg_job *j, char *err,
		size_t errlen)
{
	if (!j)
		return cg_err(err, errlen, EINVAL, "cg_job_make: no job");
	memset(j, 0, sizeof *j);
	if (!r || !name || r->version == CG_NONE)
		return cg_err(err, errlen, EINVAL, "cg_job_make: no cgroup support");
	if (!cg_name_ok(name))
		return cg_err(err, errlen, EINVAL, "bad job cgroup name '%s'", name);
	struct cg_job t = {.root = r};
	snprintf(t.name, sizeof t.name, "%s", name);
	int bad = r->version == CG_V2
		      ? cg_join(t.v2, r->v2_jobs, name)
		      : cg_join(t.v1_memory, r->v1_memory, name) |
			    cg_join(t.v1_pids, r->v1_pids, name) |
			    (r->v1_cpuacct[0] ? cg_join(t.v1_cpuacct, r->v1_cpuacct, name) : 0) |
			    (r->v1_cpu[0] ? cg_join(t.v1_cpu, r->v1_cpu, name) : 0);
	if (bad)
		return cg_err(err, errlen, ENAMETOOLONG, "job %s", name);
	const char *v[5];
	int n = cg_job_dirs(&t, v), made = 0, rc = 0;
	/* EEXIST is a failure too: a job must never share a cgroup. */
	while (rc == 0 && made < n)
		if (mkdir(v[made], 0755) == 0)
			made++;
		else
			rc = cg_err(err, errlen, errno, "mkdir %s", v[made]);
	if (rc < 0) {
		int e = errno;
		for (int i = 0; i < made; i++)
			cg_rmdir(v[i]);
		errno = e;
		return -1;
	}
	*j = t;
	return 0;
}

static bool cg_limits_same(const struct cg_limits *a, const struct cg_limits *b)
{
	return a->memory_bytes == b->memory_bytes && a->pids == b->pids && a->cpus == b->cpus;
}

/* Writes l, and records it once every file holds it. */
static int cg_write_limits(struct cg_job *j, const struct cg_limits *l, char *err, size_t errlen)
{
	if (!l || l->memory_bytes == 0 || l->pids == 0)
		return cg_err(err, errlen, EINVAL, "job %s: zero memory or pids limit", j->name);
	uint64_t prev = j->have_set ? j->set.memory_bytes : 0;
	j->have_set = false;
	if (cg_set_limits(j->root, j, l, prev, err, errlen) < 0)
		return -1;
	j->set = *l;
	j->have_set = true;
	return 0;
}

int cg_job_limit(struct cg_job *j, const struct cg_limits *l, char *err, size_t errlen)
{
	/* Before its limits, a cgroup made ahead gets its normal weight. */
	if (cg_cpu_foreground(j, err, errlen) < 0)
		return -1;
	if (l && j->have_set && cg_limits_same(&j->set, l))
		return 0;
	return cg_write_limits(j, l, err, errlen);
}

int cg_job_limit_ahead(struct cg_job *j, const struct cg_limits *l, char *err, size_t errlen)
{
	return cg_write_limits(j, l, err, errlen);
}

int cg_job_create(const struct cg_root *r, const char *name, const struct cg_limits *l,
		  struct cg_job *j, char *err, size_t errlen)
{
	if (!l || l->memory_bytes == 0 || l->pids == 0)
		return cg_err(err, errlen, EINVAL, "job %s: zero memory or pids limit",
			      name ? name : "?");
	if (cg_job_make(r, name, j, err, errlen) < 0)
		return -1;
	if (cg_job_limit(j, l, err, errlen) < 0) {
		int e = errno;
		cg_job_destroy(j);
		errno = e;
		return -1;
	}
	return 0;
}

int cg_job_attach(const struct cg_job *j, pid_t pid)
{
	const char *v[5];
	char buf[24];
	int n = cg_job_dirs(j, v);
	if (n == 0 || pid <= 0)
		return cg_errno(EINVAL);
	snprintf(buf, sizeof buf, "%d", (int)pid);
	for (int i = 0; i < n; i++)
		if (cg_write(v[i], "cgroup.procs", buf, NULL, 0) < 0)
			return -1;
	return 0;
}

int cg_job_cpu_ns(const struct cg_job *j, uint64_t *ns)
{
	uint64_t us;
	*ns = 0;
	if (j->v2[0]) {
		if (cg_num(j->v2, "cpu.stat", "usage_usec", NULL, false, &us) < 0)
			return -1;
		*ns = us * 1000;
		return 0;
	}
	if (!j->v1_cpuacct[0])
		return cg_errno(ENOENT);
	return cg_num(j->v1_cpuacct, "cpuacct.usage", NULL, NULL, false, ns);
}

/* What a job's sockets may be charged past their share before it is killed. */
#define CG_TCP_SLACK (2u << 20)

int cg_job_over_memory(const struct cg_job *j)
{
	if (!j->v1_mem_total)
		return 0;
	uint64_t pages, sock;
	if (cg_num(j->v1_memory, "memory.usage_in_bytes", NULL, NULL, false, &pages) < 0 ||
	    cg_num(j->v1_memory, "memory.kmem.tcp.usage_in_bytes", NULL, NULL, false, &sock) < 0)
		return -1;
	/* Past its share, TCP only grows by forced charges (about a send
	 * buffer per connection, beyond any limit): a little of that is one
	 * connection's normal end, more is the job spreading over sockets. */
	if (pages + sock > j->v1_mem_total || sock > j->v1_tcp_share + CG_TCP_SLACK)
		return 2;
	return sock >= j->v1_tcp_share / 2 ? 1 : 0;
}

int cg_job_room(const struct cg_job *j, const struct cg_limits *l, uint64_t room)
{
	if (!l || l->memory_bytes == UINT64_MAX)
		return 1;
	uint64_t used, tcp;
	/* On v1 the page counter gets what the socket share leaves. */
	uint64_t m = j->v2[0] ? l->memory_bytes : cg_v1_pages(j->root, l->memory_bytes, &tcp);
	const char *dir = j->v2[0] ? j->v2 : j->v1_memory;
	if (!dir[0])
		return cg_errno(EINVAL);
	if (cg_num(dir, j->v2[0] ? "memory.current" : "memory.usage_in_bytes", NULL, NULL, false,
		   &used) < 0)
		return -1;
	return m >= used && m - used >= room ? 1 : 0;
}

/* Every stat is tried; the first failure's errno is kept. */
static void cg_keep(int *e, int rc)
{
	if (rc < 0 && !*e)
		*e = errno;
}

int cg_job_stats(const struct cg_job *j, struct cg_stats *s)
{
	int e = 0;
	memset(s, 0, sizeof *s);
	if (j->v2[0]) {
		cg_keep(&e, cg_job_cpu_ns(j, &s->cpu_ns));
		if (cg_exists(j->v2, "memory.peak"))
			cg_keep(&e,
				cg_num(j->v2, "memory.peak", NULL, NULL, false, &s->memory_peak));
		cg_keep(&e,
			cg_num(j->v2, "memory.events", "oom_kill", "oom", false, &s->oom_kills));
		cg_keep(&e, cg_num(j->v2, "pids.events", "max", NULL, false, &s->pids_max_hit));
	} else if (j->v1_memory[0]) {
		if (j->v1_cpuacct[0])
			cg_keep(&e, cg_job_cpu_ns(j, &s->cpu_ns));
		cg_keep(&e, cg_num(j->v1_memory, "memory.max_usage_in_bytes", NULL, NULL, false,
				   &s->memory_peak));
		/* Socket buffers count as on v2 (where memory.peak holds them):
		 * the sum of the two peaks bounds the peak of the sum. */
		uint64_t tcp = 0;
		if (j->root && j->root->v1_kmem_tcp)
			cg_keep(&e, cg_num(j->v1_memory, "memory.kmem.tcp.max_usage_in_bytes", NULL,
					   NULL, false, &tcp));
		s->memory_peak += tcp;
		/* Kernels before 4.13 have no oom_kill line: the count stays 0. */
		cg_keep(&e, cg_num(j->v1_memory, "memory.oom_control", "oom_kill", NULL, true,
				   &s->oom_kills));
		cg_keep(&e,
			cg_num(j->v1_pids, "pids.events", "max", NULL, false, &s->pids_max_hit));
	} else {
		e = EINVAL;
	}
	return e ? cg_errno(e) : 0;
}

int cg_job_kill(const struct cg_job *j, int timeout_ms)
{
	const char *v[5];
	int n = cg_job_dirs(j, v);
	return n == 0 ? cg_errno(EINVAL) : cg_kill_dirs(v, n, timeout_ms);
}

int cg_job_destroy(struct cg_job *j)
{
	const char *v[5];
	int n = cg_job_dirs(j, v), e = 0;
	for (int i = 0; i < n; i++)
		if (cg_rmdir(v[i]) < 0 && !e)
			e = errno;
	if (e)
		return cg_errno(e);
	j->v2[0] = j->v1_memory[0] = j->v1_pids[0] = j->v1_cpuacct[0] = j->v1_cpu[0] = '\0';
	return 0;
}

const char *cg_version_name(enum cg_version v)
{
	return v == CG_V2 ? "v2" : v == CG_V1 ? "v1" : "none";
}
