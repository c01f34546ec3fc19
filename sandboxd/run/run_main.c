/* A "main" job's run (docs/protocol.md, "Seeds"): the in-jail runner runs
 * /work/main.py as a program, for a seeded plain run (run.c) and each stdio
 * case (plan.c); on its own so that neither file calls the other's. */
#include <string.h>

#include "sandboxd/feedback/runner_job.h"
#include "sandboxd/run/run_priv.h"

bool run_main_in(struct run_in *in, char key[REC_KEY_LEN + 1], const char *filename, long long seed)
{
	in->job_json = runner_job_key(key) == 0 ? runner_job_main(filename, seed) : NULL;
	if (!in->job_json)
		return false;
	in->job_len = strlen(in->job_json);
	in->key = key;
	in->seed = seed;
	in->main_py = true;
	return true;
}
