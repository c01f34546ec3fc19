/* Which fork servers each worker slot keeps, and which job may use one
 * (docs/architecture.md, "The warm path"). A slot has at most one server
 * per kind: one for plain runs (its script is a bootstrap named main.py)
 * and one for test requests (the runner). A server is made for one
 * profile and one hash seed: the str hash secret is fixed when an
 * interpreter starts, and a cold job with a request seed runs with
 * PYTHONHASHSEED set to it, so a job uses a server only when both match.
 * A job that matches no ready server runs cold; after two such jobs in a
 * row with the same profile and seed the server is rebuilt for them. Each
 * slot is used by one worker thread only: no locks. Servers' cgroups are
 * this file's, as a run's are run_one.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "common/log.h"
#include "sandboxd/jail/warm.h"
#include "sandboxd/run/run.h"
#include "sandboxd/run/run_priv.h"

/* Plain runs and test requests, each from a light server (the runner only)
 * and, when the profile preloads modules, a preloaded one: forking an
 * interpreter costs in proportion to what it holds, so a job that names
 * none of the preloaded modules is forked from the light one. Which one
 * changes only how fast a job starts, never what it computes. */
enum { WK_PLAIN, WK_RUNNER, WK_PLAIN_PRE, WK_RUNNER_PRE, WK_COUNT };
#define WK_IS_RUNNER(k) ((k)&1)
#define WK_IS_PRE(k) ((k) >= WK_PLAIN_PRE)
#define WARM_MEMORY_MB 2048 /* a server's cgroup: pandas and friends fit */
#define WARM_PIDS 64
#define WARM_MAX_FAILURES 3  /* starts in a row that failed: no more tries */
#define WARM_GROWTH_KB 65536 /* a server grown this much past its start is rebuilt */
#define WARM_NET_FAILURES 3  /* pooled network namespaces that failed: jobs make their own */
/* A server rebuilt for another seed or profile costs CPU no job pays for
 * (imports, calibration), and a client that alternates seeds could have
 * every slot rebuild all the time and keep others' jobs cold. So such a
 * rebuild away from the default waits until the slot's last one is
 * WARM_AWAY_RATIO times its CPU cost in the past (at least WARM_AWAY_MIN_MS):
 * at most about a tenth of a slot's time goes to them, counting the
 * rebuild back. A default request (the "python" profile, unseeded) takes
 * its server back at once, so no client can keep the others cold. */
#define WARM_AWAY_RATIO 20
#define WARM_AWAY_MIN_MS 1000
/* What a job's memory limit must leave above what its prepared processes
 * already use, or it runs cold (fits_prepared). */
#define WARM_MEM_ROOM (4u << 20)

struct slot_server {
	struct warm_server w;
	const struct profile *prof;
	long long key;
	struct cg_job cg;
	bool have_cg;
	long rss0;
	int failures;
	int net_failures; /* pooled network namespaces that could not be made */
	/* The cgroup the server's next job's pid 1 waits in (made and joined
	 * while the slot is idle; the run that takes the server takes it). */
	struct cg_job acg;
	bool have_acg;
	uint64_t placed_ns; /* when its next job's pid 1 was told to fork it ahead */
	/* Its last job's cgroup limits: the next job's cgroup gets them ahead
	 * (most clients ask the same of every job), and the job's own are
	 * written only where they differ. */
	struct cg_limits lim;
	bool have_lim;
	/* A preloaded server is started once the slot's light ones are ready:
	 * a daemon serves at once, and its first cold jobs do not compete
	 * with every server's imports at the same time. */
	bool deferred;
	const struct profile *miss_prof;
	long long miss_key;
	int misses;
	/* Started for another seed or profile (run_warm_pick): its CPU is
	 * counted once it is ready (note_built). */
	bool keyed;
};

static struct slot_server (*g_slots)[WK_COUNT];
static int g_nslots;
/* Per slot: no rebuild for another seed or profile before this time. */
static uint64_t *g_away_after;
/* Each server's resident KiB once ready, else -1: written by its slot's
 * worker, read by ping. */
static _Atomic long (*g_rss)[WK_COUNT];

#define WARM_NEXT_MS 200 /* how long a job waits for its server's next pid 1 */
/* How long after its pid 1 was placed a job forked ahead may take to say
 * it is ready before its slot counts as ready anyway (run_warm_ahead). */
#define WARM_AHEAD_MS 50

/* How many servers the workers keep (ping: warm_servers). */
static _Atomic long g_kept;

/* The plain server's main.py: it must be run as `python3 main.py` in /work
 * to have a cold run's argv, sys.path and __main__.__file__. */
static const char BOOT[] = "import sys\n"
			   "sys.path.insert(0, \"/sandboxd/runner.py\")\n"
			   "from sbx_runner import warm\n"
			   "del sys.path[0]\n"
			   "warm.serve()\n"
			   "warm.run_main()\n";

int run_warm_init(const struct config *cfg)
{
	g_nslots = cfg->workers;
	g_slots = calloc((size_t)g_nslots, sizeof *g_slots);
	g_rss = calloc((size_t)g_nslots, sizeof *g_rss);
	g_away_after = calloc((size_t)g_nslots, sizeof *g_away_after);
	if (!g_slots || !g_rss || !g_away_after)
		return -1;
	for (int i = 0; i < g_nslots; i++)
		for (int k = 0; k < WK_COUNT; k++) {
			warm_init(&g_slots[i][k].w);
			atomic_store(&g_rss[i][k], -1);
		}
	return 0;
}

static int warm_cg_attach(void *ctx, pid_t pid)
{
	return cg_job_attach(ctx, pid);
}

/* The server's figure for ping (slot_server -> its g_rss cell). */
static void note_rss(struct slot_server *ss)
{
	for (int i = 0; i < g_nslots; i++)
		for (int k = 0; k < WK_COUNT; k++)
			if (&g_slots[i][k] == ss)
				atomic_store(&g_rss[i][k], ss->w.ready ? warm_rss_kb(&ss->w) : -1);
}

/* A server started for another seed or profile is ready: the slot's next
 * such rebuild waits WARM_AWAY_RATIO times what this one cost (the CPU of
 * its cgroup, its imports and calibration; without cgroups the wall time
 * it took, which is no less). */
static void note_built(int slot, struct slot_server *ss)
{
	if (!ss->keyed)
		return;
	ss->keyed = false;
	uint64_t now = clock_mono_ns(), cost = now - ss->w.started_ns, cpu;
	if (ss->have_cg && cg_job_cpu_ns(&ss->cg, &cpu) == 0)
		cost = cpu;
	uint64_t gap = cost * WARM_AWAY_RATIO, floor = (uint64_t)WARM_AWAY_MIN_MS * 1000000u;
	uint64_t after = now + (gap > floor ? gap : floor);
	if (after > g_away_after[slot])
		g_away_after[slot] = after;
}

static void server_stop(struct slot_server *ss)
{
	warm_stop(&ss->w);
	note_rss(ss);
	if (ss->have_acg) {
		cg_job_kill(&ss->acg, 1000);
		cg_job_destroy(&ss->acg);
		ss->have_acg = false;
	}
	if (ss->have_cg) {
		cg_job_kill(&ss->cg, 1000);
		cg_job_destroy(&ss->cg);
	}
	ss->have_cg = false;
	ss->rss0 = 0;
}

/* The server's own description: {"kind", "preload"} (sbx_runner/warm.py). */
static void server_config(const struct profile *p, int kind, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "{\"kind\":\"%s\",\"preload\":[",
				    WK_IS_RUNNER(kind) ? "runner" : "plain");
	for (size_t i = 0; WK_IS_PRE(kind) && i < p->npreload && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", i ? "," : "", p->preload[i]);
	if (n < len)
		snprintf(buf + n, len - n, "]}");
}

static void server_start(const struct config *cfg, int slot, int kind, struct slot_server *ss,
			 const struct profile *p, long long key)
{
	char err[256], name[64], zjson[2048];
	server_stop(ss);
	ss->prof = p;
	ss->key = key;
	ss->keyed = false;
	if (ss->failures >= WARM_MAX_FAILURES)
		return;
	if (cfg->cg.version != CG_NONE) {
		/* Named apart from every job's and every earlier daemon's (a
		 * restarted daemon removes those as stale before it starts). */
		static atomic_uint g_gen;
		snprintf(name, sizeof name, "%s-warm%d-%d-%d-%u", cfg->cg.instance, slot, kind,
			 (int)getpid(), atomic_fetch_add(&g_gen, 1));
		struct cg_limits cl = {
		    .memory_bytes = (uint64_t)WARM_MEMORY_MB << 20, .pids = WARM_PIDS, .cpus = 1};
		ss->have_cg = cg_job_create(&cfg->cg, name, &cl, &ss->cg, err, sizeof err) == 0;
		if (!ss->have_cg) {
			log_msg("fork server %d/%d: cgroup: %s", slot, kind, err);
			ss->failures++;
			return;
		}
	}
	size_t nro = p->n_ro + (p->interpreter_etc[0] != '\0');
	const char *ro[PROFILE_MAX_RO + 2];
	for (size_t i = 0; i < p->n_ro; i++)
		ro[i] = p->ro_paths[i];
	if (p->interpreter_etc[0])
		ro[p->n_ro] = p->interpreter_etc;
	struct jail_file boot = {"main.py", BOOT, sizeof BOOT - 1};
	struct jail_job jj = {.lim = {.cpu_ms = p->defaults.cpu_ms,
				      .wall_ms = p->defaults.wall_ms,
				      .memory_mb = WARM_MEMORY_MB,
				      .pids = WARM_PIDS,
				      .output_kb = 64,
				      /* Its own /tmp holds nothing; the size is
				       * its jobs' default, which their trees,
				       * built ahead from this description, take
				       * without a remount (warm_fork.c). */
				      .tmpfs_mb = p->defaults.tmpfs_mb,
				      .cpus = 1},
			      .interpreter = p->interpreter,
			      .args = (const char *const *)p->args,
			      .nargs = p->nargs,
			      .ro_paths = ro,
			      .n_ro = nro,
			      .seccomp = &p->seccomp,
			      .files = WK_IS_RUNNER(kind) ? NULL : &boot,
			      .nfiles = !WK_IS_RUNNER(kind)};
	struct jail_spec spec;
	uid_t uid = cfg->uid_base + (uid_t)slot;
	if (jail_spec_init(&spec, &jj, uid, (gid_t)uid, cfg->root_dir, ss->have_cg) < 0) {
		ss->failures++;
		return;
	}
	server_config(p, kind, zjson, sizeof zjson);
	jail_spec_use_runner(&spec, cfg->runner_src, cfg->runner_len, cfg->runner_sum, zjson,
			     strlen(zjson), "", key);
	if (!WK_IS_RUNNER(kind))
		spec.argv[1 + p->nargs] = "main.py";
	spec.zygote = true;
	snprintf(spec.work_opts, sizeof spec.work_opts, "size=1m,nr_inodes=64,mode=0755");
	struct jail_cgroup cg = {warm_cg_attach, NULL, &ss->cg, NULL, NULL};
	spec.server_uid = cfg->uid_base + 2u * (uid_t)cfg->workers + (uid_t)slot;
	if (warm_start(&ss->w, &spec, ss->have_cg ? &cg : NULL, cfg->warm_lib_fd, err, sizeof err) <
	    0) {
		log_msg("fork server %d/%d: %s", slot, kind, err);
		ss->failures++;
		server_stop(ss);
	}
}

void run_warm_start(const struct config *cfg, int slot)
{
	if (cfg->cold || cfg->warm_lib_fd < 0 || slot >= g_nslots)
		return;
	const struct profile *p = profile_find(&cfg->profiles, NULL); /* the default */
	for (int k = 0; p && k < WK_COUNT; k++)
		if (!WK_IS_PRE(k) || p->npreload) {
			atomic_fetch_add(&g_kept, 1);
			if (WK_IS_PRE(k)) {
				g_slots[slot][k].prof = p;
				g_slots[slot][k].key = -1;
				g_slots[slot][k].deferred = true;
			} else {
				server_start(cfg, slot, k, &g_slots[slot][k], p, -1);
			}
		}
}

/* Whether the last job's limits may be written ahead: not below the
 * profile's defaults. The next job's pid 1 and the job forked ahead
 * prepare in that cgroup, and a request may ask for 1 MB and 1 process:
 * such limits there would kill or stall them every time (the slot would
 * serve cold for good) and leave an OOM kill or a refused fork in the
 * counters the next job is judged by. Smaller limits are written by the
 * job that asks for them, at its start, as before. */
static bool ahead_ok(const struct slot_server *ss)
{
	if (!ss->have_lim || !ss->prof)
		return false;
	const struct proto_limits *d = &ss->prof->defaults;
	return ss->lim.memory_bytes >= (uint64_t)d->memory_mb << 20 &&
	       ss->lim.pids >= (uint64_t)d->pids;
}

/* The server's next job's pid 1, into a fresh cgroup of its own, waiting at
 * most ms for the server to send it; then told to fork the job ahead.
 * Moving a process into a cgroup may wait for an RCU grace period, and a
 * fork copies the server's page tables: done here, while the slot is idle,
 * neither is on any job's path. */
static void prepare_next(const struct config *cfg, int slot, int kind, struct slot_server *ss,
			 int ms)
{
	if (!ss->w.ready || ss->w.a_placed || warm_prepare(&ss->w, ms) < 0)
		return;
	char name[64], err[256];
	if (cfg->cg.version != CG_NONE && !ss->have_acg) {
		if (run_cgpool_name(cfg, slot, name, sizeof name) < 0 ||
		    cg_job_make(&cfg->cg, name, &ss->acg, err, sizeof err) < 0) {
			log_msg("fork server %d/%d: the next job's cgroup: %s", slot, kind, err);
			return;
		}
		if (cg_job_attach(&ss->acg, ss->w.a_pid) < 0) {
			log_msg(
			    "fork server %d/%d: the next job's pid 1 did not join its cgroup: %s",
			    slot, kind, errfmt_desc(errno));
			cg_job_destroy(&ss->acg);
			server_stop(ss);
			return;
		}
		/* The job forked ahead there prepares while other slots' jobs
		 * run: at the least CPU weight until its job comes. */
		cg_job_background(&ss->acg);
		ss->have_acg = true;
		if (ahead_ok(ss) && cg_job_limit_ahead(&ss->acg, &ss->lim, err, sizeof err) < 0)
			log_msg("fork server %d/%d: the next job's limits ahead: %s", slot, kind,
				err);
	}
	if (warm_place(&ss->w) < 0) {
		log_msg("fork server %d/%d: the next job's pid 1 is gone", slot, kind);
		server_stop(ss);
		return;
	}
	ss->placed_ns = clock_mono_ns();
}

/* The server's pooled network namespace, made while the slot is idle
 * (about as long as a job's own would take). Where it cannot be made, the
 * server's jobs make their own, as before. */
static void make_net(int slot, int kind, struct slot_server *ss)
{
	char err[256];
	if (ss->net_failures >= WARM_NET_FAILURES)
		return;
	if (warm_net_make(&ss->w.net, ss->w.zpid, err, sizeof err) < 0 &&
	    ++ss->net_failures == WARM_NET_FAILURES)
		log_msg("fork server %d/%d: %s; its jobs make their own", slot, kind, err);
	else if (ss->w.net.ns >= 0)
		ss->net_failures = 0;
}

/* A server is ready but its next job's pid 1 is not yet in its cgroup. */
static bool unprepared(const struct config *cfg, const struct slot_server *ss)
{
	return ss->w.ready && (ss->w.a_pid <= 0 || !ss->w.a_placed ||
			       (cfg->cg.version != CG_NONE && !ss->have_acg));
}

bool run_warm_pending(const struct config *cfg, int slot)
{
	for (int k = 0; slot < g_nslots && k < WK_COUNT; k++) {
		const struct slot_server *ss = &g_slots[slot][k];
		if (ss->deferred || (ss->w.zpid > 0 && (!ss->w.ready || unprepared(cfg, ss))))
			return true;
		if (ss->w.ready && ss->w.net.ns < 0 && ss->net_failures < WARM_NET_FAILURES)
			return true;
	}
	return false;
}

bool run_warm_ahead(const struct config *cfg, int slot)
{
	uint64_t now = clock_mono_ns();
	for (int k = 0; !cfg->cold && slot < g_nslots && k < WK_COUNT; k++) {
		struct slot_server *ss = &g_slots[slot][k];
		if (ss->w.zpid <= 0 || !ss->w.ready || warm_ahead(&ss->w))
			continue;
		/* Its next job's pid 1 not yet taken, or its job forked ahead
		 * still preparing: a few ms after each job. One that takes
		 * longer (a loaded machine) no longer holds the slot back. */
		if (ss->w.a_pid <= 0 || !ss->w.a_placed ||
		    now - ss->placed_ns < (uint64_t)WARM_AHEAD_MS * 1000000u)
			return false;
	}
	return true;
}

void run_warm_poll(const struct config *cfg, int slot)
{
	for (int k = 0; slot < g_nslots && k < WK_COUNT; k++) {
		struct slot_server *ss = &g_slots[slot][k];
		if (ss->w.zpid <= 0 || ss->w.ready)
			continue;
		if (warm_dead(&ss->w)) {
			log_msg("fork server %d/%d ended before it was ready; rebuilding it", slot,
				k);
			ss->failures++;
			server_start(cfg, slot, k, ss, ss->prof, ss->key);
		} else if (warm_ready(&ss->w)) {
			ss->rss0 = warm_rss_kb(&ss->w);
			ss->failures = 0;
			note_rss(ss);
			note_built(slot, ss);
		}
	}
	for (int k = 0; slot < g_nslots && k < WK_COUNT; k++) {
		struct slot_server *ss = &g_slots[slot][k];
		if (ss->w.zpid > 0 && !warm_dead(&ss->w) && unprepared(cfg, ss))
			prepare_next(cfg, slot, k, ss, 0);
		/* After the answer: a pooled network namespace the last job
		 * left in any other state than made is dropped, and a new one
		 * made (the next job makes its own if it comes first). */
		warm_net_settle(&ss->w.net);
		if (ss->w.ready && ss->w.net.ns < 0)
			make_net(slot, k, ss);
	}
	bool light_ready = g_slots[slot][WK_PLAIN].w.ready && g_slots[slot][WK_RUNNER].w.ready;
	for (int k = WK_PLAIN_PRE; slot < g_nslots && light_ready && k < WK_COUNT; k++) {
		struct slot_server *ss = &g_slots[slot][k];
		if (ss->deferred) {
			ss->deferred = false;
			server_start(cfg, slot, k, ss, ss->prof, ss->key);
		}
	}
}

void run_warm_stop(int slot)
{
	for (int k = 0; slot < g_nslots && k < WK_COUNT; k++)
		server_stop(&g_slots[slot][k]);
}

/* Whether the job's text names a module its profile preloads (its top-level
 * package, anywhere: in an import, a string, a comment). A job that does
 * is forked from the preloaded server. */
static bool text_names(const char *text, size_t len, const struct profile *p)
{
	for (size_t i = 0; text && i < p->npreload; i++) {
		const char *m = p->preload[i];
		size_t n = strcspn(m, ".");
		if (n && memmem(text, len, m, n))
			return true;
	}
	return false;
}

static bool names_preload(const struct job *j, const struct run_in *in)
{
	const struct profile *p = j->prof;
	if (!p->npreload)
		return false;
	if (in && in->job_json && !in->main_py)
		return text_names(in->job_json, in->job_len, p);
	if (text_names(j->req.code, j->req.code_len, p))
		return true;
	for (size_t i = 0; i < j->req.nfiles; i++)
		if (text_names(j->req.files[i].data, j->req.files[i].len, p))
			return true;
	return false;
}

/* Whether the job's limits can go where its pid 1 and the job forked ahead
 * already live. Below what they use, the limit's write fails (v1: EBUSY)
 * or v2's OOM killer kills them: the job would end in `error` or its OOM
 * kill, and the slot be rebuilt, for any client asking for a few MB. Such a
 * job runs cold in a cgroup of its own, as it would with --cold, and they
 * wait for the next. A limit no smaller than the one they live under
 * already fits, and costs no read. */
static bool fits_prepared(const struct slot_server *ss, const struct cg_limits *cl)
{
	const struct cg_job *a = &ss->acg;
	if (a->have_set && cl->memory_bytes >= a->set.memory_bytes)
		return true;
	return cg_job_room(a, cl, WARM_MEM_ROOM) == 1;
}

struct warm_server *run_warm_pick(const struct config *cfg, int slot, const struct job *j,
				  const struct run_in *in, struct cg_job *cg, bool *have_cg)
{
	*have_cg = false;
	if (cfg->cold || cfg->warm_lib_fd < 0 || slot >= g_nslots ||
	    (in && (in->isolate || in->probe)))
		return NULL;
	int kind =
	    (in && in->job_json ? WK_RUNNER : WK_PLAIN) + (names_preload(j, in) ? WK_PLAIN_PRE : 0);
	long long key = WK_IS_RUNNER(kind) && in->seed >= 0 ? in->seed : -1;
	struct slot_server *ss = &g_slots[slot][kind];
	if (ss->deferred)
		return NULL; /* its light siblings are still starting */
	if (ss->prof && ss->failures < WARM_MAX_FAILURES &&
	    (ss->w.zpid <= 0 || warm_dead(&ss->w))) {
		log_msg("fork server %d/%d ended; rebuilding it", slot, kind);
		ss->failures++;
		server_start(cfg, slot, kind, ss, ss->prof, ss->key);
	}
	if (ss->prof != j->prof || ss->key != key) {
		if (ss->miss_prof == j->prof && ss->miss_key == key)
			ss->misses++;
		else
			ss->misses = 1;
		ss->miss_prof = j->prof;
		ss->miss_key = key;
		/* The default back at once; another seed or profile on the
		 * second request in a row that asks for it, once the slot's
		 * last such rebuild is far enough behind (WARM_AWAY_RATIO). */
		bool home = key == -1 && j->prof == profile_find(&cfg->profiles, NULL);
		if (ss->w.zpid <= 0 || home ||
		    (ss->misses >= 2 && clock_mono_ns() >= g_away_after[slot])) {
			/* Not "fork server": that names a failure (hostile_host.c). */
			log_msg("warm slot %d/%d: started anew for %s", slot, kind,
				home ? "the default profile, unseeded" : "another seed or profile");
			server_start(cfg, slot, kind, ss, j->prof, key);
			ss->keyed = true;
		}
		return NULL;
	}
	ss->misses = 0;
	if (!warm_ready(&ss->w))
		return NULL;
	note_built(slot, ss);
	warm_net_settle(&ss->w.net); /* never lent again unchecked */
	if (!ss->rss0) {
		ss->rss0 = warm_rss_kb(&ss->w);
		note_rss(ss);
	}
	/* Back to back with its last job, the next pid 1 may be on its way. */
	prepare_next(cfg, slot, kind, ss, WARM_NEXT_MS);
	if (unprepared(cfg, ss))
		return NULL;
	struct cg_limits cl;
	run_cgpool_limits(j, &cl);
	if (ss->have_acg && !fits_prepared(ss, &cl))
		return NULL;
	if (ss->have_acg) {
		*cg = ss->acg;
		*have_cg = true;
		ss->have_acg = false;
	}
	ss->lim = cl;
	ss->have_lim = true;
	return &ss->w;
}

void run_warm_done(const struct config *cfg, int slot, struct warm_server *w)
{
	for (int k = 0; k < WK_COUNT; k++) {
		struct slot_server *ss = &g_slots[slot][k];
		if (&ss->w != w)
			continue;
		long rss = ss->w.zpid > 0 ? warm_rss_kb(&ss->w) : -1;
		if (ss->w.zpid <= 0 || warm_dead(&ss->w) || rss < 0 ||
		    (ss->rss0 > 0 && rss > ss->rss0 + WARM_GROWTH_KB)) {
			log_msg("fork server %d/%d: rebuilding it (%s)", slot, k,
				ss->w.zpid <= 0 ? "it failed"
				: rss < 0	? "gone"
						: "grew");
			server_start(cfg, slot, k, ss, ss->prof, ss->key);
		} else {
			ss->failures = 0;
		}
	}
}

long run_warm_ready(long *rss_kb, long *kept)
{
	long n = 0, sum = 0;
	for (int i = 0; i < g_nslots && g_rss; i++)
		for (int k = 0; k < WK_COUNT; k++) {
			long v = atomic_load(&g_rss[i][k]);
			if (v >= 0) {
				n++;
				sum += v;
			}
		}
	*rss_kb = sum;
	*kept = atomic_load(&g_kept);
	return n;
}

void run_warm_fail(const struct config *cfg, int slot, struct warm_server *w, struct cg_job *cg)
{
	(void)cfg;
	for (int k = 0; slot < g_nslots && k < WK_COUNT; k++)
		if (&g_slots[slot][k].w == w) {
			log_msg("fork server %d/%d: the job's cgroup took no limits; rebuilding it",
				slot, k);
			server_stop(&g_slots[slot][k]);
		}
	cg_job_kill(cg, 1000);
	cg_job_destroy(cg);
}

size_t run_warm_fds_per_slot(void)
{
	/* Making one: its pipes, sockets and pidfd, or a namespace's maker's
	 * user namespace and pipes, a few at a time. */
	return WK_COUNT * (size_t)WARM_FDS_PER_SERVER + 8;
}
