/* The sbx subcommands beyond `run` and `ping`; exit codes in common/exitcodes.h. */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include "client/lib/sbx.h"
#include "common/exitcodes.h"

/* --busy-retry SEC: "0" (never retry) or positive seconds, at most a day;
 * sets r->total_ms. 0 or -1. */
int cmd_parse_busy_retry(const char *v, struct sbx_retry *r);
/* 128 + SIGINT, as a shell reports a command Ctrl-C stopped: `sbx eval`
 * stopped cleanly on Ctrl-C. */
#define EXIT_INTERRUPTED 130

/* argv: the arguments after "eval"; cmdline: sbx's whole command line
 * (NULL-terminated), printed back as the way to resume after Ctrl-C. */
int cmd_eval(const char *sock, const struct sbx_retry *retry, int argc, char **argv,
	     char **cmdline);
int cmd_score(int argc, char **argv);
/* `sbx check-reference`: argv after "check-reference" (cmd_reference.c). */
int cmd_check_reference(const char *sock, const struct sbx_retry *retry, int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
