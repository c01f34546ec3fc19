# Cross-job channels, part A (runs at the same time as part B, in another
# slot): offer every channel a job could use to reach a neighbour (an
# abstract Unix socket, TCP on 127.0.0.1, files in /tmp and /dev/shm, a SysV
# shared memory segment) and wait for part B to find one. Nothing may arrive.
# expect: pass
# limits: {"wall_ms": 10000}
# stdout: contains NO-CONTACT
# host: ipc-clean
import ctypes
import select
import socket
import time

libc = ctypes.CDLL(None, use_errno=True)
unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
unix.bind("\0sbx-xjob-@MARKER@")
unix.listen(8)
tcp = socket.socket()
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", 47011))
tcp.listen(8)
for d in ("/tmp", "/dev/shm", "/work"):
    with open("%s/xjob-@MARKER@" % d, "w") as f:
        f.write("from A")
print("shm", libc.shmget(0x5BD3, 4096, 0o1666), flush=True)
contact = []
end = time.time() + 3.5
while time.time() < end:
    r, _, _ = select.select([unix, tcp], [], [], 0.1)
    for s in r:
        c, addr = s.accept()
        contact.append(str(addr))
        c.close()
print("CONTACTED %s" % contact if contact else "NO-CONTACT")
