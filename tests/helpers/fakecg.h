/* Fake cgroup trees for the cgroup unit suites (tests/unit/test_jail_cgroup*.c):
 * made-up /proc/self/mountinfo and /proc/self/cgroup texts, and v1/v2 trees
 * of plain files and directories in a temp dir that cg_detect, cg_setup and
 * the job functions are pointed at (their `prefix` argument).
 *
 * Header-only (static inline) and with file-scope state of its own in each
 * suite that includes it: g_top, the mkdtemp directory holding every fake
 * tree of the run (top_setup / top_teardown, an unchecked fixture), and err,
 * the buffer the suites and these helpers pass for error messages. */
#ifndef SBX_FAKECG_H
#define SBX_FAKECG_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup.h"

static char g_top[PATH_MAX]; /* mkdtemp dir holding every fake tree */
static char err[512];

/* printf into one of a few rotating static buffers (paths, expected values). */
__attribute__((format(printf, 1, 2))) static inline char *P(const char *fmt, ...)
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
static inline void set(char *dst, const char *src)
{
	snprintf(dst, PATH_MAX, "%s", src);
}

static inline void mkdirs(const char *path)
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

static inline void put(const char *path, const char *text)
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
static inline const char *get(const char *path)
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

static inline bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static inline int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static inline const char *new_tree(void)
{
	char *t = P("%s/t.XXXXXX", g_top);
	ck_assert_msg(mkdtemp(t) != NULL, "mkdtemp: %s", strerror(errno));
	return t;
}

static inline void top_setup(void)
{
	snprintf(g_top, sizeof g_top, "/tmp/test_cgroup.XXXXXX");
	if (!mkdtemp(g_top)) {
		perror("mkdtemp");
		abort();
	}
}

static inline void top_teardown(void)
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

static inline void fake_v2(const char *t, bool cpu)
{
	put(P("%s/sys/fs/cgroup/cgroup.controllers", t),
	    "cpuset cpu io memory hugetlb pids rdma misc\n");
	put(P("%s/" V2_OWN "/cgroup.controllers", t),
	    cpu ? "cpuset cpu memory pids\n" : "memory pids\n");
}

static inline void fake_v1(const char *t, bool memsw)
{
	mkdirs(P("%s/sys/fs/cgroup/memory/process_api/abc", t));
	mkdirs(P("%s/sys/fs/cgroup/pids", t));
	mkdirs(P("%s/sys/fs/cgroup/cpuacct", t));
	mkdirs(P("%s/sys/fs/cgroup/cpu", t));
	put(P("%s/sys/fs/cgroup/unified/cgroup.controllers", t), "hugetlb\n");
	if (memsw)
		put(P("%s/sys/fs/cgroup/memory/process_api/abc/memory.memsw.limit_in_bytes", t),
		    "9223372036854771712\n");
}

static inline void detect_ok(struct cg_root *r, const char *mi, const char *self, const char *t)
{
	err[0] = '\0';
	ck_assert_msg(cg_detect(r, mi, self, t, err, sizeof err) == 0, "cg_detect: %s", err);
}

/* A v2 tree after cg_setup, ready for jobs. */
static inline void setup_v2(const char *t, struct cg_root *r)
{
	fake_v2(t, true);
	detect_ok(r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r->version, CG_V2);
	ck_assert_msg(cg_setup(r, err, sizeof err) == 0, "cg_setup: %s", err);
}

static inline void setup_v1(const char *t, struct cg_root *r, bool memsw)
{
	fake_v1(t, memsw);
	detect_ok(r, MI_HOST, SELF_HOST, t);
	ck_assert_int_eq(r->version, CG_V1);
	ck_assert_msg(cg_setup(r, err, sizeof err) == 0, "cg_setup: %s", err);
}

#endif
