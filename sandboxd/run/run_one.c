/* One run of a job. This file is the only owner of a run's cgroup: it
 * creates it with the limits, lets the jail attach the job's init and read
 * its CPU time, sweeps it once after the init is gone, reads its counters
 * and removes it. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/clock.h"
#include "common/log.h"
#include "sandboxd/run/run_priv.h"

#define RUN_SWEEP_MS 2000 /* how long the cgroup may take to empty after the kill */

static int run_cg_attach(void *ctx, pid_t pid)
{
	return cg_job_attach(ctx, pid);
}

static int run_cg_cpu(void *ctx, uint64_t *ns)
{
	return cg_job_cpu_ns(ctx, ns);
}

static int run_cg_over_memory(void *ctx)
{
	return cg_job_over_memory(ctx);
}

static int run_cg_kill(void *ctx)
{
	return cg_job_kill_now(ctx);
}

/* The jail's plain description of the job: the profile's interpreter, binds
 * and filter, the request's code, stdin and files, the resolved limits. */
static struct jail_file *run_jail_job(const struct job *j, struct jail_job *jj)
{
	const struct profile *p = j->prof;
	const struct proto_request *req = &j->req;
	/* One allocation: the files, then the read-only paths (the profile's
	 * and the interpreter's /etc dir). */
	size_t nro = p->n_ro + (p->interpreter_etc[0] != '\0');
	struct jail_file *files =
	    calloc(1, (req->nfiles + 1) * sizeof *files + (nro + 1) * sizeof(char *));
	if (!files)
		return NULL;
	const char **ro = (const char **)(void *)(files + req->nfiles + 1);
	for (size_t i = 0; i < p->n_ro; i++)
		ro[i] = p->ro_paths[i];
	if (p->interpreter_etc[0])
		ro[p->n_ro] = p->interpreter_etc;
	for (size_t i = 0; i < req->nfiles; i++)
		files[i] =
		    (struct jail_file){req->files[i].path, req->files[i].data, req->files[i].len};
	*jj = (struct jail_job){.lim = {.cpu_ms = j->lim.cpu_ms,
					.wall_ms = j->lim.wall_ms,
					.memory_mb = j->lim.memory_mb,
					.pids = j->lim.pids,
					.output_kb = j->lim.output_kb,
					.tmpfs_mb = j->lim.tmpfs_mb,
					/* The CPU cap (limit key "cpus"): the cgroup's
					 * bandwidth and the CPU count /proc shows. */
					.cpus = j->lim.cpus > 0 ? j->lim.cpus : 1},
				.interpreter = p->interpreter,
				.args = (const char *const *)p->args,
				.nargs = p->nargs,
				.ro_paths = ro,
				.n_ro = nro,
				.seccomp = &p->seccomp,
				.code = req->code,
				.code_len = req->code_len,
				.stdin_data = req->stdin_data,
				.stdin_len = req->stdin_len,
				.files = files,
				.nfiles = req->nfiles};
	return files;
}

/* isolation "process": the grader gets the profile's interpreter options and
 * -s (no user site directory: /tmp, where HOME points, is shared with the
 * candidate, which could plant a .pth file there before the grader starts);
 * the candidate, the profile's options, the runner and "candidate". Its uid
 * is the slot's second one, uid_base + workers + slot. */
static int run_peer(const struct config *cfg, int slot, const struct job *j, struct jail_job *jj,
		    const char **gargs, const char **pargs)
{
	const struct profile *p = j->prof;
	if (p->nargs + 2 > JAIL_MAX_ARGS)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < p->nargs; i++)
		gargs[n++] = pargs[i] = p->args[i];
	gargs[n++] = "-s";
	pargs[p->nargs] = "/sandboxd/runner.py";
	pargs[p->nargs + 1] = "candidate";
	jj->args = gargs;
	jj->nargs = n;
	jj->peer_args = pargs;
	jj->npeer_args = p->nargs + 2;
	jj->peer_uid = cfg->uid_base + (uid_t)cfg->workers + (uid_t)slot;
	jj->peer_gid = (gid_t)jj->peer_uid;
	return 0;
}

static void run_in_jail(const struct config *cfg, int slot, const struct job *j,
			const struct run_in *in, struct cg_job *cgj, struct warm_server *w,
			struct run_facts *f)
{
	struct jail_job jj;
	struct jail_spec spec;
	const char *gargs[JAIL_MAX_ARGS], *pargs[JAIL_MAX_ARGS];
	uid_t uid = cfg->uid_base + (uid_t)slot + (in && in->probe ? (uid_t)cfg->workers : 0);
	struct jail_file *files = run_jail_job(j, &jj);
	if (files && in && in->cpu_ms > 0)
		jj.lim.cpu_ms = in->cpu_ms;
	if (files && in && in->wall_ms > 0)
		jj.lim.wall_ms = in->wall_ms;
	if (files && in && in->isolate && run_peer(cfg, slot, j, &jj, gargs, pargs) < 0) {
		free(files);
		files = NULL;
	}
	if (!files || jail_spec_init(&spec, &jj, uid, (gid_t)uid, cfg->root_dir, cgj != NULL) < 0) {
		snprintf(f->error, sizeof f->error, "cannot prepare the jail");
		free(files);
		return;
	}
	/* Both streams must fit one response, with room for its other fields. */
	spec.output_total = cfg->max_response > RUN_RESPONSE_HEADROOM
				? cfg->max_response - RUN_RESPONSE_HEADROOM
				: cfg->max_response / 2;
	/* fetch_files: /work is kept, and the files' share of the response. */
	if ((spec.keep_work = j->req.nfetch > 0))
		spec.output_total -= b64_encoded_len(fetch_budget(cfg));
	/* stdio: the first failing case's output shares the response with
	 * every case's outputs as data and its text (plan.c). */
	if (j->req.format == FMT_STDIO && spec.output_total > 2 * stdio_budget(cfg))
		spec.output_total -= 2 * stdio_budget(cfg);
	if (in && in->stdin_data) {
		spec.stdin_data = in->stdin_data;
		spec.stdin_len = in->stdin_len;
	}
	if (in && in->job_json) {
		jail_spec_use_runner(&spec, cfg->runner_src, cfg->runner_len, cfg->runner_sum,
				     in->job_json, in->job_len, in->key, in->seed);
		spec.main_py = in->main_py;
	}
	struct jail_cgroup cg = {run_cg_attach, run_cg_cpu, cgj, NULL, run_cg_kill};
	/* cgroup v1 lets TCP queue past the socket share of memory_mb: watched. */
	if (cgj && cgj->v1_mem_total)
		cg.over_memory = run_cg_over_memory;
	/* Forked from the slot's fork server when one fits; its tree is the
	 * source of the job's binds, and its /tmp is where the job's root is
	 * mounted before the pivot. */
	if (w) {
		spec.warm = true;
		spec.root_dir = "/tmp";
	}
	jail_run(&spec, w, cgj ? &cg : NULL, j->cancel_fd, in ? in->hooks : NULL, &f->r);
	if (w && f->r.warm_failed) { /* nothing of the job ran: cold, then */
		log_msg("job %s: fork server failed (%s); running it cold", j->req.id, f->r.error);
		jail_result_free(&f->r);
		spec.warm = false;
		spec.root_dir = cfg->root_dir;
		jail_run(&spec, NULL, cgj ? &cg : NULL, j->cancel_fd, in ? in->hooks : NULL, &f->r);
	}
	if (w)
		run_warm_done(cfg, slot, w);
	free(files);
}

void run_one(const struct config *cfg, int slot, const struct job *j, const struct run_in *in,
	     struct run_facts *f)
{
	struct cg_job cgj;
	char err[256];
	memset(f, 0, sizeof *f);
	f->r.violation_nr = -1;
	/* A fork server whose next job's pid 1 already waits in a cgroup of its
	 * own: that cgroup is this run's. */
	bool warm_cg = false;
	struct warm_server *w = run_warm_pick(cfg, slot, j, in, &cgj, &warm_cg);
	if (cfg->cg.version != CG_NONE) {
		struct cg_limits cl;
		run_cgpool_limits(j, &cl);
		f->have_cg = warm_cg ? cg_job_limit(&cgj, &cl, err, sizeof err) == 0
				     : run_cgpool_take(cfg, slot, &cl, &cgj, err, sizeof err) == 0;
		if (warm_cg && !f->have_cg) /* its pid 1 is in there: the server goes */
			run_warm_fail(cfg, slot, w, &cgj);
		if (!f->have_cg) {
			snprintf(f->error, sizeof f->error, "cgroup: %.200s", err);
			f->end_ns = clock_mono_ns();
			return;
		}
	}
	run_in_jail(cfg, slot, j, in, f->have_cg ? &cgj : NULL, f->have_cg || !warm_cg ? w : NULL,
		    f);
	if (!f->have_cg) {
		f->end_ns = clock_mono_ns();
		return;
	}
	/* The init is reaped, so its PID namespace is gone; the sweep catches
	 * anything that still shows in the cgroup, then the counters are final. */
	f->leftover = cg_job_kill(&cgj, RUN_SWEEP_MS) < 0;
	f->have_stats = cg_job_stats(&cgj, &f->st) == 0;
	run_cgpool_retire(slot, &cgj); /* removed once the response is out */
	f->end_ns = clock_mono_ns();
	if (f->leftover)
		log_msg("job %s: processes remained after the kill (slot %d)", j->req.id, slot);
}

void run_facts_free(struct run_facts *f)
{
	jail_result_free(&f->r);
}

uint64_t run_rusage_cpu_ms(const struct rusage *ru)
{
	return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000u +
	       (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000u;
}

void run_facts_usage(const struct run_facts *f, uint64_t *cpu_ms, uint64_t *wall_ms,
		     uint64_t *mem_kb)
{
	*cpu_ms =
	    f->have_stats && f->st.cpu_ns ? f->st.cpu_ns / 1000000u : run_rusage_cpu_ms(&f->r.ru);
	*wall_ms = f->r.wall_ns / 1000000u;
	*mem_kb = f->have_stats && f->st.memory_peak ? f->st.memory_peak / 1024u
						     : (uint64_t)f->r.ru.ru_maxrss;
}
