/* A fault-injection allocator for the unit suite. A test binary linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=strdup,
 * --wrap=strndup (the Makefile does it for every tests/unit/test_*_oom.c,
 * OOM_TESTS) gets every allocation of the code under test routed here,
 * jansson's too once failalloc_install() ran. */
#ifndef SBX_FAILALLOC_H
#define SBX_FAILALLOC_H

#include <stddef.h>

/* Routes jansson's allocations here too. */
void failalloc_install(void);
/* From the nth allocation on (0: the next one), every one fails; with
 * `once`, only the nth. failalloc_off() stops failing. */
void failalloc_fail_at(long n, int once);
void failalloc_off(void);
/* Allocations made and not yet freed (through this allocator). */
long failalloc_live(void);
/* Allocations attempted since the counter was last reset. */
long failalloc_count(void);
void failalloc_reset_count(void);

#endif
