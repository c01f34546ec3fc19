# Memory through a SysV shared memory segment (it outlives the process that
# made it): 1 GiB created and touched with memory_mb 64. The pages are
# charged to the job, and the segment dies with the job's IPC namespace
# instead of staying on the host.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 64, "wall_ms": 10000}
# host: ipc-clean
# host: no-leftover
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
size = 1 << 30
shmid = libc.shmget(0x5BD2, ctypes.c_size_t(size), 0o1600)  # IPC_CREAT | 0600
print("shmid", shmid, ctypes.get_errno(), flush=True)
addr = libc.shmat(shmid, None, 0)
print("attached", hex(addr or 0), flush=True)
ctypes.memset(addr, 0x42, size)
print("filled 1 GiB?!", flush=True)
