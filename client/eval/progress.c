/* The live progress line of `sbx eval` on stderr: tasks done/total, solved,
 * sandbox jobs per second and an ETA, redrawn at most four times a second.
 * Only on a terminal: a log file or a pipe gets no carriage-return noise. */
#include "client/eval/eval_priv.h"
#include "common/clock.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_MS 250

struct progress {
	pthread_mutex_t mu;
	size_t total, done, solved;
	size_t done_at_start; /* resumed items do not count toward the rate */
	size_t jobs;
	long long start_ms, last_ms;
};

struct progress *progress_new(bool enabled, size_t total, size_t already_done,
			      size_t already_solved)
{
	if (!enabled || !isatty(STDERR_FILENO))
		return NULL;
	struct progress *p = calloc(1, sizeof *p);
	if (!p)
		return NULL; /* no progress line is not worth failing the run */
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p);
		return NULL;
	}
	p->total = total;
	p->done = p->done_at_start = already_done;
	p->solved = already_solved;
	p->start_ms = (long long)clock_mono_ms();
	return p;
}

/* Called with mu held. */
static void draw(struct progress *p, long long now, bool final)
{
	double secs = (double)(now - p->start_ms) / 1000.0;
	double rate = secs > 0 ? (double)p->jobs / secs : 0;
	size_t fresh = p->done - p->done_at_start;
	char eta[32] = "--";
	if (fresh > 0 && p->done < p->total) {
		double left = secs / (double)fresh * (double)(p->total - p->done);
		long l = (long)(left + 0.5);
		snprintf(eta, sizeof eta, "%ldm%02lds", l / 60, l % 60);
	} else if (p->done >= p->total) {
		snprintf(eta, sizeof eta, "0s");
	}
	/* \r and clear-to-end: the line shrinks cleanly when numbers do. */
	fprintf(stderr, "\r\033[Ksbx eval: %zu/%zu tasks done, %zu solved, %.1f jobs/s, ETA %s%s",
		p->done, p->total, p->solved, rate, eta, final ? "\n" : "");
	fflush(stderr);
	p->last_ms = now;
}

static void tick(struct progress *p, size_t jobs, size_t items, bool solved)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->jobs += jobs;
	p->done += items;
	p->solved += solved;
	long long now = (long long)clock_mono_ms();
	if (now - p->last_ms >= REDRAW_MS)
		draw(p, now, false);
	pthread_mutex_unlock(&p->mu);
}

void progress_job(struct progress *p)
{
	tick(p, 1, 0, false);
}

void progress_item(struct progress *p, bool solved)
{
	tick(p, 0, 1, solved);
}

void progress_end(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	draw(p, (long long)clock_mono_ms(), true);
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
