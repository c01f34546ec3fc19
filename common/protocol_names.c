/* The protocol's names (verdicts, limit keys, error codes, formats,
 * outcomes) and the small pieces both halves of request parsing use
 * (protocol.c, protocol_tests.c). */
#include "common/protocol.h"
#include "common/protocol_priv.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[V_COUNT] = {"pass",	    "fail",	 "compile_error",
						   "runtime_error", "timeout",	 "memory_limit",
						   "output_limit",  "violation", "error"};
static const char *const hit_names[HIT_COUNT] = {
    NULL, "cpu", "wall", "memory", "pids", "output", "file_size", "case_cpu", "case_wall"};
static const char *const err_names[E_COUNT] = {
    "bad_json",	      "bad_request", "too_large", "bad_limits", "bad_path",
    "unknown_policy", ERROR_BUSY,    "forbidden", "internal",	"shutting_down"};
static const char *const format_names[FMT_COUNT] = {NULL, "unittest", "humaneval", "asserts",
						    "stdio"};
static const char *const coverage_names[COV_COUNT] = {"full", "partial", "none"};
static const char *const isolation_names[ISO_COUNT] = {ISOLATION_NONE, ISOLATION_PROCESS};
static const char *const outcome_names[OUT_COUNT] = {"passed", "failed", "error", "timeout",
						     "skipped"};
const char *const proto_limit_names[PROTO_NLIMITS] = {L_CPU_MS,	     L_WALL_MS,	     L_MEMORY_MB,
						      L_PIDS,	     L_OUTPUT_KB,    L_TMPFS_MB,
						      L_CASE_CPU_MS, L_CASE_WALL_MS, L_CPUS};

const char *proto_verdict_name(enum proto_verdict v)
{
	return (unsigned)v < V_COUNT ? verdict_names[v] : "error";
}

const char *proto_limit_hit_name(enum proto_limit_hit h)
{
	return (unsigned)h < HIT_COUNT ? hit_names[h] : NULL;
}

const char *proto_errcode_name(enum proto_errcode e)
{
	return (unsigned)e < E_COUNT ? err_names[e] : "internal";
}

const char *proto_format_name(enum proto_format f)
{
	return (unsigned)f < FMT_COUNT ? format_names[f] : NULL;
}

const char *proto_coverage_name(enum proto_coverage c)
{
	return (unsigned)c < COV_COUNT ? coverage_names[c] : "full";
}

const char *proto_isolation_name(enum proto_isolation i)
{
	return (unsigned)i < ISO_COUNT ? isolation_names[i] : ISOLATION_NONE;
}

const char *proto_outcome_name(enum proto_outcome o)
{
	return (unsigned)o < OUT_COUNT ? outcome_names[o] : "error";
}

int proto_outcome_parse(const char *name)
{
	for (int i = 0; i < OUT_COUNT; i++)
		if (strcmp(name, outcome_names[i]) == 0)
			return i;
	return -1;
}

long *proto_limit_ref(struct proto_limits *l, int i)
{
	long *v[PROTO_NLIMITS] = {&l->cpu_ms,	   &l->wall_ms,	     &l->memory_mb,
				  &l->pids,	   &l->output_kb,    &l->tmpfs_mb,
				  &l->case_cpu_ms, &l->case_wall_ms, &l->cpus};
	return (i >= 0 && i < PROTO_NLIMITS) ? v[i] : NULL;
}

long proto_limit_get(const struct proto_limits *l, int i)
{
	return *proto_limit_ref((struct proto_limits *)l, i);
}

void proto_bounds_default(struct proto_bounds *b)
{
	b->max_line = 16u << 20;
	b->max_id = 256;
	b->max_files = 256;
	b->max_path = 255;
	b->max_depth = 16;
	b->max_tests = 10000;
}

int proto_fail(struct proto_error *err, enum proto_errcode code, const char *fmt, ...)
{
	va_list ap;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return -1;
}

char *proto_dup_string(const json_t *s, size_t *len)
{
	size_t n = json_string_length(s);
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, json_string_value(s), n);
	d[n] = '\0';
	if (len)
		*len = n;
	return d;
}
