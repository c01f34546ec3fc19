/* A worker thread takes a job, gives it a fresh cgroup and jail, turns what
 * happened into exactly one verdict, and posts the response line. */
#include "worker.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../common/log.h"

struct worker {
	pthread_t tid;
	int slot;
};

static const struct config *g_cfg;
static struct runq *g_q;
static worker_post_fn g_post;
static struct worker *g_workers;
static int g_nworkers;
static atomic_uint_fast64_t g_seq;

enum proto_verdict worker_verdict(const struct jail_result *r, const struct cg_stats *st,
				  bool have_stats, enum proto_limit_hit *hit, char *msg,
				  size_t msglen)
{
	int sig = r->have_status && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	bool exited0 = r->have_status && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
	*hit = r->hit;
	msg[0] = '\0';
	/* A limit the daemon enforced itself is the first cause: it killed the job. */
	if (r->hit == HIT_CPU || r->hit == HIT_WALL) {
		snprintf(msg, msglen, "%s time limit exceeded", r->hit == HIT_CPU ? "CPU" : "wall");
		return V_TIMEOUT;
	}
	if (r->hit == HIT_OUTPUT) {
		snprintf(msg, msglen, "output limit exceeded");
		return V_OUTPUT_LIMIT;
	}
	if (r->violation_nr >= 0) {
		char name[64];
		scmp_syscall_name(r->violation_nr, name, sizeof name);
		snprintf(msg, msglen, "forbidden syscall %s", name);
		return V_VIOLATION;
	}
	if (have_stats && st->oom_kills > 0 && !exited0) {
		*hit = HIT_MEMORY;
		snprintf(msg, msglen, "memory limit exceeded (OOM kill)");
		return V_MEMORY_LIMIT;
	}
	if (r->error[0] && !r->have_status) {
		snprintf(msg, msglen, "%s", r->error);
		return V_ERROR;
	}
	if (!r->have_status) {
		snprintf(msg, msglen, "the job's init ended without reporting");
		return V_ERROR;
	}
	if (sig == SIGSYS) {
		snprintf(msg, msglen, "forbidden syscall (killed by SIGSYS)");
		return V_VIOLATION;
	}
	/* RLIMIT_CPU (the backstop) sends SIGXCPU, then SIGKILL at the hard limit. */
	uint64_t ru_cpu_ms = (uint64_t)(r->ru.ru_utime.tv_sec + r->ru.ru_stime.tv_sec) * 1000u +
			     (uint64_t)(r->ru.ru_utime.tv_usec + r->ru.ru_stime.tv_usec) / 1000u;
	if (sig == SIGXCPU || (sig == SIGKILL && ru_cpu_ms >= (uint64_t)r->cpu_limit_ms)) {
		*hit = HIT_CPU;
		snprintf(msg, msglen, "CPU time limit exceeded (RLIMIT_CPU)");
		return V_TIMEOUT;
	}
	if (sig == SIGXFSZ) {
		*hit = HIT_FILE_SIZE;
		snprintf(msg, msglen, "file size limit exceeded");
		return V_OUTPUT_LIMIT;
	}
	if (have_stats && st->pids_max_hit > 0 && !exited0)
		*hit = HIT_PIDS;
	if (exited0)
		return V_PASS;
	if (sig)
		snprintf(msg, msglen, "killed by signal %d (%s)%s", sig, strsignal(sig),
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	else
		snprintf(msg, msglen, "exited with status %d%s", WEXITSTATUS(r->status),
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	return V_RUNTIME_ERROR;
}

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
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", L_MEMORY_MB, cg ? v : "RLIMIT_AS", L_PIDS,
			 cg ? v : "RLIMIT_NPROC", L_CPU_MS, cpu, L_WALL_MS, "daemon", L_OUTPUT_KB,
			 "daemon", L_TMPFS_MB, "tmpfs size + RLIMIT_FSIZE");
}

static char *build_response(const struct job *j, const struct jail_result *r,
			    const struct cg_stats *st, bool have_stats, bool cg,
			    enum proto_verdict *v_out, json_t **usage_out)
{
	enum proto_limit_hit hit;
	char msg[256];
	enum proto_verdict v = worker_verdict(r, st, have_stats, &hit, msg, sizeof msg);
	*v_out = v;
	bool exited = r->have_status && WIFEXITED(r->status);
	bool signaled = r->have_status && WIFSIGNALED(r->status);
	uint64_t ru_cpu_us = (uint64_t)(r->ru.ru_utime.tv_sec + r->ru.ru_stime.tv_sec) * 1000000u +
			     (uint64_t)(r->ru.ru_utime.tv_usec + r->ru.ru_stime.tv_usec);
	uint64_t cpu_ms = r->cpu_ns ? r->cpu_ns / 1000000u : ru_cpu_us / 1000u;
	uint64_t mem_kb = have_stats && st->memory_peak ? st->memory_peak / 1024u
							: (uint64_t)r->ru.ru_maxrss;
	json_t *usage = json_pack("{s:I,s:I,s:I}", U_CPU_MS, (json_int_t)cpu_ms, U_WALL_MS,
				  (json_int_t)(r->wall_ns / 1000000u), U_MEMORY_KB,
				  (json_int_t)mem_kb);
	json_t *o = json_object();
	json_object_set_new(o, F_ID, json_string(j->req.id));
	json_object_set_new(o, R_VERDICT, json_string(proto_verdict_name(v)));
	json_object_set_new(o, R_EXIT_CODE,
			    exited ? json_integer(WEXITSTATUS(r->status)) : json_null());
	json_object_set_new(o, R_SIGNAL, signaled ? json_integer(WTERMSIG(r->status)) : json_null());
	json_object_set_new(o, R_STDOUT, proto_json_bytes(r->out ? r->out : "", r->out_len));
	json_object_set_new(o, R_STDERR, proto_json_bytes(r->err ? r->err : "", r->err_len));
	json_object_set_new(o, R_STDOUT_TRUNC, json_boolean(r->out_trunc));
	json_object_set_new(o, R_STDERR_TRUNC, json_boolean(r->err_trunc));
	json_object_set_new(o, R_USAGE, usage);
	json_object_set_new(o, R_LIMITS, limits_json(&j->lim));
	const char *hn = proto_limit_hit_name(hit);
	json_object_set_new(o, R_LIMIT_HIT, hn ? json_string(hn) : json_null());
	if (v == V_VIOLATION && r->violation_nr >= 0) {
		char name[64];
		scmp_syscall_name(r->violation_nr, name, sizeof name);
		json_object_set_new(o, R_VIOLATION, json_pack("{s:s,s:i}", "syscall", name, "nr",
							      r->violation_nr));
	} else {
		json_object_set_new(o, R_VIOLATION, json_null());
	}
	json_object_set_new(o, R_MESSAGE, json_string(msg));
	json_object_set_new(o, R_ENFORCEMENT, enforcement_json(g_cfg, cg));
	*usage_out = json_incref(usage);
	char *line = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return line;
}

static void run_job(struct worker *w, struct job *j)
{
	const struct config *cfg = g_cfg;
	struct cg_job cgj;
	struct cg_stats st = {0};
	struct jail_result r;
	struct jail_spec spec;
	char err[256];
	bool use_cg = cfg->cg.version != CG_NONE;
	bool have_cg = false, have_stats = false;
	uid_t uid = cfg->uid_base + (uid_t)w->slot;
	memset(&r, 0, sizeof r);
	if (use_cg) {
		char name[64];
		snprintf(name, sizeof name, "job-%d-%" PRIuFAST64, w->slot, atomic_fetch_add(&g_seq, 1));
		struct cg_limits cl = {.memory_bytes = (uint64_t)j->lim.memory_mb << 20,
				       .pids = (uint64_t)j->lim.pids};
		have_cg = cg_job_create(&cfg->cg, name, &cl, &cgj, err, sizeof err) == 0;
		if (!have_cg)
			snprintf(r.error, sizeof r.error, "cgroup: %.200s", err);
	}
	if (!use_cg || have_cg) {
		jail_spec_init(&spec, j->prof, &j->lim, &j->req, uid, (gid_t)uid, cfg->root_dir,
			       have_cg);
		jail_run(&spec, have_cg ? &cgj : NULL, j->cancel_fd, &r);
	}
	if (have_cg) {
		have_stats = cg_job_stats(&cgj, &st) == 0;
		if (cg_job_kill(&cgj, 2000) < 0)
			r.leftover = true;
		cg_job_destroy(&cgj);
	}
	if (r.leftover)
		log_msg("job %s: processes remained after the kill (slot %d)", j->req.id, w->slot);
	if (r.cancelled) {
		log_msg("job %s cancelled: client gone", j->req.id);
		jail_result_free(&r);
		return;
	}
	enum proto_verdict v;
	json_t *usage = NULL;
	char *line = build_response(j, &r, &st, have_stats, have_cg, &v, &usage);
	char *u = usage ? json_dumps(usage, JSON_COMPACT) : NULL;
	log_msg("job %s: %s %s%s%s", j->req.id, proto_verdict_name(v), u ? u : "",
		r.error[0] ? " " : "", r.error);
	free(u);
	json_decref(usage);
	jail_result_free(&r);
	if (!line)
		line = proto_error_line(j->req.id, E_INTERNAL, "could not encode the response");
	if (line)
		g_post(j->conn_id, line);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *j;
	while ((j = runq_pop(g_q))) {
		run_job(w, j);
		runq_done(g_q, j);
		job_free(j);
	}
	return NULL;
}

int workers_start(const struct config *cfg, struct runq *q, worker_post_fn post)
{
	g_cfg = cfg;
	g_q = q;
	g_post = post;
	g_workers = calloc((size_t)cfg->workers, sizeof *g_workers);
	if (!g_workers)
		return -1;
	for (int i = 0; i < cfg->workers; i++) {
		g_workers[i].slot = i;
		if (pthread_create(&g_workers[i].tid, NULL, worker_main, &g_workers[i]) != 0)
			return -1;
		g_nworkers++;
	}
	return 0;
}

void workers_join(void)
{
	for (int i = 0; i < g_nworkers; i++)
		pthread_join(g_workers[i].tid, NULL);
	free(g_workers);
	g_workers = NULL;
	g_nworkers = 0;
}
