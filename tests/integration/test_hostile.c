/* The hostile-program suite: every tests/hostile/NAME.py is a program written
 * to break the jail, run against a real sandboxd. Each file starts with a
 * header the driver reads ("# key: value" lines among its leading comments):
 *
 *   # expect: timeout|memory_limit   one verdict, or several separated by '|';
 *                                    "error:CODE" expects an error object
 *   # limit_hit: cpu                 the response's limit_hit ("any": non-null,
 *                                    "none": null; '|' separates choices)
 *   # violation: ptrace              violation.syscall ("any": non-null,
 *                                    "none": null; '|' separates choices)
 *   # limits: {"cpu_ms": 2000}       JSON merged into the request's limits
 *   # files: {"a.txt": "..."}        the request's files field
 *   # fetch: ["out", "link"]         the request's fetch_files
 *   # fetched: PATH error            files[PATH] of the response is an error
 *   # fetched: PATH = TEXT           files[PATH] is base64 of exactly TEXT;
 *                                    repeatable
 *   # stdin_bytes: 8388608           the request's stdin: that many bytes
 *   # setup: usr-submount            before the job, mount a world-writable
 *                                    tmpfs at @SUBMOUNT@ (under the host's
 *                                    /usr/local); removed after its checks
 *   # setup: busy-neighbour          before the job, submit another job on
 *                                    the same connection that spins two
 *                                    CPUs for 3 s (what a client with two
 *                                    worker slots can do to the daemon's
 *                                    timing); it must pass, or the program
 *                                    fails; not with victim-survived
 *   # stdout: contains TEXT          (or "not-contains TEXT"); repeatable
 *   # host: CHECK                    a host-side check run after the job;
 *                                    repeatable; one of g_checks[]:
 *
 *   disk-unchanged      used bytes and inodes of /, /tmp, /var/tmp, /dev/shm
 *                       and /root moved by less than a margin
 *   marker-absent       no file named with the marker in the host's writable-
 *                       looking directories or under the daemon's directory
 *   secret-not-leaked   the output holds neither the planted secret, nor the
 *                       daemon's environment secret, nor root's shadow hash
 *   canary-intact       the planted secret is intact, no host /etc file holds
 *                       the marker, the host name is unchanged
 *   listener-untouched  the host's 127.0.0.1:@PORT@ (and [::1]) listener got
 *                       no connection
 *   abstract-untouched  the host's abstract socket "\0sbx-MARKER" got none
 *   no-leftover         no process of the daemon's job uids, and none whose
 *                       command line holds the marker
 *   daemon-alive        the daemon runs and answers a ping
 *   jail-passwd         the output shows the jail's passwd, no host line
 *   victim-survived     a victim job run at the same time still passed
 *   ipc-clean           no host SysV IPC object has a key 0x5bd0-0x5bdf
 *   submount-untouched  the usr-submount tmpfs is still empty
 *   fetch-clean         every fetched file ("files" of the response) is an
 *                       error or base64 holding none of the secrets, within
 *                       PROTO_FETCH_MAX_BYTES in all
 *   sockmem-bounded     the host-wide TCP+UDP memory (/proc/net/sockstat,
 *                       sampled while the batch runs) grew by at most the
 *                       job's memory_mb + 16 MB
 *   kmem-bounded        the host's unreclaimable kernel memory (SUnreclaim
 *                       of /proc/meminfo, sampled while the job runs, alone)
 *                       grew by at most the job's memory_mb + 48 MB
 *   ns-released         within 2 s of the batch's answers the daemon holds
 *                       no job's mount namespace (it keeps each one a moment
 *                       past the answer, sandboxd/jail/reclaim.h)
 *   warm-intact         the job was forked from a fork server ("path"
 *                       warm), no fork server failed or was rebuilt (the
 *                       daemon's log), every slot has both ready (ping);
 *                       nothing to check under --cold
 *
 *   # table: FILE.json               one job per row of FILE.json (beside the
 *                                    program): a JSON array of objects, each
 *                                    with a unique "name" (letters, digits,
 *                                    '_', '.', '-'); see "Tables" below
 *   # requires: NAME                 what the program needs of the machine;
 *                                    repeatable; one of g_reqs[]:
 *
 *   ia32-abi        the kernel's i386 ABI (IA32 emulation): the driver's own
 *                   i386 getpid through int $0x80 in an unfiltered child
 *                   (tests/helpers/skip.c) returns the pid
 *   mount-setattr   mount_setattr(2) (Linux 5.12+; without it the daemon
 *                   binds read-only paths non-recursively, submounts unseen)
 *   socket-memcg    the kernel charges socket buffers to the memory cgroup
 *                   (v2 without cgroup.memory=nosocket, or v1 with the
 *                   memory.kmem.tcp.* files; tests/helpers/skip.c)
 *   cgroup-memory   the response's enforcement.memory_mb names a cgroup (the
 *                   daemon may run without cgroups: then there is no OOM
 *                   counter, so no memory_limit verdict to expect)
 *   cgroup-pids     enforcement.pids names a cgroup
 *   cgroup-cpu      enforcement.cpu_ms names a cgroup (the job's CPU summed
 *                   over all its processes, not RLIMIT_CPU per process)
 *   ipv6            the host has IPv6 on its loopback (bind to [::1]:0;
 *                   tests/helpers/skip.c), as a job's namespace then has
 *
 *   # probe: NAME                    the program probes requirement NAME
 *                                    itself, inside the jail, and prints
 *                                    "PROBE NAME: present (...)" or "PROBE
 *                                    NAME: absent (...)"; that line must be
 *                                    there and agree with the driver's probe
 *
 * A program with a requires header runs alone, as one iteration of the
 * test_hostile_requiring loop, on a daemon the requiring programs share one
 * after another (the other programs share test_hostile_programs); the
 * daemon must still answer after each, and exit 0 on SIGTERM after the last
 * (test_hostile_requiring_stop). When a requirement is not met, the program is a
 * skip: it is reported as "SKIP: hostile/NAME.py: <reason>" (tests/helpers/
 * skip.h; tests/run_suite.sh counts it, never as a pass), its expect,
 * limit_hit, violation and stdout headers are not checked, but its host
 * checks and its probe agreement still are: a skip never hides a breach.
 *
 * Before parsing, the driver substitutes in the whole file: @MARKER@ (a
 * random token unique to this run), @PORT@ (the host listener's port),
 * @SOCK@ (the daemon's socket), @STATEDIR@ (its --state-dir), @DAEMONPID@
 * (its host pid), @SUBMOUNT@ (see setup) and @ASSUME_NO_IA32@ ("1" when
 * SBX_TEST_ASSUME_NO_IA32 is set, else "0").
 *
 * Tables. A program with a table header is not run as it is: each row of
 * the table is one job of its own, named NAME.py[ROW] (SBX_HOSTILE_ONLY
 * matches that name), with its own expectations checked exactly and its own
 * line in the report (each row counts as a program). Before parsing, the
 * driver substitutes @ROW@ with the row as compact JSON and @ROW.KEY@ with
 * each of its string or integer fields, in the whole file, so a row's
 * expectations come from its fields ("# violation: @ROW.violation@"). A
 * token left without a value, a table that cannot be read or a row without
 * a unique name fails the program. A program with a table cannot have a
 * requires header (it would run alone, without its rows). sys_forbidden.py
 * is one, with sys_forbidden.json: a row for every forbidden syscall that a
 * program only has to call to be killed (the programs whose logic differs,
 * in threads, children, storms, other ABIs or namespaces, stay files of
 * their own).
 *
 * Programs run on one daemon (--workers 2) in batches of two; the host checks
 * of a batch run when both jobs have answered. Programs with a setup or a
 * victim run alone (a victim or a busy neighbour beside them); the xjob_*
 * programs run together, at the same time in two slots. persist_* programs
 * run in name order, one at a time, on a --workers 1 daemon (so they share a
 * slot and a uid).
 *
 * test_hostile_controls.c shows that every host check can fail (each is run
 * against a host state that a broken jail would leave), and so can every
 * requirement, probe, violation and table decision. The shared parts are in
 * tests/helpers/hostile.h (program files: hostile_prog.c; host state and
 * checks: hostile_host.c).
 *
 * Run as root from the repository root: make build/tests/test_hostile &&
 * SBX_BUILD=build build/tests/test_hostile. SBX_HOSTILE_ONLY=substring runs
 * only the matching programs; SBX_HOSTILE_DIR overrides tests/hostile.
 * Test-only overrides, to run the skip paths on a machine that has
 * everything: SBX_TEST_ASSUME_NO_IA32=1 makes the driver's IA32 probe report
 * absence (and tells the programs, through @ASSUME_NO_IA32@, to report the
 * same without probing); SBX_TEST_DAEMON_ARGS="--no-cgroups" (words
 * separated by spaces) is added to every daemon this suite starts, as to
 * every daemon of the test helpers (tests/helpers/daemon.h). */
#include <check.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/hostile.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

/* Programs with a requires header, each an iteration of test_hostile_requiring. */
#define MAX_REQ_PROGS 64
static char g_req_progs[MAX_REQ_PROGS][96];
static int g_nreq_progs;
/* The daemon they share, one program after another: started once for their
 * test case in the runner process (an unchecked fixture), used by each
 * iteration (a fork of the runner), stopped by test_hostile_requiring_stop.
 * A daemon start with the shipped profile costs seconds of CPU (numpy and
 * pandas in each fork server); one per program was most of this suite's
 * time, and more again under the sanitizers and in the VM. */
static struct test_daemon g_req_d;
static char g_req_err[1200];

/* --- running ------------------------------------------------------------- */

struct report {
	char *fails; /* the failing lines, for the assertion message */
	size_t flen;
	int npass, nfail, nskip;
	char *table; /* every line */
	size_t tlen;
};

static void append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	char *nb = realloc(*buf, *len + (size_t)n + 1);
	ck_assert_ptr_nonnull(nb);
	memcpy(nb + *len, line, (size_t)n + 1);
	*buf = nb;
	*len += (size_t)n;
	free(line);
}

static void report_prog(struct report *rep, const struct prog *p)
{
	const json_t *r = p->resp;
	const char *code = sget(json_object_get(r, "error"), "code");
	char verdict[96], hit[32] = "-";
	if (code)
		snprintf(verdict, sizeof verdict, "error:%s", code);
	else
		snprintf(verdict, sizeof verdict, "%s",
			 r && sget(r, "verdict") ? sget(r, "verdict") : "-");
	if (r && json_is_string(json_object_get(r, "limit_hit")))
		snprintf(hit, sizeof hit, "%s", sget(r, "limit_hit"));
	const char *sc = sget(json_object_get(r, "violation"), "syscall");
	bool ok = p->why[0] == '\0', skipped = ok && p->skip[0];
	const char *status = skipped ? "SKIP" : ok ? "PASS" : "FAIL";
	char line[6000];
	snprintf(line, sizeof line, "%-28s %-15s %-7s %-17s %-4s %s\n", p->name, verdict, hit,
		 sc ? sc : "-", status, ok ? p->skip : p->why);
	append(&rep->table, &rep->tlen, "%s", line);
	if (isatty(2))
		fprintf(stderr, "%s", line);
	if (skipped) {
		rep->nskip++;
	} else if (ok) {
		rep->npass++;
	} else {
		rep->nfail++;
		append(&rep->fails, &rep->flen, "  %s", line);
	}
}

/* The busy neighbour's answer: it must have spun to its end, or the
 * program did not run beside it. */
static void neighbour_wait(struct sbx_conn *c, const char *id, struct prog *p)
{
	char err[512];
	json_t *r = sbx_wait(c, id, CALL_MS, err, sizeof err);
	const char *v = sget(r, "verdict"), *out = sget(r, "stdout");
	if (!v || strcmp(v, "pass") != 0 || !out || strcmp(out, "spun\n") != 0)
		whyf(p->why, sizeof p->why, "busy-neighbour: the neighbour job ended %s (%s)",
		     v ? v : "without an answer", r ? "" : err);
	json_decref(r);
}

/* Submits the batch (and a victim when one program needs it), waits for
 * every answer, then runs the host checks of each program. */
static void run_batch(struct test_daemon *d, struct prog **batch, int n, struct report *rep)
{
	char err[512];
	bool submount = false;
	for (int i = 0; i < n; i++)
		if (batch[i]->setup_submount && !batch[i]->why[0]) {
			if (!submount && submount_create(batch[i]->why, sizeof batch[i]->why) == 0)
				submount = true;
		}
	struct disk before;
	disk_snapshot(&before);
	bool sample = false;
	for (int i = 0; i < n; i++)
		sample |=
		    has_host(batch[i], "sockmem-bounded") || has_host(batch[i], "kmem-bounded");
	if (sample)
		sample_start();
	struct sbx_conn *c = sbx_connect(d->sock, err, sizeof err);
	ck_assert_msg(c != NULL, "connect: %s", err);
	char beside_id[128] = "";
	bool sent[8] = {false};
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (p->why[0])
			continue; /* broken header: not run */
		/* A program with a victim or a neighbour runs alone. */
		bool victim = has_host(p, "victim-survived");
		if (victim || p->setup_neighbour) {
			snprintf(beside_id, sizeof beside_id, "%s-of-%s",
				 victim ? "victim" : "neighbour", p->name);
			json_t *v = json_pack("{s:s,s:s,s:{s:i,s:i}}", "id", beside_id, "code",
					      victim ? VICTIM_CODE : NEIGHBOUR_CODE, "limits",
					      "wall_ms", 15000, "cpus", victim ? 1 : 2);
			ck_assert_int_eq(sbx_submit(c, v, err, sizeof err), 0);
			json_decref(v);
		}
		json_t *req = prog_request(p);
		sent[i] = sbx_submit(c, req, err, sizeof err) == 0;
		if (!sent[i])
			whyf(p->why, sizeof p->why, "submit: %s", err);
		json_decref(req);
	}
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (!sent[i])
			continue;
		p->resp = sbx_wait(c, p->name, CALL_MS, err, sizeof err);
		if (!p->resp)
			whyf(p->why, sizeof p->why, "no response: %s", err);
		if (beside_id[0] && has_host(p, "victim-survived"))
			p->victim_resp = sbx_wait(c, beside_id, CALL_MS, err, sizeof err);
		if (beside_id[0] && p->setup_neighbour)
			neighbour_wait(c, beside_id, p);
	}
	sbx_close(c);
	if (sample)
		sample_stop();
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (sent[i]) {
			check_requirements(p);
			if (!p->skip[0])
				check_response(p);
			run_host_checks(p, d, &before);
		}
		report_prog(rep, p);
	}
	if (submount)
		submount_remove();
}

static void finish(struct report *rep, const char *what)
{
	printf("%-28s %-15s %-7s %-17s %-4s %s\n", "PROGRAM", "VERDICT", "HIT", "VIOLATION", "OK",
	       "WHY NOT");
	if (rep->fails)
		printf("%s", rep->fails);
	printf("%s", rep->table ? rep->table : "");
	printf("%s: %d held, %d not held, %d skipped\n", what, rep->npass, rep->nfail, rep->nskip);
	fflush(stdout);
	ck_assert_msg(rep->nfail == 0, "%d hostile program(s) not held:\n%s", rep->nfail,
		      rep->fails);
	free(rep->fails);
	free(rep->table);
}

START_TEST(test_hostile_programs)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	struct test_daemon d;
	start_daemon(&d, "2");
	glob_t g = list_programs();
	struct report rep = {0};
	/* Every job: the programs, a table's rows each one job of its own. */
	struct prog **files = calloc(g.gl_pathc, sizeof *files);
	size_t *nrows = calloc(g.gl_pathc, sizeof *nrows);
	ck_assert(files && nrows);
	struct prog *batch[2], *xjob[2];
	int nb = 0, nx = 0, total = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (is_persist(g.gl_pathv[i]) || is_client_script(g.gl_pathv[i]))
			continue;
		files[i] = prog_load_file(g.gl_pathv[i], &d, &nrows[i]);
		for (size_t k = 0; k < nrows[i]; k++) {
			struct prog *p = &files[i][k];
			if (!selected(p->name) || p->nreq)
				continue; /* a requires header: test_hostile_requiring */
			total++;
			if (strncmp(p->name, "xjob_", 5) == 0) {
				if (nx < 2)
					xjob[nx++] = p;
				else
					whyf(p->why, sizeof p->why,
					     "more than two xjob_* programs");
				continue;
			}
			/* A program that needs a victim, a setup or the host's
			 * kernel memory to itself runs alone. */
			if (has_host(p, "victim-survived") || has_host(p, "kmem-bounded") ||
			    p->setup_submount || p->setup_neighbour) {
				if (nb)
					run_batch(&d, batch, nb, &rep);
				nb = 0;
				run_batch(&d, &p, 1, &rep);
				continue;
			}
			batch[nb++] = p;
			if (nb == 2) {
				run_batch(&d, batch, nb, &rep);
				nb = 0;
			}
		}
	}
	if (nb)
		run_batch(&d, batch, nb, &rep);
	if (nx)
		run_batch(&d, xjob, nx, &rep);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		for (size_t k = 0; k < nrows[i]; k++)
			prog_free(&files[i][k]);
		free(files[i]);
	}
	free(files);
	free(nrows);
	globfree(&g);
	char why[512] = "";
	if (!daemon_alive(&d, why, sizeof why))
		rep.nfail++, append(&rep.fails, &rep.flen, "  after the suite: %s\n", why);
	int st = td_stop(&d, 10000);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		rep.nfail++,
		    append(&rep.fails, &rep.flen,
			   "  after the suite: sandboxd did not exit 0 on SIGTERM (%d)\n", st);
	td_cleanup(&d);
	if (!getenv("SBX_HOSTILE_ONLY") && total < 30)
		rep.nfail++,
		    append(&rep.fails, &rep.flen, "  only %d programs (at least 30)\n", total);
	finish(&rep, "hostile programs");
}
END_TEST

/* A program with a requires header: alone, on a daemon of its own, so that
 * a skip is the skip of one Check test (see the top of the file). */
START_TEST(test_hostile_requiring)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	const char *name = g_req_progs[_i];
	char path[256], why[512] = "";
	snprintf(path, sizeof path, "%s/%s", g_dir, name);
	ck_assert_msg(!g_req_err[0], "%s", g_req_err);
	struct test_daemon *d = &g_req_d;
	ck_assert_msg(daemon_alive(d, why, sizeof why), "before %s: %s", name, why);
	struct report rep = {0};
	struct prog p;
	prog_load(&p, path, d, NULL);
	if (!p.why[0] && !p.nreq)
		whyf(p.why, sizeof p.why, "no requires header any more");
	struct prog *pp = &p;
	run_batch(d, &pp, 1, &rep);
	char skip[sizeof p.skip] = "";
	if (!daemon_alive(d, why, sizeof why))
		rep.nfail++, append(&rep.fails, &rep.flen, "  after %s: %s\n", name, why);
	if (!p.why[0])
		snprintf(skip, sizeof skip, "%s", p.skip);
	prog_free(&p);
	finish(&rep, name);
	if (skip[0])
		sbx_skip_report(name, "%s", skip);
}
END_TEST

/* The wait status of pid once it is a zombie (the runner, its parent,
 * reaps it only later), from /proc/PID/stat's exit_code; -1 before. */
static int zombie_status(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *rp = strrchr(buf, ')'), *tok, *save = NULL;
	if (!rp || rp[1] != ' ' || rp[2] != 'Z')
		return -1;
	int field = 2, code = -1; /* fields from 3 (state) on, after the name */
	for (tok = strtok_r(rp + 2, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (++field == 52)
			code = atoi(tok);
	return code;
}

/* After the requiring programs: their daemon exits 0 on SIGTERM. */
START_TEST(test_hostile_requiring_stop)
{
	ck_assert_msg(!g_req_err[0], "%s", g_req_err);
	pid_t pid = g_req_d.pid;
	ck_assert_msg(pid > 0 && kill(pid, SIGTERM) == 0, "sandboxd (%d) is gone", (int)pid);
	int st = -1;
	for (long long end = td_now_ms() + 10000;
	     (st = zombie_status(pid)) < 0 && td_now_ms() < end;)
		td_sleep_ms(10);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "sandboxd did not exit 0 on SIGTERM after the requiring programs (wait "
		      "status %d; -1: still running after 10 s)",
		      st);
}
END_TEST

static void req_start(void)
{
	if (hostile_daemon_up(&g_req_d, "2") < 0)
		snprintf(g_req_err, sizeof g_req_err, "starting sandboxd: %s", g_req_d.err);
}

static void req_stop(void)
{
	td_cleanup(&g_req_d);
}

/* persist_*: one at a time, in name order, on a one-worker daemon, so each
 * runs in the slot (and as the uid) the previous one used. */
START_TEST(test_hostile_persist)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	struct test_daemon d;
	start_daemon(&d, "1");
	glob_t g = list_programs();
	struct report rep = {0};
	int n = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (!is_persist(g.gl_pathv[i]))
			continue;
		size_t nrows;
		struct prog *ps = prog_load_file(g.gl_pathv[i], &d, &nrows);
		for (size_t k = 0; k < nrows; k++) {
			struct prog *pp = &ps[k];
			if (selected(pp->name)) {
				run_batch(&d, &pp, 1, &rep);
				n++;
			}
			prog_free(pp);
		}
		free(ps);
	}
	globfree(&g);
	td_stop(&d, 10000);
	td_cleanup(&d);
	if (!getenv("SBX_HOSTILE_ONLY") && n < 2)
		rep.nfail++, append(&rep.fails, &rep.flen, "  only %d persist_* programs\n", n);
	finish(&rep, "persistence programs");
}
END_TEST

/* The run-wide host state (hostile_setup), then the programs with a
 * requires header: one test iteration each. */
static int setup(void)
{
	if (hostile_setup() < 0)
		return -1;
	char pat[128];
	snprintf(pat, sizeof pat, "%s/*.py", g_dir);
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && g_nreq_progs < MAX_REQ_PROGS; i++) {
			const char *base = strrchr(g.gl_pathv[i], '/');
			base = base ? base + 1 : g.gl_pathv[i];
			if (is_persist(g.gl_pathv[i]) || is_client_script(base) ||
			    !selected(base) || !has_requires(g.gl_pathv[i]))
				continue;
			snprintf(g_req_progs[g_nreq_progs++], sizeof g_req_progs[0], "%s", base);
		}
		globfree(&g);
	}
	return 0;
}

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *t = tmain_tcase(s, "programs", 420);
	tcase_add_test(t, test_hostile_programs);
	tcase_add_test(t, test_hostile_persist);
	if (g_nreq_progs > 0) {
		t = tmain_tcase(s, "requiring", 120);
		tcase_add_unchecked_fixture(t, req_start, req_stop);
		tcase_add_loop_test(t, test_hostile_requiring, 0, g_nreq_progs);
		tcase_add_test(t, test_hostile_requiring_stop);
	}
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .tmpdir = "sbx-hostile",
					       .setup = setup,
					       .teardown = hostile_teardown};
	return tmain(hostile_suite, &opts);
}
