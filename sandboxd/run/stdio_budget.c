/* The response's share for a stdio request's per-case data and text
 * (run_priv.h, stdio_budget). */
#include "sandboxd/run/run_priv.h"

size_t stdio_budget(const struct config *cfg)
{
	size_t quarter = cfg->max_response / 4;
	return quarter < PROTO_STDIO_TEXT_TOTAL ? quarter : PROTO_STDIO_TEXT_TOTAL;
}
