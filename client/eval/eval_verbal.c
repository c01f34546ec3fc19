/* Verbal feedback that a resume asks late. No verbal-feedback call is made
 * after a run's last turn (eval_turn_wants_verbal: nobody would read it),
 * so when a run is resumed with a larger --turns, the old last turn of an
 * unsolved task lacks the text its next turn now needs: it is asked before
 * that turn, and the record is rewritten with it when the run ends. */
#include "client/eval/eval_priv.h"

#include <string.h>

#include "common/errfmt.h"

bool eval_verbal_missing(const struct eval_ctx *c, const struct eval_item *it, const json_t *r,
			 int turn)
{
	const char *text =
	    json_string_value(json_object_get(json_object_get(r, K_FEEDBACK), K_FB_VERBAL));
	return !json_is_true(json_object_get(r, K_CARRIED)) &&
	       !json_is_string(json_object_get(r, K_GEN_ERROR)) &&
	       !json_is_string(json_object_get(r, K_VERBAL_ERROR)) && !(text && *text) &&
	       eval_turn_wants_verbal(c, it, r, turn);
}

int eval_verbal_deferred(struct eval_ctx *c, const struct eval_item *it, json_t *r, int turn,
			 char *err, size_t errlen)
{
	if (!eval_turn_verbal(c, it, turn, r)) {
		errfmt(err, errlen, "interrupted");
		return EVAL_INTERRUPTED;
	}
	pthread_mutex_lock(&c->mu);
	if (!c->verbal_patches)
		c->verbal_patches = json_array();
	int rc = json_array_append(c->verbal_patches, r);
	pthread_mutex_unlock(&c->mu);
	if (rc < 0) {
		errfmt(err, errlen, "out of memory");
		return EVAL_FAILED;
	}
	return 0;
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
