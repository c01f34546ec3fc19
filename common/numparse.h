/* Command-line numbers, parsed strictly: the whole string, in range. */
#ifndef SBX_NUMPARSE_H
#define SBX_NUMPARSE_H

/* A decimal integer in [min, max]; 0 or -1. */
int num_parse_long(const char *s, long min, long max, long *out);
/* Positive seconds, fractions allowed ("0.5"), as milliseconds ≥ 1; 0 or -1. */
int num_parse_seconds_ms(const char *s, long *ms);

#endif
