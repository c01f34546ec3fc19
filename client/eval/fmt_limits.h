/* Per-format default limits of `sbx eval` and `sbx check-reference`: the
 * daemon's profile defaults (10 s CPU, 512 MB) fit HumanEval, MBPP and
 * stdio tasks but fail real BigCodeBench reference solutions, whose own
 * harness allows 240 s per task and sets no memory limit. A limit the user
 * gives always wins; the daemon clamps any limit to its profile's maximum. */
#ifndef SBX_FMT_LIMITS_H
#define SBX_FMT_LIMITS_H

#include <jansson.h>

#include "client/eval/dataset.h"
#include "common/protocol.h"

/* Fills the limits l leaves unset (<= 0) with the format's defaults; the
 * memory default is lowered to memory_budget_mb when that is positive and
 * smaller (a job larger than the daemon's whole budget is refused). Returns
 * the limits it set, as a bit mask of proto_limit_names indices. */
unsigned fmt_limits_apply(enum ds_format f, long memory_budget_mb, struct proto_limits *l);
/* The names of the limits in mask, as a JSON array (NULL when out of memory). */
json_t *fmt_limits_names(unsigned mask);
/* "cpu 240 s, wall 480 s, memory 4096 MB" for the limits l sets (the
 * daemon's defaults for the rest), into buf. */
void fmt_limits_describe(const struct proto_limits *l, char *buf, size_t len);

#endif
