/* The job's init holds no other job's data (issue 10, item 7): each job's
 * init is sandboxd-init, a small static program the daemon's clone child
 * execs before any layer, not a copy of the daemon's memory. Two concurrent
 * jobs each carry a random marker (in code, stdin and a file); the host
 * reads each job's init memory through /proc/PID/mem and finds neither
 * marker (the init unmaps its job's description once the payload is
 * forked), while the same scan finds the init's own passwd line there and
 * each job's marker in that job's payload (the controls). Before
 * sandboxd-init, the init of the job started second held the first job's
 * marker (a copy of the daemon's heap). Also: /proc/1/cmdline in the jail
 * shows only "sandboxd-init", and the init's exe is sandboxd-init (a warm
 * job's pid 1, its reaper: sandboxd-reaper, named sandboxd-init). Run as
 * root from the repository root (make integration). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define TIMEOUT_S 90
#define CALL_MS 60000
#define MAX_INITS 8

/* "<tag>-" and 32 random hex digits: nothing else in memory matches it. */
static void make_marker(char *buf, size_t len, const char *tag)
{
	unsigned char r[16];
	ck_assert_int_eq(getrandom(r, sizeof r, 0), (ssize_t)sizeof r);
	int n = snprintf(buf, len, "%s-", tag);
	for (size_t i = 0; i < sizeof r && (size_t)n + 2 < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%02x", r[i]);
}

/* A running job as the host sees it: its init and the payload under it. */
struct job_procs {
	pid_t init, payload;
	long uid;
};

/* The running jobs: parents of the processes whose uid is a job uid. */
static int find_jobs(uid_t lo, uid_t hi, struct job_procs *out, int max)
{
	int n = 0;
	char path[300], line[256];
	DIR *dir = opendir("/proc");
	ck_assert_ptr_nonnull(dir);
	struct dirent *e;
	while ((e = readdir(dir)) && n < max) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long uid = -1, ppid = -1;
		while (fgets(line, sizeof line, f)) {
			if (sscanf(line, "Uid: %ld", &uid) == 1)
				continue;
			sscanf(line, "PPid: %ld", &ppid);
		}
		fclose(f);
		if (uid < (long)lo || uid > (long)hi || ppid <= 1)
			continue;
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= out[i].init == (pid_t)ppid;
		if (!seen)
			out[n++] = (struct job_procs){(pid_t)ppid, (pid_t)atol(e->d_name), uid};
	}
	closedir(dir);
	return n;
}

static int wait_jobs(uid_t lo, uid_t hi, int want, struct job_procs *out, int timeout_ms)
{
	long long end = td_now_ms() + timeout_ms;
	int n;
	while ((n = find_jobs(lo, hi, out, MAX_INITS)) < want && td_now_ms() < end)
		td_sleep_ms(100);
	return n;
}

/* Whether needle occurs anywhere in the readable memory of pid (as root,
 * through /proc/PID/maps and /proc/PID/mem). *scanned: bytes read. */
static bool memory_has(pid_t pid, const char *needle, size_t *scanned)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "r");
	ck_assert_msg(maps != NULL, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(mem >= 0, "%s: %s", path, strerror(errno));
	size_t nl = strlen(needle), chunk = 1 << 20;
	char *buf = malloc(chunk + nl);
	ck_assert_ptr_nonnull(buf);
	bool found = false;
	*scanned = 0;
	while (!found && fgets(line, sizeof line, maps)) {
		uint64_t a, b;
		char perms[8];
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &a, &b, perms) != 3 ||
		    perms[0] != 'r')
			continue;
		size_t carry = 0;
		for (uint64_t off = a; off < b && !found;) {
			size_t want = (size_t)(b - off < chunk ? b - off : chunk);
			ssize_t got = pread(mem, buf + carry, want, (off_t)off);
			if (got <= 0)
				break; /* [vvar] and the like */
			*scanned += (size_t)got;
			found = memmem(buf, carry + (size_t)got, needle, nl) != NULL;
			/* Keep the tail so a marker across two chunks is found. */
			size_t keep = carry + (size_t)got < nl ? carry + (size_t)got : nl - 1;
			memmove(buf, buf + carry + (size_t)got - keep, keep);
			carry = keep;
			off += (uint64_t)got;
		}
	}
	free(buf);
	close(mem);
	fclose(maps);
	return found;
}

/* A job that keeps running while the host looks at its init, holding its
 * marker in its code, its stdin and a file. */
static json_t *marked_job(const char *id, const char *marker)
{
	char code[512], in[128], file[128];
	snprintf(code, sizeof code,
		 "import sys, time\nx = '%s'\ndata = sys.stdin.read()\n"
		 "print('started', flush=True)\ntime.sleep(5)\n",
		 marker);
	snprintf(in, sizeof in, "%s-stdin", marker);
	snprintf(file, sizeof file, "%s-file", marker);
	json_t *r = json_pack("{s:s,s:s,s:s,s:{s:s}}", "id", id, "code", code, "stdin", in, "files",
			      "data.txt", file);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* The parent of pid (from /proc/PID/status), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long pp = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "PPid: %ld", &pp) == 1)
			break;
	if (f)
		fclose(f);
	return (pid_t)pp;
}

/* Each marker is in the memory of one payload, a different one each: the
 * control for the markers (the same scan finds each job's marker in its own
 * payload: its code, stdin and file). The payloads' indexes go to *a, *b. */
static bool payloads_marked(const struct job_procs *jobs, int n, const char *ma, const char *mb,
			    int *a, int *b)
{
	size_t sx;
	*a = *b = -1;
	for (int i = 0; i < n; i++) {
		if (memory_has(jobs[i].payload, ma, &sx))
			*a = i;
		if (memory_has(jobs[i].payload, mb, &sx))
			*b = i;
	}
	return *a >= 0 && *b >= 0 && *a != *b;
}

/* Both paths: a cold job's init is the daemon's child and holds its own job
 * only; a warm job's pid 1 is the reaper its fork server started (holding
 * no job at all), and the server (its parent) holds no job either. */
static void init_holds_no_other_job(bool cold)
{
	struct test_daemon d;
	if (cold)
		START(d, "--workers", "2", "--cold");
	else
		START(d, "--workers", "2");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	char ma[64], mb[64];
	make_marker(ma, sizeof ma, "SBXMARKA");
	make_marker(mb, sizeof mb, "SBXMARKB");
	struct sbx_conn *c = conn_open(&d);
	/* B first: its request is in the daemon's memory when A's init starts. */
	submit(c, marked_job("b", mb));
	struct job_procs jobs[MAX_INITS];
	ck_assert_msg(wait_jobs(uid_lo(&d), uid_hi(&d), 1, jobs, 20000) >= 1,
		      "job b never started");
	submit(c, marked_job("a", ma));
	int n = wait_jobs(uid_lo(&d), uid_hi(&d), 2, jobs, 20000);
	ck_assert_msg(n == 2, "expected the inits of 2 running jobs, found %d", n);
	/* Until both payloads have read their stdin: a fixed 500 ms was too
	 * short for the job started second under emulation beside another
	 * suite (the VM tier). */
	long long until = td_now_ms() + 20000;
	int payload_a, payload_b;
	while (!payloads_marked(jobs, n, ma, mb, &payload_a, &payload_b) && td_now_ms() < until)
		td_sleep_ms(100);
	for (int i = 0; i < n; i++) {
		size_t si, sp, sx;
		char own[64];
		/* The init's own data (its passwd line, with its job's uid): the
		 * scan does read what the init holds. */
		snprintf(own, sizeof own, "sandbox:x:%ld:%ld:", jobs[i].uid, jobs[i].uid);
		bool ia = memory_has(jobs[i].init, ma, &si), ib = memory_has(jobs[i].init, mb, &sx),
		     io = memory_has(jobs[i].init, own, &sx);
		bool pa = memory_has(jobs[i].payload, ma, &sp),
		     pb = memory_has(jobs[i].payload, mb, &sx);
		fprintf(
		    stderr,
		    "job uid %ld: init %d (%zu bytes readable) markers a=%d b=%d own passwd=%d; "
		    "payload %d markers a=%d b=%d\n",
		    jobs[i].uid, (int)jobs[i].init, si, ia, ib, io, (int)jobs[i].payload, pa, pb);
		ck_assert_msg(!ia && !ib, "init %d holds a job's marker (a=%d b=%d)",
			      (int)jobs[i].init, ia, ib);
		pid_t server = parent_of(jobs[i].init);
		ck_assert_msg((server == d.pid) == cold, "init %d's parent %d on the %s path",
			      (int)jobs[i].init, (int)server, cold ? "cold" : "warm");
		if (cold) {
			ck_assert_msg(io,
				      "init %d: its own passwd line not found: the scan is blind",
				      (int)jobs[i].init);
		} else {
			/* The reaper holds its own environment; the server its code. */
			bool ro = memory_has(jobs[i].init, "SANDBOXD_INIT=reaper", &sx);
			bool sa = memory_has(server, ma, &sx), sb = memory_has(server, mb, &sx),
			     so = memory_has(server, "sandboxd fork server", &sx);
			fprintf(stderr, "  fork server %d (%zu bytes readable): a=%d b=%d own=%d\n",
				(int)server, sx, sa, sb, so);
			ck_assert_msg(ro,
				      "reaper %d: its own environment not found: the scan is "
				      "blind",
				      (int)jobs[i].init);
			ck_assert_msg(!sa && !sb, "fork server %d holds a job's marker (a=%d b=%d)",
				      (int)server, sa, sb);
			ck_assert_msg(so,
				      "fork server %d: its own code not found: the scan is blind",
				      (int)server);
		}
	}
	ck_assert_msg(payload_a >= 0 && payload_b >= 0 && payload_a != payload_b,
		      "each job's marker must be found in its own payload (a in %d, b in %d)",
		      payload_a, payload_b);
	/* The init is sandboxd-init, not a copy of the daemon; a warm job's
	 * pid 1 is the reaper's own program, sandboxd-reaper, built beside
	 * the daemon (the daemon falls back to sandboxd-init's copy only where
	 * it finds none). */
	const char *want = cold ? "sandboxd-init" : "sandboxd-reaper";
	for (int i = 0; i < n; i++) {
		char path[64], exe[4096];
		snprintf(path, sizeof path, "/proc/%d/exe", (int)jobs[i].init);
		ssize_t k = readlink(path, exe, sizeof exe - 1);
		ck_assert_msg(k > 0, "%s: %s", path, strerror(errno));
		exe[k] = '\0';
		const char *base = strrchr(exe, '/');
		ck_assert_msg(base && strcmp(base + 1, want) == 0, "pid 1 %d runs %s, not %s",
			      (int)jobs[i].init, exe, want);
	}
	for (int i = 0; i < 2; i++) {
		char err[512];
		json_t *r = sbx_next(c, CALL_MS, err, sizeof err);
		ck_assert_msg(r != NULL, "response: %s", err);
		CHECK_R(r, streq(sget(r, "verdict"), "pass"));
		json_decref(r);
	}
	sbx_close(c);
	stop_ok(&d);
}

START_TEST(test_init_holds_no_other_job)
{
	init_holds_no_other_job(true);
}
END_TEST

START_TEST(test_warm_holds_no_job)
{
	init_holds_no_other_job(false);
}
END_TEST

/* What a job sees of its pid 1: only sandboxd-init's own command line and
 * name, on both paths (a warm job's pid 1 runs sandboxd-reaper, which names
 * itself so); the path is checked, so neither case passes for the other. */
static void cmdline_in_jail(bool cold)
{
	struct test_daemon d;
	if (cold)
		START(d, "--workers", "1", "--cold");
	else
		START(d, "--workers", "1");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "fork servers: %s", d.err);
	json_t *r = run1(&d,
			 job("cmd", "import os\n"
				    "print(repr(open('/proc/1/cmdline', 'rb').read()))\n"
				    "print(repr(open('/proc/1/comm').read()))\n"
				    "print(open('/proc/1/status').readline().split())\n"
				    "try:\n    print(os.readlink('/proc/1/exe'))\n"
				    "except OSError as e:\n    print('exe', e.errno)\n"),
			 CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "path"), cold ? "cold" : "warm"));
	const char *out = sget(r, "stdout");
	CHECK_R(r, out && strstr(out, "b'sandboxd-init\\x00'\n") == out);
	CHECK_R(r, strstr(out, "'sandboxd-init\\n'"));
	CHECK_R(r, strstr(out, "['Name:', 'sandboxd-init']"));
	/* Root's (or the server's) and non-dumpable: the job may not even
	 * resolve its exe. */
	CHECK_R(r, strstr(out, "exe 13"));
	CHECK_R(r, !strstr(out, "--workers") && !strstr(out, "sock"));
	json_decref(r);
	stop_ok(&d);
}

START_TEST(test_init_cmdline_in_jail)
{
	cmdline_in_jail(true);
}
END_TEST

START_TEST(test_warm_cmdline_in_jail)
{
	cmdline_in_jail(false);
}
END_TEST

static Suite *init_suite(void)
{
	Suite *s = suite_create("daemon_init");
	TCase *t = tcase_create("init");
	tcase_set_timeout(t, TIMEOUT_S);
	tcase_add_test(t, test_init_holds_no_other_job);
	tcase_add_test(t, test_warm_holds_no_job);
	tcase_add_test(t, test_init_cmdline_in_jail);
	tcase_add_test(t, test_warm_cmdline_in_jail);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true, .daemon = true, .tmpdir = "sbx-init"};
	return tmain(init_suite, &opts);
}
