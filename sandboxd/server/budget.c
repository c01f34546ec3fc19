/* The global buffer budget (budget.h). */
#include "sandboxd/server/budget.h"

#include <unistd.h>

static size_t g_total, g_used;

size_t budget_default(const struct config *cfg)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	size_t ram = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : (size_t)4 << 30;
	size_t b = ram / 16, lo = (size_t)256 << 20, hi = (size_t)2 << 30;
	b = b < lo ? lo : b > hi ? hi : b;
	size_t one = cfg->bounds.max_line + cfg->max_response;
	return b < one ? one : b;
}

void budget_init(size_t total)
{
	g_total = total;
	g_used = 0;
}

bool budget_room(size_t more)
{
	return g_used <= g_total && more <= g_total - g_used;
}

bool budget_spent(void)
{
	return g_used >= g_total;
}

void budget_charge(size_t *charged, size_t now)
{
	g_used = g_used - *charged + now;
	*charged = now;
}

size_t budget_used(void)
{
	return g_used;
}
