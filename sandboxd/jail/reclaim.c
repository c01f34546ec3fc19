/* The reclaim thread (reclaim.h): one bounded queue of descriptors, closed
 * in order. A close here may sleep (a grace period); nothing else waits. */
#include "sandboxd/jail/reclaim.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

#define RECLAIM_NICE 19

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv; /* on CLOCK_MONOTONIC, made by reclaim_start */
static pthread_t g_tid;
struct reclaim_item {
	int fd;
	uint64_t due_ns; /* not closed before this (CLOCK_MONOTONIC) */
};
static struct reclaim_item *g_ring;
static size_t g_cap, g_head, g_len;
static bool g_running, g_stopping;
static uint64_t g_delay_ns;

static void *reclaim_main(void *arg)
{
	(void)arg;
	/* What it frees is no job's business any more: it takes a CPU only
	 * when no job, worker or client wants one (the kernel's work for a
	 * tree, its unmounts and freed tmpfs, would otherwise compete with
	 * the answer it follows). Kept at the normal priority if refused. */
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), RECLAIM_NICE);
	pthread_mutex_lock(&g_mu);
	for (;;) {
		if (!g_len && g_stopping)
			break;
		uint64_t now = clock_mono_ns();
		if (!g_len || (!g_stopping && now < g_ring[g_head].due_ns)) {
			/* The head waits in the queue until due: it still counts
			 * against the bound. A stop closes everything at once. */
			if (!g_len) {
				pthread_cond_wait(&g_cv, &g_mu);
			} else {
				uint64_t due = g_ring[g_head].due_ns;
				struct timespec ts = {.tv_sec = (time_t)(due / 1000000000u),
						      .tv_nsec = (long)(due % 1000000000u)};
				pthread_cond_timedwait(&g_cv, &g_mu, &ts);
			}
			continue;
		}
		int fd = g_ring[g_head].fd;
		g_head = (g_head + 1) % g_cap;
		g_len--;
		pthread_mutex_unlock(&g_mu);
		close(fd);
		pthread_mutex_lock(&g_mu);
	}
	pthread_mutex_unlock(&g_mu);
	return NULL;
}

int reclaim_start(size_t cap, uint64_t delay_ns)
{
	pthread_mutex_lock(&g_mu);
	bool running = g_running;
	pthread_mutex_unlock(&g_mu);
	if (running)
		return 0;
	struct reclaim_item *ring = calloc(cap ? cap : 1, sizeof *ring);
	if (!ring)
		return -1;
	pthread_condattr_t ca;
	int e = pthread_condattr_init(&ca);
	if (e == 0) {
		e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (e == 0)
			e = pthread_cond_init(&g_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (e != 0) {
		free(ring);
		errno = e;
		return -1;
	}
	pthread_mutex_lock(&g_mu);
	g_ring = ring;
	g_cap = cap ? cap : 1;
	g_delay_ns = delay_ns;
	g_head = g_len = 0;
	g_stopping = false;
	pthread_mutex_unlock(&g_mu);
	/* No signal is ever delivered here: the daemon takes its own through a
	 * signalfd on the main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&g_tid, NULL, reclaim_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&g_mu);
	g_running = rc == 0;
	if (rc != 0) {
		free(g_ring);
		g_ring = NULL;
	}
	pthread_mutex_unlock(&g_mu);
	if (rc != 0) {
		pthread_cond_destroy(&g_cv);
		errno = rc;
		return -1;
	}
	return 0;
}

void reclaim_fd(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&g_mu);
	bool queued = g_running && !g_stopping && g_len < g_cap;
	if (queued) {
		g_ring[(g_head + g_len) % g_cap] =
		    (struct reclaim_item){fd, clock_mono_ns() + g_delay_ns};
		g_len++;
		pthread_cond_signal(&g_cv);
	}
	pthread_mutex_unlock(&g_mu);
	if (!queued)
		close(fd);
}

size_t reclaim_waiting(void)
{
	pthread_mutex_lock(&g_mu);
	size_t n = g_len;
	pthread_mutex_unlock(&g_mu);
	return n;
}

void reclaim_stop(void)
{
	pthread_mutex_lock(&g_mu);
	bool running = g_running;
	if (running) {
		g_stopping = true;
		pthread_cond_signal(&g_cv);
	}
	pthread_mutex_unlock(&g_mu);
	if (!running)
		return;
	pthread_join(g_tid, NULL);
	pthread_mutex_lock(&g_mu);
	free(g_ring);
	g_ring = NULL;
	g_running = false;
	g_len = g_head = 0;
	pthread_mutex_unlock(&g_mu);
	pthread_cond_destroy(&g_cv);
}
