#include "sandboxd/feedback/stdio_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

struct lines {
	const char *p, *end;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Next line without its trailing white space; false at the end. */
static bool next_line(struct lines *l, const char **s, size_t *n)
{
	if (l->p >= l->end)
		return false;
	const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	const char *e = nl ? nl : l->end;
	*s = l->p;
	while (e > *s && is_space(e[-1]))
		e--;
	*n = (size_t)(e - *s);
	l->p = nl ? nl + 1 : l->end;
	return true;
}

/* Number of lines once trailing blank lines are dropped. */
static size_t count_lines(const char *p, size_t len)
{
	struct lines l = {p, p + len};
	const char *s;
	size_t n, total = 0, last = 0;
	while (next_line(&l, &s, &n)) {
		total++;
		if (n)
			last = total;
	}
	return last;
}

static bool parse_num(const char *s, size_t n, double *v)
{
	char tmp[128];
	if (n == 0 || n >= sizeof tmp || memchr(s, '\0', n))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	*v = strtod(tmp, &end);
	return end == tmp + n && isfinite(*v);
}

static bool tokens_match(const char *a, size_t an, const char *b, size_t bn, double tol)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < an && is_space(a[i]))
			i++;
		while (j < bn && is_space(b[j]))
			j++;
		if (i == an || j == bn)
			return i == an && j == bn;
		size_t si = i, sj = j;
		while (i < an && !is_space(a[i]))
			i++;
		while (j < bn && !is_space(b[j]))
			j++;
		if (i - si == j - sj && memcmp(a + si, b + sj, i - si) == 0)
			continue;
		double x, y;
		if (!parse_num(a + si, i - si, &x) || !parse_num(b + sj, j - sj, &y))
			return false;
		double d = fabs(x - y);
		if (!(d <= tol || d <= tol * fabs(y)))
			return false;
	}
}

bool stdio_match_output(const char *got, size_t got_len, const char *want, size_t want_len,
			double tol)
{
	size_t ng = count_lines(got, got_len), nw = count_lines(want, want_len);
	if (ng != nw)
		return false;
	struct lines lg = {got, got + got_len}, lw = {want, want + want_len};
	for (size_t k = 0; k < ng; k++) {
		const char *a = NULL, *b = NULL;
		size_t an = 0, bn = 0;
		next_line(&lg, &a, &an);
		next_line(&lw, &b, &bn);
		if (an == bn && memcmp(a, b, an) == 0)
			continue;
		if (tol < 0 || !tokens_match(a, an, b, bn, tol))
			return false;
	}
	return true;
}

/* One part of the diff: at most STDIO_PART_MAX bytes ending on a character
 * boundary (a NUL ends it), without its trailing line ends, so the layout
 * is the same whether the text ended with a newline or not. */
static size_t part_len(const char *s, size_t len)
{
	len = text_utf8_cut(s, strnlen(s, len), STDIO_PART_MAX);
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return len;
}

/* The bytes of the first n characters of s (an invalid byte is one). */
static size_t chars_len(const char *s, size_t len, long n)
{
	size_t i = 0;
	for (long k = 0; k < n && i < len; k++) {
		size_t q = text_utf8_seq((const unsigned char *)s + i, len - i);
		i += q ? q : 1;
	}
	return i;
}

_Static_assert(PROTO_VISIBLE_CHARS_MAX <= STDIO_PART_MAX, "a part shows what may be visible");

char *stdio_match_diff(const struct proto_case *c, const char *got, size_t got_len,
		       bool hide_expected, long visible_chars)
{
	got = got ? got : "";
	size_t in = part_len(c->input, c->input_len), exp = part_len(c->output, c->output_len),
	       act = part_len(got, got_len);
	/* Hidden: the header says so, and says the same whatever the expected
	 * output's length (which would be a hint of its own). */
	char head[96];
	if (!hide_expected)
		snprintf(head, sizeof head, "Expected output:\n");
	else if (visible_chars <= 0)
		snprintf(head, sizeof head, "Expected output: hidden\n");
	else
		snprintf(head, sizeof head,
			 "Expected output (hidden past its first %ld characters):\n",
			 visible_chars);
	if (hide_expected)
		exp = chars_len(c->output, exp, visible_chars);
	bool show = !hide_expected || visible_chars > 0;
	size_t n = in + exp + act + strlen(head) + 64;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "Input:\n%.*s\n%s%.*s%sActual output:\n%.*s", (int)in, c->input,
			 head, (int)(show ? exp : 0), c->output, show ? "\n" : "", (int)act, got);
	return s;
}

const char *stdio_match_last_line(const char *s, size_t len, char *buf, size_t buflen)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	size_t start = len;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	snprintf(buf, buflen, "%.*s", (int)(len - start), s + start);
	return buf;
}
