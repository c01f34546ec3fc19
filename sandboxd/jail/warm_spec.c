/* The descriptions a warm job reads (warm_spec.h; docs/architecture.md,
 * "The tree built ahead"). */
#include "sandboxd/jail/warm_spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sandboxd/jail/jail_internal.h"

/* The tree every job of this server gets, but for what is one job's
 * (mounts.h): the server's own description, as its jobs' would be. */
static struct jail_spec g_tmpl;
static bool g_have_tmpl;
static void *g_tmpl_blob;
static size_t g_tmpl_len;

/* The job's own description, once it came. */
static struct jail_spec g_spec;
static void *g_blob;
static size_t g_len;
static bool g_mapped;

/* A job's description of at most this size (a plain run's is a few KiB,
 * a test request's adds its job description) is read here rather than
 * mapped: a mapping made and removed on the job's path cost about 0.1 ms
 * on run A's 2-core machine (docs/bench.md), whose page tables are
 * shadowed. The first TOUCH bytes are written by the job forked ahead, so
 * that the read takes no page fault either; the rest is written only by
 * the jobs that need it. In the server it is never written: no job's
 * bytes can reach the server or another job. */
#define BUF_SIZE (64 * 1024)
#define TOUCH (16 * 1024)
static char g_buf[BUF_SIZE] __attribute__((aligned(4096)));

bool warm_spec_template_load(int fd, bool runner)
{
	if (jail_wire_map(fd, &g_tmpl, &g_tmpl_blob, &g_tmpl_len))
		return false;
	/* The server's jail differs from a job's in these only: its /proc is
	 * whole and it has no /dev/shm (zygote), its root is the host's dir
	 * where a job's is the server's /tmp (run_one.c), and a plain server
	 * carries the runner files a plain job does not. */
	g_tmpl.zygote = false;
	g_tmpl.warm = true;
	g_tmpl.root_dir = "/tmp";
	g_tmpl.runner = runner;
	/* Its own /work is root's and 1 MiB (run_warm.c); a job's is the
	 * job's uid's (the uid its /etc/passwd names, mounts_same_tree) and
	 * of its tmpfs size, the profile's default unless the job asks for
	 * another (then a remount, mounts_finish). */
	jail_spec_tmpfs_opts(&g_tmpl, g_tmpl.lim.tmpfs_mb, g_tmpl.uid, g_tmpl.gid);
	g_have_tmpl = true;
	return true;
}

const struct jail_spec *warm_spec_template(void)
{
	return g_have_tmpl ? &g_tmpl : NULL;
}

int warm_spec_ahead(void)
{
	explicit_bzero(g_buf, TOUCH);
	if (!g_tmpl_blob)
		return 0;
	/* Decoding a description once here copies the pages the job's own
	 * decoding writes (its struct, the decoder's) now rather than then:
	 * about 13 page faults, 0.3 ms on the job's path. What it leaves is
	 * freed at once; the job's own decoding reuses it. */
	if (jail_wire_decode(g_tmpl_blob, g_tmpl_len, &g_spec) == 0)
		jail_wire_free(&g_spec);
	/* mounts_same_tree reads the template's read-only paths, which point
	 * into the mapping: copied into this process's memory. The runner's
	 * bytes are not kept: a warm job's description names the runner by
	 * length and checksum only, and one that carries the bytes runs cold
	 * (warm_fork.c, job_layers). Everything else the template points to is no
	 * longer read once the tree is built. */
	const char **ro = (const char **)g_tmpl.job->ro_paths;
	for (size_t i = 0; i < g_tmpl.job->n_ro; i++)
		if (!(ro[i] = strdup(ro[i])))
			return -1;
	g_tmpl.runner_src = NULL;
	g_tmpl.code = g_tmpl.stdin_data = g_tmpl.job_json = NULL;
	munmap(g_tmpl_blob, g_tmpl_len);
	g_tmpl_blob = NULL;
	return 0;
}

const char *warm_spec_job(int fd, const struct jail_spec **out)
{
	const char *why =
	    jail_wire_load(fd, g_buf, sizeof g_buf, &g_spec, &g_blob, &g_len, &g_mapped);
	if (why)
		return why;
	if (!g_spec.warm || g_spec.peer) {
		errno = EPROTO;
		return "not a warm job";
	}
	*out = &g_spec;
	return NULL;
}

void warm_spec_drop(void)
{
	if (g_blob && g_mapped)
		munmap(g_blob, g_len);
	else if (g_blob)
		explicit_bzero(g_blob, g_len);
	g_blob = NULL;
	if (g_tmpl_blob)
		munmap(g_tmpl_blob, g_tmpl_len);
	g_tmpl_blob = NULL;
}
