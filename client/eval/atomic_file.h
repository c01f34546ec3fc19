/* Output files that appear whole or not at all (the plot of `sbx score`, the
 * page of `sbx report`): written to a temporary file beside the path, synced
 * and renamed over it, so a reader never sees half a file and a failed write
 * leaves the old one in place. */
#ifndef SBX_ATOMIC_FILE_H
#define SBX_ATOMIC_FILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the content to f; 0, or -1 with a message in err. Write errors
 * need not be checked: atomic_file_write looks at the stream afterwards. */
typedef int (*atomic_fill_fn)(FILE *f, void *ctx, char *err, size_t errlen);

/* 0 when path now holds what fill wrote (mode 0644); -1 with a message
 * naming path otherwise, and then path is as it was and no temporary file
 * is left. */
int atomic_file_write(const char *path, atomic_fill_fn fill, void *ctx, char *err, size_t errlen);

/* atomic_file_write of j, indented by 2, and a newline (manifest.json,
 * summary.json). */
int atomic_file_write_json(const char *path, const json_t *j, char *err, size_t errlen);

#endif
