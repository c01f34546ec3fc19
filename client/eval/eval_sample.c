/* `sbx eval --samples N --temperature T`: what makes the N episodes of a
 * task independent. Each generator input of sample s gets "sample" s and
 * its own "seed" (manifest_sample_seed: the same in every run, shard and
 * resume), and "temperature" T when given, for the generator to pass to the
 * model. The test runs keep the task's seed: the task's environment is the
 * same in every episode, only the model's answers differ. */
#include "client/eval/eval_priv.h"

#include "client/eval/manifest.h"

int eval_sample_input(const struct eval_ctx *c, const struct eval_item *it, json_t *in)
{
	int rc = 0;
	/* Without --samples the input stays as it was. */
	if (c->samples > 1) {
		rc |= json_object_set_new(in, "sample", json_integer(it->sample));
		rc |= json_object_set_new(in, "seed",
					  json_integer((json_int_t)manifest_sample_seed(
					      c->seed, it->task->id, it->sample)));
	}
	if (c->o->temperature >= 0)
		rc |= json_object_set_new(in, "temperature", json_real(c->o->temperature));
	return rc ? -1 : 0;
}
