#include "sandboxd/feedback/stdio_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define CASE_TEXT_MAX 1000

char *stdio_match_diff(const struct proto_case *c, const char *got, size_t got_len)
{
	char *parts[3] = {
	    strndup(c->input, CASE_TEXT_MAX), strndup(c->output, CASE_TEXT_MAX),
	    strndup(got ? got : "", got_len < CASE_TEXT_MAX ? got_len : CASE_TEXT_MAX)};
	size_t n = 64;
	for (int i = 0; i < 3; i++)
		n += parts[i] ? strlen(parts[i]) : 0;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "Input:\n%s\nExpected output:\n%s\nActual output:\n%s",
			 parts[0] ? parts[0] : "", parts[1] ? parts[1] : "",
			 parts[2] ? parts[2] : "");
	for (int i = 0; i < 3; i++)
		free(parts[i]);
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
