/* Unit tests for the mount layer's two steps (mounts.h): a tree prepared
 * and entered ahead from a template and finished for a job must be the
 * tree the job would have built whole, with the job's sizes and texts, and
 * mounts_same_tree must tell the trees a template cannot serve. As
 * root, each tree is built in a forked child with a mount namespace of its
 * own; the child sends its /proc/self/mountinfo (mount ids and device
 * numbers left out: they differ on every run) and what it read from a few
 * files back to the test. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/mounts.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

/* Large (procview texts): not on the test's stack. */
static struct jail_spec g_a, g_b;
static struct jail_job g_ja, g_jb;
static const char *const g_ro[] = {"/usr/share", "/usr/lib"};
static const char g_runner[] = "print('runner')\n";
static const char g_json_a[] = "{\"format\":\"x\"}";
static char g_json_b[4096]; /* a job description of another size */

/* A job's spec as run_one.c makes it, for uid and a tmpfs of tmpfs_mb. */
static void make_spec(struct jail_spec *s, struct jail_job *j, uid_t uid, long tmpfs_mb,
		      long memory_mb, const char *root, bool runner, const char *json)
{
	memset(j, 0, sizeof *j);
	j->lim = (struct jail_limits){.cpu_ms = 1000,
				      .wall_ms = 2000,
				      .memory_mb = memory_mb,
				      .pids = 16,
				      .output_kb = 64,
				      .tmpfs_mb = tmpfs_mb,
				      .cpus = 1};
	j->interpreter = "/usr/bin/python3";
	j->ro_paths = g_ro;
	j->n_ro = 2;
	j->code = "pass";
	j->code_len = 4;
	ck_assert_int_eq(jail_spec_init(s, j, uid, uid, root, false), 0);
	if (runner)
		jail_spec_use_runner(s, g_runner, sizeof g_runner - 1,
				     jail_runner_sum(g_runner, sizeof g_runner - 1), json,
				     strlen(json), "", -1);
}

START_TEST(test_same_tree)
{
	char root[] = "/tmp";
	make_spec(&g_a, &g_ja, 60000, 8, 64, root, true, g_json_a);
	make_spec(&g_b, &g_jb, 60000, 64, 512, root, true, g_json_b);
	/* The job's sizes, limits and description are finished per job. */
	ck_assert(mounts_same_tree(&g_a, &g_b));
	make_spec(&g_b, &g_jb, 60001, 8, 64, root, true, g_json_a);
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "another uid's /etc/passwd");
	make_spec(&g_b, &g_jb, 60000, 8, 64, root, false, g_json_a);
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "no runner files");
	make_spec(&g_b, &g_jb, 60000, 8, 64, root, true, g_json_a);
	g_jb.n_ro = 1;
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "fewer read-only paths");
	g_jb.n_ro = 2;
	static const char *const other[] = {"/usr/share", "/usr/bin"};
	g_jb.ro_paths = other;
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "another read-only path");
	g_jb.ro_paths = g_ro;
	/* A warm job's description names the runner by length and checksum,
	 * without its bytes. */
	g_b.runner_src = NULL;
	ck_assert_msg(mounts_same_tree(&g_a, &g_b), "the same runner, named only");
	g_b.runner_sum ^= 1;
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "another runner, named only");
	g_b.runner_sum ^= 1;
	g_b.runner_len--;
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "another runner's length, named only");
	make_spec(&g_b, &g_jb, 60000, 8, 64, root, true, g_json_a);
	char flipped[sizeof g_runner];
	memcpy(flipped, g_runner, sizeof flipped);
	flipped[0] ^= 1;
	g_b.runner_src = flipped;
	ck_assert_msg(!mounts_same_tree(&g_a, &g_b), "another runner, its bytes compared");
}
END_TEST

/* One mountinfo line without its mount ids and device number. */
static void put_line(FILE *out, char *line)
{
	char *f[4] = {line, NULL, NULL, NULL};
	for (int i = 1; i < 4 && f[i - 1]; i++) {
		char *sp = strchr(f[i - 1], ' ');
		f[i] = sp ? sp + 1 : NULL;
	}
	fputs(f[3] ? f[3] : line, out);
}

/* In the child: builds the tree (how: 0 whole from b, 1 prepared from a
 * and finished for b, 2 whole from a), then writes what it sees to fd out.
 * Returns nonzero at the step that failed. */
static int build_child(int how, int out)
{
	if (unshare(CLONE_NEWNS) < 0)
		return 1;
	if (how == 0 && mounts_apply(&g_b) < 0)
		return 2;
	if (how == 1 && (mounts_prepare(&g_a) < 0 || mounts_finish(&g_b, &g_a) < 0))
		return 3;
	if (how == 2 && mounts_apply(&g_a) < 0)
		return 4;
	FILE *f = fdopen(out, "w");
	if (!f)
		return 5;
	char *line = NULL;
	size_t cap = 0;
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	if (!mi)
		return 6;
	while (getline(&line, &cap, mi) > 0)
		put_line(f, line);
	fclose(mi);
	static const char *const files[] = {"/etc/passwd", "/proc/meminfo", "/sandboxd/job.json",
					    NULL};
	for (int i = 0; files[i]; i++) {
		char buf[8192];
		ssize_t n = -1;
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof buf - 1);
			close(fd);
		}
		fprintf(f, "== %s %zd\n%.*s\n", files[i], n, n > 0 ? (int)n : 0, buf);
	}
	static const char *const dirs[] = {"/", "/tmp", "/work", "/dev/shm", NULL};
	for (int i = 0; dirs[i]; i++) {
		struct statfs sf;
		fprintf(f, "== %s blocks %ld\n", dirs[i],
			statfs(dirs[i], &sf) == 0 ? (long)sf.f_blocks : -1L);
	}
	/* The root is the job's to read only; its tmpfs dirs are writable. */
	fprintf(f, "== root writable: %d, /work writable: %d\n", access("/", W_OK) == 0,
		access("/work", W_OK) == 0);
	fprintf(f, "== staging visible: %d\n", access("/.procview", F_OK) == 0);
	return fclose(f) == 0 ? 0 : 7;
}

/* What the child built, as text (caller frees). */
static char *built(int how)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		_exit(build_child(how, p[1]));
	}
	close(p[1]);
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	ssize_t n;
	while ((n = read(p[0], buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tree %d: step %d failed", how,
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return buf;
}

/* Equal texts, or the first line where they differ (Check's own message
 * cannot hold two trees). */
static void same_text(const char *got, const char *want)
{
	size_t i = 0, line = 0;
	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n')
			line = i + 1;
		i++;
	}
	if (got[i] == want[i])
		return;
	ck_abort_msg("differs at \"%.*s\" (want \"%.*s\")", (int)strcspn(got + line, "\n"),
		     got + line, (int)strcspn(want + line, "\n"), want + line);
}

static bool run_as_root_or_skip(const char *test)
{
	if (geteuid() == 0)
		return true;
	sbx_skip_report(test, "needs root for a mount namespace");
	return false;
}

/* A template for uid 60000 with a small tmpfs and memory; the job (b) has
 * other sizes, another memory limit (its /proc/meminfo) and a description
 * of another size (its root's size). Finished from the prepared tree, it
 * must see what its whole tree shows, line for line. */
START_TEST(test_prepared_is_whole)
{
	if (!run_as_root_or_skip(__func__))
		return;
	char root[] = "/tmp/sbx-mounts.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	memset(g_json_b, ' ', sizeof g_json_b - 1);
	g_json_b[0] = '{';
	g_json_b[sizeof g_json_b - 2] = '}';
	make_spec(&g_a, &g_ja, 60000, 8, 64, root, true, g_json_a);
	make_spec(&g_b, &g_jb, 60000, 64, 512, root, true, g_json_b);
	ck_assert(mounts_same_tree(&g_a, &g_b));
	ck_assert_str_ne(g_a.root_opts, g_b.root_opts);
	char *whole = built(0), *prepared = built(1);
	rmdir(root);
	ck_assert_msg(strstr(whole, "MemTotal:         524288 kB") != NULL, "b's meminfo");
	ck_assert_msg(strstr(whole, "sandbox:x:60000:60000") != NULL, "b's passwd");
	ck_assert_msg(strstr(whole, "== staging visible: 0") != NULL, "staging");
	same_text(prepared, whole);
	free(whole);
	free(prepared);
}
END_TEST

/* The sizes are the job's, not the template's: a tree built whole from
 * the template differs from the job's in exactly the sizes and texts the
 * finished one took over (so the comparison above could fail). */
START_TEST(test_prepared_takes_the_jobs_sizes)
{
	if (!run_as_root_or_skip(__func__))
		return;
	char root[] = "/tmp/sbx-mounts.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	make_spec(&g_a, &g_ja, 60000, 8, 64, root, true, g_json_a);
	make_spec(&g_b, &g_jb, 60000, 64, 512, root, true, g_json_a);
	char *tmpl = built(2), *prepared = built(1);
	rmdir(root);
	/* 8 MiB and 64 MiB in 4 KiB blocks. */
	ck_assert_msg(strstr(tmpl, "== /tmp blocks 2048\n") != NULL, "the template's /tmp");
	ck_assert_msg(strstr(prepared, "== /tmp blocks 16384\n") != NULL, "the job's /tmp");
	ck_assert_msg(strstr(prepared, "== /work blocks 16384\n") != NULL, "the job's /work");
	ck_assert_msg(strstr(prepared, "== /dev/shm blocks 16384\n") != NULL, "the job's /dev/shm");
	ck_assert_msg(strstr(prepared, "MemTotal:         524288 kB") != NULL, "the job's meminfo");
	ck_assert_msg(strstr(prepared, "== root writable: 0, /work writable: 1") != NULL,
		      "a read-only root");
	free(tmpl);
	free(prepared);
}
END_TEST

static Suite *mounts_suite(void)
{
	Suite *s = suite_create("mounts");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_same_tree);
	tcase_add_test(tc, test_prepared_is_whole);
	tcase_add_test(tc, test_prepared_takes_the_jobs_sizes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(mounts_suite, NULL);
}
