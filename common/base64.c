/* Base64 for the protocol's binary files. Strict on decode: the text comes
 * from a client, and a lenient decoder would give two encodings of one
 * request different meanings in different clients. */
#include "common/base64.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const char b64_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t b64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0, i = 0;
	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = b64_alpha[v >> 18];
		out[o++] = b64_alpha[(v >> 12) & 63];
		out[o++] = b64_alpha[(v >> 6) & 63];
		out[o++] = b64_alpha[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
		out[o++] = b64_alpha[v >> 18];
		out[o++] = b64_alpha[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64_alpha[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

static int b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

unsigned char *b64_decode(const char *in, size_t len, size_t *outlen, int *bad)
{
	*bad = 1;
	if (len % 4)
		return NULL;
	size_t pad = 0;
	if (len && in[len - 1] == '=')
		pad = len >= 2 && in[len - 2] == '=' ? 2 : 1;
	size_t n = len / 4 * 3 - pad;
	unsigned char *out = malloc(n + 1);
	if (!out) {
		*bad = 0;
		return NULL;
	}
	size_t o = 0;
	for (size_t i = 0; i < len; i += 4) {
		int v[4];
		for (int k = 0; k < 4; k++) {
			bool last = i + 4 == len;
			if (last && in[i + k] == '=' && k >= 4 - (int)pad)
				v[k] = 0;
			else if ((v[k] = b64_val(in[i + k])) < 0)
				goto bad;
		}
		uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
			     (uint32_t)v[3];
		/* Bits the padding drops must be zero: one encoding per value. */
		if (i + 4 == len && ((pad == 1 && (x & 0xff)) || (pad == 2 && (x & 0xffff))))
			goto bad;
		unsigned char b[3] = {(unsigned char)(x >> 16), (unsigned char)(x >> 8),
				      (unsigned char)x};
		for (int k = 0; k < 3 && o < n; k++)
			out[o++] = b[k];
	}
	out[n] = '\0';
	*outlen = n;
	*bad = 0;
	return out;
bad:
	free(out);
	return NULL;
}
