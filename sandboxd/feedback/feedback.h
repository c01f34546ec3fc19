/* Structured feedback for test requests: the runner's records as the daemon
 * validates them, the verdict they add up to, and the text a model sees. */
#ifndef SBX_FEEDBACK_H
#define SBX_FEEDBACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/protocol.h"
#include "common/records.h"

#define FB_TRIM_CHARS 8000 /* ConvCodeWorld trims execution feedback here */

/* What a test without a result is told when the run's records were no
 * longer read (REC_PARSE_CPU_MS spent): its result may have been written,
 * so "the process ended" would be a guess. */
#define FB_UNREAD_NOT_RUN                                                                          \
	"not run: the daemon stopped reading the run's records before this test's start (they "    \
	"took more than the per-run parse budget)"
#define FB_UNREAD_RUNNING                                                                          \
	"the daemon stopped reading the run's records before this test's result (they took "       \
	"more than the per-run parse budget)"

struct fb_test {
	char *name;
	int outcome; /* enum proto_outcome, or -1 while nothing was reported */
	bool started;
	char *message, *traceback;
	long duration_ms;
	uint64_t started_ns;
	/* stdio: the case's expected output and the program's stdout as the
	 * response shows them (fb_set_io); actual NULL: the case did not run. */
	bool has_io;
	char *expected, *actual;
	size_t expected_len, actual_len;
	bool expected_trunc, actual_trunc;
	bool partial; /* partial_mode convcodeworld: its rule shows this test */
};

struct fb_run {
	char key[REC_KEY_LEN + 1];
	uint64_t test_timeout_ns; /* 0: no per-test limit */
	bool compile_seen, have_compile, compile_ok;
	bool plan_seen;
	json_t *compile_errors;
	char *compile_feedback;
	bool have_plan;
	/* partial_mode convcodeworld: the plan's "partial" is read (want_partial,
	 * set by the caller from the request) and decides what "partial"
	 * coverage shows (have_partial: it was read; the tests' flags). */
	bool want_partial, have_partial;
	struct fb_test *tests; /* in the plan's (source) order */
	size_t ntests;
	int running;   /* index of a started test without a result, or -1 */
	size_t hint;   /* where the next name is likely to be */
	size_t *order; /* the plan's indexes sorted by name (find_test), or NULL */
	/* The daemon's CPU (its thread's) spent reading this run's records:
	 * past REC_PARSE_CPU_MS the rest are bad records, not parsed. */
	uint64_t parse_ns;
	bool module_error;
	char *module_message, *module_traceback;
	char *harness_error;
	bool done;
	size_t bad_records, extra_tests;
	/* When the first accepted compile, start and done records arrived
	 * (monotonic ns, 0: none), for the response's "timing". The runner
	 * sends them, so the candidate could delay or hasten them. */
	uint64_t compile_ns, first_start_ns, done_ns;
	/* stdio: bytes (as the response encodes them) of expected and actual
	 * output the tests may still carry (the response's share for them);
	 * fb_set_io spends it. */
	size_t io_left;
};

void fb_init(struct fb_run *f, const char *key, long test_timeout_ms);
void fb_free(struct fb_run *f);
/* jail_hooks callbacks: one result-channel line (NULL: an over-long line),
 * and the watchdog deadline of the running test. The records and what is
 * done with a malformed one: common/records.h, docs/protocol.md. */
void fb_on_record(void *ctx, const char *line, size_t len, uint64_t now_ns);
uint64_t fb_deadline(void *ctx);

/* Adds a test the daemon decided itself (stdio cases); -1 without memory,
 * and then nothing was added. */
int fb_add_test(struct fb_run *f, const char *name, enum proto_outcome o, const char *message,
		const char *traceback, long duration_ms);

/* stdio: test i's expected output and the program's (actual NULL: it did
 * not run), each cut to PROTO_STDIO_TEXT_MAX bytes and to what is left of
 * io_left, on a character boundary; -1 without memory (then the test has
 * neither). feedback_io.c. */
int fb_set_io(struct fb_run *f, size_t i, const char *expected, size_t expected_len,
	      const char *actual, size_t actual_len);
/* The test's "expected", "actual" and their *_truncated, added to o. */
void fb_io_json(const struct fb_test *t, json_t *o);

/* What the records add up to, once the run is over. */
enum fb_state {
	FB_JOB_LIMIT,	  /* a job limit ended the run */
	FB_NOTHING,	  /* the runner reported nothing */
	FB_COMPILE_ERROR, /* the candidate did not compile */
	FB_HARNESS_ERROR, /* the runner itself failed */
	FB_MODULE_ERROR,  /* the candidate's module raised at import */
	FB_NO_TESTS,	  /* no test was planned */
	FB_WATCHDOG,	  /* a test ran past test_timeout_ms */
	FB_SOME_BAD,	  /* a test failed, errored or timed out */
	FB_NONE_PASSED,	  /* nothing failed, nothing passed */
	FB_UNFINISHED,	  /* every test passed but the runner did not finish */
	FB_ALL_PASSED,
};

/* Gives every test an outcome (a test that never reported is an error; the
 * one running when a job limit fired, or the watchdog stopped the job, is a
 * timeout) and says what the records add up to. The verdict made of that is
 * the run component's (verdict_tests). */
enum fb_state fb_settle(struct fb_run *f, enum proto_verdict run_verdict, bool watchdog);

/* The model-facing execution feedback (caller frees; NULL without memory). */
char *fb_execution_text(const struct fb_run *f, enum proto_coverage cov, long partial_n);

/* Adds compile, tests, summary, feedback and integrity to a response. */
void fb_to_json(const struct fb_run *f, const struct proto_request *req, json_t *resp);

#endif
