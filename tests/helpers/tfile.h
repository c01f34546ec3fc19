/* Whole files for the test suites: written and read back under assertions
 * (tf_write, tf_read), or read where a missing file is an answer, not a
 * failure (tf_slurp). */
#ifndef SBX_TFILE_H
#define SBX_TFILE_H

/* Creates or truncates path with text; asserts it worked. */
void tf_write(const char *path, const char *text);

/* The whole file, NUL-terminated (malloc'd); asserts it is readable. */
char *tf_read(const char *path);

/* The whole file, NUL-terminated (malloc'd), or NULL when it cannot be read. */
char *tf_slurp(const char *path);

#endif
