/* The response, built once from final values: the representative run's
 * output and exit, the usage, the verdict, and the test fields. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sandboxd/run/run_priv.h"

static json_t *limits_json(const struct proto_limits *l)
{
	json_t *o = json_object();
	for (int i = 0; i < PROTO_NLIMITS; i++)
		json_object_set_new(o, proto_limit_names[i], json_integer(proto_limit_get(l, i)));
	return o;
}

/* How each limit was enforced, so a client never has to guess whether a
 * memory limit was a cgroup or only an address-space rlimit. */
static json_t *enforcement_json(const struct config *cfg, bool cg)
{
	char v[32], cpu[48];
	snprintf(v, sizeof v, "cgroup %s", cg_version_name(cfg->cg.version));
	snprintf(cpu, sizeof cpu, "%s%s", cg ? v : "", cg ? " + RLIMIT_CPU" : "RLIMIT_CPU");
	/* Without a cgroup CPU cap nothing limits how many CPUs a job uses
	 * at once (cpu_ms still bounds the total). */
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", L_MEMORY_MB, cg ? v : "RLIMIT_AS",
			 L_PIDS, cg ? v : "RLIMIT_NPROC", L_CPU_MS, cpu, L_WALL_MS, "daemon",
			 L_OUTPUT_KB, "daemon", L_TMPFS_MB, "tmpfs size + RLIMIT_FSIZE",
			 L_CASE_CPU_MS, cpu, L_CASE_WALL_MS, "daemon", L_CPUS,
			 cg && cfg->cg.cpu_cap ? v : "none");
}

static json_t *response_usage(uint64_t cpu_ms, uint64_t wall_ms, uint64_t memory_kb)
{
	return json_pack("{s:I,s:I,s:I}", U_CPU_MS, (json_int_t)cpu_ms, U_WALL_MS,
			 (json_int_t)wall_ms, U_MEMORY_KB, (json_int_t)memory_kb);
}

json_t *response_build(const struct config *cfg, const struct job *j, const struct response_in *in)
{
	const struct run_facts *f = in->rep;
	const struct jail_result *r = &f->r;
	const struct run_verdict *v = in->verdict;
	bool exited = r->have_status && WIFEXITED(r->status);
	bool signaled = r->have_status && WIFSIGNALED(r->status);
	uint64_t u[3];
	if (in->usage)
		memcpy(u, in->usage, sizeof u);
	else
		run_facts_usage(f, &u[0], &u[1], &u[2]);
	json_t *resp = json_object();
	json_object_set_new(resp, F_ID, json_string(j->req.id));
	json_object_set_new(resp, R_VERDICT, json_string(proto_verdict_name(v->v)));
	json_object_set_new(resp, R_EXIT_CODE,
			    exited ? json_integer(WEXITSTATUS(r->status)) : json_null());
	json_object_set_new(resp, R_SIGNAL,
			    signaled ? json_integer(WTERMSIG(r->status)) : json_null());
	json_object_set_new(resp, R_STDOUT, proto_json_bytes(r->out ? r->out : "", r->out_len));
	json_object_set_new(resp, R_STDERR, proto_json_bytes(r->err ? r->err : "", r->err_len));
	json_object_set_new(resp, R_STDOUT_TRUNC, json_boolean(r->out_trunc));
	json_object_set_new(resp, R_STDERR_TRUNC, json_boolean(r->err_trunc));
	json_object_set_new(resp, R_USAGE, response_usage(u[0], u[1], u[2]));
	json_object_set_new(resp, R_LIMITS, limits_json(&j->lim));
	const char *hn = proto_limit_hit_name(v->hit);
	json_object_set_new(resp, R_LIMIT_HIT, hn ? json_string(hn) : json_null());
	json_t *viol = json_null();
	if (v->v == V_VIOLATION && r->violation_nr >= 0) {
		char name[64];
		scmp_syscall_name_arch(r->violation_arch, r->violation_nr, name, sizeof name);
		viol = json_pack("{s:s,s:i}", "syscall", name, "nr", r->violation_nr);
	}
	json_object_set_new(resp, R_VIOLATION, viol);
	json_object_set_new(resp, R_MESSAGE, json_string(v->msg));
	json_object_set_new(resp, R_ENFORCEMENT, enforcement_json(cfg, f->have_cg));
	json_object_set_new(resp, R_PATH, json_string(r->warm ? PATH_WARM : PATH_COLD));
	if (in->fb)
		fb_to_json(in->fb, &j->req, resp);
	if (j->req.nfetch) {
		json_t *files = fetch_json(cfg, j, r);
		if (!files || json_object_set_new(resp, R_FILES, files) < 0) {
			json_decref(resp);
			return NULL;
		}
	}
	if (in->timing) /* last: the response phase ends here */
		run_timing_json(in->timing, j, resp);
	return resp;
}
