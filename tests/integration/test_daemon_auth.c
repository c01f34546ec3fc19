/* Authorization against a real sandboxd started per test
 * (tests/helpers/daemon.c): a throwaway user (useradd/userdel) is refused in
 * both layers (socket file mode, then SO_PEERCRED), and served with
 * --allow-uid or --allow-gid; the socket's mode and owner are as README.md
 * documents.
 *
 * Run as root from the repository root:
 *   make build/tests/test_daemon_auth && SBX_BUILD=build build/tests/test_daemon_auth */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define TIMEOUT_S 60
#define CALL_MS 30000 /* how long one job's response may take */

/* The throwaway user of the authorization tests (created by the "auth"
 * TCase's unchecked setup in the runner process, inherited by the forked
 * tests, deleted by its teardown and again at exit). */
static char g_user[32];
static uid_t g_uid;
static gid_t g_gid;
static bool g_user_made;

static int run_cmd(const char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0)
			dup2(nul, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void user_delete(void)
{
	if (!g_user[0])
		return;
	if (getpwnam(g_user)) {
		const char *argv[] = {"/usr/sbin/userdel", g_user, NULL};
		for (int i = 0; i < 10 && run_cmd(argv) != 0 && getpwnam(g_user); i++)
			td_sleep_ms(200); /* /etc/passwd may be locked by another run */
	}
	if (getpwnam(g_user))
		fprintf(stderr, "test_daemon_auth: could not delete user %s\n", g_user);
	g_user_made = false;
}

static void auth_setup(void)
{
	snprintf(g_user, sizeof g_user, "sbxtest_%d", (int)getpid());
	user_delete(); /* a leftover of an earlier run with this pid */
	const char *argv[] = {"/usr/sbin/useradd", "-M",   "-r", "-s",
			      "/usr/sbin/nologin", g_user, NULL};
	for (int i = 0; i < 10; i++) {
		if (run_cmd(argv) == 0)
			break;
		td_sleep_ms(200);
	}
	struct passwd *pw = getpwnam(g_user);
	if (pw) {
		g_uid = pw->pw_uid;
		g_gid = pw->pw_gid;
		g_user_made = true;
	}
}

static void auth_teardown(void)
{
	user_delete();
}

/* What a client running as the throwaway user saw. */
struct as_user {
	int stat_errno;	   /* stat(sock): 0 or errno */
	int connect_errno; /* 0 when connected */
	int nlines;	   /* lines read (up to 2) */
	char line[2][2048];
	/* After the lines: 0 still open (nothing within 1 s), 1 EOF, 2 an error
	 * (end_errno, e.g. ECONNRESET when the daemon closed with the client's
	 * request unread). */
	int end, end_errno;
	int setup_errno;
};

/* Forks a client that drops to g_uid (primary group gid, supplementary
 * groups `groups`), stats and connects to sock, optionally sends a line and
 * reads up to two lines and then EOF. */
static struct as_user as_user(const char *sock, gid_t gid, const gid_t *groups, int ngroups,
			      const char *send_line)
{
	struct as_user res;
	memset(&res, 0, sizeof res);
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups((size_t)ngroups, groups) < 0 || setgid(gid) < 0 ||
		    setuid(g_uid) < 0 || getuid() != g_uid || geteuid() != g_uid)
			res.setup_errno = errno ? errno : EPERM;
		if (!res.setup_errno) {
			struct stat st;
			res.stat_errno = stat(sock, &st) < 0 ? errno : 0;
			struct sockaddr_un sa = {.sun_family = AF_UNIX};
			snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
			int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
				res.connect_errno = errno;
			} else {
				if (send_line) {
					(void)!send(fd, send_line, strlen(send_line), MSG_NOSIGNAL);
					(void)!send(fd, "\n", 1, MSG_NOSIGNAL);
				}
				for (int i = 0; i < 2; i++) {
					/* How the stream goes on: data, EOF, an error, or nothing.
					 */
					struct pollfd pf = {.fd = fd, .events = POLLIN};
					char c;
					if (poll(&pf, 1, i == 0 ? 5000 : 1000) <= 0)
						break;
					ssize_t k = recv(fd, &c, 1, MSG_PEEK);
					if (k <= 0) {
						res.end = k == 0 ? 1 : 2;
						res.end_errno = k == 0 ? 0 : errno;
						break;
					}
					char *l = td_raw_read_line(fd, 5000, NULL, NULL);
					if (!l)
						break;
					snprintf(res.line[i], sizeof res.line[i], "%s", l);
					res.nlines++;
					free(l);
				}
				if (res.nlines == 2)
					res.end = -1; /* not looked at */
			}
			close(fd);
		}
		(void)!write(pfd[1], &res, sizeof res);
		_exit(0);
	}
	close(pfd[1]);
	size_t got = 0;
	while (got < sizeof res) {
		ssize_t n = read(pfd[0], (char *)&res + got, sizeof res - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	ck_assert_msg(got == sizeof res, "the client process as %s reported nothing", g_user);
	ck_assert_msg(res.setup_errno == 0, "dropping to uid %u gid %u: %s", (unsigned)g_uid,
		      (unsigned)gid, strerror(res.setup_errno));
	return res;
}

#define REQUIRE_USER()                                                                             \
	ck_assert_msg(g_user_made, "could not create the throwaway user %s with useradd", g_user)

/* Lets others reach the socket: the daemon dir and its parent (0700 from
 * mkdtemp) become 0755. */
static void open_dirs(const struct test_daemon *d)
{
	char parent[256];
	snprintf(parent, sizeof parent, "%s", d->dir);
	char *slash = strrchr(parent, '/');
	ck_assert(slash != NULL);
	*slash = '\0';
	ck_assert_int_eq(chmod(parent, 0755), 0);
	ck_assert_int_eq(chmod(d->dir, 0755), 0);
}

static void check_sock_mode(const struct test_daemon *d, gid_t want_gid)
{
	struct stat st;
	ck_assert_msg(lstat(d->sock, &st) == 0, "stat %s: %s", d->sock, strerror(errno));
	ck_assert_msg(S_ISSOCK(st.st_mode), "%s is not a socket", d->sock);
	ck_assert_msg((st.st_mode & 07777) == 0660, "socket mode %04o, documented 0660",
		      (unsigned)(st.st_mode & 07777));
	ck_assert_msg(st.st_uid == 0, "socket owner uid %u, want root", (unsigned)st.st_uid);
	ck_assert_msg(st.st_gid == want_gid, "socket group %u, want %u", (unsigned)st.st_gid,
		      (unsigned)want_gid);
}

START_TEST(test_socket_mode_default)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	check_sock_mode(&d, 0);
	stop_ok(&d);
}
END_TEST

START_TEST(test_socket_mode_allow_gid)
{
	REQUIRE_USER();
	char g1[32];
	snprintf(g1, sizeof g1, "%u", (unsigned)g_gid);
	struct test_daemon d;
	/* The first --allow-gid names the group, whatever follows. */
	START(d, "--workers", "1", "--allow-gid", g1, "--allow-gid", "4242", "--allow-uid", "4343");
	check_sock_mode(&d, g_gid);
	stop_ok(&d);
	START(d, "--workers", "1", "--allow-uid", "4343");
	check_sock_mode(&d, 0);
	stop_ok(&d);
}
END_TEST

START_TEST(test_refused_uid)
{
	REQUIRE_USER();
	struct test_daemon d;
	START(d, "--workers", "1");
	const char *pingl = "{\"id\":\"p\",\"op\":\"ping\"}";
	/* The helper's directories are 0700: the uid cannot even reach the socket. */
	struct as_user u = as_user(d.sock, g_gid, NULL, 0, pingl);
	ck_assert_msg(u.connect_errno == EACCES, "connect through 0700 dirs: %s, want EACCES",
		      u.connect_errno ? strerror(u.connect_errno) : "connected");
	/* Layer 1: the socket file itself, 0660 root:root. */
	open_dirs(&d);
	u = as_user(d.sock, g_gid, NULL, 0, pingl);
	ck_assert_msg(u.stat_errno == 0,
		      "the uid cannot stat the socket after chmod 0755 of its "
		      "dirs: %s",
		      strerror(u.stat_errno));
	ck_assert_msg(u.connect_errno == EACCES,
		      "connect to a 0660 root:root socket as uid %u: %s, want EACCES",
		      (unsigned)g_uid, u.connect_errno ? strerror(u.connect_errno) : "connected");
	/* Layer 2: the socket opened to all; the daemon itself refuses, first
	 * a client that sends nothing (an orderly close after the error), then
	 * one that sends a ping at once (closed with its request unread, which
	 * a Unix socket may report as ECONNRESET after the error line). */
	ck_assert_int_eq(chmod(d.sock, 0666), 0);
	for (int variant = 0; variant < 2; variant++) {
		u = as_user(d.sock, g_gid, NULL, 0, variant ? pingl : NULL);
		ck_assert_msg(u.connect_errno == 0, "connect to a 0666 socket: %s",
			      strerror(u.connect_errno));
		ck_assert_msg(u.nlines == 1,
			      "%d lines for a refused uid (want one forbidden error): %s | %s",
			      u.nlines, u.line[0], u.line[1]);
		json_t *r = json_loads(u.line[0], 0, NULL);
		ck_assert_msg(r != NULL, "not JSON: %s", u.line[0]);
		CHECK_R(r, streq(errcode(r), "forbidden"));
		CHECK_R(r, json_is_null(json_object_get(r, "id")));
		CHECK_R(r, json_is_string(json_object_get(json_object_get(r, "error"), "message")));
		CHECK_R(r, !json_object_get(r, "version"));
		json_decref(r);
		if (variant == 0)
			ck_assert_msg(u.end == 1, "after the forbidden error: %s, want EOF",
				      u.end == 0 ? "still open after 1 s" : strerror(u.end_errno));
		else
			ck_assert_msg(u.end == 1 || (u.end == 2 && u.end_errno == ECONNRESET),
				      "after the forbidden error (request sent): %s, want a close",
				      u.end == 0 ? "still open after 1 s" : strerror(u.end_errno));
		fprintf(stderr, "[auth] refused client %s: forbidden, then %s\n",
			variant ? "that sent a ping" : "that sent nothing",
			u.end == 1 ? "EOF" : strerror(u.end_errno));
	}
	/* The log names the refused uid. */
	char needle[64];
	snprintf(needle, sizeof needle, "uid %u", (unsigned)g_uid);
	long long deadline = td_now_ms() + 1000;
	while (!td_log_contains(&d, needle) && td_now_ms() < deadline)
		td_sleep_ms(10);
	ck_assert_msg(td_log_contains(&d, needle), "no \"%s\" in the log:\n%s", needle,
		      log_tail(&d));
	ck_assert_msg(td_log_contains(&d, "refused"), "no \"refused\" in the log:\n%s",
		      log_tail(&d));
	ck_assert_msg(!td_log_contains(&d, "job p"), "the refused client's request ran");
	/* Root is still served. */
	struct sbx_conn *c = conn_open(&d);
	json_t *p = ping(c, "root");
	CHECK_R(p, streq(sget(p, "version"), PROTO_VERSION));
	json_decref(p);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

START_TEST(test_allow_uid_serves)
{
	REQUIRE_USER();
	char u1[32];
	snprintf(u1, sizeof u1, "%u", (unsigned)g_uid);
	struct test_daemon d;
	START(d, "--workers", "1", "--allow-uid", u1);
	open_dirs(&d);
	const char *pingl = "{\"id\":\"p\",\"op\":\"ping\"}";
	/* As documented the socket stays 0660 root:root with --allow-uid alone:
	 * the uid reaches the daemon only once the socket file lets it. */
	struct as_user u = as_user(d.sock, g_gid, NULL, 0, pingl);
	ck_assert_msg(u.connect_errno == EACCES,
		      "--allow-uid alone, socket 0660 root:root: connect %s (want EACCES)",
		      u.connect_errno ? strerror(u.connect_errno) : "succeeded");
	ck_assert_int_eq(chmod(d.sock, 0666), 0);
	u = as_user(d.sock, g_gid, NULL, 0, pingl);
	ck_assert_msg(u.connect_errno == 0, "connect: %s", strerror(u.connect_errno));
	ck_assert_msg(u.nlines >= 1, "no answer to the allowed uid's ping; log:\n%s", log_tail(&d));
	json_t *r = json_loads(u.line[0], 0, NULL);
	CHECK_R(r, r && streq(sget(r, "id"), "p") && streq(sget(r, "version"), PROTO_VERSION));
	json_decref(r);
	/* And a job. */
	u = as_user(d.sock, g_gid, NULL, 0, "{\"id\":\"j\",\"code\":\"print('as user')\"}");
	r = u.nlines ? json_loads(u.line[0], 0, NULL) : NULL;
	CHECK_R(r, r && streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "as user\n"));
	json_decref(r);
	ck_assert_msg(!td_log_contains(&d, "refused"), "log:\n%s", log_tail(&d));
	stop_ok(&d);
}
END_TEST

START_TEST(test_allow_gid_serves)
{
	REQUIRE_USER();
	char g1[32];
	snprintf(g1, sizeof g1, "%u", (unsigned)g_gid);
	struct test_daemon d;
	START(d, "--workers", "1", "--allow-gid", g1);
	open_dirs(&d);
	/* No chmod: the socket's group is the user's, 0660 lets it in. */
	struct as_user u = as_user(d.sock, g_gid, NULL, 0, "{\"id\":\"p\",\"op\":\"ping\"}");
	ck_assert_msg(u.connect_errno == 0, "connect with --allow-gid %s: %s", g1,
		      strerror(u.connect_errno));
	ck_assert_msg(u.nlines >= 1, "no answer to the allowed gid's ping; log:\n%s", log_tail(&d));
	json_t *r = json_loads(u.line[0], 0, NULL);
	CHECK_R(r, r && streq(sget(r, "id"), "p") && streq(sget(r, "version"), PROTO_VERSION));
	json_decref(r);
	ck_assert_msg(!td_log_contains(&d, "refused"), "log:\n%s", log_tail(&d));
	stop_ok(&d);
}
END_TEST

static Suite *daemon_auth_suite(void)
{
	Suite *s = suite_create("daemon_auth");
	TCase *t = tmain_tcase(s, "auth", TIMEOUT_S);
	tcase_add_unchecked_fixture(t, auth_setup, auth_teardown);
	tcase_add_test(t, test_socket_mode_default);
	tcase_add_test(t, test_socket_mode_allow_gid);
	tcase_add_test(t, test_refused_uid);
	tcase_add_test(t, test_allow_uid_serves);
	tcase_add_test(t, test_allow_gid_serves);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .no_preload = true,
					       .tmpdir = "sbx-faults",
					       .ignore_sigpipe = true,
					       .teardown = user_delete};
	return tmain(daemon_auth_suite, &opts);
}
