/* Unit tests for sandboxd/jail/workfiles.c on a directory of the host laid
 * out the way a hostile job would leave its /work: symlinks out (absolute,
 * relative, on a directory of the path), FIFOs, sockets, device nodes,
 * directories, sparse files of a terabyte, paths that climb out, and a file
 * that keeps growing while it is read. Only regular files within the bound
 * are ever read, and nothing blocks. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/fdpass.h"
#include "sandboxd/jail/workfiles.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

static char g_top[256], g_dir[300], g_secret[300];
static int g_fd = -1;

static void put(const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", g_dir, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(g_top, sizeof g_top, "/tmp/sbx-workfiles.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_top));
	snprintf(g_dir, sizeof g_dir, "%s/work", g_top);
	snprintf(g_secret, sizeof g_secret, "%s/secret", g_top);
	ck_assert_int_eq(mkdir(g_dir, 0755), 0);
	FILE *f = fopen(g_secret, "w");
	ck_assert_ptr_nonnull(f);
	fputs("SECRET", f);
	fclose(f);
	g_fd = open(g_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(g_fd, 0);
}

static void teardown(void)
{
	close(g_fd);
	td_rmtree(g_top);
}

/* Reads path; returns 0 with the content in out, or -1 with why in out. */
static int rd(const char *path, size_t max, char *out, size_t outlen)
{
	char *data = NULL, why[160] = "";
	size_t len = 0;
	int rc = workfiles_read(g_fd, path, max, &data, &len, why, sizeof why);
	snprintf(out, outlen, "%s", rc == 0 ? data : why);
	if (rc == 0)
		ck_assert_uint_eq(strlen(data), len);
	else
		ck_assert_ptr_null(data);
	free(data);
	return rc;
}

START_TEST(test_regular_files)
{
	char out[200];
	put("a.txt", "hello");
	char sub[400];
	snprintf(sub, sizeof sub, "%s/d", g_dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	put("d/b.bin", "");
	ck_assert_int_eq(rd("a.txt", 100, out, sizeof out), 0);
	ck_assert_str_eq(out, "hello");
	ck_assert_int_eq(rd("d/b.bin", 100, out, sizeof out), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(rd("missing", 100, out, sizeof out), -1);
	ck_assert_str_eq(out, "no such file");
}
END_TEST

START_TEST(test_symlinks_never_followed)
{
	char out[200], p[400];
	snprintf(p, sizeof p, "%s/abs", g_dir);
	ck_assert_int_eq(symlink(g_secret, p), 0);
	snprintf(p, sizeof p, "%s/rel", g_dir);
	ck_assert_int_eq(symlink("../secret", p), 0);
	snprintf(p, sizeof p, "%s/up", g_dir);
	ck_assert_int_eq(symlink("..", p), 0);
	snprintf(p, sizeof p, "%s/proc", g_dir);
	ck_assert_int_eq(symlink("/proc/self/root/etc/passwd", p), 0);
	const char *paths[] = {"abs", "rel", "up/secret", "proc"};
	for (size_t i = 0; i < 4; i++) {
		ck_assert_msg(rd(paths[i], 100, out, sizeof out) == -1, "%s read: %s", paths[i],
			      out);
		ck_assert_ptr_null(strstr(out, "SECRET"));
	}
}
END_TEST

START_TEST(test_paths_that_climb_out)
{
	char out[200];
	ck_assert_int_eq(rd("../secret", 100, out, sizeof out), -1);
	ck_assert_int_eq(rd(g_secret, 100, out, sizeof out), -1);
	ck_assert_ptr_null(strstr(out, "SECRET"));
}
END_TEST

/* A FIFO without a writer blocks open(O_RDONLY) forever, and with one that
 * never writes, read(): the reader must refuse it from its type, at once.
 * In a child with an alarm, so a regression fails instead of hanging. */
START_TEST(test_special_files_refused_at_once)
{
	char out[200], p[400];
	snprintf(p, sizeof p, "%s/fifo", g_dir);
	ck_assert_int_eq(mkfifo(p, 0666), 0);
	snprintf(p, sizeof p, "%s/sock", g_dir);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%.100s", p);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	snprintf(p, sizeof p, "%s/d", g_dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	const char *paths[] = {"fifo", "sock", "d"};
	const char *kinds[] = {"a FIFO", "a socket", "a directory"};
	alarm(5);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(rd(paths[i], 100, out, sizeof out), -1);
		ck_assert_str_eq(out, kinds[i]);
	}
	alarm(0);
	close(s);
}
END_TEST

START_TEST(test_device_node_refused)
{
	char out[200], p[400];
	snprintf(p, sizeof p, "%s/zero", g_dir);
	if (mknod(p, S_IFCHR | 0666, makedev(1, 5)) < 0)
		SKIP_TEST("cannot make a device node here: %s", strerror(errno));
	ck_assert_int_eq(rd("zero", 100, out, sizeof out), -1);
	ck_assert_str_eq(out, "a device node");
}
END_TEST

START_TEST(test_size_bounded_before_read)
{
	char out[200], p[400];
	put("ten", "0123456789");
	ck_assert_int_eq(rd("ten", 10, out, sizeof out), 0);
	ck_assert_int_eq(rd("ten", 9, out, sizeof out), -1);
	ck_assert_ptr_nonnull(strstr(out, "more than"));
	/* A terabyte of holes: refused from its size, never read. */
	snprintf(p, sizeof p, "%s/sparse", g_dir);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	if (ftruncate(fd, 1LL << 40) < 0) {
		close(fd);
		SKIP_TEST("this file system cannot hold a 1 TB sparse file: %s", strerror(errno));
	}
	close(fd);
	alarm(5);
	ck_assert_int_eq(rd("sparse", 16 << 20, out, sizeof out), -1);
	alarm(0);
	ck_assert_ptr_nonnull(strstr(out, "more than"));
}
END_TEST

START_TEST(test_file_through_a_file)
{
	char out[200];
	put("f", "x");
	ck_assert_int_eq(rd("f/x", 100, out, sizeof out), -1);
}
END_TEST

static atomic_bool g_stop;
static void *grower(void *arg)
{
	int fd = *(int *)arg;
	while (!atomic_load(&g_stop))
		if (write(fd, "yyyyyyyy", 8) < 0 || lseek(fd, 0, SEEK_END) > (1 << 20))
			if (ftruncate(fd, 0) < 0)
				break;
	return NULL;
}

/* A file written while it is read comes back whole as of one size, or is
 * refused as changed; never longer than the bound. */
START_TEST(test_changing_while_read)
{
	char p[400];
	snprintf(p, sizeof p, "%s/grow", g_dir);
	int fd = open(p, O_CREAT | O_WRONLY | O_APPEND, 0644);
	ck_assert_int_ge(fd, 0);
	atomic_store(&g_stop, false);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, grower, &fd), 0);
	int changed = 0;
	struct stat st;
	while (fstat(fd, &st) == 0 && st.st_size == 0)
		usleep(1000);
	long long end = td_now_ms() + 3000;
	for (int i = 0; i < 20 || (changed == 0 && td_now_ms() < end); i++) {
		char *data = NULL, why[160];
		size_t len = 0;
		int rc = workfiles_read(g_fd, "grow", 2 << 20, &data, &len, why, sizeof why);
		if (rc == 0) {
			size_t k = 0;
			while (k < len && data[k] == 'y')
				k++;
			ck_assert_uint_le(len, 2 << 20);
			ck_assert_uint_eq(k, len);
		} else {
			changed += strcmp(why, "changed while read") == 0;
		}
		free(data);
		usleep(1000); /* let the writer run between reads */
	}
	atomic_store(&g_stop, true);
	pthread_join(t, NULL);
	close(fd);
	/* The check must be able to see a change: with a writer that never
	 * stops, some read within 3 s overlaps a write. */
	ck_assert_int_gt(changed, 0);
}
END_TEST

/* How the supervisor holds a job's /work: the job sends it (fdpass.h)
 * before its code runs, and the descriptor keeps the directory readable
 * after the sender is gone. Only a directory on a tmpfs is kept. */
START_TEST(test_work_sent_and_kept)
{
	char out[200];
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	char shm[] = "/dev/shm/sbx-workfiles.XXXXXX";
	if (!mkdtemp(shm))
		SKIP_TEST("no tmpfs at /dev/shm to send from: %s", strerror(errno));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		char p[300];
		snprintf(p, sizeof p, "%s/kept", shm);
		FILE *f = fopen(p, "w");
		if (!f || fputs("still here", f) < 0 || fclose(f) != 0)
			_exit(1);
		_exit(fdpass_send_dir(sv[1], shm, FDPASS_WORK) == 0 &&
			      fdpass_send_dir(sv[1], g_dir, FDPASS_WORK) == 0
			  ? 0
			  : 2);
	}
	close(sv[1]);
	int status = -1;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	char tag = 0;
	int w = fdpass_recv(sv[0], 0, &tag);
	ck_assert_int_ge(w, 0);
	ck_assert_int_eq(tag, FDPASS_WORK);
	ck_assert_int_eq(workfiles_check(w), 0);
	/* The test's own dir is on the host's /tmp: refused unless that is a
	 * tmpfs too. */
	int host = fdpass_recv(sv[0], 0, &tag);
	ck_assert_int_ge(host, 0);
	struct statfs sf;
	ck_assert_int_eq(fstatfs(host, &sf), 0);
	ck_assert_int_eq(workfiles_check(host), sf.f_type == TMPFS_MAGIC ? 0 : -1);
	close(host);
	int file = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(file, 0);
	ck_assert_int_eq(workfiles_check(file), -1);
	close(file);
	close(sv[0]);
	close(g_fd);
	g_fd = w;
	ck_assert_int_eq(rd("kept", 100, out, sizeof out), 0);
	ck_assert_str_eq(out, "still here");
	td_rmtree(shm);
}
END_TEST

static Suite *workfiles_suite(void)
{
	Suite *s = suite_create("jail_workfiles");
	TCase *t = tcase_create("workfiles");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_regular_files);
	tcase_add_test(t, test_symlinks_never_followed);
	tcase_add_test(t, test_paths_that_climb_out);
	tcase_add_test(t, test_special_files_refused_at_once);
	tcase_add_test(t, test_device_node_refused);
	tcase_add_test(t, test_size_bounded_before_read);
	tcase_add_test(t, test_file_through_a_file);
	tcase_add_test(t, test_changing_while_read);
	tcase_add_test(t, test_work_sent_and_kept);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(workfiles_suite, NULL);
}
