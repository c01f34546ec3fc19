# A tree as costly to free as the limits allow: /tmp, /work and /dev/shm
# filled to their inode limits, each file holding a page, and a large file
# on top. The daemon holds a job's mount namespace past its answer and lets
# it go on its reclaim thread (sandboxd/jail/reclaim.h): that freeing must
# neither be kept (every namespace is let go once the batch has answered)
# nor stall the daemon, and the pages stay charged to the job meanwhile.
# expect: pass
# limits: {"wall_ms": 20000, "cpu_ms": 15000, "tmpfs_mb": 128, "memory_mb": 512}
# stdout: contains TREE-FILLED
# host: ns-released
# host: daemon-alive
# host: no-leftover
# host: disk-unchanged
import errno
import os

made = {}
page = b"\xa5" * 4096
for d in ("/tmp", "/work", "/dev/shm"):
    n = 0
    try:
        while n < 20000:
            with open("%s/t%d" % (d, n), "wb") as f:
                f.write(page)
            n += 1
    except OSError as e:
        made[d + " stopped"] = errno.errorcode.get(e.errno)
    made[d] = n
try:
    with open("/dev/shm/big", "wb") as f:
        for _ in range(32):
            f.write(b"\x5a" * (1 << 20))
except OSError as e:
    made["big stopped"] = errno.errorcode.get(e.errno)
print(made)
print("TREE-FILLED" if made["/tmp"] > 1000 and made["/dev/shm"] > 1000 else "TREE-SMALL")
