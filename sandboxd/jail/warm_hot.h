/* The pages a fork server's jobs write, copied ahead a chunk at a time
 * (warm_hot.c; docs/architecture.md, "Pages copied ahead"). */
#ifndef SBX_WARM_HOT_H
#define SBX_WARM_HOT_H

#include <stddef.h>
#include <stdint.h>

/* Ranges a message holds: it fits a pipe's 64 KiB. */
#define WARM_HOT_MAX 4000

struct hot_range {
	uint64_t start, len;
};

/* In the process that learns: the ranges of pages it maps privately
 * writable, present and mapped by no other process (the pages it wrote
 * since its fork); their number, or -1 (also when more than max). */
int warm_hot_scan(struct hot_range *r, size_t max);
/* In a fork server, once, before its first job: its private anonymous
 * memory (and heap) mapped with 2 MiB pages where the kernel can
 * (MADV_COLLAPSE, Linux 6.1), so that each fork copies one entry per 2 MiB
 * instead of 512 and each job's exit frees as few. The mappings' flags are
 * not changed: a job's own new memory gets huge pages as the host's
 * setting says, as on the cold path. Only ranges nearly all in memory
 * already are collapsed (a collapse fills the rest with zeros), in
 * mappings of at most 1 GiB. No range is begun once budget_ns have passed
 * (on a host whose free memory is in small pieces each huge page may first
 * be compacted). The number of 2 MiB ranges made huge, or -1 when
 * /proc/self/maps cannot be read. */
int warm_hot_collapse(long long budget_ns);
/* One message on fd: 0, or -1. */
int warm_hot_send(int fd, const struct hot_range *r, size_t n);
/* One whole message from fd (non-blocking: what is there); the number of
 * ranges, or -1 for none, a short one or one of more than max. */
int warm_hot_recv(int fd, struct hot_range *r, size_t max);
/* The union of r (n ranges, sorted) and o (m ranges, sorted), in r (room
 * for max); their number. Ranges that no longer fit are left out. */
size_t warm_hot_merge(struct hot_range *r, size_t n, size_t max, const struct hot_range *o,
		      size_t m);
/* Copies the ranges' pages into this process, skipping ranges it does not
 * map writable, chunk bytes (a multiple of the page size; 0: a range) at a
 * time; before each, stop (when given) may end it. 0 when all were copied, 1 when stop
 * ended it, -1 when the kernel cannot (before 5.14). */
int warm_hot_populate(const struct hot_range *r, size_t n, size_t chunk, int (*stop)(void));

#endif
