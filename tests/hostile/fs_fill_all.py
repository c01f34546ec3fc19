# Fill /tmp, /work and /dev/shm together with one file each past the size
# limit (RLIMIT_FSIZE): every tmpfs is bounded, the host disk unchanged.
# expect: pass
# limits: {"tmpfs_mb": 32, "memory_mb": 256}
# stdout: contains ALL-BOUNDED
# host: disk-unchanged
# host: marker-absent
import os

block = b"\xcd" * (1 << 20)
ok = 0
for d in ("/tmp", "/work", "/dev/shm"):
    n = 0
    try:
        with open("%s/big-@MARKER@" % d, "wb") as f:
            while n < (1 << 30):
                f.write(block)
                f.flush()
                n += len(block)
    except OSError as e:
        print(d, "stopped at", n >> 20, "MiB:", e.strerror)
        if n <= 32 << 20:
            ok += 1
print("ALL-BOUNDED" if ok == 3 else "UNBOUNDED")
