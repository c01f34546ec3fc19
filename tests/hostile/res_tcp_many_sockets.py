# The v1 socket-buffer limit's overshoot: when a send would go past
# memory.kmem.tcp's limit, TCP still charges (forcibly) what a socket at its
# send-buffer size queues, about 60 KB per connection. Thousands of
# connections spread over processes (RLIMIT_NOFILE is per process) held
# 197 MB of TCP buffers in a 64 MB job before its memory limit ended it.
# The daemon now watches pages plus socket buffers on v1 every 10 ms and
# kills the job for memory when the sum passes memory_mb; on v2 the forced
# charges count in memory.current and the job meets its OOM kill. Either
# way the host's socket memory may grow by the job's limit, not more.
# Here the job also keeps its own cgroup at its CPU cap (spinners), and the
# same client's other job spins both CPUs: the daemon's kill used to reach
# only the job's pid 1, and the rest of the job went on queueing until
# that pid 1, throttled with them, got the CPU to exit (77 to 180 MB in
# four runs with two busy loops on the host, three of them past the bound).
# The daemon now kills the whole cgroup at once.
# setup: busy-neighbour
# requires: cgroup-memory
# requires: socket-memcg
# expect: memory_limit|pass
# limits: {"memory_mb": 64, "pids": 32, "wall_ms": 30000, "cpu_ms": 25000}
# host: sockmem-bounded
# host: no-leftover
# host: daemon-alive
import os
import socket
import sys
import time

SPIN = 8
PROCS = 16
CONNS = 240  # per process: 480 descriptors of its 512
CHUNK = b"\x5b" * (256 << 10)


def fill():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(CONNS)
    pairs = []
    for _ in range(CONNS):
        c = socket.socket()
        try:
            c.connect(srv.getsockname())
            a, _ = srv.accept()
        except OSError:
            break
        c.setblocking(False)
        pairs.append((c, a))
    for _ in range(20):
        progress = 0
        for c, _a in pairs:
            try:
                progress += c.send(CHUNK)
            except OSError:
                pass
        if not progress:
            break
    time.sleep(3)


end = time.monotonic() + 6  # spinners stop on their own where nothing kills
for _ in range(SPIN):
    if os.fork() == 0:
        while time.monotonic() < end:
            pass
        os._exit(0)
time.sleep(0.3)  # the cgroup at its cap before the sockets fill
kids = []
for _ in range(PROCS):
    pid = os.fork()
    if pid == 0:
        try:
            fill()
        finally:
            os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("all filled", flush=True)
sys.exit(0)
