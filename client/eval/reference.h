/* Reference checking (`sbx check-reference`, `sbx eval --check-reference`):
 * every selected task's reference solution runs through the daemon first,
 * so a task the environment cannot pass (a missing module, a limit too
 * small) is not scored as the model's failure. One record per task goes
 * to reference.jsonl (docs/eval.md, "Reference check"). */
#ifndef SBX_REFERENCE_H
#define SBX_REFERENCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/eval/dataset.h"

#define REFERENCE_FILE "reference.jsonl"

/* Verdicts of a record beside the daemon's: the task has no reference
 * solution (it cannot be checked, and is kept), or the daemon refused the
 * request (the reference cannot run here: excluded). */
#define REF_NONE "no_reference"
#define REF_ERROR "error"

/* The module a ModuleNotFoundError (or an ImportError "No module named")
 * in text names, as a new string ("django", "tensorflow.keras"), or NULL. */
char *reference_missing_module(const char *text);
/* The record of one task from the daemon's answer resp (NULL: the task has
 * no reference); check is the run's key (reference_key), copied in. NULL
 * when out of memory. */
json_t *reference_record(const struct ds_task *t, const json_t *resp, const json_t *check,
			 const char *time);
/* Whether a record says the reference does not pass in this environment:
 * anything but "pass" and REF_NONE. */
bool reference_broken(const json_t *rec);
/* What decides a reference's result, kept in each record ("check") so a
 * later run reuses only records made the same way. */
json_t *reference_key(const char *dataset_sha256, enum ds_format f, const json_t *limits,
		      long long seed, bool seed_per_task, const json_t *ping);
/* The records of path whose "check" equals key, by task id (later lines
 * win); *stale counts the others. A missing file is empty. Bad lines are
 * reported to warn and skipped. NULL when out of memory or unreadable,
 * with err. */
json_t *reference_load(const char *path, const json_t *key, FILE *warn, size_t *stale, char *err,
		       size_t errlen);
/* path rewritten (tmp file + rename) to hold exactly the records of byid. */
int reference_rewrite(const char *path, const json_t *byid, char *err, size_t errlen);
/* The summary's "reference" object from the records of the selected tasks
 * (byid): checked, passed, broken, unchecked counts and the broken tasks,
 * [{"task_id", "verdict", "reason"}] in the order of ids, excluded or kept. */
json_t *reference_summary(const json_t *byid, const char *const *ids, size_t n, bool keep_broken);
/* The lines the printed table gets for a summary's "reference" object and
 * the count of tasks scored. */
void reference_print(const json_t *summary, size_t scored, FILE *f);
/* Tasks a score table is over: the most any setting has. */
struct score_table;
size_t reference_scored(const struct score_table *t);

#endif
