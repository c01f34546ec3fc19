# Kernel memory outside the memory limit through UDP receive queues: a 64 MB
# job fills the largest receive buffers net.core.rmem_max allows on many
# loopback sockets and never reads. UDP memory is charged with TCP's (cgroup
# v1: memory.kmem.tcp, only once that limit is set; v2: memory.current), so
# the job's socket-buffer budget bounds it; unbounded, 100 such sockets hold
# ~800 MB of the host's memory (up to the host-wide udp_mem). Datagrams that
# do not fit are dropped, so the job passes with little queued.
# sockmem-bounded samples the host-wide TCP+UDP memory while the job runs.
# requires: cgroup-memory
# requires: socket-memcg
# expect: pass|memory_limit
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: sockmem-bounded
# host: no-leftover
import socket
import time

SOCKS = 100
msg = b"\x5a" * 60000
held = []
sent = 0
for _ in range(SOCKS):
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
    r.bind(("127.0.0.1", 0))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    held += [r, s]
    # An 8 MB queue takes about 130 datagrams of 60000 bytes (~64 KB each).
    for _ in range(200):
        try:
            sent += s.sendto(msg, r.getsockname())
        except OSError:
            break
print("sent %d MB to %d unread sockets" % (sent >> 20, SOCKS), flush=True)
print(open("/proc/net/sockstat").read(), flush=True)
time.sleep(1.5)
print("done", flush=True)
