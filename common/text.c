/* UTF-8 validation, cleaning and trimming (text.h). */
#include "common/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t text_utf8_seq(const unsigned char *p, size_t n)
{
	size_t need;
	unsigned cp;
	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return need;
}

static size_t json_ascii_cost(unsigned char c)
{
	if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
		return 2;
	return c < 0x20 ? 6 : 1;
}

/* The n bytes at p (n < 4) are the start of a valid sequence that more
 * bytes could complete. */
static bool utf8_cut_prefix(const unsigned char *p, size_t n)
{
	static const unsigned char second[] = {0x80, 0x90, 0xa0, 0xbf};
	for (size_t k = 0; k < sizeof second; k++) {
		unsigned char t[4] = {0, second[k], 0x80, 0x80};
		memcpy(t, p, n);
		size_t need = text_utf8_seq(t, 4);
		if (need > n)
			return true;
	}
	return false;
}

size_t text_json_meter(struct text_json_meter *m, const char *buf, size_t len, size_t cap,
		       bool final)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = m->scanned, enc = m->enc;
	while (i < len) {
		size_t k = text_utf8_seq(p + i, len - i), cost = 3, adv = 1;
		if (k) {
			adv = k;
			cost = k == 1 ? json_ascii_cost(p[i]) : k;
		} else if (!final && len - i < 4 && utf8_cut_prefix(p + i, len - i)) {
			if (enc + 3 * (len - i) > cap)
				break;
			m->scanned = i;
			m->enc = enc;
			return len; /* kept, counted for good once complete */
		}
		if (enc + cost > cap)
			break;
		enc += cost;
		i += adv;
	}
	m->scanned = i;
	m->enc = enc;
	return i;
}

size_t text_json_size(const char *data, size_t len)
{
	struct text_json_meter m = {0, 0};
	text_json_meter(&m, data, len, (size_t)-1, true);
	return m.enc;
}

char *text_utf8_clean(const char *data, size_t len, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t bad = 0;
	for (size_t i = 0; i < len;) {
		size_t k = text_utf8_seq(p + i, len - i);
		bad += k == 0;
		i += k ? k : 1;
	}
	char *out = malloc(len + bad * 2 + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t k = text_utf8_seq(p + i, len - i);
		if (k) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	if (outlen)
		*outlen = (size_t)(o - out);
	return out;
}

size_t text_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

char *text_trim(const char *s, size_t max)
{
	size_t len = strlen(s);
	if (len <= max)
		return strdup(s);
	char marker[80];
	size_t head = text_utf8_cut(s, len, max / 2);
	size_t tail_start = len - (max - max / 2);
	while (tail_start < len && ((unsigned char)s[tail_start] & 0xc0) == 0x80)
		tail_start++;
	size_t chars = 0;
	for (size_t i = head; i < tail_start; i++)
		chars += ((unsigned char)s[i] & 0xc0) != 0x80;
	snprintf(marker, sizeof marker, "\n... [%zu characters trimmed] ...\n", chars);
	size_t ml = strlen(marker), tl = len - tail_start;
	char *out = malloc(head + ml + tl + 1);
	if (!out)
		return NULL;
	memcpy(out, s, head);
	memcpy(out + head, marker, ml);
	memcpy(out + head + ml, s + tail_start, tl);
	out[head + ml + tl] = '\0';
	return out;
}
