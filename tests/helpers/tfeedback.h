/* Test requests ("format": unittest, humaneval, asserts, stdio) and their
 * responses, for the integration suites of structured feedback: building a
 * request, reading the compile / tests / summary / feedback fields of the
 * answer, and running many requests on one connection with a bounded number
 * in flight. Header-only (static inline), on top of tests/helpers/tcheck.h. */
#ifndef SBX_TFEEDBACK_H
#define SBX_TFEEDBACK_H

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tstr.h"

#define BATCH_MS 180000 /* how long one response of a batch may take */
#define WINDOW 6	/* requests in flight on a batch connection (2 workers) */

/* A string field, "" when missing (for strstr). */
static inline const char *sget0(const json_t *o, const char *k)
{
	const char *s = sget(o, k);
	return s ? s : "";
}

static inline const char *sget2(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

static inline const char *verdict(const json_t *r)
{
	return sget(r, R_VERDICT);
}

static inline const char *execution(const json_t *r)
{
	const char *s = sget2(r, R_FEEDBACK, FB_EXECUTION);
	return s ? s : "";
}

static inline const char *compilation(const json_t *r)
{
	const char *s = sget2(r, R_FEEDBACK, FB_COMPILATION);
	return s ? s : "";
}

static inline size_t ntests(const json_t *r)
{
	return json_array_size(json_object_get(r, R_TESTS));
}

static inline json_t *test_at(const json_t *r, size_t i)
{
	return json_array_get(json_object_get(r, R_TESTS), i);
}

static inline const char *outcome(const json_t *r, size_t i)
{
	return sget(test_at(r, i), T_OUTCOME);
}

static inline const char *tname(const json_t *r, size_t i)
{
	return sget(test_at(r, i), T_NAME);
}

static inline json_int_t summary(const json_t *r, const char *k)
{
	return iget2(r, R_SUMMARY, k);
}

/* The outcomes of all tests, in order, as "passed,failed,...". */
static inline void outcomes(const json_t *r, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ntests(r) && used < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s", i ? "," : "",
				 outcome(r, i) ? outcome(r, i) : "?");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

#define CHECK_OUTCOMES(r, want)                                                                    \
	do {                                                                                       \
		char got_[512];                                                                    \
		outcomes((r), got_, sizeof got_);                                                  \
		CHECK_RM((r), strcmp(got_, (want)) == 0, "outcomes are %s, expected %s", got_,     \
			 (want));                                                                  \
	} while (0)

/* A test request; tests is stolen (a string or an array). */
static inline json_t *treq(const char *id, const char *code, const char *format, json_t *tests)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:o}", F_ID, id, F_CODE, code, F_FORMAT, format,
			      F_TESTS, tests);
	ck_assert_ptr_nonnull(o);
	return o;
}

static inline json_t *ut(const char *id, const char *code, const char *tests)
{
	return treq(id, code, "unittest", json_string(tests));
}

static inline json_t *set_str(json_t *req, const char *k, const char *v)
{
	json_object_set_new(req, k, json_string(v));
	return req;
}

static inline json_t *set_int(json_t *req, const char *k, json_int_t v)
{
	json_object_set_new(req, k, json_integer(v));
	return req;
}

/* Runs n requests (each with a unique id; not consumed) on one connection,
 * at most WINDOW in flight so both workers stay busy and the queue never
 * fills; resps[i] answers reqs[i]. */
static inline void run_batch(const struct test_daemon *d, json_t **reqs, json_t **resps, size_t n)
{
	char err[512];
	struct sbx_conn *c = conn_open(d);
	size_t next = 0;
	for (; next < n && next < WINDOW; next++)
		ck_assert_msg(sbx_submit(c, reqs[next], err, sizeof err) == 0, "submit: %s", err);
	for (size_t i = 0; i < n; i++) {
		const char *id = sget(reqs[i], F_ID);
		resps[i] = sbx_wait(c, id, BATCH_MS, err, sizeof err);
		ck_assert_msg(resps[i] != NULL, "no response to %s: %s", id, err);
		ck_assert_msg(!json_object_get(resps[i], R_ERROR), "request %s answered %s", id,
			      dump(resps[i]));
		if (next < n) {
			ck_assert_msg(sbx_submit(c, reqs[next], err, sizeof err) == 0, "submit: %s",
				      err);
			next++;
		}
	}
	sbx_close(c);
}

#endif
