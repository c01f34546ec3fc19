/* The requests of one libsbx connection that have no response yet, kept so
 * that one refused `busy` can be sent again (sbx.h, struct sbx_retry): found
 * by id through a hash table, and, while waiting for their next attempt,
 * ordered by when it is due through a heap. A pipelining client may have
 * many thousands of them, so neither lookup nor the next due one is a scan. */
#ifndef SBX_PENDING_H
#define SBX_PENDING_H

#include <jansson.h>
#include <stddef.h>

struct pend {
	char *id;
	char *line; /* the request as sent, '\n' included */
	size_t len;
	unsigned attempt;	 /* retries so far */
	long long first_busy_ms; /* monotonic; -1 before the first busy */
	long long due_ms;	 /* while waiting: when to send it again */
	json_t *busy;		 /* while waiting: the busy it got (its answer if never sent) */
	size_t heap_i;		 /* index in the heap while waiting, else PEND_IN_FLIGHT */
	struct pend *hnext;
};
#define PEND_IN_FLIGHT ((size_t)-1)

struct pend_table {
	struct pend **buckets;
	size_t nbuckets, n;
	struct pend **heap; /* the waiting ones, earliest due_ms first */
	size_t nheap, capheap;
};

/* A copy of id and line, in flight; NULL without memory. */
struct pend *pend_add(struct pend_table *t, const char *id, const char *line, size_t len);
/* The first entry with this id (NULL if none); *count: how many have it. */
struct pend *pend_find(const struct pend_table *t, const char *id, size_t *count);
/* The entry in flight when exactly one is, else NULL. */
struct pend *pend_sole_in_flight(const struct pend_table *t);
/* Forgets an entry in flight (its response arrived). */
void pend_remove(struct pend_table *t, struct pend *e);
/* An entry in flight waits until due, keeping busy (the reference is
 * taken). 0, or -1 without memory (then nothing changed). */
int pend_wait(struct pend_table *t, struct pend *e, long long due, json_t *busy);
/* The earliest due_ms of the waiting entries, or -1 when none waits. */
long long pend_next_due(const struct pend_table *t);
/* Takes the earliest waiting entry if it is due by `now` out of the heap
 * (it is in flight again; its busy stays until the caller drops it). */
struct pend *pend_pop_due(struct pend_table *t, long long now);
void pend_free(struct pend_table *t);

#endif
