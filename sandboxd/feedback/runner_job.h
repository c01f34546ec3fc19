/* What the in-jail runner is given: a job description and a fresh key that
 * marks its genuine result records. */
#ifndef SBX_RUNNER_JOB_H
#define SBX_RUNNER_JOB_H

#include "common/protocol.h"
#include "common/records.h"

/* The name the candidate's code is compiled under, in every format (the
 * reference harnesses' file name): its tracebacks show it. */
#define RUNNER_FILENAME "solution.py"

/* 32 hex characters from getrandom(); -1 when no randomness could be had. */
int runner_job_key(char key[REC_KEY_LEN + 1]);
/* The job description the runner reads from /sandboxd/job.json, for the
 * request's tests run as `format` (its own, or "compile"); caller frees. */
char *runner_job_json(const struct proto_request *req, const char *format);
/* A "main" job: the runner runs /work/main.py as a program, its code
 * compiled under `filename`, random and numpy seeded first when seed >= 0
 * (sbx_runner/script.py); caller frees. */
char *runner_job_main(const char *filename, long long seed);

#endif
