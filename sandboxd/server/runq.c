#include "sandboxd/server/runq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct runq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, *tail; /* queued, FIFO */
	struct job *running;	 /* linked through next while running */
	size_t queued, nrunning, capacity;
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

struct runq *runq_new(size_t capacity)
{
	struct runq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->capacity = capacity;
	return q;
}

void runq_free(struct runq *q)
{
	if (!q)
		return;
	for (struct job *j = q->head, *n; j; j = n) {
		n = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}

int runq_push(struct runq *q, struct job *j)
{
	pthread_mutex_lock(&q->mu);
	int rc = -1;
	if (!q->shutdown && q->queued < q->capacity) {
		j->next = NULL;
		if (q->tail)
			q->tail->next = j;
		else
			q->head = j;
		q->tail = j;
		q->queued++;
		rc = 0;
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

struct job *runq_pop(struct runq *q)
{
	pthread_mutex_lock(&q->mu);
	while (!q->shutdown && !q->head)
		pthread_cond_wait(&q->cv, &q->mu);
	struct job *j = NULL;
	if (!q->shutdown) {
		j = q->head;
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		q->queued--;
		j->next = q->running;
		q->running = j;
		q->nrunning++;
	}
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
			break;
		}
	j->next = NULL;
	pthread_mutex_unlock(&q->mu);
}

void runq_cancel_conn(struct runq *q, uint64_t conn_id)
{
	pthread_mutex_lock(&q->mu);
	struct job **p = &q->head, *prev = NULL;
	while (*p) {
		struct job *j = *p;
		if (j->conn_id == conn_id) {
			*p = j->next;
			q->queued--;
			job_free(j);
		} else {
			prev = j;
			p = &j->next;
		}
	}
	q->tail = prev;
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
	for (struct job *j = q->head, *n; j; j = n) {
		n = j->next;
		if (each)
			each(j, ctx);
		job_free(j);
	}
	q->head = q->tail = NULL;
	q->queued = 0;
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
