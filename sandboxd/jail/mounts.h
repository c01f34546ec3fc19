/* Mount layer: a minimal read-only root built from tmpfs and read-only binds,
 * entered with pivot_root. Runs as the job's init (pid 1, still root) inside
 * its fresh mount namespace. */
#ifndef SBX_MOUNTS_H
#define SBX_MOUNTS_H

struct jail_spec;

int mounts_apply(const struct jail_spec *s);
/* As the job's uid, after the uid layer: writes the request's files and the
 * code (main.py) into the empty work dir. */
int mounts_write_files(const struct jail_spec *s);

#endif
