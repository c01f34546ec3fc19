# Raw syscall through ctypes: fsopen, to mount through the new mount API.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: fsopen
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


print("CALLING fsopen", flush=True)
r = libc.syscall(*L(430, b'tmpfs', 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
