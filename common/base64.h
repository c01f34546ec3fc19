/* Base64 (RFC 4648, standard alphabet, padded) for the protocol's binary
 * files: request files given as {"base64": …} and the files a job wrote
 * that a request fetches back. */
#ifndef SBX_BASE64_H
#define SBX_BASE64_H

#include <stddef.h>

/* Encoded length of n bytes (without the NUL). */
size_t b64_encoded_len(size_t n);
/* Encodes n bytes into out (b64_encoded_len(n) + 1 bytes, NUL-terminated). */
void b64_encode(const unsigned char *in, size_t n, char *out);
/* Decodes len characters; padding required, no white space or other
 * characters. Returns a malloc'd buffer (NUL-terminated for convenience)
 * and its length in *outlen, or NULL when the text is not base64 or out of
 * memory (*bad tells which: 1 invalid, 0 memory). */
unsigned char *b64_decode(const char *in, size_t len, size_t *outlen, int *bad);

#endif
