/* Strings for the test suites (see tstr.h). */
#include "tests/helpers/tstr.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *str_repeat(char ch, size_t n)
{
	char *s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, ch, n);
	s[n] = '\0';
	return s;
}

void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		ck_assert_ptr_nonnull(b->s);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *sb_str(struct sb *b)
{
	return b->s ? b->s : "";
}

const char *sb_cut(struct sb *b, size_t max)
{
	if (b->s && b->len > max && max > 16) {
		strcpy(b->s + max - 16, " ...[cut]");
		b->len = strlen(b->s);
	}
	return sb_str(b);
}
