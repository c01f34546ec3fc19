/* Integration tests of the request field "timing" against a real sandboxd:
 * the response carries "timing" only when asked; every key is one the
 * protocol defines for the kind of request (plain, test, stdio); values are
 * non-negative integers whose phases add up to at most total_us, itself at
 * most the round trip the client measured; a phase whose end the daemon did
 * not see (a job killed for its wall limit) is absent. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000

static const char *const phases[] = {TM_ACCEPT_US,
				     TM_QUEUE_US,
				     TM_SETUP_HOST_US,
				     TM_FORK_US,
				     TM_SETUP_JAIL_US,
				     TM_START_US,
				     TM_USER_CODE_US,
				     TM_TESTS_US,
				     TM_EXIT_US,
				     TM_RUN_US,
				     TM_TEARDOWN_US,
				     TM_RESPONSE_US,
				     NULL};

static bool has(const json_t *r, const char *key)
{
	return json_object_get(json_object_get(r, F_TIMING), key) != NULL;
}

/* Sends req (consumed) with "timing": true and checks what holds for every
 * timed response; *wall_us gets the round trip the client saw. */
static json_t *timed(struct sbx_conn *c, json_t *req, long long *wall_us)
{
	json_object_set_new(req, F_TIMING, json_true());
	long long t0 = td_now_ms();
	json_t *r = call(c, req, CALL_MS);
	*wall_us = (td_now_ms() - t0 + 1) * 1000;
	json_t *o = json_object_get(r, F_TIMING), *v;
	CHECK_R(r, json_is_object(o));
	const char *k;
	json_int_t sum = 0;
	json_object_foreach(o, k, v)
	{
		bool known = strcmp(k, TM_TOTAL_US) == 0 || strcmp(k, TM_RUNS) == 0;
		for (int i = 0; phases[i] && !known; i++)
			known = strcmp(k, phases[i]) == 0;
		CHECK_RM(r, known, "timing has a key the protocol does not define: %s", k);
		CHECK_RM(r, json_is_integer(v) && json_integer_value(v) >= 0,
			 "timing.%s is not a non-negative integer", k);
		if (strcmp(k, TM_TOTAL_US) != 0 && strcmp(k, TM_RUNS) != 0)
			sum += json_integer_value(v);
	}
	json_int_t total = iget(o, TM_TOTAL_US);
	CHECK_R(r, total >= 0);
	CHECK_RM(r, sum <= total, "the phases add up to %lld us, more than total_us",
		 (long long)sum);
	CHECK_RM(r, total <= *wall_us, "total_us is more than the client's round trip, %lld us",
		 *wall_us);
	/* Always seen: the daemon's own instants around the run. */
	CHECK_R(r, has(r, TM_ACCEPT_US) && has(r, TM_QUEUE_US) && has(r, TM_SETUP_HOST_US) &&
		       has(r, TM_RESPONSE_US) && iget(o, TM_RUNS) >= 1);
	return r;
}

START_TEST(test_timing_only_when_asked)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(c, job("plain", "pass"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, json_object_get(r, F_TIMING) == NULL);
	json_decref(r);
	json_t *req = job("off", "pass");
	json_object_set_new(req, F_TIMING, json_false());
	r = call(c, req, CALL_MS);
	CHECK_R(r, json_object_get(r, F_TIMING) == NULL);
	json_decref(r);
	req = job("bad", "pass");
	json_object_set_new(req, F_TIMING, json_integer(1));
	r = call(c, req, CALL_MS);
	CHECK_R(r, streq(errcode(r), "bad_request"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_timing_plain_run)
{
	struct test_daemon d;
	long long wall;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = timed(c, job("p", "import time\ntime.sleep(0.05)"), &wall);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget2(r, F_TIMING, TM_RUNS) == 1);
	CHECK_R(r, has(r, TM_TEARDOWN_US));
	/* The listener marks the exec; without a notifying filter neither
	 * half around it is known. */
	CHECK_R(r, has(r, TM_SETUP_JAIL_US) == has(r, TM_RUN_US));
	if (has(r, TM_RUN_US))
		CHECK_R(r, iget2(r, F_TIMING, TM_RUN_US) >= 50000);
	CHECK_R(r, !has(r, TM_START_US) && !has(r, TM_USER_CODE_US) && !has(r, TM_TESTS_US) &&
		       !has(r, TM_EXIT_US));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_timing_test_request)
{
	struct test_daemon d;
	long long wall;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *req = json_pack(
	    "{s:s,s:s,s:s,s:s,s:s}", "id", "he", "code",
	    "import time\ntime.sleep(0.03)\ndef f(x):\n    return x\n", "format", "humaneval",
	    "tests", "import time\ndef check(c):\n    time.sleep(0.04)\n    assert c(1) == 1\n",
	    "entry_point", "f");
	json_t *r = timed(c, req, &wall);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, has(r, TM_START_US) && has(r, TM_EXIT_US) && has(r, TM_TEARDOWN_US));
	CHECK_R(r, iget2(r, F_TIMING, TM_USER_CODE_US) >= 30000);
	CHECK_R(r, iget2(r, F_TIMING, TM_TESTS_US) >= 40000);
	CHECK_R(r, !has(r, TM_RUN_US));
	json_decref(r);
	/* stdio: the compile step and each case, summed. */
	req = json_pack("{s:s,s:s,s:s,s:[{s:s,s:s},{s:s,s:s}]}", "id", "io", "code",
			"print(input())", "format", "stdio", "tests", "input", "1\n", "output", "1",
			"input", "2\n", "output", "2");
	r = timed(c, req, &wall);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget2(r, F_TIMING, TM_RUNS) == 3);
	CHECK_R(r, has(r, TM_START_US) && has(r, TM_TEARDOWN_US));
	CHECK_R(r, has(r, TM_SETUP_JAIL_US) == has(r, TM_RUN_US));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* A warm job reports itself forked as soon as it runs, which may be before
 * the daemon's send of its descriptors returns: every one of 40 trivial
 * warm jobs has its fork phase (a "go" stamped after the send made about
 * one in six lose it: out of order, counted as not seen). */
START_TEST(test_timing_warm_fork_seen)
{
	struct test_daemon d;
	long long wall;
	START(d, "--workers", "1");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	struct sbx_conn *c = conn_open(&d);
	int warm = 0, seen = 0;
	for (int i = 0; i < 40; i++) {
		json_t *r = timed(c, job("w", "pass"), &wall);
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		if (streq(sget(r, "path"), "warm")) {
			warm++;
			seen += has(r, TM_FORK_US);
		}
		json_decref(r);
	}
	ck_assert_msg(warm >= 30, "only %d of 40 jobs ran warm", warm);
	ck_assert_msg(seen == warm, "%d of %d warm jobs without %s", warm - seen, warm, TM_FORK_US);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* Killed for its wall limit: the init reports no exit, so the run and the
 * teardown are left out, not made up. */
START_TEST(test_timing_killed_job)
{
	struct test_daemon d;
	long long wall;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = timed(c, lim(job("w", "import time\ntime.sleep(30)"), "wall_ms", 300), &wall);
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	CHECK_R(r, !has(r, TM_RUN_US) && !has(r, TM_TEARDOWN_US));
	CHECK_R(r, iget2(r, F_TIMING, TM_TOTAL_US) >= 300000);
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *timing_suite(void)
{
	Suite *s = suite_create("daemon_timing");
	TCase *t = tcase_create("timing");
	tcase_set_timeout(t, TIMEOUT_S);
	tcase_add_test(t, test_timing_only_when_asked);
	tcase_add_test(t, test_timing_plain_run);
	tcase_add_test(t, test_timing_test_request);
	tcase_add_test(t, test_timing_killed_job);
	tcase_add_test(t, test_timing_warm_fork_seen);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .tmpdir = "sbx-integ",
					       .setup = tprofile_load,
					       .teardown = tprofile_free};
	return tmain(timing_suite, &opts);
}
