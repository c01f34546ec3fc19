/* The job's description as one plain blob, from the daemon (encode) to the
 * job's init, a separate static program (decode): sandboxd-init holds
 * nothing but this job's data. Layout: a magic word, then fields in a fixed
 * order, each a little-endian u64 or a byte range (u64 length, the bytes, a
 * NUL so strings can be used in place, padding to 8). The decoder trusts
 * nothing: each length is checked against what is left of the blob. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/filter.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"

#define WIRE_MAGIC 0x33726977786273ULL /* "sbxwir3" */
#define WIRE_MAX_LIST 65536	       /* files, paths, args: far above any profile */

struct wbuf {
	char *p;
	size_t len, cap;
	int fail;
};

static void put(struct wbuf *w, const void *d, size_t n)
{
	if (w->fail)
		return;
	if (n > w->cap - w->len) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap - w->len < n) {
			if (cap > SIZE_MAX / 2) {
				w->fail = 1;
				return;
			}
			cap *= 2;
		}
		char *np = realloc(w->p, cap);
		if (!np) {
			w->fail = 1;
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->len, d, n);
	w->len += n;
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put(w, &v, sizeof v);
}

static void put_bytes(struct wbuf *w, const void *d, size_t n)
{
	static const char zero[8];
	if (!d)
		n = 0;
	put_u64(w, n);
	put(w, d ? d : zero, n);
	put(w, zero, 8 - n % 8); /* the NUL, then alignment */
}

static void put_str(struct wbuf *w, const char *s)
{
	put_bytes(w, s, s ? strlen(s) : 0);
}

static void put_strv(struct wbuf *w, const char *const *v, size_t n)
{
	put_u64(w, n);
	for (size_t i = 0; i < n; i++)
		put_str(w, v[i]);
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	return n;
}

void *jail_wire_encode(const struct jail_spec *s, size_t *len)
{
	const struct jail_job *j = s->job;
	struct wbuf w = {0};
	put_u64(&w, WIRE_MAGIC);
	const long *lim[] = {&s->lim.cpu_ms, &s->lim.wall_ms,	&s->lim.memory_mb,
			     &s->lim.pids,   &s->lim.output_kb, &s->lim.tmpfs_mb};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
		put_u64(&w, (uint64_t)*lim[i]);
	put_u64(&w, s->uid);
	put_u64(&w, s->gid);
	put_u64(&w, s->use_cgroup);
	put_u64(&w, s->runner);
	put_u64(&w, s->main_py);
	put_str(&w, s->root_dir);
	put_str(&w, s->root_opts);
	put_str(&w, s->tmpfs_opts);
	put_str(&w, s->work_opts);
	put_str(&w, s->passwd);
	put_str(&w, s->group);
	put_u64(&w, (uint64_t)s->rl.n);
	for (int i = 0; i < s->rl.n; i++) {
		put_u64(&w, (uint64_t)s->rl.resource[i]);
		put_u64(&w, s->rl.value[i].rlim_cur);
		put_u64(&w, s->rl.value[i].rlim_max);
	}
	put_strv(&w, s->argv, count(s->argv));
	put_strv(&w, s->envp, count(s->envp));
	put_strv(&w, j->ro_paths, j->n_ro);
	put_u64(&w, j->nfiles);
	for (size_t i = 0; i < j->nfiles; i++) {
		put_str(&w, j->files[i].path);
		put_bytes(&w, j->files[i].data, j->files[i].len);
	}
	bool code = !s->runner || s->main_py;
	put_bytes(&w, code ? s->code : NULL, code ? s->code_len : 0);
	/* A warm job's tree is built from its server's, which holds the
	 * runner: its description names the runner by length and checksum
	 * only (mounts_same_tree), instead of copying its 260 KB for every job,
	 * in the daemon and again in the job. A server's own description (a
	 * zygote's, never warm) carries them. */
	bool runner_bytes = s->runner && !s->warm;
	put_bytes(&w, runner_bytes ? s->runner_src : NULL, runner_bytes ? s->runner_len : 0);
	put_u64(&w, s->runner ? s->runner_len : 0);
	put_u64(&w, s->runner ? s->runner_sum : 0);
	put_bytes(&w, s->runner ? s->job_json : NULL, s->runner ? s->job_len : 0);
	put_u64(&w, j->seccomp ? j->seccomp->notify : 0);
	put_bytes(&w, j->seccomp ? j->seccomp->insns : NULL,
		  j->seccomp ? (size_t)j->seccomp->len * sizeof(struct sock_filter) : 0);
	put_u64(&w, s->peer);
	put_strv(&w, s->peer ? s->peer_argv : NULL, s->peer ? count(s->peer_argv) : 0);
	put_u64(&w, j->peer_uid);
	put_u64(&w, j->peer_gid);
	/* The job's /proc view, formatted by the daemon (procview.h). */
	put_str(&w, s->procview.meminfo);
	put_str(&w, s->procview.stat);
	put_str(&w, s->procview.cpuinfo);
	put_str(&w, s->procview.loadavg);
	put_u64(&w, (uint64_t)s->procview.ncpus);
	put_u64(&w, s->zygote);
	put_u64(&w, s->server_uid);
	put_u64(&w, s->warm);
	put_u64(&w, s->keep_work);
	if (w.fail) {
		free(w.p);
		errno = ENOMEM;
		return NULL;
	}
	*len = w.len;
	return w.p;
}

struct rbuf {
	const char *p;
	size_t len, off;
	int fail;
};

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v = 0;
	if (r->fail || r->len - r->off < sizeof v) {
		r->fail = 1;
		return 0;
	}
	memcpy(&v, r->p + r->off, sizeof v);
	r->off += sizeof v;
	return v;
}

/* A byte range in place; *n its length. NULL (and fail) when malformed. */
static const char *get_bytes(struct rbuf *r, size_t *n)
{
	uint64_t len = get_u64(r);
	size_t left = r->len - r->off;
	if (r->fail || len > left || left - len < 8 - len % 8 || r->p[r->off + len] != '\0') {
		r->fail = 1;
		*n = 0;
		return NULL;
	}
	const char *d = r->p + r->off;
	r->off += len + (8 - len % 8);
	*n = (size_t)len;
	return d;
}

static const char *get_str(struct rbuf *r)
{
	size_t n;
	const char *s = get_bytes(r, &n);
	if (s && strlen(s) != n)
		r->fail = 1; /* an embedded NUL: a string would silently shorten */
	return r->fail ? NULL : s;
}

static void get_fixed(struct rbuf *r, char *dst, size_t cap)
{
	const char *s = get_str(r);
	if (!s || strlen(s) >= cap) {
		r->fail = 1;
		return;
	}
	memcpy(dst, s, strlen(s) + 1);
}

/* A counted list of strings into dst[0..max-1] plus a NULL. */
static size_t get_strv(struct rbuf *r, const char **dst, size_t max)
{
	uint64_t n = get_u64(r);
	if (n > max) {
		r->fail = 1;
		return 0;
	}
	for (size_t i = 0; i < n && !r->fail; i++)
		dst[i] = get_str(r);
	dst[r->fail ? 0 : n] = NULL;
	return r->fail ? 0 : (size_t)n;
}

static uint64_t get_list_len(struct rbuf *r)
{
	uint64_t n = get_u64(r);
	if (n > WIRE_MAX_LIST || n > (r->len - r->off) / 16)
		r->fail = 1;
	return r->fail ? 0 : n;
}

/* What a decoded spec points to besides the blob (the init never frees it:
 * it lives exactly as long as the job; tests do, with jail_wire_free). */
struct wire_job {
	struct jail_job job;
	struct scmp_prog prog;
};

static void get_job(struct rbuf *r, struct jail_spec *s, struct wire_job *wj)
{
	struct jail_job *j = &wj->job;
	uint64_t n_ro = get_list_len(r);
	const char **ro = calloc(n_ro + 1, sizeof *ro);
	if (!ro || r->fail) {
		r->fail = 1;
		free(ro);
		return;
	}
	j->ro_paths = ro;
	for (size_t i = 0; i < n_ro; i++)
		ro[i] = get_str(r);
	j->n_ro = (size_t)n_ro;
	uint64_t nf = get_list_len(r);
	struct jail_file *f = calloc(nf + 1, sizeof *f);
	if (!f || r->fail) {
		r->fail = 1;
		free(f);
		return;
	}
	j->files = f;
	for (size_t i = 0; i < nf; i++) {
		f[i].path = get_str(r);
		f[i].data = get_bytes(r, &f[i].len);
	}
	j->nfiles = (size_t)nf;
	s->code = get_bytes(r, &s->code_len);
	size_t nrunner;
	s->runner_src = get_bytes(r, &nrunner);
	s->runner_len = (size_t)get_u64(r);
	s->runner_sum = get_u64(r);
	if (nrunner == 0) /* named only (a warm job's) */
		s->runner_src = NULL;
	else if (nrunner != s->runner_len)
		r->fail = 1;
	s->job_json = get_bytes(r, &s->job_len);
	wj->prog.notify = get_u64(r) != 0;
	size_t blen;
	const char *bpf = get_bytes(r, &blen);
	size_t ninsns = blen / sizeof(struct sock_filter);
	if (r->fail || blen % sizeof(struct sock_filter) || ninsns == 0 || ninsns > BPF_MAXINSNS) {
		r->fail = 1;
		return;
	}
	/* A copy: the blob gives no alignment promise for struct sock_filter. */
	if (!(wj->prog.insns = malloc(blen))) {
		r->fail = 1;
		return;
	}
	memcpy(wj->prog.insns, bpf, blen);
	wj->prog.len = (unsigned short)ninsns;
	j->seccomp = &wj->prog;
}

static void wire_job_free(struct wire_job *wj)
{
	if (!wj)
		return;
	free((void *)wj->job.ro_paths);
	free((void *)wj->job.files);
	free(wj->prog.insns);
	free(wj);
}

void jail_wire_free(struct jail_spec *s)
{
	/* job is the first member of the wire_job decode allocated. */
	wire_job_free((struct wire_job *)(void *)s->job);
	s->job = NULL;
}

int jail_wire_decode(const void *blob, size_t len, struct jail_spec *s)
{
	struct rbuf r = {.p = blob, .len = len};
	struct wire_job *wj = calloc(1, sizeof *wj);
	memset(s, 0, sizeof *s);
	if (!wj || get_u64(&r) != WIRE_MAGIC)
		goto bad;
	long *lim[] = {&s->lim.cpu_ms, &s->lim.wall_ms,	  &s->lim.memory_mb,
		       &s->lim.pids,   &s->lim.output_kb, &s->lim.tmpfs_mb};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
		*lim[i] = (long)get_u64(&r);
	wj->job.lim = s->lim;
	s->uid = (uid_t)get_u64(&r);
	s->gid = (gid_t)get_u64(&r);
	s->use_cgroup = get_u64(&r) != 0;
	s->runner = get_u64(&r) != 0;
	s->main_py = get_u64(&r) != 0;
	s->root_dir = get_str(&r);
	get_fixed(&r, s->root_opts, sizeof s->root_opts);
	get_fixed(&r, s->tmpfs_opts, sizeof s->tmpfs_opts);
	get_fixed(&r, s->work_opts, sizeof s->work_opts);
	get_fixed(&r, s->passwd, sizeof s->passwd);
	get_fixed(&r, s->group, sizeof s->group);
	uint64_t nrl = get_u64(&r);
	if (nrl > RL_COUNT)
		goto bad;
	s->rl.n = (int)nrl;
	for (int i = 0; i < s->rl.n; i++) {
		s->rl.resource[i] = (int)get_u64(&r);
		s->rl.value[i].rlim_cur = get_u64(&r);
		s->rl.value[i].rlim_max = get_u64(&r);
	}
	if (get_strv(&r, s->argv, JAIL_MAX_ARGS + 2) == 0 ||
	    get_strv(&r, s->envp, sizeof s->envp / sizeof s->envp[0] - 1) == 0)
		goto bad;
	get_job(&r, s, wj);
	s->peer = get_u64(&r) != 0;
	size_t npeer = get_strv(&r, s->peer_argv, JAIL_MAX_PEER_ARGS + 1);
	wj->job.peer_uid = (uid_t)get_u64(&r);
	wj->job.peer_gid = (gid_t)get_u64(&r);
	get_fixed(&r, s->procview.meminfo, sizeof s->procview.meminfo);
	get_fixed(&r, s->procview.stat, sizeof s->procview.stat);
	get_fixed(&r, s->procview.cpuinfo, sizeof s->procview.cpuinfo);
	get_fixed(&r, s->procview.loadavg, sizeof s->procview.loadavg);
	uint64_t ncpus = get_u64(&r);
	if (ncpus > PROCVIEW_MAX_CPUS)
		goto bad;
	s->procview.ncpus = (int)ncpus;
	s->zygote = get_u64(&r) != 0;
	s->server_uid = (uid_t)get_u64(&r);
	s->warm = get_u64(&r) != 0;
	s->keep_work = get_u64(&r) != 0;
	if (r.fail || r.off != r.len || !s->root_dir || (s->peer && npeer == 0))
		goto bad;
	wj->job.interpreter = s->argv[0];
	wj->job.peer_args = s->peer ? s->peer_argv + 1 : NULL;
	wj->job.npeer_args = s->peer ? npeer - 1 : 0;
	s->job = &wj->job;
	s->stdin_data = NULL;
	s->stdin_len = 0;
	return 0;
bad:
	wire_job_free(wj);
	errno = EPROTO;
	return -1;
}

/* The job's description, for sandboxd-init or a fork server's child: a
 * memfd sealed against every change, so it reads exactly what the daemon
 * wrote. */
int jail_wire_memfd(const struct jail_spec *s)
{
	size_t len;
	char *blob = jail_wire_encode(s, &len);
	if (!blob)
		return -1;
	int fd = memfd_create("sandboxd-job", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd >= 0 && fdio_write_all(fd, blob, len) < 0) {
		int e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	free(blob);
	if (fd >= 0 &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The size of the description in fd, which must be sealed: or the daemon
 * (or anyone holding the memfd) could change it under the decoder's
 * checks. NULL, or why not. */
static const char *sealed_size(int fd, size_t *size)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return "job description";
	int seals = fcntl(fd, F_GET_SEALS);
	if (st.st_size <= 0 || seals < 0 || !(seals & F_SEAL_WRITE) || !(seals & F_SEAL_SHRINK)) {
		errno = EPROTO;
		return "job description not sealed";
	}
	*size = (size_t)st.st_size;
	return NULL;
}

/* The sealed description of `size` bytes in fd, mapped and decoded. */
static const char *map_sized(int fd, size_t size, struct jail_spec *spec, void **blob, size_t *len)
{
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return "mapping the job description";
	if (jail_wire_decode(m, size, spec) < 0) {
		munmap(m, size);
		errno = EPROTO;
		return "decoding the job description";
	}
	*blob = m;
	*len = size;
	return NULL;
}

const char *jail_wire_map(int fd, struct jail_spec *spec, void **blob, size_t *len)
{
	size_t size;
	const char *why = sealed_size(fd, &size);
	return why ? why : map_sized(fd, size, spec, blob, len);
}

const char *jail_wire_load(int fd, void *buf, size_t cap, struct jail_spec *spec, void **blob,
			   size_t *len, bool *mapped)
{
	size_t size;
	const char *why = sealed_size(fd, &size);
	if (why)
		return why;
	*mapped = size > cap;
	if (*mapped)
		return map_sized(fd, size, spec, blob, len);
	/* Sealed against writes and shrinking: what is read is what was
	 * checked, and a short read is no description. */
	for (size_t off = 0; off < size;) {
		ssize_t n = pread(fd, (char *)buf + off, size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EPROTO;
			return "reading the job description";
		}
		off += (size_t)n;
	}
	if (jail_wire_decode(buf, size, spec) < 0) {
		errno = EPROTO;
		return "decoding the job description";
	}
	*blob = buf;
	*len = size;
	return NULL;
}
