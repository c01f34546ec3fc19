/* Out-of-memory paths, under a fault-injection allocator that makes chosen
 * allocations fail (tests/helpers/failalloc.h):
 * - a finished job is always answered: posting needs no allocation, so a
 *   connection's pending count always gets back to zero;
 * - feedback parsing leaks nothing when any one of its allocations fails. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/protocol.h"
#include "sandboxd/feedback/feedback.h"
#include "sandboxd/run/run_priv.h"
#include "sandboxd/server/post.h"
#include "tests/helpers/failalloc.h"

#define KEY "0123456789abcdef0123456789abcdef"

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

static void feed(struct fb_run *f, const char *body)
{
	char line[512];
	snprintf(line, sizeof line, "{\"key\":\"%s\",%s}", KEY, body);
	fb_on_record(f, line, strlen(line), 1);
}

/* One whole run of records, settled and rendered. */
static void feedback_run(void)
{
	static const char *const records[] = {
	    "\"type\":\"compile\",\"ok\":true,\"errors\":[],\"feedback\":\"\"",
	    "\"type\":\"plan\",\"tests\":[\"t1\",\"t2\",\"t3\"]",
	    "\"type\":\"start\",\"name\":\"t1\"",
	    "\"type\":\"result\",\"name\":\"t1\",\"outcome\":\"passed\",\"message\":\"\","
	    "\"traceback\":\"\",\"duration_ms\":3",
	    "\"type\":\"start\",\"name\":\"t2\"",
	    "\"type\":\"result\",\"name\":\"t2\",\"outcome\":\"failed\",\"message\":\"m\","
	    "\"traceback\":\"Traceback: AssertionError\",\"duration_ms\":4",
	    "\"type\":\"start\",\"name\":\"t3\"",
	    NULL};
	struct fb_run f;
	fb_init(&f, KEY, 0);
	for (int i = 0; records[i]; i++)
		feed(&f, records[i]);
	/* A test the daemon adds itself (a stdio case), with its texts. */
	(void)fb_add_test(&f, "case 1", OUT_FAILED, "wrong answer", "Input:\n1\n", 5);
	char msg[256] = "";
	(void)verdict_records(&f, V_RUNTIME_ERROR, false, msg, sizeof msg);
	struct proto_request req;
	memset(&req, 0, sizeof req);
	req.coverage = COV_FULL;
	json_t *resp = json_object();
	if (resp)
		fb_to_json(&f, &req, resp);
	char *text = fb_execution_text(&f, COV_FULL, 0);
	free(text);
	json_decref(resp);
	fb_free(&f);
}

/* Every single allocation of a whole feedback run, made to fail in turn:
 * whatever it costs (a lost record, a missing field), nothing leaks. */
START_TEST(test_feedback_leaks_nothing)
{
	long base = failalloc_live();
	failalloc_reset_count();
	feedback_run();
	long total = failalloc_count();
	ck_assert_int_eq(failalloc_live(), base);
	ck_assert_int_gt(total, 10);
	for (long n = 0; n < total; n++) {
		failalloc_fail_at(n, 1);
		feedback_run();
		failalloc_off();
		ck_assert_msg(failalloc_live() == base,
			      "allocation %ld of %ld failing leaked %ld block(s)", n, total,
			      failalloc_live() - base);
	}
}
END_TEST

int main(void)
{
	failalloc_install();
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("oom");
	tcase_add_test(tc, test_allocator_fails_when_armed);
	tcase_add_test(tc, test_post_needs_no_memory);
	tcase_add_test(tc, test_prepare_failure_leaks_nothing);
	tcase_add_test(tc, test_feedback_leaks_nothing);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
