/* The pages a fork server's jobs write, copied in one call (warm_hot.h).
 *
 * Every page of the server's memory a job writes is copied from the server
 * on its first write, one page fault each: about 470 of them in a job
 * forked ahead before its job even comes (its tree and its rehearsal), at
 * about 15 us each on run A's 2-core virtual machine (docs/bench.md), where a
 * fault also flushes the TLB of the other CPU. madvise(MADV_POPULATE_WRITE)
 * copies a range of pages in one call, at about a third of that per page.
 * Which pages: the server's first job forked ahead, once it has rehearsed
 * (and before any job's code exists, so what it reports is the server's
 * own), reads its page map: every page mapped privately writable that it
 * alone maps is one it wrote. It sends them, as ranges, on a pipe only it
 * and the server hold; each later job forked ahead copies them once its
 * tree is built, a chunk at a time until its job comes, with the pages a
 * calibration child of the server wrote running a job's own path on a
 * built-in job (warm_hot_merge joins the two reports). */
#include "sandboxd/jail/warm_hot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif

#define PM_PRESENT (1ull << 63)
#define PM_EXCLUSIVE (1ull << 56) /* Linux 4.2 */

/* Adds [start, start + len) to r (n of max used), joined to the last
 * range when adjacent; -1 when full. */
static int add_range(struct hot_range *r, size_t *n, size_t max, uint64_t start, uint64_t len)
{
	if (*n && r[*n - 1].start + r[*n - 1].len == start) {
		r[*n - 1].len += len;
		return 0;
	}
	if (*n >= max)
		return -1;
	r[(*n)++] = (struct hot_range){start, len};
	return 0;
}

/* The pages of [a, b) present in this process and mapped by it alone. */
static int scan_vma(int pm, uint64_t a, uint64_t b, uint64_t pg, struct hot_range *r, size_t *n,
		    size_t max)
{
	static uint64_t ent[512];
	for (uint64_t p = a; p < b;) {
		size_t want = (size_t)((b - p) / pg);
		if (want > sizeof ent / sizeof ent[0])
			want = sizeof ent / sizeof ent[0];
		ssize_t got = pread(pm, ent, want * sizeof ent[0], (off_t)(p / pg * sizeof ent[0]));
		if (got <= 0)
			return -1;
		size_t k = (size_t)got / sizeof ent[0];
		for (size_t i = 0; i < k; i++)
			if ((ent[i] & (PM_PRESENT | PM_EXCLUSIVE)) == (PM_PRESENT | PM_EXCLUSIVE) &&
			    add_range(r, n, max, p + i * pg, pg) < 0)
				return -1;
		p += k * pg;
	}
	return 0;
}

/* This process's /proc/self/maps, NUL-terminated, in a static buffer; NULL
 * when it cannot be read whole. */
static char *maps_read(void)
{
	static char maps[256 * 1024];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t got = 0;
	while (fd >= 0 && len < sizeof maps - 1 &&
	       (got = read(fd, maps + len, sizeof maps - 1 - len)) > 0)
		len += (size_t)got;
	if (fd >= 0)
		close(fd);
	maps[len] = '\0';
	return fd < 0 || got < 0 || len == sizeof maps - 1 ? NULL : maps;
}

/* The next line of maps from *l: its range, permissions and path ("" for
 * anonymous memory); false at the end. */
static bool maps_next(char **l, unsigned long *a, unsigned long *b, char perms[8], char path[64])
{
	while (**l) {
		char *line = *l, *nl = strchr(line, '\n');
		*l = nl ? nl + 1 : line + strlen(line);
		if (nl) /* sscanf would read on into the next line */
			*nl = '\0';
		path[0] = '\0';
		/* The path may be longer than path or hold blanks: only an
		 * anonymous mapping's and "[heap]" are ever compared. */
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %63s", a, b, perms, path) >= 3)
			return true;
	}
	return false;
}

int warm_hot_scan(struct hot_range *r, size_t max)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	char *l = maps_read(), perms[8], path[64];
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	unsigned long a, b;
	int rc = l && pm >= 0 ? 0 : -1;
	/* Private and writable: the only pages a write copies. */
	while (rc == 0 && maps_next(&l, &a, &b, perms, path))
		if (perms[1] == 'w' && perms[3] == 'p')
			rc = scan_vma(pm, a, b, pg, r, &n, max);
	if (pm >= 0)
		close(pm);
	return rc < 0 ? -1 : (int)n;
}

/* A collapse fills a range's missing pages with zeros: only ranges whose
 * pages are nearly all there already are collapsed, so the server grows by
 * at most an eighth of what it maps with huge pages. */
#define COLLAPSE_MIN_EIGHTHS 7
/* Mappings larger than this are reservations mostly left empty (a
 * sanitizer's shadow, an allocator's arena) whose millions of ranges would
 * eat the budget before the ones that matter. */
#define COLLAPSE_VMA_MAX (1ul << 30)

/* Whether at least COLLAPSE_MIN_EIGHTHS eighths of [s, s + len) are in
 * memory (len / pg at most 4096). */
static bool mostly_resident(unsigned long s, unsigned long len, unsigned long pg)
{
	static unsigned char vec[4096];
	size_t pages = len / pg, in = 0;
	if (pages == 0 || pages > sizeof vec || mincore((void *)s, len, vec) < 0)
		return false;
	for (size_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	return in * 8 >= pages * COLLAPSE_MIN_EIGHTHS;
}

int warm_hot_collapse(long long budget_ns)
{
	const unsigned long huge = 2ul << 20, pg = (unsigned long)sysconf(_SC_PAGESIZE);
	char *l = maps_read(), perms[8], path[64];
	unsigned long a, b;
	uint64_t end = clock_mono_ns() + (uint64_t)(budget_ns > 0 ? budget_ns : 0);
	int n = 0;
	if (!l)
		return -1;
	while (maps_next(&l, &a, &b, perms, path)) {
		if (perms[1] != 'w' || perms[3] != 'p' ||
		    (path[0] && strcmp(path, "[heap]") != 0) || b - a > COLLAPSE_VMA_MAX)
			continue;
		unsigned long s = (a + huge - 1) & ~(huge - 1), e = b & ~(huge - 1);
		/* Each 2 MiB on its own: one that cannot be made huge (a page
		 * pinned, no huge page free; every one before Linux 6.1 or
		 * without THP) leaves the others as they are. */
		for (; s < e && clock_mono_ns() < end; s += huge)
			if (mostly_resident(s, huge, pg))
				n += madvise((void *)s, huge, MADV_COLLAPSE) == 0;
	}
	return n;
}

/* On the pipe: the count, then the ranges, in one write (the message fits
 * a pipe's default 64 KiB, so the write never blocks or splits). */
struct hot_msg {
	uint64_t n;
	struct hot_range r[WARM_HOT_MAX];
};

int warm_hot_send(int fd, const struct hot_range *r, size_t n)
{
	static struct hot_msg m;
	if (n > WARM_HOT_MAX)
		return -1;
	m.n = n;
	memcpy(m.r, r, n * sizeof r[0]);
	size_t len = sizeof m.n + n * sizeof r[0];
	return write(fd, &m, len) == (ssize_t)len ? 0 : -1;
}

int warm_hot_recv(int fd, struct hot_range *r, size_t max)
{
	static struct hot_msg m;
	size_t len = 0;
	ssize_t got;
	while (len < sizeof m && (got = read(fd, (char *)&m + len, sizeof m - len)) > 0)
		len += (size_t)got;
	if (len < sizeof m.n || m.n > max || m.n > WARM_HOT_MAX ||
	    len != sizeof m.n + m.n * sizeof m.r[0])
		return -1;
	memcpy(r, m.r, m.n * sizeof m.r[0]);
	return (int)m.n;
}

int warm_hot_populate(const struct hot_range *r, size_t n, size_t chunk, int (*stop)(void))
{
	if (chunk == 0) /* one call per range, as before there were chunks */
		chunk = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		for (uint64_t off = 0; off < r[i].len; off += chunk) {
			/* Copying ahead is worth it only while nothing waits for
			 * this process: once its job has come, the job copies
			 * what it writes itself, and only that. */
			if (stop && stop())
				return 1;
			uint64_t len = r[i].len - off < chunk ? r[i].len - off : chunk;
			if (madvise((void *)(uintptr_t)(r[i].start + off), len,
				    MADV_POPULATE_WRITE) < 0 &&
			    errno == EINVAL)
				return -1; /* a kernel before 5.14: nothing to gain here */
			/* Other errors are ranges the server no longer maps as it
			 * did: they are skipped, and the job copies what it writes
			 * there on its own. */
		}
	return 0;
}

size_t warm_hot_merge(struct hot_range *r, size_t n, size_t max, const struct hot_range *o,
		      size_t m)
{
	static struct hot_range out[WARM_HOT_MAX];
	size_t k = 0, i = 0, j = 0;
	if (max > WARM_HOT_MAX)
		max = WARM_HOT_MAX;
	while (i < n || j < m) {
		const struct hot_range *x =
		    j >= m || (i < n && r[i].start <= o[j].start) ? &r[i++] : &o[j++];
		/* Joined to the last one where they touch or overlap. */
		if (k && x->start <= out[k - 1].start + out[k - 1].len) {
			uint64_t end = x->start + x->len;
			if (end > out[k - 1].start + out[k - 1].len)
				out[k - 1].len = end - out[k - 1].start;
		} else if (k < max) {
			out[k++] = *x;
		}
	}
	memcpy(r, out, k * sizeof out[0]);
	return k;
}
