/* Exit codes of the command-line programs (sbx and its subcommands), one
 * set for all; documented in README.md. */
#ifndef SBX_EXITCODES_H
#define SBX_EXITCODES_H

#define EXIT_OK 0
#define EXIT_FAILED 1	    /* the command ran and failed */
#define EXIT_USAGE 2	    /* bad command line */
#define EXIT_UNREACHABLE 3  /* the daemon could not be reached */
#define EXIT_DAEMON_ERROR 4 /* the daemon answered with an error */

#endif
