# Kernel memory outside the memory limit through UDP receive queues: a 64 MB
# job fills the largest receive buffers net.core.rmem_max allows on many
# loopback sockets and never reads. UDP memory is charged with TCP's (cgroup
# v1: memory.kmem.tcp, only once that limit is set; v2: memory.current), so
# the job's socket-buffer budget bounds it; unbounded, 100 such sockets hold
# ~800 MB of the host's memory (up to the host-wide udp_mem). Datagrams that
# do not fit are dropped, so the job passes with little queued. A socket
# gets datagrams until its queue stops growing (SO_MEMINFO's rmem_alloc,
# Linux 4.6; before it, 200 each): once the budget is spent every datagram is
# dropped, and sending on would only burn CPU, which under a VM's emulated
# CPU took the job past its CPU limit.
# sockmem-bounded samples the host-wide TCP+UDP memory while the job runs.
# requires: cgroup-memory
# requires: socket-memcg
# expect: pass|memory_limit
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: sockmem-bounded
# host: no-leftover
import socket
import struct
import time

SOCKS = 100
SO_MEMINFO = 55
STALLED = 3  # sends in a row that left the queue as it was
msg = b"\x5a" * 60000
held = []
sent = 0


def queued(r):
    """Bytes in r's receive queue, or None where the kernel cannot tell."""
    try:
        return struct.unpack_from("I", r.getsockopt(socket.SOL_SOCKET, SO_MEMINFO, 36))[0]
    except OSError:
        return None


for _ in range(SOCKS):
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
    r.bind(("127.0.0.1", 0))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    held += [r, s]
    # An 8 MB queue takes about 130 datagrams of 60000 bytes (~64 KB each).
    last, stalled = queued(r), 0
    for _ in range(200):
        try:
            sent += s.sendto(msg, r.getsockname())
        except OSError:
            break
        now = queued(r)
        if now is not None:
            stalled = stalled + 1 if now <= last else 0
            last = now
            if stalled >= STALLED:
                break
print("sent %d MB to %d unread sockets" % (sent >> 20, SOCKS), flush=True)
print(open("/proc/net/sockstat").read(), flush=True)
time.sleep(1.5)
print("done", flush=True)
