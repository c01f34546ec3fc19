# Kernel memory through UNIX socket buffers: socketpairs (stream and
# datagram) with the largest buffers allowed, filled in both directions and
# never read. Their buffers are charged to the job's memory cgroup (kmem is
# part of the memory counter on v1 and v2), so the job ends in memory_limit;
# uncharged, 60 pairs would hold ~1 GB of the host's memory.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: no-leftover
# host: daemon-alive
import socket

held = []
queued = 0
for kind, size in ((socket.SOCK_STREAM, 1 << 20), (socket.SOCK_DGRAM, 60000)):
    for _ in range(60):
        a, b = socket.socketpair(socket.AF_UNIX, kind)
        for x in (a, b):
            x.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
            x.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
            x.setblocking(False)
        held += [a, b]
        for x in (a, b):
            while True:
                try:
                    queued += x.send(b"\x5a" * size)
                except OSError:
                    break
print("queued %d MB in UNIX sockets and still alive" % (queued >> 20), flush=True)
