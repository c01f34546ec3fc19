# Kernel memory outside the memory limit through TCP socket buffers: a
# 64 MB job opens many loopback connections and fills them without reading,
# so the data sits in the senders' write queues and the receivers' receive
# queues. On cgroup v1 socket memory is charged to memory.kmem.tcp.*, not to
# memory.limit_in_bytes, and only once that limit is set; unlimited, this
# held 715 MB with 60 connections (verdict pass, memory_kb 6140). The job
# must not hold more than its limit: its sends fail (EAGAIN) or it ends in
# memory_limit. sockmem-bounded samples the host-wide TCP/UDP memory
# (/proc/net/sockstat, not per namespace) while the job runs.
# requires: cgroup-memory
# requires: socket-memcg
# expect: pass|memory_limit
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: sockmem-bounded
# host: no-leftover
# host: daemon-alive
import fcntl
import socket
import struct
import termios
import time

CONNS = 60
CHUNK = b"\x5a" * (1 << 20)

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
srv.bind(("127.0.0.1", 0))
srv.listen(CONNS)
pairs = []
for _ in range(CONNS):
    c = socket.socket()
    # Send buffers are left to autotuning, which grows them to tcp_wmem's
    # maximum (4 MB by default) where SO_SNDBUF would stop at wmem_max (208
    # KB on a stock kernel); receive buffers do not grow unread, so they
    # get the largest SO_RCVBUF allowed (the kernel doubles it).
    c.connect(srv.getsockname())
    a, _ = srv.accept()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
    c.setblocking(False)
    pairs.append((c, a))

sent = 0
errors = {}
# Autotuning grows the buffers while data flows, so fill in rounds until no
# socket takes any more.
for _ in range(40):
    progress = 0
    for c, _a in pairs:
        while True:
            try:
                n = c.send(CHUNK)
            except BlockingIOError:
                break
            except OSError as e:
                errors[e.errno] = errors.get(e.errno, 0) + 1
                break
            sent += n
            progress += n
    if not progress:
        break
    time.sleep(0.02)


def queued(s, req):
    buf = fcntl.ioctl(s.fileno(), req, struct.pack("i", 0))
    return struct.unpack("i", buf)[0]


held = sum(queued(c, termios.TIOCOUTQ) + queued(a, termios.FIONREAD) for c, a in pairs)
print("sent %d MB, queued in the kernel %d MB, errors %s" % (sent >> 20, held >> 20, errors),
      flush=True)
# Hold it a moment so the host's sampler sees the peak.
time.sleep(1.5)
print("done", flush=True)
