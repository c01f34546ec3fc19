# Raw syscall through ctypes: pidfd_getfd, to steal a file descriptor from
# another process. The seccomp profile kills the job before the call runs; the
# response names the syscall.
# expect: violation
# violation: pidfd_getfd
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


print("CALLING pidfd_getfd", flush=True)
r = libc.syscall(*L(438, 0, 0, 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
