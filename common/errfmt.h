/* The one way errors are written into a caller's buffer (char *err, size_t
 * errlen, as every fallible function of the tree takes them), and the one
 * thread-safe description of an errno value. */
#ifndef SBX_ERRFMT_H
#define SBX_ERRFMT_H

#include <stddef.h>

/* printf into err (when err and errlen are set); returns -1 for
 * `return errfmt(...)`. */
__attribute__((format(printf, 3, 4))) int errfmt(char *err, size_t errlen, const char *fmt, ...);
/* The same with ": <description of e>" appended when e is not 0. */
__attribute__((format(printf, 4, 5))) int errfmt_errno(char *err, size_t errlen, int e,
						       const char *fmt, ...);
/* strerror without its static buffer (safe in worker threads). */
const char *errfmt_desc(int e);

#endif
