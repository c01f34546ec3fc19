/* The two descriptions a warm job reads (warm_spec.c): its fork server's,
 * the template of the tree its jobs are forked ahead with, and its own. */
#ifndef SBX_WARM_SPEC_H
#define SBX_WARM_SPEC_H

#include <stdbool.h>

#include "sandboxd/jail/jail.h"

/* In the server, once: its own description from fd (the sealed memfd the
 * daemon wrote), as its jobs' would be (runner: it serves test requests).
 * False when there is none or it does not decode: then each job builds its
 * whole tree once it comes. */
bool warm_spec_template_load(int fd, bool runner);
/* The template, or NULL. After warm_spec_ahead only what mounts_same_tree
 * and mounts_finish read of it is left: the tree's paths and options. */
const struct jail_spec *warm_spec_template(void);

/* In the job forked ahead, once its tree is built from the template and
 * before its job comes: the job's own decoding rehearsed (the pages it
 * writes copied now), the memory its description is read into written
 * once, and the template's mapping removed, keeping what the job's
 * layers still compare. -1 when a copy could not be made. */
int warm_spec_ahead(void);

/* In the job: its own description, from the sealed memfd fd. NULL, or the
 * step that failed with errno set. */
const char *warm_spec_job(int fd, const struct jail_spec **out);

/* Before the job's code runs: neither description stays readable (a cold
 * job's is gone with its init's exec; the server's names the host's state
 * directory and holds the runner's bytes). */
void warm_spec_drop(void);

#endif
