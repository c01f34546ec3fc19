/* The in-jail test runner's result records: one JSON object per line on the
 * result channel (fd 3 in the jail), each carrying the job's key. Every name
 * and cap of that protocol lives here, once:
 *  - the daemon's parser (sandboxd/feedback/feedback.c) uses these macros;
 *  - the runner's Python constants (sbx_runner/records_h.py, inside the
 *    runner bundle) are generated from this file when the bundle is built
 *    (sandboxd/feedback/runner/build_pyz.py), so they cannot drift;
 *  - docs/protocol.md documents each one (tests/unit/test_common_protocol_docs.c fails when
 *    a name or a cap is missing there, or a cap's value differs).
 * Only `#define REC_NAME "string"` and `#define REC_NAME <decimal>` lines
 * belong here: the generator refuses anything else. */
#ifndef SBX_RECORDS_H
#define SBX_RECORDS_H

/* Record types (the "type" field), in the order the runner sends them. */
#define REC_COMPILE "compile"
#define REC_PLAN "plan"
#define REC_START "start"
#define REC_RESULT "result"
#define REC_NOTE "note"
#define REC_MODULE_ERROR "module_error"
#define REC_HARNESS_ERROR "harness_error"
#define REC_DONE "done"

/* Fields of a record. */
#define REC_F_KEY "key"
#define REC_F_TYPE "type"
#define REC_F_OK "ok"
#define REC_F_ERRORS "errors"
#define REC_F_FEEDBACK "feedback"
#define REC_F_TESTS "tests"
#define REC_F_NAME "name"
#define REC_F_EXTRA "extra"
#define REC_F_OUTCOME "outcome"
#define REC_F_MESSAGE "message"
#define REC_F_TRACEBACK "traceback"
#define REC_F_DURATION_MS "duration_ms"
#define REC_F_SUBTEST "subtest"
#define REC_F_PARTIAL "partial"
/* Fields of one entry of a compile record's "errors". */
#define REC_E_TYPE "type"
#define REC_E_MESSAGE "message"
#define REC_E_LINE "line"
#define REC_E_COLUMN "column"
#define REC_E_TEXT "text"

/* Outcomes (a result's "outcome"): the names of enum proto_outcome. */
#define REC_OUT_PASSED "passed"
#define REC_OUT_FAILED "failed"
#define REC_OUT_ERROR "error"
#define REC_OUT_TIMEOUT "timeout"
#define REC_OUT_SKIPPED "skipped"

/* A successful compile record's feedback, which the response repeats. */
#define REC_NO_SYNTAX_ERRORS "No syntax errors"

/* Caps the daemon applies (docs/protocol.md says what happens past each). */
#define REC_KEY_LEN 32		/* hex characters of the job's key */
#define REC_LINE_MAX 1048576	/* bytes of one line */
#define REC_TOTAL_MAX 67108864	/* bytes of all lines of one run */
#define REC_PARSE_CPU_MS 500	/* ms of the daemon's CPU reading one run's lines */
#define REC_PLAN_MAX 100000	/* tests in a plan */
#define REC_NAME_MAX 1000	/* bytes of a test name */
#define REC_MESSAGE_MAX 4000	/* bytes kept of a message */
#define REC_TRACEBACK_MAX 8000	/* bytes kept of a traceback or compile feedback */
#define REC_ERRORS_MAX 16	/* compile errors kept */
#define REC_ERROR_TYPE_MAX 200	/* bytes kept of a compile error's type */
#define REC_ERROR_TEXT_MAX 2000 /* bytes kept of a compile error's source line */

/* Caps the runner keeps to, below the daemon's. */
#define REC_SEND_NAME_MAX 980	    /* bytes of an assert's name, before a " [n]" */
#define REC_SEND_MESSAGE_MAX 1000   /* characters of a message */
#define REC_SEND_TRACEBACK_MAX 4000 /* characters of a traceback */
#define REC_SEND_INTERNAL_MAX 3000  /* characters of a runner bug's traceback */

#endif
