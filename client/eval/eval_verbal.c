/* Verbal feedback that a resume asks late. No verbal-feedback call is made
 * after a run's last turn (nobody would read it), so when a run is resumed
 * with a larger --turns, the old last turn of an unsolved task lacks the
 * text its next turn now needs: eval_turn.c asks it before that turn, and
 * the record is rewritten with it here when the run ends (rewriting the log
 * once, not once per task). */
#include "client/eval/eval_priv.h"

int eval_verbal_queue(struct eval_ctx *c, const json_t *r)
{
	pthread_mutex_lock(&c->mu);
	if (!c->verbal_patches)
		c->verbal_patches = json_array();
	int rc = json_array_append(c->verbal_patches, (json_t *)r);
	pthread_mutex_unlock(&c->mu);
	return rc < 0 ? -1 : 0;
}

int eval_verbal_patch(struct eval_ctx *c, const char *turns_path, char *err, size_t errlen)
{
	if (!c->verbal_patches)
		return 0;
	int rc = ri_patch_records(turns_path, c->verbal_patches, err, errlen);
	json_decref(c->verbal_patches);
	c->verbal_patches = NULL;
	return rc;
}
