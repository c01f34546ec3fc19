/* Unit tests for the state dir (sandboxd/server/statedir.c): a directory
 * that is not root's 0700, or a symlink, is refused; names in it are never
 * reached through a symlink, with openat2 and with the openat(O_NOFOLLOW)
 * fallback of kernels before 5.6 (forced here by a seccomp filter that makes
 * openat2 fail with ENOSYS); a symlink at "root" is removed by name and its
 * target left alone; the cgroup home is written and read without following
 * one. Run as root (ownership checks). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/server/statedir.h"
#include "tests/helpers/tmain.h"

static char base[64];

static void setup(void)
{
	snprintf(base, sizeof base, "/tmp/sbx-statedir.XXXXXX");
	ck_assert(mkdtemp(base) != NULL);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	ck_assert(system(cmd) == 0);
}

static void path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", base, name);
}

START_TEST(test_open_creates_0700_and_refuses_others)
{
	char p[128], err[512];
	path(p, sizeof p, "state");
	int fd = statedir_open(p, err, sizeof err);
	ck_assert_msg(fd >= 0, "%s", err);
	struct stat st;
	ck_assert(fstat(fd, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0700);
	close(fd);
	ck_assert(chmod(p, 0710) == 0);
	ck_assert_int_lt(statedir_open(p, err, sizeof err), 0);
	ck_assert_msg(strstr(err, p) && strstr(err, "mode 0700"), "%s", err);
	ck_assert(chmod(p, 0700) == 0 && chown(p, 1, 0) == 0);
	ck_assert_int_lt(statedir_open(p, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "not owned by root"), "%s", err);
	char l[128];
	path(l, sizeof l, "link");
	ck_assert(chown(p, 0, 0) == 0 && symlink(p, l) == 0);
	ck_assert_int_lt(statedir_open(l, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	/* An ancestor another user can change. */
	char sub[128], st2[160];
	path(sub, sizeof sub, "open");
	ck_assert(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0);
	snprintf(st2, sizeof st2, "%s/state", sub);
	ck_assert_int_lt(statedir_open(st2, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "writable by others"), "%s", err);
}
END_TEST

/* Symlinks at names in the state dir: refused to open, removed by name. */
static void check_nofollow(void)
{
	char p[128], err[512], target[128], marker[160];
	path(p, sizeof p, "state");
	path(target, sizeof target, "target");
	snprintf(marker, sizeof marker, "%s/marker", target);
	int fd = statedir_open(p, err, sizeof err);
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert(mkdir(target, 0755) == 0);
	int m = open(marker, O_WRONLY | O_CREAT, 0644);
	ck_assert(m >= 0);
	close(m);
	ck_assert(symlinkat(marker, fd, "cgroup-home") == 0);
	errno = 0;
	ck_assert_int_lt(statedir_openat(fd, "cgroup-home", O_RDONLY, 0), 0);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_lt(statedir_openat(fd, "../target", O_RDONLY, 0), 0);
	char home[256];
	statedir_home_read(fd, home, sizeof home);
	ck_assert_str_eq(home, "");
	/* Written by rename: the symlink is replaced, its target untouched. */
	ck_assert_int_eq(statedir_home_write(fd, "/sandboxd/s1234"), 0);
	statedir_home_read(fd, home, sizeof home);
	ck_assert_str_eq(home, "/sandboxd/s1234");
	struct stat st;
	ck_assert(stat(marker, &st) == 0 && st.st_size == 0);
	ck_assert_int_eq(statedir_home_write(fd, NULL), 0);
	ck_assert(fstatat(fd, "cgroup-home", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT);
	/* A symlink at "root" goes by name; its target and contents stay. */
	ck_assert(symlinkat(target, fd, "root") == 0);
	ck_assert_msg(statedir_make_root(fd, p, err, sizeof err) == 0, "%s", err);
	ck_assert(fstatat(fd, "root", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	ck_assert(access(marker, F_OK) == 0);
	/* A regular file there too, and an old directory is made fresh. */
	statedir_remove_root(fd);
	ck_assert(fstatat(fd, "root", &st, AT_SYMLINK_NOFOLLOW) < 0);
	m = statedir_openat(fd, "root", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert(m >= 0);
	close(m);
	ck_assert_msg(statedir_make_root(fd, p, err, sizeof err) == 0, "%s", err);
	ck_assert(fstatat(fd, "root", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	ck_assert_msg(statedir_make_root(fd, p, err, sizeof err) == 0, "%s", err);
	close(fd);
}

START_TEST(test_names_never_followed)
{
	check_nofollow();
}
END_TEST

/* The same in a child where openat2 fails with ENOSYS, as before 5.6. */
START_TEST(test_names_never_followed_without_openat2)
{
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		if (!ctx ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) < 0 ||
		    seccomp_load(ctx) < 0)
			_exit(3);
		seccomp_release(ctx);
		errno = 0;
		if (syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) >= 0 || errno != ENOSYS)
			_exit(4); /* the filter does not take */
		check_nofollow();
		_exit(0);
	}
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child wait status %d", st);
}
END_TEST

static Suite *statedir_suite(void)
{
	Suite *s = suite_create("server_statedir");
	TCase *t = tmain_tcase(s, "statedir", 30);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_open_creates_0700_and_refuses_others);
	tcase_add_test(t, test_names_never_followed);
	tcase_add_test(t, test_names_never_followed_without_openat2);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true};
	return tmain(statedir_suite, &opts);
}
