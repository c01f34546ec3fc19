/* Unit tests for the socket path (sandboxd/server/sockpath.c): what the
 * probe calls free, stale or in use; a bind that replaces only a stale
 * socket and leaves root:gid 0660; a path that appears only once it
 * accepts connections; and an exit that removes the socket only
 * while it is still the one bound; a socket whose listener exited while a
 * child still holds it. The "another sandboxd" answer is tested
 * against a real daemon (test_daemon_files). Run as root (chown). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/server/sockpath.h"
#include "tests/helpers/tmain.h"

static char base[64], sock[128];

static void setup(void)
{
	snprintf(base, sizeof base, "/tmp/sbx-sockpath.XXXXXX");
	ck_assert(mkdtemp(base) != NULL);
	snprintf(sock, sizeof sock, "%s/sock", base);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	ck_assert(system(cmd) == 0);
}

static int bound_socket(const char *path, bool listening)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	if (listening)
		ck_assert(listen(fd, 4) == 0);
	return fd;
}

START_TEST(test_probe)
{
	char err[512];
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), 0);
	int f = open(sock, O_WRONLY | O_CREAT, 0600);
	ck_assert(f >= 0);
	close(f);
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "not a socket"), "%s", err);
	unlink(sock);
	/* Bound but not listening: what a dead daemon leaves. */
	int fd = bound_socket(sock, false);
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), 1);
	close(fd);
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), 1);
	unlink(sock);
	/* A listener that never answers a ping. */
	fd = bound_socket(sock, true);
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "did not answer"), "%s", err);
	close(fd);
	/* A symlink to a stale socket is not a socket of ours to remove. */
	char link[160];
	snprintf(link, sizeof link, "%s/link", base);
	ck_assert(symlink(sock, link) == 0);
	ck_assert_int_eq(sockpath_probe(link, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
}
END_TEST

/* A listener whose process is gone while a child of it still holds the
 * socket (what a killed daemon leaves for a moment: a child it had cloned,
 * not yet exec'd): the pid of B, which holds it hold_ms (-1: until killed).
 * The listener's process is reaped before this returns. */
static pid_t dead_listener(int hold_ms)
{
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t a = fork();
	ck_assert(a >= 0);
	if (a == 0) {
		int fd = bound_socket(sock, true);
		pid_t b = fork();
		if (b == 0) {
			if (hold_ms < 0)
				pause();
			usleep((useconds_t)hold_ms * 1000);
			_exit(0);
		}
		(void)!write(pp[1], &b, sizeof b);
		close(fd);
		_exit(b > 0 ? 0 : 1);
	}
	close(pp[1]);
	pid_t b = -1;
	ck_assert(read(pp[0], &b, sizeof b) == (ssize_t)sizeof b && b > 0);
	close(pp[0]);
	int st;
	ck_assert(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return b;
}

START_TEST(test_probe_dead_listener)
{
	char err[512];
	/* B becomes ours to wait for when its parent exits. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	/* Let go after a second: stale, once it refuses (not refused as a
	 * listener that never answers a ping). B must still hold it when the
	 * probe starts, or this would show nothing. */
	pid_t b = dead_listener(1000);
	ck_assert_msg(waitpid(b, NULL, WNOHANG) == 0, "the holder exited before the probe");
	ck_assert_msg(sockpath_probe(sock, err, sizeof err) == 1, "%s", err);
	ck_assert(waitpid(b, NULL, 0) == b);
	unlink(sock);
	/* Held on: kept, and the message says why. */
	b = dead_listener(-1);
	ck_assert_int_eq(sockpath_probe(sock, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "still accepts") && strstr(err, "exited"), "%s", err);
	struct stat st;
	ck_assert(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode));
	kill(b, SIGKILL);
	ck_assert(waitpid(b, NULL, 0) == b);
}
END_TEST

START_TEST(test_bind_replaces_stale_sets_owner_mode)
{
	char err[512];
	int stale = bound_socket(sock, false);
	close(stale);
	struct stat st;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0);
	ck_assert_msg(sockpath_listen(fd, sock, 4242, 4, err, sizeof err) == 0, "%s", err);
	ck_assert(lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(st.st_gid, 4242);
	ck_assert_int_eq(st.st_mode & 07777, 0660);
	/* Listening already, at that path: a second bind on it is refused. */
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, sock);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(c >= 0 && connect(c, (struct sockaddr *)&sa, sizeof sa) == 0);
	close(c);
	int fd2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(sockpath_listen(fd2, sock, 0, 4, err, sizeof err), -1);
	close(fd2);
	/* Replaced by someone else: not ours to remove at exit. */
	char other[160];
	snprintf(other, sizeof other, "%s/other", base);
	int o = open(other, O_WRONLY | O_CREAT, 0600);
	ck_assert(o >= 0);
	close(o);
	ck_assert(rename(other, sock) == 0);
	sockpath_unlink(sock);
	ck_assert(access(sock, F_OK) == 0);
	close(fd);
}
END_TEST

START_TEST(test_unlink_removes_own)
{
	char err[512];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0);
	ck_assert_msg(sockpath_listen(fd, sock, 0, 4, err, sizeof err) == 0, "%s", err);
	sockpath_unlink(sock);
	ck_assert(access(sock, F_OK) < 0 && errno == ENOENT);
	close(fd);
}
END_TEST

/* The path appears only once the socket listens: a client that polls for it
 * (as scripts and tests do) never meets a refusal. The socket is made under
 * a private name, which is left neither behind nor in the way. */
START_TEST(test_path_appears_listening)
{
	char err[512], making[160];
	snprintf(making, sizeof making, "%s/.sandboxd-binding", base);
	int left = bound_socket(making, false); /* a start that died half-way */
	close(left);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0);
	ck_assert_msg(sockpath_listen(fd, sock, 0, 4, err, sizeof err) == 0, "%s", err);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, sock);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(c >= 0);
	ck_assert_msg(connect(c, (struct sockaddr *)&sa, sizeof sa) == 0,
		      "connect right after sockpath_listen: %s", strerror(errno));
	close(c);
	ck_assert_msg(access(making, F_OK) < 0 && errno == ENOENT, "%s left behind", making);
	sockpath_unlink(sock);
	close(fd);
	/* Something that is not a socket under that name is not ours. */
	int f = open(making, O_WRONLY | O_CREAT, 0600);
	ck_assert(f >= 0);
	close(f);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(sockpath_listen(fd, sock, 0, 4, err, sizeof err), -1);
	ck_assert_msg(strstr(err, ".sandboxd-binding"), "%s", err);
	ck_assert(access(making, F_OK) == 0 && access(sock, F_OK) < 0);
	close(fd);
}
END_TEST

static Suite *sockpath_suite(void)
{
	Suite *s = suite_create("server_sockpath");
	TCase *t = tmain_tcase(s, "sockpath", 30);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_probe);
	tcase_add_test(t, test_probe_dead_listener);
	tcase_add_test(t, test_bind_replaces_stale_sets_owner_mode);
	tcase_add_test(t, test_unlink_removes_own);
	tcase_add_test(t, test_path_appears_listening);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true};
	return tmain(sockpath_suite, &opts);
}
