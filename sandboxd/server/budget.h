/* The global buffer budget: the bytes every connection's input (partial
 * request lines) and output (unsent responses) buffers hold together. The
 * socket thread alone uses it, so it needs no lock. Input past the budget
 * is refused (the line is answered `busy` and skipped); output of jobs
 * already accepted is never refused, but while the budget is spent no new
 * job is accepted, so output can only grow by what is already running. */
#ifndef SBX_BUDGET_H
#define SBX_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "sandboxd/config.h"

/* Every connection's first input buffer is this small and outside the
 * budget (4096 connections hold 16 MiB of them), so a ping or a small
 * request is served even when the budget is spent. */
#define BUDGET_IN_BASE 4096

/* --buffer-budget-mb unset: 1/16 of the machine's memory, between 256 MiB
 * and 2 GiB, and never below one largest request plus one largest response. */
size_t budget_default(const struct config *cfg);
void budget_init(size_t total);
/* Would `more` bytes still fit? */
bool budget_room(size_t more);
/* The budget is used up (output may take it past the total). */
bool budget_spent(void);
/* Moves one connection's charge from *charged to now. */
void budget_charge(size_t *charged, size_t now);
size_t budget_used(void);

#endif
