/* Test helper: runs a real sandboxd (as a child of the test process) on a
 * fresh socket in its own temporary directory, plus small utilities the
 * integration tests share: raw socket lines, /proc uid scans, file slurping.
 *
 * Layout of one daemon's directory (mkdtemp under $SBX_TEST_TMPDIR, else /tmp):
 *   DIR/sock    the socket          DIR/state   its --state-dir
 *   DIR/log     stdout + stderr of every start (appended across restarts)
 *
 * The daemon gets PR_SET_PDEATHSIG(SIGKILL): if the test process dies (a
 * failed assertion exits a Check fork-mode child), the daemon and, through
 * it, its jobs die too, so a failing test never leaves a root daemon behind.
 * Functions return 0 / -1 and describe a failure in d->err (no Check
 * dependency here: any test binary may link it, unit tests too).
 *
 * SBX_TEST_DAEMON_ARGS (test-only): extra daemon arguments, words separated
 * by white space (no quoting), appended after the test's own arguments to
 * every daemon these helpers start, and kept for td_restart. For example
 *
 *     SBX_TEST_DAEMON_ARGS=--no-cgroups make integration
 *
 * runs every integration suite against rlimit-only daemons; tests of
 * cgroup-only behaviour then read the response's `enforcement` and report a
 * skip with the reason. The daemon takes the last of a repeated option, and
 * so does the helper when it reads --workers and --uid-base. */
#ifndef SBX_TEST_DAEMON_H
#define SBX_TEST_DAEMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TD_MAX_ARGS 32
#define TD_MAX_WRAP 16

struct test_daemon {
	pid_t pid;	/* > 0 while running */
	int workers;	/* the worker count the daemon reported when it became ready
			 * (before that: its --workers, else td_usable_cpus()) */
	uid_t uid_base; /* the --uid-base it was started with */
	char dir[256];
	char sock[108];
	char state[300];
	char log[300];
	char err[1024];
	char *extra[TD_MAX_ARGS + 1];	   /* the extra arguments, kept for td_restart */
	const char *wrap[TD_MAX_WRAP + 1]; /* a command the daemon is started through */
};

/* The build directory under test: $SBX_BUILD, defaulting to "build". */
const char *td_build_dir(void);
/* Path of the sandboxd binary: td_build_dir()/sandboxd. */
const char *td_binary(void);

/* CPUs this process may run on (sched_getaffinity: a cpuset-limited
 * container counts its own, not the host's online CPUs); at least 1. */
int td_usable_cpus(void);

/* Starts a daemon with extra arguments (NULL-terminated), e.g.
 * td_start(&d, "--workers", "3", NULL), then $SBX_TEST_DAEMON_ARGS, and
 * waits (up to 10 s) until it answers a ping. Unless the arguments give
 * one, a --uid-base unique to this test process is passed so concurrent
 * runs never share uids. When it fails, d->err says why (with the tail of
 * the daemon's log) and the daemon's directory is already removed. */
int td_start(struct test_daemon *d, ...);
int td_startv(struct test_daemon *d, const char *const *extra);
/* The same, started through a wrapper command (NULL-terminated, at most
 * TD_MAX_WRAP words, kept for td_restart) that gets the daemon's command
 * line as its last arguments and execs it: e.g. tests/helpers/sdlaunch.py,
 * which passes a socket the way systemd does. The strings must outlive d. */
int td_startw(struct test_daemon *d, const char *const *wrap, const char *const *extra);
/* Starts again with the same directory, socket, state dir and arguments
 * (after td_kill, for crash-recovery tests). */
int td_restart(struct test_daemon *d);
/* Waits until the socket answers a ping; -1 when the daemon died or timed out. */
int td_wait_ready(struct test_daemon *d, int timeout_ms);

/* SIGTERM, then waits up to timeout_ms for it to exit. Returns its wait
 * status, or -1 if it had to be SIGKILLed (it did not stop in time). */
int td_stop(struct test_daemon *d, int timeout_ms);
/* Waits until ping reports both fork servers of every slot ready (the warm
 * path); 0 at once for a daemon started --cold. -1 (d->err) on timeout. */
int td_wait_warm(struct test_daemon *d, int timeout_ms);
/* SIGKILL and reap; returns the wait status. */
int td_kill(struct test_daemon *d);
/* Non-blocking: true when the daemon has exited (its status in *status). */
bool td_exited(struct test_daemon *d, int *status);

/* The daemon's log so far (malloc'd, NUL-terminated; "" when unreadable). */
char *td_log(const struct test_daemon *d);
bool td_log_contains(const struct test_daemon *d, const char *needle);

/* Stops the daemon if still running (SIGTERM, then SIGKILL after 3 s),
 * removes the cgroups a killed daemon left and its directory. Idempotent. */
void td_cleanup(struct test_daemon *d);

/* --- utilities ----------------------------------------------------------- */

long long td_now_ms(void);
void td_sleep_ms(int ms);

/* Processes whose real, effective, saved or fs uid is in [lo, hi]; the first
 * few are described ("pid 123 python3 uid 61000; ...") in desc. */
int td_count_uid_procs(uid_t lo, uid_t hi, char *desc, size_t desclen);
/* Polls until no such process remains; returns the last count (0 = gone). */
int td_wait_no_uid_procs(uid_t lo, uid_t hi, int timeout_ms, char *desc, size_t desclen);
/* Polls until at least one such process exists; returns the count. */
int td_wait_uid_procs(uid_t lo, uid_t hi, int timeout_ms);

/* Live processes whose parent is `parent` (up to max pids stored in out);
 * returns how many there are. */
int td_children(pid_t parent, pid_t *out, int max);
/* The process exists and is not a zombie. */
bool td_pid_alive(pid_t pid);

/* A raw connection to the daemon's socket, for byte-exact requests. */
int td_raw_connect(const char *sock);
int td_raw_send(int fd, const void *buf, size_t len);
/* Reads one '\n'-terminated line (malloc'd, without the '\n'; *len set).
 * NULL on EOF, error or timeout (*eof tells EOF apart when non-NULL). */
char *td_raw_read_line(int fd, int timeout_ms, size_t *len, bool *eof);
/* td_raw_read_line parsed as JSON (NULL on any failure). */
json_t *td_raw_read_json(int fd, int timeout_ms);

/* rm -rf that never leaves the file system it starts on. */
int td_rmtree(const char *path);

/* --- cgroup mounts -------------------------------------------------------- */

/* One cgroup hierarchy as this process sees it mounted: where (path, ""
 * when not mounted) and which cgroup is at that mount point (root, "/"
 * unless a container mounts a sub-tree). */
struct td_cgmount {
	char path[4096];
	char root[4096];
};

/* The cgroup hierarchies of /proc/self/mountinfo that sandboxd may use: the
 * (first) cgroup2 mount, and the v1 hierarchies holding the memory, pids,
 * cpuacct and cpu controllers wherever they are mounted (co-mounted ones such
 * as "cpu,cpuacct" included; two fields may name the same mount). */
struct td_cgmounts {
	struct td_cgmount v2, memory, pids, cpuacct, cpu;
};

/* Fills m; returns how many of the five are mounted, -1 when mountinfo is
 * unreadable. */
int td_cgroup_mounts(struct td_cgmounts *m);

/* The directory of cgroup `cg` (a path as /proc/PID/cgroup shows it) in
 * hierarchy h: h->path plus cg less h->root. -1 when h is not mounted or
 * cg is not below its root. */
int td_cgroup_dir(const struct td_cgmount *h, const char *cg, char *out, size_t outlen);

/* Removes a cgroup directory and every cgroup below it (rmdir, deepest
 * first; files in cgroupfs go with their directory). Best effort. */
void td_cgroup_rmtree(const char *dir);

#endif
