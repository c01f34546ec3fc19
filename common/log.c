#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

size_t log_escape(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	if (outlen == 0)
		return 0;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		bool ctl = *p < 0x20 || *p == 0x7f || *p == '\\';
		size_t need = !ctl ? 1 : *p == '\\' || *p == '\n' || *p == '\t' ? 2 : 4;
		if (o + need >= outlen)
			break; /* cut on a whole character or escape, never inside one */
		if (!ctl) {
			out[o++] = (char)*p;
		} else if (need == 2) {
			out[o++] = '\\';
			out[o++] = *p == '\\' ? '\\' : *p == '\n' ? 'n' : 't';
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	out[o] = '\0';
	return o;
}

void log_msg(const char *fmt, ...)
{
	char line[2048], text[1024];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	int n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
	n +=
	    snprintf(line + n, sizeof line - (size_t)n, ".%03ldZ sandboxd: ", ts.tv_nsec / 1000000);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* What a log line carries may come from a client (an id) or a job (an
	 * exception name): control characters are escaped, so no byte of theirs
	 * can end the line and forge a record of its own. */
	log_escape(text, line + n, sizeof line - (size_t)n);
	/* One write per line so lines from worker threads never interleave. */
	fprintf(stderr, "%s\n", line);
}
