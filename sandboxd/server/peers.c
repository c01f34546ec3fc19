/* Per-peer limits at the socket and the global memory budget's numbers. The
 * socket thread alone calls the connection functions: no lock. */
#include "sandboxd/server/peers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "common/file.h"
#include "common/log.h"
#include "common/numparse.h"

/* Connections per capped uid; as many distinct uids as the daemon has
 * connection slots. */
#define PEERS_TABLE 4096
static struct {
	uid_t uid;
	unsigned n; /* 0: a free entry */
} g_conn[PEERS_TABLE];

/* The operator hears of refusals over per-peer limits, at most one line
 * per 10 s: a flooding client must not flood the log as well. */
static void peers_note(const char *msg)
{
	static uint64_t last_ms;
	static unsigned long quiet;
	uint64_t now = clock_mono_ms();
	if (last_ms && now - last_ms < 10000) {
		quiet++;
		return;
	}
	if (quiet)
		log_msg("refused: %s (%lu more per-peer refusals not logged before it)", msg,
			quiet);
	else
		log_msg("refused: %s", msg);
	last_ms = now;
	quiet = 0;
}

int peers_flag(struct config *c, const char *flag, const char *val)
{
	long v;
	if (strcmp(flag, "--max-conn-per-peer") == 0 && num_parse_long(val, 1, 1L << 20, &v) == 0)
		c->max_conn_per_peer = (int)v;
	else if (strcmp(flag, "--max-queued-per-peer") == 0 &&
		 num_parse_long(val, 1, 100000, &v) == 0)
		c->max_queued_per_peer = (size_t)v;
	else if (strcmp(flag, "--memory-budget") == 0 && num_parse_long(val, 1, 1L << 30, &v) == 0)
		c->memory_budget_mb = v;
	else if (strcmp(flag, "--trust-uid") == 0 && c->n_trust_uid < CONFIG_MAX_ALLOW &&
		 num_parse_long(val, 0, 1L << 31, &v) == 0)
		c->trust_uid[c->n_trust_uid++] = (uid_t)v;
	else
		return 0;
	return 1;
}

/* The lowest memory limit on the cgroup this process started in and its
 * ancestors (v2 memory.max, v1 memory.limit_in_bytes), MB; 0 when none. In a
 * container or a unit with MemoryMax, MemTotal overstates what jobs can have. */
static long peers_cgroup_limit_mb(void)
{
	size_t len;
	char *cg = file_read_all("/proc/self/cgroup", 1 << 16, &len, NULL, 0), *save = NULL;
	long best = 0;
	for (char *l = cg ? strtok_r(cg, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(l, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL,
		     dir[PATH_MAX];
		if (!path || path[1] != '/')
			continue;
		*path++ = '\0';
		bool v2 = ctl[1] == '\0';
		if (!v2 && !strstr(ctl, ":memory") && !strstr(ctl, ",memory"))
			continue;
		snprintf(dir, sizeof dir, "%s", path);
		for (;;) {
			char f[PATH_MAX + 64];
			snprintf(f, sizeof f, "%s%s/%s",
				 v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory", dir,
				 v2 ? "memory.max" : "memory.limit_in_bytes");
			char *v = file_read_all(f, 64, &len, NULL, 0), *end = NULL;
			long long bytes = v ? strtoll(v, &end, 10) : 0;
			if (v && end != v && bytes > 0 && bytes < (1LL << 50) &&
			    (!best || bytes / (1 << 20) < best))
				best = (long)(bytes / (1 << 20));
			free(v);
			char *slash = strrchr(dir, '/');
			if (!slash || !dir[1])
				break;
			slash[slash == dir ? 1 : 0] = '\0';
		}
	}
	free(cg);
	return best;
}

/* The machine's memory (MemTotal, or a lower cgroup limit above the daemon)
 * less a reserve for the host and the daemon: an eighth of it, at least
 * PEERS_RESERVE_MIN_MB, at most half. */
static int peers_default_budget(long *mb, char *err, size_t errlen)
{
	size_t len;
	char *m = file_read_all("/proc/meminfo", 1 << 16, &len, err, errlen);
	const char *at = m ? strstr(m, "MemTotal:") : NULL;
	long kb = at ? strtol(at + 9, NULL, 10) : 0;
	free(m);
	if (kb <= 0)
		return errfmt(err, errlen,
			      "cannot read MemTotal from /proc/meminfo for the default "
			      "--memory-budget; give --memory-budget MB");
	long total = kb / 1024, cg = peers_cgroup_limit_mb();
	total = cg > 0 && cg < total ? cg : total;
	long reserve = total / 8;
	reserve = reserve < PEERS_RESERVE_MIN_MB ? PEERS_RESERVE_MIN_MB : reserve;
	reserve = reserve > total / 2 ? total / 2 : reserve;
	*mb = total - reserve > 0 ? total - reserve : 1;
	return 0;
}

int peers_config_finish(struct config *c, char *err, size_t errlen)
{
	if (!c->max_conn_per_peer)
		c->max_conn_per_peer = PEERS_CONN_DEFAULT;
	if (!c->max_queued_per_peer)
		c->max_queued_per_peer = c->queue_capacity > 1 ? c->queue_capacity / 2 : 1;
	if (!c->memory_budget_mb)
		return peers_default_budget(&c->memory_budget_mb, err, errlen);
	return 0;
}

struct runq_limits peers_runq_limits(const struct config *c)
{
	return (struct runq_limits){.capacity = c->queue_capacity,
				    .per_peer = c->max_queued_per_peer,
				    .bytes = c->buffer_budget,
				    .memory_budget_mb = c->memory_budget_mb};
}

bool peers_trusted(const struct config *c, uid_t uid)
{
	for (int i = 0; i < c->n_trust_uid; i++)
		if (c->trust_uid[i] == uid)
			return true;
	return uid == 0;
}

int peers_conn_open(const struct config *c, uid_t uid, char *msg, size_t len)
{
	if (peers_trusted(c, uid))
		return 0;
	int free_at = -1;
	for (int i = 0; i < PEERS_TABLE; i++) {
		if (g_conn[i].n && g_conn[i].uid == uid) {
			if (g_conn[i].n >= (unsigned)c->max_conn_per_peer) {
				errfmt(msg, len,
				       "uid %u has %u connections open, the per-peer limit "
				       "(--max-conn-per-peer); close one or retry later",
				       (unsigned)uid, g_conn[i].n);
				peers_note(msg);
				return -1;
			}
			g_conn[i].n++;
			return 0;
		}
		if (!g_conn[i].n && free_at < 0)
			free_at = i;
	}
	if (free_at < 0)
		return errfmt(msg, len, "too many connections");
	g_conn[free_at].uid = uid;
	g_conn[free_at].n = 1;
	return 0;
}

void peers_conn_close(const struct config *c, uid_t uid)
{
	if (peers_trusted(c, uid))
		return;
	for (int i = 0; i < PEERS_TABLE; i++)
		if (g_conn[i].n && g_conn[i].uid == uid) {
			g_conn[i].n--;
			return;
		}
}

long peers_job_memory_mb(const struct config *c, const struct proto_limits *lim)
{
	return lim->memory_mb + (c->no_cgroups ? 3 * lim->tmpfs_mb : 0);
}

int peers_job_admit(const struct config *c, uid_t uid, const struct proto_request *req,
		    struct job *j, enum proto_errcode *code, char *msg, size_t len)
{
	j->uid = uid;
	j->memory_mb = peers_job_memory_mb(c, &j->lim);
	if (req->tenant && !peers_trusted(c, uid)) {
		*code = E_FORBIDDEN;
		return errfmt(msg, len,
			      "\"tenant\" is honoured only from a uid given by --trust-uid; "
			      "uid %u is not",
			      (unsigned)uid);
	}
	if (j->memory_mb > c->memory_budget_mb) {
		*code = E_BAD_LIMITS;
		return errfmt(msg, len,
			      "the job needs %ld MB (memory_mb%s), more than the daemon's whole "
			      "--memory-budget of %ld MB: it could never start",
			      j->memory_mb, c->no_cgroups ? " + 3 x tmpfs_mb without cgroups" : "",
			      c->memory_budget_mb);
	}
	return 0;
}

enum proto_errcode peers_push_error(const struct config *c, int rc, const struct job *j, char *msg,
				    size_t len)
{
	char who[96]; /* the peer: its uid, and its tenant when it has one */
	snprintf(who, sizeof who, "uid %u%s%.64s%s", (unsigned)j->uid,
		 j->req.tenant ? " tenant \"" : "", j->req.tenant ? j->req.tenant : "",
		 j->req.tenant ? "\"" : "");
	switch (rc) {
	case RUNQ_PEER_FULL:
		errfmt(msg, len,
		       "%s has %zu jobs waiting, the per-peer limit (--max-queued-per-peer); "
		       "retry later",
		       who, c->max_queued_per_peer);
		peers_note(msg);
		return E_BUSY;
	case RUNQ_PEER_BYTES:
		errfmt(msg, len,
		       "%s has requests waiting that hold half of the %zu MiB they may hold "
		       "together (--buffer-budget-mb); retry later",
		       who, c->buffer_budget >> 20);
		peers_note(msg);
		return E_BUSY;
	case RUNQ_TOO_BIG:
		errfmt(msg, len, "the job needs more than the whole --memory-budget");
		return E_BAD_LIMITS;
	case RUNQ_NOMEM:
		errfmt(msg, len, "out of memory");
		return E_INTERNAL;
	default:
		errfmt(msg, len,
		       "the job queue is full (--queue jobs, or --buffer-budget-mb of "
		       "requests waiting); retry later");
		return E_BUSY;
	}
}
