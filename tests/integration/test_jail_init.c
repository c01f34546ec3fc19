/* The job's init driven through jail_run without a daemon: which binary
 * jail_init_open accepts as sandboxd-init, and the peer payload (struct
 * jail_job.peer_args): sandboxd-init forks the main payload (the
 * grader) and a second one (the candidate) under another uid; they talk over
 * a socketpair (the grader's fd 5, the candidate's fd 3); the candidate owns
 * /work and cannot signal the grader or read its memory. The control runs
 * the same probe with one uid for both and sees the signal check succeed.
 * Run as root from the repository root, after make all (sandboxd-init). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/jail.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

#define TIMEOUT_S 60
#define PROFILE "policies/python.seccomp.json"

/* The grader: sends its pid, prints what the candidate answered. */
static const char main_code[] =
    "import os, socket\n"
    "s = socket.socket(fileno=5)\n"
    "s.sendall(b'%d\\n' % os.getpid())\n"
    "line = s.makefile('r').readline().strip()\n"
    "print('main uid=%d work=%s | %s' % (os.getuid(), os.access('/work', os.R_OK), line))\n";

/* The candidate: probes the grader, reports on fd 3. */
static const char peer_code[] =
    "import os, socket, sys\n"
    "s = socket.socket(fileno=3)\n"
    "pid = int(s.makefile('r').readline())\n"
    "try:\n    os.kill(pid, 0); k = 'signal-ok'\n"
    "except OSError as e:\n    k = 'signal-%d' % e.errno\n"
    "try:\n    open('/proc/%d/mem' % pid, 'rb').read(1); m = 'mem-ok'\n"
    "except OSError as e:\n    m = 'mem-%d' % e.errno\n"
    "code = open('/work/main.py').read()\n"
    "stdin = sys.stdin.read()\n"
    "s.sendall(('peer uid=%d %s %s work_uid=%d %s stdin=%r\\n' % (os.getuid(), k, m,\n"
    "    os.stat('/work').st_uid, 'code' if 'MAINPY' in code else 'nocode', stdin)).encode())\n";

static struct jail_result run_peer(uid_t uid, uid_t peer_uid)
{
	char err[512], init[512], root[] = "/tmp/sbx-peer-root.XXXXXX";
	snprintf(init, sizeof init, "%s/sandboxd-init", td_build_dir());
	ck_assert_msg(jail_init_open(init, err, sizeof err) == 0, "%s", err);
	struct scmp_prog prog;
	ck_assert_msg(scmp_load_file(PROFILE, true, &prog, err, sizeof err) == 0, "%s", err);
	ck_assert_ptr_nonnull(mkdtemp(root));
	const char *margs[] = {"-I", "-c", main_code};
	const char *pargs[] = {"-I", "-c", peer_code};
	static const char code[] = "# MAINPY\n";
	struct jail_job jj = {.lim = {5000, 20000, 512, 64, 64, 16},
			      .interpreter = "/usr/bin/python3",
			      .args = margs,
			      .nargs = 3,
			      .seccomp = &prog,
			      .code = code,
			      .code_len = sizeof code - 1,
			      .stdin_data = "main's stdin",
			      .stdin_len = 12,
			      .peer_args = pargs,
			      .npeer_args = 3,
			      .peer_uid = peer_uid,
			      .peer_gid = peer_uid};
	struct jail_spec spec;
	ck_assert_int_eq(jail_spec_init(&spec, &jj, uid, uid, root, false), 0);
	struct jail_result r;
	jail_run(&spec, NULL, NULL, -1, NULL, &r);
	scmp_prog_free(&prog);
	rmdir(root);
	return r;
}

static uid_t test_uid(void)
{
	return (uid_t)(300000u + ((unsigned)getpid() % 100000u) * 4u);
}

START_TEST(test_peer_isolated)
{
	uid_t u = test_uid();
	struct jail_result r = run_peer(u, u + 1);
	ck_assert_msg(!r.error[0], "jail error: %s", r.error);
	ck_assert_msg(r.have_status && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		      "main payload status %d, stderr: %.*s", r.status, (int)r.err_len,
		      r.err ? r.err : "");
	char want[256];
	snprintf(want, sizeof want,
		 "main uid=%u work=False | peer uid=%u signal-1 mem-13 work_uid=%u code "
		 "stdin=''\n",
		 (unsigned)u, (unsigned)u + 1, (unsigned)u + 1);
	ck_assert_msg(r.out && r.out_len == strlen(want) && memcmp(r.out, want, r.out_len) == 0,
		      "stdout %.*s, want %s; stderr %.*s", (int)r.out_len, r.out ? r.out : "", want,
		      (int)r.err_len, r.err ? r.err : "");
	ck_assert_int_eq(r.violation_nr, -1);
	jail_result_free(&r);
}
END_TEST

/* The control: with the grader's own uid the same probe reaches it. */
START_TEST(test_peer_same_uid_control)
{
	uid_t u = test_uid() + 2;
	struct jail_result r = run_peer(u, u);
	ck_assert_msg(!r.error[0], "jail error: %s", r.error);
	ck_assert_msg(r.out && memmem(r.out, r.out_len, "signal-ok", 9), "stdout %.*s; stderr %.*s",
		      (int)r.out_len, r.out ? r.out : "", (int)r.err_len, r.err ? r.err : "");
	jail_result_free(&r);
}
END_TEST

/* A forbidden syscall in the candidate reaches the daemon through its own
 * seccomp listener (the second one supervise() watches). */
START_TEST(test_peer_violation_seen)
{
	uid_t u = test_uid();
	char err[512], init[512], root[] = "/tmp/sbx-peer-root.XXXXXX";
	snprintf(init, sizeof init, "%s/sandboxd-init", td_build_dir());
	ck_assert_msg(jail_init_open(init, err, sizeof err) == 0, "%s", err);
	struct scmp_prog prog;
	ck_assert_msg(scmp_load_file(PROFILE, true, &prog, err, sizeof err) == 0, "%s", err);
	if (!prog.notify) {
		scmp_prog_free(&prog);
		SKIP_TEST("no seccomp user notification on this kernel");
	}
	ck_assert_ptr_nonnull(mkdtemp(root));
	const char *margs[] = {"-I", "-c", "import time; time.sleep(10)"};
	const char *pargs[] = {"-I", "-c", "import ctypes; ctypes.CDLL(None).syscall(165)"};
	struct jail_job jj = {.lim = {5000, 20000, 512, 64, 64, 16},
			      .interpreter = "/usr/bin/python3",
			      .args = margs,
			      .nargs = 3,
			      .seccomp = &prog,
			      .code = "",
			      .peer_args = pargs,
			      .npeer_args = 3,
			      .peer_uid = u + 1,
			      .peer_gid = u + 1};
	struct jail_spec spec;
	ck_assert_int_eq(jail_spec_init(&spec, &jj, u, u, root, false), 0);
	struct jail_result r;
	jail_run(&spec, NULL, NULL, -1, NULL, &r);
	scmp_prog_free(&prog);
	rmdir(root);
	ck_assert_msg(!r.error[0], "jail error: %s", r.error);
	ck_assert_msg(r.violation_nr == 165, "violation %d (mount is 165), wall %llu ms",
		      r.violation_nr, (unsigned long long)(r.wall_ns / 1000000));
	jail_result_free(&r);
}
END_TEST

/* Every job runs the init as root: a binary someone else could have
 * changed, or reached through a symlink, is refused. */
START_TEST(test_init_open_refuses)
{
	char err[512], good[512], dir[] = "/tmp/sbx-init-open.XXXXXX", path[600], link[600];
	snprintf(good, sizeof good, "%s/sandboxd-init", td_build_dir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/sandboxd-init", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	int in = open(good, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
	ck_assert(in >= 0 && out >= 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_msg(jail_init_open(path, err, sizeof err) == 0, "the control: %s", err);
	ck_assert_int_eq(chmod(path, 0775), 0);
	ck_assert_int_eq(jail_init_open(path, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "only root can write"), "%s", err);
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_eq(chown(path, 12345, 0), 0);
	ck_assert_int_eq(jail_init_open(path, err, sizeof err), -1);
	ck_assert_int_eq(chown(path, 0, 0), 0);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(jail_init_open(link, err, sizeof err), -1);
	ck_assert_int_eq(jail_init_open("/nonexistent/sandboxd-init", err, sizeof err), -1);
	ck_assert_msg(strstr(err, "/nonexistent/sandboxd-init"), "%s", err);
	unlink(link);
	unlink(path);
	rmdir(dir);
	ck_assert_msg(jail_init_open(good, err, sizeof err) == 0, "%s", err);
}
END_TEST

static Suite *peer_suite(void)
{
	Suite *s = suite_create("jail_init");
	TCase *t = tcase_create("init");
	tcase_set_timeout(t, TIMEOUT_S);
	tcase_add_test(t, test_init_open_refuses);
	tcase_add_test(t, test_peer_isolated);
	tcase_add_test(t, test_peer_same_uid_control);
	tcase_add_test(t, test_peer_violation_seen);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-jinit"};
	return tmain(peer_suite, &opts);
}
