/* The main() of every Check binary: one call that runs its suite.
 *
 *     int main(void)
 *     {
 *             return tmain(cgroup_suite, NULL);
 *     }
 *
 * builds the suite (after opts->setup), runs it (CK_ENV: CK_VERBOSITY or
 * normal output), and returns 0 when every test passed, else 1. An
 * integration binary says what it needs:
 *
 *     static const struct tmain_opts opts = {
 *             .root = true, .daemon = true, .tmpdir = "sbx-integ",
 *             .setup = tprofile_load, .teardown = tprofile_free};
 *
 * root: it must run as root (sandboxd does); daemon: $SBX_BUILD/sandboxd
 * (td_binary()) must be there; tmpdir: every daemon directory of the run
 * lives under one base, mkdtemp("/tmp/<tmpdir>.XXXXXX"), exported as
 * SBX_TEST_TMPDIR (tests/helpers/daemon.h) and removed at the end, so even a
 * test that failed half-way leaves nothing in /tmp. setup runs once in the
 * runner process before the suite is built (a non-zero return ends the run
 * with 1); teardown runs at the end, also after a failed setup. */
#ifndef SBX_TMAIN_H
#define SBX_TMAIN_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

struct tmain_opts {
	bool root;
	bool daemon;
	const char *tmpdir;
	bool ignore_sigpipe; /* SIGPIPE ignored in the runner (and its test forks) */
	/* Its daemons load $SBX_BUILD/test-policies (make builds it): the
	 * shipped profiles with an empty preload list. For suites whose subject
	 * is not what the fork servers import: a daemon then starts in
	 * milliseconds instead of importing numpy and pandas in each fork
	 * server (seconds of CPU, on every start). td_start passes it as
	 * --policies unless the test gives its own. */
	bool no_preload;
	size_t max_msg; /* > 0: check_set_max_msg_size (failure messages) */
	int (*setup)(void);
	void (*teardown)(void);
};

int tmain(Suite *(*make_suite)(void), const struct tmain_opts *opts);

/* A test case of s with a timeout in seconds (<= 0: Check's default). */
TCase *tmain_tcase(Suite *s, const char *name, double timeout);

#endif
