/* Text from records (setting names, task ids, code: hostile) inside the
 * SVG of `sbx score --plot` and the HTML of `sbx report`: one escaper for
 * both, valid in XML 1.0 and in HTML text and quoted attributes. */
#ifndef SBX_MARKUP_H
#define SBX_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/* Writes len bytes of s with & < > " ' as character references. Control
 * characters but tab, newline and carriage return (which XML 1.0 does not
 * allow at all, even escaped) become '?'. */
void markup_escape(FILE *f, const char *s, size_t len);

#endif
