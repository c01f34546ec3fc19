/* A stdio test's expected and actual output as data, beside the text a
 * model reads: bounded per test (PROTO_STDIO_TEXT_MAX) and per response
 * (fb_run.io_left), since a request may hold 10,000 cases and the
 * response must still fit --max-response-mb. */
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "sandboxd/feedback/feedback.h"

/* A copy of at most PROTO_STDIO_TEXT_MAX bytes, and of no more than what is
 * left as the response encodes it (a control byte costs 6 there: counting
 * raw bytes let 4 KiB of \x01 per case take 24 KiB each, and a quarter of
 * --max-response-mb grow to 1.5 times it, so the job got a too_large error
 * instead of its verdict), cut on a character boundary; *trunc when
 * something was left out. */
static char *take(struct fb_run *f, const char *s, size_t len, size_t *out_len, bool *trunc)
{
	struct text_json_meter m = {0, 0};
	size_t n = text_utf8_cut(s, len, PROTO_STDIO_TEXT_MAX);
	n = text_json_meter(&m, s, n, f->io_left, true);
	char *c = malloc(n + 1);
	if (!c)
		return NULL;
	memcpy(c, s, n);
	c[n] = '\0';
	f->io_left -= m.enc; /* never more than was left */
	*out_len = n;
	*trunc = n < len;
	return c;
}

int fb_set_io(struct fb_run *f, size_t i, const char *expected, size_t expected_len,
	      const char *actual, size_t actual_len)
{
	if (i >= f->ntests)
		return -1;
	struct fb_test *t = &f->tests[i];
	t->expected = take(f, expected ? expected : "", expected ? expected_len : 0,
			   &t->expected_len, &t->expected_trunc);
	if (actual)
		t->actual = take(f, actual, actual_len, &t->actual_len, &t->actual_trunc);
	if (!t->expected || (actual && !t->actual)) {
		free(t->expected);
		free(t->actual);
		t->expected = t->actual = NULL;
		return -1;
	}
	t->has_io = true;
	return 0;
}

void fb_io_json(const struct fb_test *t, json_t *o)
{
	json_object_set_new(o, T_EXPECTED, proto_json_bytes(t->expected, t->expected_len));
	json_object_set_new(o, T_EXPECTED_TRUNC, json_boolean(t->expected_trunc));
	json_object_set_new(o, T_ACTUAL,
			    t->actual ? proto_json_bytes(t->actual, t->actual_len) : json_null());
	json_object_set_new(o, T_ACTUAL_TRUNC, json_boolean(t->actual_trunc));
}
