/* External model commands (generators, verbal-feedback writers): one JSON
 * object on stdin, text on stdout, run through /bin/sh -c in their own
 * process group so a timeout kills everything they started. */
#ifndef SBX_GEN_H
#define SBX_GEN_H

#include <stdbool.h>
#include <stddef.h>

/* How much of a command's stderr is kept: its last bytes, where a failing
 * program says why (a traceback ends with the exception). */
#define GEN_STDERR_TAIL 2048

struct gen_result {
	char *output; /* stdout (NUL-terminated, at most max_out bytes) */
	int status;   /* wait status */
	bool timed_out;
	bool interrupted; /* stopped by gen_cancel() */
	bool truncated;	  /* stdout went past max_out */
	long ms;	  /* wall time */
	char error[256];  /* non-empty when the command failed: timeout, non-zero
			     exit, killed, empty output, cannot start, interrupted */
	/* The last GEN_STDERR_TAIL bytes it wrote to stderr (NUL-terminated;
	 * any bytes, not necessarily UTF-8). */
	char stderr_tail[GEN_STDERR_TAIL + 1];
};

/* Runs cmd with `input` on its stdin (written concurrently with reading its
 * stdout and stderr, so no side can block another); stderr is passed
 * through to ours as it comes, and its tail kept. Returns 0 when it ran (see
 * r->error for failures), -1 when it could not even be started. */
int gen_run(const char *cmd, const char *input, int timeout_ms, size_t max_out,
	    struct gen_result *r);
void gen_result_free(struct gen_result *r);

/* Cancelling every command at once (Ctrl-C of `sbx eval`): after
 * gen_cancel_init() (0, or -1 when no pipe could be made), gen_cancel()
 * makes each gen_run in progress kill its command's group and return with
 * `interrupted`, and every later one return so at once, until
 * gen_cancel_reset(). gen_cancel() is async-signal-safe. */
int gen_cancel_init(void);
void gen_cancel(void);
bool gen_cancelled(void);
void gen_cancel_reset(void);

/* The code in a model's answer: the first fenced ```python (or ```py /
 * ```python3) block; else the first plain ``` block; else the whole text.
 * Caller frees. */
char *gen_extract_code(const char *text);

#endif
