/* Integration tests of the daemon's own files and ids (issue 10, item 8),
 * against a real sandboxd: the state dir must be root's and 0700, and a
 * symlink planted at <state-dir>/root must not make the daemon unmount its
 * target; a second daemon on a live socket is refused and the first keeps
 * serving, while a stale socket is replaced; the job uid range
 * [uid-base, uid-base + 2 x workers) may hold no account and no running
 * process, but a restart after a crash is not refused; and a "files" entry
 * that does not fit tmpfs_mb is a too_large error naming it. Run as root from
 * the repository root (make integration). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tprofile.h"

#define TIMEOUT_S 60
#define CALL_MS 30000
#define EXIT_WAIT_MS 15000 /* a refused start ends within this */

/* Runs sandboxd with argv (NULL-terminated, after the binary) and waits for
 * it to exit; its output in out. Returns the wait status, or -1 when it was
 * still running after EXIT_WAIT_MS (it then serves: killed). */
static int run_daemon(const char *const *args, char *out, size_t outlen)
{
	const char *argv[32];
	int a = 0;
	argv[a++] = td_binary();
	for (int i = 0; args[i] && a < 31; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pp[1], 1);
		dup2(pp[1], 2);
		close(pp[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pp[1]);
	int st = -1;
	long long deadline = td_now_ms() + EXIT_WAIT_MS;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (td_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			st = -1;
			break;
		}
		td_sleep_ms(20);
	}
	size_t have = 0;
	ssize_t n;
	while (have + 1 < outlen && (n = read(pp[0], out + have, outlen - 1 - have)) > 0)
		have += (size_t)n;
	out[have] = '\0';
	close(pp[0]);
	return st;
}

static bool refused(int st)
{
	return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

/* A fresh directory under the run's base (SBX_TEST_TMPDIR), with path names
 * for a socket and a state dir in it. */
struct tdir {
	char dir[200], sock[108], state[256];
};

static void tdir_make(struct tdir *t)
{
	const char *base = getenv("SBX_TEST_TMPDIR");
	snprintf(t->dir, sizeof t->dir, "%s/files.XXXXXX", base && *base ? base : "/tmp");
	ck_assert(mkdtemp(t->dir) != NULL);
	snprintf(t->sock, sizeof t->sock, "%.100s/sock", t->dir);
	snprintf(t->state, sizeof t->state, "%s/state", t->dir);
}

/* A uid range of this test process's own (the one td_start would pick). */
static unsigned own_uid_base(void)
{
	return 200000u + ((unsigned)getpid() % 100000u) * 512u;
}

/* --- the state dir ----------------------------------------------------------- */

/* Refused with a message naming the path and what is wrong. */
static void expect_state_refused(struct tdir *t, const char *why)
{
	char out[8192], ub[32];
	snprintf(ub, sizeof ub, "%u", own_uid_base());
	const char *args[] = {"--socket",   t->sock, "--state-dir", t->state, "--workers", "1",
			      "--uid-base", ub,	     NULL};
	int st = run_daemon(args, out, sizeof out);
	ck_assert_msg(refused(st), "%s: the daemon was not refused (wait status %d); output:\n%s",
		      why, st, out);
	ck_assert_msg(strstr(out, t->state) && strstr(out, why),
		      "%s: the message does not name the path and the fault:\n%s", why, out);
	ck_assert_msg(access(t->sock, F_OK) < 0, "%s: a refused daemon made its socket", why);
}

START_TEST(test_state_dir_wrong_owner_or_mode_refused)
{
	struct tdir t;
	tdir_make(&t);
	ck_assert(mkdir(t.state, 0700) == 0);
	ck_assert(chmod(t.state, 0755) == 0);
	expect_state_refused(&t, "does not have mode 0700");
	ck_assert(chmod(t.state, 0700) == 0 && chown(t.state, 65534, 0) == 0);
	expect_state_refused(&t, "is not owned by root");
	ck_assert(rmdir(t.state) == 0);
	char real[300];
	snprintf(real, sizeof real, "%s/real", t.dir);
	ck_assert(mkdir(real, 0700) == 0 && symlink(real, t.state) == 0);
	expect_state_refused(&t, "is a symlink");
	td_rmtree(t.dir);
}
END_TEST

static bool is_mounted(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s/..", path);
	struct stat a, b;
	return stat(path, &a) == 0 && stat(buf, &b) == 0 && a.st_dev != b.st_dev;
}

/* Before: a symlink at <state-dir>/root made the daemon unmount its target
 * (umount2 follows symlinks), then refuse to start. */
START_TEST(test_symlink_at_state_root_leaves_target_alone)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	ck_assert_msg(td_stop(&d, 10000) >= 0, "%s", d.err);
	char target[400], root[400], marker[450];
	snprintf(target, sizeof target, "%s/target", d.dir);
	snprintf(root, sizeof root, "%s/root", d.state);
	snprintf(marker, sizeof marker, "%s/marker", target);
	ck_assert(mkdir(target, 0755) == 0);
	ck_assert_msg(mount("tmpfs", target, "tmpfs", 0, "size=64k") == 0, "mount: %s",
		      strerror(errno));
	int fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert(fd >= 0);
	close(fd);
	rmdir(root);
	ck_assert(symlink(target, root) == 0);
	int rc = td_restart(&d);
	bool still = is_mounted(target) && access(marker, F_OK) == 0;
	struct stat st;
	bool root_is_dir = lstat(root, &st) == 0 && S_ISDIR(st.st_mode);
	json_t *r = rc == 0 ? run1(&d, job("after", "print('ok')"), CALL_MS) : NULL;
	if (rc == 0)
		stop_ok(&d);
	umount2(target, MNT_DETACH); /* before any assertion: leave no mount behind */
	td_cleanup(&d);
	ck_assert_msg(still, "the daemon unmounted the target of a symlink at <state-dir>/root");
	ck_assert_msg(rc == 0, "restart with a symlink at <state-dir>/root: %s", d.err);
	ck_assert_msg(root_is_dir, "<state-dir>/root is not a fresh directory");
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "ok\n"));
	json_decref(r);
}
END_TEST

/* A state dir given through a symlink (here one a user owns, as under /tmp)
 * is used by its resolved path: re-pointing the symlink after the daemon
 * started changes nothing. Before, jobs reached <state-dir>/root through the
 * symlink, so re-pointing it moved every job's root mount point. */
START_TEST(test_state_dir_through_symlink_resolved)
{
	struct tdir t;
	tdir_make(&t);
	char real[300], other[300], link[300], state[340], stray[360];
	snprintf(real, sizeof real, "%s/real", t.dir);
	snprintf(other, sizeof other, "%s/other", t.dir);
	snprintf(link, sizeof link, "%s/link", t.dir);
	snprintf(state, sizeof state, "%s/state", link);
	snprintf(stray, sizeof stray, "%s/state", other);
	ck_assert(mkdir(real, 0755) == 0 && mkdir(other, 0755) == 0);
	ck_assert(symlink(real, link) == 0 && lchown(link, 65534, 65534) == 0);
	struct test_daemon d;
	START(d, "--workers", "1", "--state-dir", state);
	/* The user re-points the symlink at a directory of their choosing. */
	ck_assert(unlink(link) == 0 && symlink(other, link) == 0);
	json_t *r = run1(&d, job("moved", "print('ok')"), CALL_MS);
	stop_ok(&d);
	bool strayed = access(stray, F_OK) == 0;
	td_rmtree(t.dir);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "ok\n"));
	json_decref(r);
	ck_assert_msg(!strayed, "the daemon followed the re-pointed symlink to %s", stray);
}
END_TEST

/* --- the socket ------------------------------------------------------------------ */

START_TEST(test_live_socket_refused_first_still_serves)
{
	struct test_daemon a;
	START(a, "--workers", "1");
	struct stat before, after;
	ck_assert(stat(a.sock, &before) == 0);
	struct sbx_conn *ca = conn_open(&a);
	submit(ca, job("A", "import time\ntime.sleep(1.5)\nprint('A done')\n"));
	ck_assert(td_wait_uid_procs(uid_lo(&a), uid_hi(&a), 10000) > 0);
	struct tdir t;
	tdir_make(&t);
	char out[8192], ub[32];
	snprintf(ub, sizeof ub, "%u", a.uid_base + 4096u);
	const char *args[] = {"--socket",   a.sock, "--state-dir", t.state, "--workers", "1",
			      "--uid-base", ub,	    NULL};
	int st = run_daemon(args, out, sizeof out);
	ck_assert_msg(refused(st), "a second daemon on a live socket: wait status %d; output:\n%s",
		      st, out);
	ck_assert_msg(strstr(out, "another sandboxd is serving") && strstr(out, a.sock),
		      "output:\n%s", out);
	ck_assert_msg(stat(a.sock, &after) == 0 && after.st_ino == before.st_ino,
		      "the first daemon's socket was removed or replaced");
	char err[256];
	json_t *ra = sbx_wait(ca, "A", CALL_MS, err, sizeof err);
	ck_assert_msg(ra != NULL, "%s", err);
	CHECK_R(ra, streq(sget(ra, "verdict"), "pass") && streq(sget(ra, "stdout"), "A done\n"));
	json_decref(ra);
	sbx_close(ca);
	json_t *r = run1(&a, job("again", "print(2)"), CALL_MS);
	CHECK_R(r, streq(sget(r, "stdout"), "2\n"));
	json_decref(r);
	stop_ok(&a);
	td_rmtree(t.dir);
}
END_TEST

/* A listener that is not sandboxd (it never answers a ping) keeps its
 * socket too; a socket nobody listens on (a crashed daemon's) is replaced. */
START_TEST(test_stale_socket_replaced_foreign_listener_kept)
{
	struct tdir t;
	tdir_make(&t);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, t.sock);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	ck_assert(listen(fd, 8) == 0);
	char out[8192], ub[32];
	snprintf(ub, sizeof ub, "%u", own_uid_base());
	const char *args[] = {"--socket",   t.sock, "--state-dir", t.state, "--workers", "1",
			      "--uid-base", ub,	    NULL};
	int st = run_daemon(args, out, sizeof out);
	ck_assert_msg(refused(st) && strstr(out, "did not answer a sandboxd ping"),
		      "a foreign listener: wait status %d; output:\n%s", st, out);
	close(fd); /* now nobody listens: stale */
	struct stat before;
	ck_assert(stat(t.sock, &before) == 0 && S_ISSOCK(before.st_mode));
	td_rmtree(t.dir);
	/* A crashed daemon's socket, through the helper: killed, restarted. */
	struct test_daemon d;
	START(d, "--workers", "1");
	td_kill(&d);
	ck_assert(stat(d.sock, &before) == 0 && S_ISSOCK(before.st_mode));
	ck_assert_msg(td_restart(&d) == 0, "restart on a stale socket: %s", d.err);
	json_t *r = run1(&d, job("x", "print(3)"), CALL_MS);
	CHECK_R(r, streq(sget(r, "stdout"), "3\n"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

/* --- the job uid range ------------------------------------------------------------ */

/* An account with a uid the daemon would accept as a job uid. */
static bool find_account(uid_t *out, char *name, size_t len)
{
	bool found = false;
	setpwent();
	struct passwd *pw;
	while (!found && (pw = getpwent()) != NULL)
		if (pw->pw_uid >= 1001 && pw->pw_uid < (1u << 30)) {
			*out = pw->pw_uid;
			snprintf(name, len, "%s", pw->pw_name);
			found = true;
		}
	endpwent();
	return found;
}

START_TEST(test_uid_range_with_account_refused)
{
	uid_t u;
	char name[64];
	if (!find_account(&u, name, sizeof name))
		SKIP_TEST("no account with a uid in [1001, 2^30) to overlap");
	struct tdir t;
	tdir_make(&t);
	/* Workers 1: the range is [u - 1, u], the account on its second half. */
	char out[8192], ub[32];
	snprintf(ub, sizeof ub, "%u", (unsigned)u - 1);
	const char *args[] = {"--socket",   t.sock, "--state-dir", t.state, "--workers", "1",
			      "--uid-base", ub,	    NULL};
	int st = run_daemon(args, out, sizeof out);
	ck_assert_msg(refused(st),
		      "uid range over the account %s (%u): wait status %d; output:\n%s", name,
		      (unsigned)u, st, out);
	ck_assert_msg(strstr(out, "--uid-base") && strstr(out, name), "output:\n%s", out);
	td_rmtree(t.dir);
}
END_TEST

START_TEST(test_uid_range_with_process_refused)
{
	unsigned base = own_uid_base(), workers = 2;
	uid_t u = (uid_t)(base + 2 * workers - 1); /* the last uid of the range */
	int pp[2];
	ck_assert(pipe(pp) == 0);
	pid_t child = fork();
	ck_assert(child >= 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pp[0]);
		if (setgroups(0, NULL) < 0 || setresgid(u, u, u) < 0 || setresuid(u, u, u) < 0)
			_exit(1);
		(void)!write(pp[1], "x", 1);
		pause();
		_exit(0);
	}
	close(pp[1]);
	char c;
	ck_assert_msg(read(pp[0], &c, 1) == 1, "the child could not become uid %u", (unsigned)u);
	close(pp[0]);
	struct tdir t;
	tdir_make(&t);
	char out[8192], ub[32], wk[16];
	snprintf(ub, sizeof ub, "%u", base);
	snprintf(wk, sizeof wk, "%u", workers);
	const char *args[] = {"--socket",   t.sock, "--state-dir", t.state, "--workers", wk,
			      "--uid-base", ub,	    NULL};
	int st = run_daemon(args, out, sizeof out);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_msg(refused(st), "a process with uid %u: wait status %d; output:\n%s",
		      (unsigned)u, st, out);
	ck_assert_msg(strstr(out, "--uid-base") && strstr(out, "running process"), "output:\n%s",
		      out);
	td_rmtree(t.dir);
}
END_TEST

/* The jobs of a crashed daemon still hold the job uids for a moment: the
 * restart cleans them first and is not refused. */
START_TEST(test_restart_after_crash_not_refused)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	struct test_daemon d;
	START(d, "--workers", "2");
	struct sbx_conn *c = conn_open(&d);
	submit(c, lim(job("l1", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	submit(c, lim(job("l2", "import time\ntime.sleep(30)\n"), "wall_ms", 60000));
	ck_assert(td_wait_uid_procs(uid_lo(&d), uid_hi(&d), 10000) > 0);
	td_kill(&d);
	sbx_close(c);
	ck_assert_msg(td_restart(&d) == 0, "restart right after a crash: %s", d.err);
	json_t *r = run1(&d, job("x", "print(4)"), CALL_MS);
	CHECK_R(r, streq(sget(r, "stdout"), "4\n"));
	json_decref(r);
	stop_ok(&d);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}
END_TEST

/* --- files that do not fit ----------------------------------------------------------- */

static json_t *with_file(json_t *req, const char *path, size_t len, char ch)
{
	char *data = malloc(len + 1);
	ck_assert_ptr_nonnull(data);
	memset(data, ch, len);
	data[len] = '\0';
	json_t *files = json_object_get(req, "files");
	if (!files) {
		files = json_object();
		json_object_set_new(req, "files", files);
	}
	json_object_set_new(files, path, json_stringn(data, len));
	free(data);
	return req;
}

/* Before: "error: seccomp listener not received: Protocol error" (the
 * payload died of SIGXFSZ writing the file), or runtime_error "exited with
 * status 127" for files that only together overflow /work. */
START_TEST(test_files_larger_than_tmpfs)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	json_t *r = run1(
	    &d,
	    lim(with_file(job("one", "print(1)"), "data/big.bin", 3u << 20, 'x'), "tmpfs_mb", 2),
	    CALL_MS);
	CHECK_R(r, streq(errcode(r), "too_large"));
	const char *m = sget(json_object_get(r, "error"), "message");
	CHECK_R(r, m && strstr(m, "data/big.bin") && strstr(m, "tmpfs_mb 2"));
	json_decref(r);
	json_t *req = with_file(job("two", "print(1)"), "a.bin", 3u << 19, 'a');
	r = run1(&d, lim(with_file(req, "b.bin", 3u << 19, 'b'), "tmpfs_mb", 2), CALL_MS);
	CHECK_R(r, streq(errcode(r), "too_large"));
	m = sget(json_object_get(r, "error"), "message");
	CHECK_R(r, m && strstr(m, "do not fit") && strstr(m, "tmpfs_mb 2"));
	json_decref(r);
	/* What exactly fits (in whole pages, main.py's included) still runs. */
	req = lim(job("fits", "import os\nprint(os.path.getsize('d/f'))"), "tmpfs_mb", 1);
	r = run1(&d, with_file(req, "d/f", (1u << 20) - 4096, 'f'), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass") && streq(sget(r, "stdout"), "1044480\n"));
	json_decref(r);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_files_suite(void)
{
	Suite *s = suite_create("daemon_files");
	TCase *t = tmain_tcase(s, "files", TIMEOUT_S);
	tcase_add_test(t, test_state_dir_wrong_owner_or_mode_refused);
	tcase_add_test(t, test_symlink_at_state_root_leaves_target_alone);
	tcase_add_test(t, test_state_dir_through_symlink_resolved);
	tcase_add_test(t, test_live_socket_refused_first_still_serves);
	tcase_add_test(t, test_stale_socket_replaced_foreign_listener_kept);
	tcase_add_test(t, test_uid_range_with_account_refused);
	tcase_add_test(t, test_uid_range_with_process_refused);
	tcase_add_test(t, test_restart_after_crash_not_refused);
	tcase_add_test(t, test_files_larger_than_tmpfs);
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
	return tmain(daemon_files_suite, &opts);
}
