/* The socket side: accepts clients, reads request lines, answers pings and
 * errors at once, queues runs, and writes responses as workers post them. */
#ifndef SBX_SERVER_H
#define SBX_SERVER_H

#include "sandboxd/config.h"
#include "sandboxd/server/runq.h"

/* Creates the listening socket (mode 0660), after removing a stale one;
 * or takes cfg->passed_fd, systemd's, as it is. */
int server_listen(const struct config *cfg, char *err, size_t errlen);
/* Serves until SIGTERM/SIGINT (delivered through sigfd). */
int server_run(const struct config *cfg, struct runq *q, int sigfd);
/* Thread-safe: hands a worker's response to the loop. */
void server_post(struct job *j, char *line);
/* After the workers stopped: drops responses nobody will read. */
void server_free_posted(void);

#endif
