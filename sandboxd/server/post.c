#include "sandboxd/server/post.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/protocol.h"

static pthread_mutex_t post_mu = PTHREAD_MUTEX_INITIALIZER;
static struct posted *post_head, *post_tail;

int post_prepare(struct job *j)
{
	j->post_node = calloc(1, sizeof(struct posted));
	j->fallback_line = proto_error_line(j->req.id, E_INTERNAL,
					    "the response could not be built (out of memory)");
	return j->post_node && j->fallback_line ? 0 : -1;
}

void post_submit(struct job *j, char *line, int wake_fd)
{
	struct posted *p = j->post_node;
	j->post_node = NULL;
	if (!line) {
		line = j->fallback_line;
		j->fallback_line = NULL;
	}
	if (!p || !line) { /* only when post_prepare was skipped: a bug */
		free(p);
		free(line);
		return;
	}
	p->conn_id = j->conn_id;
	p->line = line;
	p->next = NULL;
	pthread_mutex_lock(&post_mu);
	if (post_tail)
		post_tail->next = p;
	else
		post_head = p;
	post_tail = p;
	pthread_mutex_unlock(&post_mu);
	uint64_t one = 1;
	(void)!write(wake_fd, &one, sizeof one);
}

/* Takes every posted response at once, so workers wait on the lock only for
 * a pointer swap. */
struct posted *post_take(void)
{
	pthread_mutex_lock(&post_mu);
	struct posted *p = post_head;
	post_head = post_tail = NULL;
	pthread_mutex_unlock(&post_mu);
	return p;
}

void post_free_list(struct posted *p)
{
	while (p) {
		struct posted *n = p->next;
		free(p->line);
		free(p);
		p = n;
	}
}
