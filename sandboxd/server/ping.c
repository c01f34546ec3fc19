/* ping: answered by the server thread at once, from counters any thread
 * may read and the profiles' probe results (run_probe.c). */
#include "sandboxd/server/ping.h"

#include <jansson.h>

#include "sandboxd/run/run.h"

char *ping_line(const struct config *cfg, struct runq *q, const char *id)
{
	size_t queued, running;
	runq_counts(q, &queued, &running);
	long wrss, wkept, wready = run_warm_ready(&wrss, &wkept);
	json_t *profiles = run_probe_json(cfg);
	json_t *o = profiles
			? json_pack("{s:s,s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", F_ID, id,
				    P_VERSION, PROTO_VERSION, P_DAEMON_VERSION, SANDBOXD_VERSION,
				    P_WORKERS, cfg->workers, P_QUEUED, (json_int_t)queued,
				    P_RUNNING, (json_int_t)running, P_MEMORY_BUDGET_MB,
				    (json_int_t)cfg->memory_budget_mb, P_MEMORY_ADMITTED_MB,
				    (json_int_t)runq_memory_admitted(q), P_WARM_SERVERS,
				    (json_int_t)wkept, P_WARM_READY, (json_int_t)wready,
				    P_WARM_RSS_KB, (json_int_t)wrss, P_PROFILES, profiles)
			: NULL;
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
