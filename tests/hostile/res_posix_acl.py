# Kernel memory outside the memory limit through POSIX ACLs: the job sets an
# access and a default ACL of 8,191 entries (64 KB, naming its own uid, which
# the kernel takes as often as given) on each of 1,500 directories of its
# /tmp. The kernel keeps each ACL in a kmalloc of its own
# (posix_acl_from_xattr), 128 KB, that no cgroup is charged for: unrefused,
# this held 375 MB beyond a 64 MB job's limit, and an outside attack held
# 3 GB (found then;
# the seccomp profile now answers every setxattr with EOPNOTSUPP, since it
# cannot see the attribute's name). kmem-bounded samples the host's
# unreclaimable kernel memory while the job runs. A program that copies
# files with their metadata (shutil.copy2) still works.
# expect: pass
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 10000}
# stdout: contains ACL-REFUSED 95
# stdout: contains USER-XATTR-REFUSED 95
# stdout: contains COPY2-OK
# host: kmem-bounded
# host: no-leftover
import errno
import os
import shutil
import struct

N = 8191
acl = struct.pack("<I", 2) + struct.pack("<HHI", 0x01, 7, 0xFFFFFFFF)
acl += struct.pack("<HHI", 0x02, 7, os.getuid()) * (N - 4)
acl += struct.pack("<HHI", 0x04, 7, 0xFFFFFFFF) + struct.pack("<HHI", 0x10, 7, 0xFFFFFFFF)
acl += struct.pack("<HHI", 0x20, 7, 0xFFFFFFFF)

made = 0
for i in range(1500):
    d = "/tmp/acl%d" % i
    os.mkdir(d)
    try:
        os.setxattr(d, "system.posix_acl_access", acl)
        os.setxattr(d, "system.posix_acl_default", acl)
        made += 1
    except OSError as e:
        print("ACL-REFUSED %d after %d" % (e.errno, made), flush=True)
        break
else:
    print("ACL-SET %d" % made, flush=True)

try:
    os.setxattr("/tmp/acl0", "user.x", b"y" * 1024)
    print("USER-XATTR-SET", flush=True)
except OSError as e:
    print("USER-XATTR-REFUSED %d" % e.errno, flush=True)

with open("/tmp/src.txt", "w") as f:
    f.write("data")
shutil.copy2("/tmp/src.txt", "/tmp/dst.txt")
with open("/tmp/dst.txt") as f:
    print("COPY2-OK" if f.read() == "data" else "COPY2-WRONG", flush=True)
assert errno.EOPNOTSUPP == 95
