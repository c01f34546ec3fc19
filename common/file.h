/* The one whole-file reader of the tree. */
#ifndef SBX_FILE_H
#define SBX_FILE_H

#include <stddef.h>

/* Reads all of path ("-": standard input), at most max bytes, into a
 * NUL-terminated buffer (caller frees; *len without the NUL). NULL with a
 * message naming the path when it cannot be read or is larger than max. */
char *file_read_all(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
