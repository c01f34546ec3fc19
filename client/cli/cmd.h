/* The sbx subcommands beyond `run` and `ping`; exit codes in common/exitcodes.h. */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include "common/exitcodes.h"

int cmd_eval(const char *sock, int argc, char **argv);
int cmd_score(int argc, char **argv);

#endif
