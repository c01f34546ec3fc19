/* What a finished job leaves for the kernel to free, freed off the job's
 * path. A job's mount namespace is the case: the last reference to it
 * unmounts the job's tree, and that waits for an RCU grace period (about
 * 0.5 ms here) before the mounts are freed. Held by the job's own last
 * process, that wait came between the job's end and its answer; held by
 * the daemon (the job hands it over, FDPASS_MNTNS), it is let go here, on a
 * thread of its own, while the answer is on its way. */
#ifndef SBX_RECLAIM_H
#define SBX_RECLAIM_H

#include <stddef.h>
#include <stdint.h>

/* Room in the queue per worker: a worker's last job's namespace and the
 * one before it. */
#define RECLAIM_PER_WORKER 2

/* A namespace is let go this long after its job's answer was made: by then
 * its client has it. Let go at once, the grace period's interrupts and the
 * freeing itself came while the answer was on its way: 0.2 ms later at the
 * client, measured here, of the 0.3 ms the daemon had gained. The queue,
 * not this delay, bounds how many wait. */
#define RECLAIM_DELAY_NS 2000000u

/* Starts the thread, with room for `cap` descriptors waiting (at least 1),
 * each closed delay_ns after it came. -1 with errno when it could not
 * start: reclaim_fd then closes at once. */
int reclaim_start(size_t cap, uint64_t delay_ns);
/* Takes fd and closes it on the thread; closes it here, at once, when the
 * thread is not running or `cap` descriptors already wait (a kernel slow to
 * free them slows the jobs that make them, and holds no more). */
void reclaim_fd(int fd);
/* Descriptors waiting now (tests). */
size_t reclaim_waiting(void);
/* Closes what waits and ends the thread. */
void reclaim_stop(void);

#endif
