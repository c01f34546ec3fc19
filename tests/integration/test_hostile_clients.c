/* The hostile-client suite: every tests/hostile/client_NAME.py is a hostile
 * but *allowed* client (not a job): a stdlib-only Python 3 script run on the
 * host against a real sandboxd of its own. It makes its attack, then checks
 * the host side itself (the daemon's RSS and CPU from /proc, that it still
 * answers a ping, that every other response arrived intact, ...) and exits
 *
 *   0    the attack failed (the daemon held)
 *   1    the attack succeeded (it prints why)
 *   77   skip (it prints the reason on its last line)
 *
 * Headers, among the leading comment lines:
 *
 *   # daemon-args: --flag value ...   extra daemon arguments (words separated
 *                                     by white space; repeatable)
 *   # daemon-rlimit-nofile: SOFT[:HARD]  the daemon starts with this
 *                                     RLIMIT_NOFILE (the driver's own limit
 *                                     is restored before the script runs)
 *   # requires: NAME                  as in test_hostile.c (g_reqs[]: ia32-abi,
 *                                     mount-setattr, cgroup-memory, cgroup-pids,
 *                                     cgroup-cpu); the cgroup ones are read from
 *                                     a probe job's enforcement
 *   # timeout: SECONDS                how long one run may take (default 120)
 *
 * Environment given to the script: SBX_SOCKET (the daemon's socket),
 * SBX_DAEMON_PID, SBX_UID_BASE, SBX_WORKERS, SBX_DAEMON_LOG (its log file),
 * SBX_DAEMON_SANITIZED (1 for
 * an AddressSanitizer build, whose memory figures are reported but not
 * checked: its shadow and quarantine are not the daemon's buffers) and, for
 * the control run, SBX_HOSTILE_CONTROL=1. tests/hostile/client_lib.py holds the shared code
 * (connect, send lines, read responses, ping, the daemon's RSS/CPU from
 * /proc, the checks); it is a module, not a script.
 *
 * Each script runs twice on the same daemon: normally (exit 0 expected, 77 a
 * skip), then with SBX_HOSTILE_CONTROL=1, where each of its checks is made
 * against a condition known to be bad (client_lib.py: thresholds inverted),
 * so it must exit 1: every check is shown able to fail. After both runs the
 * daemon must still answer a ping and exit 0 on SIGTERM.
 *
 * Run as root from the repository root: make build/tests/test_hostile_clients
 * && SBX_BUILD=build build/tests/test_hostile_clients. SBX_HOSTILE_ONLY=substring
 * runs only the matching scripts; SBX_HOSTILE_DIR overrides tests/hostile. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/hostile.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tproc.h"

#define MAX_SCRIPTS 64
#define OUT_MAX 16384
static char g_scripts[MAX_SCRIPTS][96];
static int g_nscripts;
static char g_cdir[128] = "tests/hostile";

/* One script's headers. */
struct hdr {
	const char *args[TD_MAX_ARGS + 1];
	int nargs;
	char *req[MAX_HDR];
	int nreq;
	long nofile_soft, nofile_hard; /* -1: not given */
	int timeout_s;
	char *words; /* owns the strings args point into */
};

static void hdr_parse(struct hdr *h, char *src)
{
	memset(h, 0, sizeof *h);
	h->nofile_soft = h->nofile_hard = -1;
	h->timeout_s = 120;
	size_t wl = 0;
	h->words = calloc(1, strlen(src) + 1);
	ck_assert_ptr_nonnull(h->words);
	for (char *l = src; l && *l == '#'; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)len, l);
		char *v;
		if ((v = strchr(line, ':')) == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strcmp(line, "# daemon-args") == 0) {
			char *save = NULL;
			for (char *w = strtok_r(v, " \t", &save); w;
			     w = strtok_r(NULL, " \t", &save)) {
				ck_assert_msg(h->nargs < TD_MAX_ARGS - 8, "too many daemon-args");
				char *dst = h->words + wl;
				strcpy(dst, w);
				wl += strlen(w) + 1;
				h->args[h->nargs++] = dst;
			}
		} else if (strcmp(line, "# requires") == 0) {
			ck_assert_msg(is_requirement(v), "unknown requirement '%s'", v);
			ck_assert(h->nreq < MAX_HDR);
			h->req[h->nreq++] = xstrdup(v);
		} else if (strcmp(line, "# daemon-rlimit-nofile") == 0) {
			char *colon = strchr(v, ':');
			h->nofile_soft = strtol(v, NULL, 10);
			h->nofile_hard = colon ? strtol(colon + 1, NULL, 10) : -1;
			ck_assert_msg(h->nofile_soft > 0, "bad daemon-rlimit-nofile '%s'", v);
		} else if (strcmp(line, "# timeout") == 0) {
			h->timeout_s = atoi(v);
			ck_assert_msg(h->timeout_s > 0, "bad timeout '%s'", v);
		}
	}
	h->args[h->nargs] = NULL;
}

static void hdr_free(struct hdr *h)
{
	for (int i = 0; i < h->nreq; i++)
		free(h->req[i]);
	free(h->words);
}

/* Starts the daemon, under the header's RLIMIT_NOFILE when it gives one
 * (inherited by the daemon; this process gets its own limit back). */
static void start(struct test_daemon *d, const struct hdr *h)
{
	struct rlimit old, lim;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (h->nofile_soft > 0) {
		lim.rlim_cur = (rlim_t)h->nofile_soft;
		lim.rlim_max = h->nofile_hard > 0 ? (rlim_t)h->nofile_hard : old.rlim_max;
		ck_assert_msg(setrlimit(RLIMIT_NOFILE, &lim) == 0, "setrlimit: %s",
			      strerror(errno));
	}
	int rc = td_startv(d, h->args);
	/* Lowering the hard limit is for good: only root (which this is) can
	 * raise it again. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_msg(rc == 0, "starting sandboxd: %s", d->err);
}

/* The requirements, decided as test_hostile.c decides them; "" when met. */
static void requirements(struct test_daemon *d, const struct hdr *h, char *skip, size_t sl)
{
	skip[0] = '\0';
	if (!h->nreq)
		return;
	struct prog p;
	memset(&p, 0, sizeof p);
	for (int i = 0; i < h->nreq; i++)
		p.req[p.nreq++] = h->req[i];
	char err[512];
	struct sbx_conn *c = sbx_connect(d->sock, err, sizeof err);
	ck_assert_msg(c != NULL, "connect: %s", err);
	json_t *req = json_pack("{s:s,s:s}", "id", "requires-probe", "code", "print(1)\n");
	p.resp = sbx_call(c, req, CALL_MS, err, sizeof err);
	json_decref(req);
	sbx_close(c);
	check_requirements(&p);
	json_decref(p.resp);
	ck_assert_msg(!p.why[0], "requirement probe: %s", p.why);
	snprintf(skip, sl, "%s", p.skip);
}

/* Runs the script; returns its exit code (-1: killed at the timeout) and
 * its output (stdout + stderr, the last OUT_MAX bytes) in out. */
static int run_script(const char *path, struct test_daemon *d, bool control, int timeout_s,
		      char *out, size_t ol)
{
	char tmpl[] = "/tmp/sbx-client-out.XXXXXX";
	int ofd = mkstemp(tmpl);
	ck_assert_int_ge(ofd, 0);
	unlink(tmpl);
	char pid[32], uid[32], workers[32];
	snprintf(pid, sizeof pid, "%d", (int)d->pid);
	snprintf(uid, sizeof uid, "%u", (unsigned)d->uid_base);
	snprintf(workers, sizeof workers, "%d", d->workers);
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		setpgid(0, 0);
		dup2(ofd, 1);
		dup2(ofd, 2);
		setenv("SBX_SOCKET", d->sock, 1);
		setenv("SBX_DAEMON_PID", pid, 1);
		setenv("SBX_UID_BASE", uid, 1);
		setenv("SBX_WORKERS", workers, 1);
		setenv("SBX_DAEMON_LOG", d->log, 1);
		setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
		setenv("SBX_DAEMON_SANITIZED", tproc_sanitized(d->pid) ? "1" : "0", 1);
		if (control)
			setenv("SBX_HOSTILE_CONTROL", "1", 1);
		else
			unsetenv("SBX_HOSTILE_CONTROL");
		signal(SIGPIPE, SIG_DFL);
		execl("/usr/bin/python3", "python3", "-B", path, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	long long end = td_now_ms() + (long long)timeout_s * 1000;
	pid_t w;
	while ((w = waitpid(child, &st, WNOHANG)) == 0 && td_now_ms() < end)
		td_sleep_ms(50);
	int rc;
	if (w == child) {
		rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	} else {
		kill(-child, SIGKILL);
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		rc = -1;
	}
	off_t size = lseek(ofd, 0, SEEK_END);
	off_t from = size > (off_t)ol - 1 ? size - (off_t)ol + 1 : 0;
	ssize_t n = pread(ofd, out, ol - 1, from);
	out[n > 0 ? n : 0] = '\0';
	close(ofd);
	return rc;
}

/* The last non-empty line of the output: the skip reason. */
static void last_line(const char *out, char *line, size_t ll)
{
	size_t n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		n--;
	size_t s = n;
	while (s && out[s - 1] != '\n')
		s--;
	snprintf(line, ll, "%.*s", (int)(n - s), out + s);
}

START_TEST(test_hostile_client)
{
	const char *name = g_scripts[_i];
	char path[256];
	snprintf(path, sizeof path, "%s/%s", g_cdir, name);
	char *src = tf_slurp(path);
	ck_assert_msg(src != NULL, "cannot read %s", path);
	struct hdr h;
	hdr_parse(&h, src);
	free(src);
	struct test_daemon d;
	start(&d, &h);
	char skip[1024], why[512] = "";
	requirements(&d, &h, skip, sizeof skip);
	static char out[OUT_MAX];
	int rc = -2, crc = -2;
	if (!skip[0]) {
		rc = run_script(path, &d, false, h.timeout_s, out, sizeof out);
		printf("== %s ==\n%s", name, out);
		if (rc == 77)
			last_line(out, skip, sizeof skip);
	}
	static char cout[OUT_MAX];
	if (rc == 0) {
		crc = run_script(path, &d, true, h.timeout_s, cout, sizeof cout);
		printf("== %s (SBX_HOSTILE_CONTROL=1) ==\n%s", name, cout);
	}
	fflush(stdout);
	bool alive = daemon_alive(&d, why, sizeof why);
	int st = td_stop(&d, 10000);
	td_cleanup(&d);
	hdr_free(&h);
	ck_assert_msg(rc == 0 || rc == 77 || skip[0],
		      "%s: the attack was not held (exit %d%s):\n%s", name, rc,
		      rc == -1 ? ", timed out" : "", out);
	ck_assert_msg(skip[0] || crc == 1,
		      "%s: the control run (SBX_HOSTILE_CONTROL=1) exited %d, not 1: its checks "
		      "cannot fail:\n%s",
		      name, crc, cout);
	ck_assert_msg(alive, "after %s: %s", name, why);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "after %s: sandboxd did not exit 0 on SIGTERM (%d)", name, st);
	if (skip[0])
		sbx_skip_report(name, "%s", skip);
}
END_TEST

/* The machine's probes (for the requires headers) and the script list. */
static int setup(void)
{
	const char *dir = getenv("SBX_HOSTILE_DIR");
	if (dir && *dir)
		snprintf(g_cdir, sizeof g_cdir, "%s", dir);
	g_have_ia32 = sbx_have_ia32(g_ia32_why, sizeof g_ia32_why);
	g_have_mount_setattr =
	    sbx_have_mount_setattr(g_mount_setattr_why, sizeof g_mount_setattr_why);
	char pat[160];
	snprintf(pat, sizeof pat, "%s/client_*.py", g_cdir);
	glob_t g;
	if (glob(pat, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && g_nscripts < MAX_SCRIPTS; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		base = base ? base + 1 : g.gl_pathv[i];
		if (strcmp(base, "client_lib.py") == 0 || !selected(base))
			continue; /* the shared module, not a script */
		snprintf(g_scripts[g_nscripts++], sizeof g_scripts[0], "%s", base);
	}
	globfree(&g);
	return 0;
}

START_TEST(test_hostile_clients_exist)
{
	if (getenv("SBX_HOSTILE_ONLY") && *getenv("SBX_HOSTILE_ONLY"))
		return;
	ck_assert_msg(g_nscripts >= 1, "no client_*.py scripts in %s", g_cdir);
}
END_TEST

static Suite *clients_suite(void)
{
	Suite *s = suite_create("hostile_clients");
	TCase *t = tmain_tcase(s, "clients", 600);
	tcase_add_test(t, test_hostile_clients_exist);
	if (g_nscripts > 0)
		tcase_add_loop_test(t, test_hostile_client, 0, g_nscripts);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-clients",
					       .ignore_sigpipe = true,
					       .max_msg = 20000,
					       .setup = setup};
	return tmain(clients_suite, &opts);
}
