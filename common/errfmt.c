#include "common/errfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void errfmt_v(char *err, size_t errlen, int e, const char *fmt, va_list ap)
{
	if (!err || !errlen)
		return;
	int n = vsnprintf(err, errlen, fmt, ap);
	if (e && n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, ": %s", errfmt_desc(e));
}

int errfmt(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	errfmt_v(err, errlen, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int errfmt_errno(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	errfmt_v(err, errlen, e, fmt, ap);
	va_end(ap);
	return -1;
}

const char *errfmt_desc(int e)
{
	/* glibc's strerrordesc_np returns a constant string: no shared buffer. */
	const char *d = strerrordesc_np(e);
	return d ? d : "unknown error";
}
