/* sandboxd: parse the command line, load policies, set up cgroups and the
 * socket, start the workers, serve until SIGTERM/SIGINT, clean up. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errfmt.h"
#include "common/file.h"
#include "common/jsonmem.h"
#include "common/log.h"
#include "common/numparse.h"
#include "sandboxd/config.h"
#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/kfeat.h"
#include "sandboxd/jail/reclaim.h"
#include "sandboxd/server/peers.h"
#include "sandboxd/server/budget.h"
#include "sandboxd/server/fds.h"
#include "sandboxd/server/listenfd.h"
#include "sandboxd/server/runq.h"
#include "sandboxd/server/server.h"
#include "sandboxd/server/sockpath.h"
#include "sandboxd/server/statedir.h"
#include "sandboxd/server/uidrange.h"
#include "sandboxd/server/worker.h"

/* The default --queue. Warm jobs take a few ms (a fork server's child: ~2-5
 * ms end to end, 200-400 jobs/s per worker), so the queue is sized in time:
 * 1024 per worker is 2.5-5 s of work, longer than the longest delay a
 * client backs off after `busy` (1 s in libsbx), so a refused client is
 * back before the workers run dry, and half of it (--max-queued-per-peer)
 * takes a whole HumanEval or MBPP batch pipelined by one client on two
 * workers without a single `busy`. What a waiting job costs: one eventfd
 * (in the RLIMIT_NOFILE reserve, fds.c) and ~0.6 KB of daemon memory
 * besides its request (measured: 4000 waiting `print(1)` jobs, +2.2 MB
 * RSS; 2000 HumanEval test requests of 1.3 KB, +3.2 MB), and the requests
 * waiting hold at most --buffer-budget-mb together (runq.c), however many
 * there are: the default on 2 workers costs ~4 MB with HumanEval requests,
 * and never more than that budget plus ~1.2 MB. At most 16384: past a few
 * seconds of work a deeper queue only holds requests longer. */
#define QUEUE_PER_WORKER 1024
#define QUEUE_DEFAULT_MAX 16384

#define STOP_WORKERS_MS 5000
#define STALE_JOBS_MS 3000 /* how long a crashed run's jobs may take to die */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: sandboxd [--socket PATH] [--workers N] [--policies DIR] [--allow-uid UID]...\n"
	    "                [--allow-gid GID]... [--state-dir DIR] [--uid-base UID]\n"
	    "                [--queue N] [--max-request BYTES] [--runner FILE]\n"
	    "                [--max-response-mb N] [--max-connections N] [--buffer-budget-mb N]\n"
	    "                [--cgroup-parent CGPATH | --no-cgroups]\n"
	    "                [--max-conn-per-peer N] [--max-queued-per-peer N]\n"
	    "                [--trust-uid UID]... [--memory-budget MB] [--cold]\n"
	    "Runs untrusted Python in namespace + seccomp jails; serves JSON lines on PATH\n"
	    "(default /run/sandboxd.sock). See docs/protocol.md.\n"
	    "--state-dir DIR (default /run/sandboxd) must be root's, mode 0700 (created so).\n"
	    "--uid-base UID (default 61000): jobs run as uids [UID, UID + 3 x workers), three\n"
	    "per worker slot (the job, an isolated candidate, the fork servers); the daemon\n"
	    "refuses to start when an account, a group or a running process has an id in\n"
	    "that range.\n"
	    "--cold: start every job in a fresh interpreter instead of forking it from a\n"
	    "slot's warm fork server (docs/architecture.md, \"The warm path\").\n");
}

/* Default data paths: `rel` from the directory holding the binary (a build
 * dir in a source tree), else `share` from there (an installed tree under
 * any PREFIX or DESTDIR: bin/../share/sandboxd/), else the installed
 * location of the default PREFIX. */
static void default_path(const char *rel, const char *share, const char *installed, char *buf,
			 size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			const char *try[] = {rel, share};
			for (size_t i = 0; i < 2; i++) {
				if (!try[i])
					continue;
				snprintf(buf, len, "%.3000s/%s", exe, try[i]);
				if (access(buf, R_OK) == 0)
					return;
			}
		}
	}
	snprintf(buf, len, "%s", installed);
}

/* The runner bundle: non-empty and under 1 MiB. */
static int load_runner(const char *path, struct config *c, char *err, size_t errlen)
{
	c->runner_src = file_read_all(path, (1 << 20) - 1, &c->runner_len, err, errlen);
	if (c->runner_src && c->runner_len == 0) {
		errfmt(err, errlen, "%s: empty", path);
		free(c->runner_src);
		c->runner_src = NULL;
	}
	if (!c->runner_src)
		return -1;
	c->runner_sum = jail_runner_sum(c->runner_src, c->runner_len);
	return 0;
}

/* The fork server's C half (libsbxwarm.so), in a sealed memfd handed to
 * every server: what the servers load cannot change after the daemon
 * checked it. Missing or unusable: every job runs cold (logged). */
static int load_warm_lib(const char *path)
{
	char err[256];
	size_t len;
	char *so = file_read_all(path, 16u << 20, &len, err, sizeof err);
	int fd = so ? memfd_create("sandboxd-warm", MFD_CLOEXEC | MFD_ALLOW_SEALING) : -1;
	if (fd >= 0 && (fdio_write_all(fd, so, len) < 0 ||
			fcntl(fd, F_ADD_SEALS,
			      F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)) {
		close(fd);
		fd = -1;
	}
	free(so);
	if (fd < 0)
		log_msg("fork servers off, every job runs cold: %s %s", path,
			so ? errfmt_desc(errno) : err);
	return fd;
}

static int parse_args(int argc, char **argv, struct config *c, char *pol, size_t pollen,
		      char *runner, size_t runnerlen)
{
	long v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = strcmp(a, "--no-cgroups") != 0 && strcmp(a, "--help") != 0 &&
			     strcmp(a, "--cold") != 0;
		if (takes && !val) {
			fprintf(stderr, "sandboxd: %s needs a value\n", a);
			return -1;
		}
		if (strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "--no-cgroups") == 0) {
			c->no_cgroups = true;
		} else if (strcmp(a, "--cold") == 0) {
			c->cold = true;
		} else if (strcmp(a, "--socket") == 0) {
			c->socket_path = val;
		} else if (strcmp(a, "--policies") == 0) {
			snprintf(pol, pollen, "%s", val);
		} else if (strcmp(a, "--runner") == 0) {
			snprintf(runner, runnerlen, "%s", val);
		} else if (strcmp(a, "--cgroup-parent") == 0) {
			c->cgroup_parent = val;
		} else if (strcmp(a, "--state-dir") == 0) {
			snprintf(c->state_dir, sizeof c->state_dir, "%s", val);
		} else if (strcmp(a, "--workers") == 0 && num_parse_long(val, 1, 256, &v) == 0) {
			c->workers = (int)v;
		} else if (strcmp(a, "--queue") == 0 && num_parse_long(val, 1, 100000, &v) == 0) {
			c->queue_capacity = (size_t)v;
		} else if (strcmp(a, "--max-request") == 0 &&
			   num_parse_long(val, 1024, 1L << 30, &v) == 0) {
			c->bounds.max_line = (size_t)v;
		} else if (strcmp(a, "--max-response-mb") == 0 &&
			   num_parse_long(val, 1, 4096, &v) == 0) {
			c->max_response = (size_t)v << 20;
		} else if (strcmp(a, "--max-connections") == 0 &&
			   num_parse_long(val, 1, 1L << 20, &v) == 0) {
			c->max_conns = (size_t)v;
		} else if (strcmp(a, "--buffer-budget-mb") == 0 &&
			   num_parse_long(val, 16, 1L << 20, &v) == 0) {
			c->buffer_budget = (size_t)v << 20;
		} else if (strcmp(a, "--uid-base") == 0 &&
			   num_parse_long(val, 1000, 1L << 30, &v) == 0) {
			c->uid_base = (uid_t)v;
		} else if (strcmp(a, "--allow-uid") == 0 && c->n_allow_uid < CONFIG_MAX_ALLOW &&
			   num_parse_long(val, 0, 1L << 31, &v) == 0) {
			c->allow_uid[c->n_allow_uid++] = (uid_t)v;
		} else if (strcmp(a, "--allow-gid") == 0 && c->n_allow_gid < CONFIG_MAX_ALLOW &&
			   num_parse_long(val, 0, 1L << 31, &v) == 0) {
			c->allow_gid[c->n_allow_gid++] = (gid_t)v;
		} else if (peers_flag(c, a, val)) {
			/* per-peer and global limits (server/peers.c) */
		} else {
			fprintf(stderr, "sandboxd: bad argument: %s%s%s\n", a, takes ? " " : "",
				takes ? val : "");
			usage(stderr);
			return -1;
		}
		i += takes;
	}
	return 0;
}

/* A socket systemd passed (sandboxd.socket) is served instead of one the
 * daemon binds: its path names the instance (set_instance) and the logs. A
 * --socket naming another path is a configuration mistake, not a choice. */
static int take_passed_socket(struct config *c, bool socket_given, char *err, size_t errlen)
{
	static char path[PATH_MAX];
	int fd = listenfd_take(path, sizeof path, err, errlen);
	if (fd <= 0)
		return fd;
	if (socket_given && path[0] && strcmp(path, c->socket_path) != 0)
		return errfmt(err, errlen,
			      "systemd passed a socket at %s but --socket says %s: give the "
			      "same path, or none",
			      path, c->socket_path);
	int rc = listenfd_check_path(path, err, errlen);
	if (rc < 0)
		return -1;
	if (rc > 0)
		log_msg("warning: %s", err);
	c->passed_fd = fd;
	if (path[0])
		c->socket_path = path;
	log_msg("socket %s passed by the service manager (LISTEN_FDS)",
		path[0] ? path : "(abstract or unnamed)");
	return 0;
}

/* The state dir holds one empty directory that every job mounts its private
 * root tmpfs on (inside its own mount namespace, so they never collide).
 * Jobs keep their files only in tmpfs, so a crashed daemon leaves no job
 * directories; anything found there is from an older layout and removed
 * (statedir.c: never through a symlink). */
static int prepare_state_dir(struct config *c, char *err, size_t errlen)
{
	if (strlen(c->state_dir) > sizeof c->root_dir - 6)
		return errfmt(err, errlen, "state dir %s: path too long", c->state_dir);
	c->state_fd = statedir_open(c->state_dir, err, errlen);
	if (c->state_fd < 0)
		return -1;
	/* From here on the state dir is named by its resolved path, whose
	 * ancestors statedir_open checked: a symlink on the way given (say
	 * one a user owns under /tmp) cannot be re-pointed later. */
	char real[PATH_MAX];
	if (!realpath(c->state_dir, real))
		return errfmt(err, errlen, "state dir %s: cannot resolve it", c->state_dir);
	int n = snprintf(c->root_dir, sizeof c->root_dir, "%s/root", real);
	if (n < 0 || (size_t)n >= sizeof c->root_dir)
		return errfmt(err, errlen, "state dir %s: path too long", real);
	memcpy(c->state_dir, real, strlen(real) + 1);
	return statedir_make_root(c->state_fd, c->state_dir, err, errlen);
}

/* Job cgroups are named after the socket, so a restart on the same socket
 * finds (and removes) what its crashed predecessor left, while daemons on
 * other sockets in the same cgroup are left alone. */
static void set_instance(struct config *c)
{
	sockpath_instance(c->socket_path, c->cg.instance, sizeof c->cg.instance);
}

/* The cgroup home of a made-home run is recorded in the state dir, so that a
 * restart after a crash can rejoin it (cg_place, rule 3). */
static void home_record(const struct config *c, bool write_it)
{
	const char *home = write_it && c->cg.v2_made_home ? c->cg.v2_home : NULL;
	if (statedir_home_write(c->state_fd, home) < 0)
		log_msg("cannot %s the cgroup home in %s: %s", home ? "record" : "remove",
			c->state_dir, errfmt_desc(errno));
}

static int setup_cgroups(struct config *c, char *err, size_t errlen)
{
	char prev[PATH_MAX], note[2 * PATH_MAX + 256];
	if (cg_detect_system(&c->cg, err, errlen) < 0)
		return -1;
	if (c->cg.version == CG_NONE) {
		snprintf(err, errlen,
			 "neither cgroup v2 with the memory and pids controllers nor cgroup v1 "
			 "memory and pids hierarchies are mounted");
		return -1;
	}
	set_instance(c);
	statedir_home_read(c->state_fd, prev, sizeof prev);
	if (cg_place(&c->cg, c->cgroup_parent, prev, note, sizeof note, err, errlen) < 0 ||
	    cg_setup(&c->cg, err, errlen) < 0)
		return -1;
	if (note[0])
		log_msg("cgroup v2: %s", note);
	home_record(c, true);
	return 0;
}

int main(int argc, char **argv)
{
	static struct config cfg;
	char pol[PATH_MAX], runner[PATH_MAX], warmlib[PATH_MAX], err[512];
	jsonmem_init(); /* before any thread: jansson's allocator is global */
	/* The CPUs this process may use (a cpuset-limited container has fewer
	 * than the machine). */
	cpu_set_t cpus;
	long ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	cfg.socket_path = "/run/sandboxd.sock";
	cfg.passed_fd = -1;
	cfg.workers = ncpu > 0 ? (int)ncpu : 1;
	cfg.uid_base = 61000;
	snprintf(cfg.state_dir, sizeof cfg.state_dir, "/run/sandboxd");
	proto_bounds_default(&cfg.bounds);
	cfg.max_response = (size_t)64 << 20;
	cfg.max_conns = 4096;
	default_path("../policies", "../share/sandboxd/policies",
		     "/usr/local/share/sandboxd/policies", pol, sizeof pol);
	/* The runner bundle the build writes beside the binary (make all). */
	default_path("runner.pyz", "../share/sandboxd/runner.pyz",
		     "/usr/local/share/sandboxd/runner.pyz", runner, sizeof runner);
	/* The fork servers' library, beside the runner (loaded from a memfd,
	 * never by the dynamic linker: data to the daemon). */
	default_path("libsbxwarm.so", "../share/sandboxd/libsbxwarm.so",
		     "/usr/local/share/sandboxd/libsbxwarm.so", warmlib, sizeof warmlib);
	if (parse_args(argc, argv, &cfg, pol, sizeof pol, runner, sizeof runner) < 0)
		return 2;
	bool socket_given = strcmp(cfg.socket_path, "/run/sandboxd.sock") != 0;
	if (!cfg.queue_capacity) {
		size_t n = (size_t)cfg.workers * QUEUE_PER_WORKER;
		cfg.queue_capacity = n < QUEUE_DEFAULT_MAX ? n : QUEUE_DEFAULT_MAX;
	}
	if (peers_config_finish(&cfg, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	cfg.policies_dir = pol;
	cfg.socket_gid = cfg.n_allow_gid ? cfg.allow_gid[0] : 0;
	if (cfg.no_cgroups && cfg.cgroup_parent) {
		fprintf(stderr, "sandboxd: --cgroup-parent and --no-cgroups exclude each other\n");
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "sandboxd: must run as root (it builds namespaces and cgroups)\n");
		return 1;
	}
	if (take_passed_socket(&cfg, socket_given, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	/* Before anything is touched: a daemon already serving this socket
	 * keeps it, its state and its job cgroups (checked again, under a
	 * lock, when the socket is bound). systemd's socket is ours alone. */
	if (cfg.passed_fd < 0 && sockpath_probe(cfg.socket_path, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	/* Before anything is set up: descriptors for the configuration. */
	if (fds_setup(&cfg, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	/* Probed before anything is set up: a kernel that cannot jail is told
	 * at start, with what is missing, not at the first job. */
	struct kfeat kf;
	kfeat_probe(&kf);
	kfeat_describe(&kf, err, sizeof err);
	log_msg("%s", err);
	if (kfeat_check(&kf, false, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: cannot jail on this kernel: %s\n", err);
		return 1;
	}
	if (profile_load_dir(cfg.policies_dir, true, &cfg.profiles, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	if (load_runner(runner, &cfg, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: test runner %s\n", err);
		return 1;
	}
	cfg.warm_lib_fd = cfg.cold ? -1 : load_warm_lib(warmlib);
	/* The job init the build writes beside the daemon (make all), as
	 * installed beside it by make install. */
	char init_path[PATH_MAX];
	default_path("sandboxd-init", NULL, "/usr/local/bin/sandboxd-init", init_path,
		     sizeof init_path);
	if (jail_init_open(init_path, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	/* Each warm job's pid 1, a program of its own beside the init, which
	 * starts in a tenth of the init's time; without it the fork servers
	 * start the init's copy of the same code. */
	if (cfg.warm_lib_fd >= 0) {
		char reaper_path[PATH_MAX];
		default_path("sandboxd-reaper", NULL, "/usr/local/bin/sandboxd-reaper", reaper_path,
			     sizeof reaper_path);
		if (jail_reaper_open(reaper_path, err, sizeof err) < 0)
			log_msg("%s; fork servers start each job's reaper from sandboxd-init", err);
	}
	if (prepare_state_dir(&cfg, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	if (cfg.no_cgroups) {
		cfg.cg.version = CG_NONE;
		log_msg("--no-cgroups: limits are per-process rlimits only");
	} else if (setup_cgroups(&cfg, err, sizeof err) < 0) {
		/* A security tool must not quietly weaken itself. */
		fprintf(stderr,
			"sandboxd: cgroups unusable: %s\n"
			"Without them a job's memory, processes and CPU are bounded only per "
			"process (rlimits). Run sandboxd as a systemd unit with Delegate=yes "
			"(examples/systemd/), give --cgroup-parent PATH (a cgroup whose ancestors "
			"hold no processes), or pass --no-cgroups to accept rlimits knowingly.\n",
			err);
		return 1;
	}
	/* After the stale jobs of a crashed run were killed with their cgroups
	 * (setup_cgroups; without cgroups they die with their init): what is
	 * left in the job uid range belongs to someone else. */
	if (uidrange_check(cfg.uid_base, UIDRANGE_WIDTH(cfg.workers), STALE_JOBS_MS, err,
			   sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", err);
		return 1;
	}
	/* Signals are taken through a signalfd by the socket thread; blocked in
	 * every thread (workers inherit the mask), reset in each job. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	signal(SIGPIPE, SIG_IGN);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
		fprintf(stderr, "sandboxd: sigmask failed\n");
		return 1;
	}
	int sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	/* Large buffers (request lines, responses) are mapped on their own, so
	 * freeing one gives it back to the host at once: glibc's dynamic
	 * threshold would otherwise move them to the heap after the first free,
	 * where a client's freed line stays in the daemon's RSS. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	if (!cfg.buffer_budget)
		cfg.buffer_budget = budget_default(&cfg);
	budget_init(cfg.buffer_budget);
	/* The requests waiting in the queue hold at most as many bytes again
	 * (peers_runq_limits). */
	struct runq_limits rl = peers_runq_limits(&cfg);
	struct runq *q = runq_new(&rl);
	if (sigfd < 0 || !q || server_listen(&cfg, err, sizeof err) < 0) {
		fprintf(stderr, "sandboxd: %s\n", sigfd < 0 || !q ? errfmt_desc(errno) : err);
		return 1;
	}
	/* Without it each job frees its own tree on its way out, as before.
	 * Test-only (set by whoever starts the root daemon, never by a client):
	 * SANDBOXD_TEST_RECLAIM_DELAY_MS holds the namespaces that long, so a
	 * test can see them held, and bounded. */
	uint64_t delay_ns = RECLAIM_DELAY_NS;
	const char *td = getenv("SANDBOXD_TEST_RECLAIM_DELAY_MS");
	long tdv;
	if (td && num_parse_long(td, 0, 60000, &tdv) == 0)
		delay_ns = (uint64_t)tdv * 1000000u;
	if (reclaim_start((size_t)cfg.workers * RECLAIM_PER_WORKER, delay_ns) < 0)
		log_msg("reclaim thread: %s; each job's tree is freed before its answer",
			errfmt_desc(errno));
	if (workers_start(&cfg, q, server_post) < 0) {
		fprintf(stderr, "sandboxd: cannot start workers\n");
		return 1;
	}
	/* The instance names this daemon's cgroups (<instance>-*): what to
	 * look for, or sweep, after it was killed. */
	log_msg("serving %s: %d workers, cgroups %s (jobs %s-*), policies %s, %zu profile(s); at "
		"most %zu connections, %zu MiB of buffers, %zu MiB per response",
		cfg.socket_path, cfg.workers, cg_version_name(cfg.cg.version), cfg.cg.instance,
		cfg.policies_dir, cfg.profiles.n, cfg.max_conns, cfg.buffer_budget >> 20,
		cfg.max_response >> 20);
	log_msg("limits: queue %zu, per peer %zu waiting and %d connections, memory budget %ld MB",
		cfg.queue_capacity, cfg.max_queued_per_peer, cfg.max_conn_per_peer,
		cfg.memory_budget_mb);
	server_run(&cfg, q, sigfd);
	/* Cancelled jobs end within a second or two (kill, reap, cgroup
	 * emptied); a worker stuck past this is abandoned, not waited for. */
	int abandoned = workers_join(STOP_WORKERS_MS);
	reclaim_stop();
	if (!abandoned) {
		server_free_posted();
		runq_free(q);
	}
	if (cfg.cg.version != CG_NONE) {
		if (cg_teardown(&cfg.cg, err, sizeof err) < 0)
			log_msg("cleanup: %s", err);
		else
			home_record(&cfg, false);
	}
	statedir_remove_root(cfg.state_fd);
	profile_set_free(&cfg.profiles);
	free(cfg.runner_src);
	log_msg("stopped");
	return 0;
}
