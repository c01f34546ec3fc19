/* One logging function for the daemon: timestamped lines on stderr. */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include <stdbool.h>
#include <stddef.h>

/* One line: the message with every control character and backslash escaped
 * (\n, \t, \\, \xNN), so nothing in it can start a line of its own. */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The escaping, into out (always NUL-terminated, cut on a whole character
 * or escape); returns the length written. */
size_t log_escape(const char *in, char *out, size_t outlen);

#endif
