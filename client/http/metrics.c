/* Counters for GET /metrics (Prometheus text format 0.0.4): HTTP requests by
 * route and status, jobs by verdict, busy replies, the job latency as the
 * front saw it, and the daemon's phase timings summed per phase. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/http/http.h"
#include "common/protocol.h"

#define METRICS_ROUTES 12
#define METRICS_CODES 8
#define METRICS_VERDICTS 12
#define METRICS_PHASES 11

static const double g_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
				   1,	  2.5,	5,     10,   30,  60,	120};
#define NBUCKETS (sizeof g_buckets / sizeof g_buckets[0])
static const unsigned g_codes[METRICS_CODES] = {200, 400, 401, 404, 405, 413, 502, 504};
static const char *const g_phases[METRICS_PHASES] = {
    TM_ACCEPT_US, TM_QUEUE_US, TM_SETUP_HOST_US, TM_SETUP_JAIL_US, TM_START_US,	  TM_USER_CODE_US,
    TM_TESTS_US,  TM_EXIT_US,  TM_RUN_US,	 TM_TEARDOWN_US,   TM_RESPONSE_US};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_routes[METRICS_ROUTES][24];
static unsigned long long g_req[METRICS_ROUTES][METRICS_CODES + 1];
static char g_verdicts[METRICS_VERDICTS][24];
static unsigned long long g_jobs[METRICS_VERDICTS];
static unsigned long long g_busy, g_lat_count, g_lat_bucket[NBUCKETS];
static double g_lat_sum;
static double g_phase_sum[METRICS_PHASES];
static unsigned long long g_phase_count[METRICS_PHASES];

/* The slot of name in a fixed table (added when new and there is room). */
static int metrics_slot(char (*names)[24], int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		if (!names[i][0]) {
			snprintf(names[i], sizeof names[i], "%s", name);
			return i;
		}
		if (strcmp(names[i], name) == 0)
			return i;
	}
	return -1;
}

void metrics_request(const char *route, unsigned status)
{
	int c = METRICS_CODES;
	for (int i = 0; i < METRICS_CODES; i++)
		if (g_codes[i] == status)
			c = i;
	pthread_mutex_lock(&g_mu);
	int r = metrics_slot(g_routes, METRICS_ROUTES, route);
	if (r >= 0)
		g_req[r][c]++;
	pthread_mutex_unlock(&g_mu);
}

void metrics_busy(void)
{
	pthread_mutex_lock(&g_mu);
	g_busy++;
	pthread_mutex_unlock(&g_mu);
}

void metrics_job(const json_t *resp, double seconds)
{
	const char *v = json_string_value(json_object_get(resp, R_VERDICT));
	const char *code =
	    json_string_value(json_object_get(json_object_get(resp, R_ERROR), R_ERROR_CODE));
	char name[24];
	snprintf(name, sizeof name, "%s%s", v ? "" : "error:", v ? v : code ? code : "none");
	const json_t *tm = json_object_get(resp, F_TIMING);
	pthread_mutex_lock(&g_mu);
	int s = metrics_slot(g_verdicts, METRICS_VERDICTS, name);
	if (s >= 0)
		g_jobs[s]++;
	if (v) {
		g_lat_count++;
		g_lat_sum += seconds;
		for (size_t i = 0; i < NBUCKETS; i++)
			g_lat_bucket[i] += seconds <= g_buckets[i];
	}
	for (int i = 0; i < METRICS_PHASES && tm; i++) {
		const json_t *p = json_object_get(tm, g_phases[i]);
		if (json_is_integer(p)) {
			g_phase_sum[i] += (double)json_integer_value(p) / 1e6;
			g_phase_count[i]++;
		}
	}
	pthread_mutex_unlock(&g_mu);
}

struct mbuf {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void mb_add(struct mbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t ncap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
		char *ns = realloc(b->s, ncap);
		if (!ns)
			return;
		b->s = ns;
		b->cap = ncap;
	}
}

char *metrics_render(const json_t *ping)
{
	struct mbuf b = {0};
	pthread_mutex_lock(&g_mu);
	mb_add(&b, "# HELP sandboxd_http_requests_total HTTP requests by route and status.\n"
		   "# TYPE sandboxd_http_requests_total counter\n");
	for (int r = 0; r < METRICS_ROUTES && g_routes[r][0]; r++)
		for (int c = 0; c <= METRICS_CODES; c++)
			if (g_req[r][c])
				mb_add(&b,
				       "sandboxd_http_requests_total{route=\"%s\",code=\"%s%u\"} "
				       "%llu\n",
				       g_routes[r], c == METRICS_CODES ? "other" : "",
				       c == METRICS_CODES ? 0 : g_codes[c], g_req[r][c]);
	mb_add(&b, "# HELP sandboxd_http_jobs_total Jobs answered, by verdict (error:CODE for "
		   "error replies).\n# TYPE sandboxd_http_jobs_total counter\n");
	for (int s = 0; s < METRICS_VERDICTS && g_verdicts[s][0]; s++)
		mb_add(&b, "sandboxd_http_jobs_total{verdict=\"%s\"} %llu\n", g_verdicts[s],
		       g_jobs[s]);
	mb_add(&b,
	       "# HELP sandboxd_http_busy_total Busy replies from the daemon (HTTP 504 or a "
	       "batch retry).\n# TYPE sandboxd_http_busy_total counter\n"
	       "sandboxd_http_busy_total %llu\n",
	       g_busy);
	mb_add(&b, "# HELP sandboxd_http_job_seconds Job latency through the front.\n"
		   "# TYPE sandboxd_http_job_seconds histogram\n");
	for (size_t i = 0; i < NBUCKETS; i++)
		mb_add(&b, "sandboxd_http_job_seconds_bucket{le=\"%g\"} %llu\n", g_buckets[i],
		       g_lat_bucket[i]);
	mb_add(&b,
	       "sandboxd_http_job_seconds_bucket{le=\"+Inf\"} %llu\n"
	       "sandboxd_http_job_seconds_sum %.6f\nsandboxd_http_job_seconds_count %llu\n",
	       g_lat_count, g_lat_sum, g_lat_count);
	mb_add(&b, "# HELP sandboxd_http_phase_seconds The daemon's phase timings of /run_code "
		   "jobs.\n# TYPE sandboxd_http_phase_seconds summary\n");
	for (int i = 0; i < METRICS_PHASES; i++)
		mb_add(&b,
		       "sandboxd_http_phase_seconds_sum{phase=\"%.*s\"} %.6f\n"
		       "sandboxd_http_phase_seconds_count{phase=\"%.*s\"} %llu\n",
		       (int)(strlen(g_phases[i]) - 3), g_phases[i], g_phase_sum[i],
		       (int)(strlen(g_phases[i]) - 3), g_phases[i], g_phase_count[i]);
	pthread_mutex_unlock(&g_mu);
	mb_add(&b,
	       "# HELP sandboxd_up Whether the daemon answered a ping.\n# TYPE sandboxd_up gauge\n"
	       "sandboxd_up %d\n",
	       ping && json_object_get(ping, P_VERSION) ? 1 : 0);
	const char *gauges[][2] = {{P_QUEUED, "sandboxd_queue_depth"},
				   {P_RUNNING, "sandboxd_running"},
				   {P_WORKERS, "sandboxd_workers"},
				   {P_MEMORY_BUDGET_MB, "sandboxd_memory_budget_mb"},
				   {P_MEMORY_ADMITTED_MB, "sandboxd_memory_admitted_mb"}};
	for (size_t i = 0; ping && i < sizeof gauges / sizeof gauges[0]; i++) {
		const json_t *v = json_object_get(ping, gauges[i][0]);
		if (json_is_integer(v))
			mb_add(&b, "# TYPE %s gauge\n%s %lld\n", gauges[i][1], gauges[i][1],
			       (long long)json_integer_value(v));
	}
	return b.s;
}
