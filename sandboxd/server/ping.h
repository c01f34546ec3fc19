/* The answer to a ping: the daemon's versions, its load, its fork servers
 * and what a job of each profile finds (docs/protocol.md, "Responses"). */
#ifndef SBX_PING_H
#define SBX_PING_H

#include "sandboxd/config.h"
#include "sandboxd/server/runq.h"

/* The response line (no newline; caller frees); NULL without memory. */
char *ping_line(const struct config *cfg, struct runq *q, const char *id);

#endif
