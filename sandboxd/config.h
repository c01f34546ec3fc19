/* Daemon configuration, from the command line; read-only once serving. */
#ifndef SBX_CONFIG_H
#define SBX_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/protocol.h"
#include "sandboxd/jail/cgroup.h"
#include "sandboxd/policy/profile.h"

#define CONFIG_MAX_ALLOW 64

/* The daemon's release (ping's daemon_version; the man pages say it too). */
#define SANDBOXD_VERSION "0.1.0"

struct config {
	const char *socket_path;
	/* A listening socket passed by systemd (LISTEN_FDS, listenfd.c), else
	 * -1: served as is, never bound, chmod'ed or removed by the daemon. */
	int passed_fd;
	const char *policies_dir;
	char state_dir[PATH_MAX]; /* holds "root", the mount point every job's root uses */
	char root_dir[PATH_MAX];
	int state_fd; /* the state dir, checked (statedir.c): names in it go through this */
	int workers;
	size_t queue_capacity;
	uid_t uid_base; /* slot i: uid_base + i, its second process uid_base + workers + i */
	uid_t allow_uid[CONFIG_MAX_ALLOW];
	gid_t allow_gid[CONFIG_MAX_ALLOW];
	int n_allow_uid, n_allow_gid;
	/* Per-peer and global limits (sandboxd/server/peers.c, SECURITY.md). */
	int max_conn_per_peer;		   /* --max-conn-per-peer */
	size_t max_queued_per_peer;	   /* --max-queued-per-peer; 0 until set: half of --queue */
	uid_t trust_uid[CONFIG_MAX_ALLOW]; /* --trust-uid: may tag requests with a tenant */
	int n_trust_uid;
	long memory_budget_mb; /* --memory-budget; 0 until set: MemTotal less a reserve */
	gid_t socket_gid;      /* group owner of the socket (0660): first --allow-gid, else 0 */
	bool no_cgroups;
	bool cold; /* --cold: every job starts a fresh interpreter (no fork servers) */
	const char *cgroup_parent; /* --cgroup-parent: a cgroup path, e.g. "/sandboxd" */
	struct proto_bounds bounds;
	/* What a client can make the daemon spend (SECURITY.md): */
	size_t max_response;  /* --max-response-mb: one response line, bytes */
	size_t max_conns;     /* --max-connections */
	size_t buffer_budget; /* --buffer-budget-mb: every connection's buffers, bytes */
	struct profile_set profiles;
	struct cg_root cg;
	char *runner_src; /* the runner bundle (runner.pyz), read once at start */
	size_t runner_len;
	uint64_t runner_sum; /* jail_runner_sum of it */
	int warm_lib_fd;     /* libsbxwarm.so in a sealed memfd, for fork servers; -1: cold only */
};

#endif
