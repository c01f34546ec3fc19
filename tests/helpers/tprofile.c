/* The profile the daemon under test loads (see tprofile.h). */
#include "tests/helpers/tprofile.h"
#include "tests/helpers/daemon.h"

#include "common/protocol.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

json_t *tprofile_defaults, *tprofile_max;

static const char *profile_path(void)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/../policies/python.json", td_build_dir());
	return path;
}

int tprofile_load(void)
{
	const char *path = profile_path();
	json_error_t je;
	json_t *p = json_load_file(path, 0, &je);
	json_t *l = json_object_get(p, "limits");
	tprofile_defaults = json_incref(json_object_get(l, "default"));
	tprofile_max = json_incref(json_object_get(l, "max"));
	json_decref(p);
	if (!json_is_object(tprofile_defaults) || !json_is_object(tprofile_max)) {
		fprintf(stderr, "%s: cannot read limits from %s: %s\n",
			program_invocation_short_name, path, je.text);
		return -1;
	}
	/* stdio's case limits, when the profile leaves them out, are what a
	 * response shows: the whole limits (docs/protocol.md). */
	json_t *both[2] = {tprofile_defaults, tprofile_max};
	for (int i = 0; i < 2; i++) {
		if (!json_object_get(both[i], L_CASE_CPU_MS))
			json_object_set(both[i], L_CASE_CPU_MS, json_object_get(both[i], L_CPU_MS));
		if (!json_object_get(both[i], L_CASE_WALL_MS))
			json_object_set(both[i], L_CASE_WALL_MS,
					json_object_get(both[i], L_WALL_MS));
	}
	/* What the daemon fills in when the profile names no cpus limit
	 * (sandboxd/policy/profile.c): one CPU, at most the usable ones. */
	if (!json_object_get(tprofile_defaults, "cpus"))
		json_object_set_new(tprofile_defaults, "cpus", json_integer(1));
	if (!json_object_get(tprofile_max, "cpus"))
		json_object_set_new(tprofile_max, "cpus", json_integer(td_usable_cpus()));
	return 0;
}

void tprofile_free(void)
{
	json_decref(tprofile_defaults);
	json_decref(tprofile_max);
	tprofile_defaults = tprofile_max = NULL;
}

const char *tprofile_python(void)
{
	static char py[PATH_MAX];
	json_t *p = json_load_file(profile_path(), 0, NULL);
	const char *i = json_string_value(json_object_get(p, "interpreter"));
	snprintf(py, sizeof py, "%s", i && *i ? i : "/usr/bin/python3");
	json_decref(p);
	return py;
}
