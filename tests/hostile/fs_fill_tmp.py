# Fill /tmp until the tmpfs is full: the write fails (ENOSPC, or EFBIG from
# RLIMIT_FSIZE), the job catches it, and the host's disk is untouched.
# expect: pass
# limits: {"tmpfs_mb": 48, "memory_mb": 256}
# stdout: contains FULL
# host: disk-unchanged
# host: marker-absent
import errno
import os

block = b"\xab" * (1 << 20)
written = 0
try:
    for i in range(100000):
        with open("/tmp/fill-@MARKER@-%d" % i, "wb") as f:
            for _ in range(8):
                f.write(block)
                f.flush()
                written += len(block)
except OSError as e:
    print("FULL after", written >> 20, "MiB:", errno.errorcode.get(e.errno), e.strerror)
print("written MiB", written >> 20)
assert written <= 48 << 20, "wrote more than the tmpfs size"
