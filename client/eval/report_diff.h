/* The code diff between consecutive turns in `sbx report`: a line diff
 * written here (no diff library is assumed), bounded in time, memory and
 * output, since the code comes from a model and can be anything. */
#ifndef SBX_REPORT_DIFF_H
#define SBX_REPORT_DIFF_H

#include <stddef.h>

/* Above this many cells ((old lines + 1) × (new lines + 1), after the
 * common first and last lines are set aside) the lines are not aligned:
 * the middle is shown as removed and then added (still a correct diff,
 * just not the shortest). 4M cells are 8 MB and a few ms. */
#define REPORT_DIFF_CELLS (4u << 20)

/* A unified diff of old → new, "@@ -l,n +l,n @@" hunks with 3 lines of
 * context and " ", "-", "+" lines, each ending in "\n" (a last line
 * without one counts as a line all the same). "" when both have the same
 * lines. Past cap bytes the rest is left out: the line at the cap is cut
 * short at a UTF-8 character and ends in "…", and a last line "[… diff cut
 * at CAP bytes: N more lines]" says so (N: the lines not shown at all). NUL bytes in the input are
 * kept. Returns the text (malloc'd, NUL-terminated, *len without the NUL), NULL when out of memory.
 */
char *report_diff(const char *old, size_t oldlen, const char *new_, size_t newlen, size_t cap,
		  size_t *len);

#endif
