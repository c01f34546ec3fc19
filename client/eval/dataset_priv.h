/* What dataset.c (record parsing) and dataset_read.c (reading files) share. */
#ifndef SBX_DATASET_PRIV_H
#define SBX_DATASET_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "client/eval/dataset.h"

/* BigCodeBench lines are tens of KB; the cap only stops a corrupt file. */
#define DS_MAX_LINE ((size_t)64 << 20)
#define DS_READ_CHUNK ((size_t)256 << 10)

/* A malformed record is skipped; running out of memory stops the load. */
#define DS_BAD (-1)
#define DS_OOM (-2)

/* ds_parse_record, telling a malformed record (DS_BAD) from DS_OOM. */
int ds_parse_record_rc(const char *line, size_t len, enum ds_format fmt, struct ds_task *t,
		       char *err, size_t errlen);
/* Fills err (printf-style) and returns rc. */
__attribute__((format(printf, 4, 5))) int ds_fail(int rc, char *err, size_t errlen, const char *fmt,
						  ...);
/* Only white space (or nothing) in s[0..n). */
bool ds_blank_n(const char *s, size_t n);

#endif
