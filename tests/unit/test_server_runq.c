/* The job queue (sandboxd/server/runq.c) on its own: FIFO within a peer,
 * round-robin between peers ((uid, tenant) pairs), the per-peer and global
 * caps, and the memory budget (a job that does not fit waits, nothing
 * overtakes it, one that could never fit is refused). */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandboxd/server/runq.h"
#include "tests/helpers/tmain.h"

static struct runq *mkq(size_t capacity, size_t per_peer, long budget_mb)
{
	struct runq_limits lim = {
	    .capacity = capacity, .per_peer = per_peer, .memory_budget_mb = budget_mb};
	struct runq *q = runq_new(&lim);
	ck_assert_ptr_nonnull(q);
	return q;
}

static struct job *mk(uint64_t conn, uid_t uid, const char *tenant, long mem_mb, const char *id)
{
	struct job *j = job_new();
	ck_assert_ptr_nonnull(j);
	j->conn_id = conn;
	j->uid = uid;
	j->memory_mb = mem_mb;
	j->req.id = strdup(id);
	j->req.tenant = tenant ? strdup(tenant) : NULL;
	return j;
}

static void push_ok(struct runq *q, uint64_t conn, uid_t uid, const char *tenant, long mem_mb,
		    const char *id)
{
	struct job *j = mk(conn, uid, tenant, mem_mb, id);
	int rc = runq_push(q, j);
	ck_assert_msg(rc == RUNQ_OK, "push %s: %d", id, rc);
}

static int push_rc(struct runq *q, uid_t uid, const char *tenant, long mem_mb)
{
	struct job *j = mk(1, uid, tenant, mem_mb, "refused?");
	int rc = runq_push(q, j);
	if (rc != RUNQ_OK)
		job_free(j);
	return rc;
}

/* Pops a job that must be there at once; returns its id (static buffer)
 * and leaves it running when keep, else finishes it. */
static const char *pop_id(struct runq *q, bool keep, struct job **out)
{
	static char id[64];
	struct job *j = runq_pop(q);
	ck_assert_ptr_nonnull(j);
	snprintf(id, sizeof id, "%s", j->req.id);
	if (out)
		*out = j;
	if (!keep) {
		runq_done(q, j);
		job_free(j);
	}
	return id;
}

static void drain(struct runq *q)
{
	size_t queued, running;
	runq_counts(q, &queued, &running);
	ck_assert_uint_eq(running, 0);
	while (queued--)
		pop_id(q, false, NULL);
	runq_free(q);
}

START_TEST(test_fifo_within_a_peer)
{
	struct runq *q = mkq(100, 0, 0);
	char id[16];
	for (int i = 0; i < 5; i++) {
		snprintf(id, sizeof id, "a%d", i);
		push_ok(q, 1, 1000, NULL, 1, id);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(id, sizeof id, "a%d", i);
		ck_assert_str_eq(pop_id(q, false, NULL), id);
	}
	drain(q);
}
END_TEST

/* The brief's case: a peer with 100 queued (its first one running), and
 * another peer's one job queued later: the later one runs next. A global
 * FIFO would run 99 jobs before it. */
START_TEST(test_late_peer_runs_next)
{
	struct runq *q = mkq(1000, 0, 0);
	char id[16];
	for (int i = 0; i < 100; i++) {
		snprintf(id, sizeof id, "a%d", i);
		push_ok(q, 1, 1000, NULL, 1, id);
	}
	struct job *a0;
	ck_assert_str_eq(pop_id(q, true, &a0), "a0");
	push_ok(q, 2, 2000, NULL, 1, "b0");
	ck_assert_str_eq(pop_id(q, false, NULL), "b0");
	ck_assert_str_eq(pop_id(q, false, NULL), "a1");
	runq_done(q, a0);
	job_free(a0);
	drain(q);
}
END_TEST

/* Nobody served yet: the first come goes first, the later peer second. */
START_TEST(test_late_peer_second_when_none_ran)
{
	struct runq *q = mkq(1000, 0, 0);
	char id[16];
	for (int i = 0; i < 100; i++) {
		snprintf(id, sizeof id, "a%d", i);
		push_ok(q, 1, 1000, NULL, 1, id);
	}
	push_ok(q, 2, 2000, NULL, 1, "b0");
	ck_assert_str_eq(pop_id(q, false, NULL), "a0");
	ck_assert_str_eq(pop_id(q, false, NULL), "b0");
	drain(q);
}
END_TEST

START_TEST(test_round_robin_three_peers)
{
	struct runq *q = mkq(100, 0, 0);
	const char *peers = "abc";
	char id[16];
	for (int p = 0; p < 3; p++)
		for (int i = 0; i < 3; i++) {
			snprintf(id, sizeof id, "%c%d", peers[p], i);
			push_ok(q, (uint64_t)p + 1, (uid_t)(1000 + p), NULL, 1, id);
		}
	for (int i = 0; i < 3; i++)
		for (int p = 0; p < 3; p++) {
			snprintf(id, sizeof id, "%c%d", peers[p], i);
			ck_assert_str_eq(pop_id(q, false, NULL), id);
		}
	drain(q);
}
END_TEST

/* A peer that resubmits as soon as its job starts keeps its place behind
 * the peer it was served before: its turn is remembered while its job
 * runs, so it cannot take every pick by never having anything waiting. */
START_TEST(test_resubmit_keeps_its_place)
{
	struct runq *q = mkq(100, 0, 0);
	push_ok(q, 1, 1000, NULL, 1, "a0");
	push_ok(q, 2, 2000, NULL, 1, "b0");
	push_ok(q, 2, 2000, NULL, 1, "b1");
	push_ok(q, 2, 2000, NULL, 1, "b2");
	struct job *a0, *b0;
	ck_assert_str_eq(pop_id(q, true, &a0), "a0");
	push_ok(q, 1, 1000, NULL, 1, "a1"); /* at once, a0 still running */
	ck_assert_str_eq(pop_id(q, true, &b0), "b0");
	ck_assert_str_eq(pop_id(q, false, NULL), "a1");
	ck_assert_str_eq(pop_id(q, false, NULL), "b1");
	runq_done(q, a0);
	job_free(a0);
	runq_done(q, b0);
	job_free(b0);
	drain(q);
}
END_TEST

/* Tenants of one uid are peers of their own, and so is the untagged uid. */
START_TEST(test_tenants_are_peers)
{
	struct runq *q = mkq(100, 2, 0);
	push_ok(q, 1, 1000, "x", 1, "x0");
	push_ok(q, 1, 1000, "x", 1, "x1");
	ck_assert_int_eq(push_rc(q, 1000, "x", 1), RUNQ_PEER_FULL);
	push_ok(q, 1, 1000, "y", 1, "y0");
	push_ok(q, 1, 1000, NULL, 1, "n0");
	push_ok(q, 2, 2000, "x", 1, "other-uid-x0"); /* same tenant name, other uid */
	ck_assert_uint_eq(runq_peer_queued(q, 1000, "x"), 2);
	ck_assert_uint_eq(runq_peer_queued(q, 1000, "y"), 1);
	ck_assert_uint_eq(runq_peer_queued(q, 1000, NULL), 1);
	ck_assert_uint_eq(runq_peer_queued(q, 2000, "x"), 1);
	ck_assert_str_eq(pop_id(q, false, NULL), "x0");
	ck_assert_str_eq(pop_id(q, false, NULL), "y0");
	ck_assert_str_eq(pop_id(q, false, NULL), "n0");
	ck_assert_str_eq(pop_id(q, false, NULL), "other-uid-x0");
	ck_assert_str_eq(pop_id(q, false, NULL), "x1");
	drain(q);
}
END_TEST

START_TEST(test_per_peer_and_global_caps)
{
	struct runq *q = mkq(4, 2, 0);
	push_ok(q, 1, 1000, NULL, 1, "a0");
	push_ok(q, 1, 1000, NULL, 1, "a1");
	ck_assert_int_eq(push_rc(q, 1000, NULL, 1), RUNQ_PEER_FULL);
	push_ok(q, 2, 2000, NULL, 1, "b0");
	/* A running job no longer counts as waiting. */
	struct job *a0;
	ck_assert_str_eq(pop_id(q, true, &a0), "a0");
	push_ok(q, 1, 1000, NULL, 1, "a2");
	push_ok(q, 3, 3000, NULL, 1, "c0");
	ck_assert_int_eq(push_rc(q, 4000, NULL, 1), RUNQ_FULL);
	runq_done(q, a0);
	job_free(a0);
	drain(q);
}
END_TEST

struct popper {
	struct runq *q;
	int ms;	    /* runq_pop_until's bound (-1: none) */
	bool ready; /* whether it says it could start a job at once */
	bool timed_out;
	struct job *got;
	volatile int done;
	pthread_t tid;
};

static void *popper_main(void *arg)
{
	struct popper *p = arg;
	p->got = runq_pop_until(p->q, p->ms, p->ready, &p->timed_out);
	__atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void popper_start_as(struct popper *p, struct runq *q, int ms, bool ready)
{
	memset(p, 0, sizeof *p);
	p->q = q;
	p->ms = ms;
	p->ready = ready;
	ck_assert_int_eq(pthread_create(&p->tid, NULL, popper_main, p), 0);
}

static void popper_start(struct popper *p, struct runq *q)
{
	popper_start_as(p, q, -1, true);
}

static bool popper_done_within(struct popper *p, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (__atomic_load_n(&p->done, __ATOMIC_SEQ_CST))
			return true;
		usleep(10000);
	}
	return __atomic_load_n(&p->done, __ATOMIC_SEQ_CST);
}

static void finish(struct runq *q, struct job *j)
{
	runq_done(q, j);
	job_free(j);
}

START_TEST(test_budget_runs_one_after_the_other)
{
	struct runq *q = mkq(100, 0, 100);
	push_ok(q, 1, 1000, NULL, 60, "a");
	push_ok(q, 2, 2000, NULL, 60, "b");
	struct job *a;
	ck_assert_str_eq(pop_id(q, true, &a), "a");
	ck_assert_int_eq(runq_memory_admitted(q), 60);
	struct popper p;
	popper_start(&p, q);
	ck_assert_msg(!popper_done_within(&p, 300),
		      "b started beside a: 120 MB of a 100 MB budget");
	size_t queued, running;
	runq_counts(q, &queued, &running);
	ck_assert_uint_eq(queued, 1); /* still waiting, not refused */
	ck_assert_uint_eq(running, 1);
	finish(q, a);
	ck_assert(popper_done_within(&p, 5000));
	pthread_join(p.tid, NULL);
	ck_assert_str_eq(p.got->req.id, "b");
	ck_assert_int_eq(runq_memory_admitted(q), 60);
	finish(q, p.got);
	ck_assert_int_eq(runq_memory_admitted(q), 0);
	drain(q);
}
END_TEST

START_TEST(test_never_fits_is_refused)
{
	struct runq *q = mkq(100, 0, 100);
	ck_assert_int_eq(push_rc(q, 1000, NULL, 101), RUNQ_TOO_BIG);
	push_ok(q, 1, 1000, NULL, 100, "whole");
	drain(q);
}
END_TEST

/* The job picked waits for its memory; a smaller job of another peer that
 * would fit does not overtake it (else a stream of small jobs could starve
 * a large one), and starts beside it once both fit. */
START_TEST(test_picked_job_is_not_overtaken)
{
	struct runq *q = mkq(100, 0, 100);
	push_ok(q, 1, 1000, NULL, 60, "a");
	struct job *a;
	ck_assert_str_eq(pop_id(q, true, &a), "a");
	push_ok(q, 2, 2000, NULL, 60, "big");
	struct popper p1, p2;
	popper_start(&p1, q);
	ck_assert(!popper_done_within(&p1, 200));
	push_ok(q, 3, 3000, NULL, 10, "small");
	popper_start(&p2, q);
	ck_assert_msg(!popper_done_within(&p2, 300) && !p1.done,
		      "the small job overtook the big one waiting for memory");
	finish(q, a);
	ck_assert(popper_done_within(&p1, 5000) && popper_done_within(&p2, 5000));
	pthread_join(p1.tid, NULL);
	pthread_join(p2.tid, NULL);
	const char *x = p1.got->req.id, *y = p2.got->req.id;
	ck_assert_msg((!strcmp(x, "big") && !strcmp(y, "small")) ||
			  (!strcmp(x, "small") && !strcmp(y, "big")),
		      "got %s and %s", x, y);
	ck_assert_int_eq(runq_memory_admitted(q), 70);
	finish(q, p1.got);
	finish(q, p2.got);
	drain(q);
}
END_TEST

START_TEST(test_cancel_conn_everywhere)
{
	struct runq *q = mkq(100, 0, 100);
	push_ok(q, 1, 1000, NULL, 60, "run");
	struct job *r;
	ck_assert_str_eq(pop_id(q, true, &r), "run");
	push_ok(q, 7, 2000, NULL, 60, "picked-7"); /* will be picked, waiting */
	push_ok(q, 7, 3000, "t", 1, "queued-7");
	push_ok(q, 8, 3000, "t", 1, "queued-8");
	struct popper p;
	popper_start(&p, q);
	ck_assert(!popper_done_within(&p, 200));
	runq_cancel_conn(q, 7);
	ck_assert(popper_done_within(&p, 5000)); /* the next one fits beside "run" */
	pthread_join(p.tid, NULL);
	ck_assert_str_eq(p.got->req.id, "queued-8");
	ck_assert_uint_eq(runq_peer_queued(q, 2000, NULL), 0);
	ck_assert_uint_eq(runq_peer_queued(q, 3000, "t"), 0);
	size_t queued, running;
	runq_counts(q, &queued, &running);
	ck_assert_uint_eq(queued, 0);
	ck_assert_uint_eq(running, 2);
	finish(q, p.got);
	finish(q, r);
	drain(q);
}
END_TEST

static void count_each(const struct job *j, void *ctx)
{
	(void)j;
	(*(int *)ctx)++;
}

START_TEST(test_shutdown_tells_everyone)
{
	struct runq *q = mkq(100, 0, 100);
	push_ok(q, 1, 1000, NULL, 60, "run");
	struct job *r;
	ck_assert_str_eq(pop_id(q, true, &r), "run");
	push_ok(q, 2, 2000, NULL, 60, "picked");
	push_ok(q, 3, 3000, NULL, 1, "queued");
	struct popper p;
	popper_start(&p, q);
	ck_assert(!popper_done_within(&p, 200));
	int told = 0;
	runq_shutdown(q, count_each, &told);
	ck_assert(popper_done_within(&p, 5000));
	pthread_join(p.tid, NULL);
	ck_assert_ptr_null(p.got);
	ck_assert_int_eq(told, 3);
	ck_assert_int_eq(push_rc(q, 4000, NULL, 1), RUNQ_FULL);
	finish(q, r);
	runq_free(q);
}
END_TEST

/* A worker whose slot is not ready (its next job still being forked ahead)
 * leaves a job to a ready one that waits, and takes it when none does. */
START_TEST(test_ready_worker_first)
{
	struct runq *q = mkq(100, 0, 0);
	struct popper ready, busy;
	popper_start_as(&busy, q, 600, false);
	popper_start_as(&ready, q, -1, true);
	usleep(100000); /* both waiting */
	push_ok(q, 1, 1000, NULL, 1, "a");
	ck_assert(popper_done_within(&ready, 5000));
	pthread_join(ready.tid, NULL);
	ck_assert_ptr_nonnull(ready.got);
	ck_assert_str_eq(ready.got->req.id, "a");
	/* The one not ready saw the job and left it: it timed out empty. */
	ck_assert(popper_done_within(&busy, 5000));
	pthread_join(busy.tid, NULL);
	ck_assert_ptr_null(busy.got);
	ck_assert(busy.timed_out);
	finish(q, ready.got);
	/* With no ready worker waiting, one that is not ready takes it. */
	push_ok(q, 1, 1000, NULL, 1, "b");
	bool timed_out = true;
	struct job *j = runq_pop_until(q, 1000, false, &timed_out);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(j->req.id, "b");
	ck_assert(!timed_out);
	finish(q, j);
	runq_free(q);
}
END_TEST

/* A job of this many request bytes for conn (uid 1000). */
static int push_bytes(struct runq *q, uint64_t conn, uid_t uid, size_t bytes, const char *id)
{
	struct job *j = mk(conn, uid, NULL, 1, id);
	j->bytes = bytes;
	int rc = runq_push(q, j);
	if (rc != RUNQ_OK)
		job_free(j);
	return rc;
}

/* What waiting requests hold is bounded in bytes, whatever the count: a
 * large queue of jobs cannot be a large queue of 16 MiB requests. */
START_TEST(test_waiting_bytes_bounded)
{
	struct runq_limits lim = {.capacity = 100, .bytes = 1000};
	struct runq *q = runq_new(&lim);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 600, "a"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 1, 1001, 500, "b"), RUNQ_FULL);
	ck_assert_int_eq(push_bytes(q, 1, 1001, 400, "c"), RUNQ_OK); /* exactly 1000 */
	ck_assert_int_eq(push_bytes(q, 1, 1002, 1, "d"), RUNQ_FULL);
	/* A job taken by a worker gives its bytes back. */
	struct job *a;
	ck_assert_str_eq(pop_id(q, true, &a), "a");
	ck_assert_int_eq(push_bytes(q, 2, 1002, 500, "e"), RUNQ_OK);
	/* So does a cancelled one (its client left). */
	runq_cancel_conn(q, 2);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 600, "f"), RUNQ_OK);
	finish(q, a);
	ck_assert_str_eq(pop_id(q, false, NULL), "c");
	ck_assert_str_eq(pop_id(q, false, NULL), "f");
	/* Any request fits an empty queue, however large. */
	ck_assert_int_eq(push_bytes(q, 1, 1000, 5000, "big"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 1, 1001, 1, "small"), RUNQ_FULL);
	ck_assert_str_eq(pop_id(q, false, NULL), "big");
	ck_assert_int_eq(push_bytes(q, 1, 1000, 1000, "g"), RUNQ_OK);
	drain(q);
}
END_TEST

/* One peer's waiting requests hold at most half of the bytes, as it may
 * have at most half of the jobs: one that queued large requests told every
 * other peer busy (an outside attack, through the HTTP front). Its first
 * request always fits its share. */
START_TEST(test_peer_bytes_half)
{
	struct runq_limits lim = {.capacity = 100, .bytes = 1000};
	struct runq *q = runq_new(&lim);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 300, "a1"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 200, "a2"), RUNQ_OK); /* exactly half */
	ck_assert_int_eq(push_bytes(q, 1, 1000, 1, "a3"), RUNQ_PEER_BYTES);
	/* The other half is another peer's. */
	ck_assert_int_eq(push_bytes(q, 2, 1001, 400, "b1"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 2, 1001, 100, "b2"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 3, 1002, 1, "c1"), RUNQ_FULL);
	/* A job taken gives its peer's share back. */
	struct job *a;
	ck_assert_str_eq(pop_id(q, true, &a), "a1");
	ck_assert_int_eq(push_bytes(q, 1, 1000, 300, "a3"), RUNQ_OK);
	finish(q, a);
	drain(q);
	/* Alone, a peer's first request may hold more than half. */
	q = runq_new(&lim);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 900, "big"), RUNQ_OK);
	ck_assert_int_eq(push_bytes(q, 1, 1000, 1, "more"), RUNQ_PEER_BYTES);
	drain(q);
}
END_TEST

static Suite *runq_suite(void)
{
	Suite *s = suite_create("server_runq");
	TCase *t = tmain_tcase(s, "fairness", 30);
	tcase_add_test(t, test_fifo_within_a_peer);
	tcase_add_test(t, test_late_peer_runs_next);
	tcase_add_test(t, test_late_peer_second_when_none_ran);
	tcase_add_test(t, test_round_robin_three_peers);
	tcase_add_test(t, test_resubmit_keeps_its_place);
	tcase_add_test(t, test_tenants_are_peers);
	tcase_add_test(t, test_per_peer_and_global_caps);
	t = tmain_tcase(s, "budget", 30);
	tcase_add_test(t, test_budget_runs_one_after_the_other);
	tcase_add_test(t, test_never_fits_is_refused);
	tcase_add_test(t, test_picked_job_is_not_overtaken);
	tcase_add_test(t, test_cancel_conn_everywhere);
	tcase_add_test(t, test_shutdown_tells_everyone);
	tcase_add_test(t, test_waiting_bytes_bounded);
	tcase_add_test(t, test_peer_bytes_half);
	tcase_add_test(t, test_ready_worker_first);
	return s;
}

int main(void)
{
	return tmain(runq_suite, NULL);
}
