/* What the supervisor captures from a job: stdout and stderr, each capped
 * at output_kb as the response will encode them and together at the
 * response's cap, and the runner's result channel split into records. */
#ifndef SBX_CAPTURE_H
#define SBX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandboxd/jail/jail.h"
#include "common/text.h"

/* One captured stream, capped at `cap` bytes as the response will encode
 * them (text_json_meter), and with the other stream at `*total` <=
 * total_cap: the job's output, not the daemon, pays for escaping. */
struct capture_stream {
	int fd;
	char **buf;
	size_t *len;
	bool *trunc;
	size_t cap;
	struct text_json_meter m;
	size_t *total, total_cap;
};

/* The test runner's result channel, split into lines for the hooks. */
struct capture_results {
	int fd;
	char *buf;
	size_t len, total;
	bool skipping; /* inside a line longer than REC_LINE_MAX */
};

/* Keeps the prefix of the buffer that fits both caps; 1 when some did not. */
int capture_meter(struct capture_stream *s, bool final);
/* Reads what is there; 1 when a cap was exceeded, 0 otherwise (EOF closes
 * the fd). */
int capture_read_stream(struct capture_stream *s);
/* Reads what is there and hands every complete line to h->on_record. */
void capture_read_results(struct capture_results *rs, const struct jail_hooks *h);

#endif
