/* Integration tests of libsbx's `busy` retry (client/lib/sbx.c, struct
 * sbx_retry) against real daemons with a tiny --queue:
 *   - a client pipelining many more jobs than the queue holds gets every
 *     result exactly once (matched by id, the right output for each), and
 *     no `busy` reaches it; the same client with retries off sees `busy`
 *     (the control: the scenario does refuse, so the first can fail);
 *   - `sbx run` waits out a full queue, and a refused connection (the
 *     daemon at --max-connections); with --busy-retry 0 it fails `busy`;
 *   - `sbx eval` over shared HumanEval tasks with more --jobs than the
 *     daemon's queue and workers completes with every turn recorded once;
 *     with retries off it stops on `busy`.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/eval/eval.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/datasets.h"
#include "tests/helpers/evalenv.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define NJOBS 24
#define CALL_MS 120000

/* Short delays so the test is quick; the defaults are for real loads. */
static const struct sbx_retry FAST = {.base_ms = 5, .max_ms = 100, .total_ms = 120000};

/* Pipelines NJOBS jobs on one connection, then reads NJOBS responses:
 * returns how many were `busy`; every other one must be its job's own
 * result, each id once, and nothing may follow. */
static int pipeline(const struct test_daemon *d, const struct sbx_retry *r, unsigned long *retries)
{
	struct sbx_conn *c = conn_open(d);
	sbx_set_retry(c, r);
	char id[32], code[64], err[512];
	for (int i = 0; i < NJOBS; i++) {
		snprintf(id, sizeof id, "p%d", i);
		snprintf(code, sizeof code, "print(%d * 7)", i);
		submit(c, job(id, code));
	}
	int seen[NJOBS] = {0}, busy = 0;
	for (int k = 0; k < NJOBS; k++) {
		json_t *resp = sbx_next(c, CALL_MS, err, sizeof err);
		ck_assert_msg(resp, "response %d of %d: %s", k + 1, NJOBS, err);
		const char *rid = sget(resp, "id");
		int i = -1;
		CHECK_R(resp, rid && sscanf(rid, "p%d", &i) == 1 && i >= 0 && i < NJOBS);
		CHECK_RM(resp, seen[i]++ == 0, "a second response for %s", rid);
		json_t *e = json_object_get(resp, "error");
		if (e) {
			CHECK_R(resp, strcmp(sget(e, "code"), "busy") == 0);
			busy++;
		} else {
			char want[32];
			snprintf(want, sizeof want, "%d\n", i * 7);
			CHECK_R(resp, strcmp(sget(resp, "verdict"), "pass") == 0);
			CHECK_RM(resp, strcmp(sget(resp, "stdout"), want) == 0, "not %s's result",
				 rid);
		}
		json_decref(resp);
	}
	/* Nothing more: no retried job ran, and answered, twice. */
	json_t *extra = sbx_next(c, 1500, err, sizeof err);
	CHECK_RM(extra, extra == NULL, "%s", "a response beyond one per request");
	*retries = sbx_busy_retries(c);
	sbx_close(c);
	return busy;
}

START_TEST(test_pipelined_exactly_once)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--queue", "2");
	unsigned long retries = 0;
	int busy = pipeline(&d, &FAST, &retries);
	ck_assert_msg(busy == 0, "%d busy answers reached the client", busy);
	ck_assert_msg(retries > 0, "the queue of 2 never refused %d pipelined jobs", NJOBS);
	/* The control, same daemon: with retries off, busy is what it gets. */
	struct sbx_retry off = FAST;
	off.total_ms = 0;
	busy = pipeline(&d, &off, &retries);
	ck_assert_msg(busy > 0 && retries == 0, "busy %d, retries %lu without retrying", busy,
		      retries);
	fprintf(stderr, "pipelined %d jobs through --queue 2: %d busy without retry\n", NJOBS,
		busy);
	stop_ok(&d);
}
END_TEST

/* sbx CLI with args; its exit status, stdout+stderr in out. */
static int sbx_cli(const char *args, char *out, size_t outlen)
{
	char cmd[1024], path[] = "/tmp/sbx-retry-out-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "%s/sbx %s >%s 2>&1", td_build_dir(), args, path);
	int st = system(cmd);
	size_t n;
	char *s = sbx_read_file(path, 1 << 20, &n, NULL, 0);
	snprintf(out, outlen, "%s", s ? s : "");
	free(s);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Pings until the daemon has this many jobs queued and running. */
static void wait_counts(struct sbx_conn *pc, int queued, int running)
{
	long long deadline = td_now_ms() + 10000;
	json_t *p;
	for (;;) {
		p = ping(pc, "ping");
		if ((iget(p, "queued") == queued && iget(p, "running") == running) ||
		    td_now_ms() > deadline)
			break;
		json_decref(p);
		td_sleep_ms(10);
	}
	CHECK_R(p, iget(p, "queued") == queued && iget(p, "running") == running);
	json_decref(p);
}

START_TEST(test_cli_run_waits_out_a_full_queue)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--queue", "1");
	/* One job running and one waiting: the queue is full for about 1.2 s. */
	struct sbx_conn *c = conn_open(&d), *pc = conn_open(&d);
	submit(c, job("a", "import time\ntime.sleep(0.6)"));
	wait_counts(pc, 0, 1);
	submit(c, job("b", "import time\ntime.sleep(0.6)"));
	wait_counts(pc, 1, 1);
	char args[600], out[4096];
	char code[] = "/tmp/sbx-retry-code-XXXXXX";
	int fd = mkstemp(code);
	ck_assert(fd >= 0 && write(fd, "print('through')\n", 17) == 17);
	close(fd);
	snprintf(args, sizeof args, "--socket %s --busy-retry 0 run %s", d.sock, code);
	int rc = sbx_cli(args, out, sizeof out);
	ck_assert_msg(rc == 4 && strstr(out, "\"busy\""), "--busy-retry 0: exit %d: %s", rc, out);
	long long t0 = td_now_ms();
	snprintf(args, sizeof args, "--socket %s run %s", d.sock, code);
	rc = sbx_cli(args, out, sizeof out);
	ck_assert_msg(rc == 0 && strstr(out, "through\\n") && !strstr(out, "busy"),
		      "retrying: exit %d: %s", rc, out);
	fprintf(stderr, "sbx run waited %lld ms for room in the queue\n", td_now_ms() - t0);
	unlink(code);
	char err[512];
	for (int k = 0; k < 2; k++) {
		json_t *r = sbx_next(c, CALL_MS, err, sizeof err);
		ck_assert_msg(r, "%s", err);
		CHECK_R(r, strcmp(sget(r, "verdict"), "pass") == 0);
		json_decref(r);
	}
	sbx_close(c);
	sbx_close(pc);
	stop_ok(&d);
}
END_TEST

/* A refused connection, seen from a raw client: its first request sent,
 * the refusal read, a retry sent on the same connection must fail (EPIPE)
 * and the connection then end cleanly. Before the daemon shut the read
 * side ahead of its answer, a retry sent between the answer and the close
 * was taken, then the close reset the connection: the client saw
 * ECONNRESET instead of the refusal (sbx run failed with "closed the
 * connection" under TSan, where the daemon is slow enough to hit it). */
static void refused_takes_nothing(const struct test_daemon *d)
{
	static const char req[] = "{\"id\":\"r\",\"code\":\"print(1)\"}\n";
	int fd = td_raw_connect(d->sock);
	ck_assert_int_ge(fd, 0);
	/* The daemon may have refused before this arrives: then it fails. */
	ssize_t w = send(fd, req, sizeof req - 1, MSG_NOSIGNAL);
	ck_assert_msg(w == (ssize_t)(sizeof req - 1) || (w < 0 && errno == EPIPE), "send: %s",
		      strerror(errno));
	char buf[1024];
	size_t n = 0;
	while (n < sizeof buf - 1 && !memchr(buf, '\n', n)) {
		ssize_t r = recv(fd, buf + n, sizeof buf - 1 - n, 0);
		ck_assert_msg(r > 0, "no refusal line: %s", r < 0 ? strerror(errno) : "EOF");
		n += (size_t)r;
	}
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "\"busy\"") && strstr(buf, "\"id\":null"), "refusal: %s", buf);
	/* At once, as a retrying client would. */
	w = send(fd, req, sizeof req - 1, MSG_NOSIGNAL);
	int we = errno;
	ck_assert_msg(w < 0 && we == EPIPE, "a retry on the refused connection: %zd (%s)", w,
		      w < 0 ? strerror(we) : "taken");
	ssize_t r = recv(fd, buf, sizeof buf, 0);
	ck_assert_msg(r == 0, "after the refusal: %zd (%s)", r, r < 0 ? strerror(errno) : "data");
	close(fd);
}

/* A daemon at --max-connections refuses the connection itself (`busy`
 * without an id, then closed): `sbx run` connects again, within the same
 * bound, until there is room. */
START_TEST(test_cli_run_reconnects_when_refused)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--max-connections", "1");
	struct sbx_conn *hold = conn_open(&d);
	json_decref(ping(hold, "hold")); /* the daemon's one connection is taken */
	refused_takes_nothing(&d);
	char code[] = "/tmp/sbx-retry-code-XXXXXX";
	int fd = mkstemp(code);
	ck_assert(fd >= 0 && write(fd, "print('through')\n", 17) == 17);
	close(fd);
	char args[600], out[4096];
	snprintf(args, sizeof args, "--socket %s --busy-retry 0 run %s", d.sock, code);
	int rc = sbx_cli(args, out, sizeof out);
	ck_assert_msg(rc == 4 && strstr(out, "\"busy\""), "--busy-retry 0: exit %d: %s", rc, out);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s/sbx --socket %s run %s 2>&1", td_build_dir(), d.sock, code);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	td_sleep_ms(700); /* refused a few times meanwhile */
	sbx_close(hold);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "through\\n"),
		      "after the connection was freed: status %d: %s", st, out);
	unlink(code);
	stop_ok(&d);
}
END_TEST

#define EVAL_TASKS 6

/* sbx eval over the first EVAL_TASKS HumanEval tasks with canonical_gen.py
 * (wrong at turn 0, canonical from turn 1), 5 jobs at a daemon with one
 * worker and a queue of 1: most requests are refused at first. */
static int eval_small_queue(struct env *e, const struct sbx_retry *r, const char *out, char *err,
			    size_t errlen)
{
	static char ids[EVAL_TASKS * 24];
	static const char *tasks[EVAL_TASKS];
	for (int i = 0; i < EVAL_TASKS; i++) {
		snprintf(ids + i * 24, 24, "HumanEval/%d", i);
		tasks[i] = ids + i * 24;
	}
	struct eval_opts o;
	eval_opts_default(&o);
	static char gen[1200];
	snprintf(gen, sizeof gen, "python3 tests/eval/canonical_gen.py %s",
		 tds_path("HumanEval.jsonl.gz"));
	o.socket = e->d.sock;
	o.dataset = tds_path("HumanEval.jsonl.gz");
	o.format = DS_HUMANEVAL;
	o.generator = gen;
	o.settings[0] = "CF_EF_FULL";
	o.nsettings = 1;
	o.turns = 1;
	o.jobs = 5;
	o.tasks = tasks;
	o.ntasks = EVAL_TASKS;
	o.out_dir = out;
	o.progress = false;
	o.retry = *r;
	return eval_run(&o, err, errlen);
}

START_TEST(test_eval_small_queue)
{
	NEED_DATASET("HumanEval.jsonl.gz");
	struct env e;
	memset(&e, 0, sizeof e);
	START(e.d, "--workers", "1", "--queue", "1");
	snprintf(e.dir, sizeof e.dir, "/tmp/sbx-retry-eval-XXXXXX");
	ck_assert(mkdtemp(e.dir));
	char err[1024] = "";
	long long t0 = td_now_ms();
	int rc = eval_small_queue(&e, &FAST, sub(&e, "retry"), err, sizeof err);
	ck_assert_msg(rc == 0, "sbx eval with a queue of 1: %s", err);
	fprintf(stderr, "sbx eval, %d HumanEval tasks x 2 turns, 5 jobs, --queue 1: %lld ms\n",
		EVAL_TASKS, td_now_ms() - t0);
	json_t *recs = load_turns(sub(&e, "retry"));
	ck_assert_uint_eq(json_array_size(recs), 2 * EVAL_TASKS);
	char id[32];
	for (int i = 0; i < EVAL_TASKS; i++) {
		snprintf(id, sizeof id, "HumanEval/%d", i);
		ck_assert_uint_eq(count(recs, "CF_EF_FULL", id, 0), 1);
		ck_assert_uint_eq(count(recs, "CF_EF_FULL", id, 1), 1);
		json_t *r0 = rec(recs, "CF_EF_FULL", id, 0), *r1 = rec(recs, "CF_EF_FULL", id, 1);
		CHECK_R(r0, !json_object_get(r0, "daemon_error"));
		CHECK_R(r1, strcmp(sget(r1, "verdict"), "pass") == 0);
	}
	json_decref(recs);
	/* The control: without retries the same run stops on busy. */
	struct sbx_retry off = FAST;
	off.total_ms = 0;
	rc = eval_small_queue(&e, &off, sub(&e, "noretry"), err, sizeof err);
	ck_assert_msg(rc != 0 && strstr(err, "busy"), "without retries: rc %d: %s", rc, err);
	env_end(&e);
}
END_TEST

static Suite *client_retry_suite(void)
{
	Suite *s = suite_create("client_retry");
	TCase *t = tmain_tcase(s, "retry", 120);
	tcase_add_test(t, test_pipelined_exactly_once);
	tcase_add_test(t, test_cli_run_waits_out_a_full_queue);
	tcase_add_test(t, test_cli_run_reconnects_when_refused);
	tcase_add_test(t, test_eval_small_queue);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-retry"};
	return tmain(client_retry_suite, &opts);
}
