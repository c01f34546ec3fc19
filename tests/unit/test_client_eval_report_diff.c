/* Unit tests for report_diff.c, the line diff of `sbx report`: exact output
 * on small cases (hunk headers as diff -u writes them), and on random
 * edits that applying the diff to the old text gives the new one and that
 * it is a shortest one (its - and + lines against an LCS computed here);
 * the output cap, the fallback past the alignment bound, NUL bytes and
 * UTF-8 cuts. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/report_diff.h"
#include "client/eval/utf8.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

static char *diff(const char *a, const char *b, size_t cap)
{
	size_t len = 0;
	char *d = report_diff(a, strlen(a), b, strlen(b), cap, &len);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(len, strlen(d));
	return d;
}

static void assert_diff(const char *a, const char *b, const char *want)
{
	char *d = diff(a, b, 1 << 20);
	ck_assert_str_eq(d, want);
	free(d);
}

START_TEST(test_small_cases)
{
	assert_diff("", "", "");
	assert_diff("a\nb\n", "a\nb\n", "");
	/* A missing last newline is no change of lines. */
	assert_diff("a\nb", "a\nb\n", "");
	assert_diff("", "x\n", "@@ -0,0 +1,1 @@\n+x\n");
	assert_diff("x\n", "", "@@ -1,1 +0,0 @@\n-x\n");
	assert_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
		    "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
	assert_diff("a\nb\n", "new\na\nb\n", "@@ -1,2 +1,3 @@\n+new\n a\n b\n");
	assert_diff("a\nb\n", "a\nb\nend\n", "@@ -1,2 +1,3 @@\n a\n b\n+end\n");
	/* Two changes 7 equal lines apart: two hunks (contexts of 3 do not
	 * meet); 6 apart: one hunk. */
	assert_diff("x\n1\n2\n3\n4\n5\n6\n7\ny\n", "X\n1\n2\n3\n4\n5\n6\n7\nY\n",
		    "@@ -1,4 +1,4 @@\n-x\n+X\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-y\n+Y\n");
	assert_diff("x\n1\n2\n3\n4\n5\n6\ny\n", "X\n1\n2\n3\n4\n5\n6\nY\n",
		    "@@ -1,8 +1,8 @@\n-x\n+X\n 1\n 2\n 3\n 4\n 5\n 6\n-y\n+Y\n");
}
END_TEST

/* Applies the unified diff d to old; the result is malloc'd, NULL when d
 * does not fit old (a context or removed line differs, bad header). */
static char *apply(const char *old, const char *d)
{
	struct sb out = {0};
	size_t n = 0;
	char *copy = strdup(old);
	const char **lines = calloc(strlen(old) + 1, sizeof *lines);
	/* Every "\n" ends a line (strtok would skip the empty ones). */
	for (char *l = copy, *eol; *l; l = eol + 1) {
		eol = strchr(l, '\n');
		ck_assert_ptr_nonnull(eol);
		*eol = '\0';
		lines[n++] = l;
	}
	size_t at = 0; /* old lines copied so far */
	const char *p = d;
	while (*p) {
		const char *eol = strchr(p, '\n');
		ck_assert_ptr_nonnull(eol);
		size_t len = (size_t)(eol - p);
		if (p[0] == '@') {
			size_t a, na, b, nb;
			if (sscanf(p, "@@ -%zu,%zu +%zu,%zu @@", &a, &na, &b, &nb) != 4)
				goto bad;
			size_t start = na ? a - 1 : a;
			if (start < at || start > n)
				goto bad;
			for (; at < start; at++)
				sb_add(&out, "%s\n", lines[at]);
		} else if (p[0] == ' ' || p[0] == '-') {
			if (at >= n || strlen(lines[at]) != len - 1 ||
			    memcmp(lines[at], p + 1, len - 1))
				goto bad;
			if (p[0] == ' ')
				sb_add(&out, "%s\n", lines[at]);
			at++;
		} else if (p[0] == '+') {
			sb_add(&out, "%.*s\n", (int)(len - 1), p + 1);
		} else {
			goto bad;
		}
		p = eol + 1;
	}
	for (; at < n; at++)
		sb_add(&out, "%s\n", lines[at]);
	free(copy);
	free(lines);
	char *r = strdup(sb_str(&out));
	free(out.s);
	return r;
bad:
	free(copy);
	free(lines);
	free(out.s);
	return NULL;
}

static size_t lcs(char **a, size_t n, char **b, size_t m)
{
	size_t L[65][65] = {{0}};
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			L[i][j] = !strcmp(a[i], b[j])	      ? L[i + 1][j + 1] + 1
				  : L[i + 1][j] > L[i][j + 1] ? L[i + 1][j]
							      : L[i][j + 1];
	return L[0][0];
}

static size_t count_lines(const char *d, char mark)
{
	size_t k = 0;
	for (const char *p = d; *p; p = strchr(p, '\n') + 1)
		k += *p == mark;
	return k;
}

START_TEST(test_random_edits_apply_and_are_shortest)
{
	/* Lines from a small alphabet, so equal lines repeat and the
	 * alignment has real choices to make. */
	static char *words[] = {"a", "b", "c", "d", "    return x", "", "e"};
	unsigned seed = 12345;
	for (int round = 0; round < 400; round++) {
		char *a[64], *b[64];
		seed = seed * 1103515245 + 12345;
		size_t n = (seed >> 16) % 40, m;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			a[i] = words[(seed >> 16) % 7];
		}
		/* b: a with random deletions, insertions and changes. */
		m = 0;
		for (size_t i = 0; i <= n && m < 60; i++) {
			seed = seed * 1103515245 + 12345;
			unsigned r = (seed >> 16) % 10;
			if (r == 0 && m < 60)
				b[m++] = words[(seed >> 20) % 7];
			if (i < n && r != 1 && m < 60)
				b[m++] = r == 2 ? words[(seed >> 24) % 7] : a[i];
		}
		struct sb ta = {0}, tb = {0};
		for (size_t i = 0; i < n; i++)
			sb_add(&ta, "%s\n", a[i]);
		for (size_t i = 0; i < m; i++)
			sb_add(&tb, "%s\n", b[i]);
		char *d = diff(sb_str(&ta), sb_str(&tb), 1 << 20);
		char *got = apply(sb_str(&ta), d);
		ck_assert_msg(got, "round %d: the diff does not apply:\n%s", round, d);
		ck_assert_str_eq(got, sb_str(&tb));
		size_t common = lcs(a, n, b, m);
		ck_assert_uint_eq(count_lines(d, '-'), n - common);
		ck_assert_uint_eq(count_lines(d, '+'), m - common);
		free(got);
		free(d);
		free(ta.s);
		free(tb.s);
	}
}
END_TEST

START_TEST(test_cap)
{
	struct sb a = {0}, b = {0};
	for (int i = 0; i < 1000; i++) {
		sb_add(&a, "old line %d\n", i);
		sb_add(&b, "new line %d\n", i);
	}
	char *d = diff(sb_str(&a), sb_str(&b), 500);
	/* At most the cap, then the note on its own line. */
	char *note = strstr(d, "[… diff cut at 500 bytes: ");
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_le((size_t)(note - d), 500);
	ck_assert_str_eq(strchr(note, '\n'), "\n");
	/* 2000 changed lines and a header: the one at the cap cut short (with
	 * "…"), those not shown at all counted. */
	ck_assert(str_starts(note - strlen("…\n"), "…\n"));
	size_t shown = count_lines(d, '-') + count_lines(d, '+') + count_lines(d, '@');
	size_t more = strtoul(note + strlen("[… diff cut at 500 bytes: "), NULL, 10);
	ck_assert_uint_eq(shown + more, 2001);
	free(d);

	/* One long line cut short: never inside a UTF-8 character. */
	struct sb u = {0};
	for (int i = 0; i < 300; i++)
		sb_add(&u, "é");
	d = diff("", sb_str(&u), 101);
	char *eol = strchr(d, '\n');
	/* "@@ -0,0 +1,1 @@\n" then "+éé…é…" cut at a character. */
	const char *plus = eol + 1;
	size_t plen = (size_t)(strchr(plus, '\n') - plus);
	ck_assert(str_starts(plus + plen - strlen("…"), "…"));
	ck_assert_uint_eq((plen - 1 - strlen("…")) % 2, 0);
	ck_assert_uint_le(plen + 1 + (size_t)(plus - d), 101);
	ck_assert_ptr_nonnull(strstr(d, ": 0 more lines]\n"));
	free(d);
	free(u.s);
	free(a.s);
	free(b.s);
}
END_TEST

START_TEST(test_past_the_alignment_bound)
{
	/* 2999 x 2999 middle lines (the first and the last two are common)
	 * are more cells than REPORT_DIFF_CELLS: shown as all removed then
	 * all added where an alignment would keep every second line. */
	struct sb a = {0}, b = {0};
	sb_add(&a, "same first\n");
	sb_add(&b, "same first\n");
	for (int i = 0; i < 3000; i++) {
		sb_add(&a, "a%d\n", i);
		sb_add(&b, "%s%d\n", i % 2 ? "a" : "b", i);
	}
	sb_add(&a, "same last\n");
	sb_add(&b, "same last\n");
	ck_assert_uint_gt(3001u * 3001u, REPORT_DIFF_CELLS);
	size_t len;
	char *d = report_diff(a.s, a.len, b.s, b.len, SIZE_MAX, &len);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(count_lines(d, '-'), 2999);
	ck_assert_uint_eq(count_lines(d, '+'), 2999);
	char *got = apply(a.s, d);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, b.s);
	free(got);
	ck_assert(str_starts(d, "@@ -1,3002 +1,3002 @@\n same first\n-a0\n-a1\n"));
	free(d);

	/* Under the bound the same kind of edit is aligned: 1499 x 1499, the
	 * 749 odd lines kept. */
	struct sb c = {0}, e = {0};
	for (int i = 0; i < 1500; i++) {
		sb_add(&c, "a%d\n", i);
		sb_add(&e, "%s%d\n", i % 2 ? "a" : "b", i);
	}
	d = report_diff(c.s, c.len, e.s, e.len, SIZE_MAX, &len);
	ck_assert_uint_eq(count_lines(d, '-'), 750);
	ck_assert_uint_eq(count_lines(d, '+'), 750);
	free(d);
	free(a.s);
	free(b.s);
	free(c.s);
	free(e.s);
}
END_TEST

START_TEST(test_nul_bytes_kept)
{
	const char a[] = "x\0y\nsame\n", b[] = "x\0z\nsame\n";
	size_t len;
	char *d = report_diff(a, sizeof a - 1, b, sizeof b - 1, 4096, &len);
	ck_assert_ptr_nonnull(d);
	const char want[] = "@@ -1,2 +1,2 @@\n-x\0y\n+x\0z\n same\n";
	ck_assert_uint_eq(len, sizeof want - 1);
	ck_assert_mem_eq(d, want, len);
	free(d);
}
END_TEST

START_TEST(test_utf8_cut)
{
	const char *s = "a\xc3\xa9"
			"b\xe2\x82\xac"
			"c";
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 100), strlen(s));
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 1), 1);
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 2), 1); /* inside é */
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 3), 3);
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 5), 4); /* inside € */
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 6), 4);
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 7), 7);
	ck_assert_uint_eq(utf8_cut(s, strlen(s), 0), 0);
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("report_diff");
	TCase *t = tcase_create("report_diff");
	tcase_add_test(t, test_small_cases);
	tcase_add_test(t, test_random_edits_apply_and_are_shortest);
	tcase_add_test(t, test_cap);
	tcase_add_test(t, test_past_the_alignment_bound);
	tcase_add_test(t, test_nul_bytes_kept);
	tcase_add_test(t, test_utf8_cut);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(diff_suite, NULL);
}
