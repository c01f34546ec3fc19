/* The profile the daemon under test loads: policies/python.json beside the
 * build directory ($SBX_BUILD/../policies, SBX_BUILD defaulting to build),
 * read once by the integration suites that compare a response with it. */
#ifndef SBX_TPROFILE_H
#define SBX_TPROFILE_H

#include <jansson.h>

/* Its limits.default and limits.max, once tprofile_load() returned 0; stdio
 * case limits the profile leaves out are filled as responses show them
 * (case_cpu_ms = cpu_ms, case_wall_ms = wall_ms). */
extern json_t *tprofile_defaults, *tprofile_max;

/* Reads both (a tmain_opts setup: 0, or -1 with the reason on stderr). */
int tprofile_load(void);
/* Drops them (a tmain_opts teardown). */
void tprofile_free(void);

/* The profile's interpreter, what the jail runs ("/usr/bin/python3" when
 * the profile cannot be read). */
const char *tprofile_python(void);

#endif
