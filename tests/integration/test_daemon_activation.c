/* Integration tests of socket activation (sandboxd/server/listenfd.c)
 * against a real daemon started the way systemd starts it
 * (tests/helpers/sdlaunch.py: the socket at descriptor 3, LISTEN_FDS=1,
 * LISTEN_PID the daemon's pid): it serves jobs on the passed socket, leaves
 * the socket file to its owner when it stops, ignores variables meant for
 * another process, and refuses a descriptor that is not a socket, two
 * sockets, or a --socket naming another path. And the unit's hardening:
 * the daemon started under examples/systemd/sandboxd.service's own
 * CapabilityBoundingSet= and NoNewPrivileges= (applied with setpriv, as
 * systemd applies them), then also with the unit's ProtectSystem=,
 * ProtectHome= and PrivateTmp= emulated (tests/helpers/protect_system.sh),
 * still runs every kind of job. Run as root from the repository root
 * (make integration). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 120
#define UNIT "examples/systemd/sandboxd.service"

static const char *const launch_unix[] = {"python3", "tests/helpers/sdlaunch.py", "unix", "--",
					  NULL};

#define START_W(d, wrap, ...)                                                                      \
	do {                                                                                       \
		const char *args_[] = {__VA_ARGS__, NULL};                                         \
		ck_assert_msg(td_startw(&(d), (wrap), args_) == 0, "starting sandboxd: %s",        \
			      (d).err);                                                            \
	} while (0)

/* A start that must fail: the daemon's message is in the error. */
static void refused(const char *mode, const char *needle)
{
	const char *wrap[] = {"python3", "tests/helpers/sdlaunch.py", mode, "--", NULL};
	const char *args[] = {"--workers", "1", NULL};
	struct test_daemon d;
	int rc = td_startw(&d, wrap, args);
	bool said = strstr(d.err, needle) != NULL;
	td_cleanup(&d); /* a started daemon, and the arguments either way */
	ck_assert_msg(rc < 0, "sdlaunch.py %s: the daemon started", mode);
	ck_assert_msg(said, "sdlaunch.py %s: no \"%s\" in:\n%s", mode, needle, d.err);
}

START_TEST(test_passed_socket_serves_a_job)
{
	struct test_daemon d;
	START_W(d, launch_unix, "--workers", "1");
	ck_assert_msg(td_log_contains(&d, "passed by the service manager (LISTEN_FDS)"), "%s",
		      log_tail(&d));
	json_t *r =
	    run1(&d, job("a1", "import os\nprint(42, sorted(os.listdir('/proc/self/fd')))"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	/* Nothing of the daemon's socket reaches the job: 0, 1, 2 and the
	 * listing's own descriptor. */
	CHECK_R(r, streq(sget(r, "stdout"), "42 ['0', '1', '2', '3']\n"));
	json_decref(r);
	int st = td_stop(&d, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "wait status %d", st);
	/* The socket is systemd's: the daemon does not remove it. */
	struct stat sb;
	ck_assert_msg(lstat(d.sock, &sb) == 0 && S_ISSOCK(sb.st_mode),
		      "the passed socket %s was removed at stop", d.sock);
	td_cleanup(&d);
}
END_TEST

/* sd_listen_fds(3): LISTEN_PID naming another process means the variables
 * were not for us; the daemon binds --socket itself. */
START_TEST(test_other_pid_ignored)
{
	const char *wrap[] = {"python3", "tests/helpers/sdlaunch.py", "other-pid", "--", NULL};
	struct test_daemon d;
	START_W(d, wrap, "--workers", "1");
	ck_assert_msg(!td_log_contains(&d, "LISTEN_FDS"), "%s", log_tail(&d));
	json_t *r = run1(&d, job("o1", "print(1)"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

START_TEST(test_garbage_refused)
{
	refused("devnull", "LISTEN_FDS: descriptor 3 is not a socket");
	refused("two", "LISTEN_FDS is 2: sandboxd takes exactly one socket");
	refused("elsewhere", "but --socket says");
}
END_TEST

/* "CAP_A CAP_B" from the unit's CapabilityBoundingSet= as setpriv's
 * "-all,+a,+b". */
static bool unit_caps(char *out, size_t len)
{
	FILE *f = fopen(UNIT, "r");
	char line[1024];
	bool found = false;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "CapabilityBoundingSet=", 22) == 0) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!found)
		return false;
	snprintf(out, len, "-all");
	for (char *save = NULL, *w = strtok_r(line + 22, " \n", &save); w;
	     w = strtok_r(NULL, " \n", &save)) {
		ck_assert_msg(strncmp(w, "CAP_", 4) == 0, "%s: %s", UNIT, w);
		size_t n = strlen(out);
		snprintf(out + n, len - n, ",+");
		for (const char *p = w + 4; *p && n + 3 < len; p++, n++)
			out[n + 2] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		out[n + 2] = '\0';
	}
	return true;
}

/* Jobs of every kind on a daemon started through wrap. */
static void jobs_work(const char *const *wrap)
{
	struct test_daemon d;
	START_W(d, wrap, "--workers", "1");
	json_t *r = run1(&d, job("h1", "import os\nprint(os.getuid() != 0)"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "True\n"));
	json_decref(r);
	r = run1(&d, job("h2", "import ctypes\nctypes.CDLL(None).ptrace(0, 0, 0, 0)"), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "violation"));
	json_decref(r);
	r = run1(&d, lim(job("h3", "import time\ntime.sleep(30)"), "wall_ms", 700), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "timeout"));
	json_decref(r);
	/* The grader's files of a candidate process: chown and chmod of a file
	 * another uid owns. */
	json_t *t = json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "h4", "code",
			      "def add(a, b):\n    return a + b\n", "tests",
			      "def check(candidate):\n    assert candidate(1, 2) == 3\n", "format",
			      "humaneval", "entry_point", "add");
	json_object_set_new(t, "isolation", json_string("process"));
	r = run1(&d, t, 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	json_decref(r);
	r = run1(&d, lim(job("h5", "x = bytearray(900 << 20)"), "memory_mb", 64), 30000);
	CHECK_R(r, streq(sget(r, "verdict"), "memory_limit") ||
		       strstr(sget(r, "message") ? sget(r, "message") : "", "MemoryError"));
	json_decref(r);
	stop_ok(&d);
}

START_TEST(test_unit_hardening_keeps_jobs_working)
{
	char caps[512];
	ck_assert_msg(unit_caps(caps, sizeof caps), "%s has no CapabilityBoundingSet=", UNIT);
	if (system("setpriv --help >/dev/null 2>&1") != 0)
		SKIP_TEST("setpriv (util-linux) is not installed");
	const char *wrap[] = {"setpriv",
			      "--no-new-privs",
			      "--bounding-set",
			      caps,
			      "python3",
			      "tests/helpers/sdlaunch.py",
			      "unix",
			      "--",
			      NULL};
	jobs_work(wrap);
}
END_TEST

/* ProtectSystem=strict, ProtectHome=read-only and PrivateTmp=yes as the
 * unit sets them (with its capabilities too): the daemon's view of the file
 * system read-only but for its runtime directory and /sys, and a /tmp of
 * its own; jobs still get their mounts and pivot_root. */
START_TEST(test_unit_protect_system_keeps_jobs_working)
{
	char caps[512];
	ck_assert_msg(unit_caps(caps, sizeof caps), "%s has no CapabilityBoundingSet=", UNIT);
	if (system("setpriv --help >/dev/null 2>&1 && unshare --help >/dev/null 2>&1") != 0)
		SKIP_TEST("setpriv or unshare (util-linux) is not installed");
	const char *wrap[] = {"unshare",
			      "-m",
			      "tests/helpers/protect_system.sh",
			      "setpriv",
			      "--no-new-privs",
			      "--bounding-set",
			      caps,
			      "python3",
			      "tests/helpers/sdlaunch.py",
			      "unix",
			      "--",
			      NULL};
	jobs_work(wrap);
}
END_TEST

static Suite *daemon_activation_suite(void)
{
	Suite *s = suite_create("daemon_activation");
	TCase *t = tmain_tcase(s, "activation", TIMEOUT_S);
	tcase_add_test(t, test_passed_socket_serves_a_job);
	tcase_add_test(t, test_other_pid_ignored);
	tcase_add_test(t, test_garbage_refused);
	tcase_add_test(t, test_unit_hardening_keeps_jobs_working);
	tcase_add_test(t, test_unit_protect_system_keeps_jobs_working);
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
	return tmain(daemon_activation_suite, &opts);
}
