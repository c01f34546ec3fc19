# Kernel memory through pipe buffers: 200 pipes grown to 1 MiB each
# (F_SETPIPE_SZ, up to the per-user pipe-user-pages-soft, then one page
# each) and filled, never read. Pipe pages are charged to the job's memory
# cgroup, so a 64 MB job ends in memory_limit instead of pinning ~70 MB more.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: no-leftover
import fcntl
import os

F_SETPIPE_SZ = 1031
held = []
queued = 0
for _ in range(200):
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass  # over pipe-user-pages-soft: the pipe keeps one page
    os.set_blocking(w, False)
    held += [r, w]
    while True:
        try:
            queued += os.write(w, b"\x5a" * 65536)
        except OSError:
            break
print("queued %d MB in pipes and still alive" % (queued >> 20), flush=True)
