/* Integration tests of binary files and fetch_files against a real sandboxd:
 * bytes of every value go in as base64 and come back through fetch_files
 * unchanged; files survive a job killed for its time limit, come from the
 * candidate's /work under isolation "process" and from the shown run of a
 * stdio request; the fetch limit is shared by all paths in request order;
 * and the descriptor that keeps each job's /work is closed after its
 * response (the daemon's open files do not grow over many jobs), and it is
 * held however late the daemon gets to it. The hostile
 * /work layouts are tests/hostile/work_fetch_*.py. Run as root. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/base64.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"

#define TIMEOUT_S 90
#define CALL_MS 30000

/* files[path] decoded (caller frees), or NULL when it is not content. */
static unsigned char *fetched(const json_t *r, const char *path, size_t *len)
{
	const char *b = sget(json_object_get(json_object_get(r, "files"), path), "base64");
	int bad;
	return b ? b64_decode(b, strlen(b), len, &bad) : NULL;
}

static const char *fetch_error(const json_t *r, const char *path)
{
	return sget(json_object_get(json_object_get(r, "files"), path), "error");
}

START_TEST(test_round_trip_every_byte)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	unsigned char blob[256 * 4];
	for (size_t i = 0; i < sizeof blob; i++)
		blob[i] = (unsigned char)(i * 37 + 11);
	char enc[sizeof blob * 2];
	b64_encode(blob, sizeof blob, enc);
	json_t *req = job("rt", "d = open('in.bin', 'rb').read()\n"
				"open('out.bin', 'wb').write(d[::-1])\n"
				"import os\nos.makedirs('sub/deep')\n"
				"open('sub/deep/n.txt', 'w').write(str(len(d)))\n");
	json_object_set_new(req, "files", json_pack("{s:{s:s}}", "in.bin", "base64", enc));
	json_object_set_new(
	    req, "fetch_files",
	    json_pack("[s,s,s,s]", "out.bin", "sub/deep/n.txt", "in.bin", "main.py"));
	json_t *r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	size_t n;
	unsigned char *out = fetched(r, "out.bin", &n);
	CHECK_R(r, out && n == sizeof blob);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(out[i], blob[sizeof blob - 1 - i]);
	free(out);
	out = fetched(r, "sub/deep/n.txt", &n);
	CHECK_R(r, out && n == 4 && memcmp(out, "1024", 4) == 0);
	free(out);
	out = fetched(r, "in.bin", &n);
	CHECK_R(r, out && n == sizeof blob && memcmp(out, blob, n) == 0);
	free(out);
	out = fetched(r, "main.py", &n);
	CHECK_R(r, out && n > 10 && memcmp(out, "d = open(", 9) == 0);
	free(out);
	/* without fetch_files there is no "files" key */
	json_decref(r);
	r = run1(&d, job("plain", "print(1)"), CALL_MS);
	CHECK_R(r, json_object_get(r, "files") == NULL);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_killed_isolated_stdio_and_budget)
{
	struct test_daemon d;
	START(d, "--workers", "2", "--max-response-mb", "8");
	/* killed for its wall limit: what it wrote before is still there */
	json_t *req = lim(job("killed", "open('/work/a.txt', 'w').write('before')\n"
					"import time\nwhile True: time.sleep(1)\n"),
			  "wall_ms", 1500);
	json_object_set_new(req, "fetch_files", json_pack("[s]", "a.txt"));
	json_t *r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	size_t n;
	unsigned char *out = fetched(r, "a.txt", &n);
	CHECK_R(r, out && n == 6 && memcmp(out, "before", 6) == 0);
	free(out);
	json_decref(r);
	/* isolation "process": the candidate owns /work */
	req = json_pack("{s:s,s:s,s:s,s:s,s:[s],s:[s]}", "id", "iso", "code",
			"open('/work/cand.txt', 'w').write('c')\ndef f(x):\n    return x\n",
			"format", "asserts", "isolation", "process", "tests", "assert f(1) == 1",
			"fetch_files", "cand.txt");
	r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	out = fetched(r, "cand.txt", &n);
	CHECK_R(r, out && n == 1 && out[0] == 'c');
	free(out);
	json_decref(r);
	/* stdio: the files of the run the response shows (the failing case) */
	req = json_pack("{s:s,s:s,s:s,s:[{s:s,s:s},{s:s,s:s}],s:[s]}", "id", "io", "code",
			"x = input()\nopen('/work/last.txt', 'w').write(x)\nprint(x)\n", "format",
			"stdio", "tests", "input", "1\n", "output", "1\n", "input", "2\n", "output",
			"3\n", "fetch_files", "last.txt");
	r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "fail"));
	out = fetched(r, "last.txt", &n);
	CHECK_R(r, out && n == 1 && out[0] == '2');
	free(out);
	json_decref(r);
	/* the budget (a quarter of 8 MiB) is shared, in request order */
	req = lim(job("budget", "for n in 'abc':\n    open(n, 'wb').write(b'z' * (900 << 10))\n"),
		  "memory_mb", 256);
	json_object_set_new(req, "fetch_files", json_pack("[s,s,s]", "a", "b", "c"));
	r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	out = fetched(r, "a", &n);
	CHECK_R(r, out && n == 900 << 10);
	free(out);
	out = fetched(r, "b", &n);
	CHECK_R(r, out && n == 900 << 10);
	free(out);
	CHECK_R(r, fetch_error(r, "c") && strstr(fetch_error(r, "c"), "more than"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* Each kept /work is an open descriptor until the response is built: none
 * may stay behind. */
START_TEST(test_work_descriptors_closed)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	/* The fork servers' channels are open once they are ready. */
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	struct sbx_conn *c = conn_open(&d);
	json_decref(ping(c, "warm"));
	/* Once ready, each server's pooled network namespace (its fd and the
	 * files of its snapshot) is made while the slot is idle: the count is
	 * taken once it has held still for half a second. */
	int before = tproc_fd_count_settled(d.pid, 500, 20000);
	ck_assert_int_gt(before, 0);
	for (int i = 0; i < 15; i++) {
		char id[16];
		snprintf(id, sizeof id, "j%d", i);
		json_t *req = job(id, "open('o', 'w').write('x')\n");
		json_object_set_new(req, "fetch_files", json_pack("[s,s]", "o", "missing"));
		if (i % 3 == 0) { /* killed for its limit: the descriptor is closed too */
			lim(req, "wall_ms", 300);
			json_object_set_new(req, "code", json_string("while 1: pass"));
		}
		json_t *r = call(c, req, CALL_MS);
		CHECK_R(r, json_is_object(json_object_get(r, "files")));
		json_decref(r);
	}
	/* After the last answer the slots prepare their next jobs (a pid 1's
	 * pidfd, a cgroup made ahead, a tree being freed): counted, like
	 * `before`, once the count holds still. A kept /work left open stays. */
	int after = tproc_fd_count_settled(d.pid, 500, 20000);
	ck_assert_msg(after <= before + 2, "daemon descriptors %d -> %d over 15 fetch jobs", before,
		      after);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* A job that writes /work and ends at once, while the daemon is starved of
 * CPU (niced to 19 beside two busy loops): the daemon reads the job's
 * messages long after the job is gone, and its /work must still come back.
 * The daemon once opened /work through the job's /proc entry when it read
 * them, and lost the files of every job that had already ended. */
START_TEST(test_work_kept_when_daemon_lags)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	char tp[64];
	snprintf(tp, sizeof tp, "/proc/%d/task", (int)d.pid);
	DIR *dir = opendir(tp);
	ck_assert_ptr_nonnull(dir);
	for (struct dirent *e; (e = readdir(dir));)
		if (e->d_name[0] != '.')
			ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)atoi(e->d_name), 19), 0);
	closedir(dir);
	pid_t hog[2];
	for (int i = 0; i < 2; i++) {
		ck_assert_int_ge(hog[i] = fork(), 0);
		if (hog[i] == 0) {
			alarm(120);
			for (volatile unsigned long n = 0;; n++)
				;
		}
	}
	struct sbx_conn *c = conn_open(&d);
	int lost = 0;
	char lost_why[200] = "";
	for (int i = 0; i < 12; i++) {
		char id[16];
		snprintf(id, sizeof id, "q%d", i);
		json_t *req = job(id, "open('o', 'w').write('kept')\n");
		json_object_set_new(req, "fetch_files", json_pack("[s]", "o"));
		json_t *r = call(c, req, CALL_MS);
		size_t n = 0;
		unsigned char *out = fetched(r, "o", &n);
		if (!out || n != 4 || memcmp(out, "kept", 4) != 0) {
			lost++;
			snprintf(lost_why, sizeof lost_why, "%s",
				 fetch_error(r, "o") ? fetch_error(r, "o") : "no files");
		}
		free(out);
		json_decref(r);
	}
	for (int i = 0; i < 2; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	ck_assert_msg(lost == 0, "%d of 12 quick jobs lost /work: %s", lost, lost_why);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *fetch_suite(void)
{
	Suite *s = suite_create("daemon_fetch");
	TCase *t = tmain_tcase(s, "fetch", TIMEOUT_S);
	tcase_add_test(t, test_round_trip_every_byte);
	tcase_add_test(t, test_killed_isolated_stdio_and_budget);
	tcase_add_test(t, test_work_descriptors_closed);
	tcase_add_test(t, test_work_kept_when_daemon_lags);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-integ"};
	return tmain(fetch_suite, &opts);
}
