#include "sandboxd/server/runq.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RUNQ_BUCKETS 256

/* One (uid, tenant): its waiting jobs, and what it has running. A peer
 * lives while it has a job waiting or running, so a peer that resubmits as
 * soon as its job starts keeps its place behind the others; one that went
 * idle comes back first in line, which banks it nothing beyond one pick. */
struct runq_peer {
	uid_t uid;
	bool has_tenant;
	char tenant[PROTO_TENANT_MAX + 1];
	struct job *head, *tail; /* waiting, FIFO */
	size_t queued;		 /* head..tail, plus its job picked and waiting for memory */
	size_t bytes;		 /* the request bytes of those */
	size_t running;
	uint64_t served; /* the pick that last took one of its jobs; 0: none yet */
	bool active;	 /* in the active list */
	struct runq_peer *hnext, *anext;
};

struct runq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct runq_peer *table[RUNQ_BUCKETS];
	/* Peers with jobs in their lists, least recently served first (ties:
	 * the one that became active first). */
	struct runq_peer *active;
	struct job *picked;  /* the next job to start, waiting for memory */
	struct job *running; /* linked through next while running */
	size_t queued, nrunning;
	size_t queued_bytes; /* of the jobs waiting (picked included) */
	struct runq_limits lim;
	long admitted_mb;
	uint64_t picks;
	/* Workers waiting in runq_pop_until that said they are ready (their
	 * job forked ahead waits): a worker that is not leaves them the job. */
	size_t ready_waiting;
	bool shutdown;
};

struct job *job_new(void)
{
	struct job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->cancel_fd < 0) {
		free(j);
		return NULL;
	}
	return j;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	proto_request_free(&j->req);
	free(j->post_node);
	free(j->fallback_line);
	close(j->cancel_fd);
	free(j);
}

static void cancel(struct job *j)
{
	uint64_t one = 1;
	(void)!write(j->cancel_fd, &one, sizeof one);
}

static unsigned runq_hash(uid_t uid, const char *tenant)
{
	uint32_t h = 2166136261u ^ (uint32_t)uid;
	for (const char *p = tenant ? tenant : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return (h * 16777619u) % RUNQ_BUCKETS;
}

static bool runq_peer_is(const struct runq_peer *p, uid_t uid, const char *tenant)
{
	return p->uid == uid && p->has_tenant == (tenant != NULL) &&
	       (!tenant || strcmp(p->tenant, tenant) == 0);
}

static struct runq_peer *runq_peer_find(struct runq *q, uid_t uid, const char *tenant)
{
	for (struct runq_peer *p = q->table[runq_hash(uid, tenant)]; p; p = p->hnext)
		if (runq_peer_is(p, uid, tenant))
			return p;
	return NULL;
}

/* NULL without memory, or for a tenant longer than the protocol allows
 * (the parser refuses those; this only keeps the copy exact). */
static struct runq_peer *runq_peer_get(struct runq *q, uid_t uid, const char *tenant)
{
	struct runq_peer *p = runq_peer_find(q, uid, tenant);
	if (p)
		return p;
	if (tenant && strlen(tenant) > PROTO_TENANT_MAX)
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->uid = uid;
	p->has_tenant = tenant != NULL;
	snprintf(p->tenant, sizeof p->tenant, "%s", tenant ? tenant : "");
	unsigned h = runq_hash(uid, tenant);
	p->hnext = q->table[h];
	q->table[h] = p;
	return p;
}

/* Forgets a peer with nothing waiting or running. */
static void runq_peer_put(struct runq *q, struct runq_peer *p)
{
	if (p->queued || p->running || p->active)
		return;
	for (struct runq_peer **pp = &q->table[runq_hash(p->uid, p->has_tenant ? p->tenant : NULL)];
	     *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	free(p);
}

static void runq_active_add(struct runq *q, struct runq_peer *p)
{
	struct runq_peer **pp = &q->active;
	while (*pp && (*pp)->served <= p->served)
		pp = &(*pp)->anext;
	p->anext = *pp;
	*pp = p;
	p->active = true;
}

static void runq_active_del(struct runq *q, struct runq_peer *p)
{
	for (struct runq_peer **pp = &q->active; *pp; pp = &(*pp)->anext)
		if (*pp == p) {
			*pp = p->anext;
			break;
		}
	p->anext = NULL;
	p->active = false;
}

/* The round-robin step: the first job of the peer served least recently;
 * that peer becomes the one served most recently. */
static struct job *runq_pick(struct runq *q)
{
	struct runq_peer *p = q->active;
	struct job *j = p->head;
	p->head = j->next;
	if (!p->head)
		p->tail = NULL;
	j->next = NULL;
	runq_active_del(q, p);
	p->served = ++q->picks;
	if (p->head)
		runq_active_add(q, p);
	return j;
}

static bool runq_fits(const struct runq *q, const struct job *j)
{
	return q->lim.memory_budget_mb <= 0 ||
	       q->admitted_mb + j->memory_mb <= q->lim.memory_budget_mb;
}

struct runq *runq_new(const struct runq_limits *lim)
{
	struct runq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->lim = *lim;
	return q;
}

static void runq_free_waiting(struct runq *q, void (*each)(const struct job *j, void *ctx),
			      void *ctx)
{
	if (q->picked) {
		if (each)
			each(q->picked, ctx);
		q->picked->peer->queued--;
		q->picked->peer->bytes -= q->picked->bytes;
		job_free(q->picked);
		q->picked = NULL;
	}
	q->queued_bytes = 0;
	while (q->active) {
		struct runq_peer *p = q->active;
		for (struct job *j = p->head, *n; j; j = n) {
			n = j->next;
			if (each)
				each(j, ctx);
			job_free(j);
		}
		p->head = p->tail = NULL;
		p->queued = p->bytes = 0;
		runq_active_del(q, p);
		runq_peer_put(q, p);
	}
	q->queued = 0;
}

void runq_free(struct runq *q)
{
	if (!q)
		return;
	runq_free_waiting(q, NULL, NULL);
	for (int i = 0; i < RUNQ_BUCKETS; i++)
		for (struct runq_peer *p = q->table[i], *n; p; p = n) {
			n = p->hnext;
			free(p);
		}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}

int runq_push(struct runq *q, struct job *j)
{
	pthread_mutex_lock(&q->mu);
	int rc = RUNQ_OK;
	struct runq_peer *p = NULL;
	/* The bytes bound what waiting requests hold in memory, whatever the
	 * capacity: a request of any allowed size still fits an empty queue. */
	if (q->shutdown || q->queued >= q->lim.capacity ||
	    (q->lim.bytes && q->queued && q->queued_bytes + j->bytes > q->lim.bytes))
		rc = RUNQ_FULL;
	else if (q->lim.memory_budget_mb > 0 && j->memory_mb > q->lim.memory_budget_mb)
		rc = RUNQ_TOO_BIG;
	else if (!(p = runq_peer_get(q, j->uid, j->req.tenant)))
		rc = RUNQ_NOMEM;
	else if (q->lim.per_peer && p->queued >= q->lim.per_peer)
		rc = RUNQ_PEER_FULL;
	/* Half the bytes for one peer, as half the jobs: a peer queueing large
	 * requests filled the whole budget and every other peer was told busy
	 * (an outside attack, through the HTTP front). Its first request
	 * always fits its share. */
	else if (q->lim.bytes && p->queued && p->bytes + j->bytes > q->lim.bytes / 2)
		rc = RUNQ_PEER_BYTES;
	if (rc == RUNQ_OK) {
		j->peer = p;
		j->next = NULL;
		if (p->tail)
			p->tail->next = j;
		else
			p->head = j;
		p->tail = j;
		p->queued++;
		p->bytes += j->bytes;
		q->queued++;
		q->queued_bytes += j->bytes;
		if (!p->active)
			runq_active_add(q, p);
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

struct job *runq_pop(struct runq *q)
{
	bool timed_out;
	return runq_pop_until(q, -1, true, &timed_out);
}

struct job *runq_pop_until(struct runq *q, int ms, bool ready, bool *timed_out)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	*timed_out = false;
	pthread_mutex_lock(&q->mu);
	struct job *j = NULL;
	if (ready)
		q->ready_waiting++;
	while (!q->shutdown) {
		if (!q->picked && q->active)
			q->picked = runq_pick(q);
		if (q->picked && runq_fits(q, q->picked) && (ready || q->ready_waiting == 0)) {
			j = q->picked;
			q->picked = NULL;
			j->peer->queued--;
			j->peer->bytes -= j->bytes;
			j->peer->running++;
			q->queued--;
			q->queued_bytes -= j->bytes;
			q->admitted_mb += j->memory_mb;
			j->next = q->running;
			q->running = j;
			q->nrunning++;
			/* The next job may fit beside this one: let another worker look. */
			if (q->active)
				pthread_cond_broadcast(&q->cv);
			break;
		}
		if (ms < 0) {
			pthread_cond_wait(&q->cv, &q->mu);
		} else if (pthread_cond_timedwait(&q->cv, &q->mu, &until) == ETIMEDOUT) {
			*timed_out = true;
			break;
		}
	}
	if (ready)
		q->ready_waiting--;
	pthread_mutex_unlock(&q->mu);
	return j;
}

void runq_done(struct runq *q, struct job *j)
{
	pthread_mutex_lock(&q->mu);
	for (struct job **p = &q->running; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			q->nrunning--;
			q->admitted_mb -= j->memory_mb;
			j->peer->running--;
			runq_peer_put(q, j->peer);
			j->peer = NULL;
			break;
		}
	j->next = NULL;
	pthread_cond_broadcast(&q->cv); /* its memory may let the picked job start */
	pthread_mutex_unlock(&q->mu);
}

/* Drops the waiting jobs of conn_id from one peer's list. */
static void runq_cancel_peer(struct runq *q, struct runq_peer *p, uint64_t conn_id)
{
	struct job **pp = &p->head, *prev = NULL;
	while (*pp) {
		struct job *j = *pp;
		if (j->conn_id == conn_id) {
			*pp = j->next;
			p->queued--;
			p->bytes -= j->bytes;
			q->queued--;
			q->queued_bytes -= j->bytes;
			job_free(j);
		} else {
			prev = j;
			pp = &j->next;
		}
	}
	p->tail = prev;
}

void runq_cancel_conn(struct runq *q, uint64_t conn_id)
{
	pthread_mutex_lock(&q->mu);
	if (q->picked && q->picked->conn_id == conn_id) {
		struct runq_peer *p = q->picked->peer;
		q->queued_bytes -= q->picked->bytes;
		p->bytes -= q->picked->bytes;
		job_free(q->picked);
		q->picked = NULL;
		p->queued--;
		q->queued--;
		runq_peer_put(q, p);
		pthread_cond_broadcast(&q->cv); /* another job may be picked now */
	}
	for (struct runq_peer **ap = &q->active; *ap;) {
		struct runq_peer *p = *ap;
		runq_cancel_peer(q, p, conn_id);
		if (p->head) {
			ap = &p->anext;
			continue;
		}
		*ap = p->anext;
		p->anext = NULL;
		p->active = false;
		runq_peer_put(q, p);
	}
	for (struct job *j = q->running; j; j = j->next)
		if (j->conn_id == conn_id)
			cancel(j);
	pthread_mutex_unlock(&q->mu);
}

void runq_shutdown(struct runq *q, void (*each)(const struct job *j, void *ctx), void *ctx)
{
	pthread_mutex_lock(&q->mu);
	q->shutdown = true;
	for (struct job *j = q->running; j; j = j->next) {
		if (each)
			each(j, ctx);
		cancel(j);
	}
	runq_free_waiting(q, each, ctx);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void runq_counts(struct runq *q, size_t *queued, size_t *running)
{
	pthread_mutex_lock(&q->mu);
	*queued = q->queued;
	*running = q->nrunning;
	pthread_mutex_unlock(&q->mu);
}

long runq_memory_admitted(struct runq *q)
{
	pthread_mutex_lock(&q->mu);
	long mb = q->admitted_mb;
	pthread_mutex_unlock(&q->mu);
	return mb;
}

size_t runq_peer_queued(struct runq *q, uid_t uid, const char *tenant)
{
	pthread_mutex_lock(&q->mu);
	struct runq_peer *p = runq_peer_find(q, uid, tenant);
	size_t n = p ? p->queued : 0;
	pthread_mutex_unlock(&q->mu);
	return n;
}
