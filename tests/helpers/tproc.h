/* The daemon as /proc shows it, for the integration suites that watch its
 * descriptors, memory and children: counts and readings, no assertions
 * (-1 or "" when /proc cannot say). */
#ifndef SBX_TPROC_H
#define SBX_TPROC_H

#include <stdbool.h>
#include <sys/types.h>

/* Open descriptors of pid. */
int tproc_fd_count(pid_t pid);
/* Open descriptors of pid once the count has held still for still_ms
 * (looked at every 50 ms), or after max_ms: a warm daemon makes each
 * server's pooled network namespace, with its files, while the slot idles
 * after the server is ready. */
int tproc_fd_count_settled(pid_t pid, int still_ms, int max_ms);
/* A "Key:   value" field of /proc/PID/status as a number (kB for VmRSS; the
 * real uid for Uid); -1 if absent. */
long tproc_status(pid_t pid, const char *key);
/* The open descriptor numbers of pid, ascending, each followed by a space
 * ("3 4 "; 63 stands for any above 62), into out; 0, or -1. */
int tproc_fd_numbers(pid_t pid, char *out, size_t len);
/* The namespaces of one type ("mnt", "net", ...) that pid holds open as
 * descriptors: their count, and up to max of their inode numbers into
 * inos (NULL: count only); -1 when /proc cannot say. */
int tproc_ns_fds(pid_t pid, const char *type, unsigned long *inos, int max);
/* VmRSS in kB. */
long tproc_rss_kb(pid_t pid);
/* The real uid of pid ((uid_t)-1 if unknown). */
uid_t tproc_uid(pid_t pid);
/* The listing of /proc/PID/fd with link targets, for failure messages (kept
 * short: Check refuses messages past 4 KiB); malloc'd. */
char *tproc_fd_listing(pid_t pid);
/* True when the daemon runs under AddressSanitizer (make check-asan): its
 * quarantine and shadow memory make RSS say nothing about leaks, so RSS
 * bounds are reported but not asserted there. Either the daemon maps
 * libasan, or this binary was built with it (the Makefile builds both with
 * the same flags). */
bool tproc_sanitized(pid_t pid);

#endif
