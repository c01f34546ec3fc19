/* External model commands (generators, verbal-feedback writers): one JSON
 * object on stdin, text on stdout, run through /bin/sh -c in their own
 * process group so a timeout kills everything they started. */
#ifndef SBX_GEN_H
#define SBX_GEN_H

#include <stdbool.h>
#include <stddef.h>

struct gen_result {
	char *output; /* stdout (NUL-terminated, at most max_out bytes) */
	int status;   /* wait status */
	bool timed_out;
	bool truncated;	 /* stdout went past max_out */
	long ms;	 /* wall time */
	char error[256]; /* non-empty when the command failed: timeout, non-zero
			    exit, killed, empty output, cannot start */
};

/* Runs cmd with `input` on its stdin (written concurrently with reading its
 * stdout, so neither side can block the other); stderr is passed through to
 * ours. Returns 0 when it ran (see r->error for failures), -1 when it could
 * not even be started. */
int gen_run(const char *cmd, const char *input, int timeout_ms, size_t max_out,
	    struct gen_result *r);
void gen_result_free(struct gen_result *r);

/* The code in a model's answer: the first fenced ```python (or ```py /
 * ```python3) block; else the first plain ``` block; else the whole text.
 * Caller frees. */
char *gen_extract_code(const char *text);

#endif
