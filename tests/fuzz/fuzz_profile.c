/* libFuzzer target: the policy loaders. The first byte picks the parser: a
 * sandboxd profile (limits, interpreter, paths) or an OCI seccomp profile.
 * Profiles are trusted configuration, but a malformed one must still fail
 * with a message, never crash the root daemon at start. Run from the repo
 * root (profiles name their seccomp file relative to policies/). */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandboxd/policy/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	char err[512] = "";
	if (data[0] & 1) {
		struct scmp_prog p;
		if (scmp_load_text("fuzz.seccomp.json", text, size - 1, false, &p, err,
				   sizeof err) == 0)
			scmp_prog_free(&p);
		else
			assert(err[0]);
	} else {
		struct profile p;
		if (profile_load_text("policies", "fuzz.json", text, false, &p, err, sizeof err) ==
		    0)
			profile_free(&p);
		else
			assert(err[0]);
	}
	free(text);
	return 0;
}
