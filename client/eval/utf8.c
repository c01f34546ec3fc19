/* See utf8.h. */
#include "client/eval/utf8.h"

size_t utf8_cut(const char *s, size_t n, size_t cap)
{
	if (n <= cap)
		return n;
	size_t k = cap;
	/* Back over continuation bytes (10xxxxxx) to the start of the
	 * character that would be split; a sequence is at most 4 bytes. */
	for (int i = 0; i < 4 && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80; i++)
		k--;
	return k;
}
