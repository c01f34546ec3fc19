# Raw syscall through ctypes: unshare, to create a user namespace
# (CLONE_NEWUSER), which an unprivileged process could otherwise get.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: unshare
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


print("CALLING unshare", flush=True)
r = libc.syscall(*L(272, 0x10000000))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
