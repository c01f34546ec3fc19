/* What the in-jail runner is given: a job description and a fresh key that
 * marks its genuine result records. */
#ifndef SBX_RUNNER_JOB_H
#define SBX_RUNNER_JOB_H

#include "common/protocol.h"
#include "common/records.h"

/* 32 hex characters from getrandom(); -1 when no randomness could be had. */
int runner_job_key(char key[REC_KEY_LEN + 1]);
/* The job description the runner reads from /sandboxd/job.json, for the
 * request's tests run as `format` (its own, or "compile"); caller frees. */
char *runner_job_json(const struct proto_request *req, const char *format);

#endif
