/* Text helpers shared by daemon and clients: one UTF-8 validator (RFC 3629:
 * no overlong forms, no surrogates, nothing past U+10FFFF), the replacement
 * of invalid bytes by U+FFFD, and trimming on character boundaries. */
#ifndef SBX_TEXT_H
#define SBX_TEXT_H

#include <stdbool.h>
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

/* What bytes cost once they are a JSON string in a response: invalid
 * sequences become U+FFFD (3 bytes), '"' '\\' and \b \f \n \r \t take 2, other
 * control characters 6 (\u0001), the rest their own size. The meter runs
 * over a buffer that grows at its end (a job's output, read in pieces): a
 * sequence cut by the end of what has arrived is counted at its worst (3
 * per byte) until the rest arrives, so the count never falls short. */
struct text_json_meter {
	size_t scanned; /* bytes of the buffer counted for good */
	size_t enc;	/* their encoded size */
};
/* Counts buf[m->scanned..len) and returns how many bytes of buf fit in
 * `cap` encoded bytes: len when all do, else a character boundary where the
 * next character would pass cap. final: no more bytes will come (a cut
 * sequence is then invalid). m->enc is the encoded size of what fits. */
size_t text_json_meter(struct text_json_meter *m, const char *buf, size_t len, size_t cap,
		       bool final);
/* The encoded size of all of data (the meter over a complete buffer). */
size_t text_json_size(const char *data, size_t len);

#endif
