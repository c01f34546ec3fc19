/* A per-thread allocation budget for jansson's parser (jsonmem.h). Only the
 * allocations are counted, never the frees: what bounds an attack is the
 * work of building values, and a parse that frees what it built (a
 * duplicate key, an error) still did that work. */
#include "common/jsonmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local struct {
	bool on, hit;
	size_t left;
} t_budget;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void *jsonmem_malloc(size_t n)
{
	if (t_budget.on) {
		if (n > t_budget.left) {
			t_budget.hit = true;
			return NULL;
		}
		t_budget.left -= n;
	}
	return malloc(n);
}

static void jsonmem_install(void)
{
	json_set_alloc_funcs(jsonmem_malloc, free);
}

void jsonmem_init(void)
{
	pthread_once(&g_once, jsonmem_install);
}

size_t jsonmem_budget(size_t len)
{
	if (len > (SIZE_MAX - JSONMEM_FLOOR) / JSONMEM_FACTOR)
		return SIZE_MAX;
	return len * JSONMEM_FACTOR + JSONMEM_FLOOR;
}

json_t *jsonmem_loadb(const char *buf, size_t len, size_t flags, size_t *budget, json_error_t *err,
		      bool *over)
{
	jsonmem_init();
	t_budget.on = true;
	t_budget.hit = false;
	t_budget.left = *budget;
	json_t *v = json_loadb(buf, len, flags, err);
	bool hit = t_budget.hit;
	t_budget.on = false;
	*budget = t_budget.left;
	if (hit) {
		/* A refused allocation fails the parse; were one ever to be
		 * tolerated, the value is refused all the same. */
		json_decref(v);
		v = NULL;
		if (err)
			snprintf(err->text, sizeof err->text,
				 "parsing would take more than %d bytes of memory a byte of text, "
				 "plus %u MiB",
				 JSONMEM_FACTOR, JSONMEM_FLOOR >> 20);
	}
	if (over)
		*over = hit;
	return v;
}
