/* See report_diff.h. The alignment is the textbook LCS table over the lines
 * left once the common first and last lines are set aside (a model's next
 * attempt usually edits a few lines, so the table is small), bounded by
 * REPORT_DIFF_CELLS; a line is compared by a hash first. */
#include "client/eval/report_diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/utf8.h"

#define CONTEXT 3

struct line {
	const char *p;
	size_t n;
	uint64_t h;
};

enum op_kind { EQ, DEL, INS };

/* ai, bi: the old and new lines before this op (so EQ and DEL show
 * old[ai], INS shows new[bi]). */
struct op {
	enum op_kind k;
	size_t ai, bi;
};

static size_t split(const char *s, size_t len, struct line **out)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	n += len && s[len - 1] != '\n';
	struct line *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return SIZE_MAX;
	size_t k = 0, start = 0;
	for (size_t i = 0; i <= len && k < n; i++) {
		if (i < len && s[i] != '\n')
			continue;
		uint64_t h = 1469598103934665603ull;
		for (size_t j = start; j < i; j++)
			h = (h ^ (unsigned char)s[j]) * 1099511628211ull;
		v[k++] = (struct line){s + start, i - start, h};
		start = i + 1;
	}
	*out = v;
	return n;
}

static bool same(const struct line *a, const struct line *b)
{
	return a->h == b->h && a->n == b->n && !memcmp(a->p, b->p, a->n);
}

/* Ops for old[a0..a1) against new[b0..b1) appended at *nops: the
 * shortest edit when the table fits, else all removed then all added. */
static int align(const struct line *a, size_t a0, size_t a1, const struct line *b, size_t b0,
		 size_t b1, struct op *ops, size_t *nops)
{
	size_t n = a1 - a0, m = b1 - b0, i = 0, j = 0;
	uint16_t *L = NULL;
	/* min(n, m) <= 2048 under the cell bound, so lengths fit 16 bits. */
	if (n && m && (n + 1) <= REPORT_DIFF_CELLS / (m + 1)) {
		L = malloc((n + 1) * (m + 1) * sizeof *L);
		if (!L)
			return -1;
#define AT(x, y) L[(x) * (m + 1) + (y)]
		for (size_t x = n + 1; x-- > 0;)
			for (size_t y = m + 1; y-- > 0;)
				AT(x, y) = x == n || y == m ? 0
					   : same(&a[a0 + x], &b[b0 + y])
					       ? (uint16_t)(AT(x + 1, y + 1) + 1)
					   : AT(x + 1, y) >= AT(x, y + 1) ? AT(x + 1, y)
									  : AT(x, y + 1);
		while (i < n && j < m) {
			if (same(&a[a0 + i], &b[b0 + j])) {
				ops[(*nops)++] = (struct op){EQ, a0 + i++, b0 + j++};
			} else if (AT(i + 1, j) >= AT(i, j + 1)) {
				ops[(*nops)++] = (struct op){DEL, a0 + i++, b0 + j};
			} else {
				ops[(*nops)++] = (struct op){INS, a0 + i, b0 + j++};
			}
		}
#undef AT
		free(L);
	}
	for (; i < n; i++)
		ops[(*nops)++] = (struct op){DEL, a0 + i, b0 + j};
	for (; j < m; j++)
		ops[(*nops)++] = (struct op){INS, a1, b0 + j};
	return 0;
}

struct out {
	char *buf;
	size_t len, cap;
	size_t dropped; /* lines left out entirely */
	bool cut, oom;
};

static void put(struct out *o, const char *p, size_t n)
{
	if (o->oom)
		return;
	char *nb = realloc(o->buf, o->len + n + 1);
	if (!nb) {
		o->oom = true;
		return;
	}
	o->buf = nb;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* One line of the diff: whole while it fits under the cap; the first that
 * does not is cut short and ends in "…" (when anything of it fits), and
 * the rest are only counted. */
static void emit(struct out *o, char mark, const char *p, size_t n)
{
	static const char ellipsis[] = "…\n";
	size_t room = o->cap > o->len ? o->cap - o->len : 0;
	if (!o->cut && n + 2 <= room) {
		put(o, &mark, 1);
		put(o, p, n);
		put(o, "\n", 1);
		return;
	}
	if (!o->cut && room > sizeof ellipsis) {
		o->cut = true;
		put(o, &mark, 1);
		put(o, p, utf8_cut(p, n, room - sizeof ellipsis));
		put(o, ellipsis, sizeof ellipsis - 1);
		return;
	}
	o->cut = true;
	o->dropped++;
}

static void emit_hunk(struct out *o, const struct op *ops, size_t s, size_t e, const struct line *a,
		      const struct line *b)
{
	size_t na = 0, nb = 0;
	for (size_t k = s; k < e; k++) {
		na += ops[k].k != INS;
		nb += ops[k].k != DEL;
	}
	/* An empty side names the line before it, as diff -u does. */
	char head[96];
	int hn = snprintf(head, sizeof head, "@ -%zu,%zu +%zu,%zu @@", ops[s].ai + (na > 0), na,
			  ops[s].bi + (nb > 0), nb);
	emit(o, '@', head, (size_t)hn);
	for (size_t k = s; k < e; k++) {
		const struct op *op = &ops[k];
		const struct line *l = op->k == INS ? &b[op->bi] : &a[op->ai];
		emit(o, op->k == EQ ? ' ' : op->k == DEL ? '-' : '+', l->p, l->n);
	}
}

char *report_diff(const char *old, size_t oldlen, const char *new_, size_t newlen, size_t cap,
		  size_t *len)
{
	struct line *a = NULL, *b = NULL;
	struct op *ops = NULL;
	struct out o = {.cap = cap};
	size_t n = split(old, oldlen, &a), m = n == SIZE_MAX ? 0 : split(new_, newlen, &b);
	if (n == SIZE_MAX || m == SIZE_MAX || !(ops = malloc((n + m + 1) * sizeof *ops)))
		goto fail;
	size_t pre = 0, suf = 0, nops = 0;
	while (pre < n && pre < m && same(&a[pre], &b[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && same(&a[n - 1 - suf], &b[m - 1 - suf]))
		suf++;
	for (size_t k = 0; k < pre; k++)
		ops[nops++] = (struct op){EQ, k, k};
	if (align(a, pre, n - suf, b, pre, m - suf, ops, &nops) < 0)
		goto fail;
	for (size_t k = suf; k > 0; k--)
		ops[nops++] = (struct op){EQ, n - k, m - k};
	put(&o, "", 0);
	/* A hunk runs from CONTEXT lines before a change to CONTEXT after the
	 * last change that follows the one before it with at most 2 × CONTEXT
	 * equal lines between them (then the contexts would meet). */
	for (size_t k = 0; k < nops;) {
		if (ops[k].k == EQ) {
			k++;
			continue;
		}
		size_t s = k > CONTEXT ? k - CONTEXT : 0, last = k;
		for (size_t x = k + 1; x < nops && x <= last + 2 * CONTEXT + 1; x++)
			if (ops[x].k != EQ)
				last = x;
		size_t e = last + 1 + CONTEXT < nops ? last + 1 + CONTEXT : nops;
		emit_hunk(&o, ops, s, e, a, b);
		k = e;
	}
	if (o.cut) {
		char note[96];
		int nn = snprintf(note, sizeof note, "[… diff cut at %zu bytes: %zu more line%s]\n",
				  cap, o.dropped, o.dropped == 1 ? "" : "s");
		put(&o, note, (size_t)nn);
	}
	if (o.oom)
		goto fail;
	free(a);
	free(b);
	free(ops);
	*len = o.len;
	return o.buf;
fail:
	free(a);
	free(b);
	free(ops);
	free(o.buf);
	return NULL;
}
