/* Out-of-memory paths of the response hand-over (sandboxd/server/post.c),
 * under a fault-injection allocator that makes chosen allocations fail
 * (tests/helpers/failalloc.h; the Makefile builds every test_*_oom.c with
 * it): a finished job is always answered, since posting needs no
 * allocation, so a connection's pending count always gets back to zero; a
 * failed preparation leaks nothing. test_feedback_oom.c does the same for
 * the runner's records. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/protocol.h"
#include "sandboxd/run/run_priv.h"
#include "sandboxd/server/post.h"
#include "tests/helpers/failalloc.h"
#include "tests/helpers/tmain.h"

static struct job *queued_job(const char *id, uint64_t conn)
{
	struct job *j = job_new();
	ck_assert_ptr_nonnull(j);
	j->req.id = strdup(id);
	j->conn_id = conn;
	ck_assert_int_eq(post_prepare(j), 0);
	return j;
}

/* The control: the allocator really fails when armed. */
START_TEST(test_allocator_fails_when_armed)
{
	/* Through volatile pointers, so the compiler cannot elide the calls. */
	void *(*volatile m)(size_t) = malloc;
	void (*volatile fr)(void *) = free;
	char *(*volatile sd)(const char *) = strdup;
	failalloc_fail_at(0, 0);
	void *p = m(16);
	char *s = sd("x");
	failalloc_off();
	ck_assert_ptr_null(p);
	ck_assert_ptr_null(s);
	long before = failalloc_live();
	p = m(16);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(failalloc_live(), before + 1);
	fr(p);
	ck_assert_int_eq(failalloc_live(), before);
}
END_TEST

/* With every allocation failing, a worker's response, and the pre-rendered
 * error of a job whose response could not be built, both arrive. */
START_TEST(test_post_needs_no_memory)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(efd, 0);
	struct job *a = queued_job("job-a", 7), *b = queued_job("job-b", 8);
	char *line = strdup("{\"id\":\"job-a\",\"verdict\":\"pass\"}");
	ck_assert_ptr_nonnull(line);
	failalloc_fail_at(0, 0);
	post_submit(a, line, efd);
	post_submit(b, NULL, efd);
	long tried = failalloc_count();
	failalloc_off();
	ck_assert_int_eq(tried, 0); /* not one allocation was even attempted */
	struct posted *all = post_take();
	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(all->next);
	ck_assert_ptr_null(all->next->next);
	ck_assert_uint_eq(all->conn_id, 7);
	ck_assert_str_eq(all->line, "{\"id\":\"job-a\",\"verdict\":\"pass\"}");
	ck_assert_uint_eq(all->next->conn_id, 8);
	json_t *err = json_loads(all->next->line, 0, NULL);
	ck_assert_ptr_nonnull(err);
	ck_assert_str_eq(json_string_value(json_object_get(err, "id")), "job-b");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(err, "error"), "code")),
			 "internal");
	json_decref(err);
	uint64_t wakes = 0;
	ck_assert_int_eq(read(efd, &wakes, sizeof wakes), (ssize_t)sizeof wakes);
	ck_assert_uint_eq(wakes, 2);
	post_free_list(all);
	job_free(a);
	job_free(b);
	close(efd);
}
END_TEST

/* When preparing fails (the request is refused at once), nothing leaks. */
START_TEST(test_prepare_failure_leaks_nothing)
{
	for (long n = 0; n < 8; n++) {
		struct job *j = job_new();
		ck_assert_ptr_nonnull(j);
		j->req.id = strdup("p");
		long live = failalloc_live();
		failalloc_fail_at(n, 1);
		int rc = post_prepare(j);
		failalloc_off();
		if (rc == 0)
			ck_assert_int_eq(failalloc_live(), live + 2);
		job_free(j);
	}
}
END_TEST

static Suite *post_oom_suite(void)
{
	Suite *s = suite_create("post_oom");
	TCase *tc = tcase_create("oom");
	tcase_add_test(tc, test_allocator_fails_when_armed);
	tcase_add_test(tc, test_post_needs_no_memory);
	tcase_add_test(tc, test_prepare_failure_leaks_nothing);
	suite_add_tcase(s, tc);
	return s;
}

static int setup(void)
{
	failalloc_install();
	return 0;
}

int main(void)
{
	static const struct tmain_opts opts = {.setup = setup};
	return tmain(post_oom_suite, &opts);
}
