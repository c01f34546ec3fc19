# Kernel memory through SysV semaphore arrays: semget of the largest arrays
# (SEMMSL 32000) until the kernel refuses. The arrays are charged to the
# job's memory cgroup (kmem), so a 64 MB job ends in memory_limit, and they
# die with the job's IPC namespace.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: ipc-clean
# host: no-leftover
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
n = 0
while True:
    # IPC_PRIVATE, IPC_CREAT | 0600
    if libc.semget(0, 32000, 0o1600) < 0:
        print("semget refused after %d arrays: %s" % (n, os.strerror(ctypes.get_errno())))
        break
    n += 1
