/* Per-peer and global limits at the socket (SECURITY.md, "Per-peer and
 * global limits"): the daemon flags that set them, connections per uid, who
 * may name a tenant, and what a job holds against the memory budget. The
 * queue's side (jobs waiting per peer, round-robin, admission) is runq.c. */
#ifndef SBX_PEERS_H
#define SBX_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/protocol.h"
#include "sandboxd/config.h"
#include "sandboxd/server/runq.h"

#define PEERS_CONN_DEFAULT 256	 /* --max-conn-per-peer */
#define PEERS_RESERVE_MIN_MB 512 /* the least the default budget leaves the host */

/* A flag of this file with a valid value: 1 (taken); otherwise 0. */
int peers_flag(struct config *c, const char *flag, const char *val);
/* After the command line (and the queue's default): the defaults of what
 * was not given. -1 with err when the machine's memory cannot be read. */
int peers_config_finish(struct config *c, char *err, size_t errlen);
struct runq_limits peers_runq_limits(const struct config *c);
/* Root and --trust-uid peers: may tag requests with a tenant, and are not
 * held to the per-peer connection cap (a front multiplexes its tenants). */
bool peers_trusted(const struct config *c, uid_t uid);
/* A new connection of uid: 0 (counted), or -1 with the `busy` message. */
int peers_conn_open(const struct config *c, uid_t uid, char *msg, size_t len);
void peers_conn_close(const struct config *c, uid_t uid);
/* What a job holds against the budget: its memory limit, plus its three
 * tmpfs without cgroups (with them, tmpfs pages are charged to the job's
 * memory cgroup, inside that limit). */
long peers_job_memory_mb(const struct config *c, const struct proto_limits *lim);
/* Before queueing req as j (j->lim resolved): its tenant is allowed and it could
 * ever start; sets j->uid and j->memory_mb. -1 with *code and msg. */
int peers_job_admit(const struct config *c, uid_t uid, const struct proto_request *req,
		    struct job *j, enum proto_errcode *code, char *msg, size_t len);
/* The answer to a refused runq_push(j): its code, and msg. */
enum proto_errcode peers_push_error(const struct config *c, int rc, const struct job *j, char *msg,
				    size_t len);

#endif
