/* A request's fetch_files: the files the job wrote under /work, read from
 * the descriptor the jail kept of it (sandboxd/jail/workfiles.c) once the
 * run is over, each as {"base64": …} or {"error": why}. */
#include <stdlib.h>

#include "common/base64.h"
#include "sandboxd/jail/workfiles.h"
#include "sandboxd/run/run_priv.h"

size_t fetch_budget(const struct config *cfg)
{
	size_t quarter = cfg->max_response / 4;
	return quarter < PROTO_FETCH_MAX_BYTES ? quarter : PROTO_FETCH_MAX_BYTES;
}

static json_t *fetch_error(const char *why)
{
	return json_pack("{s:s}", R_FILE_ERROR, why);
}

json_t *fetch_json(const struct config *cfg, const struct job *j, const struct jail_result *r)
{
	json_t *o = json_object();
	size_t left = fetch_budget(cfg);
	for (size_t i = 0; o && i < j->req.nfetch; i++) {
		const char *path = j->req.fetch[i];
		char why[160], *data = NULL;
		size_t len = 0;
		json_t *v = NULL;
		if (!r->have_work) {
			/* No notify listener (the moment the payload runs is not
			 * seen), or the job was gone before it was. */
			v = fetch_error("the job's /work was not kept");
		} else if (workfiles_read(r->work_fd, path, left, &data, &len, why, sizeof why) <
			   0) {
			v = fetch_error(why);
		} else {
			char *enc = malloc(b64_encoded_len(len) + 1);
			if (enc) {
				b64_encode((const unsigned char *)data, len, enc);
				v = json_pack("{s:s}", F_FILE_BASE64, enc);
				left -= len;
			}
			free(enc);
			free(data);
		}
		if (!v || json_object_set_new(o, path, v) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}
