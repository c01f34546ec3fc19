/* The one monotonic clock of the tree (deadlines, durations, timings). */
#ifndef SBX_CLOCK_H
#define SBX_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_mono_ms(void);

#endif
