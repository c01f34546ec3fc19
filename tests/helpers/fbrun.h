/* Feeding the runner's records to a struct fb_run, for the feedback unit
 * suites (test_feedback_records.c, test_feedback_text.c,
 * test_run_verdict_records.c): records are written with single quotes for
 * readability; feed() turns them into double quotes and adds the job's key,
 * raw() sends a line exactly as formatted. Then the run is settled
 * (finish: verdict_records) and read back (outcome_of, to_json, summary ...).
 * Header-only (static inline). */
#ifndef SBX_FBRUN_H
#define SBX_FBRUN_H

#include <check.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/feedback/feedback.h"
#include "sandboxd/run/run_priv.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define GRACE_NS 1000000000ull /* WATCHDOG_GRACE_NS in feedback.c */
#define MARKER_FMT "\n... [%zu characters trimmed] ...\n"

static inline void quotes(char *s)
{
	for (; *s; s++)
		if (*s == '\'')
			*s = '"';
}

/* One result-channel line exactly as formatted (quotes converted), no key
 * added. */
__attribute__((format(printf, 3, 4))) static inline void raw_at(struct fb_run *f, uint64_t now,
								const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	quotes(s);
	fb_on_record(f, s, strlen(s), now);
	free(s);
}

/* One record {"key": <the job's key>, <fields>} at time now. */
__attribute__((format(printf, 3, 4))) static inline void feed_at(struct fb_run *f, uint64_t now,
								 const char *fmt, ...)
{
	va_list ap;
	char *body, *line;
	va_start(ap, fmt);
	int n = vasprintf(&body, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	quotes(body);
	n = asprintf(&line, "{\"key\":\"%s\",%s}", f->key, body);
	ck_assert_int_ge(n, 0);
	fb_on_record(f, line, strlen(line), now);
	free(body);
	free(line);
}

#define feed(f, ...) feed_at(f, 0, __VA_ARGS__)
#define raw(f, ...) raw_at(f, 0, __VA_ARGS__)

static inline void compile_ok(struct fb_run *f)
{
	feed(f, "'type':'compile','ok':true,'errors':[],'feedback':''");
}

static inline void result(struct fb_run *f, const char *name, const char *outcome, const char *tb)
{
	feed(f,
	     "'type':'result','name':'%s','outcome':'%s','message':'msg of %s','traceback':'%s',"
	     "'duration_ms':7",
	     name, outcome, name, tb);
}

static inline void run_test(struct fb_run *f, const char *name, const char *outcome, const char *tb)
{
	feed(f, "'type':'start','name':'%s'", name);
	result(f, name, outcome, tb);
}

static inline int find(const struct fb_run *f, const char *name)
{
	for (size_t i = 0; i < f->ntests; i++)
		if (strcmp(f->tests[i].name, name) == 0)
			return (int)i;
	return -1;
}

static inline int outcome_of(const struct fb_run *f, const char *name)
{
	int i = find(f, name);
	ck_assert_msg(i >= 0, "no test %s", name);
	return f->tests[i].outcome;
}

static inline const char *message_of(const struct fb_run *f, const char *name)
{
	int i = find(f, name);
	ck_assert_msg(i >= 0, "no test %s", name);
	return f->tests[i].message ? f->tests[i].message : "";
}

static inline enum proto_verdict finish(struct fb_run *f, enum proto_verdict run, bool watchdog,
					char *msg, size_t msglen)
{
	msg[0] = '\0';
	return verdict_records(f, run, watchdog, msg, msglen);
}

static inline json_t *to_json(const struct fb_run *f, enum proto_coverage cov, long partial)
{
	struct proto_request req;
	memset(&req, 0, sizeof req);
	req.coverage = cov;
	req.partial_tests = partial;
	req.test_timeout_ms = -1;
	req.seed = -1;
	req.float_tolerance = -1;
	json_t *resp = json_object();
	fb_to_json(f, &req, resp);
	return resp;
}

static inline json_int_t summary(json_t *resp, const char *key)
{
	json_t *v = json_object_get(json_object_get(resp, R_SUMMARY), key);
	ck_assert_msg(json_is_integer(v), "summary.%s missing", key);
	return json_integer_value(v);
}

static inline json_int_t integrity(json_t *resp, const char *key)
{
	json_t *v = json_object_get(json_object_get(resp, R_INTEGRITY), key);
	ck_assert_msg(json_is_integer(v), "integrity.%s missing", key);
	return json_integer_value(v);
}

static inline const char *feedback(json_t *resp, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(resp, R_FEEDBACK), key));
	ck_assert_msg(s != NULL, "feedback.%s missing", key);
	return s;
}

/* Plan [names...] after an ok compile. */
static inline void setup(struct fb_run *f, const char *plan)
{
	fb_init(f, KEY, 0);
	compile_ok(f);
	feed(f, "'type':'plan','tests':[%s]", plan);
	ck_assert(f->have_plan);
}

#endif
