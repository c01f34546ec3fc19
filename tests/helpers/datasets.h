/* The shared benchmark data (HumanEval, BigCodeBench, a CodeContests
 * sample), read in place, never copied: $SBX_DATASETS, by default
 * ../shared/datasets relative to the repository root (the tests run from
 * there). A data set that is not there is a skip naming its path, never a
 * failure and never a silent pass. */
#ifndef SBX_DATASETS_H
#define SBX_DATASETS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "tests/helpers/skip.h"

/* The path of data set `name` (a file of the directory); one of a few
 * rotating static buffers. */
const char *tds_path(const char *name);

/* The data set can be read; else false with its path and why. */
bool tds_have(const char *name, char *why, size_t len);

/* Ends the test with a skip when the data set cannot be read. */
#define NEED_DATASET(name)                                                                         \
	do {                                                                                       \
		char why_[PATH_MAX + 512];                                                         \
		if (!tds_have((name), why_, sizeof why_))                                          \
			SKIP_TEST("%s", why_);                                                     \
	} while (0)

/* Every line of a .jsonl.gz data set as a JSON object (asserts it reads). */
json_t **tds_load_jsonl_gz(const char *name, size_t *count);

/* Frees n values and the array. */
void tds_free_all(json_t **v, size_t n);

#endif
