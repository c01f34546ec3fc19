/* Integration tests: a real sandboxd (tests/helpers/daemon.c starts one per
 * test, on its own socket, state dir and uid range) driven through libsbx or
 * a raw socket, asserting on the response JSON. Run as root from the
 * repository root (make integration). */
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one response may take */

/* The default profile (policies/python.json): its limits.default and limits.max. */
static json_t *g_defaults, *g_max;

/* --- daemon and connection helpers --------------------------------------- */

/* One job on a fresh connection. */
static json_t *run1(const struct test_daemon *d, json_t *req)
{
	struct sbx_conn *c = conn_open(d);
	json_t *r = call(c, req, CALL_MS);
	sbx_close(c);
	return r;
}

static uid_t uid_lo(const struct test_daemon *d)
{
	return d->uid_base;
}

static uid_t uid_hi(const struct test_daemon *d)
{
	return d->uid_base + (uid_t)d->workers - 1;
}

static void assert_no_job_procs(const struct test_daemon *d, int within_ms, const char *when)
{
	char desc[1024];
	int n = td_wait_no_uid_procs(uid_lo(d), uid_hi(d), within_ms, desc, sizeof desc);
	ck_assert_msg(n == 0, "%s: %d process(es) with uid in [%u, %u] remain after %d ms: %s",
		      when, n, (unsigned)uid_lo(d), (unsigned)uid_hi(d), within_ms, desc);
}

/* How the response says `limit` was enforced ("cgroup v2", "RLIMIT_AS", ...);
 * true when by a cgroup. A daemon on rlimits (--no-cgroups, for example
 * through SBX_TEST_DAEMON_ARGS) has no cgroup counters: behaviour that only
 * a cgroup gives is then a skip, with this as the reason. */
static bool cgroup_enforces(const json_t *r, const char *limit, char *why, size_t len)
{
	const char *by = sget(json_object_get(r, "enforcement"), limit);
	if (by && strncmp(by, "cgroup", 6) == 0)
		return true;
	snprintf(why, len, "this daemon enforces %s with %s, not a cgroup (enforcement.%s)", limit,
		 by ? by : "(nothing reported)", limit);
	return false;
}

/* Ends a test whose subject needs a cgroup when the response r says the
 * daemon has none: frees r, stops the daemon, reports the skip. */
#define SKIP_UNLESS_CGROUP(r, limit, d, what)                                                      \
	do {                                                                                       \
		char why_[256];                                                                    \
		if (!cgroup_enforces((r), (limit), why_, sizeof why_)) {                           \
			json_decref(r);                                                            \
			stop_ok(&(d));                                                             \
			SKIP_TEST("%s needs a cgroup: %s", (what), why_);                          \
		}                                                                                  \
	} while (0)

/* --- 1-3: plain jobs ------------------------------------------------------ */

START_TEST(test_hello_world)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *r = run1(&d, job("hello", "print(42)"));
	CHECK_R(r, streq(sget(r, "id"), "hello"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget(r, "exit_code") == 0);
	CHECK_R(r, json_is_null(json_object_get(r, "signal")));
	CHECK_R(r, streq(sget(r, "stdout"), "42\n"));
	CHECK_R(r, streq(sget(r, "stderr"), ""));
	CHECK_R(r, json_is_false(json_object_get(r, "stdout_truncated")));
	CHECK_R(r, json_is_false(json_object_get(r, "stderr_truncated")));
	CHECK_R(r, json_is_null(json_object_get(r, "limit_hit")));
	CHECK_R(r, json_is_null(json_object_get(r, "violation")));
	CHECK_R(r, iget2(r, "usage", "cpu_ms") > 0);
	CHECK_R(r, iget2(r, "usage", "wall_ms") > 0);
	CHECK_R(r, iget2(r, "usage", "memory_kb") > 0);
	/* Limits not given are the profile's defaults, all six reported. */
	json_t *l = json_object_get(r, "limits");
	CHECK_R(r, json_is_object(l) && json_object_size(l) == PROTO_NLIMITS);
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		const char *n = proto_limit_names[i];
		CHECK_RM(r, iget(l, n) == iget(g_defaults, n), "limits.%s is %lld, default %lld", n,
			 (long long)iget(l, n), (long long)iget(g_defaults, n));
	}
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_exit_code)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d, job("exit3", "import sys\nprint('before')\nsys.exit(3)"));
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, iget(r, "exit_code") == 3);
	CHECK_R(r, json_is_null(json_object_get(r, "signal")));
	CHECK_R(r, streq(sget(r, "stdout"), "before\n"));
	CHECK_R(r, json_is_null(json_object_get(r, "limit_hit")));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_exception)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d, job("exc", "raise ValueError('boom')\n"));
	const char *err = sget(r, "stderr");
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, iget(r, "exit_code") == 1);
	CHECK_R(r, err && strstr(err, "ValueError: boom"));
	CHECK_R(r, err && strstr(err, "main.py"));
	CHECK_R(r, err && strstr(err, "line 1"));
	CHECK_R(r, streq(sget(r, "stdout"), ""));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 4-9: limits ----------------------------------------------------------- */

START_TEST(test_cpu_limit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	long long t0 = td_now_ms();
	json_t *r = run1(&d, lim(job("cpu", "while True:\n    pass\n"), "cpu_ms", 1000));
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "cpu"));
	CHECK_R(r, iget2(r, "usage", "cpu_ms") >= 1000);
	CHECK_R(r, iget2(r, "usage", "cpu_ms") < 3000);
	/* Killed on CPU, not by the (default 20 s) wall clock. */
	CHECK_R(r, iget2(r, "limits", "wall_ms") == iget(g_defaults, "wall_ms"));
	CHECK_R(r, iget2(r, "usage", "wall_ms") < 4000);
	CHECK_RM(r, took < 5000, "the response took %lld ms", took);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_wall_limit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	long long t0 = td_now_ms();
	json_t *r = run1(&d, lim(job("wall", "import time\ntime.sleep(100)\n"), "wall_ms", 1000));
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "wall"));
	CHECK_R(r, iget2(r, "usage", "wall_ms") >= 1000);
	CHECK_R(r, iget2(r, "usage", "cpu_ms") < 1000);
	CHECK_RM(r, took < 3000, "the response took %lld ms", took);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_memory_limit)
{
	static const char *const hogs[] = {
	    "b = bytearray(600 * 1024 * 1024)\nprint(len(b))\n",
	    "chunks = []\nfor i in range(100):\n    chunks.append(bytearray(10 << 20))\n"
	    "print(len(chunks))\n",
	};
	struct test_daemon d;
	START(d, "--workers", "1");
	for (int i = 0; i < 2; i++) {
		char id[16];
		snprintf(id, sizeof id, "mem%d", i);
		json_t *r = run1(&d, lim(job(id, hogs[i]), "memory_mb", 100));
		SKIP_UNLESS_CGROUP(r, "memory_mb", d,
				   "a memory_limit verdict (read from the cgroup's OOM counter)");
		CHECK_R(r, streq(sget(r, "verdict"), "memory_limit"));
		CHECK_R(r, streq(sget(r, "limit_hit"), "memory"));
		CHECK_R(r, streq(sget(r, "stdout"), ""));
		json_int_t kb = iget2(r, "usage", "memory_kb");
		CHECK_RM(r, kb > 0 && kb <= 100 * 1024 * 105 / 100, "memory_kb %lld",
			 (long long)kb);
		json_decref(r);
	}
	stop_ok(&d);
}
END_TEST

START_TEST(test_fork_bomb)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req = job("bomb", "import os\nwhile True:\n    try:\n        os.fork()\n"
				  "    except OSError:\n        pass\n");
	json_t *r = run1(&d, lim(lim(req, "pids", 16), "wall_ms", 3000));
	const char *v = sget(r, "verdict");
	CHECK_R(r, streq(v, "timeout") || streq(v, "memory_limit") || streq(v, "runtime_error"));
	CHECK_R(r, json_is_string(json_object_get(r, "limit_hit")));
	CHECK_R(r, iget2(r, "limits", "pids") == 16);
	assert_no_job_procs(&d, 1000, "after the fork bomb's response");
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_output_flood)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	const char *req = "{\"id\":\"flood\",\"limits\":{\"output_kb\":1024},\"code\":"
			  "\"import sys\\nb = b'x' * 65536\\nfor i in range(1600):\\n"
			  "    sys.stdout.buffer.write(b)\\n\"}\n";
	ck_assert_int_eq(td_raw_send(fd, req, strlen(req)), 0);
	size_t n = 0;
	char *line = td_raw_read_line(fd, CALL_MS, &n, NULL);
	ck_assert_msg(line != NULL, "no response line");
	ck_assert_msg(n < 3u << 20, "response line is %zu bytes", n);
	json_error_t je;
	json_t *r = json_loadb(line, n, 0, &je);
	ck_assert_msg(r != NULL, "response is not JSON: %s", je.text);
	const char *out = sget(r, "stdout");
	CHECK_R(r, streq(sget(r, "verdict"), "output_limit"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "output"));
	CHECK_R(r, json_is_true(json_object_get(r, "stdout_truncated")));
	CHECK_R(r, out && strlen(out) <= 1024 * 1024);
	/* What fitted was kept, and it is the job's bytes. */
	CHECK_R(r, out && strlen(out) >= 512 * 1024 && strspn(out, "x") == strlen(out));
	free(line);
	close(fd);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_forbidden_syscalls)
{
	static const struct {
		const char *id, *code, *name;
		int nr;
	} cases[] = {
	    {"ptrace",
	     "import ctypes\nctypes.CDLL(None).syscall(101, 0, 0, 0, 0)\n"
	     "print('survived')\n",
	     "ptrace", 101},
	    {"unshare",
	     "import ctypes\nctypes.CDLL(None).syscall(272, 0, 0, 0, 0)\n"
	     "print('survived')\n",
	     "unshare", 272},
	};
#if !defined(__x86_64__)
	SKIP_TEST("the jobs call ptrace and unshare by their x86_64 numbers (101, 272)");
#endif
	struct test_daemon d;
	START(d, "--workers", "1");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *r = run1(&d, job(cases[i].id, cases[i].code));
		json_t *v = json_object_get(r, "violation");
		CHECK_R(r, streq(sget(r, "verdict"), "violation"));
		CHECK_R(r, json_is_object(v));
		CHECK_R(r, streq(sget(v, "syscall"), cases[i].name));
		CHECK_R(r, iget(v, "nr") == cases[i].nr);
		CHECK_R(r, !strstr(sget(r, "stdout") ? sget(r, "stdout") : "", "survived"));
		json_decref(r);
	}
	stop_ok(&d);
}
END_TEST

/* --- 10-14: the jail ------------------------------------------------------ */

START_TEST(test_network)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r =
	    run1(&d, job("net", "import socket\n"
				"s = socket.socket()\ns.settimeout(2)\n"
				"print('connect', s.connect_ex(('8.8.8.8', 53)))\n"
				"l = socket.socket()\nl.bind(('127.0.0.1', 0))\nl.listen()\n"
				"c = socket.create_connection(l.getsockname(), timeout=5)\n"
				"a, _ = l.accept()\nc.sendall(b'ping')\n"
				"print('loopback', a.recv(16).decode())\n"));
	const char *out = sget(r, "stdout");
	int e = -1;
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, out && sscanf(out, "connect %d", &e) == 1);
	CHECK_RM(r, e != 0, "connect_ex to 8.8.8.8:53 returned %d", e);
	CHECK_R(r, strstr(out, "\nloopback ping\n"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_readonly_usr)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d, job("ro", "import errno\n"
				       "for p in ['/usr/x', '/usr/lib/x', '/x']:\n"
				       "    try:\n"
				       "        open(p, 'w').write('y')\n"
				       "        print(p, 'written')\n"
				       "    except OSError as e:\n"
				       "        print(p, errno.errorcode[e.errno])\n"
				       "open('/tmp/x', 'w').write('tmp ok')\n"
				       "print(open('/tmp/x').read())\n"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "/usr/x EROFS\n/usr/lib/x EROFS\n/x EROFS\ntmp ok\n"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_no_persistence)
{
	static const char *paths = "['/tmp/persist', '/work/persist', '/dev/shm/persist']";
	char a[512], b[512];
	snprintf(a, sizeof a,
		 "import os\nfor p in %s:\n    open(p, 'w').write('x')\n"
		 "print(os.getuid(), all(os.path.exists(p) for p in %s))\n",
		 paths, paths);
	snprintf(b, sizeof b, "import os\nprint(os.getuid(), [os.path.exists(p) for p in %s])\n",
		 paths);
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *ra = call(c, job("A", a), CALL_MS);
	json_t *rb = call(c, job("B", b), CALL_MS);
	char want_a[64], want_b[64];
	snprintf(want_a, sizeof want_a, "%u True\n", (unsigned)d.uid_base);
	snprintf(want_b, sizeof want_b, "%u [False, False, False]\n", (unsigned)d.uid_base);
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass"));
	CHECK_R(ra, streq(sget(ra, "stdout"), want_a));
	CHECK_R(rb, streq(sget(rb, "verdict"), "pass"));
	CHECK_R(rb, streq(sget(rb, "stdout"), want_b));
	json_decref(ra);
	json_decref(rb);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_stdin)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req = job("in", "import sys\nsys.stdout.write(sys.stdin.read().upper())\n");
	json_object_set_new(req, "stdin", json_string("hello\nworld\n"));
	json_t *r = run1(&d, req);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "HELLO\nWORLD\n"));
	json_decref(r);

	/* 5 MB, far beyond a pipe buffer: all of it arrives, in order. */
	size_t n = 5u << 20;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (i % 61 == 60) ? '\n' : (char)('a' + (i * 7 + i / 4096) % 26);
	unsigned long crc = crc32(0, (const unsigned char *)big, (uInt)n);
	req = job("bigin", "import sys, zlib\nd = sys.stdin.buffer.read()\n"
			   "print(len(d), zlib.crc32(d))\n");
	json_object_set_new(req, "stdin", json_stringn(big, n));
	free(big);
	r = run1(&d, req);
	char want[64];
	snprintf(want, sizeof want, "%zu %lu\n", n, crc);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_RM(r, streq(sget(r, "stdout"), want), "want stdout %s", want);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_files)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req = job("files", "from pkg.helper import X\nprint(X)\n"
				   "print(open('data/deep/in.txt').read())\n");
	json_object_set_new(
	    req, "files",
	    json_pack("{s:s,s:s}", "pkg/helper.py", "X=5", "data/deep/in.txt", "payload"));
	json_t *r = run1(&d, req);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "5\npayload\n"));
	json_decref(r);
	/* A path leaving the work dir is refused before anything runs. */
	req = job("escape", "print(1)");
	json_object_set_new(req, "files", json_pack("{s:s}", "../evil.py", "x"));
	r = run1(&d, req);
	CHECK_R(r, streq(errcode(r), "bad_path"));
	CHECK_R(r, streq(sget(r, "id"), "escape"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- 15-18: connections ---------------------------------------------------- */

START_TEST(test_concurrent_connections)
{
	enum { NCONN = 5, PER = 10 };
	struct test_daemon d;
	START(d, "--workers", "3");
	struct sbx_conn *c[NCONN];
	for (int k = 0; k < NCONN; k++)
		c[k] = conn_open(&d);
	/* Interleaved: every connection has jobs queued and running at once. */
	for (int j = 0; j < PER; j++)
		for (int k = 0; k < NCONN; k++) {
			char id[32], code[64];
			snprintf(id, sizeof id, "c%d-j%d", k, j);
			snprintf(code, sizeof code, "print('%s')", id);
			submit(c[k], job(id, code));
		}
	int total = 0;
	for (int k = 0; k < NCONN; k++) {
		bool seen[PER] = {false};
		for (int n = 0; n < PER; n++) {
			char err[512];
			json_t *r = sbx_next(c[k], 60000, err, sizeof err);
			ck_assert_msg(r != NULL, "connection %d, response %d: %s", k, n, err);
			const char *id = sget(r, "id");
			int kk = -1, jj = -1;
			CHECK_R(r, id && sscanf(id, "c%d-j%d", &kk, &jj) == 2);
			CHECK_RM(r, kk == k, "connection %d got a response for %s", k, id);
			CHECK_R(r, jj >= 0 && jj < PER && !seen[jj]);
			seen[jj] = true;
			char want[40];
			snprintf(want, sizeof want, "%s\n", id);
			CHECK_R(r, streq(sget(r, "verdict"), "pass"));
			CHECK_R(r, streq(sget(r, "stdout"), want));
			json_decref(r);
			total++;
		}
	}
	ck_assert_int_eq(total, NCONN * PER);
	for (int k = 0; k < NCONN; k++)
		sbx_close(c[k]);
	stop_ok(&d);
}
END_TEST

START_TEST(test_disconnect_cancels)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("sleeper", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	/* Behind it in the queue (one worker): must be dropped, never run. */
	submit(c, job("queued", "print('should never run')"));
	ck_assert_msg(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0,
		      "the job never started; log:\n%s", log_tail(&d));
	td_sleep_ms(300);
	sbx_close(c);
	assert_no_job_procs(&d, 1500, "after the client disconnected");
	long long deadline = td_now_ms() + 1500;
	while (!td_log_contains(&d, "cancelled") && td_now_ms() < deadline)
		td_sleep_ms(10);
	ck_assert_msg(td_log_contains(&d, "cancelled"), "no \"cancelled\" in the log:\n%s",
		      log_tail(&d));
	/* The worker is free again. */
	c = conn_open(&d);
	json_t *p = NULL;
	deadline = td_now_ms() + 2000;
	for (;;) {
		json_decref(p);
		p = ping(c, "p");
		if (iget(p, "running") == 0 || td_now_ms() > deadline)
			break;
		td_sleep_ms(20);
	}
	CHECK_R(p, iget(p, "running") == 0 && iget(p, "queued") == 0);
	json_decref(p);
	json_t *r = call(c, job("after", "print('next')"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	ck_assert_msg(!td_log_contains(&d, "job queued"),
		      "the queued job of a closed connection ran; log:\n%s", log_tail(&d));
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_half_close)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	const char *req =
	    "{\"id\":\"half\",\"code\":\"import time\\ntime.sleep(0.3)\\nprint(7)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, req, strlen(req)), 0);
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	json_t *r = td_raw_read_json(fd, CALL_MS);
	ck_assert_msg(r != NULL, "no response after a half-close; log:\n%s", log_tail(&d));
	CHECK_R(r, streq(sget(r, "id"), "half"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "7\n"));
	/* Everything answered: the daemon then closes its side. */
	bool eof = false;
	char *more = td_raw_read_line(fd, 3000, NULL, &eof);
	ck_assert_msg(!more && eof, "expected EOF after the last answer, got %s",
		      more ? more : "a timeout");
	ck_assert_msg(!td_log_contains(&d, "cancelled"), "log:\n%s", log_tail(&d));
	close(fd);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_bad_requests)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	const char *lines = "not json\n"
			    "{\"id\":\"a\"}\n"
			    "{\"id\":\"b\",\"code\":\"print(1)\",\"bogus\":1}\n"
			    "{\"id\":\"c\",\"code\":\"print(1)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, lines, strlen(lines)), 0);
	json_t *r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_json"));
	CHECK_R(r, json_is_null(json_object_get(r, "id")));
	CHECK_R(r, json_is_string(json_object_get(json_object_get(r, "error"), "message")));
	json_decref(r);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_request"));
	CHECK_R(r, streq(sget(r, "id"), "a"));
	json_decref(r);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "bad_request"));
	CHECK_R(r, streq(sget(r, "id"), "b"));
	CHECK_R(r, strstr(sget(json_object_get(r, "error"), "message"), "bogus"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "c"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "1\n"));
	json_decref(r);
	/* Still usable for more. */
	const char *pingl = "{\"id\":\"p\",\"op\":\"ping\"}\n";
	ck_assert_int_eq(td_raw_send(fd, pingl, strlen(pingl)), 0);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "version"), PROTO_VERSION));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* --- 19-21: limits, ping, queue -------------------------------------------- */

START_TEST(test_limit_clamp)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(
	    c, lim(lim(job("big", "print(1)"), "cpu_ms", 99999999), "wall_ms", 99999999), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget(g_max, "cpu_ms") > 0);
	CHECK_R(r, iget2(r, "limits", "cpu_ms") == iget(g_max, "cpu_ms"));
	CHECK_R(r, iget2(r, "limits", "wall_ms") == iget(g_max, "wall_ms"));
	CHECK_R(r, iget2(r, "limits", "memory_mb") == iget(g_defaults, "memory_mb"));
	json_decref(r);
	r = call(c, lim(job("zero", "print(1)"), "cpu_ms", 0), CALL_MS);
	CHECK_R(r, streq(errcode(r), "bad_limits"));
	CHECK_R(r, streq(sget(r, "id"), "zero"));
	CHECK_R(r, !json_object_get(r, "verdict"));
	json_decref(r);
	r = call(c, lim(job("neg", "print(1)"), "memory_mb", -5), CALL_MS);
	CHECK_R(r, streq(errcode(r), "bad_limits"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_ping)
{
	struct test_daemon d;
	START(d, "--workers", "3");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "p1");
	CHECK_R(p, streq(sget(p, "id"), "p1"));
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	CHECK_R(p, iget(p, "workers") == 3);
	CHECK_R(p, iget(p, "queued") == 0);
	CHECK_R(p, iget(p, "running") == 0);
	json_decref(p);
	/* A running job shows up in the counts. */
	submit(c, job("slow", "import time\ntime.sleep(1.5)\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	p = ping(c, "p2");
	CHECK_R(p, iget(p, "running") == 1 && iget(p, "queued") == 0);
	json_decref(p);
	char err[256];
	json_t *r = sbx_wait(c, "slow", CALL_MS, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_queue_full)
{
	enum { N = 6 };
	struct test_daemon d;
	START(d, "--workers", "1", "--queue", "2");
	struct sbx_conn *c = conn_open(&d);
	for (int i = 0; i < N; i++) {
		char id[16];
		snprintf(id, sizeof id, "q%d", i);
		submit(c, job(id, "import time\ntime.sleep(2)\nprint('done')\n"));
	}
	int busy = 0, done = 0;
	bool seen[N] = {false};
	for (int i = 0; i < N; i++) {
		char err[256];
		json_t *r = sbx_next(c, 20000, err, sizeof err);
		ck_assert_msg(r != NULL, "response %d of %d: %s (busy %d, done %d)", i + 1, N, err,
			      busy, done);
		int k = -1;
		CHECK_R(r, sscanf(sget(r, "id") ? sget(r, "id") : "", "q%d", &k) == 1 && k >= 0 &&
			       k < N && !seen[k]);
		seen[k] = true;
		if (json_object_get(r, "error")) {
			CHECK_R(r, streq(errcode(r), "busy"));
			busy++;
		} else {
			const char *v = sget(r, "verdict");
			CHECK_R(r, streq(v, "pass") || streq(v, "timeout"));
			done++;
		}
		json_decref(r);
	}
	ck_assert_msg(busy >= 1, "no busy error: %d of %d jobs accepted", done, N);
	/* One running plus a queue of two, give or take whether the worker had
	 * taken the first job before the third arrived. */
	ck_assert_msg(done >= 2 && done <= 3, "%d accepted, %d busy", done, busy);
	/* The last answer is posted just before its worker counts itself idle:
	 * allow a moment for "running" to drop. */
	json_t *p = NULL;
	long long deadline = td_now_ms() + 1000;
	for (;;) {
		json_decref(p);
		p = ping(c, "after");
		if (iget(p, "running") == 0 || td_now_ms() > deadline)
			break;
		td_sleep_ms(10);
	}
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	CHECK_R(p, iget(p, "queued") == 0 && iget(p, "running") == 0);
	json_decref(p);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- 22: daemon lifecycle -------------------------------------------------- */

START_TEST(test_sigterm_mid_job)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("long", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	pid_t kids[16];
	int nkids = td_children(d.pid, kids, 16);
	ck_assert_msg(nkids >= 1, "the daemon has no child process while a job runs");
	long long t0 = td_now_ms();
	int st = td_stop(&d, 2000);
	long long took = td_now_ms() - t0;
	ck_assert_msg(st >= 0, "%s; log:\n%s", d.err, log_tail(&d));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exit status %d after SIGTERM; log:\n%s", st, log_tail(&d));
	ck_assert_msg(took < 2000, "took %lld ms to stop", took);
	assert_no_job_procs(&d, 500, "after SIGTERM");
	for (int i = 0; i < nkids && i < 16; i++)
		ck_assert_msg(!td_pid_alive(kids[i]), "job init %d survived", (int)kids[i]);
	/* The client is told nothing false: either an error or a closed connection. */
	char err[256];
	json_t *r = sbx_wait(c, "long", 2000, err, sizeof err);
	CHECK_R(r, !r || json_object_get(r, "error"));
	json_decref(r);
	sbx_close(c);
	ck_assert_msg(access(d.sock, F_OK) < 0, "the socket %s was left behind", d.sock);
	td_cleanup(&d);
}
END_TEST

START_TEST(test_sigkill_mid_job_and_restart)
{
	struct test_daemon d;
	/* The job's init is orphaned when the daemon dies: adopt it here so it
	 * is reaped (and a zombie is not mistaken for a live process). */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("long", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	pid_t kids[16];
	int nkids = td_children(d.pid, kids, 16);
	ck_assert_msg(nkids >= 1, "the daemon has no child process while a job runs");
	int st = td_kill(&d);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_no_job_procs(&d, 1000, "after SIGKILL of the daemon");
	long long deadline = td_now_ms() + 1000;
	for (int i = 0; i < nkids && i < 16; i++) {
		while (td_pid_alive(kids[i]) && td_now_ms() < deadline)
			td_sleep_ms(10);
		ck_assert_msg(!td_pid_alive(kids[i]), "job init %d survived the daemon",
			      (int)kids[i]);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	char err[256];
	json_t *r = sbx_wait(c, "long", 2000, err, sizeof err);
	CHECK_R(r, r == NULL);
	sbx_close(c);
	/* Same socket path (a stale socket file) and state dir. */
	ck_assert_msg(td_restart(&d) == 0, "restart: %s", d.err);
	c = conn_open(&d);
	json_t *p = ping(c, "again");
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	json_decref(p);
	r = call(c, job("works", "print('alive')"), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "alive\n"));
	json_decref(r);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

/* --- 23-24 ------------------------------------------------------------------ */

START_TEST(test_capabilities)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r =
	    run1(&d, job("caps", "import os\n"
				 "for l in open('/proc/self/status'):\n"
				 "    k = l.split(':')[0]\n"
				 "    if k in ('CapEff', 'CapPrm', 'CapInh', 'CapAmb', 'CapBnd',\n"
				 "             'NoNewPrivs', 'Seccomp'):\n"
				 "        print(k, l.split()[1])\n"
				 "print('uid', os.getuid(), os.geteuid(), os.getgid())\n"));
	const char *out = sget(r, "stdout");
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	static const char *const want[] = {
	    "CapInh 0000000000000000\n",
	    "CapPrm 0000000000000000\n",
	    "CapEff 0000000000000000\n",
	    "CapBnd 0000000000000000\n",
	    "CapAmb 0000000000000000\n",
	    "NoNewPrivs 1\n",
	    "Seccomp 2\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		CHECK_RM(r, out && strstr(out, want[i]), "missing %s", want[i]);
	char uidl[64];
	snprintf(uidl, sizeof uidl, "uid %u %u %u\n", (unsigned)d.uid_base, (unsigned)d.uid_base,
		 (unsigned)d.uid_base);
	CHECK_RM(r, out && strstr(out, uidl), "want %s", uidl);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* A request line of exactly len bytes (without the newline) running print(1). */
static char *sized_request(const char *id, size_t len)
{
	char head[64];
	int h = snprintf(head, sizeof head, "{\"id\":\"%s\",\"code\":\"print(1)\\n#", id);
	const char *tail = "\"}";
	ck_assert((size_t)h + strlen(tail) < len);
	char *s = malloc(len + 2);
	memcpy(s, head, (size_t)h);
	memset(s + h, 'x', len - (size_t)h - strlen(tail));
	memcpy(s + len - strlen(tail), tail, strlen(tail));
	s[len] = '\n';
	s[len + 1] = '\0';
	return s;
}

START_TEST(test_overlong_line)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--max-request", "4096");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	char *big = sized_request("big", 10000);
	const char *ok = "{\"id\":\"ok\",\"code\":\"print(1)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, big, strlen(big)), 0);
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	free(big);
	json_t *r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "too_large"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	/* The bound is inclusive: 4096 bytes pass, 4097 do not. */
	char *edge = sized_request("edge", 4096);
	ck_assert_int_eq(td_raw_send(fd, edge, strlen(edge)), 0);
	free(edge);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "edge"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	char *over = sized_request("over", 4097);
	ck_assert_int_eq(td_raw_send(fd, over, strlen(over)), 0);
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	free(over);
	r = td_raw_read_json(fd, 5000);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(errcode(r), "too_large"));
	json_decref(r);
	r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok") && streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* --- beyond the list: other promises of docs/protocol.md ------------------- */

/* "runtime_error carries limit_hit pids when forks were refused by the pids limit." */
START_TEST(test_pids_limit_hit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r =
	    run1(&d, lim(job("pids", "import os, sys, time\nn = 0\ntry:\n"
				     "    for i in range(40):\n"
				     "        if os.fork() == 0:\n"
				     "            time.sleep(5)\n            os._exit(0)\n"
				     "        n += 1\n"
				     "except OSError as e:\n"
				     "    print('refused after', n, e.errno)\n    sys.exit(1)\n"),
			 "pids", 16));
	SKIP_UNLESS_CGROUP(r, "pids", d, "limit_hit pids (read from the cgroup's pids.events)");
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, iget(r, "exit_code") == 1);
	CHECK_R(r, streq(sget(r, "limit_hit"), "pids"));
	CHECK_R(r, sget(r, "stdout") && strstr(sget(r, "stdout"), "refused after"));
	assert_no_job_procs(&d, 1000, "after the pids job");
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* memory_mb counts "all processes plus their tmpfs files". */
START_TEST(test_tmpfs_counts_as_memory)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req =
	    job("tmpfsmem", "b = b'x' * (1 << 20)\nwith open('/tmp/big', 'wb') as f:\n"
			    "    for i in range(300):\n        f.write(b)\nprint('wrote')\n");
	json_t *r = run1(&d, lim(lim(req, "memory_mb", 100), "tmpfs_mb", 1024));
	SKIP_UNLESS_CGROUP(r, "memory_mb", d,
			   "tmpfs pages counted as memory (they are charged to the memory cgroup)");
	CHECK_R(r, streq(sget(r, "verdict"), "memory_limit"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "memory"));
	CHECK_R(r, streq(sget(r, "stdout"), ""));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* RLIMIT_FSIZE is tmpfs_mb. CPython ignores SIGXFSZ, so its write fails with
 * EFBIG (a runtime_error it can see); a process that keeps the default
 * action is killed by SIGXFSZ, which the daemon reports as file_size. */
START_TEST(test_file_size_limit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req =
	    job("fsize", "b = b'x' * (1 << 20)\nwith open('/tmp/big', 'wb') as f:\n"
			 "    for i in range(16):\n        f.write(b)\n        f.flush()\n"
			 "print('wrote 16 MiB')\n");
	json_t *r = run1(&d, lim(req, "tmpfs_mb", 8));
	CHECK_R(r, !strstr(sget(r, "stdout") ? sget(r, "stdout") : "", "wrote 16 MiB"));
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, strstr(sget(r, "stderr") ? sget(r, "stderr") : "", "File too large") != NULL);
	json_decref(r);
	req = job("fsize2", "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
			    "b = b'x' * (1 << 20)\nwith open('/tmp/big', 'wb') as f:\n"
			    "    for i in range(16):\n        f.write(b)\n        f.flush()\n");
	r = run1(&d, lim(req, "tmpfs_mb", 8));
	CHECK_R(r, streq(sget(r, "verdict"), "output_limit"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "file_size"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_output_encoding_and_stderr)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	/* Invalid UTF-8 becomes U+FFFD; valid multi-byte text is kept. */
	json_t *r =
	    run1(&d, job("utf8", "import sys\nsys.stdout.buffer.write(b'a\\xffb\\xc3\\xa9\\n')\n"));
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "a\xef\xbf\xbd"
					    "b\xc3\xa9\n"));
	json_decref(r);
	/* stderr has its own cap, reported on its own flag. */
	r = run1(&d, lim(job("errflood",
			     "import sys\nprint('out')\nsys.stdout.flush()\n"
			     "b = b'e' * 65536\nwhile True:\n    sys.stderr.buffer.write(b)\n"),
			 "output_kb", 64));
	CHECK_R(r, streq(sget(r, "verdict"), "output_limit"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "output"));
	CHECK_R(r, json_is_true(json_object_get(r, "stderr_truncated")));
	CHECK_R(r, json_is_false(json_object_get(r, "stdout_truncated")));
	CHECK_R(r, streq(sget(r, "stdout"), "out\n"));
	CHECK_R(r, sget(r, "stderr") && strlen(sget(r, "stderr")) <= 64 * 1024);
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_more_bad_requests)
{
	static const struct {
		const char *line, *id, *code;
	} cases[] = {
	    {"{\"id\":\"p\",\"op\":\"ping\",\"code\":\"x\"}", "p", "bad_request"},
	    {"{\"id\":\"o\",\"op\":\"explode\",\"code\":\"x\"}", "o", "bad_request"},
	    {"{\"id\":\"t\",\"code\":5}", "t", "bad_request"},
	    {"{\"code\":\"print(1)\"}", NULL, "bad_request"},
	    {"[1,2]", NULL, "bad_json"},
	    {"{\"id\":\"u\",\"code\":\"print(1)\",\"policy\":\"nope\"}", "u", "unknown_policy"},
	    {"{\"id\":\"l\",\"code\":\"print(1)\",\"limits\":{\"cpu\":5}}", "l", "bad_limits"},
	    {"{\"id\":\"f\",\"code\":\"print(1)\",\"limits\":{\"cpu_ms\":1.5}}", "f", "bad_limits"},
	    {"{\"id\":\"a\",\"code\":\"print(1)\",\"files\":{\"/etc/x\":\"y\"}}", "a", "bad_path"},
	    {"{\"id\":\"m\",\"code\":\"print(1)\",\"files\":{\"main.py\":\"y\"}}", "m", "bad_path"},
	    {"{\"id\":\"g\",\"code\":\"print(1)\",\"files\":{\"a/./b\":\"y\"}}", "g", "bad_path"},
	    {"{\"id\":\"k\",\"code\":\"print(1)\",\"files\":{\"k\":\"y\",\"k/x\":\"z\"}}", "k",
	     "bad_path"},
	};
	struct test_daemon d;
	START(d, "--workers", "1");
	int fd = td_raw_connect(d.sock);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_int_eq(td_raw_send(fd, cases[i].line, strlen(cases[i].line)), 0);
		ck_assert_int_eq(td_raw_send(fd, "\n", 1), 0);
		json_t *r = td_raw_read_json(fd, 5000);
		ck_assert_msg(r != NULL, "no answer to %s", cases[i].line);
		CHECK_RM(r, streq(errcode(r), cases[i].code), "request %s: want %s", cases[i].line,
			 cases[i].code);
		if (cases[i].id)
			CHECK_RM(r, streq(sget(r, "id"), cases[i].id), "request %s", cases[i].line);
		else
			CHECK_RM(r, json_is_null(json_object_get(r, "id")), "request %s",
				 cases[i].line);
		json_decref(r);
	}
	/* An empty line is ignored; the connection still runs jobs. */
	const char *ok = "\n{\"id\":\"ok\",\"code\":\"print(2)\"}\n";
	ck_assert_int_eq(td_raw_send(fd, ok, strlen(ok)), 0);
	json_t *r = td_raw_read_json(fd, CALL_MS);
	ck_assert_ptr_nonnull(r);
	CHECK_R(r, streq(sget(r, "id"), "ok") && streq(sget(r, "stdout"), "2\n"));
	json_decref(r);
	close(fd);
	stop_ok(&d);
}
END_TEST

/* The first jobs of a freshly started daemon. A job's payload is a clone of
 * a multithreaded daemon; anything in it that waits for the daemon's other
 * threads (glibc's setxid broadcast in setgroups/setresuid, a lock held at
 * clone time) hangs the job until its wall limit. Several fresh daemons
 * make a start-up race likely to show. */
/* Busy processes competing for every CPU (they die with the test). */
static int spinners_start(pid_t *pids, int max)
{
	int n = td_usable_cpus(); /* the CPUs we (and the daemon) may run on */
	int k = 0;
	for (; k < max && k < n; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
	return k;
}

static void spinners_stop(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

START_TEST(test_first_job_after_start)
{
	enum { ROUNDS = 40 };
	/* Busy CPUs delay the first run of the daemon's newly created threads,
	 * which widens a start-up race (if there is one) without changing
	 * anything a correct daemon depends on. */
	pid_t spin[8];
	int nspin = spinners_start(spin, 8);
	for (int i = 0; i < ROUNDS; i++) {
		struct test_daemon d;
		START(d, "--workers", "2");
		long long t0 = td_now_ms();
		json_t *r = run1(&d, lim(job("first", "print('first')"), "wall_ms", 3000));
		long long took = td_now_ms() - t0;
		CHECK_RM(r, streq(sget(r, "verdict"), "pass"),
			 "daemon %d of %d: the first job did not pass (took %lld ms); log:\n%s",
			 i + 1, ROUNDS, took, log_tail(&d));
		json_decref(r);
		stop_ok(&d);
	}
	spinners_stop(spin, nspin);
}
END_TEST

/* Two daemons on one host (own sockets, state dirs and uid ranges) must
 * not get in each other's way: the same first job name on both. */
START_TEST(test_two_daemons_run_side_by_side)
{
	struct test_daemon a, b;
	START(a, "--workers", "1");
	START(b, "--workers", "1");
	struct sbx_conn *ca = conn_open(&a);
	submit(ca, job("A", "import time\ntime.sleep(1.5)\nprint('A done')\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&a), uid_hi(&a), 10000) > 0);
	json_t *rb = run1(&b, job("B", "print('B done')"));
	char err[256];
	json_t *ra = sbx_wait(ca, "A", CALL_MS, err, sizeof err);
	ck_assert_msg(ra != NULL, "%s", err);
	CHECK_R(rb, streq(sget(rb, "verdict"), "pass") && streq(sget(rb, "stdout"), "B done\n"));
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass") && streq(sget(ra, "stdout"), "A done\n"));
	json_decref(ra);
	json_decref(rb);
	sbx_close(ca);
	stop_ok(&b);
	stop_ok(&a);
}
END_TEST

/* Starting (and stopping) another daemon must not kill this one's jobs. */
START_TEST(test_other_daemon_start_spares_jobs)
{
	struct test_daemon a, c;
	START(a, "--workers", "1");
	struct sbx_conn *ca = conn_open(&a);
	submit(ca, job("A", "import time\ntime.sleep(1.5)\nprint('A done')\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&a), uid_hi(&a), 10000) > 0);
	START(c, "--workers", "1");
	stop_ok(&c);
	char err[256];
	json_t *ra = sbx_wait(ca, "A", CALL_MS, err, sizeof err);
	ck_assert_msg(ra != NULL, "%s", err);
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass") && streq(sget(ra, "stdout"), "A done\n"));
	json_decref(ra);
	sbx_close(ca);
	stop_ok(&a);
}
END_TEST

/* --- cgroup placement ------------------------------------------------------ */

/* Runs sandboxd in a private mount namespace where every cgroup mount is
 * gone, as on a host without usable cgroups; returns its wait status and its
 * output (NUL-terminated) in out. With --no-cgroups it must serve, so that
 * case is stopped with SIGTERM once its socket exists. */
static int run_without_cgroups(bool no_cgroups, char *out, size_t outlen)
{
	char dir[] = "/tmp/sbx-nocg.XXXXXX", sock[64], state[64];
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof sock, "%s/sock", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(pp[1], 1);
		dup2(pp[1], 2);
		close(pp[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(90);
		/* Unmount cgroup mounts until none is left (deepest first). */
		for (int round = 0; round < 64; round++) {
			FILE *f = fopen("/proc/self/mountinfo", "re");
			char line[4096], last[PATH_MAX] = "";
			while (f && fgets(line, sizeof line, f)) {
				char *dash = strstr(line, " - "), pt[PATH_MAX];
				if (dash &&
				    (strncmp(dash, " - cgroup ", 10) == 0 ||
				     strncmp(dash, " - cgroup2 ", 11) == 0) &&
				    sscanf(line, "%*s %*s %*s %*s %4095s", pt) == 1)
					snprintf(last, sizeof last, "%s", pt);
			}
			if (f)
				fclose(f);
			if (!last[0])
				break;
			if (umount2(last, MNT_DETACH) < 0)
				_exit(91);
		}
		const char *argv[] = {
		    td_binary(), "--socket",  sock, "--state-dir",
		    state,	 "--workers", "1",  no_cgroups ? "--no-cgroups" : NULL,
		    NULL};
		execv(argv[0], (char *const *)argv);
		_exit(92);
	}
	close(pp[1]);
	long long deadline = td_now_ms() + 10000;
	int st = -1;
	bool stopped = false;
	while (td_now_ms() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (no_cgroups && !stopped && access(sock, F_OK) == 0) {
			/* It serves: one job proves it, then stop it. */
			char err[256];
			struct sbx_conn *c = sbx_connect(sock, err, sizeof err);
			json_t *req = job("nocg", "print(7)");
			json_t *r = c ? sbx_call(c, req, 30000, err, sizeof err) : NULL;
			char *enf = dump(json_object_get(r, "enforcement"));
			snprintf(out, outlen, "verdict=%s enforcement=%s\n", sget(r, "verdict"),
				 enf);
			free(enf);
			json_decref(req);
			json_decref(r);
			if (c)
				sbx_close(c);
			kill(pid, SIGTERM);
			stopped = true;
		}
		td_sleep_ms(20);
	}
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		st = -1;
	}
	size_t have = strlen(out);
	ssize_t n;
	while (have + 1 < outlen && (n = read(pp[0], out + have, outlen - 1 - have)) > 0)
		have += (size_t)n;
	out[have] = '\0';
	close(pp[0]);
	td_rmtree(dir);
	return st;
}

/* A security tool must not quietly weaken itself: with no usable cgroups the
 * daemon refuses to start and says what to do; --no-cgroups is the knowing
 * choice of rlimits, and the response says so. */
START_TEST(test_refuses_without_cgroups)
{
	char out[8192] = "";
	int st = run_without_cgroups(false, out, sizeof out);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
		      "without cgroups: wait status %d, output:\n%s", st, out);
	ck_assert_msg(strstr(out, "cgroups unusable") && strstr(out, "--no-cgroups") &&
			  strstr(out, "Delegate=yes") && strstr(out, "--cgroup-parent"),
		      "output:\n%s", out);
	out[0] = '\0';
	st = run_without_cgroups(true, out, sizeof out);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "--no-cgroups: wait status %d, output:\n%s", st, out);
	ck_assert_msg(strstr(out, "verdict=pass"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "rlimit"), "enforcement does not say rlimits:\n%s", out);
}
END_TEST

/* Removes <mount><parent> in every hierarchy the daemon may have made it in
 * (v2, or the v1 memory, pids and cpuacct hierarchies, wherever mounted). */
static void remove_parent_everywhere(const struct td_cgmounts *m, const char *parent)
{
	const struct td_cgmount *h[] = {&m->v2, &m->memory, &m->pids, &m->cpuacct};
	for (size_t i = 0; i < sizeof h / sizeof *h; i++) {
		bool seen = false; /* co-mounted hierarchies share a mount point */
		for (size_t k = 0; k < i; k++)
			seen = seen || strcmp(h[k]->path, h[i]->path) == 0;
		char dir[PATH_MAX];
		if (!h[i]->path[0] || seen ||
		    snprintf(dir, sizeof dir, "%s%s", h[i]->path, parent) >= (int)sizeof dir)
			continue;
		if (access(dir, F_OK) == 0)
			td_cgroup_rmtree(dir);
	}
}

/* --cgroup-parent: the jobs go below the named cgroup, in a home of this
 * instance, and a clean stop removes what the daemon made. The hierarchy
 * is the one the response names (enforcement.memory_mb), found where it is
 * mounted (/proc/self/mountinfo). */
START_TEST(test_cgroup_parent)
{
	struct test_daemon d;
	struct td_cgmounts m;
	char parent[64], limit_file[PATH_MAX + 32], base[PATH_MAX], why[256];
	snprintf(parent, sizeof parent, "/sbx-itest-%d", (int)getpid());
	ck_assert_msg(td_cgroup_mounts(&m) >= 0, "/proc/self/mountinfo: %s", strerror(errno));
	START(d, "--workers", "1", "--cgroup-parent", parent);
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(c, job("where", "print(open('/proc/self/cgroup').read())"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	if (!cgroup_enforces(r, "memory_mb", why, sizeof why)) {
		json_decref(r);
		sbx_close(c);
		stop_ok(&d);
		remove_parent_everywhere(&m, parent);
		SKIP_TEST("--cgroup-parent places job cgroups: %s", why);
	}
	const char *by = sget(json_object_get(r, "enforcement"), "memory_mb");
	bool is_v2 = streq(by, "cgroup v2");
	const struct td_cgmount *h = is_v2 ? &m.v2 : &m.memory;
	ck_assert_msg(h->path[0], "the daemon enforces memory with %s, but no %s is mounted here",
		      by, is_v2 ? "cgroup2 hierarchy" : "v1 memory hierarchy");
	json_decref(r);
	ck_assert(snprintf(base, sizeof base, "%s%s", h->path, parent) < (int)sizeof base);
	submit(c, lim(job("sleep", "import time\ntime.sleep(30)"), "wall_ms", 60000));
	ck_assert_msg(access(base, F_OK) == 0,
		      "%s (the parent in the %s hierarchy) does not "
		      "exist; log:\n%s",
		      base, is_v2 ? "v2" : "memory", log_tail(&d));
	/* The home is "<parent>/<instance>" and holds the jobs dir. */
	char *found = NULL;
	char pat[PATH_MAX + 32];
	snprintf(pat, sizeof pat, "%s/*/sandboxd/*-*", base);
	long long deadline = td_now_ms() + 5000;
	while (!found && td_now_ms() < deadline) {
		glob_t g;
		if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0 && g.gl_pathc > 0)
			found = strdup(g.gl_pathv[0]);
		globfree(&g);
		if (!found)
			td_sleep_ms(20);
	}
	ck_assert_msg(found, "no job cgroup %s while a job runs; log:\n%s", pat, log_tail(&d));
	snprintf(limit_file, sizeof limit_file, "%s/%s", found,
		 is_v2 ? "memory.max" : "memory.limit_in_bytes");
	ck_assert_msg(access(limit_file, F_OK) == 0, "%s has no memory limit file (%s)", found,
		      limit_file);
	sbx_close(c);
	stop_ok(&d);
	ck_assert_msg(access(found, F_OK) < 0, "%s remains after a clean stop", found);
	if (is_v2) /* the home went; the operator's parent stays */
		ck_assert_msg(access(base, F_OK) == 0, "%s was removed", base);
	free(found);
	/* Leave the host as it was: the parent in each hierarchy it was made in. */
	remove_parent_everywhere(&m, parent);
}
END_TEST

/* --- suite ----------------------------------------------------------------- */

static TCase *tc(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);
	tcase_set_timeout(t, TIMEOUT_S);
	suite_add_tcase(s, t);
	return t;
}

static Suite *daemon_suite(void)
{
	Suite *s = suite_create("sandboxd");
	TCase *t = tc(s, "jobs");
	tcase_add_test(t, test_hello_world);
	tcase_add_test(t, test_exit_code);
	tcase_add_test(t, test_exception);
	t = tc(s, "limits");
	tcase_add_test(t, test_cpu_limit);
	tcase_add_test(t, test_wall_limit);
	tcase_add_test(t, test_memory_limit);
	tcase_add_test(t, test_fork_bomb);
	tcase_add_test(t, test_output_flood);
	tcase_add_test(t, test_forbidden_syscalls);
	tcase_add_test(t, test_limit_clamp);
	t = tc(s, "jail");
	tcase_add_test(t, test_network);
	tcase_add_test(t, test_readonly_usr);
	tcase_add_test(t, test_no_persistence);
	tcase_add_test(t, test_stdin);
	tcase_add_test(t, test_files);
	tcase_add_test(t, test_capabilities);
	t = tc(s, "protocol");
	tcase_add_test(t, test_concurrent_connections);
	tcase_add_test(t, test_disconnect_cancels);
	tcase_add_test(t, test_half_close);
	tcase_add_test(t, test_bad_requests);
	tcase_add_test(t, test_ping);
	tcase_add_test(t, test_queue_full);
	tcase_add_test(t, test_overlong_line);
	t = tc(s, "lifecycle");
	tcase_add_test(t, test_sigterm_mid_job);
	tcase_add_test(t, test_sigkill_mid_job_and_restart);
	tcase_add_test(t, test_first_job_after_start);
	tcase_add_test(t, test_two_daemons_run_side_by_side);
	tcase_add_test(t, test_other_daemon_start_spares_jobs);
	tcase_add_test(t, test_refuses_without_cgroups);
	tcase_add_test(t, test_cgroup_parent);
	t = tc(s, "documented");
	tcase_add_test(t, test_pids_limit_hit);
	tcase_add_test(t, test_tmpfs_counts_as_memory);
	tcase_add_test(t, test_file_size_limit);
	tcase_add_test(t, test_output_encoding_and_stderr);
	tcase_add_test(t, test_more_bad_requests);
	return s;
}

/* The profile the daemon will load: the policies dir next to the binary. */
static int load_profile(void)
{
	const char *b = getenv("SBX_BUILD");
	char path[4096];
	snprintf(path, sizeof path, "%s/../policies/python.json", b && *b ? b : "build");
	json_error_t je;
	json_t *p = json_load_file(path, 0, &je);
	json_t *l = json_object_get(p, "limits");
	g_defaults = json_incref(json_object_get(l, "default"));
	g_max = json_incref(json_object_get(l, "max"));
	json_decref(p);
	if (!json_is_object(g_defaults) || !json_is_object(g_max)) {
		fprintf(stderr, "test_daemon: cannot read limits from %s: %s\n", path, je.text);
		return -1;
	}
	return 0;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_daemon: must run as root (sandboxd does)\n");
		return 1;
	}
	if (access(td_binary(), X_OK) < 0) {
		fprintf(stderr, "test_daemon: %s: %s\n", td_binary(), strerror(errno));
		return 1;
	}
	if (load_profile() < 0)
		return 1;
	/* Every daemon directory lives under one base removed at the end, so
	 * even a test that failed half-way leaves nothing in /tmp. */
	char base[] = "/tmp/sbx-integ.XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("SBX_TEST_TMPDIR", base, 1);
	SRunner *sr = srunner_create(daemon_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	td_rmtree(base);
	json_decref(g_defaults);
	json_decref(g_max);
	return failed ? 1 : 0;
}
