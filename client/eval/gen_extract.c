/* The code in a model's answer (gen_extract_code, gen.h): the first fenced
 * python block, else the first fenced block, else the whole text, with
 * CommonMark's rules for what makes a fence. */
#include "client/eval/gen.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fence {
	size_t indent, ticks;
	const char *info; /* the info string's first word */
	size_t info_len;
};

/* A fence line: up to 3 spaces, then 3 or more backticks. */
static bool open_fence(const char *line, size_t len, struct fence *f)
{
	size_t i = 0;
	while (i < len && i < 4 && line[i] == ' ')
		i++;
	if (i > 3)
		return false;
	f->indent = i;
	while (i < len && line[i] == '`')
		i++;
	f->ticks = i - f->indent;
	if (f->ticks < 3)
		return false;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	f->info = line + i;
	while (i < len && !strchr(" \t\r`", line[i]))
		i++;
	f->info_len = (size_t)(line + i - f->info);
	/* CommonMark: a backtick in the info string means inline code. */
	return !memchr(line + i, '`', len - i);
}

static bool close_fence(const char *line, size_t len, size_t ticks)
{
	size_t i = 0, n;
	while (i < len && i < 4 && line[i] == ' ')
		i++;
	if (i > 3)
		return false;
	for (n = 0; i < len && line[i] == '`'; i++)
		n++;
	if (n < ticks)
		return false;
	for (; i < len; i++)
		if (!strchr(" \t\r", line[i]))
			return false;
	return true;
}

static bool is_python(const char *s, size_t n)
{
	return (n == 6 && strncasecmp(s, "python", 6) == 0) ||
	       (n == 7 && strncasecmp(s, "python3", 7) == 0) ||
	       (n == 2 && strncasecmp(s, "py", 2) == 0);
}

/* [from, to) with \r\n turned into \n and up to indent spaces taken off each
 * line, as CommonMark does for an indented fence (Python cares). */
static char *copy_block(const char *from, const char *to, size_t indent)
{
	char *out = malloc((size_t)(to - from) + 1), *o = out;
	bool bol = true;
	if (!out)
		return NULL;
	for (const char *p = from; p < to; p++) {
		if (bol)
			for (size_t k = 0; k < indent && p < to && *p == ' '; k++)
				p++;
		if (p == to)
			break;
		bol = *p == '\n';
		if (!(*p == '\r' && p + 1 < to && p[1] == '\n'))
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

struct block {
	const char *from, *to;
	size_t indent;
};

/* The block opened on the line at p (fence f): its content, and where the
 * text after its closing fence starts. */
static const char *scan_block(const char *p, const char *end, const struct fence *f,
			      struct block *b)
{
	b->from = p;
	b->indent = f->indent;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (close_fence(p, (size_t)((nl ? nl : end) - p), f->ticks)) {
			b->to = p;
			return next;
		}
		p = next;
	}
	b->to = end; /* unterminated: the answer was cut off, keep what came */
	return end;
}

char *gen_extract_code(const char *text)
{
	if (!text)
		return NULL;
	const char *p = text, *end = text + strlen(text);
	struct block first = {0}, b;
	struct fence f;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (!open_fence(p, (size_t)((nl ? nl : end) - p), &f)) {
			p = next;
			continue;
		}
		p = scan_block(next, end, &f, &b);
		if (is_python(f.info, f.info_len))
			return copy_block(b.from, b.to, b.indent);
		if (!first.from)
			first = b;
	}
	return first.from ? copy_block(first.from, first.to, first.indent)
			  : copy_block(text, end, 0);
}
