/* Unit tests for libsbx's table of requests awaiting a response
 * (client/lib/pending.c): found by id among many, repeated ids counted and
 * the oldest found first, the waiting ones handed back in due order, the
 * one in flight named only when it is alone. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/pending.h"
#include "tests/helpers/tmain.h"

#define N 20000

static struct pend *add(struct pend_table *t, const char *id)
{
	struct pend *e = pend_add(t, id, id, strlen(id) + 1);
	ck_assert_ptr_nonnull(e);
	return e;
}

START_TEST(test_find_among_many)
{
	struct pend_table t = {0};
	char id[32];
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof id, "r%d", i);
		add(&t, id);
	}
	ck_assert_uint_eq(t.n, N);
	size_t count;
	for (int i = 0; i < N; i += 7) {
		snprintf(id, sizeof id, "r%d", i);
		struct pend *e = pend_find(&t, id, &count);
		ck_assert_ptr_nonnull(e);
		ck_assert_str_eq(e->id, id);
		ck_assert_str_eq(e->line, id); /* the bytes to send again */
		ck_assert_uint_eq(count, 1);
		pend_remove(&t, e);
		ck_assert_ptr_null(pend_find(&t, id, &count));
		ck_assert_uint_eq(count, 0);
	}
	ck_assert_ptr_null(pend_find(&t, "nope", &count));
	pend_free(&t);
}
END_TEST

START_TEST(test_repeated_ids)
{
	struct pend_table t = {0};
	struct pend *a = add(&t, "x"), *b = add(&t, "x");
	size_t count;
	ck_assert_ptr_eq(pend_find(&t, "x", &count), a);
	ck_assert_uint_eq(count, 2);
	pend_remove(&t, a);
	ck_assert_ptr_eq(pend_find(&t, "x", &count), b);
	ck_assert_uint_eq(count, 1);
	pend_free(&t);
}
END_TEST

START_TEST(test_due_order)
{
	struct pend_table t = {0};
	struct pend **v = calloc(N, sizeof *v);
	ck_assert_ptr_nonnull(v);
	char id[32];
	srand(3);
	json_t *busy = json_object();
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof id, "r%d", i);
		v[i] = add(&t, id);
		ck_assert_int_eq(pend_wait(&t, v[i], rand() % 100000, busy), 0);
	}
	ck_assert_ptr_null(pend_sole_in_flight(&t));
	ck_assert_ptr_null(pend_pop_due(&t, -1)); /* nothing due yet */
	long long last = -1;
	for (int i = 0; i < N; i++) {
		long long next = pend_next_due(&t);
		struct pend *e = pend_pop_due(&t, 100000);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->due_ms, next);
		ck_assert_int_ge(e->due_ms, last);
		ck_assert_ptr_eq(e->busy, busy); /* kept: it is the answer if never sent */
		ck_assert_uint_eq(e->heap_i, PEND_IN_FLIGHT);
		last = e->due_ms;
		if (i % 2)
			pend_remove(&t, e); /* answered */
	}
	ck_assert_int_eq(pend_next_due(&t), -1);
	ck_assert_uint_eq(t.n, N / 2);
	json_decref(busy);
	pend_free(&t);
	free(v);
}
END_TEST

START_TEST(test_sole_in_flight)
{
	struct pend_table t = {0};
	json_t *busy = json_object();
	struct pend *a = add(&t, "a");
	ck_assert_ptr_eq(pend_sole_in_flight(&t), a);
	struct pend *b = add(&t, "b");
	ck_assert_ptr_null(pend_sole_in_flight(&t)); /* a or b: cannot tell */
	ck_assert_int_eq(pend_wait(&t, a, 5, busy), 0);
	ck_assert_ptr_eq(pend_sole_in_flight(&t), b); /* a is not in flight */
	ck_assert_ptr_eq(pend_pop_due(&t, 5), a);
	ck_assert_ptr_null(pend_sole_in_flight(&t));
	pend_remove(&t, b);
	ck_assert_ptr_eq(pend_sole_in_flight(&t), a);
	json_decref(busy);
	pend_free(&t);
}
END_TEST

static Suite *pending_suite(void)
{
	Suite *s = suite_create("client_lib_pending");
	TCase *t = tcase_create("pending");
	tcase_add_test(t, test_find_among_many);
	tcase_add_test(t, test_repeated_ids);
	tcase_add_test(t, test_due_order);
	tcase_add_test(t, test_sole_in_flight);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(pending_suite, NULL);
}
