# Memory through files instead of the heap: /dev/shm is allowed more than the
# memory limit (tmpfs_mb 512, memory_mb 64), but tmpfs pages are charged to
# the job's cgroup, so writing them is a memory_limit (or the write fails) and
# the pages go away with the job.
# requires: cgroup-memory
# expect: memory_limit|pass
# limits: {"memory_mb": 64, "tmpfs_mb": 512, "wall_ms": 10000}
# stdout: not-contains UNBOUNDED
# host: no-leftover
# host: daemon-alive
import os

block = b"\xee" * (1 << 20)
n = 0
try:
    with open("/dev/shm/hog", "wb") as f:
        while n < (512 << 20):
            f.write(block)
            f.flush()
            n += len(block)
except OSError as e:
    print("write stopped at", n >> 20, "MiB:", e.strerror)
print("UNBOUNDED" if n > (64 << 20) else "BOUNDED", n >> 20, "MiB", flush=True)
