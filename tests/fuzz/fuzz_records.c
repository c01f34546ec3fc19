/* libFuzzer target: the runner's result channel as the daemon reads it.
 * The runner shares its process with the candidate, so these lines are as
 * hostile as a client's. The input is split into lines fed in order; then
 * the verdict is computed and the response built, checking that every test
 * ends with an outcome and that the feedback text stays bounded. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/feedback/feedback.h"
#include "sandboxd/run/run_priv.h"

#define KEY "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fb_run f;
	struct proto_request req;
	memset(&req, 0, sizeof req);
	req.coverage = size ? (enum proto_coverage)(data[0] % COV_COUNT) : COV_FULL;
	req.partial_tests = 3;
	fb_init(&f, KEY, size > 1 ? data[1] : 0);
	const char *p = (const char *)data, *end = p + size;
	uint64_t now = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		fb_on_record(&f, n > 4096 ? NULL : p, n, now++);
		(void)fb_deadline(&f);
		p += n + 1;
	}
	char msg[256] = "";
	enum proto_verdict v =
	    verdict_records(&f, (enum proto_verdict)(size > 2 ? data[2] % V_COUNT : 0),
			    size > 3 && (data[3] & 1), msg, sizeof msg);
	assert((unsigned)v < V_COUNT);
	if (f.have_compile && f.compile_ok && v != V_TIMEOUT && v != V_ERROR)
		for (size_t i = 0; i < f.ntests; i++)
			assert(f.tests[i].outcome >= 0 && f.tests[i].outcome < OUT_COUNT);
	char *text = fb_execution_text(&f, req.coverage, req.partial_tests);
	assert(!text || strlen(text) <= FB_TRIM_CHARS + 80);
	free(text);
	json_t *resp = json_object();
	fb_to_json(&f, &req, resp);
	char *s = json_dumps(resp, JSON_COMPACT);
	assert(s != NULL);
	free(s);
	json_decref(resp);
	fb_free(&f);
	return 0;
}
