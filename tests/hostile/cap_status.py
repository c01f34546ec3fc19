# Capabilities and privilege state as the kernel reports them: every
# capability set empty, no_new_privs on, seccomp in filter mode, not root;
# setuid(0) and regaining capabilities with capset fail.
# expect: pass
# stdout: contains CapInh=0000000000000000
# stdout: contains CapPrm=0000000000000000
# stdout: contains CapEff=0000000000000000
# stdout: contains CapBnd=0000000000000000
# stdout: contains CapAmb=0000000000000000
# stdout: contains NoNewPrivs=1
# stdout: contains Seccomp=2
# stdout: contains SETUID-REFUSED
# stdout: contains CAPSET-REFUSED
# stdout: not-contains Uid=0
# host: no-leftover
import ctypes
import os

for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    if k.startswith("Cap") or k in ("NoNewPrivs", "Seccomp", "Uid", "Gid", "Groups"):
        print("%s=%s" % (k, v.strip().split("\t")[0] if k in ("Uid", "Gid") else v.strip()))
try:
    os.setuid(0)
    print("SETUID-WORKED", os.getuid())
except OSError as e:
    print("SETUID-REFUSED", e.strerror)
libc = ctypes.CDLL(None, use_errno=True)
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
data = (ctypes.c_uint32 * 6)(0xFFFFFFFF, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0)
r = libc.capset(hdr, data)
print("CAPSET-REFUSED" if r != 0 else "CAPSET-WORKED", os.strerror(ctypes.get_errno()))
