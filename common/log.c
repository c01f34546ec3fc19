#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void log_msg(const char *fmt, ...)
{
	char line[2048];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	int n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
	n +=
	    snprintf(line + n, sizeof line - (size_t)n, ".%03ldZ sandboxd: ", ts.tv_nsec / 1000000);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line so lines from worker threads never interleave. */
	fprintf(stderr, "%s\n", line);
}
