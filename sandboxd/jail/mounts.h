/* Mount layer: a minimal read-only root built from tmpfs and read-only binds,
 * entered with pivot_root. Runs as the job's init (pid 1, still root) inside
 * its fresh mount namespace. */
#ifndef SBX_MOUNTS_H
#define SBX_MOUNTS_H

#include <stdbool.h>

struct jail_spec;

int mounts_apply(const struct jail_spec *s);
/* mounts_apply in two steps. mounts_prepare builds the whole tree, with
 * the sizes and what mounts_same_tree compares of s (read-only binds,
 * /etc, /proc with its masks, /dev, the runner, fresh /dev/shm, /tmp and
 * /work) and enters it (pivot_root; cwd "/"); a job forked ahead does it
 * before its job comes (warm_fork.c), so every mount and unmount is off
 * the job's path. mounts_finish adds what is the job's (its sizes, by
 * remounts, the runner's job description, its /proc texts) and makes the
 * root read-only. prepared: the description the tree was prepared from
 * when it may differ from the job's in its sizes (NULL: the job's own). */
int mounts_prepare(const struct jail_spec *s);
int mounts_finish(const struct jail_spec *s, const struct jail_spec *prepared);
/* Whether a tree prepared from `a` is the one mounts_prepare(b) would build. */
bool mounts_same_tree(const struct jail_spec *a, const struct jail_spec *b);
/* As the job's uid, after the uid layer: writes the request's files and the
 * code (main.py) into the empty work dir. */
int mounts_write_files(const struct jail_spec *s);

#endif
