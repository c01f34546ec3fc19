/* Parsing hostile JSON with a memory budget. jansson allocates for every
 * value it builds: about 60 bytes of objects per 3 bytes of "{}," text, so
 * a 16 MiB line cost the daemon 1.3 GB and 4 s of its one I/O thread before
 * the request was refused (an outside attack). jsonmem_loadb counts what
 * jansson allocates on the calling thread while it parses, and fails the
 * parse once that exceeds the budget: no value-counting scanner of our own,
 * jansson stays the only parser. */
#ifndef SBX_JSONMEM_H
#define SBX_JSONMEM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Bytes of allocations a text of len bytes may cost while it is parsed:
 * JSONMEM_FACTOR per byte plus JSONMEM_FLOOR. A long string costs about 3
 * bytes a byte (the lexer's doubling buffer, then the value's copy); small
 * values cost more (a one-letter string in an array about 12, a stdio test
 * case's object about 11), and the floor holds tens of thousands of them.
 * Empty objects cost about 60: a 16 MiB line of them is refused after
 * 136 MiB, where it took 1.3 GB. */
#define JSONMEM_FACTOR 8
#define JSONMEM_FLOOR (8u << 20)

/* Hooks jansson's allocator (once per process). Call it before the process
 * starts threads: jansson's allocator is global and unguarded. */
void jsonmem_init(void);
size_t jsonmem_budget(size_t len);
/* json_loadb, failing with err->text naming the budget (and *over set, when
 * over is not NULL) once the parse has allocated more than *budget bytes;
 * *budget is left with what the parse did not use, so that the lines of one
 * body can share one. */
json_t *jsonmem_loadb(const char *buf, size_t len, size_t flags, size_t *budget, json_error_t *err,
		      bool *over);

#endif
