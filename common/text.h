/* Text helpers shared by daemon and clients: one UTF-8 validator (RFC 3629:
 * no overlong forms, no surrogates, nothing past U+10FFFF), the replacement
 * of invalid bytes by U+FFFD, and trimming on character boundaries. */
#ifndef SBX_TEXT_H
#define SBX_TEXT_H

#include <stddef.h>

/* Length (1..4) of the valid UTF-8 sequence at p, of at most n bytes, or 0
 * when there is none. */
size_t text_utf8_seq(const unsigned char *p, size_t n);
/* The bytes with every invalid sequence replaced by U+FFFD, NUL-terminated
 * (*outlen without the NUL); NULL without memory. */
char *text_utf8_clean(const char *data, size_t len, size_t *outlen);
/* Largest prefix of s (len bytes) no longer than max that ends on a UTF-8
 * boundary. */
size_t text_utf8_cut(const char *s, size_t len, size_t max);
/* At most max bytes of s: head and tail kept, the middle replaced by
 * "\n... [N characters trimmed] ...\n", cut on character boundaries
 * (caller frees; NULL without memory). */
char *text_trim(const char *s, size_t max);

#endif
