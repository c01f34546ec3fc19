/* The sbx subcommands beyond `run` and `ping`. Exit codes shared by all. */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#define CMD_FAILED 1 /* the command ran and failed */
#define CMD_USAGE 2
#define CMD_UNREACHABLE 3
#define CMD_DAEMON_ERROR 4

int cmd_eval(const char *sock, int argc, char **argv);
int cmd_score(int argc, char **argv);

#endif
