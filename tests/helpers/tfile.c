/* Whole files for the test suites (see tfile.h). */
#include "tests/helpers/tfile.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tf_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

char *tf_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

char *tf_read(const char *path)
{
	char *s = tf_slurp(path);
	ck_assert_msg(s != NULL, "cannot read %s: %s (run from the repository root)", path,
		      strerror(errno));
	return s;
}
