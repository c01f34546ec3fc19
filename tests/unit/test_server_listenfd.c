/* Unit tests for socket activation (sandboxd/server/listenfd.c): what
 * systemd passes is taken only when LISTEN_PID names us, only a listening
 * AF_UNIX stream socket is accepted (a TCP port, a datagram socket, one not
 * listening, a file and garbled variables are refused with a message
 * naming the problem), the descriptor becomes close-on-exec and
 * non-blocking, and the variables are gone afterwards either way. Each
 * case runs in a child of its own: descriptor 3 is rebuilt there, never in
 * the test process, whose low descriptors belong to Check. Run as root
 * (the ownership case chowns a socket). */
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/server/listenfd.h"
#include "tests/helpers/tmain.h"

enum kind { K_NONE, K_UNIX, K_UNBOUND, K_DGRAM, K_TCP, K_FILE };

struct result {
	int rc;
	bool cloexec, nonblock, env_left;
	char path[128], err[512];
};

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/sbx-listenfd.XXXXXX");
	ck_assert(mkdtemp(dir) != NULL);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert(system(cmd) == 0);
}

/* The descriptor of kind k (listening unless K_UNBOUND), its path in dir. */
static int make_fd(enum kind k)
{
	if (k == K_FILE)
		return open("/dev/null", O_RDONLY);
	if (k == K_TCP) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in in = {.sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(0x7f000001)};
		if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof in) < 0 || listen(fd, 4) < 0)
			return -1;
		return fd;
	}
	int fd = socket(AF_UNIX, k == K_DGRAM ? SOCK_DGRAM : SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", dir);
	unlink(sa.sun_path); /* an earlier case's */
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return -1;
	if (k != K_UNBOUND && k != K_DGRAM && listen(fd, 4) < 0)
		return -1;
	return fd;
}

/* In a child: descriptor 3 of kind k, LISTEN_PID (ours when pid is NULL)
 * and LISTEN_FDS as given (NULL: unset), then listenfd_take. */
static struct result take(enum kind k, const char *pid, const char *fds)
{
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		struct result r = {0};
		int w = fcntl(pp[1], F_DUPFD, 20);
		if (k == K_NONE)
			close(3); /* whatever Check had there */
		int fd = k == K_NONE ? 3 : make_fd(k);
		if (w < 0 || fd < 0 || (fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0)))
			_exit(2);
		char own[32];
		snprintf(own, sizeof own, "%d", (int)getpid());
		setenv("LISTEN_PID", pid ? pid : own, 1);
		if (fds)
			setenv("LISTEN_FDS", fds, 1);
		else
			unsetenv("LISTEN_FDS");
		setenv("LISTEN_FDNAMES", "sandboxd.socket", 1);
		r.rc = listenfd_take(r.path, sizeof r.path, r.err, sizeof r.err);
		r.cloexec = (fcntl(3, F_GETFD) & FD_CLOEXEC) != 0;
		r.nonblock = (fcntl(3, F_GETFL) & O_NONBLOCK) != 0;
		r.env_left =
		    getenv("LISTEN_PID") || getenv("LISTEN_FDS") || getenv("LISTEN_FDNAMES");
		_exit(write(w, &r, sizeof r) == sizeof r ? 0 : 3);
	}
	close(pp[1]);
	struct result r;
	ck_assert_int_eq(read(pp[0], &r, sizeof r), (ssize_t)sizeof r);
	close(pp[0]);
	int st;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return r;
}

START_TEST(test_listening_unix_socket_taken)
{
	struct result r = take(K_UNIX, NULL, "1");
	ck_assert_msg(r.rc == LISTENFD_FIRST, "rc %d: %s", r.rc, r.err);
	char want[128];
	snprintf(want, sizeof want, "%s/sock", dir);
	ck_assert_str_eq(r.path, want);
	ck_assert(r.cloexec && r.nonblock);
	ck_assert(!r.env_left);
}
END_TEST

/* sd_listen_fds(3): variables for another process, or none, mean nothing
 * was passed; descriptor 3 is then not touched. */
START_TEST(test_not_for_us_ignored)
{
	struct result r = take(K_UNIX, "1", "1");
	ck_assert_int_eq(r.rc, 0);
	ck_assert(!r.cloexec && !r.nonblock);
	ck_assert(!r.env_left);
	r = take(K_UNIX, NULL, "0");
	ck_assert_int_eq(r.rc, 0);
	ck_assert(!r.cloexec);
}
END_TEST

static void refused(enum kind k, const char *pid, const char *fds, const char *needle)
{
	struct result r = take(k, pid, fds);
	ck_assert_msg(r.rc == -1, "accepted (rc %d), wanted \"%s\"", r.rc, needle);
	ck_assert_msg(strstr(r.err, needle), "\"%s\" does not say \"%s\"", r.err, needle);
	ck_assert(!r.env_left);
}

START_TEST(test_wrong_descriptors_refused)
{
	refused(K_FILE, NULL, "1", "descriptor 3 is not a socket");
	refused(K_NONE, NULL, "1", "descriptor 3: Bad file descriptor");
	refused(K_TCP, NULL, "1", "not a Unix socket");
	refused(K_DGRAM, NULL, "1", "not a stream socket");
	refused(K_UNBOUND, NULL, "1", "is not listening");
	refused(K_UNIX, NULL, "2", "exactly one socket");
}
END_TEST

START_TEST(test_garbled_variables_refused)
{
	refused(K_UNIX, NULL, "1x", "LISTEN_FDS is not a descriptor count");
	refused(K_UNIX, NULL, "-1", "LISTEN_FDS is not a descriptor count");
	refused(K_UNIX, NULL, NULL, "LISTEN_FDS is not a descriptor count: \"(unset)\"");
	refused(K_UNIX, "12ab", "1", "LISTEN_PID is not a process id");
	refused(K_UNIX, "0", "1", "LISTEN_PID is not a process id");
}
END_TEST

/* The passed socket's file: root's and not open to others, as the daemon
 * would have made it; a foreign owner is refused, mode 0666 only warned. */
START_TEST(test_socket_file_owner_and_mode)
{
	char p[128], err[512];
	snprintf(p, sizeof p, "%s/sock", dir);
	int fd = make_fd(K_UNIX);
	ck_assert(fd >= 0);
	ck_assert(chmod(p, 0660) == 0);
	ck_assert_int_eq(listenfd_check_path(p, err, sizeof err), 0);
	ck_assert_int_eq(listenfd_check_path("", err, sizeof err), 0);
	ck_assert(chmod(p, 0666) == 0);
	ck_assert_int_eq(listenfd_check_path(p, err, sizeof err), 1);
	ck_assert_msg(strstr(err, "0666") && strstr(err, "SocketMode=0660"), "%s", err);
	ck_assert(chown(p, 65534, 0) == 0);
	ck_assert_int_eq(listenfd_check_path(p, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "not owned by root"), "%s", err);
	close(fd);
	unlink(p);
	ck_assert(symlink("/etc/passwd", p) == 0);
	ck_assert_int_eq(listenfd_check_path(p, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "not a socket"), "%s", err);
}
END_TEST

static Suite *listenfd_suite(void)
{
	Suite *s = suite_create("server_listenfd");
	TCase *t = tmain_tcase(s, "listenfd", 0);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_listening_unix_socket_taken);
	tcase_add_test(t, test_not_for_us_ignored);
	tcase_add_test(t, test_wrong_descriptors_refused);
	tcase_add_test(t, test_garbled_variables_refused);
	tcase_add_test(t, test_socket_file_owner_and_mode);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true};
	return tmain(listenfd_suite, &opts);
}
