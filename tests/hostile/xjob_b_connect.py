# Cross-job channels, part B (runs at the same time as part A): for three
# seconds, try every channel part A offers. None may reach it.
# expect: pass
# limits: {"wall_ms": 10000}
# stdout: contains ISOLATED
# stdout: not-contains REACHED
# host: ipc-clean
import ctypes
import os
import socket
import time

libc = ctypes.CDLL(None, use_errno=True)
reached = set()
end = time.time() + 3
time.sleep(0.3)
while time.time() < end:
    for fam, addr in ((socket.AF_UNIX, "\0sbx-xjob-@MARKER@"), (socket.AF_INET, ("127.0.0.1", 47011))):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect(addr)
            reached.add(repr(addr))
        except OSError:
            pass
        s.close()
    for d in ("/tmp", "/dev/shm", "/work"):
        if os.path.exists("%s/xjob-@MARKER@" % d):
            reached.add(d)
    if libc.shmget(0x5BD3, 0, 0) >= 0:
        reached.add("shm")
    time.sleep(0.1)
print("REACHED %s" % sorted(reached) if reached else "ISOLATED")
