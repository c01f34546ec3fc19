/* The requests of a connection awaiting their response (pending.h). */
#include "client/lib/pending.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t pend_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* Doubles the buckets when entries outnumber them (chains stay short). */
static int pend_grow(struct pend_table *t)
{
	size_t nb = t->nbuckets ? t->nbuckets * 2 : 64;
	struct pend **b = calloc(nb, sizeof *b);
	if (!b)
		return -1;
	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct pend *e = t->buckets[i], *next; e; e = next) {
			next = e->hnext;
			size_t k = pend_hash(e->id) & (nb - 1);
			e->hnext = b[k];
			b[k] = e;
		}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
	return 0;
}

struct pend *pend_add(struct pend_table *t, const char *id, const char *line, size_t len)
{
	if (t->n >= t->nbuckets && pend_grow(t) < 0)
		return NULL;
	struct pend *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->id = strdup(id);
	e->line = malloc(len);
	if (!e->id || !e->line) {
		free(e->id);
		free(e->line);
		free(e);
		return NULL;
	}
	memcpy(e->line, line, len);
	e->len = len;
	e->first_busy_ms = -1;
	e->heap_i = PEND_IN_FLIGHT;
	/* At the chain's tail: with a repeated id, the oldest is found first. */
	struct pend **pp = &t->buckets[pend_hash(id) & (t->nbuckets - 1)];
	while (*pp)
		pp = &(*pp)->hnext;
	*pp = e;
	t->n++;
	return e;
}

struct pend *pend_find(const struct pend_table *t, const char *id, size_t *count)
{
	struct pend *first = NULL;
	*count = 0;
	if (!t->nbuckets)
		return NULL;
	for (struct pend *e = t->buckets[pend_hash(id) & (t->nbuckets - 1)]; e; e = e->hnext)
		if (strcmp(e->id, id) == 0) {
			first = first ? first : e;
			(*count)++;
		}
	return first;
}

struct pend *pend_sole_in_flight(const struct pend_table *t)
{
	if (t->n - t->nheap != 1)
		return NULL;
	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct pend *e = t->buckets[i]; e; e = e->hnext)
			if (e->heap_i == PEND_IN_FLIGHT)
				return e;
	return NULL;
}

static void pend_entry_free(struct pend *e)
{
	json_decref(e->busy);
	free(e->id);
	free(e->line);
	free(e);
}

void pend_remove(struct pend_table *t, struct pend *e)
{
	struct pend **pp = &t->buckets[pend_hash(e->id) & (t->nbuckets - 1)];
	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	t->n--;
	pend_entry_free(e);
}

static void pend_swap(struct pend_table *t, size_t a, size_t b)
{
	struct pend *x = t->heap[a];
	t->heap[a] = t->heap[b];
	t->heap[b] = x;
	t->heap[a]->heap_i = a;
	t->heap[b]->heap_i = b;
}

int pend_wait(struct pend_table *t, struct pend *e, long long due, json_t *busy)
{
	if (t->nheap == t->capheap) {
		size_t nc = t->capheap ? t->capheap * 2 : 16;
		struct pend **h = realloc(t->heap, nc * sizeof *h);
		if (!h)
			return -1;
		t->heap = h;
		t->capheap = nc;
	}
	json_decref(e->busy);
	e->busy = json_incref(busy);
	e->due_ms = due;
	size_t i = t->nheap++;
	t->heap[i] = e;
	e->heap_i = i;
	while (i > 0 && t->heap[(i - 1) / 2]->due_ms > t->heap[i]->due_ms) {
		pend_swap(t, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

long long pend_next_due(const struct pend_table *t)
{
	return t->nheap ? t->heap[0]->due_ms : -1;
}

struct pend *pend_pop_due(struct pend_table *t, long long now)
{
	if (!t->nheap || t->heap[0]->due_ms > now)
		return NULL;
	struct pend *e = t->heap[0];
	pend_swap(t, 0, --t->nheap);
	e->heap_i = PEND_IN_FLIGHT;
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < t->nheap && t->heap[l]->due_ms < t->heap[m]->due_ms)
			m = l;
		if (r < t->nheap && t->heap[r]->due_ms < t->heap[m]->due_ms)
			m = r;
		if (m == i)
			break;
		pend_swap(t, i, m);
		i = m;
	}
	return e;
}

void pend_free(struct pend_table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct pend *e = t->buckets[i], *next; e; e = next) {
			next = e->hnext;
			pend_entry_free(e);
		}
	free(t->buckets);
	free(t->heap);
	memset(t, 0, sizeof *t);
}
