/* Unit tests for the pages copied ahead (sandboxd/jail/warm_hot.c): a
 * forked child that wrote some pages of its parent's buffer reports those
 * and not the ones it only read; the report survives the pipe whole, and
 * a short or oversized one is refused; a later child given the ranges has
 * its own copies of exactly those pages before writing any, and stops
 * copying between two chunks when told (its job came); a server's private
 * anonymous memory is mapped with huge pages, its contents and the
 * mapping's flags unchanged. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandboxd/jail/warm_hot.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

enum { PAGES = 64 };
static char *g_buf;
static size_t g_pg;
static struct hot_range g_r[WARM_HOT_MAX];

/* Pages 3, 4, 5 and 40 are the ones a child writes. */
static bool written(size_t i)
{
	return (i >= 3 && i <= 5) || i == 40;
}

static bool covered(const struct hot_range *r, size_t n, uintptr_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= r[i].start && a < r[i].start + r[i].len)
			return true;
	return false;
}

/* Whether this process alone maps the page at a (its own copy). */
static int exclusive(uintptr_t a)
{
	uint64_t e;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0 || pread(pm, &e, sizeof e, (off_t)(a / g_pg * sizeof e)) != sizeof e)
		return -1;
	close(pm);
	return (e >> 56 & 1) && (e >> 63 & 1);
}

static void setup(void)
{
	g_pg = (size_t)sysconf(_SC_PAGESIZE);
	g_buf =
	    mmap(NULL, PAGES * g_pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(g_buf, MAP_FAILED);
	memset(g_buf, 7, PAGES * g_pg); /* every page present in the parent */
}

static void teardown(void)
{
	munmap(g_buf, PAGES * g_pg);
}

/* In a child: writes the pages, scans, sends on fd. */
static int learn_child(int fd)
{
	volatile char sink = 0;
	for (size_t i = 0; i < PAGES; i++) {
		if (written(i))
			g_buf[i * g_pg] = 1;
		else
			sink += g_buf[i * g_pg];
	}
	int n = warm_hot_scan(g_r, WARM_HOT_MAX);
	if (n <= 0)
		return 1;
	return warm_hot_send(fd, g_r, (size_t)n) < 0 ? 2 : 0;
}

static int learned(struct hot_range *r)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(learn_child(p[1]));
	close(p[1]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "learning child: %d", st);
	int n = warm_hot_recv(p[0], r, WARM_HOT_MAX);
	close(p[0]);
	return n;
}

START_TEST(test_scan_reports_written_pages)
{
	int n = learned(g_r);
	ck_assert_int_gt(n, 0);
	for (size_t i = 0; i < PAGES; i++) {
		uintptr_t a = (uintptr_t)g_buf + i * g_pg;
		ck_assert_msg(covered(g_r, (size_t)n, a) == written(i), "page %zu: %s", i,
			      written(i) ? "written, not reported" : "only read, reported");
	}
	/* 3-5 are one range. */
	bool one = false;
	for (int i = 0; i < n; i++)
		one |= g_r[i].start == (uintptr_t)g_buf + 3 * g_pg && g_r[i].len >= 3 * g_pg;
	ck_assert_msg(one, "adjacent pages not joined");
}
END_TEST

START_TEST(test_recv_refuses_bad_messages)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	/* Nothing there. */
	ck_assert_int_eq(warm_hot_recv(p[0], g_r, WARM_HOT_MAX), -1);
	/* A count the ranges that follow do not fill. */
	uint64_t hdr[3] = {5, 4096, 4096};
	ck_assert_int_eq(write(p[1], hdr, sizeof hdr), (ssize_t)sizeof hdr);
	ck_assert_int_eq(warm_hot_recv(p[0], g_r, WARM_HOT_MAX), -1);
	/* More ranges than the reader takes. */
	struct hot_range two[2] = {{4096, 4096}, {3 * 4096, 4096}};
	ck_assert_int_eq(warm_hot_send(p[1], two, 2), 0);
	ck_assert_int_eq(warm_hot_recv(p[0], g_r, 1), -1);
	ck_assert_int_eq(warm_hot_send(p[1], two, 2), 0);
	ck_assert_int_eq(warm_hot_recv(p[0], g_r, WARM_HOT_MAX), 2);
	ck_assert(g_r[1].start == 3 * 4096 && g_r[1].len == 4096);
	ck_assert_int_eq(warm_hot_send(p[1], two, WARM_HOT_MAX + 1), -1);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* In a child given the ranges: which pages it owns before writing any. */
static int populate_child(int n)
{
	if (warm_hot_populate(g_r, (size_t)n, 0, NULL) < 0) /* a range a call */
		return errno == EINVAL ? 100 : 1;
	for (size_t i = 0; i < PAGES; i++)
		if (exclusive((uintptr_t)g_buf + i * g_pg) != (int)written(i))
			return 10 + (int)i;
	return 0;
}

START_TEST(test_populate_copies_them)
{
	int n = learned(g_r);
	ck_assert_int_gt(n, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(populate_child(n));
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	if (WEXITSTATUS(st) == 100)
		SKIP_TEST("no MADV_POPULATE_WRITE (Linux 5.14)");
	ck_assert_msg(WEXITSTATUS(st) == 0, "check %d failed", WEXITSTATUS(st));
}
END_TEST

/* Copying stops when told, between two chunks: its job has come. */
static int g_looks, g_stop_at;
static int stop_at(void)
{
	return ++g_looks >= g_stop_at;
}

/* In a child: the whole buffer as one range, 4 pages a chunk, stopped at
 * the stop_at-th look; 0 when it owns exactly the chunks before it. */
static int stopped_child(int at)
{
	struct hot_range all = {(uintptr_t)g_buf, PAGES * g_pg};
	g_looks = 0;
	g_stop_at = at;
	int rc = warm_hot_populate(&all, 1, 4 * g_pg, stop_at);
	if (rc < 0)
		return errno == EINVAL ? 100 : 1;
	size_t owned = at > 0 ? 4 * (size_t)(at - 1) : PAGES;
	if (owned > PAGES)
		owned = PAGES;
	if (rc != (owned < PAGES ? 1 : 0))
		return 2;
	for (size_t i = 0; i < PAGES; i++)
		if (exclusive((uintptr_t)g_buf + i * g_pg) != (i < owned))
			return 10 + (int)i;
	return 0;
}

START_TEST(test_populate_stops_when_told)
{
	/* At once (nothing copied), after two chunks, and never (all of it:
	 * 16 chunks, so the 17th look never comes). */
	static const int at[] = {1, 3, 17};
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(stopped_child(at[k]));
		int st;
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st));
		if (WEXITSTATUS(st) == 100)
			SKIP_TEST("no MADV_POPULATE_WRITE (Linux 5.14)");
		ck_assert_msg(WEXITSTATUS(st) == 0, "stop at look %d: check %d failed", at[k],
			      WEXITSTATUS(st));
	}
}
END_TEST

/* warm_hot_merge: the union of two sorted lists, touching and overlapping
 * ranges joined, what does not fit left out. */
START_TEST(test_merge)
{
	struct hot_range a[8] = {{0x1000, 0x1000}, {0x5000, 0x2000}, {0x10000, 0x1000}};
	struct hot_range b[4] = {{0x2000, 0x1000}, {0x6000, 0x3000}, {0x20000, 0x1000}};
	size_t n = warm_hot_merge(a, 3, 8, b, 3);
	ck_assert_uint_eq(n, 4);
	ck_assert(a[0].start == 0x1000 && a[0].len == 0x2000); /* touching */
	ck_assert(a[1].start == 0x5000 && a[1].len == 0x4000); /* overlapping */
	ck_assert(a[2].start == 0x10000 && a[2].len == 0x1000);
	ck_assert(a[3].start == 0x20000 && a[3].len == 0x1000);
	/* One inside another changes nothing; an empty list changes nothing. */
	struct hot_range in[1] = {{0x5800, 0x100}};
	ck_assert_uint_eq(warm_hot_merge(a, 4, 8, in, 1), 4);
	ck_assert(a[1].start == 0x5000 && a[1].len == 0x4000);
	ck_assert_uint_eq(warm_hot_merge(a, 4, 8, NULL, 0), 4);
	struct hot_range e[2] = {{0}};
	ck_assert_uint_eq(warm_hot_merge(e, 0, 2, b, 3), 2); /* room for 2 */
	ck_assert(e[0].start == 0x2000 && e[1].start == 0x6000);
}
END_TEST

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define HUGE_SZ (2ul << 20)

/* The smaps entry of the mapping holding a: its AnonHugePages in kB and
 * its VmFlags line (into flags); -1 when not found. */
static long smaps_of(uintptr_t a, char *flags, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	long huge = -1;
	bool in = false;
	flags[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a >= s && a < e;
		else if (in && strncmp(line, "AnonHugePages:", 14) == 0)
			huge = strtol(line + 14, NULL, 10);
		else if (in && strncmp(line, "VmFlags:", 8) == 0)
			snprintf(flags, cap, "%.200s", line + 8);
	}
	if (f)
		fclose(f);
	return huge;
}

/* A 2 MiB-aligned run of `huge` 2 MiB ranges inside a fresh private
 * anonymous mapping, every stride-th page written with its own byte into a
 * small page: on a host whose THP setting is "always" the faults would
 * otherwise map huge pages themselves (Debian's kernel in check-vm). */
static unsigned char *aligned_area(size_t huge, size_t stride, void **map, size_t *maplen)
{
	*maplen = (huge + 1) * HUGE_SZ;
	*map = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(*map, MAP_FAILED);
	unsigned char *p = (unsigned char *)(((uintptr_t)*map + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	ck_assert_int_eq(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	for (size_t i = 0; i < huge * HUGE_SZ / g_pg; i += stride)
		memset(p + i * g_pg, (int)(i & 0xff), g_pg);
	ck_assert_int_eq(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	return p;
}

/* warm_hot_collapse: the server's anonymous memory ends up in huge pages,
 * with the same bytes, and the mapping is not marked for huge pages (a
 * job's own new memory there follows the host's setting). */
START_TEST(test_collapse_makes_huge_pages)
{
	void *pmap, *map;
	size_t plen, len;
	unsigned char *probe = aligned_area(1, 1, &pmap, &plen);
	if (madvise(probe, HUGE_SZ, MADV_COLLAPSE) < 0) {
		int e = errno;
		munmap(pmap, plen);
		SKIP_TEST("no MADV_COLLAPSE here (Linux 6.1, THP): %s", strerror(e));
	}
	munmap(pmap, plen);
	unsigned char *p = aligned_area(2, 1, &map, &len);
	/* A range with one page in ten written: a collapse would fill it
	 * with zeros, so it stays as it is. */
	void *smap;
	size_t slen;
	unsigned char *sparse = aligned_area(1, 10, &smap, &slen);
	char flags[256];
	ck_assert_int_eq(smaps_of((uintptr_t)p, flags, sizeof flags), 0);
	int n = warm_hot_collapse(60 * 1000000000ll); /* TCG guests are slow */
	long kb = smaps_of((uintptr_t)p, flags, sizeof flags);
	if (kb < 4096 && madvise(p, 2 * HUGE_SZ, MADV_COLLAPSE) < 0 &&
	    (errno == EAGAIN || errno == ENOMEM)) {
		int e = errno;
		munmap(map, len);
		munmap(smap, slen);
		/* The machine, not the code: the kernel itself cannot now. */
		SKIP_TEST("no free huge page for a collapse now: %s", strerror(e));
	}
	ck_assert_msg(kb >= 4096, "AnonHugePages %ld kB (%d ranges made huge)", kb, n);
	ck_assert_msg(n >= 2, "%d ranges made huge", n);
	ck_assert_msg(!strstr(flags, " hg") && !strstr(flags, " nh"), "VmFlags:%s", flags);
	for (size_t i = 0; i < 2 * HUGE_SZ / g_pg; i++)
		ck_assert_uint_eq(p[i * g_pg + g_pg - 1], i & 0xff);
	static unsigned char vec[HUGE_SZ / 4096];
	size_t in = 0, pages = HUGE_SZ / g_pg;
	ck_assert_int_eq(mincore(sparse, HUGE_SZ, vec), 0);
	for (size_t i = 0; i < pages && i < sizeof vec; i++)
		in += vec[i] & 1;
	ck_assert_msg(in * 10 <= pages + 10, "%zu of %zu pages in memory", in, pages);
	munmap(map, len);
	munmap(smap, slen);
}
END_TEST

static Suite *hot_suite(void)
{
	Suite *s = suite_create("warm_hot");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_scan_reports_written_pages);
	tcase_add_test(tc, test_recv_refuses_bad_messages);
	tcase_add_test(tc, test_populate_copies_them);
	tcase_add_test(tc, test_populate_stops_when_told);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_collapse_makes_huge_pages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(hot_suite, NULL);
}
