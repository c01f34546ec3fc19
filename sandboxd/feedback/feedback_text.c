/* The execution feedback a model sees, in ConvCodeWorld's shape: each shown
 * failing test as its name followed by its traceback, or "Passed all test
 * runs"; `partial` shows only the first N tests of the plan (the test methods
 * in source order; unlike ConvCodeWorld's implementation, setUp and helper
 * methods are not counted as tests), or with partial_mode convcodeworld the
 * tests the runner marked by ConvCodeWorld's own rule. */
#include <stdlib.h>
#include <string.h>

#include "sandboxd/feedback/feedback.h"

#include "common/text.h"

struct buf {
	char *s;
	size_t len, cap;
	bool failed; /* an append found no memory: the text is incomplete */
};

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->failed = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static bool failing(const struct fb_test *t)
{
	return t->outcome == OUT_FAILED || t->outcome == OUT_ERROR || t->outcome == OUT_TIMEOUT;
}

char *fb_execution_text(const struct fb_run *f, enum proto_coverage cov, long partial_n)
{
	struct buf b = {0};
	put(&b, "");
	if (b.failed)
		return NULL;
	if (cov == COV_NONE || !f->have_compile || !f->compile_ok)
		return b.s;
	if (f->module_error) {
		/* Either may be NULL: its copy found no memory. */
		const char *m = f->module_traceback && f->module_traceback[0] ? f->module_traceback
									      : f->module_message;
		put(&b, m ? m : "");
	} else {
		size_t shown = f->ntests;
		/* ConvCodeWorld's rule (the runner marked what it shows) looks at
		 * every test and may show none: "Passed all test runs" then, as
		 * there. */
		bool marked = cov == COV_PARTIAL && f->have_partial;
		if (cov == COV_PARTIAL && !marked && partial_n > 0 && (size_t)partial_n < shown)
			shown = (size_t)partial_n;
		for (size_t i = 0; i < shown; i++) {
			const struct fb_test *t = &f->tests[i];
			if (!failing(t) || (marked && !t->partial))
				continue;
			if (b.len)
				put(&b, "\n\n");
			put(&b, t->name);
			put(&b, "\n");
			const char *detail =
			    t->traceback && t->traceback[0] ? t->traceback : t->message;
			put(&b, detail ? detail : "");
		}
		if (!b.len && (shown > 0 || marked))
			put(&b, "Passed all test runs");
	}
	/* An incomplete text would show a failure without its test's name, or
	 * the other way round: none at all is better. */
	char *trimmed = b.failed ? NULL : text_trim(b.s, FB_TRIM_CHARS);
	free(b.s);
	return trimmed;
}
