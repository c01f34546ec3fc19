/* Integration tests of one job at a time against a real sandboxd: its result
 * (exit code, exception, output), its limits (CPU, wall clock, memory,
 * processes, output, file size, forbidden syscalls, clamping) and the jail it
 * runs in (network, read-only /usr, nothing kept between jobs, stdin, files,
 * capabilities). Each test starts its own daemon (tests/helpers/daemon.c: its
 * own socket, state dir and uid range) and drives it through libsbx or a raw
 * socket, asserting on the response JSON. Run as root from the repository root
 * (make integration). */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one response may take */

/* --- 1-3: plain jobs ------------------------------------------------------ */

/* The interpreter's own /etc directory (Debian's /etc/python3.X, where
 * /usr/lib/python3.X/sitecustomize.py points) is bound into the jail: the
 * daemon derives it from the profile's interpreter. */
START_TEST(test_interpreter_etc)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d,
			 job("etc", "import os, sys\n"
				    "d = '/etc/python%d.%d' % sys.version_info[:2]\n"
				    "print(d, os.path.isdir(d))\n"),
			 CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	char dir[64] = "", isdir[8] = "";
	const char *out = sget(r, "stdout");
	CHECK_R(r, out && sscanf(out, "%63s %7s", dir, isdir) == 2);
	struct stat st;
	bool host_has = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	json_decref(r);
	stop_ok(&d);
	if (!host_has)
		SKIP_TEST("the host has no %s to bind", dir);
	ck_assert_msg(strcmp(isdir, "True") == 0, "%s exists on the host but not in the jail", dir);
}
END_TEST

START_TEST(test_hello_world)
{
	struct test_daemon d;
	START(d, "--workers", "2");
	json_t *r = run1(&d, job("hello", "print(42)"), CALL_MS);
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
	/* A warm job can end inside a millisecond and usage counts whole
	 * (truncated) milliseconds, so 0 is a true answer here; the magnitudes
	 * are checked by the busy and sleeping jobs below; iget2 gives -1 for a
	 * missing or non-integer field. */
	CHECK_R(r, iget2(r, "usage", "cpu_ms") >= 0);
	CHECK_R(r, iget2(r, "usage", "wall_ms") >= 0);
	CHECK_R(r, iget2(r, "usage", "wall_ms") < CALL_MS);
	CHECK_R(r, iget2(r, "usage", "memory_kb") > 0);
	/* Limits not given are the profile's defaults, all six reported. */
	json_t *l = json_object_get(r, "limits");
	CHECK_R(r, json_is_object(l) && json_object_size(l) == PROTO_NLIMITS);
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		const char *n = proto_limit_names[i];
		CHECK_RM(r, iget(l, n) == iget(tprofile_defaults, n),
			 "limits.%s is %lld, default %lld", n, (long long)iget(l, n),
			 (long long)iget(tprofile_defaults, n));
	}
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_exit_code)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d, job("exit3", "import sys\nprint('before')\nsys.exit(3)"), CALL_MS);
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
	json_t *r = run1(&d, job("exc", "raise ValueError('boom')\n"), CALL_MS);
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
	json_t *r = run1(&d, lim(job("cpu", "while True:\n    pass\n"), "cpu_ms", 1000), CALL_MS);
	long long took = td_now_ms() - t0;
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	CHECK_R(r, streq(sget(r, "limit_hit"), "cpu"));
	CHECK_R(r, iget2(r, "usage", "cpu_ms") >= 1000);
	CHECK_R(r, iget2(r, "usage", "cpu_ms") < 3000);
	/* Killed on CPU, not by the (default 20 s) wall clock. */
	CHECK_R(r, iget2(r, "limits", "wall_ms") == iget(tprofile_defaults, "wall_ms"));
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
	json_t *r =
	    run1(&d, lim(job("wall", "import time\ntime.sleep(100)\n"), "wall_ms", 1000), CALL_MS);
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
		json_t *r = run1(&d, lim(job(id, hogs[i]), "memory_mb", 100), CALL_MS);
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
	json_t *r = run1(&d, lim(lim(req, "pids", 16), "wall_ms", 3000), CALL_MS);
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
		json_t *r = run1(&d, job(cases[i].id, cases[i].code), CALL_MS);
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

START_TEST(test_limit_clamp)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *r = call(
	    c, lim(lim(job("big", "print(1)"), "cpu_ms", 99999999), "wall_ms", 99999999), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, iget(tprofile_max, "cpu_ms") > 0);
	CHECK_R(r, iget2(r, "limits", "cpu_ms") == iget(tprofile_max, "cpu_ms"));
	CHECK_R(r, iget2(r, "limits", "wall_ms") == iget(tprofile_max, "wall_ms"));
	CHECK_R(r, iget2(r, "limits", "memory_mb") == iget(tprofile_defaults, "memory_mb"));
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

/* --- 10-14, 23: the jail ------------------------------------------------- */

START_TEST(test_network)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(&d,
			 job("net", "import socket\n"
				    "s = socket.socket()\ns.settimeout(2)\n"
				    "print('connect', s.connect_ex(('8.8.8.8', 53)))\n"
				    "l = socket.socket()\nl.bind(('127.0.0.1', 0))\nl.listen()\n"
				    "c = socket.create_connection(l.getsockname(), timeout=5)\n"
				    "a, _ = l.accept()\nc.sendall(b'ping')\n"
				    "print('loopback', a.recv(16).decode())\n"),
			 CALL_MS);
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
	json_t *r = run1(&d,
			 job("ro", "import errno\n"
				   "for p in ['/usr/x', '/usr/lib/x', '/x']:\n"
				   "    try:\n"
				   "        open(p, 'w').write('y')\n"
				   "        print(p, 'written')\n"
				   "    except OSError as e:\n"
				   "        print(p, errno.errorcode[e.errno])\n"
				   "open('/tmp/x', 'w').write('tmp ok')\n"
				   "print(open('/tmp/x').read())\n"),
			 CALL_MS);
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
	json_t *r = run1(&d, req, CALL_MS);
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
	r = run1(&d, req, CALL_MS);
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
	json_t *r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "5\npayload\n"));
	json_decref(r);
	/* A path leaving the work dir is refused before anything runs. */
	req = job("escape", "print(1)");
	json_object_set_new(req, "files", json_pack("{s:s}", "../evil.py", "x"));
	r = run1(&d, req, CALL_MS);
	CHECK_R(r, streq(errcode(r), "bad_path"));
	CHECK_R(r, streq(sget(r, "id"), "escape"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_capabilities)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r =
	    run1(&d,
		 job("caps", "import os\n"
			     "for l in open('/proc/self/status'):\n"
			     "    k = l.split(':')[0]\n"
			     "    if k in ('CapEff', 'CapPrm', 'CapInh', 'CapAmb', 'CapBnd',\n"
			     "             'NoNewPrivs', 'Seccomp'):\n"
			     "        print(k, l.split()[1])\n"
			     "print('uid', os.getuid(), os.geteuid(), os.getgid())\n"),
		 CALL_MS);
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

/* --- beyond the list: other promises of docs/protocol.md ------------------- */

/* "runtime_error carries limit_hit pids when forks were refused by the pids limit." */
START_TEST(test_pids_limit_hit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r =
	    run1(&d,
		 lim(job("pids", "import os, sys, time\nn = 0\ntry:\n"
				 "    for i in range(40):\n"
				 "        if os.fork() == 0:\n"
				 "            time.sleep(5)\n            os._exit(0)\n"
				 "        n += 1\n"
				 "except OSError as e:\n"
				 "    print('refused after', n, e.errno)\n    sys.exit(1)\n"),
		     "pids", 16),
		 CALL_MS);
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

/* The same promise when every process forks at once (the VM tier's
 * fork_bomb.py): RLIMIT_NPROC, the backstop for a daemon without cgroups,
 * counts a fork before the pids controller does, so in-flight forks made a
 * bomb end on NPROC's EAGAIN with no pids event, most of the time, and the
 * response named no limit. Several bombs, since one may win the race. */
START_TEST(test_fork_bomb_names_pids)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	for (int i = 0; i < 8; i++) {
		json_t *r = run1(&d,
				 lim(lim(job("bomb", "import os, sys, time\n"
						     "main = os.getpid()\n"
						     "while True:\n"
						     "    try:\n"
						     "        os.fork()\n"
						     "    except OSError as e:\n"
						     "        if os.getpid() == main:\n"
						     "            sys.exit(1)\n"
						     "        time.sleep(60)\n"
						     "        os._exit(0)\n"),
					 "pids", 20),
				     "wall_ms", 10000),
				 CALL_MS);
		SKIP_UNLESS_CGROUP(r, "pids", d,
				   "limit_hit pids (read from the cgroup's pids.events)");
		CHECK_RM(r, streq(sget(r, "verdict"), "runtime_error"), "bomb %d", i);
		CHECK_RM(r, streq(sget(r, "limit_hit"), "pids"), "bomb %d of 8: limit_hit", i + 1);
		json_decref(r);
	}
	assert_no_job_procs(&d, 1000, "after the fork bombs");
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
	json_t *r = run1(&d, lim(lim(req, "memory_mb", 100), "tmpfs_mb", 1024), CALL_MS);
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
 * action is killed by SIGXFSZ, also a runtime_error naming the signal: the
 * job can lower its own RLIMIT_FSIZE or send itself SIGXFSZ, so the signal
 * is no evidence of the daemon's limit (docs/protocol.md). */
START_TEST(test_file_size_limit)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *req =
	    job("fsize", "b = b'x' * (1 << 20)\nwith open('/tmp/big', 'wb') as f:\n"
			 "    for i in range(16):\n        f.write(b)\n        f.flush()\n"
			 "print('wrote 16 MiB')\n");
	json_t *r = run1(&d, lim(req, "tmpfs_mb", 8), CALL_MS);
	CHECK_R(r, !strstr(sget(r, "stdout") ? sget(r, "stdout") : "", "wrote 16 MiB"));
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, strstr(sget(r, "stderr") ? sget(r, "stderr") : "", "File too large") != NULL);
	json_decref(r);
	req = job("fsize2", "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
			    "b = b'x' * (1 << 20)\nwith open('/tmp/big', 'wb') as f:\n"
			    "    for i in range(16):\n        f.write(b)\n        f.flush()\n");
	r = run1(&d, lim(req, "tmpfs_mb", 8), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "runtime_error"));
	CHECK_R(r, json_is_null(json_object_get(r, "limit_hit")));
	CHECK_R(r, iget(r, "signal") == SIGXFSZ);
	CHECK_R(r, strstr(sget(r, "message") ? sget(r, "message") : "", "SIGXFSZ") != NULL);
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
	    run1(&d, job("utf8", "import sys\nsys.stdout.buffer.write(b'a\\xffb\\xc3\\xa9\\n')\n"),
		 CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "stdout"), "a\xef\xbf\xbd"
					    "b\xc3\xa9\n"));
	json_decref(r);
	/* stderr has its own cap, reported on its own flag. */
	r = run1(
	    &d,
	    lim(job("errflood", "import sys\nprint('out')\nsys.stdout.flush()\n"
				"b = b'e' * 65536\nwhile True:\n    sys.stderr.buffer.write(b)\n"),
		"output_kb", 64),
	    CALL_MS);
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

static Suite *daemon_jobs_suite(void)
{
	Suite *s = suite_create("daemon_jobs");
	TCase *t = tmain_tcase(s, "jobs", TIMEOUT_S);
	tcase_add_test(t, test_hello_world);
	tcase_add_test(t, test_interpreter_etc);
	tcase_add_test(t, test_exit_code);
	tcase_add_test(t, test_exception);
	t = tmain_tcase(s, "limits", TIMEOUT_S);
	tcase_add_test(t, test_cpu_limit);
	tcase_add_test(t, test_wall_limit);
	tcase_add_test(t, test_memory_limit);
	tcase_add_test(t, test_fork_bomb);
	tcase_add_test(t, test_output_flood);
	tcase_add_test(t, test_forbidden_syscalls);
	tcase_add_test(t, test_limit_clamp);
	t = tmain_tcase(s, "jail", TIMEOUT_S);
	tcase_add_test(t, test_network);
	tcase_add_test(t, test_readonly_usr);
	tcase_add_test(t, test_no_persistence);
	tcase_add_test(t, test_stdin);
	tcase_add_test(t, test_files);
	tcase_add_test(t, test_capabilities);
	t = tmain_tcase(s, "documented", TIMEOUT_S);
	tcase_add_test(t, test_pids_limit_hit);
	tcase_add_test(t, test_fork_bomb_names_pids);
	tcase_add_test(t, test_tmpfs_counts_as_memory);
	tcase_add_test(t, test_file_size_limit);
	tcase_add_test(t, test_output_encoding_and_stderr);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-integ",
					       .setup = tprofile_load,
					       .teardown = tprofile_free};
	return tmain(daemon_jobs_suite, &opts);
}
