/* Mount layer: a minimal read-only root built from tmpfs and read-only binds,
 * entered with pivot_root. Runs as the job's init (pid 1, still root) inside
 * its fresh mount namespace. */
#ifndef SBX_MOUNTS_H
#define SBX_MOUNTS_H

#include <stdbool.h>

struct jail_spec;

int mounts_apply(const struct jail_spec *s);
/* mounts_apply in two steps. mounts_prepare builds what needs nothing of
 * one job's but what mounts_same_tree compares (read-only binds, /etc,
 * /proc with its masks, /dev, the runner), leaving the root's directory
 * as cwd; a job forked ahead does it before its job comes (warm_fork.c).
 * mounts_finish adds what is the job's (the root's size, the runner's job
 * description, its /proc texts, its /dev/shm, /tmp and /work) and enters
 * the root. prepared_root_opts: the root_opts the tree was prepared with
 * when they may differ from the job's (NULL: the job's own). */
int mounts_prepare(const struct jail_spec *s);
int mounts_finish(const struct jail_spec *s, const char *prepared_root_opts);
/* Whether a tree prepared from `a` is the one mounts_prepare(b) would build. */
bool mounts_same_tree(const struct jail_spec *a, const struct jail_spec *b);
/* As the job's uid, after the uid layer: writes the request's files and the
 * code (main.py) into the empty work dir. */
int mounts_write_files(const struct jail_spec *s);

#endif
