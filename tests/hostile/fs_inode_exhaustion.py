# Create empty files in /tmp until the tmpfs runs out of inodes: bounded by
# its nr_inodes, caught, and the host's inodes untouched.
# expect: pass
# limits: {"wall_ms": 15000, "cpu_ms": 10000}
# stdout: contains INODES-BOUNDED
# host: disk-unchanged
# host: marker-absent
import errno
import os

n = 0
err = None
try:
    while n < 1000000:
        os.close(os.open("/tmp/i%d" % n, os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError as e:
    err = errno.errorcode.get(e.errno)
print("created", n, "files, then", err)
print("INODES-BOUNDED" if err in ("ENOSPC", "EDQUOT") and n < 100000 else "UNBOUNDED")
