/* sockmem-bounded and kmem-bounded: host-wide kernel memory sampled while a
 * job runs, since what a job holds is freed when it ends.
 * - The TCP and UDP "mem" counters of /proc/net/sockstat are the protocols'
 *   global memory_allocated (pages), shared by every network namespace, so
 *   the host sees there what the job's sockets hold in its own namespace.
 * - SUnreclaim of /proc/meminfo is the host's unreclaimable slab and large
 *   kmalloc memory, charged to a cgroup or not: a job whose kernel objects
 *   escape its memory limit shows there as growth past that limit. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers/hostile.h"

#define SOCKMEM_MARGIN_MB 16 /* per-CPU reserves and the host's own traffic */
#define KMEM_MARGIN_MB 48    /* the host's own slab churn while the job runs */

enum { S_SOCK, S_KMEM, S_COUNT };

static pthread_t g_th;
static atomic_bool g_stop, g_running;
static atomic_llong g_base[S_COUNT], g_peak[S_COUNT];

long long sample_sockmem_pages(void)
{
	FILE *f = fopen("/proc/net/sockstat", "re");
	char line[256];
	long long total = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		const char *m = strstr(line, " mem ");
		long long v;
		if ((strncmp(line, "TCP:", 4) == 0 || strncmp(line, "UDP:", 4) == 0) && m &&
		    sscanf(m + 5, "%lld", &v) == 1)
			total = (total < 0 ? 0 : total) + v;
	}
	fclose(f);
	return total;
}

/* SUnreclaim in kB, or -1. */
long long sample_kmem_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kb = -1;
	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof line, f))
		if (sscanf(line, "SUnreclaim: %lld kB", &kb) != 1)
			kb = -1;
	fclose(f);
	return kb;
}

static void sample_now(bool base)
{
	long long v[S_COUNT] = {sample_sockmem_pages(), sample_kmem_kb()};
	for (int i = 0; i < S_COUNT; i++) {
		if (base)
			atomic_store(&g_base[i], v[i]);
		if (base || v[i] > atomic_load(&g_peak[i]))
			atomic_store(&g_peak[i], v[i]);
	}
}

static void *sample_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&g_stop)) {
		sample_now(false);
		usleep(10000);
	}
	return NULL;
}

void sample_start(void)
{
	sample_now(true);
	atomic_store(&g_stop, false);
	atomic_store(&g_running, pthread_create(&g_th, NULL, sample_loop, NULL) == 0);
}

void sample_stop(void)
{
	if (!atomic_load(&g_running))
		return;
	atomic_store(&g_stop, true);
	pthread_join(g_th, NULL);
	atomic_store(&g_running, false);
}

/* What each check is named, says when it has no sample, says the growth
 * was of, and allows past the job's memory_mb. */
static const struct {
	const char *check, *unsampled, *what;
	int margin_mb;
} g_kind[S_COUNT] = {
    [S_SOCK] = {"sockmem-bounded", "no /proc/net/sockstat sample", "TCP+UDP memory",
		SOCKMEM_MARGIN_MB},
    [S_KMEM] = {"kmem-bounded", "no SUnreclaim in /proc/meminfo", "unreclaimable kernel memory",
		KMEM_MARGIN_MB},
};

/* Whether sample i grew by at most memory_mb plus its margin; unit_kb: the
 * kB of one unit of the sample. */
static bool sample_bounded(int i, long long unit_kb, long limit_mb, char *why, size_t wl)
{
	long long base = atomic_load(&g_base[i]), peak = atomic_load(&g_peak[i]);
	if (base < 0 || limit_mb <= 0) {
		whyf(why, wl, "%s: %s or no memory_mb", g_kind[i].check, g_kind[i].unsampled);
		return false;
	}
	long long grew_kb = (peak - base) * unit_kb;
	if (grew_kb <= (limit_mb + g_kind[i].margin_mb) * 1024LL)
		return true;
	whyf(why, wl,
	     "%s: the host's %s grew by %lld MB during the job (memory_mb %ld, margin %d MB)",
	     g_kind[i].check, g_kind[i].what, grew_kb >> 10, limit_mb, g_kind[i].margin_mb);
	return false;
}

bool sample_sockmem_bounded(long limit_mb, char *why, size_t wl)
{
	return sample_bounded(S_SOCK, sysconf(_SC_PAGESIZE) / 1024, limit_mb, why, wl);
}

bool sample_kmem_bounded(long limit_mb, char *why, size_t wl)
{
	return sample_bounded(S_KMEM, 1, limit_mb, why, wl);
}
