/* One logging function for the daemon: timestamped lines on stderr. */
#ifndef SBX_LOG_H
#define SBX_LOG_H

void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
