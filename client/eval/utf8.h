/* Cutting text that must stay valid UTF-8 (jansson refuses a string that
 * is not): the texts `sbx report` shortens come from records jansson read,
 * so they are valid, and a cut must not split a character. */
#ifndef SBX_UTF8_H
#define SBX_UTF8_H

#include <stddef.h>

/* The length of the longest prefix of s[0..n) that has at most cap bytes
 * and does not end inside a UTF-8 sequence. */
size_t utf8_cut(const char *s, size_t n, size_t cap);

#endif
