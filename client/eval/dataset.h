/* Benchmark loaders for `sbx eval`: BigCodeBench, HumanEval, MBPP and
 * CodeContests-style stdio JSONL, plain or gzip (zlib). A malformed record is
 * reported with its line number and skipped, never fatal. */
#ifndef SBX_DATASET_H
#define SBX_DATASET_H

#include <jansson.h>
#include <stdio.h>

#include "common/protocol.h"

enum ds_format { DS_BIGCODEBENCH, DS_HUMANEVAL, DS_MBPP, DS_STDIO, DS_COUNT };

struct ds_task {
	char *id;	   /* task_id (or name/id); numbers become strings */
	char *prompt;	   /* what the model is asked (BigCodeBench: instruct_prompt) */
	char *entry_point; /* NULL when the format has none */
	char *reference;   /* reference solution for expert feedback, or NULL */
	enum proto_format test_format;
	json_t *tests; /* as the protocol's "tests": a string, or an array */
	/* MBPP's test_setup_code, or NULL: MBPP's harness runs it after the
	 * candidate's code and before the tests, so `sbx eval` appends it. */
	char *test_setup;
	size_t line; /* line number in the file (1-based) */
};

struct ds_set {
	struct ds_task *v;
	size_t n;
	size_t skipped; /* malformed records */
};

/* "bigcodebench", "humaneval", "mbpp", "stdio"; -1 if unknown. */
int ds_parse_format(const char *name);
const char *ds_format_name(enum ds_format f);

/* Loads every record; warnings ("FILE:LINE: why, skipped") go to warn (may
 * be NULL). Returns 0, or -1 when the file cannot be read at all. Task ids
 * must be unique (a duplicate is skipped with a warning). */
int ds_load(const char *path, enum ds_format fmt, FILE *warn, struct ds_set *out, char *err,
	    size_t errlen);
/* One record (tests use it): 0, or -1 with the reason in err. */
int ds_parse_record(const char *line, size_t len, enum ds_format fmt, struct ds_task *t, char *err,
		    size_t errlen);
void ds_task_free(struct ds_task *t);
void ds_free(struct ds_set *s);

#endif
