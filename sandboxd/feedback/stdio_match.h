/* stdio judging: the daemon, not the jail, compares a case's output. */
#ifndef SBX_STDIO_MATCH_H
#define SBX_STDIO_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/protocol.h"

/* Equal after ignoring trailing white space on each line and trailing blank
 * lines. With tol >= 0, tokens that both parse fully as numbers match when
 * |a-b| <= tol or |a-b| <= tol*|b|; other tokens must be equal. */
bool stdio_match_output(const char *got, size_t got_len, const char *want, size_t want_len,
			double tol);

/* "Input / Expected output / Actual output" for a wrong answer: each part
 * cut at STDIO_PART_MAX bytes on a character boundary and laid out without
 * its trailing line ends (the same text whether it ends with a newline or
 * not). hide_expected: the expected output shows only its first
 * visible_chars characters (none for 0) under a header that says it is
 * hidden (caller frees; NULL without memory). */
#define STDIO_PART_MAX 1000
char *stdio_match_diff(const struct proto_case *c, const char *got, size_t got_len,
		       bool hide_expected, long visible_chars);
/* The last non-blank line of s, in buf (a traceback's exception line). */
const char *stdio_match_last_line(const char *s, size_t len, char *buf, size_t buflen);

#endif
