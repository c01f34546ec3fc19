/* stdio judging: the daemon, not the jail, compares a case's output. */
#ifndef SBX_STDIO_H
#define SBX_STDIO_H

#include <stdbool.h>
#include <stddef.h>

/* Equal after ignoring trailing white space on each line and trailing blank
 * lines. With tol >= 0, tokens that both parse fully as numbers match when
 * |a-b| <= tol or |a-b| <= tol*|b|; other tokens must be equal. */
bool stdio_output_matches(const char *got, size_t got_len, const char *want, size_t want_len,
			  double tol);

#endif
