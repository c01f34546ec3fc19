/* Unit tests for the cgroup layer: detection from fake mountinfo texts, setup
 * and job files on fake v1/v2 trees in a temp dir, stats parsing, error
 * paths, and one test against the real hierarchy when it is usable. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup.h"
#include "tests/helpers/skip.h"

static char g_top[PATH_MAX]; /* mkdtemp dir holding every fake tree */
static char err[512];

/* ---- helpers ---------------------------------------------------------- */

/* printf into one of a few rotating static buffers (paths, expected values). */
__attribute__((format(printf, 1, 2))) static char *P(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX];
	static int n;
	char *b = bufs[n++ % 8];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(b, PATH_MAX, fmt, ap);
	va_end(ap);
	ck_assert(len >= 0 && len < PATH_MAX);
	return b;
}

/* dst is always a PATH_MAX buffer. */
static void set(char *dst, const char *src)
{
	snprintf(dst, PATH_MAX, "%s", src);
}

static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p,
			      strerror(errno));
		*s = '/';
	}
	ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

static void put(const char *path, const char *text)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	ck_assert(fclose(f) == 0);
}

/* File contents, or NULL when it does not exist. */
static const char *get(const char *path)
{
	static char bufs[4][8192];
	static int n;
	char *b = bufs[n++ % 4];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	ssize_t len = read(fd, b, sizeof bufs[0] - 1);
	close(fd);
	ck_assert(len >= 0);
	b[len] = '\0';
	return b;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static const char *new_tree(void)
{
	char *t = P("%s/t.XXXXXX", g_top);
	ck_assert_msg(mkdtemp(t) != NULL, "mkdtemp: %s", strerror(errno));
	return t;
}

static void top_setup(void)
{
	snprintf(g_top, sizeof g_top, "/tmp/test_cgroup.XXXXXX");
	if (!mkdtemp(g_top)) {
		perror("mkdtemp");
		abort();
	}
}

static void top_teardown(void)
{
	nftw(g_top, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- fake texts and trees --------------------------------------------- */

/* This machine: v1 hybrid, one hierarchy per controller, cgroup2 with only
 * hugetlb, and the memory cgroup nested below the hierarchy root. */
#define MI_HOST                                                                                    \
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"                                          \
	"23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"                                         \
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"                                  \
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"                      \
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"                     \
	"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"             \
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"               \
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"               \
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"                   \
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"        \
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
#define SELF_HOST                                                                                  \
	"9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n3:cpuset:/\n2:cpuacct:/\n"         \
	"1:cpu:/\n0::/\n"

#define MI_V2                                                                                      \
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"                                          \
	"27 1 0:40 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/a:/b,upperdir=/c\n"     \
	"30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "  \
	"rw,nsdelegate,memory_recursiveprot\n"
#define SELF_V2 "0::/system.slice/sbx.service\n"
#define V2_OWN "sys/fs/cgroup/system.slice/sbx.service"

static void fake_v2(const char *t, bool cpu)
{
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t),
	    "cpuset cpu io memory hugetlb pids rdma misc\n");
	put(P("%s/" V2_OWN "/cgroup.controllers", t),
	    cpu ? "cpuset cpu memory pids\n" : "memory pids\n");
}

static void fake_v1(const char *t, bool memsw)
{
	mkdirs(P("%s/sys/fs/cgroup/memory/process_api/abc", t));
	mkdirs(P("%s/sys/fs/cgroup/pids", t));
	mkdirs(P("%s/sys/fs/cgroup/cpuacct", t));
	put(P("%s/sys/fs/cgroup/unified/cgroup.controllers", t), "hugetlb\n");
	if (memsw)
		put(P("%s/sys/fs/cgroup/memory/process_api/abc/memory.memsw.limit_in_bytes", t),
		    "9223372036854771712\n");
}

static void detect_ok(struct cg_root *r, const char *mi, const char *self, const char *t)
{
	err[0] = '\0';
	ck_assert_msg(cg_detect(r, mi, self, t, err, sizeof err) == 0, "cg_detect: %s", err);
}

/* A v2 tree after cg_setup, ready for jobs. */
static void setup_v2(const char *t, struct cg_root *r)
{
	fake_v2(t, true);
	detect_ok(r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r->version, CG_V2);
	ck_assert_msg(cg_setup(r, err, sizeof err) == 0, "cg_setup: %s", err);
}

static void setup_v1(const char *t, struct cg_root *r, bool memsw)
{
	fake_v1(t, memsw);
	detect_ok(r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r->version, CG_V1);
	ck_assert_msg(cg_setup(r, err, sizeof err) == 0, "cg_setup: %s", err);
}

static const struct cg_limits L64 = {64ull << 20, 8};

/* ---- detection -------------------------------------------------------- */

START_TEST(test_detect_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/" V2_OWN "/sandboxd-daemon", t));
	ck_assert_str_eq(r.v1_memory, "");
	ck_assert_str_eq(r.v1_pids, "");
	ck_assert_str_eq(cg_version_name(r.version), "v2");

	/* Detecting again from inside our leaf finds the same layout. */
	detect_ok(&r, MI_V2, "0::/system.slice/sbx.service/sandboxd-daemon\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/" V2_OWN "/sandboxd-daemon", t));
}
END_TEST

START_TEST(test_detect_v2_mount_root)
{
	char t[PATH_MAX];
	struct cg_root r;
	const char *mi =
	    "30 25 0:26 /kubepods/pod1 /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n";
	set(t, new_tree());
	fake_v2(t, true);

	/* Own path below the mount root: the root part is stripped. */
	detect_ok(&r, mi, "0::/kubepods/pod1/ctr\n", t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/ctr/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, P("%s/sys/fs/cgroup/ctr/sandboxd-daemon", t));

	/* Own cgroup is the true mount root: no leaf to move into. */
	detect_ok(&r, mi, "0::/kubepods/pod1\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/sandboxd", t));
	ck_assert_str_eq(r.v2_daemon, "");

	/* ...unless it is a namespace root, which has cgroup.type. */
	put(P("%s/sys/fs/cgroup/cgroup.type", t), "domain\n");
	detect_ok(&r, mi, "0::/kubepods/pod1\n", t);
	ck_assert_str_eq(r.v2_daemon, P("%s/sys/fs/cgroup/sandboxd-daemon", t));

	/* A root that is only a string prefix (pod1 vs pod10) is not stripped. */
	detect_ok(&r, mi, "0::/kubepods/pod10/x\n", t);
	ck_assert_str_eq(r.v2_jobs, P("%s/sys/fs/cgroup/kubepods/pod10/x/sandboxd", t));
}
END_TEST

START_TEST(test_detect_v2_escaped_mountpoint)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	put(P("%s/cg root/cgroup.controllers", t), "memory pids\n");
	detect_ok(&r, "30 25 0:26 / /cg\\040root rw - cgroup2 none rw\n", "0::/a\n", t);
	ck_assert_int_eq(r.version, CG_V2);
	ck_assert_str_eq(r.v2_jobs, P("%s/cg root/a/sandboxd", t));
}
END_TEST

START_TEST(test_detect_v2_controllers_missing)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());

	/* cgroup2 without memory/pids and no v1: none, but not an error. */
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t), "cpu io pids\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_NONE);
	ck_assert_str_eq(cg_version_name(r.version), "none");
	ck_assert_str_eq(r.v2_jobs, "");

	/* An unreadable controllers file also means "not v2". */
	set(t, new_tree());
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_NONE);

	/* Hybrid host whose cgroup2 offers only hugetlb: v1. */
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v2_jobs, "");
	ck_assert_str_eq(r.v2_daemon, "");
}
END_TEST

START_TEST(test_detect_v1_host)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v1(t, true);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(cg_version_name(r.version), "v1");
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/sandboxd", t));
	ck_assert_str_eq(r.v1_cpuacct, P("%s/sys/fs/cgroup/cpuacct/sandboxd", t));
	ck_assert(r.v1_memsw);

	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert(!r.v1_memsw);
}
END_TEST

START_TEST(test_detect_v1_variants)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());

	/* cpu,cpuacct co-mounted, memory mounted from a sub-root. */
	detect_ok(&r,
		  "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
		  "35 31 0:32 /docker/c1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		  "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
		  "5:pids:/docker/c1\n4:memory:/docker/c1/job\n2:cpu,cpuacct:/docker/c1\n", t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/job/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/docker/c1/sandboxd", t));
	ck_assert_str_eq(r.v1_cpuacct, P("%s/sys/fs/cgroup/cpu,cpuacct/docker/c1/sandboxd", t));

	/* No cpuacct hierarchy: still v1, without CPU accounting. */
	detect_ok(&r,
		  "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		  "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
		  "5:pids:/\n4:memory:/\n", t);
	ck_assert_int_eq(r.version, CG_V1);
	ck_assert_str_eq(r.v1_cpuacct, "");

	/* No pids hierarchy: none. */
	detect_ok(&r, "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
		  "4:memory:/\n", t);
	ck_assert_int_eq(r.version, CG_NONE);
	ck_assert_str_eq(r.v1_memory, "");
}
END_TEST

START_TEST(test_detect_garbage)
{
	struct cg_root r;
	err[0] = '\0';
	ck_assert_int_eq(cg_detect(&r, "this is not mountinfo\n", SELF_HOST, "", err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "mountinfo line 1") != NULL, "err: %s", err);
	/* Optional fields but no " - " separator. */
	ck_assert_int_eq(cg_detect(&r, "1 2 3:4 / /x rw shared:1 cgroup2 cgroup2 rw\n", "0::/\n",
				   "", err, sizeof err),
			 -1);
	err[0] = '\0';
	ck_assert_int_eq(cg_detect(&r, MI_HOST, "garbage\n", "", err, sizeof err), -1);
	ck_assert_msg(strstr(err, "/proc/self/cgroup line 1") != NULL, "err: %s", err);
	ck_assert_int_eq(cg_detect(&r, MI_HOST, "4:memory:relative\n", "", err, sizeof err), -1);
	ck_assert_int_eq(cg_detect(&r, NULL, SELF_HOST, "", err, sizeof err), -1);
	ck_assert_int_eq(cg_detect(NULL, MI_HOST, SELF_HOST, "", err, sizeof err), -1);
	/* Empty texts are usable: nothing is mounted. */
	ck_assert_int_eq(cg_detect(&r, "", "", "", err, sizeof err), 0);
	ck_assert_int_eq(r.version, CG_NONE);
}
END_TEST

/* ---- setup ------------------------------------------------------------ */

START_TEST(test_setup_v2)
{
	char t[PATH_MAX], o[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	/* Leftovers of a crashed daemon: two stale jobs, one with cgroup.kill. */
	put(P("%s/sandboxd/job-old-1/cgroup.procs", o), "");
	put(P("%s/sandboxd/job-old-1/memory.max", o), "1234\n");
	put(P("%s/sandboxd/job-old-2/cgroup.procs", o), "\n");
	put(P("%s/sandboxd/job-old-2/cgroup.kill", o), "0\n");
	put(P("%s/sandboxd/cgroup.procs", o), ""); /* a control file, not a job */

	setup_v2(t, &r);
	ck_assert(exists(P("%s/sandboxd-daemon", o)));
	ck_assert_str_eq(get(P("%s/sandboxd-daemon/cgroup.procs", o)), P("%d", (int)getpid()));
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", o)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd/cgroup.subtree_control", o)), "+memory +pids +cpu");
	ck_assert(!exists(P("%s/sandboxd/job-old-1", o)));
	ck_assert(!exists(P("%s/sandboxd/job-old-2", o)));
	ck_assert(exists(P("%s/sandboxd/cgroup.procs", o)));

	/* No cpu controller offered: only memory and pids. */
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", o)), "+memory +pids");

	/* Setting up twice (restart) is fine. */
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
}
END_TEST

START_TEST(test_setup_v2_at_root)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, "0::/\n", t);
	ck_assert_str_eq(r.v2_daemon, "");
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/sys/fs/cgroup/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert(!exists(P("%s/sys/fs/cgroup/sandboxd-daemon", t)));
	ck_assert(exists(P("%s/sys/fs/cgroup/sandboxd", t)));
}
END_TEST

START_TEST(test_setup_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/pids/sandboxd/job-1-1/cgroup.procs", t), "");
	put(P("%s/sys/fs/cgroup/pids/sandboxd/job-1-1/pids.max", t), "8\n");
	setup_v1(t, &r, true);
	ck_assert(exists(r.v1_memory));
	ck_assert(exists(r.v1_pids));
	ck_assert(exists(r.v1_cpuacct));
	ck_assert(!exists(P("%s/job-1-1", r.v1_pids)));
	ck_assert(!exists(P("%s/sys/fs/cgroup/memory/process_api/abc/cgroup.subtree_control", t)));

	/* CG_NONE: nothing to set up. */
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), 0);
}
END_TEST

START_TEST(test_setup_errors)
{
	char t[PATH_MAX], o[PATH_MAX];
	struct cg_root r;

	/* A stale job holding a directory is not ours to empty. */
	set(t, new_tree());
	set(o, P("%s/" V2_OWN, t));
	mkdirs(P("%s/sandboxd/job-old/nested", o));
	put(P("%s/sandboxd/job-old/cgroup.procs", o), "");
	fake_v2(t, true);
	detect_ok(&r, MI_V2, SELF_V2, t);
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "job-old") != NULL, "err: %s", err);

	/* Stale job whose cgroup.procs is garbage. */
	nftw(P("%s/sandboxd/job-old", o), rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	put(P("%s/sandboxd/job-bad/cgroup.procs", o), "12 abc\n");
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "job-bad") != NULL, "err: %s", err);

	/* Own cgroup missing its controllers file. */
	set(t, new_tree());
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t), "memory pids\n");
	mkdirs(P("%s/" V2_OWN, t));
	detect_ok(&r, MI_V2, SELF_V2, t);
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "cgroup.controllers") != NULL, "err: %s", err);

	/* Own v1 memory cgroup is a regular file: mkdir fails. */
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	put(P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t), "not a dir");
	err[0] = '\0';
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "process_api/abc/sandboxd") != NULL, "err: %s", err);
}
END_TEST

/* ---- placement (cg_place) ------------------------------------------------ */

#define MNT "sys/fs/cgroup"

static void place_ok(struct cg_root *r, const char *parent, const char *prev, char *note)
{
	err[0] = '\0';
	ck_assert_msg(cg_place(r, parent, prev, note, 1024, err, sizeof err) == 0, "cg_place: %s",
		      err);
}

/* Alone in a delegated unit's cgroup: the own cgroup is the home. */
START_TEST(test_place_own_delegated)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), P("%d\n", (int)getpid()));
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s1");
	place_ok(&r, NULL, NULL, note);
	ck_assert_str_eq(note, "");
	ck_assert(!r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" V2_OWN, t));
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
}
END_TEST

/* Started from a login shell: the scope holds the shell, so the daemon makes
 * /sandboxd/<instance>, delegating from the root down, and moves there. */
START_TEST(test_place_session_scope)
{
	char t[PATH_MAX], h[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), P("4242\n%d\n", (int)getpid()));
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s1");
	place_ok(&r, NULL, NULL, note);
	set(h, P("%s/" MNT "/sandboxd/s1", t));
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, h);
	ck_assert_str_eq(r.v2_daemon, P("%s/sandboxd-daemon", h));
	ck_assert_str_eq(r.v2_jobs, P("%s/sandboxd", h));
	ck_assert_msg(strstr(note, "holds other processes") && strstr(note, h), "note: %s", note);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert_str_eq(get(P("%s/" MNT "/cgroup.subtree_control", t)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/" MNT "/sandboxd/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd-daemon/cgroup.procs", h)), P("%d", (int)getpid()));
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", h)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd/cgroup.subtree_control", h)), "+memory +pids +cpu");
	/* The scope itself was left alone. */
	ck_assert(!exists(P("%s/" V2_OWN "/sandboxd-daemon", t)));
	ck_assert(!exists(P("%s/" V2_OWN "/cgroup.subtree_control", t)));

	/* A clean stop moves back and removes the home and the empty parent. */
	ck_assert_msg(cg_teardown(&r, err, sizeof err) == 0, "cg_teardown: %s", err);
	ck_assert_str_eq(get(P("%s/" V2_OWN "/cgroup.procs", t)), P("%d", (int)getpid()));
	ck_assert(!exists(h));
	ck_assert(!exists(P("%s/" MNT "/sandboxd", t)));
}
END_TEST

/* A parent that does not delegate memory and pids is seen in the daemon's
 * own cgroup.controllers, even though the root offers them. */
START_TEST(test_place_nondelegating_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.controllers", t), "cpu io\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_V2);
	snprintf(r.instance, sizeof r.instance, "s2");
	place_ok(&r, NULL, NULL, note);
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s2", t));
	ck_assert_msg(strstr(note, "not offered the memory and pids"), "note: %s", note);
}
END_TEST

START_TEST(test_place_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s3");
	place_ok(&r, "/ci/sbx-test", NULL, note);
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/ci/sbx-test/s3", t));
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	/* What the root offers (cpu too) is handed down the whole chain. */
	ck_assert_str_eq(get(P("%s/" MNT "/ci/cgroup.subtree_control", t)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/" MNT "/ci/sbx-test/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert(exists(P("%s/" MNT "/ci/sbx-test/s3/sandboxd", t)));
	/* The operator's parent stays after a clean stop. */
	ck_assert_msg(cg_teardown(&r, err, sizeof err) == 0, "cg_teardown: %s", err);
	ck_assert(!exists(P("%s/" MNT "/ci/sbx-test/s3", t)));
	ck_assert(exists(P("%s/" MNT "/ci/sbx-test", t)));

	/* Names that could leave the hierarchy, or are not paths, are refused. */
	const char *bad[] = {"relative", "/a/../b", "/..",  "/a/.",  "//a",
			     "/a/",	 "/",	    "/a b", "/a\nb", NULL};
	for (int i = 0; bad[i]; i++) {
		detect_ok(&r, MI_V2, SELF_V2, t);
		snprintf(r.instance, sizeof r.instance, "s3");
		ck_assert_msg(cg_place(&r, bad[i], NULL, note, sizeof note, err, sizeof err) == -1,
			      "accepted --cgroup-parent '%s'", bad[i]);
		ck_assert_msg(strstr(err, "--cgroup-parent"), "err: %s", err);
	}

	/* A parent below a cgroup that holds processes cannot be delegated to. */
	put(P("%s/" MNT "/busy/cgroup.procs", t), "777\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s3");
	place_ok(&r, "/busy/x", NULL, note);
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "holds processes") && strstr(err, "/busy"), "err: %s", err);
}
END_TEST

/* A crashed run recorded its home; a restart from a shell rejoins it when
 * its daemon leaf is empty, and only then. */
START_TEST(test_place_rejoin)
{
	char t[PATH_MAX], prev[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), "4242\n");
	set(prev, P("%s/" MNT "/system.slice/sandboxd.service", t));
	put(P("%s/cgroup.subtree_control", prev), "memory pids cpu\n");
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s4");
	place_ok(&r, NULL, prev, note);
	ck_assert_str_eq(r.v2_home, prev);
	ck_assert_msg(strstr(note, "rejoining"), "note: %s", note);

	/* A live daemon in the leaf: not ours to join. */
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "999\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s4");
	place_ok(&r, NULL, prev, note);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s4", t));

	/* A recorded path outside the hierarchy, or with .., is ignored. */
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "");
	const char *bad[] = {"/etc", P("%s/" MNT "/../" MNT "/system.slice/sandboxd.service", t),
			     NULL};
	for (int i = 0; bad[i]; i++) {
		detect_ok(&r, MI_V2, SELF_V2, t);
		snprintf(r.instance, sizeof r.instance, "s4");
		place_ok(&r, NULL, bad[i], note);
		ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s4", t));
	}
}
END_TEST

/* Two instances in the default place each get their own home, and one's
 * teardown leaves the other's alone. */
START_TEST(test_place_two_instances)
{
	char t[PATH_MAX], note[1024];
	struct cg_root a, b;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), "4242\n");
	detect_ok(&a, MI_V2, SELF_V2, t);
	snprintf(a.instance, sizeof a.instance, "sa");
	place_ok(&a, NULL, NULL, note);
	ck_assert_msg(cg_setup(&a, err, sizeof err) == 0, "%s", err);
	detect_ok(&b, MI_V2, SELF_V2, t);
	snprintf(b.instance, sizeof b.instance, "sb");
	place_ok(&b, NULL, NULL, note);
	ck_assert_msg(cg_setup(&b, err, sizeof err) == 0, "%s", err);
	ck_assert_str_ne(a.v2_jobs, b.v2_jobs);
	put(P("%s/sb-0-1/cgroup.procs", b.v2_jobs), "");
	ck_assert_msg(cg_teardown(&a, err, sizeof err) == 0, "%s", err);
	ck_assert(!exists(a.v2_home));
	ck_assert(exists(P("%s/sb-0-1", b.v2_jobs)));
	ck_assert(exists(P("%s/" MNT "/sandboxd", t)));
}
END_TEST

/* v1: --cgroup-parent puts the jobs dirs below the parent in each hierarchy. */
START_TEST(test_place_v1_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	snprintf(r.instance, sizeof r.instance, "s5");
	place_ok(&r, "/ci", NULL, note);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/ci/s5/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/ci/s5/sandboxd", t));
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert(exists(r.v1_memory) && exists(r.v1_pids));
	/* Without a parent, v1 keeps the own-cgroup layout. */
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	snprintf(r.instance, sizeof r.instance, "s5");
	place_ok(&r, NULL, NULL, note);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t));
}
END_TEST

/* ---- jobs ------------------------------------------------------------- */

START_TEST(test_job_create_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);

	/* No swap accounting: memory.swap.max is left alone. */
	ck_assert_msg(cg_job_create(&r, "job-3-17", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(j.v2, P("%s/job-3-17", r.v2_jobs));
	ck_assert_str_eq(j.name, "job-3-17");
	ck_assert_ptr_eq(j.root, &r);
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "67108864");
	ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "8");
	ck_assert(!exists(P("%s/memory.swap.max", j.v2)));
	ck_assert_str_eq(j.v1_memory, "");

	/* Swap accounting on: the job gets no swap at all. */
	put(P("%s/memory.swap.max", r.v2_jobs), "max\n");
	struct cg_limits unl = {UINT64_MAX, UINT64_MAX};
	ck_assert_msg(cg_job_create(&r, "job-3-18", &unl, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.swap.max", j.v2)), "0");
	ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "max");
	ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "max");

	/* A job never reuses an existing cgroup. */
	err[0] = '\0';
	ck_assert_int_eq(cg_job_create(&r, "job-3-17", &L64, &j, err, sizeof err), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_msg(strstr(err, "job-3-17") != NULL, "err: %s", err);
	ck_assert_str_eq(j.v2, "");
}
END_TEST

START_TEST(test_job_create_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-1", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(j.v1_memory, P("%s/job-1", r.v1_memory));
	ck_assert_str_eq(j.v1_pids, P("%s/job-1", r.v1_pids));
	ck_assert_str_eq(j.v1_cpuacct, P("%s/job-1", r.v1_cpuacct));
	ck_assert_str_eq(j.v2, "");
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "67108864");
	ck_assert_str_eq(get(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)), "67108864");
	ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "8");
	ck_assert(exists(j.v1_cpuacct));
	ck_assert(!exists(P("%s/pids.max", j.v1_memory)));

	/* Without memsw only the memory limit is written; "no limit" is -1. */
	set(t, new_tree());
	setup_v1(t, &r, false);
	struct cg_limits l = {UINT64_MAX, 16};
	ck_assert_msg(cg_job_create(&r, "job-2", &l, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "-1");
	ck_assert(!exists(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)));
	ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "16");

	/* If one hierarchy already has the name, nothing is left behind. */
	mkdirs(P("%s/job-3", r.v1_pids));
	ck_assert_int_eq(cg_job_create(&r, "job-3", &L64, &j, err, sizeof err), -1);
	ck_assert(!exists(P("%s/job-3", r.v1_memory)));
	ck_assert(exists(P("%s/job-3", r.v1_pids)));
}
END_TEST

START_TEST(test_job_create_bad_args)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);
	const char *bad[] = {
	    "",	     ".",
	    "..",    "a/b",
	    "../x",  "job 1",
	    "job\n", "x123456789012345678901234567890123456789012345678901234567890123"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		ck_assert_msg(cg_job_create(&r, bad[i], &L64, &j, err, sizeof err) == -1, "%s",
			      bad[i]);
		ck_assert(err[0] != '\0');
	}
	struct cg_limits zero_mem = {0, 8}, zero_pids = {1 << 20, 0};
	ck_assert_int_eq(cg_job_create(&r, "job-z", &zero_mem, &j, err, sizeof err), -1);
	ck_assert_int_eq(cg_job_create(&r, "job-z", &zero_pids, &j, err, sizeof err), -1);
	ck_assert(!exists(P("%s/job-z", r.v2_jobs)));
	struct cg_root none;
	memset(&none, 0, sizeof none);
	ck_assert_int_eq(cg_job_create(&none, "job-n", &L64, &j, err, sizeof err), -1);
}
END_TEST

START_TEST(test_job_create_unwritable)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);

	/* The jobs dir is a regular file. */
	struct cg_root bad = r;
	put(P("%s/file", t), "x");
	set(bad.v2_jobs, P("%s/file/sandboxd", t));
	err[0] = '\0';
	ck_assert_int_eq(cg_job_create(&bad, "job-1", &L64, &j, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "file/sandboxd/job-1") && strstr(err, strerror(ENOTDIR)),
		      "err: %s", err);

	/* A read-only jobs dir, as an unprivileged user (root ignores modes). */
	ck_assert(chmod(r.v2_jobs, 0555) == 0);
	ck_assert(chmod(t, 0755) == 0 && chmod(g_top, 0755) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		     setresuid(65534, 65534, 65534) < 0))
			_exit(3);
		char e2[256] = "";
		int rc = cg_job_create(&r, "job-ro", &L64, &j, e2, sizeof e2);
		_exit(rc == -1 && errno == EACCES && strstr(e2, "job-ro") ? 0 : 1);
	}
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ck_assert(chmod(r.v2_jobs, 0755) == 0 && chmod(g_top, 0700) == 0);
}
END_TEST

START_TEST(test_attach_nprocs_fake)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, false);
	ck_assert_msg(cg_job_create(&r, "job-a", &L64, &j, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(cg_job_attach(&j, 4242), 0);
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_memory)), "4242");
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_pids)), "4242");
	ck_assert_str_eq(get(P("%s/cgroup.procs", j.v1_cpuacct)), "4242");
	ck_assert_int_eq(cg_job_nprocs(&j), 1);
	put(P("%s/cgroup.procs", j.v1_memory), "11\n22\n33\n");
	ck_assert_int_eq(cg_job_nprocs(&j), 3);
	put(P("%s/cgroup.procs", j.v1_memory), "");
	ck_assert_int_eq(cg_job_nprocs(&j), 0);
	put(P("%s/cgroup.procs", j.v1_memory), "11\nbogus\n");
	ck_assert_int_eq(cg_job_nprocs(&j), -1);
	ck_assert_int_eq(cg_job_attach(&j, 0), -1);

	struct cg_job gone = j;
	set(gone.v1_memory, P("%s/nonexistent", t));
	ck_assert_int_eq(cg_job_attach(&gone, 4242), -1);
	ck_assert_int_eq(cg_job_nprocs(&gone), -1);
}
END_TEST

START_TEST(test_kill_fake)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-k", &L64, &j, err, sizeof err) == 0, "%s", err);

	/* cgroup.kill present and the job empty. */
	put(P("%s/cgroup.kill", j.v2), "0\n");
	put(P("%s/cgroup.procs", j.v2), "");
	ck_assert_int_eq(cg_job_kill(&j, 100), 0);
	ck_assert_str_eq(get(P("%s/cgroup.kill", j.v2)), "1");

	/* No cgroup.kill: each listed pid gets SIGKILL; the fake file never
	 * empties, so the wait times out. */
	ck_assert(unlink(P("%s/cgroup.kill", j.v2)) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		for (;;)
			pause();
	}
	put(P("%s/cgroup.procs", j.v2), P("%d\n", (int)c));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(cg_job_kill(&j, 50), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ck_assert_msg(ms >= 45 && ms < 2000, "waited %ld ms", ms);
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	/* Our own pid is never killed. */
	put(P("%s/cgroup.procs", j.v2), P("%d\n", (int)getpid()));
	ck_assert_int_eq(cg_job_kill(&j, 10), -1);
	ck_assert_int_eq(errno, EBUSY);
}
END_TEST

START_TEST(test_destroy_fake)
{
	char t[PATH_MAX], dir[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-d", &L64, &j, err, sizeof err) == 0, "%s", err);
	snprintf(dir, sizeof dir, "%s", j.v1_memory);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
	ck_assert(!exists(dir));
	ck_assert(!exists(P("%s/job-d", r.v1_pids)));
	ck_assert(!exists(P("%s/job-d", r.v1_cpuacct)));
	ck_assert_int_eq(cg_job_destroy(&j), 0); /* idempotent */

	/* Something other than plain files inside: refused, left intact. */
	ck_assert_msg(cg_job_create(&r, "job-e", &L64, &j, err, sizeof err) == 0, "%s", err);
	mkdirs(P("%s/sub", j.v1_memory));
	ck_assert_int_eq(cg_job_destroy(&j), -1);
	ck_assert(exists(P("%s/sub", j.v1_memory)));
	ck_assert(exists(P("%s/memory.limit_in_bytes", j.v1_memory)));
	ck_assert(rmdir(P("%s/sub", j.v1_memory)) == 0);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
}
END_TEST

/* ---- stats ------------------------------------------------------------ */

START_TEST(test_stats_v2)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-s", &L64, &j, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpu.stat", j.v2),
	    "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 0\n");
	put(P("%s/memory.peak", j.v2), "5242880\n");
	put(P("%s/memory.events", j.v2),
	    "low 0\nhigh 0\nmax 9\noom 3\noom_kill 2\noom_group_kill 0\n");
	put(P("%s/pids.events", j.v2), "max 5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 1500000);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 1500000);
	ck_assert_uint_eq(s.memory_peak, 5242880);
	ck_assert_uint_eq(s.oom_kills, 2);
	ck_assert_uint_eq(s.pids_max_hit, 5);

	/* Older kernels: no memory.peak, no oom_kill line. */
	ck_assert(unlink(P("%s/memory.peak", j.v2)) == 0);
	put(P("%s/memory.events", j.v2), "low 0\nhigh 0\nmax 1\noom 4\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.memory_peak, 0);
	ck_assert_uint_eq(s.oom_kills, 4);
}
END_TEST

START_TEST(test_stats_v1)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns = 99;
	set(t, new_tree());
	setup_v1(t, &r, true);
	ck_assert_msg(cg_job_create(&r, "job-s", &L64, &j, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpuacct.usage", j.v1_cpuacct), "123456789\n");
	put(P("%s/memory.max_usage_in_bytes", j.v1_memory), "1048576\n");
	put(P("%s/memory.oom_control", j.v1_memory),
	    "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	put(P("%s/pids.events", j.v1_pids), "max 7\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 123456789);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 123456789);
	ck_assert_uint_eq(s.memory_peak, 1048576);
	ck_assert_uint_eq(s.oom_kills, 3);
	ck_assert_uint_eq(s.pids_max_hit, 7);

	/* No cpuacct hierarchy: stats still work with cpu 0, cpu_ns fails. */
	j.v1_cpuacct[0] = '\0';
	put(P("%s/memory.oom_control", j.v1_memory), "oom_kill_disable 0\nunder_oom 0\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_uint_eq(ns, 0);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	ck_assert_uint_eq(s.cpu_ns, 0);
	ck_assert_uint_eq(s.oom_kills, 0);
	ck_assert_uint_eq(s.pids_max_hit, 7);
}
END_TEST

START_TEST(test_stats_garbage)
{
	char t[PATH_MAX];
	struct cg_root r;
	struct cg_job j, j1;
	struct cg_stats s;
	uint64_t ns;
	set(t, new_tree());
	setup_v2(t, &r);
	ck_assert_msg(cg_job_create(&r, "job-g", &L64, &j, err, sizeof err) == 0, "%s", err);
	/* Missing files. */
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);

	put(P("%s/cpu.stat", j.v2), "usage_usec abc\n");
	put(P("%s/memory.events", j.v2), "oom_kill 1\n");
	put(P("%s/pids.events", j.v2), "max 1\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	ck_assert_uint_eq(s.oom_kills, 1); /* the readable parts are still filled */

	put(P("%s/cpu.stat", j.v2), "usage_usec 18446744073709551616\n"); /* 2^64 */
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "user_usec 5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "usage_usec 7 \n");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), -1);
	put(P("%s/cpu.stat", j.v2), "usage_usec 7");
	ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
	ck_assert_uint_eq(ns, 7000);

	put(P("%s/memory.events", j.v2), "low 0\nhigh 0\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/memory.events", j.v2), "oom_kill 1\n");
	put(P("%s/pids.events", j.v2), "max -3\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/pids.events", j.v2), "max 1\n");
	put(P("%s/memory.peak", j.v2), "12x\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);
	put(P("%s/memory.peak", j.v2), "12\n");
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);

	/* An oversized file is refused rather than half-parsed. */
	char big[8192];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	put(P("%s/pids.events", j.v2), big);
	ck_assert_int_eq(cg_job_stats(&j, &s), -1);

	/* v1 garbage. */
	set(t, new_tree());
	setup_v1(t, &r, false);
	ck_assert_msg(cg_job_create(&r, "job-g", &L64, &j1, err, sizeof err) == 0, "%s", err);
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j1, &ns), -1);
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "-5\n");
	ck_assert_int_eq(cg_job_cpu_ns(&j1, &ns), -1);
	put(P("%s/memory.max_usage_in_bytes", j1.v1_memory), "1\n");
	put(P("%s/memory.oom_control", j1.v1_memory), "oom_kill x\n");
	put(P("%s/pids.events", j1.v1_pids), "max 0\n");
	put(P("%s/cpuacct.usage", j1.v1_cpuacct), "5\n");
	ck_assert_int_eq(cg_job_stats(&j1, &s), -1);

	struct cg_job empty;
	memset(&empty, 0, sizeof empty);
	ck_assert_int_eq(cg_job_stats(&empty, &s), -1);
	ck_assert_int_eq(cg_job_nprocs(&empty), -1);
	ck_assert_int_eq(cg_job_kill(&empty, 10), -1);
	ck_assert_int_eq(cg_job_destroy(&empty), 0);
}
END_TEST

/* ---- the real hierarchy ----------------------------------------------- */

/* The real test first moves itself into a private cgroup (v1) so cg_setup's
 * stale-job cleanup can only ever see its own jobs; teardown, which runs in
 * the runner process, removes whatever a failed run left. */
static char g_real_name[64];
static struct cg_root g_orig; /* detection before the test moved anywhere */
static bool g_v2_had_layout;  /* v2: a sandboxd layout existed before us */

static bool parent_of(char *out, const char *jobs)
{
	if (!jobs[0])
		return false;
	snprintf(out, PATH_MAX, "%s", jobs);
	*strrchr(out, '/') = '\0';
	return true;
}

/* Own cgroup dirs (v1: one per hierarchy; v2: one), before the test. */
static int orig_dirs(char dirs[3][PATH_MAX])
{
	int n = 0;
	const char *src[] = {g_orig.v2_jobs, g_orig.v1_memory, g_orig.v1_pids, g_orig.v1_cpuacct};
	for (int i = 0; i < 4; i++) {
		if (!parent_of(dirs[n], src[i]))
			continue;
		bool dup = false;
		for (int k = 0; k < n; k++)
			dup = dup || strcmp(dirs[k], dirs[n]) == 0;
		n += !dup;
	}
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, s, strlen(s));
	close(fd);
	return w == (ssize_t)strlen(s) ? 0 : -1;
}

/* Kills and removes a cgroup subtree, children first. */
static void purge(const char *path)
{
	char dir[PATH_MAX]; /* path may be a rotating P() buffer */
	set(dir, path);
	DIR *d = opendir(dir);
	if (!d)
		return;
	const struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			purge(P("%s/%s", dir, de->d_name));
	closedir(d);
	struct cg_job j;
	memset(&j, 0, sizeof j);
	snprintf(j.v2, sizeof j.v2, "%s", dir);
	cg_job_kill(&j, 1000);
	if (rmdir(dir) < 0 && errno != ENOENT)
		fprintf(stderr, "test_cgroup: could not remove %s: %s\n", dir, strerror(errno));
}

static void real_setup(void)
{
	snprintf(g_real_name, sizeof g_real_name, "sbxtest-%d", (int)getpid());
	if (cg_detect_system(&g_orig, err, sizeof err) < 0)
		memset(&g_orig, 0, sizeof g_orig);
	char o[PATH_MAX];
	g_v2_had_layout = g_orig.version == CG_V2 && parent_of(o, g_orig.v2_jobs) &&
			  (exists(P("%s/sandboxd", o)) || exists(P("%s/sandboxd-daemon", o)));
}

/* v2 only: the daemon layout lives in the runner's own cgroup O. */
static void real_v2_undo(const char *o)
{
	char buf[256];
	purge(P("%s/sandboxd", o));
	/* Undo the delegation so the processes can go back into O. */
	const char *ctl = get(P("%s/cgroup.subtree_control", o));
	snprintf(buf, sizeof buf, "%s", ctl ? ctl : "");
	for (char *s = buf, *tok; (tok = strsep(&s, " \n")) != NULL;)
		if (*tok)
			write_str(P("%s/cgroup.subtree_control", o), P("-%s", tok));
	const char *procs = get(P("%s/sandboxd-daemon/cgroup.procs", o));
	snprintf(buf, sizeof buf, "%s", procs ? procs : "");
	for (char *s = buf, *tok; (tok = strsep(&s, "\n")) != NULL;)
		if (*tok)
			write_str(P("%s/cgroup.procs", o), tok);
	purge(P("%s/sandboxd-daemon", o));
}

static void real_teardown(void)
{
	char dirs[3][PATH_MAX];
	int n = orig_dirs(dirs);
	if (g_orig.version == CG_V2) {
		if (n == 1 && !g_v2_had_layout && exists(P("%s/sandboxd-daemon", dirs[0])))
			real_v2_undo(dirs[0]);
		return;
	}
	for (int i = 0; i < n; i++) {
		write_str(P("%s/cgroup.procs", dirs[i]), P("%d", (int)getpid()));
		purge(P("%s/%s", dirs[i], g_real_name));
	}
}

/* v1: moves this process into <own>/<g_real_name> in every hierarchy; false
 * with the reason in why when a hierarchy does not let it. */
static bool real_v1_enter(char dirs[3][PATH_MAX], int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		const char *p = P("%s/%s", dirs[i], g_real_name);
		if (mkdir(p, 0755) < 0 ||
		    write_str(P("%s/cgroup.procs", p), P("%d", (int)getpid())) < 0) {
			snprintf(why, len, "the v1 cgroup %s is not usable: %s", p,
				 strerror(errno));
			return false;
		}
	}
	return true;
}

/* v2: only when the runner's cgroup O is not the root, holds nobody but
 * this test and its runner, and has no sandboxd layout of its own. The
 * runner is moved into the daemon leaf along with us. */
static bool real_v2_enter(const char *o, char *why, size_t len)
{
	char buf[4096];
	const char *ctl = get(P("%s/cgroup.controllers", o));
	if (!ctl || !strstr(ctl, "memory") || !strstr(ctl, "pids")) {
		snprintf(why, len,
			 "the v2 cgroup %s does not offer the memory and pids controllers", o);
		return false;
	}
	const char *procs = get(P("%s/cgroup.procs", o));
	if (!g_orig.v2_daemon[0] || !procs || g_v2_had_layout) {
		snprintf(why, len,
			 "the v2 cgroup %s is not this test's alone (%s), so it may not be "
			 "reorganised",
			 o,
			 !g_orig.v2_daemon[0] ? "it is the hierarchy's root"
			 : !procs	      ? "its cgroup.procs is unreadable"
					      : "a sandboxd layout is already there");
		return false;
	}
	snprintf(buf, sizeof buf, "%s", procs);
	for (char *s = buf, *tok; (tok = strsep(&s, "\n")) != NULL;) {
		if (*tok && atoi(tok) != getpid() && atoi(tok) != getppid()) {
			snprintf(why, len,
				 "the v2 cgroup %s holds other processes (pid %s), so it may not "
				 "be reorganised",
				 o, tok);
			return false;
		}
	}
	if (mkdir(P("%s/sandboxd-daemon", o), 0755) < 0 ||
	    write_str(P("%s/sandboxd-daemon/cgroup.procs", o), P("%d", (int)getppid())) < 0) {
		snprintf(why, len, "cannot make and enter %s/sandboxd-daemon: %s", o,
			 strerror(errno));
		rmdir(P("%s/sandboxd-daemon", o));
		return false;
	}
	return true;
}

START_TEST(test_real_job)
{
	char dirs[3][PATH_MAX], saved[4][PATH_MAX];
	struct cg_root r;
	struct cg_job j;
	struct cg_stats s;
	uint64_t ns = 0;
	char why[PATH_MAX + 256] = "";
	int n = orig_dirs(dirs);
	if (geteuid() != 0)
		SKIP_TEST("needs root to make cgroups (uid %d)", (int)geteuid());
	if (g_orig.version == CG_NONE || n == 0)
		SKIP_TEST("no usable cgroup hierarchy: neither v2 with memory and pids nor v1 "
			  "memory and pids hierarchies (detected: %s)",
			  cg_version_name(g_orig.version));
	if (g_orig.version == CG_V1 ? !real_v1_enter(dirs, n, why, sizeof why)
				    : !real_v2_enter(dirs[0], why, sizeof why))
		SKIP_TEST("%s", why);
	ck_assert_msg(cg_detect_system(&r, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(r.version, g_orig.version);
	if (r.version == CG_V1)
		ck_assert_msg(strstr(r.v1_memory, g_real_name) && strstr(r.v1_pids, g_real_name),
			      "%s %s", r.v1_memory, r.v1_pids);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert_msg(cg_job_create(&r, "job-real-1", &L64, &j, err, sizeof err) == 0, "%s", err);
	snprintf(saved[0], PATH_MAX, "%s", j.v2);
	snprintf(saved[1], PATH_MAX, "%s", j.v1_memory);
	snprintf(saved[2], PATH_MAX, "%s", j.v1_pids);
	snprintf(saved[3], PATH_MAX, "%s", j.v1_cpuacct);
	if (r.version == CG_V2) {
		ck_assert_str_eq(get(P("%s/memory.max", j.v2)), "67108864\n");
		ck_assert_str_eq(get(P("%s/pids.max", j.v2)), "8\n");
	} else {
		ck_assert_str_eq(get(P("%s/memory.limit_in_bytes", j.v1_memory)), "67108864\n");
		ck_assert_str_eq(get(P("%s/pids.max", j.v1_pids)), "8\n");
		if (r.v1_memsw)
			ck_assert_str_eq(get(P("%s/memory.memsw.limit_in_bytes", j.v1_memory)),
					 "67108864\n");
	}

	/* The child waits to be attached, then spins and tries to fork past
	 * pids.max. */
	/* Adopt the grandchildren so they can be reaped here, not left as
	 * zombies for an init that may not reap. */
	ck_assert(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	int go[2];
	ck_assert(pipe(go) == 0);
	pid_t c = fork();
	ck_assert(c >= 0);
	if (c == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		for (int i = 0; i < 12; i++)
			if (fork() == 0)
				for (;;)
					pause();
		for (volatile unsigned long x = 0;; x++)
			;
	}
	close(go[0]);
	ck_assert_int_eq(cg_job_attach(&j, c), 0);
	ck_assert_int_eq(cg_job_nprocs(&j), 1);
	ck_assert(write(go[1], "g", 1) == 1);
	close(go[1]);
	for (int i = 0; i < 500 && cg_job_nprocs(&j) < 8; i++)
		usleep(2000);
	ck_assert_int_eq(cg_job_nprocs(&j), 8); /* the child and 7 of its 12 forks */
	bool have_cpu = r.version == CG_V2 || r.v1_cpuacct[0];
	for (int i = 0; i < 500 && have_cpu && ns < 20000000; i++) {
		ck_assert_int_eq(cg_job_cpu_ns(&j, &ns), 0);
		usleep(2000);
	}
	ck_assert_int_eq(cg_job_kill(&j, 2000), 0);
	ck_assert_int_eq(cg_job_nprocs(&j), 0);
	int st;
	ck_assert(waitpid(c, &st, 0) == c);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (int i = 0; i < 7; i++)
		ck_assert(waitpid(-1, &st, 0) > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ck_assert_int_eq(cg_job_stats(&j, &s), 0);
	if (have_cpu)
		ck_assert_msg(s.cpu_ns >= 20000000, "cpu_ns %llu", (unsigned long long)s.cpu_ns);
	ck_assert_uint_ge(s.pids_max_hit, 1);
	/* A peak exists on v1 (max_usage_in_bytes) and on v2 from 5.19 (memory.peak;
	 * a backport may have it earlier): ask the job's cgroup, before it goes. */
	if (r.version == CG_V1 || exists(P("%s/memory.peak", j.v2)))
		ck_assert_uint_gt(s.memory_peak, 0);
	else
		ck_assert_uint_eq(s.memory_peak, 0);
	ck_assert_uint_eq(s.oom_kills, 0);
	ck_assert_int_eq(cg_job_destroy(&j), 0);
	for (int i = 0; i < 4; i++)
		ck_assert(!saved[i][0] || !exists(saved[i]));

	/* Leave no cgroups behind. */
	if (r.version == CG_V2) {
		real_v2_undo(dirs[0]);
		ck_assert(!exists(P("%s/sandboxd-daemon", dirs[0])));
		ck_assert(!exists(P("%s/sandboxd", dirs[0])));
	} else {
		for (int i = 0; i < n; i++) {
			ck_assert(
			    write_str(P("%s/cgroup.procs", dirs[i]), P("%d", (int)getpid())) == 0);
			ck_assert(rmdir(P("%s/%s/sandboxd", dirs[i], g_real_name)) == 0);
			ck_assert(rmdir(P("%s/%s", dirs[i], g_real_name)) == 0);
		}
	}
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("fake");
	tcase_add_unchecked_fixture(tc, top_setup, top_teardown);
	tcase_add_test(tc, test_detect_v2);
	tcase_add_test(tc, test_detect_v2_mount_root);
	tcase_add_test(tc, test_detect_v2_escaped_mountpoint);
	tcase_add_test(tc, test_detect_v2_controllers_missing);
	tcase_add_test(tc, test_detect_v1_host);
	tcase_add_test(tc, test_detect_v1_variants);
	tcase_add_test(tc, test_detect_garbage);
	tcase_add_test(tc, test_setup_v2);
	tcase_add_test(tc, test_setup_v2_at_root);
	tcase_add_test(tc, test_setup_v1);
	tcase_add_test(tc, test_setup_errors);
	tcase_add_test(tc, test_place_own_delegated);
	tcase_add_test(tc, test_place_session_scope);
	tcase_add_test(tc, test_place_nondelegating_parent);
	tcase_add_test(tc, test_place_parent);
	tcase_add_test(tc, test_place_rejoin);
	tcase_add_test(tc, test_place_two_instances);
	tcase_add_test(tc, test_place_v1_parent);
	tcase_add_test(tc, test_job_create_v2);
	tcase_add_test(tc, test_job_create_v1);
	tcase_add_test(tc, test_job_create_bad_args);
	tcase_add_test(tc, test_job_create_unwritable);
	tcase_add_test(tc, test_attach_nprocs_fake);
	tcase_add_test(tc, test_kill_fake);
	tcase_add_test(tc, test_destroy_fake);
	tcase_add_test(tc, test_stats_v2);
	tcase_add_test(tc, test_stats_v1);
	tcase_add_test(tc, test_stats_garbage);
	suite_add_tcase(s, tc);

	TCase *real = tcase_create("real");
	tcase_add_unchecked_fixture(real, real_setup, real_teardown);
	tcase_set_timeout(real, 30);
	tcase_add_test(real, test_real_job);
	suite_add_tcase(s, real);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cgroup_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
