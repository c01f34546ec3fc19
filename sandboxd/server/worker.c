/* A worker thread takes a job, hands it to the run component and posts
 * exactly one response line. */
#include "sandboxd/server/worker.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "sandboxd/run/run.h"
#include "common/clock.h"

/* What a worker is doing, for the log of a shutdown that has to abandon it. */
struct worker {
	pthread_t tid;
	int slot;
	pthread_mutex_t mu;
	char job_id[128]; /* "" when idle; a long id is cut for the log */
	uint64_t started_ms;
};

/* Test-only (set by whoever starts the root daemon, never by a client): the
 * worker that takes a job with this id blocks forever with every signal
 * blocked, standing in for a syscall that never returns. It proves that
 * shutdown does not depend on every worker finishing. */
static const char *g_hang_id;

static const struct config *g_cfg;
static struct runq *g_q;
static worker_post_fn g_post;
static struct worker *g_workers;
static int g_nworkers;

static void worker_set_job(struct worker *w, const char *id)
{
	pthread_mutex_lock(&w->mu);
	snprintf(w->job_id, sizeof w->job_id, "%s", id ? id : "");
	w->started_ms = clock_mono_ms();
	pthread_mutex_unlock(&w->mu);
}

static void worker_test_hang(void)
{
	int p[2];
	char b;
	if (pipe(p) == 0)
		while (read(p[0], &b, 1) != 0)
			; /* the write end stays open here: never EOF */
}

/* The cancel eventfd is readable once the job's client went away or the
 * daemon is stopping. */
static bool worker_cancelled(const struct job *j)
{
	struct pollfd p = {.fd = j->cancel_fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}

static void run_job(struct worker *w, struct job *j)
{
	const struct config *cfg = g_cfg;
	json_t *resp;
	if (g_hang_id && strcmp(g_hang_id, j->req.id) == 0)
		worker_test_hang();
	resp = run_request(cfg, w->slot, j);
	if (!resp && worker_cancelled(j)) {
		log_msg("job %s cancelled (client gone or daemon stopping)", j->req.id);
		return;
	}
	if (!resp) { /* not cancelled: the response could not be built */
		log_msg("job %s: the response could not be built (out of memory)", j->req.id);
		g_post(j, NULL);
		return;
	}
	char *u = json_dumps(json_object_get(resp, R_USAGE), JSON_COMPACT);
	const char *msg = json_string_value(json_object_get(resp, R_MESSAGE));
	log_msg("job %s: %s %s%s%s", j->req.id, json_string_value(json_object_get(resp, R_VERDICT)),
		u ? u : "", msg && msg[0] ? " " : "", msg ? msg : "");
	free(u);
	char *line = json_dumps(resp, JSON_COMPACT);
	json_decref(resp);
	size_t len = line ? strlen(line) : 0;
	if (len > cfg->max_response) {
		/* Output is cut to fit in the jail; what remains too large (test
		 * feedback) costs this job its answer, never the connection. */
		char why[160];
		snprintf(why, sizeof why,
			 "the response (%zu bytes) is larger than the daemon's --max-response-mb "
			 "(%zu MiB)",
			 len, cfg->max_response >> 20);
		log_msg("job %s: %s", j->req.id, why);
		free(line);
		line = proto_error_line(j->req.id, E_TOO_LARGE, why);
	}
	g_post(j, line); /* NULL: the job's pre-rendered internal error */
}

/* A worker supervises its jobs: it reads their counters and kills them at
 * their limits; on cgroup v1 nothing but its watch (every 1 to 10 ms)
 * bounds what a job's sockets hold past memory.kmem.tcp's limit, and a job
 * outruns it if a busy host delays it by tens of ms. So it runs at nice
 * WORKER_NICE, above every ordinary process, and SCHED_RESET_ON_FORK gives
 * whatever it starts (jails, fork servers, probes) the normal priority. */
#define WORKER_NICE (-10)
/* Between jobs it looks after its slot: the next job's cgroup, pid 1 and
 * network namespace, the last job's cgroup removed. That work is for a
 * later job, and at WORKER_NICE it would take the CPU from the jobs other
 * slots run meanwhile (a client's next job goes to another, ready slot):
 * so it is done at WORKER_IDLE_NICE. */
#define WORKER_IDLE_NICE 19
static _Thread_local bool g_renice = true; /* cleared when a change of priority failed */

static void worker_nice(int slot, int nice)
{
	if (g_renice && setpriority(PRIO_PROCESS, (id_t)gettid(), nice) < 0) {
		log_msg("worker slot %d: nice %d: %s; it keeps its priority", slot, nice,
			strerror(errno));
		g_renice = false;
	}
}

static void worker_priority(int slot)
{
	struct sched_param p = {.sched_priority = 0};
	if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &p) < 0)
		log_msg("worker slot %d: SCHED_RESET_ON_FORK: %s; it keeps the normal priority",
			slot, strerror(errno));
	else
		worker_nice(slot, WORKER_NICE);
}

#define AHEAD_POLL_MS 1

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *j;
	worker_priority(w->slot);
	run_warm_start(g_cfg, w->slot);
	run_idle(g_cfg, w->slot);
	bool probed = false;
	for (;;) {
		/* While its fork servers import, the worker looks every 20 ms
		 * whether they are ready; jobs meanwhile run cold. Until it has
		 * asked what each profile's jobs find (for ping), it does so the
		 * first time it finds no job waiting: no job waits for that. */
		bool timed_out;
		int wait_ms = !probed ? 0 : run_warm_pending(g_cfg, w->slot) ? 20 : -1;
		/* A slot whose next jobs are still being forked ahead (a few
		 * ms after each job) leaves a job to a slot that is ready, and
		 * looks again every AHEAD_POLL_MS. */
		bool ahead = run_warm_ahead(g_cfg, w->slot);
		if (!ahead && (wait_ms < 0 || wait_ms > AHEAD_POLL_MS))
			wait_ms = AHEAD_POLL_MS;
		j = runq_pop_until(g_q, wait_ms, ahead, &timed_out);
		if (!j && timed_out) {
			if (!probed) {
				run_probe(g_cfg, w->slot);
				probed = true;
			}
			run_warm_poll(g_cfg, w->slot);
			continue;
		}
		if (!j)
			break;
		j->popped_ns = clock_mono_ns();
		worker_set_job(w, j->req.id);
		run_job(w, j);
		worker_set_job(w, NULL);
		runq_done(g_q, j);
		job_free(j);
		/* After the answer: the fork servers' next jobs' pid 1s into their
		 * cgroups first (each then forks its job ahead, beside what
		 * follows), then the last job's cgroup out of the way. */
		worker_nice(w->slot, WORKER_IDLE_NICE);
		run_warm_poll(g_cfg, w->slot);
		run_idle(g_cfg, w->slot);
		worker_nice(w->slot, WORKER_NICE);
	}
	run_warm_stop(w->slot);
	run_cgpool_drop(w->slot);
	return NULL;
}

int workers_start(const struct config *cfg, struct runq *q, worker_post_fn post)
{
	g_cfg = cfg;
	g_q = q;
	g_post = post;
	g_hang_id = getenv("SANDBOXD_TEST_HANG_ID");
	g_workers = calloc((size_t)cfg->workers, sizeof *g_workers);
	if (!g_workers || run_warm_init(cfg) < 0 || run_cgpool_init(cfg->workers) < 0)
		return -1;
	for (int i = 0; i < cfg->workers; i++) {
		g_workers[i].slot = i;
		pthread_mutex_init(&g_workers[i].mu, NULL);
		if (pthread_create(&g_workers[i].tid, NULL, worker_main, &g_workers[i]) != 0)
			return -1;
		g_nworkers++;
	}
	return 0;
}

int workers_join(int timeout_ms)
{
	struct timespec dl;
	int abandoned = 0;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	for (int i = 0; i < g_nworkers; i++) {
		struct worker *w = &g_workers[i];
		if (pthread_timedjoin_np(w->tid, NULL, &dl) == 0)
			continue;
		/* The thread is stuck where nothing can interrupt it; the process
		 * exit ends it, and the cgroup cleanup after this kills its job. */
		pthread_mutex_lock(&w->mu);
		log_msg("shutdown: worker slot %d did not stop within %d ms; abandoning job %s "
			"(running for %" PRIu64 " ms)",
			w->slot, timeout_ms, w->job_id[0] ? w->job_id : "(none)",
			clock_mono_ms() - w->started_ms);
		pthread_mutex_unlock(&w->mu);
		abandoned++;
	}
	if (abandoned == 0) {
		free(g_workers);
		g_workers = NULL;
		g_nworkers = 0;
	}
	return abandoned;
}
