#include "common/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/errfmt.h"

char *file_read_all(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rbe");
	if (!f) {
		errfmt_errno(err, errlen, errno, "%s", path);
		return NULL;
	}
	size_t cap = max < 65536 ? max : 65536, n = 0;
	char *buf = malloc(cap + 1);
	bool over = false, oom = buf == NULL;
	while (!oom) {
		if (n == cap) {
			/* One byte more than max tells "larger" from "exactly max". */
			if (cap >= max) {
				over = fgetc(f) != EOF;
				break;
			}
			cap = cap * 2 < max ? cap * 2 : max;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				oom = true;
				break;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (oom) {
		free(buf);
		errfmt(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	if (over || bad) {
		free(buf);
		if (over)
			errfmt(err, errlen, "%s: larger than %zu bytes", path, max);
		else
			errfmt(err, errlen, "%s: read error", path);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}
