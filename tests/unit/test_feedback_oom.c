/* Out-of-memory paths of the runner's records (sandboxd/feedback/), under a
 * fault-injection allocator that makes chosen allocations fail
 * (tests/helpers/failalloc.h; the Makefile builds every test_*_oom.c with
 * it): a whole run of records, settled and rendered, leaks nothing when any
 * one of its allocations fails. The allocator's own control is in
 * test_server_post_oom.c. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"
#include "sandboxd/feedback/feedback.h"
#include "sandboxd/run/run_priv.h"
#include "tests/helpers/failalloc.h"
#include "tests/helpers/tmain.h"

#define KEY "0123456789abcdef0123456789abcdef"

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
static Suite *feedback_oom_suite(void)
{
	Suite *s = suite_create("feedback_oom");
	TCase *tc = tcase_create("oom");
	tcase_add_test(tc, test_feedback_leaks_nothing);
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
	return tmain(feedback_oom_suite, &opts);
}
