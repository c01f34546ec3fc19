/* The warm path (issue 11; docs/architecture.md, "The warm path"): jobs are
 * forked from a slot's fork server, and nothing one job does reaches the
 * next. Each case is checked on the warm path (the response says "warm")
 * and, where the claim could also fail there, against --cold.
 *   - a job leaves marks everywhere a forked process could keep them (a
 *     preloaded module's state, builtins, os.environ, /tmp, /dev/shm, SysV
 *     shared memory, an abstract socket, a loopback listener, a child left
 *     running) and the next job on the same slot finds none of them;
 *   - the job is pid 2 with its reaper as parent, has no capability, sees
 *     only its own processes, and cannot find the server; while it runs,
 *     its reaper (not a copy of the server) holds its status pipe alone;
 *   - the server survives hostile jobs (kill -1, a fork bomb, an OOM) and is
 *     the same process afterwards; killed or stopped from outside, the next
 *     job still runs (cold) and the slot gets a new server; killed under a
 *     running job, that job runs again, cold, to its own end;
 *   - a test request's seed: the hash of a str equals the cold path's under
 *     the same seed (PYTHONHASHSEED), and after two such requests the slot
 *     has a server for that seed;
 *   - every job is held to its own memory limit, the same as the job
 *     before it or not (the last job's limits are written ahead), and a
 *     job with the smallest limits a request may ask for leaves the slot
 *     warm again within seconds;
 *   - a pids limit of 1 is raised to 2 and runs alike on both paths;
 *   - --cold answers "cold" and ping reports no fork server.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"

#define TIMEOUT_S 120
#define CALL_MS 60000

/* A job that leaves a mark everywhere, then a job that looks for them. */
static const char LEAVE[] =
    "import os, sys, socket, json, builtins, subprocess, mmap\n"
    "json.WARM_MARK = 'leaked'\n"
    "builtins.WARM_MARK = 'leaked'\n"
    "os.environ['WARM_MARK'] = 'leaked'\n"
    "open('/tmp/warm_mark', 'w').write('x')\n"
    "open('/dev/shm/warm_mark', 'w').write('x')\n"
    "import ctypes\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "shmid = libc.shmget(0x5bd1, 4096, 0o1666)\n"
    "print('shm', shmid)\n"
    "a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "a.bind('\\0warm_mark'); a.listen()\n"
    "t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "t.bind(('127.0.0.1', 47111)); t.listen()\n"
    "subprocess.Popen(['sleep', '30'], start_new_session=True)\n"
    "print('LEFT', flush=True)\n";

static const char LOOK[] = "import os, sys, socket, json, builtins, ctypes\n"
			   "found = []\n"
			   "if getattr(json, 'WARM_MARK', None): found.append('module')\n"
			   "if getattr(builtins, 'WARM_MARK', None): found.append('builtins')\n"
			   "if 'WARM_MARK' in os.environ: found.append('environ')\n"
			   "if os.path.exists('/tmp/warm_mark'): found.append('tmp')\n"
			   "if os.path.exists('/dev/shm/warm_mark'): found.append('shm_file')\n"
			   "libc = ctypes.CDLL(None)\n"
			   "if libc.shmget(0x5bd1, 0, 0) >= 0: found.append('sysv')\n"
			   "a2 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
			   "try:\n"
			   "    a2.connect('\\0warm_mark'); found.append('abstract')\n"
			   "except OSError: pass\n"
			   "t2 = socket.socket()\n"
			   "try:\n"
			   "    t2.connect(('127.0.0.1', 47111)); found.append('tcp')\n"
			   "except OSError: pass\n"
			   "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
			   "if pids != [1, os.getpid()]: found.append('procs %s' % pids)\n"
			   "print('FOUND', found)\n";

static json_t *run_on(struct sbx_conn *c, const char *id, const char *code)
{
	return call(c, job(id, code), CALL_MS);
}

/* Waits until ping reports every fork server ready (at most 60 s). */
static void wait_warm(struct test_daemon *d)
{
	ck_assert_msg(td_wait_warm(d, 60000) == 0, "%s", d->err);
}

/* A second daemon in the same test needs uids of its own. */
static char g_base2[32];
static const char *base2(const struct test_daemon *first)
{
	snprintf(g_base2, sizeof g_base2, "%u", (unsigned)first->uid_base + 64u);
	return g_base2;
}

/* Stops a warm daemon and the cold one beside it, and removes their files. */
static void stop_pair(struct test_daemon *w, struct test_daemon *k)
{
	td_stop(w, 10000);
	td_stop(k, 10000);
	td_cleanup(w);
	td_cleanup(k);
}

/* One worker: every job is on the same slot, forked from the same server. */
START_TEST(test_nothing_crosses_jobs)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	struct sbx_conn *c = conn_open(&d);
	for (int round = 0; round < 2; round++) {
		json_t *r = run_on(c, "leave", LEAVE);
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		CHECK_R(r, streq(sget(r, "path"), "warm"));
		CHECK_R(r, strstr(sget(r, "stdout"), "LEFT") != NULL);
		json_decref(r);
		r = run_on(c, "look", LOOK);
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		CHECK_R(r, streq(sget(r, "path"), "warm"));
		CHECK_R(r, strstr(sget(r, "stdout"), "FOUND []") != NULL);
		json_decref(r);
	}
	/* The control: the same look inside the leaving job finds its marks. */
	char both[4096];
	snprintf(both, sizeof both, "%s%s", LEAVE, LOOK);
	json_t *r = run_on(c, "both", both);
	CHECK_R(r,
		strstr(sget(r, "stdout"), "'module', 'builtins', 'environ', 'tmp', "
					  "'shm_file', 'sysv', 'abstract', 'tcp', 'procs") != NULL);
	json_decref(r);
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}
END_TEST

static const char IDS[] =
    "import os\n"
    "st = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
    "print(os.getpid(), os.getppid(), st['CapEff'].strip(), st['CapBnd'].strip(),\n"
    "      st['NoNewPrivs'].strip(), st['Seccomp'].strip(), os.getuid(), os.getgid())\n"
    "print(open('/proc/1/cmdline').read().replace('\\0', ' '))\n"
    "print(sorted(os.listdir('/proc/self/fd')))\n";

/* The same facts on both paths (the parity tests compare much more). */
START_TEST(test_ids_like_cold)
{
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	wait_warm(&w);
	json_t *rw = run1(&w, job("ids", IDS), CALL_MS);
	json_t *rk = run1(&k, job("ids", IDS), CALL_MS);
	CHECK_R(rw, streq(sget(rw, "path"), "warm"));
	CHECK_R(rk, streq(sget(rk, "path"), "cold"));
	CHECK_R(rw,
		strncmp(sget(rw, "stdout"), "2 1 0000000000000000 0000000000000000 1 2 ", 42) == 0);
	/* uids differ by --uid-base: compare what follows them. */
	const char *a = strchr(sget(rw, "stdout"), '\n'), *b = strchr(sget(rk, "stdout"), '\n');
	ck_assert_msg(a && b && strcmp(a, b) == 0, "warm %s\ncold %s", sget(rw, "stdout"),
		      sget(rk, "stdout"));
	json_decref(rw);
	json_decref(rk);
	stop_pair(&w, &k);
}
END_TEST

/* The fork servers: the daemon's children's children running Python. */
static int servers(pid_t daemon, pid_t *out, int max)
{
	pid_t inits[16];
	int n = td_children(daemon, inits, 16), k = 0;
	for (int i = 0; i < n && k < max; i++) {
		pid_t kids[4];
		int m = td_children(inits[i], kids, 4);
		for (int j = 0; j < m && k < max; j++) {
			char path[64], exe[256];
			snprintf(path, sizeof path, "/proc/%d/exe", (int)kids[j]);
			ssize_t len = readlink(path, exe, sizeof exe - 1);
			if (len > 0 && (exe[len] = '\0', strstr(exe, "python")))
				out[k++] = kids[j];
		}
	}
	return k;
}

static const char HOSTILE[] = "import os, signal\n"
			      "try:\n"
			      "    os.kill(-1, signal.SIGKILL)\n"
			      "except OSError as e:\n"
			      "    print('kill(-1)', e.strerror)\n"
			      "for p in range(1, 400):\n"
			      "    try:\n"
			      "        os.kill(p, signal.SIGKILL)\n"
			      "    except OSError:\n"
			      "        pass\n"
			      "print('ALIVE')\n";

START_TEST(test_server_survives_jobs_and_faults)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	pid_t before[4], after[4];
	int n = servers(d.pid, before, 4);
	ck_assert_msg(n == 4, "%d fork servers under the daemon", n);
	struct sbx_conn *c = conn_open(&d);
	json_t *r = run_on(c, "hostile", HOSTILE);
	CHECK_R(r, streq(sget(r, "path"), "warm"));
	json_decref(r);
	r = call(c,
		 lim(job("bomb", "import os\nwhile True:\n    try:\n        os.fork()\n    "
				 "except OSError:\n        pass\n"),
		     "wall_ms", 1500),
		 CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	json_decref(r);
	r = call(c,
		 lim(job("oom", "b = bytearray(400 << 20)\nb[::4096] = b'x' * len(b[::4096])\n"),
		     "memory_mb", 64),
		 CALL_MS);
	/* Without a cgroup (RLIMIT_AS) nothing the job cannot fake shows the
	 * limit: its MemoryError is its own runtime_error. */
	char why[256];
	CHECK_R(r, streq(sget(r, "verdict"), cgroup_enforces(r, "memory_mb", why, sizeof why)
						 ? "memory_limit"
						 : "runtime_error"));
	CHECK_R(r, streq(sget(r, "path"), "warm"));
	json_decref(r);
	ck_assert_int_eq(servers(d.pid, after, 4), 4);
	for (int i = 0; i < 4; i++) {
		bool same = false;
		for (int k = 0; k < 4; k++)
			same |= after[i] == before[k];
		ck_assert_msg(same, "fork server %d is new: one was rebuilt", (int)after[i]);
	}
	/* Killed from outside: that job may run cold, the slot rebuilds. */
	for (int i = 0; i < 4; i++)
		kill(after[i], SIGKILL);
	r = run_on(c, "after-kill", "print('ok')");
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	bool warm_again = false;
	for (int i = 0; i < 100 && !warm_again; i++) {
		r = run_on(c, "again", "print('ok')");
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		warm_again = streq(sget(r, "path"), "warm");
		json_decref(r);
		td_sleep_ms(100);
	}
	ck_assert_msg(warm_again, "no warm job after the servers were killed");
	/* Stopped from outside: the job does not hang on it. (Only the plain
	 * runs' server is back: the other is rebuilt at its next job.) */
	n = servers(d.pid, after, 4);
	ck_assert_int_ge(n, 1);
	for (int i = 0; i < n; i++)
		kill(after[i], SIGSTOP);
	long long t0 = td_now_ms();
	r = run_on(c, "after-stop", "print('ok')");
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, td_now_ms() - t0 < 15000);
	json_decref(r);
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}
END_TEST

/* Its server killed while the job runs: the server's PID namespace takes
 * the job's pid 1 with it, and the job runs again, cold, to its own end
 * (not an "error" for a fault the job did not make). */
START_TEST(test_server_killed_under_a_job)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	pid_t sv[4];
	int n = servers(d.pid, sv, 4);
	ck_assert_msg(n == 4, "%d fork servers under the daemon", n);
	struct sbx_conn *c = conn_open(&d);
	pid_t killer = fork();
	ck_assert_int_ge(killer, 0);
	if (killer == 0) {
		td_sleep_ms(700); /* the job is in its sleep by then */
		for (int i = 0; i < n; i++)
			kill(sv[i], SIGKILL);
		_exit(0);
	}
	json_t *r = run_on(c, "under",
			   "import time\nprint('began', flush=True)\n"
			   "time.sleep(2)\nprint('ended')\n");
	int st = -1;
	ck_assert_int_eq(waitpid(killer, &st, 0), killer);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "path"), "cold"));
	CHECK_R(r, strstr(sget(r, "stdout"), "began\nended") != NULL);
	json_decref(r);
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}
END_TEST

/* Every job's pid 1 under the servers is the reaper, never a copy of the
 * server. The one whose job runs (its job's /tmp has the marker) holds its
 * status pipe alone (fd 3): the job's channel, the socket to the job and
 * the job's other descriptors were closed before its code ran. A pid 1
 * still waiting for its job holds its two sockets (3, 4) and nothing of the
 * server's. Read from the host, in a child, while the job sleeps; 0 when
 * all is so. */
static int reapers_hold_their_own(pid_t daemon)
{
	td_sleep_ms(700);
	pid_t sv[4];
	int n = servers(daemon, sv, 4), running = 0, waiting = 0;
	for (int i = 0; i < n; i++) {
		pid_t kids[4];
		int m = td_children(sv[i], kids, 4);
		for (int j = 0; j < m; j++) {
			pid_t job[2];
			if (td_children(kids[j], job, 2) != 1)
				continue;
			char path[96], exe[256], fds[128];
			snprintf(path, sizeof path, "/proc/%d/exe", (int)kids[j]);
			ssize_t len = readlink(path, exe, sizeof exe - 1);
			exe[len > 0 ? len : 0] = '\0';
			snprintf(path, sizeof path, "/proc/%d/root/tmp/reaper_marker", (int)job[0]);
			bool runs = access(path, F_OK) == 0;
			running += runs;
			waiting += !runs;
			const char *want = runs ? "3 " : "3 4 ";
			if (tproc_fd_numbers(kids[j], fds, sizeof fds) < 0 ||
			    strstr(exe, "python") || strcmp(fds, want) != 0) {
				fprintf(stderr, "pid 1 %d (%s): exe %s, fds [%s], not [%s]\n",
					(int)kids[j], runs ? "its job runs" : "waiting", exe, fds,
					want);
				return 1;
			}
		}
	}
	if (running != 1 || waiting < 1)
		fprintf(stderr, "%d pid 1s with a running job, %d waiting\n", running, waiting);
	return running == 1 && waiting >= 1 ? 0 : 1;
}

START_TEST(test_reapers_hold_their_own)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	struct sbx_conn *c = conn_open(&d);
	pid_t look = fork();
	ck_assert_int_ge(look, 0);
	if (look == 0)
		_exit(reapers_hold_their_own(d.pid));
	json_t *r = run_on(c, "sleeper",
			   "import time\nopen('/tmp/reaper_marker', 'w').close()\n"
			   "time.sleep(2)\nprint('ok')\n");
	int st = -1;
	ck_assert_int_eq(waitpid(look, &st, 0), look);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "path"), "warm"));
	json_decref(r);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a job's pid 1 held more than its own descriptors (stderr above)");
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}
END_TEST

/* The next job's cgroup gets the last job's limits ahead when they are
 * not below the profile's defaults (512 MB), and a job's own are written
 * only where they differ (run_warm.c, cg_job_limit_ahead): every job is
 * held to its own memory limit, whether it asks for the same as the job
 * before it or not, above the defaults where limits are written ahead. */
START_TEST(test_limits_follow_each_job)
{
	static const struct {
		int memory_mb;
		const char *verdict;
	} seq[] = {{600, "memory_limit"}, {1024, "pass"},	 {1024, "pass"},
		   {600, "memory_limit"}, {600, "memory_limit"}, {1024, "pass"}};
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		char id[16];
		snprintf(id, sizeof id, "m%zu", i);
		json_t *r = run1(&d,
				 lim(job(id, "b = b'x' * (800 << 20)\nprint(len(b))\n"),
				     "memory_mb", seq[i].memory_mb),
				 CALL_MS);
		SKIP_UNLESS_CGROUP(r, "memory_mb", d, "a memory limit per job");
		CHECK_R(r, streq(sget(r, "path"), "warm") &&
			       streq(sget(r, "verdict"), seq[i].verdict));
		json_decref(r);
	}
	td_stop(&d, 10000);
	td_cleanup(&d);
}
END_TEST

/* A request may ask for 1 MB and 1 process. Such limits, written ahead
 * into the next job's cgroup, would kill or stall that job's pid 1 and the
 * job forked ahead while they prepare, every time: the slot would serve
 * cold for good. Limits below the profile's defaults are left to the job
 * that asks for them (run_warm.c, ahead_ok). Nor may the job itself take
 * that cgroup: its pid 1 and the job forked ahead already use more than
 * 1 MB there, so the limit's write failed (v1: EBUSY) and the job ended in
 * `error` with the server rebuilt, for any client that asked
 * (fits_prepared). Such a job runs cold in a cgroup of its own and is
 * judged as there (1 MB: `memory_limit`); the slot stays warm for the next. A
 * pids limit of 1 (raised to 2) still takes that cgroup (pids.max refuses new forks, it
 * kills nothing), and its verdict is its own business. */
START_TEST(test_tiny_limits_stay_with_their_job)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	wait_warm(&d);
	struct sbx_conn *c = conn_open(&d);
	json_t *r = run_on(c, "before", "print(1)");
	CHECK_R(r, streq(sget(r, "path"), "warm"));
	SKIP_UNLESS_CGROUP(r, "memory_mb", d, "a cgroup made ahead for the next job");
	json_decref(r);
	for (int i = 0; i < 3; i++) {
		char id[16];
		snprintf(id, sizeof id, "tiny%d", i);
		r = call(c, lim(job(id, "print('TINY')"), "memory_mb", 1 + i), CALL_MS);
		/* Whether a fresh interpreter fits in 3 MB is the kernel's
		 * business (Debian's 6.1 on v2 runs it): judged as cold, never
		 * `error`. */
		const char *v = sget(r, "verdict");
		CHECK_R(r, streq(sget(r, "path"), "cold") &&
			       (streq(v, "pass") || (streq(v, "memory_limit") &&
						     streq(sget(r, "limit_hit"), "memory"))));
		json_decref(r);
	}
	r = call(c, lim(lim(job("tinyp", "print('TINY')"), "memory_mb", 1), "pids", 1), CALL_MS);
	json_decref(r);
	r = call(c, lim(job("onep", "print('ONE')"), "pids", 1), CALL_MS);
	json_decref(r);
	/* Nothing was rebuilt: the job after them runs warm at once. */
	r = run_on(c, "after",
		   "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\n"
		   "os.waitpid(pid, 0)\nprint(len(bytearray(8 << 20)))\n");
	CHECK_R(r, streq(sget(r, "verdict"), "pass") &&
		       json_is_null(json_object_get(r, "limit_hit")) &&
		       streq(sget(r, "path"), "warm"));
	json_decref(r);
	sbx_close(c);
	char *log = td_log(&d);
	ck_assert_msg(!strstr(log, "rebuilding") && !strstr(log, "took no limits"),
		      "a job with 1 MB rebuilt the slot's server:\n%s", log);
	free(log);
	td_stop(&d, 10000);
	td_cleanup(&d);
}
END_TEST

static json_t *seeded(const char *id, int seed)
{
	json_t *o = json_pack("{s:s,s:s,s:[s],s:s,s:i}", "id", id, "code",
			      "print(hash('sandboxd'))\ndef f():\n    return 1\n", "tests",
			      "assert f() == 1", "format", "asserts", "seed", seed);
	ck_assert_ptr_nonnull(o);
	return o;
}

START_TEST(test_seeded_hash_like_cold)
{
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	wait_warm(&w);
	struct sbx_conn *c = conn_open(&w);
	json_t *cold = run1(&k, seeded("s", 1234), CALL_MS);
	CHECK_R(cold, streq(sget(cold, "path"), "cold"));
	/* No server has this seed: the first two run cold and rebuild it;
	 * once its imports are done, the same seed runs warm. */
	bool warm = false;
	for (int i = 0; i < 60 && !warm; i++) {
		json_t *r = call(c, seeded("s", 1234), CALL_MS);
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		ck_assert_msg(streq(sget(r, "stdout"), sget(cold, "stdout")),
			      "seeded hash: %s %s, cold %s", sget(r, "path"), sget(r, "stdout"),
			      sget(cold, "stdout"));
		warm = streq(sget(r, "path"), "warm");
		ck_assert_msg(i >= 2 || !warm, "request %d with a new seed ran warm", i);
		json_decref(r);
		if (!warm)
			td_sleep_ms(250);
	}
	ck_assert_msg(warm, "the seed's server never became ready");
	json_decref(cold);
	sbx_close(c);
	stop_pair(&w, &k);
}
END_TEST

/* A pids limit of 1: the job's pid 1 counts in its cgroup, so the cold
 * path's init could not fork the program (`error`), while a warm job,
 * forked before its limits, ran. The limit is raised to 2 (the response's
 * limits say so) and both paths run the program alike: it runs, and its
 * own fork is refused. */
START_TEST(test_pids_one_like_cold)
{
	static const char FORK[] = "import os\n"
				   "try:\n"
				   "    pid = os.fork()\n"
				   "except OSError as e:\n"
				   "    print('refused', e.errno)\n"
				   "else:\n"
				   "    if pid == 0:\n"
				   "        os._exit(0)\n"
				   "    os.waitpid(pid, 0)\n"
				   "    print('forked')\n";
	struct test_daemon w, k;
	START(w, "--workers", "1");
	START(k, "--workers", "1", "--cold", "--uid-base", base2(&w));
	wait_warm(&w);
	const char *paths[2] = {"warm", "cold"};
	struct test_daemon *ds[2] = {&w, &k};
	for (int i = 0; i < 2; i++) {
		json_t *r = run1(ds[i], lim(job("one", FORK), "pids", 1), CALL_MS);
		CHECK_RM(r, streq(sget(r, "path"), paths[i]), "%s daemon", paths[i]);
		CHECK_RM(r, streq(sget(r, "verdict"), "pass"), "%s path", paths[i]);
		CHECK_RM(r, iget2(r, "limits", "pids") == 2, "%s path", paths[i]);
		CHECK_RM(r, streq(sget(r, "stdout"), "refused 11\n"), "%s path", paths[i]);
		json_decref(r);
	}
	stop_pair(&w, &k);
}
END_TEST

START_TEST(test_cold_flag)
{
	struct test_daemon d;
	START(d, "--workers", "1", "--cold");
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "p");
	CHECK_R(p, iget(p, "warm_ready") == 0 && iget(p, "warm_servers") == 0);
	json_decref(p);
	json_t *r = run_on(c, "cold", "print(1)");
	CHECK_R(r, streq(sget(r, "path"), "cold"));
	json_decref(r);
	sbx_close(c);
	td_stop(&d, 10000);
	td_cleanup(&d);
	START(d, "--workers", "1");
	wait_warm(&d);
	c = conn_open(&d);
	p = ping(c, "p");
	/* Per slot: plain and test requests, light and with the profile's
	 * preload (numpy, pandas). */
	CHECK_R(p, iget(p, "warm_servers") == 4 && iget(p, "warm_ready") == 4 &&
		       iget(p, "warm_rss_kb") > 0);
	json_decref(p);
	sbx_close(c);
	td_stop(&d, 10000);
	td_cleanup(&d);
}
END_TEST

static Suite *warm_suite(void)
{
	Suite *s = suite_create("daemon_warm");
	TCase *t = tmain_tcase(s, "warm", TIMEOUT_S);
	tcase_add_test(t, test_nothing_crosses_jobs);
	tcase_add_test(t, test_ids_like_cold);
	tcase_add_test(t, test_server_survives_jobs_and_faults);
	tcase_add_test(t, test_server_killed_under_a_job);
	tcase_add_test(t, test_reapers_hold_their_own);
	tcase_add_test(t, test_seeded_hash_like_cold);
	tcase_add_test(t, test_limits_follow_each_job);
	tcase_add_test(t, test_tiny_limits_stay_with_their_job);
	tcase_add_test(t, test_pids_one_like_cold);
	tcase_add_test(t, test_cold_flag);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true, .daemon = true, .tmpdir = "sbx-warm"};
	return tmain(warm_suite, &opts);
}
