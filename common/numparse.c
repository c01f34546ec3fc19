#include "common/numparse.h"

#include <errno.h>
#include <stdlib.h>

int num_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int num_parse_seconds_ms(const char *s, long *ms)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		return -1;
	*ms = (long)(v * 1000 + 0.5);
	return *ms > 0 ? 0 : -1;
}
