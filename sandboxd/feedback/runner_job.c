/* The runner's job description and key (runner_job.h). */
#include "sandboxd/feedback/runner_job.h"
#include "common/records.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int runner_job_key(char key[REC_KEY_LEN + 1])
{
	unsigned char raw[16];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (int i = 0; i < 16; i++)
		snprintf(key + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

char *runner_job_json(const struct proto_request *req, const char *format)
{
	json_t *tests = json_null();
	if (req->tests_text) {
		tests = json_stringn(req->tests_text, req->tests_len);
	} else if (req->asserts) {
		tests = json_array();
		for (size_t i = 0; i < req->nasserts; i++)
			json_array_append_new(tests, json_string(req->asserts[i]));
	}
	if (strcmp(format, "compile") == 0) {
		json_decref(tests);
		tests = json_null();
	}
	json_t *o = json_pack(
	    "{s:s,s:s%,s:o,s:o,s:o,s:o,s:s}", "format", format, "code", req->code, req->code_len,
	    "tests", tests, "entry_point",
	    req->entry_point ? json_string(req->entry_point) : json_null(), "test_timeout_ms",
	    req->test_timeout_ms > 0 ? json_integer(req->test_timeout_ms) : json_null(), "seed",
	    req->seed >= 0 ? json_integer(req->seed) : json_null(), "filename", RUNNER_FILENAME);
	/* The runner's own key name ("isolation"), not the protocol's: the job
	 * description is the runner's interface (sbx_runner/__init__.py). */
	if (o && req->isolation == ISO_PROCESS && strcmp(format, "compile") != 0 &&
	    json_object_set_new(o, "isolation", json_string(ISOLATION_PROCESS)) < 0) {
		json_decref(o);
		o = NULL;
	}
	/* Only the runner reads the test source's classes in source order, so
	 * ConvCodeWorld's partial rule is applied there (fmt_unittest.py). */
	if (o && req->partial_mode == PM_CONVCODEWORLD && strcmp(format, "unittest") == 0 &&
	    (json_object_set_new(o, "partial_mode", json_string(PARTIAL_MODE_CONVCODEWORLD)) < 0 ||
	     json_object_set_new(o, "partial_tests", json_integer(req->partial_tests)) < 0)) {
		json_decref(o);
		o = NULL;
	}
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

char *runner_job_main(const char *filename, long long seed)
{
	json_t *o = json_pack("{s:s,s:s,s:o}", "format", "main", "filename", filename, "seed",
			      seed >= 0 ? json_integer(seed) : json_null());
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
