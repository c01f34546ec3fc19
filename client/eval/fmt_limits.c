/* Per-format default limits (fmt_limits.h). The numbers are measured:
 * docs/eval.md, "Limits", has the BigCodeBench sample they come from. */
#include "client/eval/fmt_limits.h"

#include "client/eval/eval_priv.h"

#include <stdio.h>
#include <string.h>

/* -1: the daemon's profile default. */
struct fmt_default {
	long cpu_ms, wall_ms, memory_mb, pids;
};

/* BigCodeBench: its harness gives a task 240 s and no memory limit;
 * BigCodeBench/0 alone needs 10.3 s CPU and 502 MB, others spawn pools and
 * threads. The wall limit is twice the CPU one so that a loaded machine
 * (the daemon's workers share CPUs) does not turn a pass into a timeout.
 * The other formats' harnesses allow less than the profile defaults
 * (HumanEval 3 s per task), so those stay. */
static const struct fmt_default defaults[DS_COUNT] = {
    [DS_BIGCODEBENCH] = {240000, 480000, 4096, 256},
    [DS_HUMANEVAL] = {-1, -1, -1, -1},
    [DS_MBPP] = {-1, -1, -1, -1},
    [DS_STDIO] = {-1, -1, -1, -1},
};

static unsigned set_default(struct proto_limits *l, const char *name, long v)
{
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		if (strcmp(proto_limit_names[i], name) != 0)
			continue;
		long *p = proto_limit_ref(l, i);
		if (v <= 0 || *p > 0)
			return 0;
		*p = v;
		return 1u << i;
	}
	return 0;
}

unsigned fmt_limits_apply(enum ds_format f, long memory_budget_mb, struct proto_limits *l)
{
	if ((int)f < 0 || f >= DS_COUNT)
		return 0;
	struct fmt_default d = defaults[f];
	if (d.memory_mb > 0 && memory_budget_mb > 0 && memory_budget_mb < d.memory_mb)
		d.memory_mb = memory_budget_mb;
	unsigned mask = 0;
	/* The user's --cpu alone already raises the wall limit in the daemon
	 * (twice cpu_ms); a default wall limit must not cut that short. */
	if (l->cpu_ms > 0 && l->wall_ms <= 0 && d.wall_ms > 0 && d.wall_ms < 2 * l->cpu_ms)
		d.wall_ms = 2 * l->cpu_ms;
	mask |= set_default(l, "cpu_ms", d.cpu_ms);
	mask |= set_default(l, "wall_ms", d.wall_ms);
	mask |= set_default(l, "memory_mb", d.memory_mb);
	mask |= set_default(l, "pids", d.pids);
	return mask;
}

json_t *fmt_limits_names(unsigned mask)
{
	json_t *a = json_array();
	for (int i = 0; a && i < PROTO_NLIMITS; i++)
		if ((mask & (1u << i)) &&
		    json_array_append_new(a, json_string(proto_limit_names[i])))
			break;
	return a;
}

void fmt_limits_describe(const struct proto_limits *l, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < PROTO_NLIMITS && n < len; i++) {
		long v = proto_limit_get(l, i);
		if (v <= 0)
			continue;
		int w =
		    snprintf(buf + n, len - n, "%s%s %ld", n ? ", " : "", proto_limit_names[i], v);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (!n)
		snprintf(buf, len, "the daemon's defaults");
}

void fmt_limits_opts(struct eval_opts *o, const json_t *ping, const char *who)
{
	json_int_t budget = json_integer_value(json_object_get(ping, P_MEMORY_BUDGET_MB));
	o->limits_defaulted = fmt_limits_apply(o->format, (long)budget, &o->limits);
	char desc[256];
	fmt_limits_describe(&o->limits, desc, sizeof desc);
	/* Said once per run, so a timeout in the results can be read against
	 * the limit that produced it. */
	fprintf(stderr, "%s: limits: %s%s%s%s\n", who, desc,
		o->limits_defaulted ? " (defaults for " : "",
		o->limits_defaulted ? ds_format_name(o->format) : "",
		o->limits_defaulted ? ")" : "");
	if (o->limits_defaulted)
		fprintf(stderr,
			"%s: (--cpu, --wall and --memory override them; the daemon clamps "
			"to its profile's maxima)\n",
			who);
}
