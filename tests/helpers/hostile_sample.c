/* sockmem-bounded: the host's socket memory sampled while a job runs. The
 * TCP and UDP "mem" counters of /proc/net/sockstat are the protocols' global
 * memory_allocated (pages), shared by every network namespace, so the host
 * sees there what the job's sockets hold in its own namespace; after the job
 * they are freed, which is why the check samples during the run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers/hostile.h"

#define SOCKMEM_MARGIN_MB 16 /* per-CPU reserves and the host's own traffic */

static pthread_t g_th;
static atomic_bool g_stop, g_running;
static atomic_llong g_base, g_peak;

long long sockmem_pages(void)
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

static void *sockmem_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&g_stop)) {
		long long v = sockmem_pages();
		if (v > atomic_load(&g_peak))
			atomic_store(&g_peak, v);
		usleep(10000);
	}
	return NULL;
}

void sockmem_start(void)
{
	long long v = sockmem_pages();
	atomic_store(&g_base, v);
	atomic_store(&g_peak, v);
	atomic_store(&g_stop, false);
	atomic_store(&g_running, pthread_create(&g_th, NULL, sockmem_loop, NULL) == 0);
}

void sockmem_stop(void)
{
	if (!atomic_load(&g_running))
		return;
	atomic_store(&g_stop, true);
	pthread_join(g_th, NULL);
	atomic_store(&g_running, false);
}

bool sockmem_bounded(long limit_mb, char *why, size_t wl)
{
	long long base = atomic_load(&g_base), peak = atomic_load(&g_peak);
	long page = sysconf(_SC_PAGESIZE);
	if (base < 0 || limit_mb <= 0) {
		whyf(why, wl, "sockmem-bounded: no /proc/net/sockstat sample or no memory_mb");
		return false;
	}
	long long grew_kb = (peak - base) * (page / 1024);
	if (grew_kb <= (limit_mb + SOCKMEM_MARGIN_MB) * 1024LL)
		return true;
	whyf(why, wl,
	     "sockmem-bounded: the host's TCP+UDP memory grew by %lld MB during the job "
	     "(memory_mb %ld, margin %d MB)",
	     grew_kb >> 10, limit_mb, SOCKMEM_MARGIN_MB);
	return false;
}
