/* Strings for the test suites: prefix and suffix tests, and a growing
 * buffer for messages and generated code. */
#ifndef SBX_TSTR_H
#define SBX_TSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* s starts with prefix (false when s is NULL). */
static inline bool str_starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* s ends with suffix (false when s is NULL). */
static inline bool str_ends(const char *s, const char *suffix)
{
	if (!s)
		return false;
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* n copies of ch, NUL-terminated (malloc'd; asserts on allocation failure). */
char *str_repeat(char ch, size_t n);

/* A growing string: start from {0}, free(b.s) when done. */
struct sb {
	char *s;
	size_t len, cap;
};

/* Appends printf-style (asserts on allocation failure). */
void sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when nothing was added). */
const char *sb_str(struct sb *b);
/* sb_str, cut to at most max bytes so an assertion message stays bounded. */
const char *sb_cut(struct sb *b, size_t max);

#endif
