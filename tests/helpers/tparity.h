/* The warm/cold parity driver (tests/parity/parity.py) run from a Check
 * test: two daemons on the same machine, a default one (the warm path) and
 * a --cold one, with the same uid range, and the driver sending both the
 * same requests. The driver's output goes to stderr as it comes and is kept
 * for the assertion message. */
#ifndef SBX_TPARITY_H
#define SBX_TPARITY_H

#include <stdbool.h>
#include <stddef.h>

#include "tests/helpers/daemon.h"

/* A pair of daemons: cold (--cold) first, then warm (default) with the
 * cold one's --uid-base (a fork server of the warm one would make the
 * --cold one refuse the range if it came second); both with `workers`
 * workers and, for warm, the extra arguments in warm_extra (NULL or
 * NULL-terminated; a --uid-base there replaces the shared one). 0, or -1
 * with the reason in err. */
int tparity_start(struct test_daemon *cold, struct test_daemon *warm, const char *workers,
		  const char *const *warm_extra, char *err, size_t errlen);

/* Runs the driver on `part` against the pair, with the extra environment
 * in env ("NAME=value" strings, NULL-terminated, or NULL). Returns its exit
 * status (0 agree, 1 differ, 77 skip, other: broken), -1 when it could not
 * run; *out gets its output (malloc'd, never NULL). */
int tparity_run(const struct test_daemon *cold, const struct test_daemon *warm, const char *part,
		const char *const *env, char **out);

/* The lines of out that say why it failed (DIFF, OUTCOME, PATH, SKIP,
 * Traceback and the summary lines), at most max bytes (malloc'd). */
char *tparity_why(const char *out, size_t max);

/* For a Check test: runs `part` on a fresh pair with `workers` workers and
 * asserts the driver found no difference; false (the reason in skip) when
 * the driver skipped. */
bool tparity_part(const char *part, const char *workers, const char *const *env, char *skip,
		  size_t skiplen);

#endif
