# Raw syscall through ctypes: process_vm_readv, to read the memory of pid 1
# (the job's init, a copy of the daemon). The seccomp profile kills the job
# before the call runs; the response names the syscall.
# expect: violation
# violation: process_vm_readv
# stdout: contains CALLING
# stdout: not-contains RETURNED
# host: no-leftover
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def L(*args):
    return [ctypes.c_long(a) if isinstance(a, int) else a for a in args]


print("CALLING process_vm_readv", flush=True)
r = libc.syscall(*L(310, 1, None, 0, None, 0, 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
