/* libFuzzer target: the stdio output comparison, which the daemon runs on a
 * candidate's output (any bytes, any length) against the expected output.
 * Input: a tolerance selector byte, then the actual and the expected output
 * separated by the first NUL. Besides not crashing, the comparison must be
 * reflexive (an output always matches itself) and blind to trailing white
 * space and blank lines, whatever the tolerance. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/feedback/stdio_match.h"

static const double tolerances[] = {-1.0, 0.0, 1e-9, 1e-6, 0.5, 1e300};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	double tol = tolerances[data[0] % (sizeof tolerances / sizeof tolerances[0])];
	const char *rest = (const char *)data + 1;
	size_t n = size - 1;
	const char *nul = memchr(rest, 0, n);
	size_t got_len = nul ? (size_t)(nul - rest) : n;
	const char *want = nul ? nul + 1 : "";
	size_t want_len = nul ? n - got_len - 1 : 0;
	(void)stdio_match_output(rest, got_len, want, want_len, tol);
	assert(stdio_match_output(rest, got_len, rest, got_len, tol));
	/* The same output with trailing spaces and blank lines added. */
	char *padded = malloc(got_len + 4);
	if (!padded)
		return 0;
	memcpy(padded, rest, got_len);
	memcpy(padded + got_len, " \n\n", 3);
	assert(stdio_match_output(padded, got_len + 3, rest, got_len, tol));
	free(padded);
	return 0;
}
